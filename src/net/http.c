/* URLs and HTTP/1.1 framing without I/O: see http.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http.h"

static int is_alpha(int c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int hexval(int c)
{
	if (is_digit(c))
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static unsigned default_port(enum lb_url_scheme s)
{
	return s == LB_URL_HTTP ? 80 : s == LB_URL_HTTPS ? 443 : 69;
}

static const char *scheme_name(enum lb_url_scheme s)
{
	return s == LB_URL_HTTP ? "http" : s == LB_URL_HTTPS ? "https" : "tftp";
}

int lb_url_parse(const char *s, struct lb_url *u)
{
	struct lb_url v;
	const char *p, *a, *end;
	size_t n;

	memset(&v, 0, sizeof(v));
	for (p = s; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			return -EINVAL;
	if (!strncasecmp(s, "http://", 7)) {
		v.scheme = LB_URL_HTTP;
		a = s + 7;
	} else if (!strncasecmp(s, "https://", 8)) {
		v.scheme = LB_URL_HTTPS;
		a = s + 8;
	} else if (!strncasecmp(s, "tftp://", 7)) {
		v.scheme = LB_URL_TFTP;
		a = s + 7;
	} else {
		return -EPROTONOSUPPORT;
	}
	end = a + strcspn(a, "/?#");
	if (memchr(a, '@', (size_t)(end - a)))
		return -EINVAL;         /* no user info */
	p = a;
	if (*p == '[') {
		const char *q = memchr(p, ']', (size_t)(end - p));
		if (!q || q == p + 1)
			return -EINVAL;
		n = (size_t)(q - p - 1);
		for (size_t i = 0; i < n; i++)
			if (hexval(p[1 + i]) < 0 && p[1 + i] != ':' && p[1 + i] != '.')
				return -EINVAL;
		if (n > LB_URL_HOST_MAX || !memchr(p + 1, ':', n))
			return -EINVAL;
		memcpy(v.host, p + 1, n);
		v.ipv6 = 1;
		p = q + 1;
	} else {
		const char *q = p;
		while (q < end && *q != ':') {
			if (!is_alpha(*q) && !is_digit(*q) && *q != '-' && *q != '.' && *q != '_')
				return -EINVAL;
			q++;
		}
		n = (size_t)(q - p);
		if (!n || n > LB_URL_HOST_MAX)
			return -EINVAL;
		memcpy(v.host, p, n);
		p = q;
	}
	v.port = default_port(v.scheme);
	if (p < end) {
		unsigned port = 0;
		if (*p++ != ':')
			return -EINVAL;
		if (p < end) {
			if (end - p > 5)
				return -EINVAL;
			for (; p < end; p++) {
				if (!is_digit(*p))
					return -EINVAL;
				port = port * 10 + (unsigned)(*p - '0');
			}
			if (!port || port > 65535)
				return -EINVAL;
			v.port = port;
			v.port_given = 1;
		}
	}
	p = end;
	n = strcspn(p, "#");
	if (n + 2 > sizeof(v.path))
		return -ENAMETOOLONG;
	if (*p != '/')
		v.path[0] = '/';
	memcpy(v.path + (*p != '/'), p, n);
	for (size_t i = 0; v.path[i]; i++) {
		if (v.path[i] == '%' && (hexval(v.path[i + 1]) < 0 || hexval(v.path[i + 2]) < 0))
			return -EINVAL;
	}
	*u = v;
	return 0;
}

int lb_url_format(const struct lb_url *u, char *out, size_t cap)
{
	char port[8] = "";
	int n;

	if (u->port != default_port(u->scheme) || u->port_given)
		snprintf(port, sizeof(port), ":%u", u->port);
	n = snprintf(out, cap, "%s://%s%s%s%s%s", scheme_name(u->scheme),
		     u->ipv6 ? "[" : "", u->host, u->ipv6 ? "]" : "", port, u->path);
	if (n < 0 || (size_t)n >= cap)
		return -ENAMETOOLONG;
	return 0;
}

/* RFC 3986 5.2.4 on a path (no query) into out (cap >= strlen(in) + 2). */
static void remove_dots(const char *in, size_t len, char *out)
{
	size_t o = 0, i = 0;

	if (i < len && in[i] == '/')
		i++;
	while (i <= len) {
		size_t s = i;
		while (i < len && in[i] != '/')
			i++;
		size_t sl = i - s;
		int last = i >= len;
		if (sl == 1 && in[s] == '.') {
			if (last)
				out[o++] = '/';
		} else if (sl == 2 && in[s] == '.' && in[s + 1] == '.') {
			while (o && out[o - 1] != '/')
				o--;
			if (o)
				o--;
			if (last)
				out[o++] = '/';
		} else {
			out[o++] = '/';
			memcpy(out + o, in + s, sl);
			o += sl;
		}
		i++;
	}
	if (!o)
		out[o++] = '/';
	out[o] = 0;
}

int lb_url_resolve(const char *base, const char *ref, char *out, size_t cap)
{
	struct lb_url b, r;
	char path[LB_URL_MAX * 2], clean[LB_URL_MAX * 2 + 2];
	const char *p;
	size_t rl, bl, ql;
	int rc;

	/* an absolute reference: scheme ":" */
	for (p = ref; is_alpha(*p) || (p > ref && (is_digit(*p) || *p == '+' ||
						   *p == '-' || *p == '.')); p++)
		;
	if (p > ref && *p == ':') {
		if ((rc = lb_url_parse(ref, &r)))
			return rc;
		return lb_url_format(&r, out, cap);
	}
	if ((rc = lb_url_parse(base, &b)))
		return rc;
	rl = strcspn(ref, "#");
	if (rl >= LB_URL_MAX)
		return -ENAMETOOLONG;
	if (ref[0] == '/' && ref[1] == '/') {
		char tmp[LB_URL_MAX + 16];
		snprintf(tmp, sizeof(tmp), "%s:%.*s", scheme_name(b.scheme), (int)rl, ref);
		if ((rc = lb_url_parse(tmp, &r)))
			return rc;
		return lb_url_format(&r, out, cap);
	}
	bl = strcspn(b.path, "?");
	if (rl == 0) {
		memcpy(path, b.path, strlen(b.path) + 1);
	} else if (ref[0] == '?') {
		snprintf(path, sizeof(path), "%.*s%.*s", (int)bl, b.path, (int)rl, ref);
	} else if (ref[0] == '/') {
		snprintf(path, sizeof(path), "%.*s", (int)rl, ref);
	} else {
		size_t dir = bl;
		while (dir && b.path[dir - 1] != '/')
			dir--;
		snprintf(path, sizeof(path), "%.*s%.*s", (int)dir, b.path, (int)rl, ref);
	}
	ql = strcspn(path, "?");
	remove_dots(path, ql, clean);
	if (strlen(clean) + strlen(path + ql) >= LB_URL_MAX)
		return -ENAMETOOLONG;
	strcat(clean, path + ql);
	for (p = clean; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			return -EINVAL;
	memcpy(b.path, clean, strlen(clean) + 1);
	for (size_t i = 0; b.path[i]; i++)
		if (b.path[i] == '%' && (hexval(b.path[i + 1]) < 0 || hexval(b.path[i + 2]) < 0))
			return -EINVAL;
	return lb_url_format(&b, out, cap);
}

int lb_url_path_decode(const struct lb_url *u, char *out, size_t cap)
{
	const char *p = u->path;
	size_t o = 0, n = strcspn(p, "?");

	if (n && p[0] == '/') {
		p++;
		n--;
	}
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)p[i];
		if (c == '%') {
			if (i + 2 >= n || hexval(p[i + 1]) < 0 || hexval(p[i + 2]) < 0)
				return -EINVAL;
			c = hexval(p[i + 1]) * 16 + hexval(p[i + 2]);
			i += 2;
		}
		if (c < 0x20 || c == 0x7f)
			return -EINVAL;
		if (o + 1 >= cap)
			return -ENAMETOOLONG;
		out[o++] = (char)c;
	}
	if (!o)
		return -EINVAL;
	out[o] = 0;
	return 0;
}

int lb_http_request(const struct lb_url *u, int keepalive, char *out, size_t cap,
		    size_t *len)
{
	char port[8] = "";
	int n;

	if (u->port != default_port(u->scheme))
		snprintf(port, sizeof(port), ":%u", u->port);
	n = snprintf(out, cap,
		     "GET %s HTTP/1.1\r\n"
		     "Host: %s%s%s%s\r\n"
		     "User-Agent: lboot\r\n"
		     "Accept: */*\r\n"
		     "Connection: %s\r\n"
		     "\r\n",
		     u->path, u->ipv6 ? "[" : "", u->host, u->ipv6 ? "]" : "", port,
		     keepalive ? "keep-alive" : "close");
	if (n < 0 || (size_t)n >= cap)
		return -ENOSPC;
	*len = (size_t)n;
	return 0;
}

/* --- response head ----------------------------------------------------- */

void lb_http_head_init(struct lb_http_resp *r)
{
	r->status = 0;
	r->minor = 1;
	r->content_length = -1;
	r->chunked = 0;
	r->close = 0;
	r->location[0] = 0;
	r->reason[0] = 0;
	r->n = 0;
	r->done = 0;
}

static int is_tchar(int c)
{
	return is_alpha(c) || is_digit(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int ows(int c) { return c == ' ' || c == '\t'; }

/* Each comma-separated token of v (OWS trimmed) to fn. */
static int each_token(const char *v, size_t n, int (*fn)(void *, const char *, size_t),
		      void *arg)
{
	size_t i = 0;

	while (i <= n) {
		size_t s = i, e;
		while (i < n && v[i] != ',')
			i++;
		e = i;
		while (s < e && ows(v[s]))
			s++;
		while (e > s && ows(v[e - 1]))
			e--;
		int rc = fn(arg, v + s, e - s);
		if (rc)
			return rc;
		i++;
	}
	return 0;
}

struct hctx {
	struct lb_http_resp *r;
	int keepalive, nchunked;
};

static int tok_cl(void *arg, const char *t, size_t n)
{
	struct hctx *h = arg;
	int64_t v = 0;

	if (!n || n > 18)
		return -EPROTO;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(t[i]))
			return -EPROTO;
		v = v * 10 + (t[i] - '0');
	}
	if (h->r->content_length >= 0 && h->r->content_length != v)
		return -EPROTO;
	h->r->content_length = v;
	return 0;
}

static int tok_te(void *arg, const char *t, size_t n)
{
	struct hctx *h = arg;

	if (n == 7 && !strncasecmp(t, "chunked", 7)) {
		h->nchunked++;
		return 0;
	}
	if (!n)
		return -EPROTO;
	return -EOPNOTSUPP;
}

static int tok_conn(void *arg, const char *t, size_t n)
{
	struct hctx *h = arg;

	if (n == 5 && !strncasecmp(t, "close", 5))
		h->r->close = 1;
	else if (n == 10 && !strncasecmp(t, "keep-alive", 10))
		h->keepalive = 1;
	return 0;
}

static int parse_head(struct lb_http_resp *r)
{
	struct hctx h = { r, 0, 0 };
	char *p = r->buf, *end = r->buf + r->n, *nl;
	int have_te = 0, rc;
	size_t n;

	r->content_length = -1;
	r->chunked = r->close = 0;
	r->location[0] = 0;
	for (char *q = p; q < end; q++)
		if (!*q || (*q == '\r' && (q + 1 >= end || q[1] != '\n')))
			return -EPROTO;
	/* status line */
	nl = memchr(p, '\n', (size_t)(end - p));
	n = (size_t)(nl - p);
	if (n && p[n - 1] == '\r')
		n--;
	if (n < 12 || memcmp(p, "HTTP/1.", 7) || !is_digit(p[7]) || p[8] != ' ' ||
	    !is_digit(p[9]) || !is_digit(p[10]) || !is_digit(p[11]) ||
	    (n > 12 && p[12] != ' '))
		return -EPROTO;
	r->minor = p[7] - '0';
	r->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	if (r->status < 100 || r->status > 599)
		return -EPROTO;
	{
		size_t rl = n > 13 ? n - 13 : 0, o = 0;
		for (size_t i = 0; i < rl && o + 1 < sizeof(r->reason); i++) {
			char c = p[13 + i];
			r->reason[o++] = (c >= 0x20 && c < 0x7f) ? c : '?';
		}
		r->reason[o] = 0;
	}
	p = nl + 1;
	for (;;) {
		char *colon, *v, *ve;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return -EPROTO;
		n = (size_t)(nl - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (!n)
			break;
		if (ows(p[0]))
			return -EPROTO;         /* obsolete line folding */
		colon = memchr(p, ':', n);
		if (!colon || colon == p)
			return -EPROTO;
		for (char *q = p; q < colon; q++)
			if (!is_tchar((unsigned char)*q))
				return -EPROTO;
		v = colon + 1;
		ve = p + n;
		while (v < ve && ows(*v))
			v++;
		while (ve > v && ows(ve[-1]))
			ve--;
		size_t nlen = (size_t)(colon - p), vlen = (size_t)(ve - v);
		for (size_t i = 0; i < vlen; i++)
			if ((unsigned char)v[i] < 0x20 && v[i] != '\t')
				return -EPROTO;
		if (nlen == 14 && !strncasecmp(p, "content-length", 14)) {
			if ((rc = each_token(v, vlen, tok_cl, &h)))
				return rc;
		} else if (nlen == 17 && !strncasecmp(p, "transfer-encoding", 17)) {
			have_te = 1;
			if ((rc = each_token(v, vlen, tok_te, &h)))
				return rc;
		} else if (nlen == 10 && !strncasecmp(p, "connection", 10)) {
			each_token(v, vlen, tok_conn, &h);
		} else if (nlen == 8 && !strncasecmp(p, "location", 8)) {
			if (r->location[0] || !vlen || vlen >= sizeof(r->location))
				return -EPROTO;
			memcpy(r->location, v, vlen);
			r->location[vlen] = 0;
		}
		p = nl + 1;
	}
	if (have_te) {
		if (r->minor == 0 || h.nchunked != 1)
			return -EPROTO;
		r->chunked = 1;
		/* RFC 9112 6.1: Transfer-Encoding overrides Content-Length, and
		 * the connection cannot be trusted afterwards */
		if (r->content_length >= 0) {
			r->content_length = -1;
			r->close = 1;
		}
	}
	if (r->minor == 0 && !h.keepalive)
		r->close = 1;
	if (!r->chunked && r->content_length < 0 && r->status >= 200 &&
	    r->status != 204 && r->status != 304)
		r->close = 1;   /* body runs to the end of the connection */
	return 0;
}

int lb_http_head_feed(struct lb_http_resp *r, const uint8_t *in, size_t len,
		      size_t *used)
{
	*used = 0;
	if (r->done)
		return 1;
	for (size_t i = 0; i < len; i++) {
		char c = (char)in[i];
		if (r->n >= sizeof(r->buf))
			return -EMSGSIZE;
		r->buf[r->n++] = c;
		if (c != '\n')
			continue;
		/* empty lines before the status line are ignored (RFC 9112 2.2) */
		if (r->n == 1 || (r->n == 2 && r->buf[0] == '\r')) {
			r->n = 0;
			continue;
		}
		if (!(r->buf[r->n - 2] == '\n' ||
		      (r->n >= 3 && r->buf[r->n - 2] == '\r' && r->buf[r->n - 3] == '\n')))
			continue;
		int rc = parse_head(r);
		if (rc)
			return rc;
		if (r->status < 200) {
			if (r->status == 101)
				return -EPROTO;
			r->n = 0;       /* interim response: the real one follows */
			continue;
		}
		*used = i + 1;
		r->done = 1;
		return 1;
	}
	*used = len;
	return 0;
}

/* --- body -------------------------------------------------------------- */

enum { C_SIZE, C_EXT, C_SIZE_LF, C_DATA, C_DATA_CR, C_DATA_LF, C_TRAILER,
       C_TRAILER_LF };

#define LB_HTTP_EXT_MAX     4096
#define LB_HTTP_TRAILER_MAX 16384

void lb_http_body_init(struct lb_http_body *b, const struct lb_http_resp *r,
		       uint64_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max ? max : (uint64_t)1 << 62;
	if (r->status < 200 || r->status == 204 || r->status == 304) {
		b->mode = LB_BODY_NONE;
		b->done = 1;
	} else if (r->chunked) {
		b->mode = LB_BODY_CHUNKED;
		b->st = C_SIZE;
	} else if (r->content_length >= 0) {
		b->mode = LB_BODY_LENGTH;
		b->left = (uint64_t)r->content_length;
		b->done = b->left == 0;
	} else {
		b->mode = LB_BODY_CLOSE;
	}
}

int lb_http_body_feed(struct lb_http_body *b, const uint8_t *in, size_t len,
		      size_t *used, const uint8_t **data, size_t *dlen)
{
	size_t i = 0, take;

	*used = 0;
	*data = in;
	*dlen = 0;
	if (b->done)
		return 1;
	switch (b->mode) {
	case LB_BODY_NONE:
		return 1;
	case LB_BODY_LENGTH:
		if (b->left > b->max - b->total)
			return -EFBIG;
		take = len < b->left ? len : (size_t)b->left;
		b->left -= take;
		b->total += take;
		*used = take;
		*dlen = take;
		if (!b->left) {
			b->done = 1;
			return 1;
		}
		return 0;
	case LB_BODY_CLOSE:
		if (len > b->max - b->total)
			return -EFBIG;
		b->total += len;
		*used = len;
		*dlen = len;
		return 0;
	case LB_BODY_CHUNKED:
		break;
	}
	while (i < len) {
		int c = in[i];
		switch (b->st) {
		case C_SIZE: {
			int h = hexval(c);
			if (h >= 0) {
				if (++b->digits > 15)
					return -EPROTO;       /* chunk size overflow */
				b->left = b->left * 16 + (uint64_t)h;
				i++;
				continue;
			}
			if (!b->digits)
				return -EPROTO;
			if (c == ';' || ows(c)) {
				b->st = C_EXT;
				b->linelen = 0;
			} else if (c == '\r') {
				b->st = C_SIZE_LF;
				i++;
				continue;
			} else if (c != '\n') {
				return -EPROTO;
			} else {
				b->st = C_SIZE_LF;
				continue;       /* handle the LF there */
			}
			i++;
			continue;
		}
		case C_EXT:
			if (c == '\r') {
				b->st = C_SIZE_LF;
			} else if (c == '\n') {
				b->st = C_SIZE_LF;
				continue;
			} else if ((c < 0x20 && c != '\t') || c == 0x7f ||
				   ++b->linelen > LB_HTTP_EXT_MAX) {
				return -EPROTO;
			}
			i++;
			continue;
		case C_SIZE_LF:
			if (c != '\n')
				return -EPROTO;
			i++;
			b->digits = 0;
			if (!b->left) {
				b->st = C_TRAILER;
				b->linelen = 0;
				continue;
			}
			if (b->left > b->max - b->total)
				return -EFBIG;          /* endless chunk */
			b->st = C_DATA;
			continue;
		case C_DATA:
			take = len - i < b->left ? len - i : (size_t)b->left;
			*data = in + i;
			*dlen = take;
			b->left -= take;
			b->total += take;
			if (!b->left)
				b->st = C_DATA_CR;
			*used = i + take;
			return 0;
		case C_DATA_CR:
			if (c == '\r')
				b->st = C_DATA_LF;
			else if (c == '\n')
				b->st = C_SIZE;
			else
				return -EPROTO;
			i++;
			continue;
		case C_DATA_LF:
			if (c != '\n')
				return -EPROTO;
			b->st = C_SIZE;
			i++;
			continue;
		case C_TRAILER:
			if (++b->trailer > LB_HTTP_TRAILER_MAX)
				return -EPROTO;
			if (c == '\n') {
				i++;
				if (!b->linelen) {
					b->done = 1;
					*used = i;
					return 1;
				}
				b->linelen = 0;
				continue;
			}
			if (c == '\r' && !b->linelen) {
				b->st = C_TRAILER_LF;
				i++;
				continue;
			}
			if (c != '\r')
				b->linelen++;
			i++;
			continue;
		case C_TRAILER_LF:
			if (c != '\n')
				return -EPROTO;
			i++;
			b->done = 1;
			*used = i;
			return 1;
		default:
			return -EINVAL;
		}
	}
	*used = i;
	return 0;
}

int lb_http_body_eof(const struct lb_http_body *b)
{
	if (b->done || b->mode == LB_BODY_CLOSE || b->mode == LB_BODY_NONE)
		return 0;
	return -EPIPE;
}
