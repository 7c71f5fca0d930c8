/* lboot's kernel-log records (levels, the tag, the cut), records as
 * /dev/kmsg gives them, the boot log's ring of whole lines, and the log
 * stream: each line to the kernel log with its level, and on the console
 * only when the kernel's console level would not print it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmsg.h"
#include "log.h"
#include "t.h"

static size_t rec(char *out, size_t n, const char *s)
{
	return lb_kmsg_record(out, n, s, strlen(s));
}

static char *slurp(const char *path)
{
	static char b[8192];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof(b) - 1);

	if (fd >= 0)
		close(fd);
	b[n < 0 ? 0 : n] = 0;
	return b;
}

static void put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	fputs(s, f);
	fclose(f);
}

int main(void)
{
	char b[2048];

	TEST("levels: markers, default info") {
		const char *t;
		size_t tl;
		CHECK_INT(lb_kmsg_level(LB_LOG_ERR "lboot: x", 10, &t, &tl), 3);
		CHECK(tl == 8 && !memcmp(t, "lboot: x", 8));
		CHECK_INT(lb_kmsg_level("lboot: x", 8, &t, &tl), 6);
		CHECK_INT(lb_kmsg_level(LB_LOG_DEBUG, 2, &t, &tl), 7);
		CHECK_INT(tl, 0);
		CHECK_INT(lb_kmsg_level("\0019x", 3, &t, &tl), 6); /* not a level */
		CHECK_INT(tl, 3);
		CHECK_INT(lb_kmsg_level("\001", 1, &t, &tl), 6);
	}
	TEST("records: facility user, level, the tag once") {
		CHECK_INT(rec(b, sizeof(b), LB_LOG_ERR "lboot: boot failed: x"), 25);
		CHECK_STR(b, "<11>lboot: boot failed: x");
		CHECK(rec(b, sizeof(b), LB_LOG_WARN "lboot: w") && !strcmp(b, "<12>lboot: w"));
		CHECK(rec(b, sizeof(b), LB_LOG_NOTICE "lboot: n") && !strcmp(b, "<13>lboot: n"));
		CHECK(rec(b, sizeof(b), "lboot: i") && !strcmp(b, "<14>lboot: i"));
		CHECK(rec(b, sizeof(b), LB_LOG_DEBUG "lboot: d") && !strcmp(b, "<15>lboot: d"));
		CHECK(rec(b, sizeof(b), LB_LOG_NOTICE "lboot 0.1 starting") &&
		      !strcmp(b, "<13>lboot: lboot 0.1 starting"));
		CHECK_INT(rec(b, sizeof(b), ""), 0);
		CHECK_INT(rec(b, sizeof(b), LB_LOG_ERR), 0);
		CHECK_INT(rec(b, 8, "lboot: x"), 0);
	}
	TEST("records: long lines cut at LB_KMSG_TEXT_MAX with [...]") {
		char in[1500];
		memset(in, 'a', sizeof(in) - 1);
		in[sizeof(in) - 1] = 0;
		size_t n = rec(b, sizeof(b), in);
		CHECK_INT(n, 4 + LB_KMSG_TEXT_MAX);
		CHECK(!memcmp(b, "<14>lboot: aaa", 14));
		CHECK(!strcmp(b + n - 5, "[...]"));
		CHECK_INT(strlen(b), n);
		/* a small buffer: cut to it, NUL-terminated */
		n = rec(b, 40, in);
		CHECK_INT(n, 39);
		CHECK(!strcmp(b + n - 5, "[...]"));
	}
	TEST("parse: records as /dev/kmsg gives them") {
		struct lb_kmsg_rec r;
		const char *k = "6,339,5140900,-;NET: Registered PF_INET6 protocol family\n"
				" SUBSYSTEM=net\n";
		CHECK_INT(lb_kmsg_parse(k, strlen(k), &r), 0);
		CHECK(r.facility == 0 && r.level == 6 && r.seq == 339 && r.usec == 5140900);
		CHECK(r.tlen == 40 && !memcmp(r.text, "NET: Registered PF_INET6 protocol family", 40));
		k = "11,12,345,c,more;lboot: x\\x0ay\n";
		CHECK_INT(lb_kmsg_parse(k, strlen(k), &r), 0);
		CHECK(r.facility == 1 && r.level == 3 && r.tlen == 13);
		k = "13,1,2;lboot: old format\n";
		CHECK_INT(lb_kmsg_parse(k, strlen(k), &r), 0);
		CHECK(r.level == 5 && r.tlen == 17);
		const char *bad[] = { "", "6", "6,1", "6,1,2", "6,1,2,-", "6,1,2,-;no newline",
				      "a,1,2,-;x\n", "6,,2,-;x\n", "6,1,99999999999999999999,-;x\n",
				      "99999999,1,2,-;x\n", "6,1,2\n;x\n" };
		for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
			CHECK_INT(lb_kmsg_parse(bad[i], strlen(bad[i]), &r), -EINVAL);
		/* a NUL where a separator should be */
		CHECK_INT(lb_kmsg_parse("6,1\0002,-;x\n", 10, &r), -EINVAL);
	}
	TEST("unescape: backslashes and UTF-8 as printed, control bytes escaped") {
		static const struct { const char *in, *out; } t[] = {
			{ "cmdline=initrd=\\x5cinit.img", "cmdline=initrd=\\init.img" },
			{ "caf\\xc3\\xa9 \\x5c\\x5c", "caf\xc3\xa9 \\\\" },
			{ "a\\x0ab\\x1b\\x7f", "a\\x0ab\\x1b\\x7f" }, /* stay */
			{ "\\x41 \\x5C \\x5 \\x", "\\x41 \\x5C \\x5 \\x" }, /* not the kernel's */
			{ "\\x5cx1b", "\\x1b" },
			{ "", "" },
		};
		for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
			char ub[64];
			size_t n = strlen(t[i].in);

			memcpy(ub, t[i].in, n + 1);
			n = lb_kmsg_unescape(ub, n);
			ub[n] = 0;
			CHECK_STR(ub, t[i].out);
		}
	}
	TEST("boot log: whole lines, the newest kept") {
		char log[32];
		size_t n = 0;
		lb_bootlog_add(log, sizeof(log), &n, 6, "lboot: one", 10);
		lb_bootlog_add(log, sizeof(log), &n, 3, "lboot: two", 10);
		CHECK(n == 28 && !memcmp(log, "<6>lboot: one\n<3>lboot: two\n", 28));
		lb_bootlog_add(log, sizeof(log), &n, 5, "lboot: 3", 8);
		CHECK(n == 26 && !memcmp(log, "<3>lboot: two\n<5>lboot: 3\n", 26));
		lb_bootlog_add(log, sizeof(log), &n, 7, "x", 1);
		CHECK(n == 31 && !memcmp(log, "<3>lboot: two\n<5>lboot: 3\n<7>x\n", 31));
		/* longer than the whole buffer: its start, alone */
		lb_bootlog_add(log, sizeof(log), &n, 4, "0123456789012345678901234567890123456789", 40);
		CHECK(n == 32 && !memcmp(log, "<4>0123456789012345678901234567\n", 32));
		lb_bootlog_add(log, sizeof(log), &n, 6, "ab", 2);
		CHECK(n == 6 && !memcmp(log, "<6>ab\n", 6));
	}
	TEST("stream: kernel log with levels, console once") {
		char dir[] = "/tmp/t_kmsg.XXXXXX", km[64], con[64], pk[64], ig[64];
		int saved, fd;
		FILE *f;

		CHECK(mkdtemp(dir));
		snprintf(km, sizeof(km), "%s/kmsg", dir);
		snprintf(con, sizeof(con), "%s/console", dir);
		snprintf(pk, sizeof(pk), "%s/printk", dir);
		snprintf(ig, sizeof(ig), "%s/ignore", dir);
		put(km, "");
		put(pk, "4\t4\t1\t7\n"); /* quiet: the kernel prints levels 0..3 */
		put(ig, "N\n");
		lb_log_set_printk(pk, ig);
		fflush(stdout);
		saved = dup(1);
		fd = open(con, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 1);
		close(fd);
		f = lb_log_open(1, km);
		CHECK(f != NULL);
		fprintf(f, LB_LOG_ERR "lboot: boot failed: e\n");
		fprintf(f, "lboot: found /dev/sda1");
		fprintf(f, " ext4\n\n" LB_LOG_DEBUG "lboot: entry 0\n");
		put(pk, "8\t4\t1\t7\n"); /* loglevel=8: all of them */
		fprintf(f, LB_LOG_WARN "lboot: w\n");
		put(pk, "1\t4\t1\t7\n");
		put(ig, "Y\n"); /* printk.ignore_loglevel */
		fprintf(f, LB_LOG_DEBUG "lboot: d\n");
		put(ig, "N\n");
		fclose(f);
		/* no kernel log: every line on the console, no markers */
		f = lb_log_open(1, "/nonexistent/kmsg");
		fprintf(f, LB_LOG_ERR "lboot: no kmsg\n");
		fclose(f);
		f = lb_log_open(0, km);
		fprintf(f, LB_LOG_ERR "lboot: host\n");
		fclose(f);
		fflush(stdout);
		dup2(saved, 1);
		close(saved);
		CHECK_STR(slurp(km), "<11>lboot: boot failed: e<14>lboot: found /dev/sda1 ext4"
				     "<15>lboot: entry 0<12>lboot: w<15>lboot: d");
		CHECK_STR(slurp(con), "lboot: found /dev/sda1 ext4\n\nlboot: entry 0\n"
				      "lboot: no kmsg\nlboot: host\n");
		unlink(km), unlink(con), unlink(pk), unlink(ig), rmdir(dir);
	}
	return t_done();
}
