/*
 * Time from NTP servers before TLS (src/net/sntp.c packets over UDP).
 * Host and target; libc only; no logging: one line in err on failure.
 *
 * lb_ntp_query asks the servers in order, one request at a time on a
 * connected UDP socket (only the server's replies reach it; an ICMP port
 * unreachable ends that server at once), each request resent once
 * (o->tries) when no answer comes, everything within o->timeout_ms in all
 * (default 3 s): the per-request wait is the total over (servers x tries),
 * at least 250 ms. Replies that do not echo our nonce are dropped and the
 * wait goes on; a kiss-o'-death or an unsynchronized server ends that
 * server. The first good reply wins.
 *
 * The time taken is the server's transmit timestamp plus half the round
 * trip (less the server's own delay), tied to CLOCK_MONOTONIC at the
 * moment the reply came: lb_ntp_now() gives it for any later moment. The
 * NTP era is the one closest to o->pivot (the build date).
 */
#ifndef LB_NTP_H
#define LB_NTP_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#define LB_NTP_MAX_SERVERS 8

struct lb_ntp_server {
	struct sockaddr_storage sa;
	socklen_t salen;
	char name[64];            /* "192.0.2.1", "[fe80::1%2]:123" ... */
};

/* "IP", "IP:PORT", "[IPv6]" or "[IPv6]:PORT" (numeric only). 0 or -EINVAL. */
int lb_ntp_server_parse(const char *s, struct lb_ntp_server *out);
/* An IPv4 address (network order), or an IPv6 one (scope ifindex for a
 * link-local address), on port 123. */
void lb_ntp_server_v4(uint32_t addr, struct lb_ntp_server *out);
void lb_ntp_server_v6(const uint8_t addr[16], int ifindex, struct lb_ntp_server *out);

struct lb_ntp_opts {
	unsigned timeout_ms;      /* all servers, all tries; 0: 3000 */
	unsigned tries;           /* requests per server; 0: 2 */
	int64_t pivot;            /* Unix seconds near the answer (era choice) */
};

struct lb_ntp_result {
	size_t server;            /* index of the server that answered */
	int64_t sec;              /* Unix time when the reply came ... */
	uint32_t nsec;
	uint64_t mono_ns;         /* ... which is this CLOCK_MONOTONIC instant */
	unsigned rtt_ms, stratum, requests;
	uint64_t elapsed_ms;      /* from the first request to the answer */
};

/* 0 with *res, or negative errno with one line in err: -ETIMEDOUT (no
 * answer within the bound), -ECONNREFUSED, -EAGAIN, -EPROTO (the last
 * server's failure), -EINVAL (no server). */
int lb_ntp_query(const struct lb_ntp_server *s, size_t n, const struct lb_ntp_opts *o,
		 struct lb_ntp_result *res, char *err, size_t errsz);

/* The NTP time now (res's time + monotonic time since). */
void lb_ntp_now(const struct lb_ntp_result *res, struct timespec *ts);

/* "2026-12-04 10:20:13 UTC" into buf. */
const char *lb_ntp_fmt(int64_t sec, char *buf, size_t size);

#endif
