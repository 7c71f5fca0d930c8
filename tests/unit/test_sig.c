/*
 * minisign / signify keys and signatures against fixtures made by Debian's
 * minisign 0.11 and signify-openbsd 31 (tests/files/sig/gen.sh made them),
 * and every bad case of issue 9 that concerns signatures and keys, derived
 * from those files here. tests/host/sig.sh does the same with keys and
 * signatures generated at test time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium/crypto_generichash_blake2b.h>
#include <sodium/utils.h>

#include "io.h"
#include "sig.h"
#include "t.h"

struct file {
	uint8_t *p;
	size_t len;
};

static struct file rd(const char *name)
{
	char path[4200];
	struct file f = { 0 };

	snprintf(path, sizeof(path), "%s/sig/%s", t_files(), name);
	if (lb_read_path(path, 1 << 20, &f.p, &f.len)) {
		printf("not ok sig/fixture %s: cannot read %s\n", name, path);
		exit(1);
	}
	return f;
}

static struct lb_pubkey key(const char *name)
{
	struct lb_pubkey k;
	struct file f = rd(name);

	if (lb_pubkey_parse(f.p, f.len, &k)) {
		printf("not ok sig/fixture %s: does not parse\n", name);
		exit(1);
	}
	free(f.p);
	return k;
}

/* parse the text and verify it over msg with one trusted key */
static int check_text(const char *text, size_t tlen, const struct lb_pubkey *k,
		      const struct file *msg)
{
	struct lb_sig *s = malloc(sizeof(*s));
	struct lb_keyring kr = { k, 1, NULL, 0 };
	int rc = lb_sig_parse((const uint8_t *)text, tlen, s);

	if (!rc)
		rc = lb_sig_verify(s, &kr, msg->p, msg->len, NULL, NULL);
	free(s);
	return rc;
}

static int check_file(const char *sig, const struct lb_pubkey *k,
		      const struct file *msg)
{
	struct file f = rd(sig);
	int rc = check_text((char *)f.p, f.len, k, msg);

	free(f.p);
	return rc;
}

/* a copy of sig file `f` with line `n` (0-based) replaced by `repl` */
static char *with_line(const struct file *f, int n, const char *repl)
{
	char *out = calloc(1, f->len + strlen(repl) + 2);
	const char *s = (const char *)f->p, *e = s + f->len;
	int line = 0;

	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		size_t l = nl ? (size_t)(nl - s) + 1 : (size_t)(e - s);
		if (line == n) {
			strcat(out, repl);
			strcat(out, "\n");
		} else {
			strncat(out, s, l);
		}
		s += l;
		line++;
	}
	return out;
}

/* line n of f, without its newline, into buf */
static void get_line(const struct file *f, int n, char *buf, size_t sz)
{
	const char *s = (const char *)f->p, *e = s + f->len;

	buf[0] = 0;
	for (int line = 0; s < e; line++) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(e - s);
		if (line == n) {
			snprintf(buf, sz, "%.*s", (int)l, s);
			return;
		}
		s += l + 1;
	}
}

/* base64 of the decoded line `n` of f with bytes [at, at+len) replaced */
static void reencode(const struct file *f, int n, size_t at, const void *b,
		     size_t blen, char *out, size_t outsz)
{
	char line[512];
	uint8_t raw[128];
	size_t got = 0;

	get_line(f, n, line, sizeof(line));
	sodium_base642bin(raw, sizeof(raw), line, strlen(line), NULL, &got, NULL,
			  sodium_base64_VARIANT_ORIGINAL);
	memcpy(raw + at, b, blen);
	sodium_bin2base64(out, outsz, raw, got, sodium_base64_VARIANT_ORIGINAL);
}

int main(void)
{
	struct lb_pubkey mkey = key("mkey.pub"), okey = key("okey.pub"),
			 skey = key("skey.pub");
	struct file msg = rd("msg.txt"), other = rd("other.txt"),
		    empty = rd("empty.txt"), ms = rd("msg.txt.minisig");
	char buf[LB_SIG_MAX_FILE * 2], line[600];

	TEST("sig/pubkey-keyid-as-minisign-prints-it") {
		struct file f = rd("mkey.pub");
		char hex[17];
		get_line(&f, 0, line, sizeof(line));
		lb_keyid_hex(mkey.keyid, hex);
		const char *w = strrchr(line, ' ');
		CHECK(w && !strcmp(w + 1, hex));
		/* the bare base64 form (minisign -P) */
		struct lb_pubkey k;
		get_line(&f, 1, line, sizeof(line));
		CHECK_INT(lb_pubkey_parse((uint8_t *)line, strlen(line), &k), 0);
		CHECK(!memcmp(&k, &mkey, sizeof(k)));
		free(f.p);
	}
	TEST("sig/minisign-ED") {
		CHECK_INT(check_file("msg.txt.minisig", &mkey, &msg), 0);
		CHECK_INT(check_file("empty.txt.minisig", &mkey, &empty), 0);
		CHECK_INT(check_file("msg.txt.okey.minisig", &okey, &msg), 0);
	}
	TEST("sig/minisign-ED-precomputed-blake2b") {
		struct lb_sig *s = malloc(sizeof(*s));
		struct lb_keyring kr = { &mkey, 1, NULL, 0 };
		uint8_t h[64];
		const struct lb_pubkey *used = NULL;
		crypto_generichash_blake2b(h, 64, msg.p, msg.len, NULL, 0);
		CHECK_INT(lb_sig_parse(ms.p, ms.len, s), 0);
		CHECK_INT(s->kind, LB_SIG_MINISIGN);
		CHECK(s->prehashed);
		CHECK_STR(s->trusted, "lboot test: msg.txt");
		CHECK_INT(lb_sig_verify(s, &kr, NULL, 0, h, &used), 0);
		CHECK(used == &mkey);
		h[5] ^= 1;
		CHECK_INT(lb_sig_verify(s, &kr, NULL, 0, h, NULL), LB_SIG_BAD);
		free(s);
	}
	TEST("sig/minisign-legacy-Ed") {
		CHECK_INT(check_file("msg.txt.legacy.minisig", &mkey, &msg), 0);
		struct file f = rd("msg.txt.legacy.minisig");
		struct lb_sig *s = malloc(sizeof(*s));
		struct lb_keyring kr = { &mkey, 1, NULL, 0 };
		uint8_t h[64] = { 0 };
		CHECK_INT(lb_sig_parse(f.p, f.len, s), 0);
		CHECK(!s->prehashed);
		CHECK_INT(lb_sig_verify(s, &kr, NULL, 0, h, NULL), LB_SIG_NEED_DATA);
		free(s);
		free(f.p);
	}
	TEST("sig/signify") {
		CHECK_INT(check_file("msg.txt.sig", &skey, &msg), 0);
		struct file f = rd("msg.txt.sig");
		struct lb_sig *s = malloc(sizeof(*s));
		CHECK_INT(lb_sig_parse(f.p, f.len, s), 0);
		CHECK_INT(s->kind, LB_SIG_SIGNIFY);
		free(s);
		free(f.p);
	}
	TEST("sig/crlf-accepted") {
		size_t n = 0;
		for (size_t i = 0; i < ms.len; i++) {
			if (ms.p[i] == '\n')
				buf[n++] = '\r';
			buf[n++] = (char)ms.p[i];
		}
		CHECK_INT(check_text(buf, n, &mkey, &msg), 0);
	}
	TEST("sig/valid-signature-over-another-file") {
		CHECK_INT(check_file("other.txt.minisig", &mkey, &msg), LB_SIG_BAD);
		CHECK_INT(check_file("msg.txt.minisig", &mkey, &other), LB_SIG_BAD);
		CHECK_INT(check_file("msg.txt.sig", &skey, &other), LB_SIG_BAD);
		CHECK_INT(check_file("msg.txt.legacy.minisig", &mkey, &other), LB_SIG_BAD);
	}
	TEST("sig/flipped-byte-in-file") {
		msg.p[3] ^= 0x20;
		CHECK_INT(check_file("msg.txt.minisig", &mkey, &msg), LB_SIG_BAD);
		CHECK_INT(check_file("msg.txt.sig", &skey, &msg), LB_SIG_BAD);
		msg.p[3] ^= 0x20;
		CHECK_INT(check_file("msg.txt.minisig", &mkey, &msg), 0);
	}
	TEST("sig/unknown-key") {
		CHECK_INT(check_file("msg.txt.okey.minisig", &mkey, &msg), LB_SIG_UNKNOWN_KEY);
		CHECK_INT(check_file("msg.txt.sig", &mkey, &msg), LB_SIG_UNKNOWN_KEY);
		struct lb_keyring none = { NULL, 0, NULL, 0 };
		struct lb_sig *s = malloc(sizeof(*s));
		CHECK_INT(lb_sig_parse(ms.p, ms.len, s), 0);
		CHECK_INT(lb_sig_verify(s, &none, msg.p, msg.len, NULL, NULL), LB_SIG_UNKNOWN_KEY);
		free(s);
	}
	TEST("sig/key-id-matches-key-does-not") {
		struct lb_pubkey fake = okey;
		memcpy(fake.keyid, mkey.keyid, 8);
		CHECK_INT(check_file("msg.txt.minisig", &fake, &msg), LB_SIG_BAD);
		/* and the signature's key id rewritten to another trusted key's */
		char b64[200];
		reencode(&ms, 1, 2, okey.keyid, 8, b64, sizeof(b64));
		char *t = with_line(&ms, 1, b64);
		CHECK_INT(check_text(t, strlen(t), &okey, &msg), LB_SIG_BAD);
		free(t);
	}
	TEST("sig/trusted-comment-edited") {
		char *t = with_line(&ms, 2, "trusted comment: lboot test: msg.txt version 999");
		CHECK_INT(check_text(t, strlen(t), &mkey, &msg), LB_SIG_COMMENT);
		free(t);
		/* the global signature itself damaged */
		get_line(&ms, 3, line, sizeof(line));
		line[5] = line[5] == 'A' ? 'B' : 'A';
		t = with_line(&ms, 3, line);
		CHECK_INT(check_text(t, strlen(t), &mkey, &msg), LB_SIG_COMMENT);
		free(t);
	}
	TEST("sig/revoked-key") {
		struct lb_sig *s = malloc(sizeof(*s));
		struct lb_pubkey both[2] = { okey, mkey };
		struct lb_keyring kr = { both, 2, &mkey, 1 };
		CHECK_INT(lb_sig_parse(ms.p, ms.len, s), 0);
		CHECK_INT(lb_sig_verify(s, &kr, msg.p, msg.len, NULL, NULL), LB_SIG_REVOKED);
		kr.revoked = &okey;
		CHECK_INT(lb_sig_verify(s, &kr, msg.p, msg.len, NULL, NULL), 0);
		free(s);
	}
	TEST("sig/bad-base64") {
		get_line(&ms, 1, line, sizeof(line));
		line[10] = '*';
		char *t = with_line(&ms, 1, line);
		CHECK_INT(check_text(t, strlen(t), &mkey, &msg), LB_SIG_BASE64);
		free(t);
		get_line(&ms, 1, line, sizeof(line));
		line[strlen(line) - 1] = 'A'; /* the padding made data: 75 bytes */
		t = with_line(&ms, 1, line);
		CHECK(check_text(t, strlen(t), &mkey, &msg) < 0);
		free(t);
		struct lb_pubkey k;
		CHECK_INT(lb_pubkey_parse((const uint8_t *)"RWS3cQybTWTb!ybdKfbRuh4J7yR6GJTtBMAysdK9dYlzi0lcQCfv1LEE", 56, &k),
			  LB_SIG_BASE64);
	}
	TEST("sig/wrong-length") {
		get_line(&ms, 1, line, sizeof(line));
		char *t = with_line(&ms, 1, line + 4); /* 3 bytes short */
		CHECK_INT(check_text(t, strlen(t), &mkey, &msg), LB_SIG_LENGTH);
		free(t);
		memset(line, 'A', 400);
		line[400] = 0;
		t = with_line(&ms, 1, line); /* far too long */
		CHECK_INT(check_text(t, strlen(t), &mkey, &msg), LB_SIG_LENGTH);
		free(t);
		get_line(&ms, 3, line, sizeof(line));
		line[strlen(line) - 4] = 0; /* 63 bytes */
		t = with_line(&ms, 3, line);
		CHECK_INT(check_text(t, strlen(t), &mkey, &msg), LB_SIG_LENGTH);
		free(t);
		struct lb_pubkey k;
		CHECK_INT(lb_pubkey_parse((const uint8_t *)"RWS3cQybTWTbUybdKfbRuh4J7yR6GJTtBMAysdK9dYlzi0lc", 48, &k),
			  LB_SIG_LENGTH);
	}
	TEST("sig/wrong-algorithm") {
		char b64[200];
		reencode(&ms, 1, 0, "XY", 2, b64, sizeof(b64));
		char *t = with_line(&ms, 1, b64);
		CHECK_INT(check_text(t, strlen(t), &mkey, &msg), LB_SIG_ALGORITHM);
		free(t);
		/* signify never prehashes */
		struct file ss = rd("msg.txt.sig");
		reencode(&ss, 1, 0, "ED", 2, b64, sizeof(b64));
		t = with_line(&ss, 1, b64);
		CHECK_INT(check_text(t, strlen(t), &skey, &msg), LB_SIG_ALGORITHM);
		free(t);
		free(ss.p);
		/* a key must be Ed */
		struct file kf = rd("mkey.pub");
		reencode(&kf, 1, 0, "ED", 2, b64, sizeof(b64));
		struct lb_pubkey k;
		CHECK_INT(lb_pubkey_parse((uint8_t *)b64, strlen(b64), &k), LB_SIG_ALGORITHM);
		free(kf.p);
	}
	TEST("sig/truncated") {
		/* every prefix fails, except those that only drop the newline */
		int bad = 0;
		for (size_t n = 0; n < ms.len; n++) {
			int rc = check_text((char *)ms.p, n, &mkey, &msg);
			if (n < ms.len - 1 && rc == 0)
				bad++;
			if (rc > 0)
				bad++;
		}
		CHECK_INT(bad, 0);
		CHECK_INT(check_text((char *)ms.p, ms.len - 1, &mkey, &msg), 0);
		CHECK_INT(check_text("", 0, &mkey, &msg), LB_SIG_MALFORMED);
	}
	TEST("sig/oversized") {
		memset(buf, '\n', sizeof(buf));
		memcpy(buf, ms.p, ms.len);
		CHECK_INT(check_text(buf, LB_SIG_MAX_FILE + 1, &mkey, &msg), LB_SIG_TOO_BIG);
		CHECK_INT(check_text(buf, LB_SIG_MAX_FILE, &mkey, &msg), 0);
		/* a trusted comment over the cap */
		char *big = malloc(LB_SIG_MAX_TRUSTED + 100);
		strcpy(big, "trusted comment: ");
		memset(big + 17, 'x', LB_SIG_MAX_TRUSTED + 1);
		big[17 + LB_SIG_MAX_TRUSTED + 1] = 0;
		char *t = with_line(&ms, 2, big);
		CHECK_INT(check_text(t, strlen(t), &mkey, &msg), LB_SIG_TOO_BIG);
		free(t);
		free(big);
	}
	TEST("sig/malformed-structure") {
		char *t = with_line(&ms, 0, "untrusted: missing the word comment");
		CHECK_INT(check_text(t, strlen(t), &mkey, &msg), LB_SIG_MALFORMED);
		free(t);
		t = with_line(&ms, 2, "trusted: x");
		CHECK_INT(check_text(t, strlen(t), &mkey, &msg), LB_SIG_MALFORMED);
		free(t);
		/* content after the signature */
		snprintf(buf, sizeof(buf), "%.*sextra line\n", (int)ms.len, (char *)ms.p);
		CHECK_INT(check_text(buf, strlen(buf), &mkey, &msg), LB_SIG_MALFORMED);
		/* three lines */
		snprintf(buf, sizeof(buf), "%.*s", (int)ms.len, (char *)ms.p);
		*strstr(buf, "\ntrusted comment") = 0;
		strcat(buf, "\ntrusted comment: x\n");
		CHECK_INT(check_text(buf, strlen(buf), &mkey, &msg), LB_SIG_MALFORMED);
		/* a NUL byte */
		memcpy(buf, ms.p, ms.len);
		buf[20] = 0;
		CHECK_INT(check_text(buf, ms.len, &mkey, &msg), LB_SIG_MALFORMED);
		/* a public key given as a signature and the reverse */
		struct file kf = rd("mkey.pub");
		CHECK(check_text((char *)kf.p, kf.len, &mkey, &msg) < 0);
		struct lb_pubkey k;
		CHECK(lb_pubkey_parse(ms.p, ms.len, &k) < 0);
		free(kf.p);
	}
	TEST("sig/reasons-distinct") {
		int codes[] = { LB_SIG_NONE, LB_SIG_UNKNOWN_KEY, LB_SIG_BAD, LB_SIG_COMMENT,
				LB_SIG_REVOKED, LB_SIG_MALFORMED, LB_SIG_BASE64, LB_SIG_LENGTH,
				LB_SIG_ALGORITHM, LB_SIG_TOO_BIG, LB_SIG_NEED_DATA };
		size_t n = sizeof(codes) / sizeof(codes[0]);
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++) {
				CHECK(codes[i] != codes[j]);
				CHECK(strcmp(lb_sig_reason(codes[i]), lb_sig_reason(codes[j])));
			}
		CHECK_STR(lb_sig_reason(LB_SIG_BAD), "bad signature");
	}
	free(msg.p);
	free(other.p);
	free(empty.p);
	free(ms.p);
	return t_done();
}
