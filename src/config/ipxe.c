/* iPXE script interpreter: see ipxe.h. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "io.h"
#include "ipxe.h"

/* ---- small helpers --------------------------------------------------- */

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s);
	char *p = malloc(n + 1);

	if (p)
		memcpy(p, s, n + 1);
	return p;
}

/* Growable string with a cap. */
struct sbuf {
	char *s;
	size_t n, cap, max;
	int err;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (n > b->max || b->n > b->max - n) {
		b->err = -E2BIG;
		return;
	}
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *p = realloc(b->s, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* Finish: returns the string (never NULL on success) or NULL with *rc. */
static char *sb_take(struct sbuf *b, int *rc)
{
	if (!b->err && !b->s)
		sb_add(b, "", 0);
	if (b->err) {
		free(b->s);
		*rc = b->err;
		return NULL;
	}
	return b->s;
}

/* ---- state ------------------------------------------------------------ */

struct var {
	char *block; /* "" = the root block */
	char *name;
	int type;
	unsigned char *raw;
	size_t len;
	int net;     /* holds bytes of a setting from the host that is not the
		      * machine's own (DHCP's next-server, filename, hostname...):
		      * not covered by the script's signature */
};

struct image {
	char *name;
	char *url;
	char *cmdline;
	char *script;       /* the bytes when it is an iPXE script */
	size_t script_len;
	int fetched;        /* went through the fetch callback */
	int selected;
	int autofree;
	unsigned long timeout_ms;
	int running;        /* a script being executed: not registered */
	int url_net;        /* its URL holds bytes of a network setting */
	int cmdline_net;    /* its arguments do */
};

struct line {
	size_t lineno;      /* 1-based, of the line's first physical line */
	char *buf;          /* the line (label and command point into it) */
	char *label;        /* NULL when none */
	char *cmd;
};

struct script {
	const char *url;
	struct line *lines;
	size_t n, cap;
};

struct st {
	const struct lb_ipxe_host *h;
	struct lb_ipxe_result *res;
	struct var *vars;
	size_t n_vars;
	struct image *imgs[LB_IPXE_MAX_IMAGES];
	size_t n_imgs;
	unsigned img_index;                /* for "imgN" names */
	struct lb_ipxe_menu *menus[LB_IPXE_MAX_MENUS];
	size_t n_menus;
	const char *cwuri;                 /* base for relative URLs */
	struct script *cur;                /* script being run */
	size_t pc;                         /* its next line */
	size_t lineno;                     /* line being run, for messages */
	int depth;
	int done;                          /* a final action was reached */
	int stop;                          /* 1 = rest of line, 2 = script */
	int fatal;                         /* budget/cap error: unwind all */
	size_t work;                       /* bytes expanded so far */
	unsigned long slept_ms;            /* all sleeps so far */
	char *errmsg;                      /* last failure message */
	/* provenance: argnet[k] is set when the current command's argument k
	 * holds bytes expanded from a network setting (or from a setting
	 * that held some); cwuri_net when the base for relative URLs does */
	unsigned char argnet[LB_IPXE_MAX_ARGS + 1];
	int cwuri_net;
};

/* Does any of the current command's arguments from..argc-1 hold bytes of
 * a network setting? */
static int args_net(const struct st *s, int from, int argc)
{
	for (int k = from; k < argc && k <= LB_IPXE_MAX_ARGS; k++)
		if (s->argnet[k])
			return 1;
	return 0;
}

static void out(struct st *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void out(struct st *s, const char *fmt, ...)
{
	char *buf;
	va_list ap;
	int n;

	if (!s->h->output)
		return;
	va_start(ap, fmt);
	n = vasprintf(&buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	s->h->output(s->h->ctx, buf);
	free(buf);
}

static void vnote(struct st *s, const char *fmt, va_list ap, char *buf,
		  size_t size)
{
	const char *u = s->cur && s->cur->url ? s->cur->url : "script";
	char *m;
	int n;

	vsnprintf(buf, size, fmt, ap);
	n = snprintf(NULL, 0, "%s:%zu: %s", u, s->lineno, buf);
	if (n >= 0 && (m = malloc((size_t)n + 1))) {
		snprintf(m, (size_t)n + 1, "%s:%zu: %s", u, s->lineno, buf);
		free(s->errmsg);
		s->errmsg = m;
	}
}

/* Record why a command failed ("URL:LINE: text") without printing it. */
static void note(struct st *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct st *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vnote(s, fmt, ap, buf, sizeof(buf));
	va_end(ap);
}

/* Record why a command failed ("URL:LINE: text"), and print it as iPXE
 * would. Returns rc. */
static int fail(struct st *s, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct st *s, int rc, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vnote(s, fmt, ap, buf, sizeof(buf));
	va_end(ap);
	out(s, "%s\n", buf);
	return rc;
}

/* ---- setting types ---------------------------------------------------- */

static const char *const type_names[LB_IPXE_NTYPES] = {
	"string", "uristring", "ipv4", "int8", "int16", "int32",
	"uint8", "uint16", "uint32", "hex", "hexhyp", "hexraw", "base64",
	"uuid",
};

static int find_type(const char *name)
{
	for (int i = 0; i < LB_IPXE_NTYPES; i++)
		if (!strcmp(name, type_names[i]))
			return i;
	if (!strcmp(name, "guid"))
		return LB_IPXE_UUID;
	return -1;
}

static int is_int_type(int t)
{
	return t >= LB_IPXE_INT8 && t <= LB_IPXE_UINT32;
}

static unsigned int_width(int t)
{
	switch (t) {
	case LB_IPXE_INT8: case LB_IPXE_UINT8: return 1;
	case LB_IPXE_INT16: case LB_IPXE_UINT16: return 2;
	default: return 4;
	}
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* iPXE's hex_decode: pairs of hex digits, separated by sep when sep != 0. */
static int hex_decode(int sep, const char *v, unsigned char *raw, size_t *len)
{
	size_t n = 0;

	while (*v) {
		int hi = hexval(v[0]), lo = hi < 0 ? -1 : hexval(v[1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		raw[n++] = (unsigned char)(hi << 4 | lo);
		v += 2;
		if (sep && *v) {
			if (*v != sep)
				return -EINVAL;
			v++;
			if (!*v)
				return -EINVAL;
		}
	}
	*len = n;
	return 0;
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Parse the formatted value v of type t into raw (at least strlen(v) + 16
 * bytes). Returns 0 or -EINVAL. */
static int parse_value(int t, const char *v, unsigned char *raw, size_t *len)
{
	size_t n = strlen(v);

	switch (t) {
	case LB_IPXE_STRING:
	case LB_IPXE_URISTRING:
		memcpy(raw, v, n);
		*len = n;
		return 0;
	case LB_IPXE_IPV4: {
		unsigned long part[4];
		const char *p = v;
		for (int i = 0; i < 4; i++) {
			char *end;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			part[i] = strtoul(p, &end, 10);
			if (part[i] > 255 || end - p > 3)
				return -EINVAL;
			p = end;
			if (i < 3 && *p++ != '.')
				return -EINVAL;
		}
		if (*p)
			return -EINVAL;
		for (int i = 0; i < 4; i++)
			raw[i] = (unsigned char)part[i];
		*len = 4;
		return 0;
	}
	case LB_IPXE_INT8: case LB_IPXE_INT16: case LB_IPXE_INT32:
	case LB_IPXE_UINT8: case LB_IPXE_UINT16: case LB_IPXE_UINT32: {
		char *end;
		unsigned w = int_width(t);
		unsigned long x;
		errno = 0;
		x = strtoul(v, &end, 0);
		if (*end || end == v)
			return -EINVAL;
		for (unsigned i = 0; i < w; i++)
			raw[i] = (unsigned char)(x >> (8 * (w - 1 - i)));
		*len = w;
		return 0;
	}
	case LB_IPXE_HEX:
		return hex_decode(':', v, raw, len);
	case LB_IPXE_HEXHYP:
		return hex_decode('-', v, raw, len);
	case LB_IPXE_HEXRAW:
		return hex_decode(0, v, raw, len);
	case LB_IPXE_BASE64: {
		unsigned acc = 0, bits = 0;
		size_t o = 0;
		for (const char *p = v; *p && *p != '='; p++) {
			const char *q = strchr(b64, *p);
			if (!q || !*p)
				return -EINVAL;
			acc = acc << 6 | (unsigned)(q - b64);
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				raw[o++] = (unsigned char)(acc >> bits);
			}
		}
		*len = o;
		return 0;
	}
	case LB_IPXE_UUID: {
		size_t o = 0;
		for (const char *p = v; *p;) {
			if (*p == '-') {
				p++;
				continue;
			}
			int hi = hexval(p[0]), lo = hi < 0 ? -1 : hexval(p[1]);
			if (hi < 0 || lo < 0 || o == 16)
				return -EINVAL;
			raw[o++] = (unsigned char)(hi << 4 | lo);
			p += 2;
		}
		if (o != 16)
			return -EINVAL;
		*len = 16;
		return 0;
	}
	}
	return -EINVAL;
}

/* Format raw/len as type t, appended to b. Returns 0 or -ERANGE when the
 * raw value does not fit the type (iPXE then expands to ""). */
static int format_value(int t, const unsigned char *raw, size_t len,
			struct sbuf *b)
{
	char tmp[64];

	switch (t) {
	case LB_IPXE_STRING:
		/* iPXE copies raw bytes and the string ends at a NUL */
		sb_add(b, (const char *)raw, strnlen((const char *)raw, len));
		return 0;
	case LB_IPXE_URISTRING:
		for (size_t i = 0; i < len && raw[i]; i++) {
			unsigned char c = raw[i];
			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || strchr("-_.~", c)) {
				sb_add(b, (const char *)&raw[i], 1);
			} else {
				snprintf(tmp, sizeof(tmp), "%%%02X", c);
				sb_str(b, tmp);
			}
		}
		return 0;
	case LB_IPXE_IPV4:
		if (len != 4)
			return -ERANGE;
		snprintf(tmp, sizeof(tmp), "%u.%u.%u.%u", raw[0], raw[1],
			 raw[2], raw[3]);
		sb_str(b, tmp);
		return 0;
	case LB_IPXE_INT8: case LB_IPXE_INT16: case LB_IPXE_INT32:
	case LB_IPXE_UINT8: case LB_IPXE_UINT16: case LB_IPXE_UINT32: {
		/* iPXE's numeric_setting_value: big-endian, sign-extended
		 * for the signed types, at most sizeof(long) bytes */
		unsigned long x;
		if (len > sizeof(long))
			return -ERANGE;
		int is_signed = t <= LB_IPXE_INT32;
		x = (is_signed && len && (raw[0] & 0x80)) ? ~0UL : 0;
		for (size_t i = 0; i < len; i++)
			x = x << 8 | raw[i];
		if (is_signed)
			snprintf(tmp, sizeof(tmp), "%ld", (long)x);
		else
			snprintf(tmp, sizeof(tmp), "%#lx", x);
		sb_str(b, tmp);
		return 0;
	}
	case LB_IPXE_HEX: case LB_IPXE_HEXHYP: case LB_IPXE_HEXRAW:
		for (size_t i = 0; i < len; i++) {
			if (i && t != LB_IPXE_HEXRAW)
				sb_add(b, t == LB_IPXE_HEX ? ":" : "-", 1);
			snprintf(tmp, sizeof(tmp), "%02x", raw[i]);
			sb_str(b, tmp);
		}
		return 0;
	case LB_IPXE_BASE64:
		for (size_t i = 0; i < len; i += 3) {
			unsigned v = (unsigned)raw[i] << 16;
			if (i + 1 < len)
				v |= (unsigned)raw[i + 1] << 8;
			if (i + 2 < len)
				v |= raw[i + 2];
			tmp[0] = b64[v >> 18 & 63];
			tmp[1] = b64[v >> 12 & 63];
			tmp[2] = i + 1 < len ? b64[v >> 6 & 63] : '=';
			tmp[3] = i + 2 < len ? b64[v & 63] : '=';
			sb_add(b, tmp, 4);
		}
		return 0;
	case LB_IPXE_UUID:
		if (len != 16)
			return -ERANGE;
		snprintf(tmp, sizeof(tmp),
			 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
			 "%02x%02x%02x%02x%02x%02x",
			 raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6],
			 raw[7], raw[8], raw[9], raw[10], raw[11], raw[12],
			 raw[13], raw[14], raw[15]);
		sb_str(b, tmp);
		return 0;
	}
	return -ERANGE;
}

/* Predefined settings (iPXE's settings tables) and their types, used when
 * "set NAME value" gives no type. */
static int predefined_type(const char *name)
{
	static const struct { const char *n; int t; } tab[] = {
		{ "ip", LB_IPXE_IPV4 }, { "netmask", LB_IPXE_IPV4 },
		{ "gateway", LB_IPXE_IPV4 }, { "dns", LB_IPXE_IPV4 },
		{ "next-server", LB_IPXE_IPV4 }, { "dhcp-server", LB_IPXE_IPV4 },
		{ "syslog", LB_IPXE_IPV4 }, { "ntp", LB_IPXE_IPV4 },
		{ "mac", LB_IPXE_HEX }, { "hwaddr", LB_IPXE_HEX },
		{ "uuid", LB_IPXE_UUID }, { "priority", LB_IPXE_INT8 },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(name, tab[i].n))
			return tab[i].t;
	return -1;
}

/* Split "[block/]name[:type]" in place. *type = -1 when none given;
 * returns -EINVAL for an unknown type name. */
static int split_name(char *full, char **block, char **name, int *type)
{
	char *slash = strchr(full, '/'), *colon;

	if (slash) {
		*slash = 0;
		*block = full;
		*name = slash + 1;
	} else {
		*block = "";
		*name = full;
	}
	*type = -1;
	colon = strchr(*name, ':');
	if (colon) {
		*colon = 0;
		if ((*type = find_type(colon + 1)) < 0)
			return -EINVAL;
	}
	return 0;
}

static struct var *find_var(struct st *s, const char *block, const char *name)
{
	for (size_t i = 0; i < s->n_vars; i++)
		if (!strcmp(s->vars[i].block, block) &&
		    !strcmp(s->vars[i].name, name))
			return &s->vars[i];
	return NULL;
}

static void del_var(struct st *s, const char *block, const char *name)
{
	struct var *v = find_var(s, block, name);

	if (!v)
		return;
	free(v->block);
	free(v->name);
	free(v->raw);
	*v = s->vars[--s->n_vars];
}

static int store_var(struct st *s, const char *block, const char *name,
		     int type, const unsigned char *raw, size_t len, int net)
{
	struct var *v = find_var(s, block, name);
	unsigned char *copy;

	if (!len) {
		del_var(s, block, name); /* iPXE: empty value = delete */
		return 0;
	}
	if (!(copy = malloc(len)))
		return -ENOMEM;
	memcpy(copy, raw, len);
	if (!v) {
		if (s->n_vars >= LB_IPXE_MAX_VARS) {
			free(copy);
			return -E2BIG;
		}
		struct var *nv = realloc(s->vars, (s->n_vars + 1) * sizeof(*nv));
		if (!nv) {
			free(copy);
			return -ENOMEM;
		}
		s->vars = nv;
		v = &s->vars[s->n_vars];
		v->block = xstrdup(block);
		v->name = xstrdup(name);
		if (!v->block || !v->name) {
			free(v->block);
			free(v->name);
			free(copy);
			return -ENOMEM;
		}
		v->raw = NULL;
		s->n_vars++;
	}
	free(v->raw);
	v->raw = copy;
	v->len = len;
	v->type = type;
	v->net = net;
	return 0;
}

/* Fetch a setting as raw bytes + its own type. Returns 0, -ENOENT. */
static int fetch_raw(struct st *s, const char *block, const char *name,
		     unsigned char *raw, size_t size, size_t *len, int *type,
		     int *net)
{
	struct var *v = find_var(s, block, name);
	char buf[LB_IPXE_MAX_VALUE];
	const char *fixed = NULL;
	int t;

	*net = 0;
	if (v) {
		if (v->len > size)
			return -E2BIG;
		memcpy(raw, v->raw, v->len);
		*len = v->len;
		*type = v->type;
		*net = v->net;
		return 0;
	}
	buf[0] = 0;
	t = s->h->setting ? s->h->setting(s->h->ctx, block, name, buf, sizeof(buf))
			  : -ENOENT;
	if (t == -ENOENT && !*block) {
		/* iPXE's own settings, unless the host answered them */
		if (!strcmp(name, "platform"))
			fixed = s->h->platform ? s->h->platform : "efi";
		else if (!strcmp(name, "buildarch"))
			fixed = s->h->buildarch ? s->h->buildarch : LB_IPXE_BUILDARCH;
		if (fixed) {
			size_t n = strlen(fixed);
			if (n > size)
				return -E2BIG;
			memcpy(raw, fixed, n);
			*len = n;
			*type = LB_IPXE_STRING;
			return 0;
		}
	}
	if (t < 0)
		return t;
	/* the host's value: the network's unless it says it is the
	 * machine's own */
	*net = !(t & LB_IPXE_LOCAL);
	t &= ~LB_IPXE_LOCAL;
	if (t >= LB_IPXE_NTYPES)
		return -EINVAL;
	buf[sizeof(buf) - 1] = 0;
	if (strlen(buf) + 16 > size)
		return -E2BIG;
	if (parse_value(t, buf, raw, len) < 0)
		return -EINVAL;
	*type = t;
	return 0;
}

/* Append the formatted value of "${spec}" to b; unknown = nothing. */
static void expand_one(struct st *s, const char *spec, struct sbuf *b, int *net)
{
	unsigned char raw[LB_IPXE_MAX_VALUE + 16];
	char *copy = xstrdup(spec), *block, *name;
	size_t len;
	int want, have, vnet = 0;

	if (!copy) {
		b->err = -ENOMEM;
		return;
	}
	if (split_name(copy, &block, &name, &want) == 0 &&
	    fetch_raw(s, block, name, raw, sizeof(raw), &len, &have, &vnet) == 0) {
		struct sbuf tmp = { .max = LB_IPXE_MAX_VALUE };

		*net |= vnet;
		if (format_value(want >= 0 ? want : have, raw, len, &tmp) == 0 &&
		    !tmp.err && tmp.s)
			sb_add(b, tmp.s, tmp.n);
		else if (tmp.err)
			b->err = tmp.err;
		free(tmp.s);
	}
	free(copy);
}

/* iPXE's expand_settings: repeatedly replace the innermost "${...}" (the
 * last "${" before the first "}") until none is left. Capped. *net is set
 * when a network setting's bytes went in (a reference that expands to
 * nothing adds none). */
static char *expand(struct st *s, const char *in, int *rc, int *net)
{
	char *cur = xstrdup(in);
	int n = 0;

	if (!cur) {
		*rc = -ENOMEM;
		return NULL;
	}
	for (;;) {
		char *start = NULL, *end = NULL;
		for (char *p = cur; *p; p++) {
			if (p[0] == '$' && p[1] == '{')
				start = p;
			if (start && *p == '}') {
				end = p;
				break;
			}
		}
		if (!end)
			break;
		if (++n > LB_IPXE_MAX_EXPAND) {
			free(cur);
			*rc = -ELOOP;
			return NULL;
		}
		struct sbuf b = { .max = LB_IPXE_MAX_VALUE };
		*start = 0;
		*end = 0;
		sb_str(&b, cur);
		expand_one(s, start + 2, &b, net);
		sb_str(&b, end + 1);
		free(cur);
		if (!(cur = sb_take(&b, rc)))
			return NULL;
	}
	return cur;
}

/* ---- URIs --------------------------------------------------------------- */

/* A URI split as iPXE's parse_uri does: fragment at the first '#', scheme
 * = letters, '-' and '_' before ':' (then "opaque" unless a '/' follows),
 * query at the first '?' of the rest, authority only after a scheme and
 * "//". Pointers into buf; absent parts are NULL. */
struct uri {
	char *scheme, *opaque, *auth, *path, *query, *frag;
	char *buf;
};

static int uri_parse(const char *str, struct uri *u)
{
	char *p, *q, *epath;

	memset(u, 0, sizeof(*u));
	if (!(u->buf = malloc(strlen(str) + 2)))
		return -ENOMEM;
	strcpy(u->buf, str);
	p = u->buf;
	if ((q = strchr(p, '#'))) {
		*q = 0;
		u->frag = q + 1;
	}
	epath = p;
	for (q = p;; q++) {
		if ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		    *q == '-' || *q == '_')
			continue;
		if (*q != ':')
			break;
		*q++ = 0;
		u->scheme = p;
		if (*q == '/') {
			epath = q;
		} else {
			u->opaque = q;
			return 0;
		}
		break;
	}
	if ((q = strchr(epath, '?'))) {
		*q = 0;
		u->query = q + 1;
	}
	if (!*epath)
		return 0;
	if (u->scheme && !strncmp(epath, "//", 2)) {
		char *a = epath + 2;
		q = strchr(a, '/');
		if (q) {
			/* shift the authority down one byte to end it with
			 * a NUL, keeping the path's '/' */
			memmove(a - 1, a, (size_t)(q - a));
			q[-1] = 0;
			u->auth = a - 1;
			u->path = q;
		} else {
			u->auth = a;
		}
	} else {
		u->path = epath;
	}
	return 0;
}

/* iPXE's resolve_path: an absolute reference is kept; else the base's
 * directory, minus one level per leading "../" (leading "./" dropped),
 * joined with the rest verbatim (later dot segments are kept). */
static void resolve_path(const char *base, const char *rel, struct sbuf *b)
{
	char *dir;
	size_t dl;

	if (rel[0] == '/') {
		sb_str(b, rel);
		return;
	}
	if (!(dir = xstrdup(base))) {
		b->err = -ENOMEM;
		return;
	}
	/* dirname(): "/" for "/x", "." without a slash */
#define DIRNAME(d) do { char *sl_ = strrchr((d), '/'); \
	if (sl_ == (d)) strcpy((d), "/"); else if (sl_) *sl_ = 0; \
	else strcpy((d), "."); } while (0)
	if (!*dir) {
		free(dir);
		if (!(dir = xstrdup(".")))
			return;
	} else {
		DIRNAME(dir);
	}
	while (*rel == '.') {
		if (!rel[1]) {
			rel++;
		} else if (rel[1] == '/') {
			rel += 2;
		} else if (rel[1] == '.' && (!rel[2] || rel[2] == '/')) {
			DIRNAME(dir);
			rel += rel[2] ? 3 : 2;
		} else {
			break;
		}
	}
#undef DIRNAME
	dl = strlen(dir);
	sb_str(b, dir);
	if (!dl || dir[dl - 1] != '/')
		sb_str(b, "/");
	sb_str(b, rel);
	free(dir);
}

/* Append s, percent-encoding what cannot stand in a URI as is. */
static void sb_uri_enc(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c <= 0x20 || c >= 0x7f) {
			char tmp[4];
			snprintf(tmp, sizeof(tmp), "%%%02X", c);
			sb_add(b, tmp, 3);
		} else {
			sb_add(b, s, 1);
		}
	}
}

char *lb_ipxe_resolve(const char *base, const char *ref)
{
	struct uri B = { 0 }, R;
	struct sbuf o = { .max = LB_IPXE_MAX_VALUE };
	int rc = 0;

	if (uri_parse(ref, &R) < 0)
		return NULL;
	if (R.scheme || !base || !*base) {
		/* absolute (or nothing to resolve against): as is */
		sb_uri_enc(&o, ref);
		free(R.buf);
		return sb_take(&o, &rc);
	}
	if (uri_parse(base, &B) < 0) {
		free(R.buf);
		return NULL;
	}
	const char *path = B.path, *query = B.query, *frag = B.frag;
	struct sbuf np = { .max = LB_IPXE_MAX_VALUE };
	if (R.path) {
		resolve_path(B.path ? B.path : "/", R.path, &np);
		if (np.err)
			o.err = np.err;
		path = np.s;
		query = R.query;
		frag = R.frag;
	} else if (R.query) {
		query = R.query;
		frag = R.frag;
	} else if (R.frag) {
		frag = R.frag;
	}
	if (B.scheme) {
		sb_str(&o, B.scheme);
		sb_str(&o, ":");
	}
	if (B.opaque) {
		sb_uri_enc(&o, B.opaque);
	} else {
		if (B.auth) {
			sb_str(&o, "//");
			sb_uri_enc(&o, B.auth);
		}
		if (path)
			sb_uri_enc(&o, path);
		if (query) {
			sb_str(&o, "?");
			sb_uri_enc(&o, query);
		}
	}
	if (frag) {
		sb_str(&o, "#");
		sb_uri_enc(&o, frag);
	}
	free(np.s);
	free(R.buf);
	free(B.buf);
	return sb_take(&o, &rc);
}

/* ---- cpio ---------------------------------------------------------------- */

/* Path components of name (up to a space), as iPXE's cpio_max. */
static unsigned cpio_max(const char *name)
{
	unsigned max = 0;
	char p = '/', c;

	for (; (c = *name) && c != ' '; name++, p = c)
		if (p == '/' && c != '/')
			max++;
	return max;
}

static size_t cpio_name_len(const char *name, unsigned depth)
{
	size_t len;
	char p = '/', c;

	for (len = 0; (c = name[len]) && c != ' '; len++, p = c)
		if (c == '/' && p != '/' && --depth == 0)
			break;
	return len;
}

long lb_ipxe_cpio_header(const struct lb_ipxe_initrd *rd, size_t len,
			 unsigned char *outb, size_t size)
{
	const char *name = rd->cpio_name;
	unsigned max, count, total = 0;

	if (!name || !*name)
		return 0;
	if (len > 0xffffffffu)
		return -EFBIG;
	max = cpio_max(name);
	count = rd->mkdir == UINT_MAX ? UINT_MAX : rd->mkdir + 1;
	if (count > max)
		count = max;
	for (unsigned i = 0; i < count; i++) {
		unsigned depth = max - count + i + 1;
		size_t nl = cpio_name_len(name, depth);
		unsigned mode;
		char hdr[128];
		if (nl > 4096)
			return -ENAMETOOLONG;
		if (name[nl] == '/')
			mode = 0040000 | 0755;
		else
			mode = 0100000 | (rd->mode & 07777);
		snprintf(hdr, sizeof(hdr),
			 "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
			 0u, mode, 0u, 0u, 1u, 0u,
			 (unsigned)(depth < max ? 0 : len),
			 0u, 0u, 0u, 0u, (unsigned)(nl + 1), 0u);
		size_t hl = 110 + nl, pad = 4 - (hl % 4);
		if (outb && total + hl + pad <= size) {
			memcpy(outb + total, hdr, 110);
			memcpy(outb + total + 110, name, nl);
			memset(outb + total + hl, 0, pad);
		}
		total += (unsigned)(hl + pad);
	}
	return total;
}

int lb_ipxe_cpio_check(const struct lb_ipxe_initrd *rd, char *err, size_t errsz)
{
	const char *m;
	size_t l;
	long n;

	if (!rd->cpio_name)
		return 0;
	if (rd->mode_bad) {
		m = rd->cpio_args ? strstr(rd->cpio_args, "mode=") : NULL;
		l = m ? strcspn(m, " \t") : 0;
		snprintf(err, errsz, "%.*s: not a file mode (octal, at most 07777)",
			 m ? (int)(l > 64 ? 64 : l) : 4, m ? m : "mode");
		return -EINVAL;
	}
	n = lb_ipxe_cpio_header(rd, 0, NULL, 0);
	if (n > LB_IPXE_CPIO_MAX_HEADER) {
		snprintf(err, errsz, "cpio headers of %ld bytes for %.64s: at most %u",
			 n, rd->cpio_name, LB_IPXE_CPIO_MAX_HEADER);
		return -ENAMETOOLONG;
	}
	if (n == -ENAMETOOLONG) {
		snprintf(err, errsz, "cpio path of %zu bytes: at most 4096 fit",
			 strcspn(rd->cpio_name, " "));
		return (int)n;
	}
	if (n < 0) {
		snprintf(err, errsz, "cpio path %.64s: %s", rd->cpio_name, strerror((int)-n));
		return (int)n;
	}
	return 0;
}

/* ---- images ---------------------------------------------------------------- */

static void image_free(struct image *im)
{
	if (!im)
		return;
	free(im->name);
	free(im->url);
	free(im->cmdline);
	free(im->script);
	free(im);
}

static struct image *find_image(struct st *s, const char *name)
{
	for (size_t i = 0; i < s->n_imgs; i++)
		if (!s->imgs[i]->running && !strcmp(s->imgs[i]->name, name))
			return s->imgs[i];
	return NULL;
}

static void unregister(struct st *s, struct image *im)
{
	for (size_t i = 0; i < s->n_imgs; i++) {
		if (s->imgs[i] == im) {
			memmove(&s->imgs[i], &s->imgs[i + 1],
				(s->n_imgs - i - 1) * sizeof(s->imgs[0]));
			s->n_imgs--;
			image_free(im);
			return;
		}
	}
}

/* The last path segment of a URL (iPXE names images by it). */
static char *url_basename(const char *url)
{
	const char *e = url + strcspn(url, "?#"), *b = e;

	while (b > url && b[-1] != '/')
		b--;
	if (b == e)
		return NULL;
	return lb_memdup0(b, (size_t)(e - b));
}

/* Download a new image and register it. */
static int download(struct st *s, const char *what, const char *uri,
		    int uri_net, unsigned long timeout, struct image **out_im)
{
	struct image *im;
	char *url;
	int rc;

	if (s->n_imgs >= LB_IPXE_MAX_IMAGES)
		return fail(s, -E2BIG, "%s: too many images (max %d)", what,
			    LB_IPXE_MAX_IMAGES);
	if (!(url = lb_ipxe_resolve(s->cwuri, uri)))
		return fail(s, -E2BIG, "%s: bad URI %.200s", what, uri);
	if (!(im = calloc(1, sizeof(*im)))) {
		free(url);
		return -ENOMEM;
	}
	im->url = url;
	/* a network setting in the reference, or a relative one resolved
	 * against a base that had one */
	im->url_net = uri_net || (s->cwuri_net && !strstr(uri, "://"));
	im->timeout_ms = timeout;
	if (!(im->name = url_basename(url))) {
		char n[16];
		snprintf(n, sizeof(n), "img%u", s->img_index++);
		im->name = xstrdup(n);
	}
	if (!im->name) {
		image_free(im);
		return -ENOMEM;
	}
	if (s->h->fetch) {
		char *buf = NULL;
		size_t len = 0;
		rc = s->h->fetch(s->h->ctx, url, timeout, &buf, &len);
		if (rc < 0) {
			free(buf);
			fail(s, rc, "Could not %s %.300s: %s", what, url,
			     strerror(-rc));
			image_free(im);
			return rc;
		}
		if (buf && (len > LB_IPXE_MAX_SCRIPT ||
			    !lb_ipxe_is_script(buf, len))) {
			free(buf);
			buf = NULL;
		}
		im->script = buf;
		im->script_len = buf ? len : 0;
		im->fetched = 1;
	}
	s->imgs[s->n_imgs++] = im;
	*out_im = im;
	return 0;
}

/* ---- options ----------------------------------------------------------------- */

struct opt {
	const char *lng;
	char shrt;
	int has_arg;
	const char **val; /* set to the argument or "" for a flag */
};

/* getopt-like: options before the first non-option, "--" ends them.
 * Returns the index of the first positional argument or negative errno. */
static int parse_opts(struct st *s, int argc, char **argv, struct opt *o,
		      size_t n)
{
	int i = 1;

	for (size_t k = 0; k < n; k++)
		*o[k].val = NULL;
	while (i < argc) {
		char *a = argv[i];
		struct opt *f = NULL;
		const char *val = NULL;
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[1] == '-') {
			char *eq = strchr(a + 2, '=');
			size_t l = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			for (size_t k = 0; k < n; k++)
				if (strlen(o[k].lng) == l &&
				    !strncmp(o[k].lng, a + 2, l))
					f = &o[k];
			if (f && eq)
				val = eq + 1;
		} else {
			for (size_t k = 0; k < n; k++)
				if (o[k].shrt == a[1])
					f = &o[k];
			if (f && a[2])
				val = a + 2;
		}
		if (!f)
			return fail(s, -EINVAL, "%s: unrecognised option '%.100s'",
				    argv[0], a);
		if (f->has_arg && !val) {
			if (i + 1 >= argc)
				return fail(s, -EINVAL,
					    "%s: option '%.100s' needs an argument",
					    argv[0], a);
			val = argv[++i];
		}
		*f->val = f->has_arg ? val : "";
		i++;
	}
	return i;
}

static int parse_uint(struct st *s, const char *cmd, const char *v,
		      unsigned long *out_v)
{
	char *end;

	if (!v || !*v)
		return fail(s, -EINVAL, "%s: invalid number \"\"", cmd);
	*out_v = strtoul(v, &end, 0);
	if (*end || v[0] == '-')
		return fail(s, -EINVAL, "%s: invalid number \"%.50s\"", cmd, v);
	return 0;
}

static int parse_key(const char *v)
{
	char *end;
	unsigned long k;

	if (!v || !*v)
		return 0;
	if (!v[1])
		return (unsigned char)v[0];
	k = strtoul(v, &end, 0);
	return *end ? 0 : (int)(k & 0xffff);
}

/* argv[from..argc) joined by spaces (iPXE's concat_args); NULL if none. */
static char *concat(int from, int argc, char **argv, int *rc)
{
	struct sbuf b = { .max = LB_IPXE_MAX_LINE * 2 };

	for (int i = from; i < argc; i++) {
		if (i > from)
			sb_add(&b, " ", 1);
		sb_str(&b, argv[i]);
	}
	return sb_take(&b, rc);
}

/* ---- execution ------------------------------------------------------------------ */

static int run_script(struct st *s, struct script *sc);
static void free_script(struct script *sc);
static int load_script(const char *url, const char *buf, size_t len,
		       struct script *sc, size_t *bad_line);

static int set_result_image(struct st *s, enum lb_ipxe_action act,
			    struct image *k)
{
	struct lb_ipxe_result *r = s->res;
	size_t n = 0;

	r->action = act;
	r->net = (k->url_net ? LB_IPXE_NET_URL : 0) |
		 (k->cmdline_net ? LB_IPXE_NET_CMDLINE : 0);
	if (!(r->kernel = xstrdup(k->url)) || !(r->name = xstrdup(k->name)))
		return -ENOMEM;
	if (k->cmdline && !(r->cmdline = xstrdup(k->cmdline)))
		return -ENOMEM;
	r->timeout_ms = k->timeout_ms;
	if (!(r->initrd = calloc(s->n_imgs ? s->n_imgs : 1, sizeof(*r->initrd))))
		return -ENOMEM;
	for (size_t i = 0; i < s->n_imgs; i++) {
		struct image *im = s->imgs[i];
		struct lb_ipxe_initrd *d = &r->initrd[n];
		if (im == k || im->running)
			continue;
		r->n_initrd = ++n;
		d->mode = 0644;
		if (im->url_net)
			r->net |= LB_IPXE_NET_URL;
		if (im->cmdline_net && im->cmdline && *im->cmdline)
			r->net |= LB_IPXE_NET_CPIO;
		if (!(d->url = xstrdup(im->url)) || !(d->name = xstrdup(im->name)))
			return -ENOMEM;
		if (im->cmdline && *im->cmdline) {
			const char *c = im->cmdline, *m;
			size_t l = strcspn(c, " ");
			if (!(d->cpio_name = lb_memdup0(c, l)) ||
			    !(d->cpio_args = xstrdup(c)))
				return -ENOMEM;
			/* iPXE's image_argument: "key" at the start or after
			 * whitespace */
			for (m = c; (m = strstr(m, "mode=")); m += 5) {
				if (m == c || is_space((unsigned char)m[-1])) {
					char *end;
					unsigned long v = strtoul(m + 5, &end, 8);
					d->mode = (unsigned)v;
					/* iPXE takes what strtoul makes of it */
					d->mode_bad = end == m + 5 || !(m[5] >= '0' && m[5] <= '7') ||
						      (*end && !is_space((unsigned char)*end)) ||
						      v > 07777;
					break;
				}
			}
			for (m = c; (m = strstr(m, "mkdir=")); m += 6) {
				if (m == c || is_space((unsigned char)m[-1])) {
					long v = strtol(m + 6, NULL, 10);
					d->mkdir = v < 0 ? UINT_MAX : (unsigned)v;
					break;
				}
			}
		}
	}
	s->done = 1;
	s->stop = 2;
	return 0;
}

/* Execute image im (boot / chain / imgexec). */
static int exec_image(struct st *s, struct image *im, int replace,
		      int direct)
{
	int rc;

	if (im->script || (!s->h->fetch && direct == 2)) {
		if (!im->script) {
			/* no fetch callback: the caller fetches and decides */
			return set_result_image(s, LB_IPXE_CHAIN, im);
		}
		if (s->depth + 1 >= LB_IPXE_MAX_DEPTH) {
			s->fatal = -ELOOP;
			return fail(s, -ELOOP, "chain: scripts nested more than %d deep",
				    LB_IPXE_MAX_DEPTH);
		}
		struct script sc;
		size_t bad = 0;
		rc = load_script(im->url, im->script, im->script_len, &sc, &bad);
		if (rc < 0)
			return fail(s, rc, "%.300s: cannot load script (line %zu)",
				    im->url, bad);
		struct script *save_cur = s->cur;
		size_t save_pc = s->pc, save_line = s->lineno;
		const char *save_cwuri = s->cwuri;
		int save_cwuri_net = s->cwuri_net;
		char *url_copy = xstrdup(im->url);
		if (!url_copy) {
			free_script(&sc);
			return -ENOMEM;
		}
		int autofree = im->autofree;
		im->running = 1;
		s->cwuri = url_copy;
		s->cwuri_net = im->url_net;
		s->depth++;
		rc = run_script(s, &sc);
		s->depth--;
		s->cwuri = save_cwuri;
		s->cwuri_net = save_cwuri_net;
		s->cur = save_cur;
		s->pc = save_pc;
		s->lineno = save_line;
		free(url_copy);
		free_script(&sc);
		if (!s->done) {
			im->running = 0;
			if (autofree)
				unregister(s, im);
		}
		if (replace && !s->done)
			s->stop = 2;
		if (rc > 0) /* "exit N" inside: the image failed */
			rc = fail(s, -ECANCELED, "Could not boot: exit code %d", rc);
		return rc;
	}
	return set_result_image(s, LB_IPXE_BOOT, im);
}

static int cmd_image(struct st *s, int argc, char **argv, int kind)
{
	/* kind: 0 imgfetch/initrd/module, 1 imgselect/kernel,
	 * 2 imgexec/chain/boot, 3 imgargs */
	const char *name, *timeout, *quiet, *autofree, *replace;
	struct opt o[] = {
		{ "name", 'n', 1, &name }, { "timeout", 't', 1, &timeout },
		{ "quiet", 'q', 0, &quiet }, { "autofree", 'a', 0, &autofree },
		{ "replace", 'r', 0, &replace },
	};
	unsigned long tmo = 0;
	struct image *im = NULL;
	char *cmdline = NULL;
	int i, rc;

	if ((i = parse_opts(s, argc, argv, o, kind == 2 ? 5 : 4)) < 0)
		return i;
	if (timeout && (rc = parse_uint(s, argv[0], timeout, &tmo)) < 0)
		return rc;
	if (i >= argc && kind != 2)
		return fail(s, -EINVAL, "%s: missing image", argv[0]);
	if (i + 1 < argc && !(cmdline = concat(i + 1, argc, argv, &rc)))
		return rc;
	if (i < argc) {
		if (kind != 0)
			im = find_image(s, argv[i]);
		if (!im) {
			const char *verb = kind == 0 ? "fetch" :
					   kind == 1 ? "select" : "boot";
			if ((rc = download(s, verb, argv[i], s->argnet[i], tmo, &im)) < 0) {
				free(cmdline);
				return rc;
			}
		}
	} else {
		for (size_t k = 0; k < s->n_imgs; k++)
			if (s->imgs[k]->selected && !s->imgs[k]->running)
				im = s->imgs[k];
		if (!im) {
			/* iPXE prints this and returns success (rc is still
			 * 0 from option parsing in imgsingle_exec, 2019 and
			 * now): "boot || goto x" does not catch it */
			free(cmdline);
			out(s, "No image selected\n");
			return 0;
		}
	}
	if (kind == 3) {
		free(im->cmdline);
		im->cmdline = NULL;
		im->cmdline_net = 0;
	}
	if (name) {
		char *n = xstrdup(name);
		if (!n) {
			free(cmdline);
			return -ENOMEM;
		}
		free(im->name);
		im->name = n;
	}
	if (cmdline) {
		free(im->cmdline);
		im->cmdline = cmdline;
		im->cmdline_net = args_net(s, i + 1, argc);
	}
	if (tmo)
		im->timeout_ms = tmo;
	if (autofree)
		im->autofree = 1;
	if (kind == 1) {
		for (size_t k = 0; k < s->n_imgs; k++)
			s->imgs[k]->selected = 0;
		im->selected = 1;
	}
	if (kind == 2)
		return exec_image(s, im, replace != NULL,
				  i < argc && !im->fetched ? 2 : 1);
	return 0;
}

static int cmd_imgfree(struct st *s, int argc, char **argv)
{
	if (argc == 1) {
		for (size_t k = s->n_imgs; k-- > 0;)
			if (!s->imgs[k]->running)
				unregister(s, s->imgs[k]);
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		struct image *im = find_image(s, argv[i]);
		if (!im)
			return fail(s, -ENOENT, "\"%.100s\": no such image", argv[i]);
		unregister(s, im);
	}
	return 0;
}

static int cmd_set(struct st *s, int argc, char **argv, int clear)
{
	unsigned char raw[LB_IPXE_MAX_VALUE * 2 + 32];
	char *full, *block, *name, *value = NULL;
	size_t len = 0;
	int type, rc;

	if (argc < 2 || (clear && argc != 2))
		return fail(s, -EINVAL, "Usage: %s <setting>%s", argv[0],
			    clear ? "" : " <value>");
	if (!(full = xstrdup(argv[1])))
		return -ENOMEM;
	if (split_name(full, &block, &name, &type) < 0 || !*name) {
		rc = fail(s, -EINVAL, "%s: invalid setting \"%.100s\"", argv[0],
			  argv[1]);
		goto out;
	}
	if (type < 0) {
		/* iPXE: the predefined setting's type, else string (a type
		 * stored earlier is not kept: "set x:hex 20" then
		 * "set x ${x:string}" stores a string) */
		type = predefined_type(name);
		if (type < 0)
			type = LB_IPXE_STRING;
	}
	if (!clear) {
		if (!(value = concat(2, argc, argv, &rc)))
			goto out;
		if (strlen(value) > LB_IPXE_MAX_VALUE) {
			rc = fail(s, -E2BIG, "%s: value too long", argv[0]);
			goto out;
		}
		if (*value && parse_value(type, value, raw, &len) < 0) {
			rc = fail(s, -EINVAL, "Could not store \"%.100s\": "
				  "invalid %s \"%.100s\"", name,
				  type_names[type], value);
			goto out;
		}
	}
	/* the value's provenance, and the name's: a network setting that
	 * picks which setting gets a value taints it too */
	rc = store_var(s, block, name, type, raw, len, args_net(s, 1, argc));
	if (rc == -E2BIG)
		rc = fail(s, rc, "Could not store \"%.100s\": too many settings",
			  name);
out:
	free(value);
	free(full);
	return rc;
}

static int cmd_inc(struct st *s, int argc, char **argv)
{
	unsigned char raw[LB_IPXE_MAX_VALUE + 16];
	unsigned long inc = 1, v = 0;
	char *full, *block, *name;
	size_t len;
	int type, want, rc, net = 0;

	if (argc < 2 || argc > 3)
		return fail(s, -EINVAL, "Usage: inc <setting> [<increment>]");
	if (argc == 3 && (rc = parse_uint(s, "inc", argv[2], &inc)) < 0)
		return rc;
	if (!(full = xstrdup(argv[1])))
		return -ENOMEM;
	if (split_name(full, &block, &name, &want) < 0) {
		rc = fail(s, -EINVAL, "inc: invalid setting \"%.100s\"", argv[1]);
		goto out;
	}
	rc = fetch_raw(s, block, name, raw, sizeof(raw), &len, &type, &net);
	if (rc < 0) {
		/* iPXE: a missing setting counts as 0 of type int32 */
		v = 0;
		type = want >= 0 ? want : LB_IPXE_INT32;
	} else {
		if (want >= 0)
			type = want;
		if (!is_int_type(type)) {
			rc = fail(s, -ENOTSUP, "inc: \"%.100s\" is not a number",
				  name);
			goto out;
		}
		if (len > sizeof(long)) {
			rc = fail(s, -ERANGE, "inc: \"%.100s\" out of range", name);
			goto out;
		}
		int sgn = type <= LB_IPXE_INT32;
		v = (sgn && len && (raw[0] & 0x80)) ? ~0UL : 0;
		for (size_t i = 0; i < len; i++)
			v = v << 8 | raw[i];
	}
	if (!is_int_type(type)) {
		rc = fail(s, -ENOTSUP, "inc: \"%.100s\" is not a number", name);
		goto out;
	}
	v += inc;
	unsigned w = int_width(type);
	for (unsigned i = 0; i < w; i++)
		raw[i] = (unsigned char)(v >> (8 * (w - 1 - i)));
	rc = store_var(s, block, name, type, raw, w, net || args_net(s, 1, argc));
out:
	free(full);
	return rc;
}

static struct lb_ipxe_menu **find_menu(struct st *s, const char *name)
{
	for (size_t i = 0; i < s->n_menus; i++) {
		const char *n = s->menus[i]->name;
		if ((!n && !name) || (n && name && !strcmp(n, name)))
			return &s->menus[i];
	}
	return NULL;
}

static void menu_free(struct lb_ipxe_menu *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->items[i].label);
		free(m->items[i].text);
	}
	free(m->items);
	free(m->name);
	free(m->title);
	free(m);
}

static void menu_destroy(struct st *s, struct lb_ipxe_menu **slot)
{
	size_t i = (size_t)(slot - s->menus);

	menu_free(*slot);
	memmove(&s->menus[i], &s->menus[i + 1],
		(s->n_menus - i - 1) * sizeof(s->menus[0]));
	s->n_menus--;
}

static int cmd_menu(struct st *s, int argc, char **argv)
{
	const char *name, *del;
	struct opt o[] = { { "name", 'n', 1, &name }, { "delete", 'd', 0, &del } };
	struct lb_ipxe_menu *m, **old;
	int i, rc;

	if ((i = parse_opts(s, argc, argv, o, 2)) < 0)
		return i;
	if ((old = find_menu(s, name)))
		menu_destroy(s, old);
	if (del)
		return 0;
	if (s->n_menus >= LB_IPXE_MAX_MENUS)
		return fail(s, -E2BIG, "menu: too many menus");
	if (!(m = calloc(1, sizeof(*m))))
		return -ENOMEM;
	if ((name && !(m->name = xstrdup(name))) ||
	    !(m->title = concat(i, argc, argv, &rc))) {
		menu_free(m);
		return -ENOMEM;
	}
	s->menus[s->n_menus++] = m;
	return 0;
}

static int cmd_item(struct st *s, int argc, char **argv)
{
	const char *menu, *key, *def, *gap, *secret;
	struct opt o[] = {
		{ "menu", 'm', 1, &menu }, { "key", 'k', 1, &key },
		{ "default", 'd', 0, &def }, { "gap", 'g', 0, &gap },
		{ "secret", 's', 0, &secret },
	};
	struct lb_ipxe_menu **slot, *m;
	struct lb_ipxe_item *it;
	char *label = NULL, *text = NULL;
	int i, rc = 0;

	if ((i = parse_opts(s, argc, argv, o, 5)) < 0)
		return i;
	if (!gap && i < argc)
		label = argv[i++];
	if (!(slot = find_menu(s, menu)))
		return fail(s, -EINVAL, "\"%.100s\": no such menu",
			    menu ? menu : "");
	m = *slot;
	if (m->n >= LB_IPXE_MAX_ITEMS)
		return fail(s, -E2BIG, "item: too many items (max %d)",
			    LB_IPXE_MAX_ITEMS);
	if (!(text = concat(i, argc, argv, &rc)))
		return rc;
	it = realloc(m->items, (m->n + 1) * sizeof(*it));
	if (!it) {
		free(text);
		return -ENOMEM;
	}
	m->items = it;
	it = &m->items[m->n];
	memset(it, 0, sizeof(*it));
	if (label && !(it->label = xstrdup(label))) {
		free(text);
		return -ENOMEM;
	}
	it->text = text;
	it->key = parse_key(key);
	it->is_default = def != NULL;
	it->net = args_net(s, 1, argc);
	m->n++;
	return 0;
}

static int cmd_choose(struct st *s, int argc, char **argv)
{
	const char *menu, *def, *timeout, *retimeout, *keep;
	struct opt o[] = {
		{ "menu", 'm', 1, &menu }, { "default", 'd', 1, &def },
		{ "timeout", 't', 1, &timeout }, { "retimeout", 'r', 1, &retimeout },
		{ "keep", 'k', 0, &keep },
	};
	struct lb_ipxe_menu **slot, *m;
	unsigned long tmo = 0;
	size_t d = SIZE_MAX, chosen;
	int i, rc;

	if ((i = parse_opts(s, argc, argv, o, 5)) < 0)
		return i;
	if (i != argc - 1)
		return fail(s, -EINVAL, "Usage: choose [--menu <menu>] "
			    "[--default <label>] [--timeout <timeout>] <setting>");
	if (timeout && (rc = parse_uint(s, "choose", timeout, &tmo)) < 0)
		return rc;
	if (!(slot = find_menu(s, menu)))
		return fail(s, -EINVAL, "\"%.100s\": no such menu",
			    menu ? menu : "");
	m = *slot;
	/* iPXE's show_menu: --default label, else the --default item, else
	 * the first selectable item */
	for (size_t k = 0; k < m->n && d == SIZE_MAX; k++)
		if (def && m->items[k].label && !strcmp(m->items[k].label, def))
			d = k;
	for (size_t k = 0; k < m->n && d == SIZE_MAX; k++)
		if (m->items[k].is_default && m->items[k].label)
			d = k;
	for (size_t k = 0; k < m->n && d == SIZE_MAX; k++)
		if (m->items[k].label)
			d = k;
	if (d == SIZE_MAX) {
		rc = fail(s, -ENOENT, "choose: menu has no items");
		goto out;
	}
	chosen = d;
	if (s->h->choose) {
		rc = s->h->choose(s->h->ctx, m, d, tmo, &chosen);
		if (rc < 0)
			goto out;
		if (chosen >= m->n || !m->items[chosen].label) {
			rc = -EINVAL;
			goto out;
		}
	}
	{
		char *setv[3] = { "set", argv[i], m->items[chosen].label };
		int name_net = s->argnet[i];

		/* cmd_set reads the provenance of its arguments: the name's,
		 * and the chosen item's label's */
		s->argnet[0] = 0;
		s->argnet[1] = (unsigned char)name_net;
		s->argnet[2] = (unsigned char)m->items[chosen].net;
		rc = cmd_set(s, 3, setv, 0);
	}
out:
	if (!keep && (slot = find_menu(s, menu)))
		menu_destroy(s, slot);
	return rc;
}

static int cmd_goto(struct st *s, int argc, char **argv)
{
	struct script *sc = s->cur;

	if (argc != 2)
		return fail(s, -EINVAL, "Usage: goto <label>");
	for (size_t k = 0; k < sc->n; k++) {
		if (sc->lines[k].label && !strcmp(sc->lines[k].label, argv[1])) {
			s->pc = k;
			s->stop = 1;
			return 0;
		}
	}
	return fail(s, -ENOENT, "goto: no label :%.100s", argv[1]);
}

static int cmd_prompt(struct st *s, int argc, char **argv)
{
	const char *key, *timeout;
	struct opt o[] = { { "key", 'k', 1, &key }, { "timeout", 't', 1, &timeout } };
	unsigned long tmo = 0;
	char *text;
	int i, rc;

	if ((i = parse_opts(s, argc, argv, o, 2)) < 0)
		return i;
	if (timeout && (rc = parse_uint(s, "prompt", timeout, &tmo)) < 0)
		return rc;
	if (!(text = concat(i, argc, argv, &rc)))
		return rc;
	out(s, "%s", text);
	rc = s->h->prompt ? s->h->prompt(s->h->ctx, text, tmo, parse_key(key))
			  : -ETIMEDOUT;
	out(s, "\n");
	free(text);
	return rc < 0 ? rc : 0;
}

static int cmd_echo(struct st *s, int argc, char **argv)
{
	const char *n;
	struct opt o[] = { { "n", 'n', 0, &n } };
	char *text;
	int i, rc;

	/* iPXE's echo takes "-n" only; anything else starting with '-' is an
	 * unknown option there too */
	if ((i = parse_opts(s, argc, argv, o, 1)) < 0)
		return i;
	if (!(text = concat(i, argc, argv, &rc)))
		return rc;
	out(s, "%s%s", text, n ? "" : "\n");
	free(text);
	return 0;
}

static int cmd_exit(struct st *s, int argc, char **argv)
{
	unsigned long code = 0;
	int rc;

	if (argc > 2)
		return fail(s, -EINVAL, "Usage: exit [<status>]");
	if (argc == 2 && (rc = parse_uint(s, "exit", argv[1], &code)) < 0)
		return rc;
	s->stop = 2;
	return (int)(code & 0x7fffffff);
}

static int cmd_net(struct st *s, int argc, char **argv)
{
	int i, rc;
	const char *cfg, *timeout;
	struct opt o[] = { { "configurator", 'c', 1, &cfg },
			   { "timeout", 't', 1, &timeout } };

	if ((i = parse_opts(s, argc, argv, o, 2)) < 0)
		return i;
	if (!s->h->net)
		return 0;
	if (i >= argc) {
		rc = s->h->net(s->h->ctx, argv[0], "");
	} else {
		rc = 0;
		for (; i < argc && rc == 0; i++)
			rc = s->h->net(s->h->ctx, argv[0], argv[i]);
	}
	if (rc < 0)
		return fail(s, rc, "Could not configure %s: %s",
			    i < argc ? argv[i] : "net0", strerror(-rc));
	return 0;
}

struct cmd {
	const char *name;
	int (*fn)(struct st *s, int argc, char **argv);
};

static int c_initrd(struct st *s, int c, char **v) { return cmd_image(s, c, v, 0); }
static int c_kernel(struct st *s, int c, char **v) { return cmd_image(s, c, v, 1); }
static int c_boot(struct st *s, int c, char **v) { return cmd_image(s, c, v, 2); }
static int c_imgargs(struct st *s, int c, char **v) { return cmd_image(s, c, v, 3); }
static int c_set(struct st *s, int c, char **v) { return cmd_set(s, c, v, 0); }
static int c_clear(struct st *s, int c, char **v) { return cmd_set(s, c, v, 1); }

static int c_isset(struct st *s, int c, char **v)
{
	if (c != 2)
		return fail(s, -EINVAL, "Usage: isset <value>");
	return v[1][0] ? 0 : -ENOENT;
}

static int c_iseq(struct st *s, int c, char **v)
{
	if (c != 3)
		return fail(s, -EINVAL, "Usage: iseq <value1> <value2>");
	return strcmp(v[1], v[2]) ? -ERANGE : 0;
}

static int c_sleep(struct st *s, int c, char **v)
{
	unsigned long secs;
	int rc;

	if (c != 2)
		return fail(s, -EINVAL, "Usage: sleep <seconds>");
	if ((rc = parse_uint(s, "sleep", v[1], &secs)) < 0)
		return rc;
	/* a retry loop with "sleep" must end: the step budget alone would
	 * allow 10000 sleeps */
	if (secs > LB_IPXE_MAX_SLEEP_MS / 1000 ||
	    s->slept_ms + secs * 1000 > LB_IPXE_MAX_SLEEP_MS) {
		s->fatal = -ETIMEDOUT;
		return fail(s, -ETIMEDOUT, "sleep: more than %u s of sleeping in "
			    "this script", LB_IPXE_MAX_SLEEP_MS / 1000);
	}
	s->slept_ms += secs * 1000;
	if (s->h->sleep)
		s->h->sleep(s->h->ctx, secs * 1000);
	return 0;
}

static int c_reboot(struct st *s, int c, char **v)
{
	s->res->action = LB_IPXE_REBOOT;
	s->done = 1;
	s->stop = 2;
	return 0;
}

static int c_poweroff(struct st *s, int c, char **v)
{
	s->res->action = LB_IPXE_POWEROFF;
	s->done = 1;
	s->stop = 2;
	return 0;
}

static int c_show(struct st *s, int c, char **v)
{
	int rc;
	char *spec, *val;

	if (c != 2)
		return fail(s, -EINVAL, "Usage: show <setting>");
	if (asprintf(&spec, "${%s}", v[1]) < 0)
		return -ENOMEM;
	{
		int net = 0;

		val = expand(s, spec, &rc, &net);
	}
	free(spec);
	if (!val)
		return rc;
	if (!*val)
		rc = fail(s, -ENOENT, "Could not find \"%.100s\"", v[1]);
	else
		out(s, "%s = %s\n", v[1], val);
	free(val);
	return rc < 0 ? rc : 0;
}

/* "cpuid --ext 29" (long mode) is how scripts pick 64-bit images. */
static int c_cpuid(struct st *s, int c, char **v)
{
	const char *ext, *ecx;
	struct opt o[] = { { "ext", 'e', 0, &ext }, { "ecx", 'c', 0, &ecx } };
	const char *arch = s->h->buildarch ? s->h->buildarch : LB_IPXE_BUILDARCH;
	int i;

	if ((i = parse_opts(s, c, v, o, 2)) < 0)
		return i;
	if (i != c - 1)
		return fail(s, -EINVAL, "Usage: cpuid [--ext] [--ecx] <bit>");
	if (ext && !ecx && !strcmp(v[i], "29") && !strcmp(arch, "x86_64"))
		return 0;
	return fail(s, -ENOENT, "cpuid: feature %s%s%.20s not known here",
		    ext ? "ext " : "", ecx ? "ecx " : "", v[i]);
}

/* "md5sum [images]" only displays digests; lboot does not compute MD5
 * (no hand-written crypto) and says so, failing like iPXE on a missing
 * image. */
static int c_md5sum(struct st *s, int c, char **v)
{
	for (int i = 1; i < c; i++)
		if (!find_image(s, v[i]))
			return fail(s, -ENOENT, "\"%.100s\": no such image", v[i]);
	for (size_t k = 0; k < s->n_imgs; k++) {
		int shown = c == 1;
		for (int i = 1; i < c && !shown; i++)
			shown = !strcmp(s->imgs[k]->name, v[i]);
		if (shown && !s->imgs[k]->running)
			out(s, "(md5 not computed by lboot)  %s\n", s->imgs[k]->name);
	}
	return 0;
}

static int c_unsupported(struct st *s, int c, char **v)
{
	return fail(s, -ENOTSUP, "%s: not supported by lboot", v[0]);
}

static const struct cmd cmds[] = {
	{ "boot", c_boot }, { "chain", c_boot }, { "choose", cmd_choose },
	{ "clear", c_clear }, { "cpuid", c_cpuid }, { "dhcp", cmd_net },
	{ "echo", cmd_echo }, { "exit", cmd_exit }, { "goto", cmd_goto },
	{ "ifclose", cmd_net }, { "ifconf", cmd_net }, { "ifopen", cmd_net },
	{ "imgargs", c_imgargs }, { "imgexec", c_boot },
	{ "imgfetch", c_initrd }, { "imgfree", cmd_imgfree },
	{ "imgload", c_kernel }, { "imgselect", c_kernel },
	{ "imgtrust", c_unsupported }, { "imgverify", c_unsupported },
	{ "inc", cmd_inc }, { "initrd", c_initrd }, { "iseq", c_iseq },
	{ "isset", c_isset }, { "item", cmd_item }, { "kernel", c_kernel },
	{ "md5sum", c_md5sum }, { "menu", cmd_menu },
	{ "module", c_initrd }, { "ntp", cmd_net },
	{ "poweroff", c_poweroff }, { "prompt", cmd_prompt },
	{ "read", c_unsupported }, { "reboot", c_reboot },
	{ "sanboot", c_unsupported },
	{ "sanhook", c_unsupported }, { "set", c_set }, { "show", c_show },
	{ "sleep", c_sleep },
};

/* One command: tokens[0..argc) unexpanded. */
static int exec_cmd(struct st *s, int argc, char **tokens)
{
	char *argv[LB_IPXE_MAX_ARGS + 1];
	int rc = 0, n;

	if (!argc)
		return 0;
	memset(s->argnet, 0, sizeof(s->argnet));
	for (n = 0; n < argc; n++) {
		int net = 0;

		if (!(argv[n] = expand(s, tokens[n], &rc, &net))) {
			if (rc == -ELOOP || rc == -E2BIG)
				fail(s, rc, "%s: expansion of \"%.100s\" %s",
				     n ? argv[0] : tokens[0], tokens[n],
				     rc == -ELOOP ? "does not end" : "too long");
			goto out;
		}
		s->argnet[n] = (unsigned char)net;
	}
	argv[argc] = NULL;
	for (int k = 0; k < argc; k++)
		s->work += strlen(argv[k]) + 1;
	if (s->work > LB_IPXE_MAX_WORK) {
		s->fatal = -E2BIG;
		rc = fail(s, -E2BIG, "more than %u bytes of arguments expanded "
			  "(a loop?)", LB_IPXE_MAX_WORK);
		goto out;
	}
	free(s->errmsg);
	s->errmsg = NULL;
	for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
		if (!strcmp(cmds[k].name, argv[0])) {
			rc = cmds[k].fn(s, argc, argv);
			if (rc < 0 && !s->errmsg)
				note(s, "%.100s failed: %s", argv[0], strerror(-rc));
			goto out;
		}
	}
	rc = fail(s, -ENOEXEC, "%.100s: command not found", argv[0]);
out:
	while (n-- > 0)
		free(argv[n]);
	return rc;
}

/* iPXE's system(): split, then run commands joined by ||, && and ;. */
static int exec_line(struct st *s, const char *line)
{
	char *copy = xstrdup(line), *p;
	char *tok[LB_IPXE_MAX_ARGS + 1];
	int nt = 0, rc = 0, process = 1;

	if (!copy)
		return -ENOMEM;
	for (p = copy;;) {
		while (is_space((unsigned char)*p))
			*p++ = 0;
		if (!*p)
			break;
		if (nt == LB_IPXE_MAX_ARGS) {
			free(copy);
			return fail(s, -E2BIG, "too many words on the line (max %d)",
				    LB_IPXE_MAX_ARGS);
		}
		tok[nt++] = p;
		while (*p && !is_space((unsigned char)*p))
			p++;
	}
	tok[nt] = NULL;
	for (int i = 0;;) {
		int j = i, next = 0; /* 0 end, 1 ||, 2 &&, 3 ; */
		while (j < nt) {
			if (tok[j][0] == '#') {
				nt = j;
				break;
			}
			if (!strcmp(tok[j], "||")) { next = 1; break; }
			if (!strcmp(tok[j], "&&")) { next = 2; break; }
			if (!strcmp(tok[j], ";")) { next = 3; break; }
			j++;
		}
		if (process) {
			if (++s->res->steps > LB_IPXE_MAX_STEPS) {
				s->fatal = -ELOOP;
				rc = fail(s, -ELOOP, "more than %d commands run "
					  "(a goto loop?)", LB_IPXE_MAX_STEPS);
				break;
			}
			rc = exec_cmd(s, j - i, tok + i);
		}
		if (s->fatal || s->done || s->stop) {
			if (s->stop == 1)
				s->stop = 0;
			break;
		}
		if (!next || j >= nt)
			break;
		process = next == 1 ? rc != 0 : next == 2 ? rc == 0 : 1;
		i = j + 1;
	}
	free(copy);
	return rc;
}

static int run_script(struct st *s, struct script *sc)
{
	int rc = 0;

	s->cur = sc;
	s->pc = 0;
	s->stop = 0;
	while (s->pc < sc->n) {
		struct line *l = &sc->lines[s->pc++];
		s->lineno = l->lineno;
		rc = exec_line(s, l->cmd);
		if (s->fatal) {
			rc = s->fatal;
			break;
		}
		if (s->done)
			break;
		if (s->stop == 2) {
			s->stop = 0;
			break;
		}
		if (rc != 0)
			break;
	}
	return rc;
}

static void free_script(struct script *sc)
{
	for (size_t i = 0; i < sc->n; i++)
		free(sc->lines[i].buf);
	free(sc->lines);
	memset(sc, 0, sizeof(*sc));
}

int lb_ipxe_is_script(const char *buf, size_t len)
{
	return len >= 7 && (!memcmp(buf, "#!ipxe", 6) || !memcmp(buf, "#!gpxe", 6)) &&
	       is_space((unsigned char)buf[6]);
}

/* Split into lines: CR stripped, backslash continuations joined, labels
 * split off (the line's own "cmd" buffer holds both). */
static int load_script(const char *url, const char *buf, size_t len,
		       struct script *sc, size_t *bad_line)
{
	size_t off = 0, lineno = 0;
	int rc = 0;

	memset(sc, 0, sizeof(*sc));
	sc->url = url;
	if (len > LB_IPXE_MAX_SCRIPT)
		return -E2BIG;
	if (!lb_ipxe_is_script(buf, len))
		return -ENOEXEC;
	while (off < len) {
		struct sbuf b = { .max = LB_IPXE_MAX_LINE };
		size_t first = lineno + 1;
		for (;;) {
			const char *nl = memchr(buf + off, '\n', len - off);
			size_t fl = nl ? (size_t)(nl - (buf + off)) : len - off;
			size_t start = b.n;
			lineno++;
			sb_add(&b, buf + off, fl);
			off += fl + (nl ? 1 : 0);
			if (b.err)
				break;
			if (b.n > start && b.s[b.n - 1] == '\r')
				b.s[--b.n] = 0;
			if (b.n && b.s[b.n - 1] == '\\' && off < len) {
				b.s[--b.n] = 0;
				continue;
			}
			if (b.n && b.s[b.n - 1] == '\\')
				b.s[--b.n] = 0;
			break;
		}
		char *line = sb_take(&b, &rc);
		if (!line) {
			*bad_line = first;
			free_script(sc);
			return rc;
		}
		if (sc->n == sc->cap) {
			size_t cap = sc->cap ? sc->cap * 2 : 64;
			struct line *nl2 = realloc(sc->lines, cap * sizeof(*nl2));
			if (!nl2) {
				free(line);
				free_script(sc);
				return -ENOMEM;
			}
			sc->lines = nl2;
			sc->cap = cap;
		}
		struct line *l = &sc->lines[sc->n++];
		char *c = line;
		l->lineno = first;
		l->buf = line;
		l->label = NULL;
		while (is_space((unsigned char)*c))
			c++;
		if (*c == ':') {
			l->label = ++c;
			while (*c && !is_space((unsigned char)*c))
				c++;
			if (*c)
				*c++ = 0;
		}
		l->cmd = c;
	}
	return 0;
}

void lb_ipxe_result_free(struct lb_ipxe_result *r)
{
	if (!r)
		return;
	free(r->kernel);
	free(r->name);
	free(r->cmdline);
	for (size_t i = 0; i < r->n_initrd; i++) {
		free(r->initrd[i].url);
		free(r->initrd[i].name);
		free(r->initrd[i].cpio_name);
		free(r->initrd[i].cpio_args);
	}
	free(r->initrd);
	free(r->error);
	memset(r, 0, sizeof(*r));
}

int lb_ipxe_run(const struct lb_ipxe_host *h, const char *url,
		const char *buf, size_t len, struct lb_ipxe_result *res)
{
	struct st s = { .h = h, .res = res, .cwuri = url };
	struct script sc;
	size_t bad = 0;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = load_script(url, buf, len, &sc, &bad);
	if (rc < 0) {
		const char *why = rc == -ENOEXEC ? "not an iPXE script (no #!ipxe)"
			: rc == -E2BIG ? "script or line too long" : strerror(-rc);
		if (asprintf(&res->error, "%s:%zu: %s", url ? url : "script",
			     bad, why) < 0)
			res->error = NULL;
		return rc;
	}
	rc = run_script(&s, &sc);
	free_script(&sc);
	if (s.done && !s.fatal) {
		rc = 0;
	} else if (s.fatal) {
		rc = s.fatal;
	} else if (rc > 0) {
		res->action = LB_IPXE_EXIT;
		res->exit_code = rc;
		rc = 0;
	} else if (rc == 0) {
		res->action = LB_IPXE_EXIT;
	}
	if (rc < 0) {
		res->error = s.errmsg;
		s.errmsg = NULL;
		if (!res->error && asprintf(&res->error, "%s: %s",
					    url ? url : "script",
					    strerror(-rc)) < 0)
			res->error = NULL;
	}
	free(s.errmsg);
	for (size_t i = 0; i < s.n_vars; i++) {
		free(s.vars[i].block);
		free(s.vars[i].name);
		free(s.vars[i].raw);
	}
	free(s.vars);
	for (size_t i = 0; i < s.n_imgs; i++)
		image_free(s.imgs[i]);
	for (size_t i = 0; i < s.n_menus; i++)
		menu_free(s.menus[i]);
	return rc;
}
