/*
 * Downloads over the network: TFTP (UDP, using the tftp.c state machine)
 * and HTTP/1.1 (TCP, using http.c) into a caller's sink, for the boot flow
 * and `lboot fetch`. Host and target; libc only; no logging: errors are
 * one line in res->err and a negative errno.
 *
 * Bounded everywhere: connect and every read wait at most timeout_ms, TFTP
 * retransmits with backoff a bounded number of times, redirects are capped,
 * the size is capped (max_size). The sink sees the file in order from
 * offset 0, exactly once, and the result is complete only when lb_fetch()
 * returns 0 (length checked against tsize or Content-Length); on failure
 * the caller throws what the sink got away.
 *
 * HTTPS goes through a pluggable transport: tls_open wraps a connected TCP
 * socket (server name given for its checks). Without it, https:// fails
 * with "https: not built in yet".
 */
#ifndef LB_NETIO_H
#define LB_NETIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "http.h"
#include "tftp.h"

/* A byte stream (plain TCP or TLS). read: bytes, 0 at EOF, -errno
 * (-ETIMEDOUT after the transport's timeout). write: all or -errno. */
struct lb_net_transport {
	void *ctx;
	ssize_t (*read)(void *ctx, void *buf, size_t len);
	ssize_t (*write)(void *ctx, const void *buf, size_t len);
	void (*close)(void *ctx);
};

/* Wrap connected TCP socket fd: owned by the transport from then on, and
 * closed by tls_open itself when it fails (err: one line). */
typedef int (*lb_tls_open_fn)(void *arg, int fd, const char *host,
			      unsigned timeout_ms, struct lb_net_transport *t,
			      char *err, size_t errsz);

struct lb_fetch_opts {
	uint64_t max_size;        /* 0: 2 GiB */
	unsigned timeout_ms;      /* connect, idle read, TFTP first answer
				   * (RRQ resent with backoff within it); 0: 10 s */
	unsigned max_redirects;   /* 0: 8 */
	/* TFTP: blksize (0: 1468, 512: not asked), windowsize (0: 16, 1: not
	 * asked), timeout, retries; tsize is always asked for. no_tftp_options:
	 * plain RFC 1350. A server refusing the options (ERROR 8) gets a plain
	 * request again. */
	struct lb_tftp_opts tftp;
	int no_tftp_options;
	lb_tls_open_fn tls_open;
	void *tls_arg;
	/* Where the bytes go (offset: where they start; always in order). */
	int (*sink)(void *arg, const void *data, size_t len, uint64_t offset);
	void *sink_arg;
	/* Called (with sink_arg) once, before the first byte reaches the
	 * sink, when the server announces the size (HTTP Content-Length, TFTP
	 * tsize); not called when it does not (chunked, no tsize). NULL: not
	 * told. lb_fetch still fails when the bytes do not match it. */
	void (*size)(void *arg, uint64_t size);
	/* Called for files over 1 MiB (or of unknown size once past 1 MiB),
	 * at most twice a second and once at the end; total 0: unknown. */
	void (*progress)(void *arg, uint64_t done, uint64_t total, uint64_t bytes_per_s);
	void *progress_arg;
};

struct lb_fetch_result {
	uint64_t size;
	int http_status;           /* last HTTP status, 0 for TFTP */
	unsigned redirects;
	unsigned tftp_blksize, tftp_windowsize; /* negotiated */
	char url[LB_URL_MAX];      /* final URL after redirects */
	char err[256];             /* one line on failure */
};

/* Fetch a tftp://, http:// or https:// URL. 0, or negative errno with
 * res->err: -ENOENT (TFTP file not found, HTTP 404/410), -EACCES (403/401,
 * TFTP access violation), -ELOOP (too many redirects), -EPROTONOSUPPORT
 * (https without TLS, unknown scheme), -ETIMEDOUT, -EPIPE (closed early),
 * -EPROTO (bad framing, more bytes than announced), -EFBIG, -EIO. */
int lb_fetch(const char *url, const struct lb_fetch_opts *o, struct lb_fetch_result *res);

/* Monotonic milliseconds. */
uint64_t lb_now_ms(void);

#endif
