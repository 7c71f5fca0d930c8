/*
 * EFI 1.1 / Tiano compression: hand-assembled bitstreams (decoder checked
 * independently of our encoder), frozen golden vectors, round trips over
 * many sizes and shapes, corrupt and truncated inputs.
 */
#include <errno.h>
#include <stdint.h>

#include "le.h"
#include "t.h"
#include "uefi/tiano.h"

/* --- independent MSB-first bit writer for hand-made streams ------------- */

struct tw {
	uint8_t buf[1 << 16];
	size_t nbits;
};

static void tw_put(struct tw *w, unsigned n, uint32_t v)
{
	while (n--) {
		if ((v >> n) & 1)
			w->buf[LB_TIANO_HDR_SIZE + w->nbits / 8] |= (uint8_t)(0x80 >> (w->nbits % 8));
		w->nbits++;
	}
}

/* Finish: header with comp size = bytes written, given orig size. */
static size_t tw_done(struct tw *w, uint32_t orig)
{
	size_t comp = (w->nbits + 7) / 8;
	put_le32(w->buf, (uint32_t)comp);
	put_le32(w->buf + 4, orig);
	return LB_TIANO_HDR_SIZE + comp;
}

static unsigned pbit_of(enum lb_tiano_alg a)
{
	return a == LB_ALG_TIANO ? 5 : 4;
}

/* Block of one repeated literal: every set in single-symbol form. */
static void single_block(struct tw *w, enum lb_tiano_alg a, uint16_t size, unsigned lit)
{
	tw_put(w, 16, size);
	tw_put(w, 5, 0);
	tw_put(w, 5, 0);
	tw_put(w, 9, 0);
	tw_put(w, 9, lit);
	tw_put(w, pbit_of(a), 0);
	tw_put(w, pbit_of(a), 0);
}

/*
 * "abcabcabcabc": literals a b c, then a match of length 9 at distance 3.
 * C lengths: a, b, c and 262 (= 9 + 253) all 2 bits (codes 00 01 10 11);
 * T set: symbols 2 (long zero run) and 4 (length 2), 1 bit each, written
 * with the position-3 zero-count field; P set: single symbol 2 (distance-1
 * = 2 has bit length 2: one extra bit, 0).
 * Knobs let the corruption tests break one field at a time.
 */
struct abc_knobs {
	unsigned t_len4;     /* T length of symbol 4 (1 = valid) */
	unsigned c_number;   /* C count (263 = valid) */
	unsigned p_single;   /* P single symbol (2 = valid) */
	uint32_t orig;       /* original size in the header (12) */
};

static size_t abc_stream(struct tw *w, enum lb_tiano_alg a, const struct abc_knobs *k)
{
	memset(w, 0, sizeof(*w));
	tw_put(w, 16, 4);                 /* 4 symbols */
	tw_put(w, 5, 5);                  /* T: 5 lengths */
	tw_put(w, 3, 0);                  /* T0 */
	tw_put(w, 3, 0);                  /* T1 */
	tw_put(w, 3, 1);                  /* T2: 1 bit */
	tw_put(w, 2, 1);                  /* one zero length (T3) */
	tw_put(w, 3, k->t_len4);          /* T4 */
	tw_put(w, 9, k->c_number);        /* C: lengths for symbols 0..262 */
	tw_put(w, 1, 0); tw_put(w, 9, 97 - 20);   /* 97 zeros (T2 = code 0) */
	tw_put(w, 1, 1); tw_put(w, 1, 1); tw_put(w, 1, 1); /* 3 x length 2 (T4) */
	tw_put(w, 1, 0); tw_put(w, 9, 162 - 20);  /* 162 zeros */
	tw_put(w, 1, 1);                  /* symbol 262: length 2 */
	tw_put(w, pbit_of(a), 0);         /* P: single symbol */
	tw_put(w, pbit_of(a), k->p_single);
	tw_put(w, 2, 0); tw_put(w, 2, 1); tw_put(w, 2, 2); /* a b c */
	tw_put(w, 2, 3);                  /* match, length 9 */
	if (k->p_single > 1)
		tw_put(w, k->p_single - 1, 0); /* extra bits: distance-1 = 1 << (v-1) */
	return tw_done(w, k->orig);
}

static const struct abc_knobs abc_ok = { 1, 263, 2, 12 };

static int dec(enum lb_tiano_alg a, const uint8_t *src, size_t len, uint8_t **out, size_t *n)
{
	/* exact-size copy so ASan sees reads past the end */
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, src, len);
	int rc = lb_tiano_decompress(a, copy, len, out, n);
	free(copy);
	return rc;
}

static int dec_expect_err(enum lb_tiano_alg a, const uint8_t *src, size_t len)
{
	uint8_t *out = (uint8_t *)"unchanged";
	size_t n = 12345;
	int rc = dec(a, src, len, &out, &n);
	if (rc == 0) {
		free(out);
		return 0;
	}
	/* outputs untouched on failure */
	if (n != 12345 || strcmp((char *)out, "unchanged"))
		return 1;
	return rc;
}

static uint8_t *read_fixture(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/tiano/%s", t_files(), name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
	if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)(n > 0 ? n : 0);
	return b;
}

/* --- data generators ------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

enum shape { RANDOM, TEXT, ZEROS, REPEAT, FAR };

static uint8_t *gen(enum shape s, size_t n)
{
	static const char *words[] = { "firmware ", "volume ", "EFI ", "section\n", "the ",
				       "Tiano ", "compress ", "of ", "a " };
	uint8_t *b = malloc(n ? n : 1);
	if (!b)
		return NULL;
	for (size_t i = 0; i < n;) {
		switch (s) {
		case RANDOM:
			b[i++] = (uint8_t)rnd();
			break;
		case ZEROS:
			b[i++] = 0;
			break;
		case REPEAT:
			b[i] = (uint8_t)"0123456789abcdefg"[i % 17];
			i++;
			break;
		case TEXT: {
			const char *w = words[rnd() % 9];
			while (*w && i < n)
				b[i++] = (uint8_t)*w++;
			break;
		}
		case FAR: /* random 20 KiB blocks repeated: distances beyond 8 KiB */
			b[i] = i < 20000 ? (uint8_t)rnd() : b[i - 20000 + (i / 20000 % 2)];
			i++;
			break;
		}
	}
	return b;
}

/* Compress, check header, decode with the right algorithm and with
 * auto-detection. Returns compressed size or 0 on failure (with CHECKs). */
static size_t round_trip(enum lb_tiano_alg a, const uint8_t *data, size_t n)
{
	uint8_t *c = NULL, *d = NULL, *d2 = NULL;
	size_t cn = 0, dn = 0, dn2 = 0, ret = 0;
	uint32_t orig = 0, comp = 0;
	enum lb_tiano_alg which = (enum lb_tiano_alg)-1;

	CHECK_INT(lb_tiano_compress(a, data, n, &c, &cn), 0);
	if (!c)
		return 0;
	CHECK_INT(lb_tiano_info(c, cn, &orig, &comp), 0);
	CHECK_INT(orig, n);
	CHECK_INT(comp + 8, cn);
	CHECK_INT(dec(a, c, cn, &d, &dn), 0);
	CHECK_INT(dn, n);
	CHECK(d && (n == 0 || memcmp(d, data, n) == 0));
	CHECK_INT(lb_tiano_decompress_any(c, cn, &d2, &dn2, &which), 0);
	CHECK_INT(dn2, n);
	CHECK(d2 && (n == 0 || memcmp(d2, data, n) == 0));
	if (n)
		CHECK_INT(which, a);
	if (!t_failed_now)
		ret = cn;
	free(c);
	free(d);
	free(d2);
	return ret;
}

static int accept_calls;
static int accept_second(const uint8_t *data, size_t len, void *ctx)
{
	(void)data;
	(void)len;
	(void)ctx;
	return accept_calls++ == 1 ? 0 : -1;
}

int main(void)
{
	const enum lb_tiano_alg algs[2] = { LB_ALG_EFI11, LB_ALG_TIANO };
	static struct tw w;

	TEST("tiano/hand/single-symbol-block") {
		for (int i = 0; i < 2; i++) {
			uint8_t *out = NULL;
			size_t n = 0;
			memset(&w, 0, sizeof(w));
			single_block(&w, algs[i], 5, 'A');
			size_t len = tw_done(&w, 5);
			CHECK_INT(dec(algs[i], w.buf, len, &out, &n), 0);
			CHECK_INT(n, 5);
			CHECK(out && !memcmp(out, "AAAAA", 5));
			free(out);
		}
	}

	TEST("tiano/hand/match-and-special-zeros") {
		for (int i = 0; i < 2; i++) {
			uint8_t *out = NULL;
			size_t n = 0;
			size_t len = abc_stream(&w, algs[i], &abc_ok);
			CHECK_INT(dec(algs[i], w.buf, len, &out, &n), 0);
			CHECK_INT(n, 12);
			CHECK(out && !memcmp(out, "abcabcabcabc", 12));
			free(out);
			/* trailing bytes after comp_size (section padding) are ignored */
			w.buf[len] = 0xff;
			w.buf[len + 1] = 0xff;
			out = NULL;
			CHECK_INT(dec(algs[i], w.buf, len + 2, &out, &n), 0);
			CHECK(out && n == 12 && !memcmp(out, "abcabcabcabc", 12));
			free(out);
		}
	}

	TEST("tiano/hand/block-size-0-is-65536") {
		uint8_t *out = NULL;
		size_t n = 0;
		memset(&w, 0, sizeof(w));
		single_block(&w, LB_ALG_EFI11, 0, 'z');
		single_block(&w, LB_ALG_EFI11, 4464, 'y');
		size_t len = tw_done(&w, 70000);
		CHECK_INT(dec(LB_ALG_EFI11, w.buf, len, &out, &n), 0);
		CHECK_INT(n, 70000);
		if (out && n == 70000) {
			size_t z = 0, y = 0;
			for (size_t i = 0; i < 65536; i++)
				z += out[i] == 'z';
			for (size_t i = 65536; i < 70000; i++)
				y += out[i] == 'y';
			CHECK_INT(z, 65536);
			CHECK_INT(y, 4464);
		}
		free(out);
	}

	TEST("tiano/hand/corrupt-fields") {
		for (int i = 0; i < 2; i++) {
			enum lb_tiano_alg a = algs[i];
			struct abc_knobs k;
			size_t len;

			k = abc_ok; k.t_len4 = 2;      /* T code incomplete */
			len = abc_stream(&w, a, &k);
			CHECK_INT(dec_expect_err(a, w.buf, len), -EBADMSG);
			k = abc_ok; k.c_number = 200;  /* zero run overruns the count */
			len = abc_stream(&w, a, &k);
			CHECK_INT(dec_expect_err(a, w.buf, len), -EBADMSG);
			k = abc_ok; k.c_number = 511;  /* count above NC */
			len = abc_stream(&w, a, &k);
			CHECK_INT(dec_expect_err(a, w.buf, len), -EBADMSG);
			k = abc_ok; k.p_single = 3;    /* distance 5 > 3 bytes produced */
			len = abc_stream(&w, a, &k);
			CHECK_INT(dec_expect_err(a, w.buf, len), -EBADMSG);
			k = abc_ok; k.orig = 11;       /* match runs past the output */
			len = abc_stream(&w, a, &k);
			CHECK_INT(dec_expect_err(a, w.buf, len), -EBADMSG);
			k = abc_ok; k.orig = 13;       /* stream ends early */
			len = abc_stream(&w, a, &k);
			CHECK_INT(dec_expect_err(a, w.buf, len), -EBADMSG);
			k = abc_ok; k.orig = LB_TIANO_MAX_OUT + 1;
			len = abc_stream(&w, a, &k);
			CHECK_INT(dec_expect_err(a, w.buf, len), -EFBIG);
			/* position symbol beyond the algorithm's NP (14 / 20) */
			k = abc_ok; k.p_single = a == LB_ALG_EFI11 ? 14 : 20;
			len = abc_stream(&w, a, &k);
			CHECK_INT(dec_expect_err(a, w.buf, len), -EBADMSG);
		}
		/* over-subscribed T code: three 1-bit lengths */
		memset(&w, 0, sizeof(w));
		tw_put(&w, 16, 1);
		tw_put(&w, 5, 3);
		tw_put(&w, 3, 1); tw_put(&w, 3, 1); tw_put(&w, 3, 1); tw_put(&w, 2, 0);
		size_t len = tw_done(&w, 1);
		CHECK_INT(dec_expect_err(LB_ALG_EFI11, w.buf, len), -EBADMSG);
		/* code length longer than 16 bits: "111" + 10 ones */
		memset(&w, 0, sizeof(w));
		tw_put(&w, 16, 1);
		tw_put(&w, 5, 1);
		tw_put(&w, 3, 7); tw_put(&w, 10, 0x3ff); tw_put(&w, 1, 0);
		len = tw_done(&w, 1);
		CHECK_INT(dec_expect_err(LB_ALG_EFI11, w.buf, len), -EBADMSG);
		/* T count above NT (19) */
		memset(&w, 0, sizeof(w));
		tw_put(&w, 16, 1);
		tw_put(&w, 5, 20);
		len = tw_done(&w, 1);
		CHECK_INT(dec_expect_err(LB_ALG_EFI11, w.buf, len), -EBADMSG);
		/* single-symbol forms out of range: T 19, C 510 */
		memset(&w, 0, sizeof(w));
		tw_put(&w, 16, 1); tw_put(&w, 5, 0); tw_put(&w, 5, 19);
		len = tw_done(&w, 1);
		CHECK_INT(dec_expect_err(LB_ALG_EFI11, w.buf, len), -EBADMSG);
		memset(&w, 0, sizeof(w));
		tw_put(&w, 16, 1); tw_put(&w, 5, 0); tw_put(&w, 5, 0);
		tw_put(&w, 9, 0); tw_put(&w, 9, 510);
		len = tw_done(&w, 1);
		CHECK_INT(dec_expect_err(LB_ALG_EFI11, w.buf, len), -EBADMSG);
	}

	TEST("tiano/header") {
		uint8_t h[16] = { 0 };
		uint32_t o = 0, c = 0;
		CHECK_INT(lb_tiano_info(h, 7, &o, &c), -EBADMSG);
		CHECK_INT(lb_tiano_info(NULL, 8, &o, &c), -EINVAL);
		put_le32(h, 9);
		CHECK_INT(lb_tiano_info(h, 16, &o, &c), -EBADMSG); /* 9 + 8 > 16 */
		put_le32(h, 8);
		put_le32(h + 4, 77);
		CHECK_INT(lb_tiano_info(h, 16, &o, &c), 0);
		CHECK_INT(o, 77);
		CHECK_INT(c, 8);
		put_le32(h, 0xffffffffu);
		CHECK_INT(lb_tiano_info(h, 16, &o, &c), -EBADMSG);
		/* a declared size the stream cannot possibly produce */
		put_le32(h, 8);
		put_le32(h + 4, 64u << 20);
		uint8_t *out = NULL;
		size_t n = 0;
		CHECK_INT(dec(LB_ALG_EFI11, h, 16, &out, &n), -EBADMSG);
		CHECK_INT(lb_tiano_decompress(2, h, 16, &out, &n), -EINVAL);
		CHECK_INT(lb_tiano_compress(7, h, 16, &out, &n), -EINVAL);
		CHECK_INT(lb_tiano_decompress_cap(LB_ALG_EFI11, h, 16, LB_TIANO_MAX_OUT + 1ul, &out, &n),
			  -EINVAL);
		/* cap below the declared size */
		size_t len = abc_stream(&w, LB_ALG_EFI11, &abc_ok);
		CHECK_INT(lb_tiano_decompress_cap(LB_ALG_EFI11, w.buf, len, 11, &out, &n), -EFBIG);
		CHECK_INT(lb_tiano_decompress_cap(LB_ALG_EFI11, w.buf, len, 12, &out, &n), 0);
		CHECK_INT(n, 12);
		free(out);
	}

	TEST("tiano/golden") {
		static const char *names[] = { "hello", "header", "zeros", "far" };
		for (size_t i = 0; i < 4; i++) {
			char nm[64];
			size_t olen = 0;
			snprintf(nm, sizeof(nm), "%s.orig", names[i]);
			uint8_t *orig = read_fixture(nm, &olen);
			CHECK(orig != NULL);
			for (int k = 0; k < 2 && orig; k++) {
				size_t clen = 0, n = 0;
				uint8_t *out = NULL;
				enum lb_tiano_alg which;
				snprintf(nm, sizeof(nm), "%s.%s", names[i], k ? "tiano" : "efi");
				uint8_t *comp = read_fixture(nm, &clen);
				CHECK(comp != NULL);
				if (!comp)
					continue;
				CHECK_INT(dec(algs[k], comp, clen, &out, &n), 0);
				CHECK(out && n == olen && !memcmp(out, orig, olen));
				free(out);
				out = NULL;
				CHECK_INT(lb_tiano_decompress_any(comp, clen, &out, &n, &which), 0);
				CHECK(out && n == olen && !memcmp(out, orig, olen));
				CHECK_INT(which, algs[k]);
				free(out);
				/* every truncation fails cleanly (header kept consistent) */
				for (size_t cut = 0; cut < clen; cut++) {
					uint8_t *t = malloc(clen);
					memcpy(t, comp, clen);
					if (cut >= 8)
						put_le32(t, (uint32_t)(cut - 8));
					int rc = dec_expect_err(algs[k], t, cut);
					if (rc != -EBADMSG) {
						printf("# %s cut at %zu: %d\n", nm, cut, rc);
						t_failed_now++;
						free(t);
						break;
					}
					free(t);
				}
				free(comp);
			}
			free(orig);
		}
	}

	TEST("tiano/re-encoded-inputs") {
		/* fixtures whose first encoding also decoded under the other
		 * algorithm: the encoder must produce an unambiguous stream */
		static const char *names[2] = { "pad-efi.orig", "pad-tiano.orig" };
		for (int k = 0; k < 2; k++) {
			size_t n = 0, cn = 0, dn = 0;
			uint8_t *b = read_fixture(names[k], &n), *c = NULL, *d = NULL;
			CHECK(b != NULL && n > 500);
			if (!b)
				continue;
			CHECK(round_trip(algs[k], b, n) > 0);
			CHECK_INT(lb_tiano_compress(algs[k], b, n, &c, &cn), 0);
			CHECK_INT(dec(algs[!k], c, cn, &d, &dn), -EBADMSG);
			free(c);
			free(b);
		}
	}

	TEST("tiano/golden-window-difference") {
		/* "far" repeats 9000 random bytes at distance 9001: only Tiano's
		 * window reaches it */
		size_t e = 0, t = 0;
		free(read_fixture("far.efi", &e));
		free(read_fixture("far.tiano", &t));
		CHECK(e > 9000);
		CHECK(t < 9500 && t + 400 < e);
	}

	TEST("tiano/round-trip/sizes") {
		static const size_t sizes[] = { 0, 1, 2, 3, 4, 5, 17, 255, 256, 257, 1000, 4095,
						8191, 8192, 8193, 16383, 16384, 16385, 65535, 65536,
						65537, 100000 };
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			for (int s = RANDOM; s <= FAR; s++) {
				uint8_t *b = gen((enum shape)s, sizes[i]);
				for (int k = 0; k < 2; k++) {
					if (!round_trip(algs[k], b, sizes[i]) && t_failed_now) {
						printf("# size %zu shape %d alg %d\n", sizes[i], s, k);
						break;
					}
				}
				free(b);
				if (t_failed_now)
					break;
			}
			if (t_failed_now)
				break;
		}
	}

	TEST("tiano/round-trip/tiny-exhaustive") {
		/* every input of 1..4 bytes over {0, 1, 2}: the shortest streams
		 * (minimal block headers, single-symbol sets) */
		for (size_t n = 1; n <= 4 && !t_failed_now; n++) {
			size_t total = 1;
			for (size_t i = 0; i < n; i++)
				total *= 3;
			for (size_t v = 0; v < total && !t_failed_now; v++) {
				uint8_t b[4];
				size_t x = v;
				for (size_t i = 0; i < n; i++, x /= 3)
					b[i] = (uint8_t)(x % 3);
				for (int k = 0; k < 2; k++)
					if (!round_trip(algs[k], b, n))
						printf("# n %zu value %zu alg %d\n", n, v, k);
			}
		}
	}

	TEST("tiano/round-trip/1MiB") {
		for (int s = RANDOM; s <= FAR; s++) {
			if (s == REPEAT)
				continue;
			uint8_t *b = gen((enum shape)s, 1u << 20);
			for (int k = 0; k < 2; k++) {
				size_t cn = round_trip(algs[k], b, 1u << 20);
				CHECK(cn > 0);
				if (s == ZEROS)
					CHECK(cn < 4096);
				if (s == RANDOM)
					CHECK(cn < (1u << 20) + (1u << 20) / 100);
				if (s == TEXT)
					CHECK(cn < (1u << 20) / 3);
			}
			free(b);
		}
	}

	TEST("tiano/round-trip/far-matches") {
		uint8_t *b = gen(FAR, 200000);
		size_t e = round_trip(LB_ALG_EFI11, b, 200000);
		size_t t = round_trip(LB_ALG_TIANO, b, 200000);
		CHECK(e > 0 && t > 0 && t * 3 < e); /* Tiano's 512 KiB window wins */
		free(b);
	}

	TEST("tiano/round-trip/random-shapes") {
		for (int it = 0; it < 60 && !t_failed_now; it++) {
			size_t n = rnd() % 3000;
			uint8_t *b = malloc(n + 1);
			/* small alphabet, random runs: many short matches and lengths */
			unsigned alpha = 1 + rnd() % 8;
			for (size_t i = 0; i < n; i++)
				b[i] = (rnd() % 4 == 0 && i > 300) ? b[i - 1 - rnd() % 300]
								  : (uint8_t)(rnd() % alpha);
			round_trip(algs[it & 1], b, n);
			free(b);
		}
	}

	TEST("tiano/bit-flips") {
		/* corrupted streams must decode or fail, never misbehave (ASan) */
		size_t clen = 0, ok = 0, bad = 0;
		uint8_t *comp = read_fixture("header.efi", &clen);
		CHECK(comp != NULL);
		for (size_t bit = 64; comp && bit < clen * 8; bit += 3) {
			for (int k = 0; k < 2; k++) {
				uint8_t *out = NULL;
				size_t n = 0;
				comp[bit / 8] ^= (uint8_t)(1 << (bit % 8));
				int rc = dec(algs[k], comp, clen, &out, &n);
				comp[bit / 8] ^= (uint8_t)(1 << (bit % 8));
				if (rc == 0) {
					ok++;
					CHECK_INT(n, 3000);
					free(out);
				} else {
					bad++;
					CHECK(rc == -EBADMSG);
				}
			}
		}
		CHECK(bad > ok); /* the decoder notices most damage */
		free(comp);
	}

	TEST("tiano/any-with-accept") {
		/* "AAAAA" in single-symbol form decodes under both algorithms */
		uint8_t *out = NULL;
		size_t n = 0;
		enum lb_tiano_alg which = LB_ALG_EFI11;
		memset(&w, 0, sizeof(w));
		single_block(&w, LB_ALG_EFI11, 5, 'A');
		size_t len = tw_done(&w, 5);
		accept_calls = 0;
		CHECK_INT(lb_tiano_decompress_any_ex(w.buf, len, accept_second, NULL, &out, &n, &which), 0);
		CHECK_INT(accept_calls, 2);
		CHECK_INT(which, LB_ALG_TIANO);
		CHECK(out && n == 5 && !memcmp(out, "AAAAA", 5));
		free(out);
		out = NULL;
		CHECK_INT(lb_tiano_decompress_any(w.buf, len, &out, &n, &which), 0);
		CHECK_INT(which, LB_ALG_EFI11);
		free(out);
		/* both fail: error, outputs untouched */
		uint8_t junk[12] = { 4, 0, 0, 0, 9, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
		out = NULL;
		CHECK_INT(lb_tiano_decompress_any(junk, sizeof(junk), &out, &n, &which), -EBADMSG);
		CHECK(out == NULL);
	}

	return t_done();
}
