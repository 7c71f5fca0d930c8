/*
 * SNTP: the reply checks of src/net/sntp.c on packets built here per
 * RFC 5905 figure 8, the era arithmetic (era 1 starts 2036-02-07 06:28:16
 * UTC, RFC 5905 6), and src/net/ntp.c's client against scripted servers
 * on loopback (a forked child per case: a good answer, the first request
 * lost, a stale reply before the real one, a kiss-o'-death, silence, a
 * closed port, a silent server before a good one). tests/e2e/netboot-ntp.sh
 * runs the same client against chrony.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ntp.h"
#include "sntp.h"
#include "t.h"

#define T_2026 1796342400ll          /* 2026-12-04 00:00:00 UTC */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* a server reply: LI, version, stratum, origin, transmit (others fixed) */
static void reply(uint8_t *b, unsigned li, unsigned vn, unsigned mode, unsigned stratum,
		  uint64_t orig, uint64_t xmit)
{
	memset(b, 0, LB_SNTP_LEN);
	b[0] = (uint8_t)(li << 6 | vn << 3 | mode);
	b[1] = (uint8_t)stratum;
	b[2] = 6;
	b[3] = (uint8_t)-20;
	put32(b + 12, 0x7f7f0101);
	put64(b + 16, xmit - (1ull << 32));
	put64(b + 24, orig);
	put64(b + 32, xmit);
	put64(b + 40, xmit);
}

static void parser_tests(void)
{
	const uint64_t nonce = 0x0123456789abcdefull;
	uint64_t x = lb_sntp_from_unix(T_2026, 500000000);
	uint8_t b[LB_SNTP_PKT_MAX + 1];
	struct lb_sntp_reply r;
	const char *why;

	TEST("sntp/request") {
		uint8_t q[LB_SNTP_LEN];
		lb_sntp_request(q, nonce);
		CHECK_INT(q[0], 0x23);              /* LI 0, VN 4, mode 3 */
		CHECK(get64(q + 40) == nonce);
		for (int i = 1; i < 40; i++)
			CHECK_INT(q[i], 0);
	}
	TEST("sntp/good") {
		reply(b, 0, 4, 4, 2, nonce, x);
		memset(&r, 0, sizeof(r));
		CHECK_INT(lb_sntp_parse(b, LB_SNTP_LEN, nonce, &r, &why), 0);
		CHECK_INT(r.stratum, 2);
		CHECK_INT(r.version, 4);
		CHECK_INT(r.poll, 6);
		CHECK_INT(r.precision, -20);
		CHECK(r.xmit == x);
		CHECK(r.orig == nonce);
		reply(b, 1, 3, 4, 15, nonce, x);   /* v3, leap second pending, stratum 15 */
		CHECK_INT(lb_sntp_parse(b, LB_SNTP_LEN, nonce, &r, &why), 0);
		/* extension fields / MAC after the header: ignored */
		memset(b + LB_SNTP_LEN, 0xaa, 20);
		CHECK_INT(lb_sntp_parse(b, LB_SNTP_LEN + 20, nonce, &r, &why), 0);
	}
	TEST("sntp/refused") {
		static const struct {
			unsigned li, vn, mode, stratum, len;
			int zero_xmit, other_orig, rc;
		} c[] = {
			{ 0, 4, 4, 2, 47, 0, 0, -EMSGSIZE },
			{ 0, 4, 4, 2, 0, 0, 0, -EMSGSIZE },
			{ 0, 4, 4, 2, LB_SNTP_PKT_MAX + 1, 0, 0, -EMSGSIZE },
			{ 0, 4, 3, 2, 48, 0, 0, -EPROTO },        /* a client packet */
			{ 0, 4, 5, 2, 48, 0, 0, -EPROTO },        /* broadcast */
			{ 0, 2, 4, 2, 48, 0, 0, -EPROTO },
			{ 0, 5, 4, 2, 48, 0, 0, -EPROTO },
			{ 0, 4, 4, 2, 48, 0, 1, -ESTALE },
			{ 0, 4, 4, 16, 48, 0, 0, -EAGAIN },
			{ 0, 4, 4, 255, 48, 0, 0, -EAGAIN },
			{ 3, 4, 4, 2, 48, 0, 0, -EAGAIN },
			{ 0, 4, 4, 2, 48, 1, 0, -EAGAIN },
			{ 3, 4, 4, 0, 48, 0, 0, -EAGAIN },        /* refid 7f7f0101 */
		};
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			struct lb_sntp_reply keep;
			reply(b, c[i].li, c[i].vn, c[i].mode, c[i].stratum,
			      c[i].other_orig ? nonce + 1 : nonce, c[i].zero_xmit ? 0 : x);
			memset(&keep, 0x5a, sizeof(keep));
			r = keep;
			why = NULL;
			CHECK_INT(lb_sntp_parse(b, c[i].len, nonce, &r, &why), c[i].rc);
			CHECK(why && *why);
			CHECK(!memcmp(&r, &keep, sizeof(r)));   /* untouched */
		}
	}
	TEST("sntp/kiss-code") {
		reply(b, 3, 4, 4, 0, nonce, x);
		memcpy(b + 12, "RATE", 4);
		CHECK_INT(lb_sntp_parse(b, LB_SNTP_LEN, nonce, &r, &why), -ECONNREFUSED);
		CHECK_STR(r.kiss, "RATE");
		memcpy(b + 12, "X1\0\0", 4);
		CHECK_INT(lb_sntp_parse(b, LB_SNTP_LEN, nonce, &r, &why), -ECONNREFUSED);
		CHECK_STR(r.kiss, "X1");
		/* chrony before it synchronizes: stratum 0, LI 3, refid 0 */
		memset(b + 12, 0, 4);
		CHECK_INT(lb_sntp_parse(b, LB_SNTP_LEN, nonce, &r, &why), -EAGAIN);
		memcpy(b + 12, "D\001N\377", 4);
		CHECK_INT(lb_sntp_parse(b, LB_SNTP_LEN, nonce, &r, &why), -EAGAIN);
	}
	TEST("sntp/era") {
		uint32_t ns = 1;
		/* era 0 */
		CHECK_INT(lb_sntp_unix((uint64_t)(T_2026 + 2208988800ll) << 32, T_2026, &ns), T_2026);
		CHECK_INT(ns, 0);
		CHECK_INT(lb_sntp_unix(x, T_2026 - 86400 * 365, &ns), T_2026);
		CHECK(ns >= 499999999 && ns <= 500000000);
		/* NTP seconds wrap to 0 on 2036-02-07 06:28:16 UTC: era 1 */
		CHECK_INT(lb_sntp_unix(0, T_2026, NULL), 2085978496ll);
		CHECK_INT(lb_sntp_unix(5ull << 32, T_2026 + 10 * 365 * 86400ll, NULL), 2085978501ll);
		/* just before the wrap, from either side of it */
		CHECK_INT(lb_sntp_unix(0xffffffffull << 32, T_2026, NULL), 2085978495ll);
		CHECK_INT(lb_sntp_unix(0xffffffffull << 32, 2085978496ll + 86400, NULL), 2085978495ll);
		/* a server years behind the pivot (within 68 years) stays behind */
		CHECK_INT(lb_sntp_unix((uint64_t)(978307200ll + 2208988800ll) << 32, T_2026, NULL),
			  978307200ll);
		/* 2100 seen from a 2090 pivot */
		CHECK_INT(lb_sntp_unix(lb_sntp_from_unix(4102444800ll, 0), 4102444800ll - 315360000ll,
				       NULL), 4102444800ll);
		CHECK(lb_sntp_from_unix(0, 0) == (uint64_t)2208988800ull << 32);
	}
}

/* --- the client against scripted servers ------------------------------- */

enum mode { GOOD, DROP_FIRST, STALE_FIRST, KISS, SILENT };

static pid_t server(enum mode m, unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	pid_t p;

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &al))
		return -1;
	*port = ntohs(a.sin_port);
	if ((p = fork()))
		return close(fd), p;
	for (unsigned n = 0;; n++) {
		uint8_t q[64], b[LB_SNTP_LEN];
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t k = recvfrom(fd, q, sizeof(q), 0, (struct sockaddr *)&from, &fl);
		uint64_t x = lb_sntp_from_unix(T_2026, 0);

		if (k != LB_SNTP_LEN || q[0] != 0x23)
			_exit(1);
		if (m == SILENT || (m == DROP_FIRST && !n))
			continue;
		if (m == STALE_FIRST) {
			reply(b, 0, 4, 4, 3, get64(q + 40) ^ 1, lb_sntp_from_unix(T_2026 + 1000, 0));
			sendto(fd, b, sizeof(b), 0, (struct sockaddr *)&from, fl);
		}
		reply(b, 0, 4, 4, m == KISS ? 0 : 8, get64(q + 40), x);
		if (m == KISS)
			memcpy(b + 12, "DENY", 4);
		sendto(fd, b, sizeof(b), 0, (struct sockaddr *)&from, fl);
	}
}

static void stop(pid_t p)
{
	if (p > 0) {
		kill(p, SIGKILL);
		waitpid(p, NULL, 0);
	}
}

static void at(struct lb_ntp_server *s, unsigned port)
{
	char n[32];
	snprintf(n, sizeof(n), "127.0.0.1:%u", port);
	CHECK_INT(lb_ntp_server_parse(n, s), 0);
}

static void client_tests(void)
{
	struct lb_ntp_opts o = { .timeout_ms = 1200, .pivot = T_2026 - 86400 * 30 };
	struct lb_ntp_server s[2];
	struct lb_ntp_result res;
	char err[512];
	unsigned port, port2;
	pid_t p, p2;

	TEST("ntp/parse-server") {
		struct lb_ntp_server x;
		CHECK_INT(lb_ntp_server_parse("192.0.2.1", &x), 0);
		CHECK_STR(x.name, "192.0.2.1");
		CHECK_INT(ntohs(((struct sockaddr_in *)&x.sa)->sin_port), 123);
		CHECK_INT(lb_ntp_server_parse("192.0.2.1:1123", &x), 0);
		CHECK_STR(x.name, "192.0.2.1:1123");
		CHECK_INT(ntohs(((struct sockaddr_in *)&x.sa)->sin_port), 1123);
		CHECK_INT(lb_ntp_server_parse("2001:db8::1", &x), 0);
		CHECK_INT(x.sa.ss_family, AF_INET6);
		CHECK_STR(x.name, "2001:db8::1");
		CHECK_INT(lb_ntp_server_parse("[2001:db8::1]:5", &x), 0);
		CHECK_STR(x.name, "[2001:db8::1]:5");
		const char *bad[] = { "", "ntp.example.org", "192.0.2.1:", "192.0.2.1:0",
				      "192.0.2.1:65536", "192.0.2.1:12x", "[2001:db8::1",
				      "[2001:db8::1]x", "1.2.3.4.5", "192.0.2.1:-1" };
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			CHECK_INT(lb_ntp_server_parse(bad[i], &x), -EINVAL);
		uint8_t ll[16] = { 0xfe, 0x80, [15] = 1 };
		lb_ntp_server_v6(ll, 3, &x);
		CHECK_STR(x.name, "fe80::1%3");
		CHECK_INT(((struct sockaddr_in6 *)&x.sa)->sin6_scope_id, 3);
	}
	TEST("ntp/good") {
		p = server(GOOD, &port);
		CHECK(p > 0);
		at(&s[0], port);
		CHECK_INT(lb_ntp_query(s, 1, &o, &res, err, sizeof(err)), 0);
		CHECK_INT(res.server, 0);
		CHECK_INT(res.stratum, 8);
		CHECK_INT(res.requests, 1);
		/* the server's time plus half a loopback round trip */
		CHECK(res.sec == T_2026 || res.sec == T_2026 + 1);
		struct timespec now;
		lb_ntp_now(&res, &now);
		CHECK(now.tv_sec >= T_2026 && now.tv_sec < T_2026 + 60);
		stop(p);
	}
	TEST("ntp/first-request-lost") {
		p = server(DROP_FIRST, &port);
		at(&s[0], port);
		CHECK_INT(lb_ntp_query(s, 1, &o, &res, err, sizeof(err)), 0);
		CHECK_INT(res.requests, 2);
		stop(p);
	}
	TEST("ntp/stale-reply-ignored") {
		p = server(STALE_FIRST, &port);
		at(&s[0], port);
		CHECK_INT(lb_ntp_query(s, 1, &o, &res, err, sizeof(err)), 0);
		CHECK(res.sec < T_2026 + 2);          /* not the stale reply's time */
		CHECK_INT(res.stratum, 8);
		stop(p);
	}
	TEST("ntp/kiss-o-death") {
		p = server(KISS, &port);
		at(&s[0], port);
		CHECK_INT(lb_ntp_query(s, 1, &o, &res, err, sizeof(err)), -ECONNREFUSED);
		CHECK(strstr(err, "kiss-o'-death DENY") != NULL);
		CHECK(strstr(err, "127.0.0.1:") != NULL);
		stop(p);
	}
	TEST("ntp/silent") {
		p = server(SILENT, &port);
		at(&s[0], port);
		CHECK_INT(lb_ntp_query(s, 1, &o, &res, err, sizeof(err)), -ETIMEDOUT);
		CHECK(strstr(err, "no answer") != NULL);
		CHECK(strstr(err, "; 2 requests in") != NULL);
		stop(p);
	}
	TEST("ntp/closed-port") {
		p = server(GOOD, &port);
		stop(p);                 /* the port is closed now */
		at(&s[0], port);
		CHECK_INT(lb_ntp_query(s, 1, &o, &res, err, sizeof(err)), -ECONNREFUSED);
		CHECK(strstr(err, "port unreachable") != NULL);
	}
	TEST("ntp/second-server") {
		p = server(SILENT, &port);
		p2 = server(GOOD, &port2);
		at(&s[0], port);
		at(&s[1], port2);
		CHECK_INT(lb_ntp_query(s, 2, &o, &res, err, sizeof(err)), 0);
		CHECK_INT(res.server, 1);
		CHECK_INT(res.requests, 3);
		stop(p);
		stop(p2);
	}
	TEST("ntp/no-server") {
		CHECK_INT(lb_ntp_query(s, 0, &o, &res, err, sizeof(err)), -EINVAL);
	}
}

int main(void)
{
	parser_tests();
	client_tests();
	return t_done();
}
