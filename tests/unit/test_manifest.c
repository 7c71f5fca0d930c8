/* The boot manifest: canonical round trip, strict parsing (caps, duplicate,
 * unknown and out-of-order keys), and the check's reasons. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "t.h"

static const char good[] =
	"lboot-manifest 1\n"
	"entry debian-6.1.0-57-amd64\n"
	"version 7\n"
	"expires 2027-06-01T12:30:05Z\n"
	"kernel sha256:0101010101010101010101010101010101010101010101010101010101010101\n"
	"kernel-authenticode sha256:0202020202020202020202020202020202020202020202020202020202020202\n"
	"initrd sha256:0303030303030303030303030303030303030303030303030303030303030303\n"
	"initrd sha256:0404040404040404040404040404040404040404040404040404040404040404\n"
	"cmdline root=UUID=1234 ro  quiet x=\"a b\"\n";

static int parse(const char *s, struct lb_manifest *m, char *err)
{
	return lb_manifest_parse((const uint8_t *)s, strlen(s), m, err, 200);
}

/* good with line `n` (0-based) replaced by repl ("" drops it; NULL keeps) */
static char *edit(int n, const char *repl)
{
	char *out = calloc(1, sizeof(good) + 40000);
	const char *s = good;
	for (int i = 0; *s; i++) {
		const char *nl = strchr(s, '\n');
		if (i == n) {
			if (*repl) {
				strcat(out, repl);
				strcat(out, "\n");
			}
		} else {
			strncat(out, s, (size_t)(nl - s) + 1);
		}
		s = nl + 1;
	}
	return out;
}

static void digests(uint8_t k[32], uint8_t a[32], uint8_t i[2][32])
{
	memset(k, 1, 32);
	memset(a, 2, 32);
	memset(i[0], 3, 32);
	memset(i[1], 4, 32);
}

int main(void)
{
	struct lb_manifest *m = malloc(sizeof(*m)), *m2 = malloc(sizeof(*m2));
	char err[200];

	TEST("manifest/parse") {
		CHECK_INT(parse(good, m, err), 0);
		CHECK_STR(m->entry, "debian-6.1.0-57-amd64");
		CHECK_INT(m->version, 7);
		CHECK_INT(m->expires, 1811853005); /* date -u -d 2027-06-01T12:30:05Z +%s */
		CHECK(m->has_authenticode);
		CHECK_INT(m->n_initrds, 2);
		CHECK(m->initrd[1][31] == 4);
		CHECK_STR(m->cmdline, "root=UUID=1234 ro  quiet x=\"a b\"");
	}
	TEST("manifest/round-trip") {
		char *t;
		size_t n;
		CHECK_INT(parse(good, m, err), 0);
		CHECK_INT(lb_manifest_format(m, &t, &n), 0);
		CHECK_INT(n, strlen(good));
		CHECK(!memcmp(t, good, n));
		CHECK_INT(lb_manifest_parse((uint8_t *)t, n, m2, err, sizeof(err)), 0);
		CHECK(!memcmp(m, m2, sizeof(*m)));
		free(t);
	}
	TEST("manifest/minimal-and-empty-cmdline") {
		const char *s = "lboot-manifest 1\nentry a\nversion 0\nexpires 1970-01-01T00:00:01Z\n"
				"kernel sha256:0101010101010101010101010101010101010101010101010101010101010101\n"
				"cmdline \n";
		CHECK_INT(parse(s, m, err), 0);
		CHECK_INT(m->n_initrds, 0);
		CHECK_INT(m->cmdline_len, 0);
		CHECK(!m->has_authenticode);
	}
	TEST("manifest/dates") {
		int64_t t;
		char out[21];
		CHECK_INT(lb_utc_parse("2024-02-29T23:59:59Z", 20, 0, &t), 0);
		lb_utc_format(t, out);
		CHECK_STR(out, "2024-02-29T23:59:59Z");
		CHECK_INT(lb_utc_parse("2023-02-29T00:00:00Z", 20, 0, &t), -EINVAL);
		CHECK_INT(lb_utc_parse("2100-02-29", 10, 1, &t), -EINVAL);
		CHECK_INT(lb_utc_parse("2000-02-29", 10, 1, &t), 0);
		CHECK_INT(t, 951782400);
		CHECK_INT(lb_utc_parse("2000-02-29", 10, 0, &t), -EINVAL);
		CHECK_INT(lb_utc_parse("2000-13-01T00:00:00Z", 20, 0, &t), -EINVAL);
		CHECK_INT(lb_utc_parse("2000-12-01T24:00:00Z", 20, 0, &t), -EINVAL);
		CHECK_INT(lb_utc_parse("2000-12-01 00:00:00Z", 20, 0, &t), -EINVAL);
		CHECK_INT(lb_utc_parse("1969-12-31T23:59:59Z", 20, 0, &t), -EINVAL);
		CHECK_INT(lb_utc_parse("9999-12-31T23:59:59Z", 20, 0, &t), 0);
		lb_utc_format(t, out);
		CHECK_STR(out, "9999-12-31T23:59:59Z");
	}
	/* each bad input refused with its reason */
	static const struct { const char *name; int line; const char *repl; int rc; const char *msg; } bad[] = {
		{ "magic", 0, "lboot-manifest 2", LB_MANIFEST_MALFORMED, "line 1" },
		{ "unknown-key", 3, "expiry 2027-06-01T12:30:05Z", LB_MANIFEST_MALFORMED, "unknown key" },
		{ "missing-entry", 1, "", LB_MANIFEST_MALFORMED, "missing key 'entry'" },
		{ "missing-kernel", 4, "", LB_MANIFEST_MALFORMED, "missing key 'kernel'" },
		{ "missing-cmdline", 8, "", LB_MANIFEST_MALFORMED, "missing key 'cmdline'" },
		{ "duplicate-version", 3, "version 8", LB_MANIFEST_MALFORMED, "duplicate key 'version'" },
		{ "duplicate-kernel", 5, "kernel sha256:0101010101010101010101010101010101010101010101010101010101010101",
		  LB_MANIFEST_MALFORMED, "duplicate key 'kernel'" },
		{ "out-of-order", 5, "initrd sha256:0303030303030303030303030303030303030303030303030303030303030303\n"
		  "kernel-authenticode sha256:0202020202020202020202020202020202020202020202020202020202020202",
		  LB_MANIFEST_MALFORMED, "out of order" },
		{ "initrd-after-cmdline", 8, "initrd sha256:0303030303030303030303030303030303030303030303030303030303030303",
		  LB_MANIFEST_MALFORMED, "missing key 'cmdline'" },
		{ "upper-hex", 4, "kernel sha256:0A01010101010101010101010101010101010101010101010101010101010101",
		  LB_MANIFEST_MALFORMED, "bad digest" },
		{ "short-digest", 4, "kernel sha256:01", LB_MANIFEST_MALFORMED, "bad digest" },
		{ "other-algorithm", 4, "kernel sha1:0101010101010101010101010101010101010101",
		  LB_MANIFEST_MALFORMED, "bad digest" },
		{ "version-leading-zero", 2, "version 07", LB_MANIFEST_MALFORMED, "bad version" },
		{ "version-overflow", 2, "version 18446744073709551616", LB_MANIFEST_MALFORMED, "bad version" },
		{ "version-negative", 2, "version -1", LB_MANIFEST_MALFORMED, "bad version" },
		{ "version-space", 2, "version 7 ", LB_MANIFEST_MALFORMED, "bad version" },
		{ "date-only", 3, "expires 2027-06-01", LB_MANIFEST_MALFORMED, "bad expiry" },
		{ "entry-space", 1, "entry a b", LB_MANIFEST_MALFORMED, "bad entry id" },
		{ "no-value", 1, "entry", LB_MANIFEST_MALFORMED, "no value" },
		{ "tab", 8, "cmdline a\tb", LB_MANIFEST_MALFORMED, "control character" },
		{ "cr", 8, "cmdline a\r", LB_MANIFEST_MALFORMED, "control character" },
		{ "empty-line", 5, "", 0, NULL }, /* dropping the optional line is fine */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[80];
		snprintf(name, sizeof(name), "manifest/bad/%s", bad[i].name);
		TEST(name) {
			char *t = edit(bad[i].line, bad[i].repl);
			err[0] = 0;
			CHECK_INT(parse(t, m, err), bad[i].rc);
			if (bad[i].msg && !strstr(err, bad[i].msg)) {
				printf("# error text \"%s\" lacks \"%s\"\n", err, bad[i].msg);
				CHECK(0);
			}
			free(t);
		}
	}
	TEST("manifest/bad/structure") {
		CHECK_INT(parse("", m, err), LB_MANIFEST_MALFORMED);
		/* no final newline */
		CHECK_INT(lb_manifest_parse((const uint8_t *)good, strlen(good) - 1, m, err, 200),
			  LB_MANIFEST_MALFORMED);
		/* a blank line */
		char *t = edit(2, "\nversion 7");
		CHECK_INT(parse(t, m, err), LB_MANIFEST_MALFORMED);
		free(t);
		/* a NUL byte */
		char buf[sizeof(good)];
		memcpy(buf, good, sizeof(good));
		buf[30] = 0;
		CHECK_INT(lb_manifest_parse((uint8_t *)buf, sizeof(good) - 1, m, err, 200),
			  LB_MANIFEST_MALFORMED);
		/* every truncation is refused */
		int ok = 0;
		for (size_t n = 0; n < strlen(good); n++)
			ok += lb_manifest_parse((const uint8_t *)good, n, m, NULL, 0) == 0;
		CHECK_INT(ok, 0);
	}
	TEST("manifest/caps") {
		char *big = malloc(LB_MANIFEST_MAX_CMDLINE + 20);
		strcpy(big, "cmdline ");
		memset(big + 8, 'x', LB_MANIFEST_MAX_CMDLINE + 1);
		big[8 + LB_MANIFEST_MAX_CMDLINE + 1] = 0;
		char *t = edit(8, big);
		CHECK_INT(parse(t, m, err), LB_MANIFEST_TOO_BIG);
		free(t);
		big[8 + LB_MANIFEST_MAX_CMDLINE] = 0; /* exactly the cap */
		t = edit(8, big);
		CHECK_INT(parse(t, m, err), 0);
		free(t);
		/* 17 initrds */
		char lines[17 * 80 + 1] = "";
		for (int i = 0; i < 17; i++)
			strcat(lines, "initrd sha256:0303030303030303030303030303030303030303030303030303030303030303\n");
		lines[strlen(lines) - 1] = 0;
		t = edit(6, lines);
		CHECK_INT(parse(t, m, err), LB_MANIFEST_TOO_BIG);
		free(t);
		/* the whole file */
		char *huge = malloc(LB_MANIFEST_MAX_FILE + 2);
		memset(huge, '\n', LB_MANIFEST_MAX_FILE + 1);
		CHECK_INT(lb_manifest_parse((uint8_t *)huge, LB_MANIFEST_MAX_FILE + 1, m, err, 200),
			  LB_MANIFEST_TOO_BIG);
		free(huge);
		/* an id over the cap */
		memset(big, 'e', 300);
		memcpy(big, "entry ", 6);
		big[6 + LB_MANIFEST_MAX_ID + 1] = 0;
		t = edit(1, big);
		CHECK_INT(parse(t, m, err), LB_MANIFEST_MALFORMED);
		free(t);
		free(big);
	}
	TEST("manifest/check") {
		uint8_t k[32], a[32], i[2][32];
		const char *what;
		int64_t now = 1700000000;
		digests(k, a, i);
		CHECK_INT(parse(good, m, err), 0);
		struct lb_manifest_boot b = { "debian-6.1.0-57-amd64", k, a, (const uint8_t(*)[32])i, 2,
					      "root=UUID=1234 ro  quiet x=\"a b\"" };
		CHECK_INT(lb_manifest_check(m, &b, now, 7, &what), 0);
		CHECK(what == NULL);
		/* version floor: 7 ok, 8 refused */
		CHECK_INT(lb_manifest_check(m, &b, now, 8, &what), LB_MANIFEST_ROLLBACK);
		CHECK_STR(what, "version");
		/* expiry: one second before ok, at it refused */
		CHECK_INT(lb_manifest_check(m, &b, m->expires - 1, 0, &what), 0);
		CHECK_INT(lb_manifest_check(m, &b, m->expires, 0, &what), LB_MANIFEST_EXPIRED);
		CHECK_STR(what, "expires");
		b.entry = "debian-6.1.0-56-amd64";
		CHECK_INT(lb_manifest_check(m, &b, now, 0, &what), LB_MANIFEST_OTHER_ENTRY);
		b.entry = "debian-6.1.0-57-amd64";
		k[0] ^= 1;
		CHECK_INT(lb_manifest_check(m, &b, now, 0, &what), LB_MANIFEST_CHANGED);
		CHECK_STR(what, "kernel");
		k[0] ^= 1;
		a[31] ^= 1;
		CHECK_INT(lb_manifest_check(m, &b, now, 0, &what), LB_MANIFEST_CHANGED);
		b.kernel_authenticode = NULL;
		CHECK_INT(lb_manifest_check(m, &b, now, 0, &what), LB_MANIFEST_CHANGED);
		a[31] ^= 1;
		b.kernel_authenticode = a;
		i[1][0] ^= 1;
		CHECK_INT(lb_manifest_check(m, &b, now, 0, &what), LB_MANIFEST_CHANGED);
		CHECK_STR(what, "initrd 2");
		i[1][0] ^= 1;
		/* initrds swapped, one dropped */
		uint8_t sw[2][32];
		memcpy(sw[0], i[1], 32);
		memcpy(sw[1], i[0], 32);
		b.initrd = (const uint8_t(*)[32])sw;
		CHECK_INT(lb_manifest_check(m, &b, now, 0, &what), LB_MANIFEST_CHANGED);
		CHECK_STR(what, "initrd 1");
		b.initrd = (const uint8_t(*)[32])i;
		b.n_initrds = 1;
		CHECK_INT(lb_manifest_check(m, &b, now, 0, &what), LB_MANIFEST_CHANGED);
		CHECK_STR(what, "initrds");
		b.n_initrds = 2;
		/* cmdline: one space more, one prefix */
		b.cmdline = "root=UUID=1234 ro quiet x=\"a b\"";
		CHECK_INT(lb_manifest_check(m, &b, now, 0, &what), LB_MANIFEST_CHANGED);
		CHECK_STR(what, "cmdline");
		b.cmdline = "root=UUID=1234 ro  quiet x=\"a b\" init=/bin/sh";
		CHECK_INT(lb_manifest_check(m, &b, now, 0, &what), LB_MANIFEST_CHANGED);
		b.cmdline = "root=UUID=1234 ro  quiet x=\"a b\"";
		CHECK_INT(lb_manifest_check(m, &b, now, 0, &what), 0);
	}
	TEST("manifest/format-refuses") {
		CHECK_INT(parse(good, m, err), 0);
		char *t;
		size_t n;
		strcpy(m->cmdline, "a\nkernel sha256:00");
		m->cmdline_len = strlen(m->cmdline);
		CHECK_INT(lb_manifest_format(m, &t, &n), -EINVAL);
		CHECK_INT(parse(good, m, err), 0);
		strcpy(m->entry, "a b");
		CHECK_INT(lb_manifest_format(m, &t, &n), -EINVAL);
	}
	free(m);
	free(m2);
	return t_done();
}
