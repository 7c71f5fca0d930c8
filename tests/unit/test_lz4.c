/*
 * LZ4 (src/cbfs/lz4.c): XXH32 against the content checksums Debian's lz4
 * wrote, a frame from Debian's lz4 decoded and matched byte for byte, the
 * frame cbfstool writes (header fields, block sizes, stored blocks), the
 * block format's rules checked by a walker of our own (independent of
 * lboot's decoder), round trips on empty, 1, 12, 13 byte, random,
 * repetitive and real (out/bzImage) inputs, and the decoder's refusals
 * (end rules, a match before an independent block, truncation).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cbfs/cbfs.h"
#include "io.h"
#include "le.h"
#include "t.h"

/* Walks a frame as the spec reads it, without lboot's decoder: the header
 * cbfstool writes, each block's sequences (offsets 1..65535 inside the
 * block, the last 5 bytes literals, the last match 12 bytes or more
 * before the block's end), stored blocks only where they do not shrink.
 * Returns the decoded length or -1; *why names the first rule broken. */
static long walk(const uint8_t *f, size_t len, size_t *nblocks, size_t *nstored, const char **why)
{
	size_t i = 7, total = 0, bmax;

	*nblocks = *nstored = 0;
	*why = "header";
	if (len < 11 || le32(f) != 0x184D2204u || f[4] != 0x60 || (f[5] & 0x8f) ||
	    ((f[5] >> 4) & 7) < 4 || f[6] != (uint8_t)(lb_xxh32(f + 4, 2, 0) >> 8))
		return -1;
	bmax = (size_t)1 << (8 + 2 * ((f[5] >> 4) & 7));
	for (;;) {
		uint32_t b;
		size_t n, o = 0, j = 0, mstart = 0, mend = 0;
		int matched = 0;
		const uint8_t *in;

		*why = "truncated";
		if (len - i < 4)
			return -1;
		b = le32(f + i);
		i += 4;
		if (!b)
			break;
		n = b & 0x7fffffffu;
		if (n > len - i || n > bmax)
			return -1;
		in = f + i;
		i += n;
		(*nblocks)++;
		if (b & 0x80000000u) {
			(*nstored)++;
			total += n;
			continue;
		}
		while (j < n) {
			unsigned tok = in[j++];
			size_t lit = tok >> 4, ml = tok & 15, off, v;

			if (lit == 15)
				do {
					if (j >= n)
						return -1;
					v = in[j++];
					lit += v;
				} while (v == 255);
			if (lit > n - j)
				return -1;
			j += lit;
			o += lit;
			if (j == n)
				break;
			if (n - j < 2)
				return -1;
			off = le16(in + j);
			j += 2;
			*why = "offset";
			if (!off || off > o)
				return -1;
			if (ml == 15)
				do {
					*why = "truncated";
					if (j >= n)
						return -1;
					v = in[j++];
					ml += v;
				} while (v == 255);
			matched = 1;
			mstart = o;
			o += ml + 4;
			mend = o;
		}
		*why = "end rules (5 literals last, last match 12 before the end)";
		if (matched && (o - mend < 5 || o - mstart < 12))
			return -1;
		*why = "a compressed block not smaller than its data";
		if (n >= o)
			return -1;
		*why = "a block larger than the block size";
		if (o > bmax)
			return -1;
		total += o;
	}
	*why = "trailing bytes";
	if (i != len)
		return -1;
	*why = "";
	return (long)total;
}

/* encode, walk, decode with lboot's decoder, compare; the frame's length */
static size_t round_trip(const uint8_t *d, size_t n, size_t *nblocks, size_t *nstored, int *good)
{
	uint8_t *z = NULL, *back = malloc(n + 1);
	size_t zl = 0;
	const char *why;
	long w, r;

	*good = 0;
	if (!back || lb_lz4f_encode(d, n, &z, &zl)) {
		printf("# encode of %zu bytes failed\n", n);
		goto out;
	}
	if (zl > lb_lz4f_bound(n)) {
		printf("# %zu bytes: frame %zu past the bound %zu\n", n, zl, lb_lz4f_bound(n));
		goto out;
	}
	if ((w = walk(z, zl, nblocks, nstored, &why)) != (long)n) {
		printf("# %zu bytes: the frame breaks a rule: %s (walk %ld)\n", n, why, w);
		goto out;
	}
	r = lb_lz4f_decode(z, zl, back, n);
	if (r != (long)n || (n && memcmp(back, d, n))) {
		printf("# %zu bytes: decoded %ld, %s\n", n, r, r == (long)n ? "different bytes" : "wrong length");
		goto out;
	}
	*good = 1;
out:
	free(z);
	free(back);
	return zl;
}

/* Debian's lz4 -d of lboot's frame of d: 1 the same bytes, 0 not, -1 no lz4 */
static int debian_lz4(const uint8_t *d, size_t n)
{
	char zp[] = "/tmp/lboot-lz4-XXXXXX", cmd[128];
	uint8_t *z = NULL, *back = malloc(n + 1);
	size_t zl = 0, got;
	FILE *p;
	int fd, same = 0, st;

	if (system("command -v lz4 >/dev/null 2>&1")) {
		free(back);
		return -1;
	}
	if (!back || lb_lz4f_encode(d, n, &z, &zl) || (fd = mkstemp(zp)) < 0) {
		free(back);
		free(z);
		return 0;
	}
	if (lb_write_all(fd, z, zl) == 0) {
		snprintf(cmd, sizeof(cmd), "lz4 -d -c %s 2>/dev/null", zp);
		if ((p = popen(cmd, "r"))) {
			got = fread(back, 1, n + 1, p);
			st = pclose(p);
			same = st == 0 && got == n && (!n || !memcmp(back, d, n));
		}
	}
	close(fd);
	unlink(zp);
	free(z);
	free(back);
	return same;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

int main(void)
{
	TEST("lz4: XXH32 = the content checksums Debian's lz4 wrote (0, 1, 3, 16, 43 bytes)") {
		CHECK_INT(lb_xxh32((const uint8_t *)"", 0, 0), 0x02cc5d05);
		CHECK_INT(lb_xxh32((const uint8_t *)"a", 1, 0), 0x550d7456);
		CHECK_INT(lb_xxh32((const uint8_t *)"abc", 3, 0), 0x32d153ff);
		CHECK_INT(lb_xxh32((const uint8_t *)"0123456789abcdef", 16, 0), 0xc2c45b69);
		CHECK_INT(lb_xxh32((const uint8_t *)"The quick brown fox jumps over the lazy dog", 43, 0),
			  0xe85ea4de);
	}

	/* `printf 'a'x65'bcdefgh' | lz4 -1 --no-frame-crc -BI -B4` (Debian's lz4 1.9.4) */
	static const uint8_t deb[] = { 0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82, 0x0d, 0x00, 0x00, 0x00,
				       0x1f, 0x61, 0x01, 0x00, 0x2d, 0x70, 0x62, 0x63, 0x64, 0x65, 0x66,
				       0x67, 0x68, 0x00, 0x00, 0x00, 0x00 };
	uint8_t plain[72];

	memset(plain, 'a', 65);
	memcpy(plain + 65, "bcdefgh", 7);
	TEST("lz4: Debian lz4's frame decodes; lboot writes the same bytes for the same input") {
		uint8_t out[80], *z = NULL;
		size_t zl = 0;

		CHECK_INT(lb_lz4f_decode(deb, sizeof(deb), out, sizeof(out)), 72);
		CHECK(!memcmp(out, plain, 72));
		CHECK(!lb_lz4f_encode(plain, 72, &z, &zl));
		CHECK(zl == sizeof(deb) && !memcmp(z, deb, zl));
		free(z);
	}

	TEST("lz4: the decoder refuses what coreboot's would (end rules, a match before an independent block, truncation)") {
		uint8_t f[sizeof(deb)], out[80];

		/* the same frame, 2 literals after the match instead of 7 (a
		 * 67-byte block whose match ends 2 bytes before its end) */
		memcpy(f, deb, sizeof(deb));
		f[7] = 8;
		f[16] = 0x20;
		put_le32(f + 19, 0);
		CHECK_INT(lb_lz4f_decode(f, 23, out, sizeof(out)), -EBADMSG);
		/* a match at offset 2 with one byte behind it */
		memcpy(f, deb, sizeof(deb));
		f[13] = 2;
		CHECK_INT(lb_lz4f_decode(f, sizeof(f), out, sizeof(out)), -EBADMSG);
		/* every truncation of the good frame */
		for (size_t k = 0; k < sizeof(deb); k++)
			CHECK(lb_lz4f_decode(deb, k, out, sizeof(out)) < 0);
		/* too small an output */
		CHECK_INT(lb_lz4f_decode(deb, sizeof(deb), out, 71), -ENOSPC);
	}

	TEST("lz4: a second independent block may not reach into the first; a dependent one may") {
		/* two 64 KiB-size blocks: 16 stored bytes, then a block that
		 * copies them (offset 16) */
		uint8_t f[64], out[64];
		size_t o = 0;

		put_le32(f, 0x184D2204u);
		f[4] = 0x60;
		f[5] = 0x40;
		f[6] = (uint8_t)(lb_xxh32(f + 4, 2, 0) >> 8);
		o = 7;
		put_le32(f + o, 16 | 0x80000000u);
		memcpy(f + o + 4, "0123456789abcdef", 16);
		o += 20;
		put_le32(f + o, 8);
		/* 0 literals, match 4+4=8 at offset 16, then 5 literals "vwxyz" */
		f[o + 4] = 0x04;
		f[o + 5] = 16;
		f[o + 6] = 0;
		f[o + 7] = 0x50;
		memcpy(f + o + 8, "vwxyz", 5);
		put_le32(f + o, 9);
		o += 4 + 9;
		put_le32(f + o, 0);
		o += 4;
		CHECK_INT(lb_lz4f_decode(f, o, out, sizeof(out)), -EBADMSG);
		f[4] = 0x40; /* dependent blocks */
		f[6] = (uint8_t)(lb_xxh32(f + 4, 2, 0) >> 8);
		CHECK_INT(lb_lz4f_decode(f, o, out, sizeof(out)), 29);
		CHECK(!memcmp(out, "0123456789abcdef01234567vwxyz", 29));
	}

	TEST("lz4: round trips, the rules kept: empty, 1, 12, 13, 14 bytes, every size to 300") {
		uint8_t d[300];
		size_t nb, ns, zl;
		int good;

		for (size_t i = 0; i < sizeof(d); i++)
			d[i] = (uint8_t)("abcab"[i % 5] + (i % 37 == 0));
		for (size_t n = 0; n <= sizeof(d); n++) {
			zl = round_trip(d, n, &nb, &ns, &good);
			CHECK(good);
			if (!n)
				CHECK(zl == 11 && nb == 0); /* header and end mark */
			if (n && n < 13)
				CHECK(nb == 1 && ns == 1); /* all literals: longer than the data, stored */
		}
		zl = round_trip(d, 13, &nb, &ns, &good);
		CHECK(good && nb == 1);
	}

	TEST("lz4: block sizes as cbfstool picks them (64 KiB to 4 MiB), incompressible blocks stored") {
		static const size_t sizes[] = { 65536, 65537, 262144, 262145, 1048576, 1048577,
						(4u << 20) + 1000 };
		static const uint8_t bd[] = { 0x40, 0x50, 0x50, 0x60, 0x60, 0x70, 0x70 };
		size_t max = (4u << 20) + 1000;
		uint8_t *d = malloc(max), *z = NULL;

		CHECK(d != NULL);
		if (!d)
			continue;
		for (size_t i = 0; i < max; i++)
			d[i] = (uint8_t)rnd32();
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			size_t zl, nb, ns;
			int good;

			CHECK(!lb_lz4f_encode(d, sizes[k], &z, &zl));
			CHECK(z && z[5] == bd[k]);
			free(z);
			z = NULL;
			zl = round_trip(d, sizes[k], &nb, &ns, &good);
			CHECK(good);
			/* random bytes: every block stored, the frame 4 bytes a block past the data */
			CHECK(ns == nb && zl == sizes[k] + 11 + 4 * nb);
			CHECK_INT(nb, sizes[k] > (4u << 20) ? 2 : 1);
		}
		free(d);
	}

	TEST("lz4: highly repetitive: 9 MiB of zeros in three 4 MiB blocks, a period-7 pattern") {
		size_t n = 9u << 20, zl, nb, ns;
		uint8_t *d = calloc(1, n);
		int good;

		CHECK(d != NULL);
		if (!d)
			continue;
		zl = round_trip(d, n, &nb, &ns, &good);
		CHECK(good && nb == 3 && ns == 0);
		CHECK(zl < n / 200); /* LZ4's best is about 1/255 */
		for (size_t i = 0; i < n; i++)
			d[i] = (uint8_t)"lboot!\n"[i % 7];
		zl = round_trip(d, 1u << 20, &nb, &ns, &good);
		CHECK(good && zl < (1u << 20) / 200);
		free(d);
	}

	TEST("lz4: mixed text and random runs, matches across the 64 KiB window's edge") {
		size_t n = 3u << 20, nb, ns, zl;
		uint8_t *d = malloc(n);
		int good;

		CHECK(d != NULL);
		if (!d)
			continue;
		for (size_t i = 0; i < n;) {
			size_t run = 1 + rnd32() % 4000;

			if (run > n - i)
				run = n - i;
			if (rnd32() & 1) {
				for (size_t k = 0; k < run; k++)
					d[i + k] = (uint8_t)rnd32();
			} else { /* a copy of something up to 70000 bytes back */
				size_t back = 1 + rnd32() % 70000;

				for (size_t k = 0; k < run; k++)
					d[i + k] = i + k >= back ? d[i + k - back] : (uint8_t)k;
			}
			i += run;
		}
		zl = round_trip(d, n, &nb, &ns, &good);
		CHECK(good && zl < n);
		free(d);
	}

	TEST("lz4: the real kernel (out/bzImage): round trip, in well under a second") {
		char path[4096];
		uint8_t *k = NULL;
		size_t kl = 0, nb, ns, zl;
		struct timespec a, b;
		int good;
		double s;

		snprintf(path, sizeof(path), "%s/../../out/bzImage", t_files());
		if (lb_read_path(path, 64u << 20, &k, &kl)) {
			SKIP("%s not built (make out/bzImage)", path);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &a);
		zl = round_trip(k, kl, &nb, &ns, &good);
		clock_gettime(CLOCK_MONOTONIC, &b);
		s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		printf("# bzImage: %zu -> %zu bytes (%.1f%%), %zu blocks (%zu stored), encode+check+decode %.3f s under ASan\n",
		       kl, zl, 100.0 * (double)zl / (double)kl, nb, ns, s);
		CHECK(good && zl < kl);
		CHECK(s < 10.0); /* ASan and the walker included; the plain build takes < 0.1 s */
		free(k);
	}

	TEST("lz4: Debian's lz4 -d gives the same bytes: empty, 1, 12, 13 bytes, random, repetitive, text") {
		size_t n = 300000;
		uint8_t *d = malloc(n);
		int r;

		CHECK(d != NULL);
		if (!d)
			continue;
		if ((r = debian_lz4(plain, 0)) < 0) {
			SKIP("Debian's lz4 is not installed (scripts/deps.sh installs it)");
			free(d);
			continue;
		}
		CHECK(r == 1);
		CHECK(debian_lz4(plain, 1) == 1);
		CHECK(debian_lz4(plain, 12) == 1);
		CHECK(debian_lz4(plain, 13) == 1);
		CHECK(debian_lz4(plain, 72) == 1);
		for (size_t i = 0; i < n; i++)
			d[i] = (uint8_t)rnd32();
		CHECK(debian_lz4(d, n) == 1);
		memset(d, 0, n);
		CHECK(debian_lz4(d, n) == 1);
		for (size_t i = 0, k = 0; i < n; k++)
			i += (size_t)snprintf((char *)d + i, n - i, "%zu lboot %zu\n", k, k * k % 977);
		CHECK(debian_lz4(d, n - 1) == 1);
		free(d);
	}

	TEST("lz4: past LB_CBFS_MAX_DECOMP refused before any work") {
		uint8_t *z = (uint8_t *)1;
		size_t zl = 1;

		CHECK_INT(lb_lz4f_encode((const uint8_t *)"", (size_t)LB_CBFS_MAX_DECOMP + 1, &z, &zl), -E2BIG);
		CHECK(z == NULL && zl == 0);
	}
	return t_done();
}
