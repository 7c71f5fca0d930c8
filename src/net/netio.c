/* TFTP and HTTP downloads into a sink: see netio.h. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "netio.h"

#define PROGRESS_MIN   (1u << 20)
#define DEFAULT_MAX    ((uint64_t)2 << 30)
#define TFTP_BACKOFF_MAX_MS 8000u

uint64_t lb_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int seterr(struct lb_fetch_result *res, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int seterr(struct lb_fetch_result *res, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->err, sizeof(res->err), fmt, ap);
	va_end(ap);
	return rc;
}

/* --- progress ------------------------------------------------------------ */

struct prog {
	const struct lb_fetch_opts *o;
	uint64_t t0, last, total;
	int shown;
};

static void prog_tick(struct prog *p, uint64_t done, int final)
{
	uint64_t now, el;

	if (!p->o->progress)
		return;
	if (!p->shown && !(p->total > PROGRESS_MIN || done > PROGRESS_MIN))
		return;
	now = lb_now_ms();
	if (!final && p->shown && now - p->last < 500)
		return;
	if (final && !p->shown)
		return;
	el = now - p->t0;
	p->o->progress(p->o->progress_arg, done, p->total,
		       el ? done * 1000 / el : 0);
	p->last = now;
	p->shown = 1;
}

/* --- name resolution --------------------------------------------------- */

static int resolve(const char *host, unsigned port, int socktype, struct addrinfo **out,
		   struct lb_fetch_result *res)
{
	struct addrinfo hints;
	char ps[8];
	int g;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = socktype;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(ps, sizeof(ps), "%u", port);
	g = getaddrinfo(host, ps, &hints, out);
	if (g)
		return seterr(res, -EHOSTUNREACH, "%s: %s", host,
			      g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
	return 0;
}

/* --- TFTP ---------------------------------------------------------------- */

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b,
		     int port_too)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
		return x->sin_addr.s_addr == y->sin_addr.s_addr &&
		       (!port_too || x->sin_port == y->sin_port);
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
		return !memcmp(&x->sin6_addr, &y->sin6_addr, 16) &&
		       (!port_too || x->sin6_port == y->sin6_port);
	}
	return 0;
}

static int tftp_once(const struct lb_url *u, const char *file, const struct lb_tftp_opts *to,
		     const struct lb_fetch_opts *o, struct lb_fetch_result *res, int *refused)
{
	struct addrinfo *ai = NULL;
	struct sockaddr_storage srv, tid, from;
	socklen_t srvlen, fl;
	struct lb_tftp t;
	struct lb_tftp_ev ev;
	uint8_t *pkt = NULL, out[600];
	size_t n;
	int fd = -1, rc, have_tid = 0;
	unsigned wait_ms;
	struct prog pr = { o, lb_now_ms(), 0, 0, 0 };
	uint64_t first_by = pr.t0 + o->timeout_ms; /* the first answer, at the latest */

	*refused = 0;
	if ((rc = lb_tftp_init(&t, file, to)))
		return seterr(res, rc, "tftp: bad file name or options");
	if ((rc = resolve(u->host, u->port, SOCK_DGRAM, &ai, res)))
		return rc;
	memcpy(&srv, ai->ai_addr, ai->ai_addrlen);
	srvlen = ai->ai_addrlen;
	fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	freeaddrinfo(ai);
	if (fd < 0) {
		rc = seterr(res, -errno, "tftp: socket: %s", strerror(errno));
		goto out;
	}
	if (!(pkt = malloc(LB_TFTP_PKT_MAX + 1))) {
		rc = seterr(res, -ENOMEM, "tftp: out of memory");
		goto out;
	}
	lb_tftp_rrq(&t, out, sizeof(out), &n);
	if (sendto(fd, out, n, 0, (struct sockaddr *)&srv, srvlen) < 0) {
		rc = seterr(res, -errno, "tftp://%s: %s", u->host, strerror(errno));
		goto out;
	}
	wait_ms = t.timeout * 1000;
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		unsigned w = wait_ms;
		if (t.state == LB_TFTP_S_RRQ) {
			uint64_t now = lb_now_ms();
			if (now >= first_by) {
				rc = seterr(res, -ETIMEDOUT, "tftp://%s/%s: no answer from the TFTP server",
					    u->host, file);
				goto out;
			}
			if (first_by - now < w)
				w = (unsigned)(first_by - now);
		}
		int pr_rc = poll(&pfd, 1, (int)w);
		if (pr_rc < 0 && errno == EINTR)
			continue;
		if (pr_rc < 0) {
			rc = seterr(res, -errno, "tftp: poll: %s", strerror(errno));
			goto out;
		}
		if (pr_rc == 0) {
			rc = lb_tftp_timeout(&t, out, sizeof(out), &n);
			if (rc) {
				rc = seterr(res, rc, "tftp://%s/%s: %s", u->host, file, t.errmsg);
				goto out;
			}
			if (n)
				sendto(fd, out, n, 0, have_tid ? (struct sockaddr *)&tid :
				       (struct sockaddr *)&srv, srvlen);
			/* back off before the first answer (the server may be
			 * slow to start); afterwards the negotiated timeout */
			if (t.state == LB_TFTP_S_RRQ && wait_ms < TFTP_BACKOFF_MAX_MS)
				wait_ms *= 2;
			continue;
		}
		fl = sizeof(from);
		ssize_t k = recvfrom(fd, pkt, LB_TFTP_PKT_MAX + 1, 0, (struct sockaddr *)&from, &fl);
		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			/* ICMP port unreachable surfaces as ECONNREFUSED */
			rc = seterr(res, -errno, "tftp://%s: %s", u->host, strerror(errno));
			goto out;
		}
		if (!have_tid) {
			if (!same_addr(&from, &srv, 0))
				continue;       /* not the server we asked */
			memcpy(&tid, &from, sizeof(tid));
			have_tid = 1;
			wait_ms = t.timeout * 1000;
		} else if (!same_addr(&from, &tid, 1)) {
			/* RFC 1350: another transfer ID gets an error, ours goes on */
			lb_tftp_error_pkt(5, "Unknown transfer ID", out, sizeof(out), &n);
			sendto(fd, out, n, 0, (struct sockaddr *)&from, fl);
			continue;
		}
		enum lb_tftp_state before = t.state;
		rc = lb_tftp_feed(&t, pkt, (size_t)k, &ev);
		if (before == LB_TFTP_S_RRQ && t.state != LB_TFTP_S_RRQ && rc >= 0 &&
		    t.have_tsize && o->size)
			o->size(o->sink_arg, t.tsize);
		if (ev.datalen && rc >= 0) {
			int s = o->sink(o->sink_arg, ev.data, ev.datalen, ev.offset);
			if (s < 0) {
				lb_tftp_error_pkt(3, "cannot store", out, sizeof(out), &n);
				sendto(fd, out, n, 0, (struct sockaddr *)&tid, srvlen);
				rc = seterr(res, s, "tftp://%s/%s: cannot store: %s", u->host, file,
					    strerror(-s));
				goto out;
			}
		}
		if (ev.replylen)
			sendto(fd, ev.reply, ev.replylen, 0, (struct sockaddr *)&tid, srvlen);
		if (before == LB_TFTP_S_RRQ && t.state != LB_TFTP_S_RRQ) {
			pr.total = t.have_tsize ? t.tsize : 0;
			wait_ms = t.timeout * 1000;
		}
		if (rc < 0) {
			*refused = before == LB_TFTP_S_RRQ && rc == -EOPNOTSUPP;
			rc = seterr(res, rc, "tftp://%s/%s: %s", u->host, file, t.errmsg);
			goto out;
		}
		prog_tick(&pr, t.received, 0);
		if (rc == 1)
			break;
	}
	res->size = t.received;
	res->tftp_blksize = t.blksize;
	res->tftp_windowsize = t.windowsize;
	prog_tick(&pr, t.received, 1);
	rc = 0;
out:
	free(pkt);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int fetch_tftp(const struct lb_url *u, const struct lb_fetch_opts *o,
		      struct lb_fetch_result *res)
{
	char file[LB_TFTP_NAME_MAX + 1];
	struct lb_tftp_opts to = o->tftp;
	int rc, refused;

	if (lb_url_path_decode(u, file, sizeof(file)))
		return seterr(res, -EINVAL, "tftp: bad file name in %s", res->url);
	if (o->no_tftp_options) {
		to.blksize = to.windowsize = to.timeout = 0;
		to.tsize = 0;
	} else {
		/* 0: our defaults; 512 / 1 mean "do not ask" (tftp.c) */
		if (!to.blksize)
			to.blksize = 1468;      /* a 1500-byte MTU less IP/UDP/TFTP */
		if (!to.windowsize)
			to.windowsize = 16;
		to.tsize = 1;
	}
	to.max_size = o->max_size;
	rc = tftp_once(u, file, &to, o, res, &refused);
	if (rc && refused && !o->no_tftp_options) {
		/* a server that refuses the options with ERROR 8: plain RFC 1350 */
		to.blksize = to.windowsize = to.timeout = 0;
		to.tsize = 0;
		rc = tftp_once(u, file, &to, o, res, &refused);
	}
	return rc;
}

/* --- plain TCP transport -------------------------------------------------- */

struct tcp {
	int fd;
	unsigned timeout_ms;
};

static int wait_fd(int fd, short ev, unsigned ms)
{
	struct pollfd p = { fd, ev, 0 };
	uint64_t end = lb_now_ms() + ms;

	for (;;) {
		uint64_t now = lb_now_ms();
		int r = poll(&p, 1, now >= end ? 0 : (int)(end - now));
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static ssize_t tcp_read(void *ctx, void *buf, size_t len)
{
	struct tcp *c = ctx;

	for (;;) {
		ssize_t k = read(c->fd, buf, len);
		if (k >= 0)
			return k;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		int rc = wait_fd(c->fd, POLLIN, c->timeout_ms);
		if (rc)
			return rc;
	}
}

static ssize_t tcp_write(void *ctx, const void *buf, size_t len)
{
	struct tcp *c = ctx;
	size_t done = 0;

	while (done < len) {
		ssize_t k = send(c->fd, (const char *)buf + done, len - done, MSG_NOSIGNAL);
		if (k > 0) {
			done += (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno != EAGAIN)
			return -errno;
		int rc = wait_fd(c->fd, POLLOUT, c->timeout_ms);
		if (rc)
			return rc;
	}
	return (ssize_t)len;
}

static void tcp_close(void *ctx)
{
	struct tcp *c = ctx;

	close(c->fd);
	free(c);
}

/* Connect to host:port (every address in turn), non-blocking socket. */
static int tcp_connect(const struct lb_url *u, unsigned timeout_ms, int *out,
		       struct lb_fetch_result *res)
{
	struct addrinfo *ai = NULL, *a;
	int rc, fd = -1;

	if ((rc = resolve(u->host, u->port, SOCK_STREAM, &ai, res)))
		return rc;
	rc = -EHOSTUNREACH;
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		if (errno == EINPROGRESS) {
			int e = 0;
			socklen_t el = sizeof(e);
			rc = wait_fd(fd, POLLOUT, timeout_ms);
			if (!rc && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && !e)
				break;
			if (!rc)
				rc = -(e ? e : EIO);
		} else {
			rc = -errno;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return seterr(res, rc, "%s:%u: %s", u->host, u->port,
			      rc == -ETIMEDOUT ? "connection timed out" : strerror(-rc));
	*out = fd;
	return 0;
}

/* --- HTTP -------------------------------------------------------------------- */

#define HTTP_BUF (64 * 1024)

/* A TCP connection to u, through TLS for https://, as transport t (which
 * owns the socket once set; the caller closes it when t->close is set). */
static int http_open(const struct lb_url *u, const struct lb_fetch_opts *o,
		     struct lb_fetch_result *res, struct lb_net_transport *t)
{
	struct tcp *c;
	int rc, fd = -1;

	if ((rc = tcp_connect(u, o->timeout_ms, &fd, res)))
		goto fail;
	if (u->scheme == LB_URL_HTTPS) {
		char e[200] = "";
		/* the transport owns fd now, even on failure */
		rc = o->tls_open(o->tls_arg, fd, u->host, o->timeout_ms, t, e, sizeof(e));
		if (rc)
			return seterr(res, rc, "https://%s: %s", u->host, e[0] ? e : strerror(-rc));
		return 0;
	}
	if (!(c = malloc(sizeof(*c)))) {
		rc = seterr(res, -ENOMEM, "out of memory");
		goto fail;
	}
	c->fd = fd;
	c->timeout_ms = o->timeout_ms;
	t->ctx = c;
	t->read = tcp_read;
	t->write = tcp_write;
	t->close = tcp_close;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return rc;
}

/* One GET in progress (http_once). */
struct get {
	const struct lb_fetch_opts *o;
	struct lb_fetch_result *res;
	struct lb_net_transport t;
	struct lb_http_body b;
	struct prog pr;
	uint64_t got;     /* body bytes given to the sink */
	int deliver;      /* the body goes to the sink */
};

/* The response head is in: 0 with location set for a redirect, 1 when a
 * body to deliver follows, negative errno otherwise. */
static int http_on_head(struct get *g, const struct lb_http_resp *r,
			char *location, size_t loccap)
{
	const struct lb_fetch_opts *o = g->o;
	struct lb_fetch_result *res = g->res;

	res->http_status = r->status;
	if (r->status >= 300 && r->status < 400 && r->status != 304) {
		if (!r->location[0])
			return seterr(res, -EPROTO, "%s: HTTP %d without Location",
				      res->url, r->status);
		snprintf(location, loccap, "%s", r->location);
		return 0;
	}
	if (r->status != 200) {
		int e = r->status == 404 || r->status == 410 ? -ENOENT :
			r->status == 401 || r->status == 403 ? -EACCES : -EIO;
		return seterr(res, e, "%s: HTTP %d %s", res->url, r->status, r->reason);
	}
	if (r->content_length >= 0 && (uint64_t)r->content_length > o->max_size)
		return seterr(res, -EFBIG, "%s: %lld bytes, more than the %llu allowed",
			      res->url, (long long)r->content_length,
			      (unsigned long long)o->max_size);
	lb_http_body_init(&g->b, r, o->max_size);
	g->pr.total = r->content_length > 0 ? (uint64_t)r->content_length : 0;
	if (r->content_length >= 0 && o->size)
		o->size(o->sink_arg, (uint64_t)r->content_length);
	g->deliver = 1;
	return 1;
}

/* Body bytes buf[*off, len) through the framing to the sink; *off ends
 * where the body ended (or at len). 0 or negative errno. */
static int http_body(struct get *g, const uint8_t *buf, size_t *off, size_t len)
{
	struct lb_fetch_result *res = g->res;
	size_t used;
	int rc;

	while (!g->b.done && *off < len) {
		const uint8_t *d;
		size_t dl;
		rc = lb_http_body_feed(&g->b, buf + *off, len - *off, &used, &d, &dl);
		if (rc < 0)
			return seterr(res, rc, "%s: %s", res->url, rc == -EFBIG ?
				      "larger than allowed" : "bad chunked framing");
		if (dl && g->deliver) {
			int s = g->o->sink(g->o->sink_arg, d, dl, g->got);
			if (s < 0)
				return seterr(res, s, "%s: cannot store: %s", res->url, strerror(-s));
			g->got += dl;
		}
		*off += used;
	}
	return 0;
}

/* The body is complete: no byte may follow it, in this read (off < len)
 * or before the server closes. 0 or negative errno. */
static int http_body_done(struct get *g, uint8_t *buf, size_t off, size_t len)
{
	struct lb_fetch_result *res = g->res;
	const char *what = g->b.mode == LB_BODY_LENGTH ? "Content-Length" : "the chunked body";

	if (off < len)
		return seterr(res, -EPROTO, "%s: more bytes than %s", res->url, what);
	/* We asked the server to close: anything it still sends
	 * is more than it announced. Wait for its close briefly. */
	struct tcp *c = g->t.read == tcp_read ? g->t.ctx : NULL;
	if (c)
		c->timeout_ms = 2000;
	if (g->t.read(g->t.ctx, buf, HTTP_BUF) > 0)
		return seterr(res, -EPROTO, "%s: more bytes than %s", res->url, what);
	return 0;
}

/* The server closed the connection: fine only after a complete body. */
static int http_closed(struct get *g, int in_body)
{
	struct lb_fetch_result *res = g->res;
	int rc;

	if (!in_body)
		return seterr(res, -EPIPE, "%s: connection closed before the response", res->url);
	if (!(rc = lb_http_body_eof(&g->b)))
		return 0;
	if (g->b.mode == LB_BODY_LENGTH)
		return seterr(res, rc, "%s: connection closed after %llu of %llu bytes",
			      res->url, (unsigned long long)g->b.total,
			      (unsigned long long)(g->b.total + g->b.left));
	return seterr(res, rc, "%s: connection closed inside chunked body after %llu bytes",
		      res->url, (unsigned long long)g->b.total);
}

/* One GET. 0 with *location set for a redirect, 1 when the body went to
 * the sink, negative errno otherwise. */
static int http_once(const struct lb_url *u, const struct lb_fetch_opts *o,
		     struct lb_fetch_result *res, char *location, size_t loccap)
{
	struct get g = { .o = o, .res = res, .pr = { o, lb_now_ms(), 0, 0, 0 } };
	struct lb_http_resp *r = NULL;
	uint8_t *buf = NULL;
	char req[LB_URL_MAX + 512];
	size_t n, used;
	int rc, in_body = 0;

	location[0] = 0;
	if ((rc = lb_http_request(u, 0, req, sizeof(req), &n)))
		return seterr(res, rc, "%s: request too long", res->url);
	if (!(buf = malloc(HTTP_BUF)) || !(r = malloc(sizeof(*r)))) {
		rc = seterr(res, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = http_open(u, o, res, &g.t)))
		goto out;
	if ((rc = (int)g.t.write(g.t.ctx, req, n)) < 0) {
		rc = seterr(res, rc, "%s: sending the request: %s", res->url, strerror(-rc));
		goto out;
	}
	lb_http_head_init(r);
	for (;;) {
		ssize_t k = g.t.read(g.t.ctx, buf, HTTP_BUF);
		if (k < 0) {
			rc = seterr(res, (int)k, "%s: %s after %llu bytes", res->url,
				    k == -ETIMEDOUT ? "no data for too long" : strerror((int)-k),
				    (unsigned long long)g.got);
			goto out;
		}
		if (k == 0) {
			if ((rc = http_closed(&g, in_body)))
				goto out;
			break;
		}
		size_t off = 0, len = (size_t)k;
		if (!in_body) {
			rc = lb_http_head_feed(r, buf, len, &used);
			if (rc < 0) {
				rc = seterr(res, rc, "%s: bad HTTP response head (%s)", res->url,
					    rc == -EMSGSIZE ? "too large" :
					    rc == -EOPNOTSUPP ? "unsupported transfer coding" :
					    "malformed");
				goto out;
			}
			if (rc == 0)
				continue;
			off = used;
			in_body = 1;
			if ((rc = http_on_head(&g, r, location, loccap)) <= 0)
				goto out;
		}
		if ((rc = http_body(&g, buf, &off, len)))
			goto out;
		prog_tick(&g.pr, g.got, 0);
		if (g.b.done) {
			if ((rc = http_body_done(&g, buf, off, len)))
				goto out;
			break;
		}
	}
	res->size = g.got;
	prog_tick(&g.pr, g.got, 1);
	rc = 1;
out:
	if (g.t.close)
		g.t.close(g.t.ctx);
	free(buf);
	free(r);
	return rc;
}

/* A redirect never leaves https:// (to http:// or tftp://, where anyone on
 * the path could answer): what was asked for over TLS comes over TLS. */
static int redirect_allowed(const struct lb_url *from, const char *to,
			    struct lb_fetch_result *res)
{
	struct lb_url t;

	if (from->scheme != LB_URL_HTTPS)
		return 0;
	if (!lb_url_parse(to, &t) && t.scheme == LB_URL_HTTPS)
		return 0;
	return seterr(res, -EPERM, "%s: redirect to %.200s refused: https:// may only redirect to https://",
		      res->url, to);
}

int lb_fetch(const char *url, const struct lb_fetch_opts *opts, struct lb_fetch_result *res)
{
	struct lb_fetch_opts o = *opts;
	struct lb_url u;
	char loc[LB_URL_MAX], next[LB_URL_MAX];
	int rc;

	memset(res, 0, sizeof(*res));
	if (!o.max_size)
		o.max_size = DEFAULT_MAX;
	if (!o.timeout_ms)
		o.timeout_ms = 10000;
	if (!o.max_redirects)
		o.max_redirects = 8;
	if (!o.sink)
		return seterr(res, -EINVAL, "no sink");
	if (strlen(url) >= sizeof(res->url))
		return seterr(res, -ENAMETOOLONG, "URL longer than %zu bytes", sizeof(res->url) - 1);
	snprintf(res->url, sizeof(res->url), "%s", url);
	for (;;) {
		rc = lb_url_parse(res->url, &u);
		if (rc == -EPROTONOSUPPORT)
			return seterr(res, rc, "%s: unsupported URL scheme (tftp://, http://, https://)",
				      res->url);
		if (rc)
			return seterr(res, rc, "%s: bad URL", res->url);
		if (u.scheme == LB_URL_TFTP)
			return fetch_tftp(&u, &o, res);
		if (u.scheme == LB_URL_HTTPS && !o.tls_open)
			return seterr(res, -EPROTONOSUPPORT, "https: not built in yet");
		rc = http_once(&u, &o, res, loc, sizeof(loc));
		if (rc < 0)
			return rc;
		if (rc == 1)
			return 0;
		if (res->redirects >= o.max_redirects)
			return seterr(res, -ELOOP, "%s: more than %u redirects", url,
				      o.max_redirects);
		res->redirects++;
		if ((rc = lb_url_resolve(res->url, loc, next, sizeof(next))))
			return seterr(res, rc, "%s: bad redirect Location", res->url);
		if ((rc = redirect_allowed(&u, next, res)))
			return rc;
		memcpy(res->url, next, sizeof(next));
	}
}
