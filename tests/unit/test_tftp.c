/*
 * TFTP client state machine tests. Packets are built here per RFC 1350,
 * 2347-2349 and 7440 (a scripted server); tests/host/fetch.sh runs the same
 * code against real servers (atftpd with windowsize, dnsmasq).
 */
#include <errno.h>
#include <stdint.h>

#include "t.h"
#include "tftp.h"

static uint8_t pkt[LB_TFTP_PKT_MAX];

static size_t data(unsigned block, size_t n, uint8_t fill)
{
	pkt[0] = 0;
	pkt[1] = 3;
	pkt[2] = (uint8_t)(block >> 8);
	pkt[3] = (uint8_t)block;
	memset(pkt + 4, fill, n);
	return 4 + n;
}

/* OACK from "name\0value\0..." given with '|' for NUL. */
static size_t oack(const char *s)
{
	size_t n = strlen(s);
	pkt[0] = 0;
	pkt[1] = 6;
	for (size_t i = 0; i < n; i++)
		pkt[2 + i] = s[i] == '|' ? 0 : (uint8_t)s[i];
	return 2 + n;
}

static size_t error(unsigned code, const char *msg)
{
	pkt[0] = 0;
	pkt[1] = 5;
	pkt[2] = 0;
	pkt[3] = (uint8_t)code;
	memcpy(pkt + 4, msg, strlen(msg) + 1);
	return 5 + strlen(msg);
}

static int is_ack(const struct lb_tftp_ev *ev, unsigned block)
{
	return ev->replylen == 4 && ev->reply[1] == 4 &&
	       (unsigned)(ev->reply[2] << 8 | ev->reply[3]) == block;
}

static void test_rrq(void)
{
	struct lb_tftp t;
	uint8_t b[600];
	size_t n;

	TEST("tftp/rrq-options") {
		struct lb_tftp_opts o = { .blksize = 1468, .windowsize = 16, .tsize = 1, .timeout = 2 };
		static const char want[] = "\0\1boot/vmlinuz\0octet\0blksize\0" "1468\0tsize\0" "0\0"
			"timeout\0" "2\0windowsize\0" "16";
		CHECK_INT(lb_tftp_init(&t, "boot/vmlinuz", &o), 0);
		CHECK_INT(lb_tftp_rrq(&t, b, sizeof(b), &n), 0);
		CHECK_INT(n, sizeof(want));
		CHECK(!memcmp(b, want, sizeof(want)));
		CHECK_INT(lb_tftp_rrq(&t, b, 20, &n), -ENOSPC);
	}
	TEST("tftp/rrq-plain") {
		static const char want[] = "\0\1pxelinux.0\0octet";
		CHECK_INT(lb_tftp_init(&t, "pxelinux.0", NULL), 0);
		CHECK_INT(lb_tftp_rrq(&t, b, sizeof(b), &n), 0);
		CHECK(n == sizeof(want) && !memcmp(b, want, n));
	}
	struct { const char *name, *file; struct lb_tftp_opts o; } bad[] = {
		{ "tftp/init/empty", "", { 0 } },
		{ "tftp/init/control-char", "a\nb", { 0 } },
		{ "tftp/init/blksize-7", "f", { .blksize = 7 } },
		{ "tftp/init/blksize-65465", "f", { .blksize = 65465 } },
		{ "tftp/init/window-65", "f", { .windowsize = 65 } },
		{ "tftp/init/timeout-256", "f", { .timeout = 256 } },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		TEST(bad[i].name)
			CHECK_INT(lb_tftp_init(&t, bad[i].file, &bad[i].o), -EINVAL);
	TEST("tftp/init/name-too-long") {
		char name[300];
		memset(name, 'a', sizeof(name) - 1);
		name[299] = 0;
		CHECK_INT(lb_tftp_init(&t, name, NULL), -EINVAL);
	}
}

/* Transfers scripted as a list of server packets and what must happen. */
static void test_transfers(void)
{
	struct lb_tftp t;
	struct lb_tftp_ev ev;

	TEST("tftp/rfc1350-three-blocks") {
		CHECK_INT(lb_tftp_init(&t, "f", NULL), 0);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(1, 512, 'a'), &ev), 0);
		CHECK(ev.datalen == 512 && ev.offset == 0 && ev.data[0] == 'a' && is_ack(&ev, 1));
		CHECK_INT(lb_tftp_feed(&t, pkt, data(2, 512, 'b'), &ev), 0);
		CHECK(ev.offset == 512 && is_ack(&ev, 2));
		CHECK_INT(lb_tftp_feed(&t, pkt, data(3, 100, 'c'), &ev), 1);
		CHECK(ev.offset == 1024 && ev.datalen == 100 && is_ack(&ev, 3));
		CHECK_INT(t.received, 1124);
		CHECK_INT(t.state, LB_TFTP_S_DONE);
		/* the server resends the last block (our ACK was lost): ACK again */
		CHECK_INT(lb_tftp_feed(&t, pkt, data(3, 100, 'c'), &ev), 1);
		CHECK(is_ack(&ev, 3) && ev.datalen == 0);
	}
	TEST("tftp/exact-multiple-ends-with-empty-block") {
		lb_tftp_init(&t, "f", NULL);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(1, 512, 0), &ev), 0);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(2, 0, 0), &ev), 1);
		CHECK(is_ack(&ev, 2) && t.received == 512);
	}
	TEST("tftp/server-ignores-options") {
		struct lb_tftp_opts o = { .blksize = 1468, .windowsize = 8, .tsize = 1 };
		lb_tftp_init(&t, "f", &o);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(1, 512, 0), &ev), 0);
		CHECK(t.blksize == 512 && t.windowsize == 1 && !t.have_tsize && is_ack(&ev, 1));
		CHECK_INT(lb_tftp_feed(&t, pkt, data(2, 3, 0), &ev), 1);
	}
	TEST("tftp/oack-window") {
		struct lb_tftp_opts o = { .blksize = 1468, .windowsize = 4, .tsize = 1 };
		lb_tftp_init(&t, "f", &o);
		CHECK_INT(lb_tftp_feed(&t, pkt, oack("blksize|1468|tsize|7000|windowsize|4|"), &ev), 0);
		CHECK(is_ack(&ev, 0));
		CHECK(t.blksize == 1468 && t.windowsize == 4 && t.have_tsize && t.tsize == 7000);
		/* a lost ACK 0: the OACK again gets ACK 0 again */
		CHECK_INT(lb_tftp_feed(&t, pkt, oack("blksize|1468|tsize|7000|windowsize|4|"), &ev), 0);
		CHECK(is_ack(&ev, 0));
		for (unsigned b = 1; b <= 4; b++) {
			CHECK_INT(lb_tftp_feed(&t, pkt, data(b, 1468, (uint8_t)b), &ev), 0);
			CHECK(b < 4 ? ev.replylen == 0 : is_ack(&ev, 4));
		}
		CHECK_INT(lb_tftp_feed(&t, pkt, data(5, 7000 - 4 * 1468, 5), &ev), 1);
		CHECK(is_ack(&ev, 5) && t.received == 7000);
	}
	TEST("tftp/oack-lower-blksize-no-window") {
		struct lb_tftp_opts o = { .blksize = 1468, .windowsize = 16 };
		lb_tftp_init(&t, "f", &o);
		CHECK_INT(lb_tftp_feed(&t, pkt, oack("BLKSIZE|1024|"), &ev), 0);
		CHECK(t.blksize == 1024 && t.windowsize == 1);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(1, 1024, 0), &ev), 0);
		CHECK(is_ack(&ev, 1));
	}
	TEST("tftp/gap-and-duplicate") {
		struct lb_tftp_opts o = { .windowsize = 4 };
		lb_tftp_init(&t, "f", &o);
		CHECK_INT(lb_tftp_feed(&t, pkt, oack("windowsize|4|"), &ev), 0);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(1, 512, 1), &ev), 0);
		CHECK(ev.replylen == 0);
		/* block 2 lost: 3 is a gap -> ACK 1 once; 4 -> nothing */
		CHECK_INT(lb_tftp_feed(&t, pkt, data(3, 512, 3), &ev), 0);
		CHECK(is_ack(&ev, 1) && ev.datalen == 0);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(4, 512, 4), &ev), 0);
		CHECK(ev.replylen == 0 && ev.datalen == 0);
		/* the server restarts from 2 */
		CHECK_INT(lb_tftp_feed(&t, pkt, data(2, 512, 2), &ev), 0);
		CHECK(ev.offset == 512 && ev.datalen == 512 && ev.replylen == 0);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(3, 512, 3), &ev), 0);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(4, 512, 4), &ev), 0);
		CHECK(ev.replylen == 0);
		/* its new window is 2..5: ACK after 5 */
		CHECK_INT(lb_tftp_feed(&t, pkt, data(5, 512, 5), &ev), 0);
		CHECK(is_ack(&ev, 5));
		/* an old duplicate is ignored, the last in-order one re-ACKed */
		CHECK_INT(lb_tftp_feed(&t, pkt, data(2, 512, 2), &ev), 0);
		CHECK(ev.replylen == 0 && ev.datalen == 0);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(5, 512, 5), &ev), 0);
		CHECK(is_ack(&ev, 5) && ev.datalen == 0);
		CHECK_INT(t.received, 2560);
		/* a new gap after more progress gets its own ACK */
		CHECK_INT(lb_tftp_feed(&t, pkt, data(7, 512, 7), &ev), 0);
		CHECK(is_ack(&ev, 5));
		CHECK_INT(lb_tftp_feed(&t, pkt, data(6, 10, 6), &ev), 1);
		CHECK_INT(t.received, 2570);
	}
	TEST("tftp/rollover-past-65535") {
		struct lb_tftp_opts o = { .blksize = 8, .tsize = 1 };
		unsigned long long n = 70000, ok = 1;
		char oa[64];
		snprintf(oa, sizeof(oa), "blksize|8|tsize|%llu|", n * 8 + 3);
		lb_tftp_init(&t, "big", &o);
		CHECK_INT(lb_tftp_feed(&t, pkt, oack(oa), &ev), 0);
		for (unsigned long long b = 1; b <= n && ok; b++) {
			int rc = lb_tftp_feed(&t, pkt, data((unsigned)(b & 0xffff), 8, 0), &ev);
			if (rc || ev.offset != (b - 1) * 8 || !is_ack(&ev, (unsigned)(b & 0xffff)))
				ok = 0;
		}
		CHECK(ok);
		CHECK_INT(lb_tftp_feed(&t, pkt, data((unsigned)((n + 1) & 0xffff), 3, 0), &ev), 1);
		CHECK_INT(t.received, n * 8 + 3);
		CHECK_INT(t.block, n + 1);
	}
	TEST("tftp/tsize-short") {
		struct lb_tftp_opts o = { .tsize = 1 };
		lb_tftp_init(&t, "f", &o);
		lb_tftp_feed(&t, pkt, oack("tsize|1000|"), &ev);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(1, 512, 0), &ev), 0);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(2, 300, 0), &ev), -EPROTO);
		CHECK_STR(t.errmsg, "transfer shorter than tsize");
	}
	TEST("tftp/tsize-exceeded") {
		struct lb_tftp_opts o = { .tsize = 1 };
		lb_tftp_init(&t, "f", &o);
		lb_tftp_feed(&t, pkt, oack("tsize|600|"), &ev);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(1, 512, 0), &ev), 0);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(2, 512, 0), &ev), -EPROTO);
		CHECK(ev.replylen > 4 && ev.reply[1] == 5);
		/* once failed, nothing more */
		CHECK_INT(lb_tftp_feed(&t, pkt, data(3, 1, 0), &ev), -EINVAL);
	}
	TEST("tftp/max-size") {
		struct lb_tftp_opts o = { .tsize = 1, .max_size = 1000 };
		lb_tftp_init(&t, "f", &o);
		CHECK_INT(lb_tftp_feed(&t, pkt, oack("tsize|1001|"), &ev), -EFBIG);
		CHECK(ev.reply[1] == 5 && ev.reply[3] == 3);
		lb_tftp_init(&t, "f", &o);       /* no tsize from the server */
		CHECK_INT(lb_tftp_feed(&t, pkt, data(1, 512, 0), &ev), 0);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(2, 512, 0), &ev), -EFBIG);
		CHECK(ev.reply[1] == 5 && ev.reply[3] == 3);
	}
	struct { const char *name, *oack; int rc; } badoack[] = {
		{ "tftp/oack/blksize-above-asked", "blksize|1469|", -EOPNOTSUPP },
		{ "tftp/oack/blksize-below-8", "blksize|7|", -EOPNOTSUPP },
		{ "tftp/oack/window-above-asked", "windowsize|17|", -EOPNOTSUPP },
		{ "tftp/oack/window-zero", "windowsize|0|", -EOPNOTSUPP },
		{ "tftp/oack/not-requested", "multicast|1|", -EOPNOTSUPP },
		{ "tftp/oack/not-a-number", "blksize|12a|", -EPROTO },
		{ "tftp/oack/empty-value", "blksize||", -EPROTO },
		{ "tftp/oack/huge-value", "tsize|99999999999999999999999|", -EPROTO },
		{ "tftp/oack/no-value", "blksize|", -EPROTO },
		{ "tftp/oack/unterminated", "blksize|512", -EPROTO },
	};
	for (size_t i = 0; i < sizeof(badoack) / sizeof(badoack[0]); i++) {
		TEST(badoack[i].name) {
			struct lb_tftp_opts o = { .blksize = 1468, .windowsize = 16, .tsize = 1 };
			lb_tftp_init(&t, "f", &o);
			CHECK_INT(lb_tftp_feed(&t, pkt, oack(badoack[i].oack), &ev), badoack[i].rc);
			CHECK(ev.replylen > 4 && ev.reply[1] == 5);
			CHECK(t.errmsg[0]);
		}
	}
	TEST("tftp/oack-without-options-asked") {
		lb_tftp_init(&t, "f", NULL);
		CHECK_INT(lb_tftp_feed(&t, pkt, oack("blksize|512|"), &ev), -EPROTO);
	}
	struct { const char *name; unsigned code; const char *msg, *want; int rc; } errs[] = {
		{ "tftp/error/not-found", 1, "File not found", "File not found", -ENOENT },
		{ "tftp/error/access", 2, "Access violation", "Access violation", -EACCES },
		{ "tftp/error/option", 8, "", "TFTP error 8", -EOPNOTSUPP },
		{ "tftp/error/other", 0, "bad\x1b[2Jterm", "bad?[2Jterm", -EIO },
	};
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		TEST(errs[i].name) {
			lb_tftp_init(&t, "f", NULL);
			CHECK_INT(lb_tftp_feed(&t, pkt, error(errs[i].code, errs[i].msg), &ev),
				  errs[i].rc);
			CHECK_STR(t.errmsg, errs[i].want);
			CHECK_INT(t.errcode, (int)errs[i].code);
			CHECK_INT(ev.replylen, 0);
		}
	}
	TEST("tftp/error-without-nul") {
		lb_tftp_init(&t, "f", NULL);
		memcpy(pkt, "\0\5\0\1nope", 8);
		CHECK_INT(lb_tftp_feed(&t, pkt, 8, &ev), -ENOENT);
		CHECK_STR(t.errmsg, "nope");
	}
	TEST("tftp/bad-packets") {
		lb_tftp_init(&t, "f", NULL);
		CHECK_INT(lb_tftp_feed(&t, pkt, 3, &ev), -EPROTO);
		lb_tftp_init(&t, "f", NULL);
		memcpy(pkt, "\0\4\0\1", 4);      /* an ACK from the server */
		CHECK_INT(lb_tftp_feed(&t, pkt, 4, &ev), -EPROTO);
		lb_tftp_init(&t, "f", NULL);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(1, 513, 0), &ev), -EPROTO);
		CHECK(ev.replylen && ev.reply[3] == 4);
	}
}

static void test_timeouts(void)
{
	struct lb_tftp t;
	struct lb_tftp_ev ev;
	uint8_t b[600];
	size_t n;

	TEST("tftp/timeout-resends-rrq-then-ack") {
		struct lb_tftp_opts o = { .retries = 3, .blksize = 1024 };
		lb_tftp_init(&t, "f", &o);
		CHECK_INT(lb_tftp_timeout(&t, b, sizeof(b), &n), 0);
		CHECK(n > 4 && b[1] == 1 && !memcmp(b + 2, "f", 2));
		CHECK_INT(lb_tftp_feed(&t, pkt, oack("blksize|1024|"), &ev), 0);
		CHECK_INT(lb_tftp_feed(&t, pkt, data(1, 1024, 0), &ev), 0);
		CHECK_INT(lb_tftp_timeout(&t, b, sizeof(b), &n), 0);
		CHECK(n == 4 && b[1] == 4 && b[3] == 1);
		CHECK_INT(lb_tftp_timeout(&t, b, sizeof(b), &n), 0);
		CHECK_INT(lb_tftp_timeout(&t, b, sizeof(b), &n), 0);
		CHECK_INT(lb_tftp_timeout(&t, b, sizeof(b), &n), -ETIMEDOUT);
		CHECK_STR(t.errmsg, "TFTP server stopped sending");
	}
	TEST("tftp/timeout-count-resets-on-data") {
		struct lb_tftp_opts o = { .retries = 2 };
		lb_tftp_init(&t, "f", &o);
		for (unsigned blk = 1; blk < 10; blk++) {
			CHECK_INT(lb_tftp_timeout(&t, b, sizeof(b), &n), 0);
			CHECK_INT(lb_tftp_timeout(&t, b, sizeof(b), &n), 0);
			CHECK_INT(lb_tftp_feed(&t, pkt, data(blk, 512, 0), &ev), 0);
		}
		lb_tftp_init(&t, "f", &o);
		lb_tftp_timeout(&t, b, sizeof(b), &n);
		lb_tftp_timeout(&t, b, sizeof(b), &n);
		CHECK_INT(lb_tftp_timeout(&t, b, sizeof(b), &n), -ETIMEDOUT);
		CHECK_STR(t.errmsg, "no answer from the TFTP server");
	}
}

int main(void)
{
	test_rrq();
	test_transfers();
	test_timeouts();
	return t_done();
}
