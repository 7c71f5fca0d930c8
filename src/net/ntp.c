/* NTP (SNTP client) before TLS: see ntp.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ntp.h"
#include "sntp.h"

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void lb_ntp_server_v4(uint32_t addr, struct lb_ntp_server *out)
{
	struct sockaddr_in *a = (struct sockaddr_in *)&out->sa;

	memset(out, 0, sizeof(*out));
	a->sin_family = AF_INET;
	a->sin_port = htons(LB_SNTP_PORT);
	a->sin_addr.s_addr = addr;
	out->salen = sizeof(*a);
	inet_ntop(AF_INET, &a->sin_addr, out->name, sizeof(out->name));
}

void lb_ntp_server_v6(const uint8_t addr[16], int ifindex, struct lb_ntp_server *out)
{
	struct sockaddr_in6 *a = (struct sockaddr_in6 *)&out->sa;
	char s[INET6_ADDRSTRLEN];

	memset(out, 0, sizeof(*out));
	a->sin6_family = AF_INET6;
	a->sin6_port = htons(LB_SNTP_PORT);
	memcpy(&a->sin6_addr, addr, 16);
	if (addr[0] == 0xfe && (addr[1] & 0xc0) == 0x80)
		a->sin6_scope_id = (uint32_t)ifindex;
	out->salen = sizeof(*a);
	inet_ntop(AF_INET6, addr, s, sizeof(s));
	if (a->sin6_scope_id)
		snprintf(out->name, sizeof(out->name), "%s%%%d", s, ifindex);
	else
		snprintf(out->name, sizeof(out->name), "%s", s);
}

int lb_ntp_server_parse(const char *s, struct lb_ntp_server *out)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *port = NULL, *h = s;
	size_t hl;
	unsigned long p = LB_SNTP_PORT;
	uint8_t a6[16];
	uint32_t a4;

	if (!s || !*s)
		return -EINVAL;
	if (*s == '[') {
		const char *e = strchr(s, ']');
		if (!e)
			return -EINVAL;
		h = s + 1;
		hl = (size_t)(e - h);
		if (e[1] == ':')
			port = e + 2;
		else if (e[1])
			return -EINVAL;
	} else {
		const char *c = strchr(s, ':');
		if (c && strchr(c + 1, ':'))
			c = NULL;          /* a bare IPv6 address */
		hl = c ? (size_t)(c - s) : strlen(s);
		if (c)
			port = c + 1;
	}
	if (!hl || hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, hl);
	host[hl] = 0;
	if (port) {
		char *end;
		if (!*port || *port < '0' || *port > '9')
			return -EINVAL;
		errno = 0;
		p = strtoul(port, &end, 10);
		if (*end || errno || !p || p > 65535)
			return -EINVAL;
	}
	if (inet_pton(AF_INET, host, &a4) == 1) {
		lb_ntp_server_v4(a4, out);
	} else if (inet_pton(AF_INET6, host, a6) == 1) {
		lb_ntp_server_v6(a6, 0, out);
	} else {
		return -EINVAL;
	}
	if (out->sa.ss_family == AF_INET)
		((struct sockaddr_in *)&out->sa)->sin_port = htons((uint16_t)p);
	else
		((struct sockaddr_in6 *)&out->sa)->sin6_port = htons((uint16_t)p);
	if (p != LB_SNTP_PORT) {
		char n[sizeof(out->name)];
		snprintf(n, sizeof(n), "%s", out->name);
		snprintf(out->name, sizeof(out->name), out->sa.ss_family == AF_INET6 ?
			 "[%.48s]:%lu" : "%.48s:%lu", n, p);
	}
	return 0;
}

static uint64_t nonce_new(void)
{
	uint64_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == sizeof(v) && v)
		return v;
	/* no entropy yet: still unpredictable enough off the wire (the
	 * check is against stale replies and blind spoofing) */
	v = mono_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 32;
	return v ? v : 1;
}

/* one request to one server, waiting up to wait_ms: 0 with res filled,
 * -ETIMEDOUT, or the reply's / socket's error (why set) */
static int ask(int fd, const struct lb_ntp_opts *o, unsigned wait_ms,
	       struct lb_ntp_result *res, char *why, size_t wsz)
{
	const char *w = NULL, *ignored = NULL;
	uint8_t req[LB_SNTP_LEN], buf[LB_SNTP_PKT_MAX + 1];
	uint64_t nonce = nonce_new(), t1, t4, end;
	struct lb_sntp_reply r;

	lb_sntp_request(req, nonce);
	t1 = mono_ns();
	if (send(fd, req, sizeof(req), 0) != (ssize_t)sizeof(req)) {
		int e = errno;
		snprintf(why, wsz, "%s", e == ECONNREFUSED ? "port unreachable (ICMP)" : strerror(e));
		return -e;
	}
	end = t1 + (uint64_t)wait_ms * 1000000ull;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = mono_ns();
		ssize_t n;
		int rc;

		if (now >= end) {
			snprintf(why, wsz, "no answer%s%s", ignored ? "; ignored a reply: " : "",
				 ignored ? ignored : "");
			return -ETIMEDOUT;
		}
		rc = poll(&p, 1, (int)((end - now + 999999) / 1000000));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			int e = errno;
			snprintf(why, wsz, "%s", strerror(e));
			return -e;
		}
		if (!rc)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		t4 = mono_ns();
		if (n < 0) {
			int e = errno;
			if (e == EINTR || e == EAGAIN)
				continue;
			snprintf(why, wsz, "%s", e == ECONNREFUSED ? "port unreachable (ICMP)" : strerror(e));
			return -e;
		}
		rc = lb_sntp_parse(buf, (size_t)n, nonce, &r, &w);
		if (rc == -ESTALE || rc == -EMSGSIZE || rc == -EPROTO) {
			ignored = w;    /* not an answer to this request */
			continue;
		}
		if (rc == -ECONNREFUSED)
			snprintf(why, wsz, "kiss-o'-death %s", r.kiss);
		else if (rc)
			snprintf(why, wsz, "%s", w);
		if (rc)
			return rc;
		{
			/* round trip less the server's own time, half of it
			 * after the server's transmit timestamp */
			uint64_t srv = r.xmit >= r.recv ? r.xmit - r.recv : 0;
			uint64_t srv_ns = (srv >> 32) * 1000000000ull +
					  (((srv & 0xffffffffu) * 1000000000ull) >> 32);
			uint64_t rtt = t4 - t1 > srv_ns ? t4 - t1 - srv_ns : 0;
			uint32_t ns;
			int64_t s = lb_sntp_unix(r.xmit, o->pivot, &ns);
			uint64_t add = (uint64_t)ns + rtt / 2;

			res->sec = s + (int64_t)(add / 1000000000ull);
			res->nsec = (uint32_t)(add % 1000000000ull);
			res->mono_ns = t4;
			res->rtt_ms = (unsigned)(rtt / 1000000ull);
			res->stratum = r.stratum;
		}
		return 0;
	}
}

int lb_ntp_query(const struct lb_ntp_server *s, size_t n, const struct lb_ntp_opts *o,
		 struct lb_ntp_result *res, char *err, size_t errsz)
{
	unsigned total = o->timeout_ms ? o->timeout_ms : 3000;
	unsigned tries = o->tries ? o->tries : 2, per;
	uint64_t start = mono_ns(), deadline = start + (uint64_t)total * 1000000ull;
	unsigned sent = 0;
	int last = -ETIMEDOUT;
	char why_all[256] = "";

	if (!n) {
		snprintf(err, errsz, "no NTP server");
		return -EINVAL;
	}
	per = total / (unsigned)(n * tries > 64 ? 64 : n * tries);
	if (per < 250)
		per = 250;
	for (size_t i = 0; i < n; i++) {
		char why[96] = "no answer";
		int fd, rc = -ETIMEDOUT;

		if (mono_ns() >= deadline)
			break;
		fd = socket(s[i].sa.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || connect(fd, (const struct sockaddr *)&s[i].sa, s[i].salen) < 0) {
			rc = -errno;
			snprintf(why, sizeof(why), "%s", strerror(errno));
			if (fd >= 0)
				close(fd);
		} else {
			for (unsigned t = 0; t < tries; t++) {
				uint64_t now = mono_ns();
				unsigned w;
				if (now >= deadline)
					break;
				w = (unsigned)((deadline - now) / 1000000ull);
				if (w > per && (i + 1 < n || t + 1 < tries))
					w = per;       /* leave time for the others */
				sent++;
				rc = ask(fd, o, w, res, why, sizeof(why));
				if (rc != -ETIMEDOUT)
					break;
			}
			close(fd);
		}
		if (!rc) {
			res->server = i;
			res->requests = sent;
			res->elapsed_ms = (res->mono_ns - start) / 1000000ull;
			return 0;
		}
		last = rc;
		{
			size_t l = strlen(why_all);
			snprintf(why_all + l, sizeof(why_all) - l, "%s%s: %s", l ? "; " : "",
				 s[i].name, why);
		}
	}
	snprintf(err, errsz, "%s; %u request%s in %.1f s", why_all[0] ? why_all : "no time left",
		 sent, sent == 1 ? "" : "s", (double)(mono_ns() - start) / 1e9);
	return last;
}

void lb_ntp_now(const struct lb_ntp_result *res, struct timespec *ts)
{
	uint64_t d = mono_ns() - res->mono_ns + res->nsec;

	ts->tv_sec = (time_t)(res->sec + (int64_t)(d / 1000000000ull));
	ts->tv_nsec = (long)(d % 1000000000ull);
}

const char *lb_ntp_fmt(int64_t sec, char *buf, size_t size)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, size, "@%lld", (long long)sec);
	return buf;
}
