/*
 * URLs and HTTP/1.1 framing without I/O (RFC 3986, RFC 9112).
 *
 * lb_url_parse: http://, https:// and tftp:// URLs: host name, IPv4 or a
 * bracketed IPv6 literal, optional port, path and query (a fragment is
 * dropped). No user info, no control characters or spaces, every '%' must
 * start a %XX escape. lb_url_resolve: a reference (absolute, //host,
 * /path, relative, ?query) against a base URL, dot segments removed.
 *
 * lb_http_head_*: an incremental response-head parser: status line and
 * headers up to LB_HTTP_HEAD_MAX bytes; Content-Length (a duplicate that
 * differs, or a list that disagrees, is refused), Transfer-Encoding
 * (chunked only), Location, Connection. 1xx interim responses are skipped.
 *
 * lb_http_body_*: the message body by RFC 9112 section 6.3 rules: chunked,
 * Content-Length, or until the connection closes; a cap on the total.
 */
#ifndef LB_HTTP_H
#define LB_HTTP_H

#include <stddef.h>
#include <stdint.h>

enum lb_url_scheme { LB_URL_HTTP = 1, LB_URL_HTTPS, LB_URL_TFTP };

#define LB_URL_MAX      2048
#define LB_URL_HOST_MAX 255

struct lb_url {
	enum lb_url_scheme scheme;
	char host[LB_URL_HOST_MAX + 1]; /* without brackets */
	int ipv6;                       /* host is an IPv6 literal */
	unsigned port;                  /* explicit or the scheme's default */
	int port_given;
	char path[LB_URL_MAX];          /* "/..." with the query, still escaped */
};

int lb_url_parse(const char *s, struct lb_url *u);
/* Write a URL back as text. */
int lb_url_format(const struct lb_url *u, char *out, size_t cap);
/* Resolve ref against base into out (an absolute URL). */
int lb_url_resolve(const char *base, const char *ref, char *out, size_t cap);
/* Percent-decode the path without the query (for TFTP file names); %00 and
 * control characters are refused. The leading '/' is dropped. */
int lb_url_path_decode(const struct lb_url *u, char *out, size_t cap);

/* "GET path HTTP/1.1" with Host, User-Agent: lboot, Accept, Connection. */
int lb_http_request(const struct lb_url *u, int keepalive, char *out, size_t cap,
		    size_t *len);

#define LB_HTTP_HEAD_MAX 16384

struct lb_http_resp {
	int status;             /* 100..599 */
	int minor;              /* HTTP/1.minor */
	int64_t content_length; /* -1: none */
	int chunked;
	int close;              /* the server closes after this response */
	char location[LB_URL_MAX]; /* empty: none */
	char reason[64];
	/* private */
	size_t n;
	int done;
	char buf[LB_HTTP_HEAD_MAX];
};

void lb_http_head_init(struct lb_http_resp *r);
/*
 * Feed received bytes; *used says how many belong to the head. Returns 0
 * (need more), 1 (head complete: the rest of the input is body), or a
 * negative errno: -EMSGSIZE head too big, -EPROTO malformed, -EOPNOTSUPP
 * a transfer coding other than chunked.
 */
int lb_http_head_feed(struct lb_http_resp *r, const uint8_t *in, size_t len,
		      size_t *used);

enum lb_http_body_mode { LB_BODY_NONE, LB_BODY_LENGTH, LB_BODY_CHUNKED, LB_BODY_CLOSE };

struct lb_http_body {
	enum lb_http_body_mode mode;
	uint64_t max;        /* cap on the body */
	uint64_t total;      /* body bytes delivered */
	uint64_t left;       /* LENGTH: bytes still due; CHUNKED: left in chunk */
	int st;              /* chunked decoder state */
	unsigned digits;     /* chunk-size hex digits seen */
	size_t linelen;      /* extension / trailer line length */
	size_t trailer;      /* trailer bytes */
	int done;
};

/* Body rules for a response to GET (max 0: no cap but 2^62). */
void lb_http_body_init(struct lb_http_body *b, const struct lb_http_resp *r,
		       uint64_t max);
/*
 * Decode from in: consumes *used bytes and yields *data and *dlen (a slice of
 * in, possibly empty). Call again with the rest while *used < len and the
 * result is 0. Returns 0 (more to come), 1 (body complete; bytes after it
 * are the next response or, on a closing connection, an error for the
 * caller), negative errno: -EPROTO bad chunk framing, -EFBIG over max.
 */
int lb_http_body_feed(struct lb_http_body *b, const uint8_t *in, size_t len,
		      size_t *used, const uint8_t **data, size_t *dlen);
/* The connection closed: 0 if the body is complete, -EPIPE if short. */
int lb_http_body_eof(const struct lb_http_body *b);

#endif
