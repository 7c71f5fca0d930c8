/*
 * QR Code encoder: see qr.h. Structure as in ISO/IEC 18004:2015: data
 * codewords (byte mode, terminator, pad bytes 0xEC 0x11), Reed-Solomon over
 * GF(256) with the polynomial 0x11D and generator roots 2^0..2^(n-1), blocks
 * interleaved (the short blocks first), function patterns (finders,
 * separators, timing, alignment, format and version information, the dark
 * module), data placed in two-module columns from the bottom right, masks
 * 0..7 scored with N1 = 3, N2 = 3, N3 = 40, N4 = 10.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qr.h"

/* Table 9, versions 1..10: error correction codewords per block and the
 * number of blocks, [ecc][version]. */
static const uint8_t ecc_per_block[2][LB_QR_MAX_VERSION + 1] = {
	{ 0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18 },   /* L */
	{ 0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26 },  /* M */
};
static const uint8_t num_blocks[2][LB_QR_MAX_VERSION + 1] = {
	{ 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4 },
	{ 0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5 },
};
/* format information: the level's two bits (L = 01, M = 00) */
static const uint8_t ecc_bits[2] = { 1, 0 };

#define MAXCW 346 /* codewords of version 10 */

struct build {
	struct lb_qr *q;
	uint8_t func[LB_QR_MAX_SIZE][LB_QR_MAX_SIZE];
};

/* modules for data and error correction (everything not a function pattern) */
static int raw_modules(int v)
{
	int r = (16 * v + 128) * v + 64;

	if (v >= 2) {
		int na = v / 7 + 2;

		r -= (25 * na - 10) * na - 55;
		if (v >= 7)
			r -= 36; /* two version information blocks */
	}
	return r;
}

static int data_codewords(int v, int ecc)
{
	return raw_modules(v) / 8 - ecc_per_block[ecc][v] * num_blocks[ecc][v];
}

static void set_func(struct build *b, int x, int y, int dark)
{
	b->q->m[y][x] = !!dark;
	b->func[y][x] = 1;
}

static uint8_t gf_mul(uint8_t x, uint8_t y)
{
	unsigned z = 0;

	for (int i = 7; i >= 0; i--) {
		z = (z << 1) ^ ((z >> 7) * 0x11D);
		z ^= ((y >> i) & 1) * x;
	}
	return (uint8_t)z;
}

/* generator polynomial of degree n, leading 1 left out, highest first */
static void rs_divisor(int n, uint8_t *g)
{
	uint8_t root = 1;

	memset(g, 0, n);
	g[n - 1] = 1;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			g[j] = gf_mul(g[j], root);
			if (j + 1 < n)
				g[j] ^= g[j + 1];
		}
		root = gf_mul(root, 0x02);
	}
}

static void rs_remainder(const uint8_t *d, int len, const uint8_t *g, int n, uint8_t *r)
{
	memset(r, 0, n);
	for (int i = 0; i < len; i++) {
		uint8_t f = d[i] ^ r[0];

		memmove(r, r + 1, n - 1);
		r[n - 1] = 0;
		for (int j = 0; j < n; j++)
			r[j] ^= gf_mul(g[j], f);
	}
}

static void draw_finder(struct build *b, int cx, int cy)
{
	int n = b->q->size;

	for (int dy = -4; dy <= 4; dy++)
		for (int dx = -4; dx <= 4; dx++) {
			int x = cx + dx, y = cy + dy;
			int d = abs(dx) > abs(dy) ? abs(dx) : abs(dy);

			if (x >= 0 && x < n && y >= 0 && y < n)
				set_func(b, x, y, d != 2 && d != 4);
		}
}

static void draw_alignment(struct build *b, int cx, int cy)
{
	for (int dy = -2; dy <= 2; dy++)
		for (int dx = -2; dx <= 2; dx++) {
			int d = abs(dx) > abs(dy) ? abs(dx) : abs(dy);

			set_func(b, cx + dx, cy + dy, d != 1);
		}
}

/* alignment pattern centre coordinates (Annex E); returns how many */
static int alignment_pos(int v, int *pos)
{
	int na, step, size = 17 + 4 * v;

	if (v == 1)
		return 0;
	na = v / 7 + 2;
	step = (v * 4 + na * 2 + 1) / (na * 2 - 2) * 2;
	pos[0] = 6;
	for (int i = na - 1, p = size - 7; i >= 1; i--, p -= step)
		pos[i] = p;
	return na;
}

static void draw_format(struct build *b, int mask)
{
	int n = b->q->size;
	unsigned d = (unsigned)ecc_bits[b->q->ecc] << 3 | (unsigned)mask, r = d, bits;

	for (int i = 0; i < 10; i++)
		r = (r << 1) ^ ((r >> 9) * 0x537);
	bits = (d << 10 | r) ^ 0x5412;
#define BIT(i) ((bits >> (i)) & 1)
	for (int i = 0; i <= 5; i++)
		set_func(b, 8, i, BIT(i));
	set_func(b, 8, 7, BIT(6));
	set_func(b, 8, 8, BIT(7));
	set_func(b, 7, 8, BIT(8));
	for (int i = 9; i < 15; i++)
		set_func(b, 14 - i, 8, BIT(i));
	for (int i = 0; i < 8; i++)
		set_func(b, n - 1 - i, 8, BIT(i));
	for (int i = 8; i < 15; i++)
		set_func(b, 8, n - 15 + i, BIT(i));
#undef BIT
	set_func(b, 8, n - 8, 1); /* the dark module */
}

static void draw_version(struct build *b)
{
	int n = b->q->size, v = b->q->version;
	unsigned r = (unsigned)v, bits;

	if (v < 7)
		return;
	for (int i = 0; i < 12; i++)
		r = (r << 1) ^ ((r >> 11) * 0x1F25);
	bits = (unsigned)v << 12 | r;
	for (int i = 0; i < 18; i++) {
		int bit = (bits >> i) & 1, a = n - 11 + i % 3, c = i / 3;

		set_func(b, a, c, bit);
		set_func(b, c, a, bit);
	}
}

static void draw_function(struct build *b)
{
	int n = b->q->size, pos[7], na;

	for (int i = 0; i < n; i++) {
		set_func(b, 6, i, i % 2 == 0);
		set_func(b, i, 6, i % 2 == 0);
	}
	draw_finder(b, 3, 3);
	draw_finder(b, n - 4, 3);
	draw_finder(b, 3, n - 4);
	na = alignment_pos(b->q->version, pos);
	for (int i = 0; i < na; i++)
		for (int j = 0; j < na; j++) {
			if ((i == 0 && j == 0) || (i == 0 && j == na - 1) || (i == na - 1 && j == 0))
				continue;
			draw_alignment(b, pos[i], pos[j]);
		}
	draw_format(b, 0); /* reserves the modules; drawn again with the mask */
	draw_version(b);
}

static void draw_codewords(struct build *b, const uint8_t *cw, int ncw)
{
	int n = b->q->size;
	long i = 0, nbits = (long)ncw * 8;

	for (int right = n - 1; right >= 1; right -= 2) {
		if (right == 6)
			right = 5;
		for (int vert = 0; vert < n; vert++)
			for (int j = 0; j < 2; j++) {
				int x = right - j, up = ((right + 1) & 2) == 0;
				int y = up ? n - 1 - vert : vert;

				if (b->func[y][x])
					continue;
				/* remainder bits (0..7 of them) stay light */
				b->q->m[y][x] = i < nbits ? (cw[i >> 3] >> (7 - (i & 7))) & 1 : 0;
				i++;
			}
	}
}

static int mask_bit(int mask, int x, int y)
{
	switch (mask) {
	case 0: return (x + y) % 2 == 0;
	case 1: return y % 2 == 0;
	case 2: return x % 3 == 0;
	case 3: return (x + y) % 3 == 0;
	case 4: return (x / 3 + y / 2) % 2 == 0;
	case 5: return x * y % 2 + x * y % 3 == 0;
	case 6: return (x * y % 2 + x * y % 3) % 2 == 0;
	default: return ((x + y) % 2 + x * y % 3) % 2 == 0;
	}
}

static void apply_mask(struct build *b, int mask)
{
	int n = b->q->size;

	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			if (!b->func[y][x] && mask_bit(mask, x, y))
				b->q->m[y][x] ^= 1;
}

int lb_qr_get(const struct lb_qr *q, int x, int y)
{
	if (x < 0 || y < 0 || x >= q->size || y >= q->size)
		return 0;
	return q->m[y][x];
}

/* module i along a line: a row (horiz) or a column */
static int line_get(const struct lb_qr *q, int horiz, int line, int i)
{
	return horiz ? lb_qr_get(q, i, line) : lb_qr_get(q, line, i);
}

long lb_qr_penalty(const struct lb_qr *q)
{
	static const uint8_t pat[11] = { 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0 };
	int n = q->size;
	long p = 0, dark = 0, total = (long)n * n, k;

	for (int h = 0; h < 2; h++)
		for (int l = 0; l < n; l++) {
			int run = 1;

			/* N1: five or more alike in a row or column */
			for (int i = 1; i <= n; i++) {
				if (i < n && line_get(q, h, l, i) == line_get(q, h, l, i - 1)) {
					run++;
					continue;
				}
				if (run >= 5)
					p += 3 + (run - 5);
				run = 1;
			}
			/* N3: 1:1:3:1:1 with four light modules before or after
			 * (the quiet zone counts as light) */
			for (int i = -4; i < n; i++) {
				int fwd = 1, back = 1;

				for (int j = 0; j < 11; j++) {
					int m = line_get(q, h, l, i + j);

					fwd &= m == pat[j];
					back &= m == pat[10 - j];
				}
				p += 40 * (fwd + back);
			}
		}
	/* N2: 2x2 blocks of one colour */
	for (int y = 0; y + 1 < n; y++)
		for (int x = 0; x + 1 < n; x++) {
			int c = q->m[y][x];

			if (c == q->m[y][x + 1] && c == q->m[y + 1][x] && c == q->m[y + 1][x + 1])
				p += 3;
		}
	/* N4: each 5 % step of the dark share away from 50 % */
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			dark += q->m[y][x];
	k = (labs(dark * 20 - total * 10) + total - 1) / total - 1;
	if (k > 0)
		p += k * 10;
	return p;
}

int lb_qr_encode(const uint8_t *data, size_t len, int ecc, int mask, struct lb_qr *q)
{
	struct build b;
	uint8_t cw[MAXCW], out[MAXCW], g[32];
	int v, ndc, ccbits, nb, eb, raw, nshort, shortlen;
	long bit = 0;

	if ((ecc != LB_QR_ECC_L && ecc != LB_QR_ECC_M) || mask < -1 || mask > 7 ||
	    (!data && len) || !q)
		return -EINVAL;
	for (v = 1; v <= LB_QR_MAX_VERSION; v++) {
		ccbits = v <= 9 ? 8 : 16;
		if (len < (1u << ccbits) &&
		    4 + ccbits + 8 * (long)len <= 8L * data_codewords(v, ecc))
			break;
	}
	if (v > LB_QR_MAX_VERSION)
		return -EMSGSIZE;
	ndc = data_codewords(v, ecc);

	/* the data codewords: mode 0100, count, bytes, terminator, pad */
	memset(cw, 0, sizeof(cw));
#define PUT(val, nbits) do {							\
		for (int _i = (nbits) - 1; _i >= 0; _i--, bit++)		\
			cw[bit >> 3] |= (((val) >> _i) & 1) << (7 - (bit & 7));	\
	} while (0)
	PUT(4u, 4);
	PUT((unsigned)len, ccbits);
	for (size_t i = 0; i < len; i++)
		PUT(data[i], 8);
	for (int t = 0; t < 4 && bit < 8L * ndc; t++)
		bit++;
#undef PUT
	bit = (bit + 7) / 8;
	for (int i = 0; bit < ndc; i++, bit++)
		cw[bit] = i % 2 ? 0x11 : 0xEC;

	/* error correction per block, then interleave */
	nb = num_blocks[ecc][v];
	eb = ecc_per_block[ecc][v];
	raw = raw_modules(v) / 8;
	nshort = nb - raw % nb;
	shortlen = raw / nb; /* data + ecc of a short block */
	rs_divisor(eb, g);
	{
		int k = 0, o = 0;
		int dstart[8], dlen[8];
		uint8_t e[8][32];

		for (int i = 0; i < nb; i++) {
			dlen[i] = shortlen - eb + (i < nshort ? 0 : 1);
			dstart[i] = k;
			rs_remainder(cw + k, dlen[i], g, eb, e[i]);
			k += dlen[i];
		}
		for (int i = 0; i < shortlen - eb + 1; i++)
			for (int j = 0; j < nb; j++)
				if (i < dlen[j])
					out[o++] = cw[dstart[j] + i];
		for (int i = 0; i < eb; i++)
			for (int j = 0; j < nb; j++)
				out[o++] = e[j][i];
		if (o != raw)
			return -EINVAL; /* cannot happen: the tables are consistent */
	}

	memset(&b, 0, sizeof(b));
	memset(q, 0, sizeof(*q));
	b.q = q;
	q->version = v;
	q->size = 17 + 4 * v;
	q->ecc = ecc;
	draw_function(&b);
	draw_codewords(&b, out, raw);
	if (mask < 0) {
		long best = -1;

		for (int m = 0; m < 8; m++) {
			long p;

			apply_mask(&b, m);
			draw_format(&b, m);
			p = lb_qr_penalty(q);
			if (best < 0 || p < best) {
				best = p;
				mask = m;
			}
			apply_mask(&b, m); /* XOR again: undone */
		}
	}
	apply_mask(&b, mask);
	draw_format(&b, mask);
	q->mask = mask;
	return 0;
}

long lb_qr_text(const struct lb_qr *q, int style, int quiet, int invert,
		char *out, size_t cap)
{
	/* U+2588 full, U+2580 upper half, U+2584 lower half */
	static const char *const half[4] = { " ", "\xe2\x96\x84", "\xe2\x96\x80", "\xe2\x96\x88" };
	size_t k = 0;
	int lo, hi;

	if ((style != LB_QR_TEXT_UTF8 && style != LB_QR_TEXT_ASCII) || quiet < 0 || quiet > 16)
		return -EINVAL;
	lo = -quiet;
	hi = q->size + quiet;
#define EMIT(s) do {								\
		const char *_s = (s);						\
		for (; *_s; _s++, k++)						\
			if (k + 1 < cap)					\
				out[k] = *_s;					\
	} while (0)
	/* drawn = a lit character cell part */
#define DRAWN(x, y) ((y) < hi && (lb_qr_get(q, x, y) ^ !invert))
	for (int y = lo; y < hi; y += style == LB_QR_TEXT_UTF8 ? 2 : 1) {
		for (int x = lo; x < hi; x++) {
			if (style == LB_QR_TEXT_ASCII)
				EMIT(DRAWN(x, y) ? "##" : "  ");
			else
				EMIT(half[DRAWN(x, y) << 1 | DRAWN(x, y + 1)]);
		}
		EMIT("\n");
	}
#undef DRAWN
#undef EMIT
	if (cap)
		out[k < cap ? k : cap - 1] = 0;
	return (long)k;
}

long lb_qr_pbm(const struct lb_qr *q, int quiet, int scale, uint8_t *out, size_t cap)
{
	char hdr[32];
	int w, hl;
	size_t rowb, need;

	if (quiet < 0 || quiet > 16 || scale < 1 || scale > 16 || (!out && cap))
		return -EINVAL;
	w = (q->size + 2 * quiet) * scale;
	hl = snprintf(hdr, sizeof(hdr), "P4\n%d %d\n", w, w);
	rowb = ((size_t)w + 7) / 8;
	need = (size_t)hl + rowb * (size_t)w;
	if (need > cap)
		return (long)need;
	memcpy(out, hdr, (size_t)hl);
	memset(out + hl, 0, rowb * (size_t)w);
	for (int py = 0; py < w; py++)
		for (int px = 0; px < w; px++)
			if (lb_qr_get(q, px / scale - quiet, py / scale - quiet))
				out[hl + (size_t)py * rowb + (size_t)px / 8] |= 0x80 >> (px % 8);
	return (long)need;
}
