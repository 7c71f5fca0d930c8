/* Multi-digest context: known vectors, streaming split points, and equality
 * with coreutils' sha*sum / b2sum on fixture files. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "io.h"
#include "t.h"

/* "abc" in each algorithm (FIPS 180 examples; RFC 7693 appendix A) */
static const char *abc[LB_HASH_N] = {
	[LB_SHA1] = "a9993e364706816aba3e25717850c26c9cd0d89d",
	[LB_SHA256] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	[LB_SHA384] = "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
		      "8086072ba1e7cc2358baeca134c825a7",
	[LB_SHA512] = "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
		      "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
	[LB_BLAKE2B] = "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
		       "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923",
};

static void hexof(const struct lb_digests *d, unsigned a, char *out)
{
	lb_hex(d->d[a], lb_hash_len(a), out);
}

/* the first word of `TOOL FILE` */
static int tool_digest(const char *tool, const char *file, char *out, size_t n)
{
	char cmd[4200];
	FILE *p;
	int ok;

	snprintf(cmd, sizeof(cmd), "%s '%s' 2>/dev/null", tool, file);
	if (!(p = popen(cmd, "r")))
		return -1;
	ok = fscanf(p, "%200s", out) == 1;
	pclose(p);
	(void)n;
	return ok ? 0 : -1;
}

int main(void)
{
	static const char *tools[LB_HASH_N] = {
		[LB_SHA1] = "sha1sum", [LB_SHA256] = "sha256sum",
		[LB_SHA384] = "sha384sum", [LB_SHA512] = "sha512sum",
		[LB_BLAKE2B] = "b2sum",
	};
	char hex[2 * LB_HASH_MAXLEN + 1];

	TEST("hash/names") {
		for (unsigned a = 0; a < LB_HASH_N; a++)
			CHECK_INT(lb_hash_by_name(lb_hash_name(a)), a);
		CHECK_INT(lb_hash_by_name("md5"), -EINVAL);
		CHECK_INT(lb_hash_len(LB_HASH_N), 0);
	}
	TEST("hash/bad-mask") {
		struct lb_hash h;
		CHECK_INT(lb_hash_init(&h, 0), -EINVAL);
		CHECK_INT(lb_hash_init(&h, 1u << LB_HASH_N), -EINVAL);
	}
	TEST("hash/abc") {
		struct lb_digests d;
		CHECK_INT(lb_hash_buf(LB_HASH_ALL, "abc", 3, &d), 0);
		CHECK_INT(d.mask, LB_HASH_ALL);
		for (unsigned a = 0; a < LB_HASH_N; a++) {
			hexof(&d, a, hex);
			CHECK_STR(hex, abc[a]);
		}
	}
	TEST("hash/subset") {
		struct lb_digests d;
		unsigned m = LB_HASH_BIT(LB_SHA256) | LB_HASH_BIT(LB_BLAKE2B);
		CHECK_INT(lb_hash_buf(m, "abc", 3, &d), 0);
		CHECK_INT(d.mask, m);
		hexof(&d, LB_SHA256, hex);
		CHECK_STR(hex, abc[LB_SHA256]);
		hexof(&d, LB_BLAKE2B, hex);
		CHECK_STR(hex, abc[LB_BLAKE2B]);
		for (int i = 0; i < LB_HASH_MAXLEN; i++)
			CHECK(d.d[LB_SHA1][i] == 0);
	}
	TEST("hash/streaming-splits") {
		/* 1000 bytes fed in every split shape equal the one-shot */
		uint8_t buf[1000];
		struct lb_digests one, d;
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)(i * 7 + 3);
		CHECK_INT(lb_hash_buf(LB_HASH_ALL, buf, sizeof(buf), &one), 0);
		for (size_t step = 1; step < 300; step += 37) {
			struct lb_hash *h = malloc(sizeof(*h));
			CHECK(h && lb_hash_init(h, LB_HASH_ALL) == 0);
			for (size_t off = 0; h && off < sizeof(buf); off += step)
				lb_hash_update(h, buf + off, off + step > sizeof(buf) ?
					       sizeof(buf) - off : step);
			if (h)
				lb_hash_final(h, &d);
			CHECK(h && !memcmp(&d, &one, sizeof(d)));
			free(h);
		}
	}
	TEST("hash/unhex") {
		uint8_t d[2];
		CHECK_INT(lb_unhex("aB0f", 4, d, 2), 0);
		CHECK(d[0] == 0xab && d[1] == 0x0f);
		CHECK_INT(lb_unhex("aB0", 3, d, 2), -EINVAL);
		CHECK_INT(lb_unhex("aB0g", 4, d, 2), -EINVAL);
	}
	/* equal to coreutils on real files (the fixtures, and a kernel) */
	char path[4096];
	glob_t g;
	snprintf(path, sizeof(path), "%s/uki/debian.efi", t_files());
	if (glob("/boot/vmlinuz-*", 0, NULL, &g))
		g.gl_pathc = 0;
	for (size_t fi = 0; fi < 2; fi++) {
		const char *f = fi == 0 ? path : g.gl_pathc ? g.gl_pathv[0] : "/boot/vmlinuz-*";
		char name[64];
		snprintf(name, sizeof(name), "hash/vs-coreutils-%zu", fi);
		uint8_t *data;
		size_t len;
		if (lb_read_path(f, 256u << 20, &data, &len)) {
			printf("skip %s: cannot read %s\n", name, f);
			continue;
		}
		TEST(name) {
			struct lb_digests d;
			char want[201];
			CHECK_INT(lb_hash_buf(LB_HASH_ALL, data, len, &d), 0);
			for (unsigned a = 0; a < LB_HASH_N; a++) {
				CHECK_INT(tool_digest(tools[a], f, want, sizeof(want)), 0);
				hexof(&d, a, hex);
				CHECK_STR(hex, want);
			}
		}
		free(data);
	}
	if (g.gl_pathc)
		globfree(&g);
	return t_done();
}
