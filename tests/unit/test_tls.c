/* Trust anchors (PEM bundles, DER, directories; garbage refused, all or
 * nothing), the subjectAltName iPAddress check, the clock floor, and the
 * TLS client's refusals that need no server (no anchors, a silent peer). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bearssl/bearssl_ssl.h>

#include "io.h"
#include "tls.h"
#include "t.h"

static uint8_t *fixture(const char *name, size_t *len)
{
	char p[512];
	uint8_t *b;

	snprintf(p, sizeof(p), "%s/tls/%s", t_files(), name);
	if (lb_read_path(p, 1 << 20, &b, len)) {
		printf("# cannot read %s\n", p);
		return NULL;
	}
	return b;
}

static int add(struct lb_tls_anchors *a, const char *s)
{
	return lb_tls_anchors_add_mem(a, (const uint8_t *)s, strlen(s));
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (lb_write_atomic(path, p, n, 0644))
		printf("# cannot write %s\n", path);
}

int main(void)
{
	size_t bl = 0, rl = 0, el = 0, sl = 0, dl = 0, il = 0;
	uint8_t *bundle = fixture("bundle.pem", &bl), *rsa = fixture("rsa-ca.pem", &rl);
	uint8_t *ecder = fixture("ec-ca.der", &el), *srv = fixture("srv-ip.der", &sl);
	uint8_t *dns = fixture("srv-dns.der", &dl), *srvpem = fixture("srv-ip.pem", &il);

	if (!bundle || !rsa || !ecder || !srv || !dns || !srvpem) {
		printf("not ok tls/fixtures\n");
		return 1;
	}

	TEST("tls/anchors/pem-bundle") {
		struct lb_tls_anchors *a = lb_tls_anchors_new();
		CHECK(a);
		/* three certificates; comments and a PUBLIC KEY object skipped */
		CHECK_INT(lb_tls_anchors_add_mem(a, bundle, bl), 3);
		CHECK_INT(lb_tls_anchors_count(a), 3);
		CHECK_INT(lb_tls_anchors_add_mem(a, rsa, rl), 1);
		CHECK_INT(lb_tls_anchors_count(a), 4);
		lb_tls_anchors_free(a);
	}
	TEST("tls/anchors/pem-without-last-newline") {
		struct lb_tls_anchors *a = lb_tls_anchors_new();
		size_t n = rl;
		while (n && (rsa[n - 1] == '\n' || rsa[n - 1] == '\r'))
			n--;
		CHECK(n < rl);
		CHECK_INT(lb_tls_anchors_add_mem(a, rsa, n), 1);
		/* CRLF line ends */
		char *crlf = malloc(2 * rl), *o = crlf;
		for (size_t i = 0; i < rl; i++) {
			if (rsa[i] == '\n')
				*o++ = '\r';
			*o++ = (char)rsa[i];
		}
		CHECK_INT(lb_tls_anchors_add_mem(a, (uint8_t *)crlf, (size_t)(o - crlf)), 1);
		free(crlf);
		lb_tls_anchors_free(a);
	}
	TEST("tls/anchors/der") {
		struct lb_tls_anchors *a = lb_tls_anchors_new();
		CHECK_INT(lb_tls_anchors_add_mem(a, ecder, el), 1);
		/* two DER certificates one after the other */
		uint8_t *two = malloc(el + sl);
		memcpy(two, ecder, el);
		memcpy(two + el, srv, sl);
		CHECK_INT(lb_tls_anchors_add_mem(a, two, el + sl), 2);
		CHECK_INT(lb_tls_anchors_count(a), 3);
		/* ... with a byte missing at the end: all or nothing */
		CHECK_INT(lb_tls_anchors_add_mem(a, two, el + sl - 1), -EINVAL);
		CHECK_INT(lb_tls_anchors_count(a), 3);
		/* trailing junk after one certificate */
		uint8_t *junk = malloc(el + 1);
		memcpy(junk, ecder, el);
		junk[el] = 0;
		CHECK_INT(lb_tls_anchors_add_mem(a, junk, el + 1), -EINVAL);
		free(junk);
		free(two);
		lb_tls_anchors_free(a);
	}
	TEST("tls/anchors/garbage-refused") {
		struct lb_tls_anchors *a = lb_tls_anchors_new();
		uint8_t rnd[600];
		CHECK_INT(add(a, "hello, world\n"), -EINVAL);
		CHECK_INT(add(a, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), -EINVAL);
		CHECK_INT(add(a, "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n"), -EINVAL);
		CHECK_INT(add(a, "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"), -EINVAL);
		CHECK_INT(lb_tls_anchors_add_mem(a, (const uint8_t *)"", 0), -EINVAL);
		/* DER-looking random bytes */
		for (size_t i = 0; i < sizeof(rnd); i++)
			rnd[i] = (uint8_t)(i * 37 + 11);
		rnd[0] = 0x30;
		rnd[1] = 0x82;
		rnd[2] = 0x02;
		rnd[3] = 0x54;
		CHECK_INT(lb_tls_anchors_add_mem(a, rnd, sizeof(rnd)), -EINVAL);
		/* a flipped byte inside a certificate's structure */
		uint8_t *bad = malloc(el);
		memcpy(bad, ecder, el);
		bad[5] ^= 0x40;
		CHECK_INT(lb_tls_anchors_add_mem(a, bad, el), -EINVAL);
		free(bad);
		CHECK_INT(lb_tls_anchors_count(a), 0);
		lb_tls_anchors_free(a);
	}
	TEST("tls/anchors/all-or-nothing") {
		struct lb_tls_anchors *a = lb_tls_anchors_new();
		/* good certificates, then one cut off in the middle */
		char *s = malloc(bl + il);
		memcpy(s, bundle, bl);
		memcpy(s + bl, srvpem, il / 2);
		CHECK_INT(lb_tls_anchors_add_mem(a, (uint8_t *)s, bl + il / 2), -EINVAL);
		CHECK_INT(lb_tls_anchors_count(a), 0);
		/* ... then a corrupt one after them */
		memcpy(s + bl, srvpem, il);
		s[bl + 100] = '*';
		CHECK_INT(lb_tls_anchors_add_mem(a, (uint8_t *)s, bl + il), -EINVAL);
		CHECK_INT(lb_tls_anchors_count(a), 0);
		free(s);
		lb_tls_anchors_free(a);
	}
	TEST("tls/anchors/cap") {
		struct lb_tls_anchors *a = lb_tls_anchors_new();
		int rc = 0;
		for (int i = 0; i < LB_TLS_MAX_ANCHORS && rc >= 0; i++)
			rc = lb_tls_anchors_add_mem(a, ecder, el);
		CHECK_INT(lb_tls_anchors_count(a), LB_TLS_MAX_ANCHORS);
		CHECK_INT(lb_tls_anchors_add_mem(a, ecder, el), -E2BIG);
		CHECK_INT(lb_tls_anchors_count(a), LB_TLS_MAX_ANCHORS);
		lb_tls_anchors_free(a);
		a = lb_tls_anchors_new();
		uint8_t *big = calloc(1, LB_TLS_FILE_MAX + 1);
		CHECK_INT(lb_tls_anchors_add_mem(a, big, LB_TLS_FILE_MAX + 1), -EFBIG);
		free(big);
		lb_tls_anchors_free(a);
	}
	TEST("tls/anchors/directory") {
		char dir[] = "/tmp/lboot-test-tls.XXXXXX", sub[600], err[300] = "";
		struct lb_tls_anchors *a = lb_tls_anchors_new();
		if (!mkdtemp(dir)) {
			CHECK(0);
			continue;
		}
		write_file(dir, "a.pem", bundle, bl);
		write_file(dir, "b.DER", ecder, el);
		write_file(dir, "notes.txt", "garbage", 7);     /* not a CA file name */
		write_file(dir, ".hidden.pem", "garbage", 7);   /* hidden: skipped */
		snprintf(sub, sizeof(sub), "%s/sub.pem", dir);
		mkdir(sub, 0755);                               /* not a regular file */
		CHECK_INT(lb_tls_anchors_add_path(a, dir, err, sizeof(err)), 4);
		CHECK_INT(lb_tls_anchors_count(a), 4);
		/* a bad CA file: the whole directory refused, naming the file */
		write_file(dir, "c.crt", "garbage", 7);
		CHECK_INT(lb_tls_anchors_add_path(a, dir, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, "/c.crt: no certificate") != NULL);
		CHECK_INT(lb_tls_anchors_count(a), 4);
		/* a file path; a missing path */
		snprintf(sub, sizeof(sub), "%s/b.DER", dir);
		CHECK_INT(lb_tls_anchors_add_path(a, sub, err, sizeof(err)), 1);
		snprintf(sub, sizeof(sub), "%s/none.pem", dir);
		CHECK_INT(lb_tls_anchors_add_path(a, sub, err, sizeof(err)), -ENOENT);
		CHECK(strstr(err, "none.pem: No such file") != NULL);
		CHECK_INT(lb_tls_anchors_count(a), 5);
		/* an empty directory: nothing, no error */
		snprintf(sub, sizeof(sub), "%s/sub.pem", dir);
		CHECK_INT(lb_tls_anchors_add_path(a, sub, err, sizeof(err)), 0);
		lb_tls_anchors_free(a);
		const char *names[] = { "a.pem", "b.DER", "notes.txt", ".hidden.pem", "c.crt" };
		for (size_t i = 0; i < 5; i++) {
			snprintf(sub, sizeof(sub), "%s/%s", dir, names[i]);
			unlink(sub);
		}
		snprintf(sub, sizeof(sub), "%s/sub.pem", dir);
		rmdir(sub);
		rmdir(dir);
	}
	TEST("tls/san-ip") {
		static const uint8_t v4[4] = { 127, 0, 0, 1 }, v4b[4] = { 127, 0, 0, 2 };
		static const uint8_t v6[16] = { [15] = 1 };
		CHECK_INT(lb_tls_cert_ip_match(srv, sl, v4, 4), 1);
		CHECK_INT(lb_tls_cert_ip_match(srv, sl, v6, 16), 1);
		CHECK_INT(lb_tls_cert_ip_match(srv, sl, v4b, 4), 0);
		CHECK_INT(lb_tls_cert_ip_match(srv, sl, v6, 4), 0);     /* ::1's first bytes */
		CHECK_INT(lb_tls_cert_ip_match(dns, dl, v4, 4), 0);     /* DNS names only */
		CHECK_INT(lb_tls_cert_ip_match(ecder, el, v4, 4), 0);   /* no SAN */
		CHECK_INT(lb_tls_cert_ip_match(srv, sl - 1, v4, 4), -EINVAL);
		CHECK_INT(lb_tls_cert_ip_match((const uint8_t *)"\x30\x00", 2, v4, 4), -EINVAL);
		CHECK_INT(lb_tls_cert_ip_match(srv, 0, v4, 4), -EINVAL);
	}
	TEST("tls/clock-floor") {
		CHECK_INT(lb_tls_build_date("Jan  1 1970"), 0);
		CHECK_INT(lb_tls_build_date("Mar  1 2000"), 951868800);
		CHECK_INT(lb_tls_build_date("Dec  3 2026"), 1796256000);
		CHECK_INT(lb_tls_build_date("Mar  1 2100"), 4107542400LL);
		CHECK_INT(lb_tls_build_date("Foo  1 2000"), 0);
		CHECK_INT(lb_tls_build_date("Dec  3 2026x"), 0);
		CHECK_INT(lb_tls_build_date(""), 0);
		CHECK(lb_tls_build_date(__DATE__) > 1700000000);
		int64_t now = (int64_t)time(NULL);
		CHECK(lb_tls_clock(0) >= now && lb_tls_clock(0) <= now + 5);
		CHECK_INT(lb_tls_clock(now + 1000000), now + 1000000);
	}
	TEST("tls/reasons") {
		CHECK(strstr(lb_tls_reason(BR_ERR_X509_NOT_TRUSTED), "certificate not trusted"));
		CHECK(strstr(lb_tls_reason(BR_ERR_X509_BAD_SERVER_NAME), "name mismatch"));
		CHECK(strstr(lb_tls_reason(BR_ERR_X509_EXPIRED), "expired"));
		CHECK(!strncmp(lb_tls_reason(BR_ERR_RECV_FATAL_ALERT + 40), "handshake failed: ", 18));
		CHECK(!strncmp(lb_tls_reason(BR_ERR_BAD_CIPHER_SUITE), "handshake failed: ", 18));
		CHECK(lb_tls_reason(12345) != NULL);
	}
	TEST("tls/open/no-anchors") {
		struct lb_tls_anchors *a = lb_tls_anchors_new();
		struct lb_tls_config cfg = { a, 0 };
		struct lb_net_transport t = { 0 };
		char err[300] = "";
		int sv[2];
		CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv));
		CHECK_INT(lb_tls_open(&cfg, sv[0], "boot.example", 1000, &t, err, sizeof(err)), -ENOKEY);
		CHECK(strstr(err, "no trust anchors") != NULL);
		CHECK(fcntl(sv[0], F_GETFD) < 0 && errno == EBADF);   /* closed */
		CHECK(t.ctx == NULL);
		close(sv[1]);
		lb_tls_anchors_free(a);
	}
	TEST("tls/open/silent-peer-bounded") {
		struct lb_tls_anchors *a = lb_tls_anchors_new();
		struct lb_tls_config cfg = { a, 0 };
		struct lb_net_transport t = { 0 };
		char err[300] = "", hello[5];
		struct timespec t0, t1;
		int sv[2];
		CHECK_INT(lb_tls_anchors_add_mem(a, rsa, rl), 1);
		CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv));
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK_INT(lb_tls_open(&cfg, sv[0], "127.0.0.1", 300, &t, err, sizeof(err)), -ETIMEDOUT);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		CHECK(ms >= 290 && ms < 2000);
		CHECK_STR(err, "handshake failed: not done within 300 ms (the server does not answer)");
		/* it did send a TLS 1.2 ClientHello: handshake record, version */
		CHECK_INT(read(sv[1], hello, 5), 5);
		CHECK(hello[0] == 0x16 && hello[1] == 3);
		/* the peer hangs up instead */
		close(sv[1]);
		CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv));
		close(sv[1]);
		CHECK(lb_tls_open(&cfg, sv[0], "boot.example", 300, &t, err, sizeof(err)) < 0);
		CHECK(!strncmp(err, "handshake failed: ", 18));
		lb_tls_anchors_free(a);
	}
	free(bundle);
	free(rsa);
	free(ecder);
	free(srv);
	free(dns);
	free(srvpem);
	return t_done();
}
