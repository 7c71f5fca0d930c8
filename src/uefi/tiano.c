/*
 * EFI 1.1 and Tiano compression, both directions (see tiano.h).
 *
 * Bitstream (MSB first), repeated blocks until the output is complete:
 *   16 bits   number of char&length symbols in the block (0 means 65536)
 *   T set     code lengths of the "extra" set (NT=19 symbols, TBIT=5),
 *             used to encode the C code lengths; after the third length a
 *             2-bit count of zero lengths follows (positions 3..5)
 *   C set     code lengths of the char&length set (NC=510, CBIT=9),
 *             run-length coded with T symbols 0..2, T symbol k>2 = length k-2
 *   P set     code lengths of the position set (PBIT 4 or 5 bits count;
 *             counts up to 2^PBIT-1 are accepted as EDK2 does, but only
 *             the NP = WNDBIT+1 symbols of the algorithm may be used)
 *   symbols   C code; for C >= 256 a match of length C-253 follows with a
 *             P code v and, for v > 1, v-1 extra bits: distance-1 =
 *             (1 << (v-1)) + extra (v = bit length of distance-1)
 * A set with a count of 0 is followed by one symbol: the only one, coded on
 * zero bits. Code lengths 0..6 are 3 bits, 7..16 are "111" + (len-7) ones +
 * a zero. Codes are canonical (by length, then symbol), MSB first.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"
#include "tiano.h"

#define NC        510   /* 256 literals + match lengths 3..256 */
#define CBIT      9
#define NT        19    /* CODE_BIT + 3 */
#define TBIT      5
#define NPT_MAX   31    /* largest position-set count (PBIT 5) */
#define MAXMATCH  256
#define THRESHOLD 3
#define MAXBITS   16    /* longest code */
#define FASTBITS  10

struct alg_params {
	unsigned pbit;   /* bits of the position-set count */
	unsigned np;     /* position codes the encoder uses: wndbit + 1 */
	unsigned wndbit; /* encoder window: 1 << wndbit bytes */
};

static const struct alg_params alg_tab[2] = {
	[LB_ALG_EFI11] = { 4, 14, 13 },
	[LB_ALG_TIANO] = { 5, 20, 19 },
};

int lb_tiano_info(const uint8_t *src, size_t len, uint32_t *orig_size, uint32_t *comp_size)
{
	if (!src && len)
		return -EINVAL;
	if (len < LB_TIANO_HDR_SIZE)
		return -EBADMSG;
	uint32_t comp = le32(src), orig = le32(src + 4);
	if ((uint64_t)comp > (uint64_t)len - LB_TIANO_HDR_SIZE)
		return -EBADMSG;
	if (orig > LB_TIANO_MAX_OUT)
		return -EFBIG;
	if (orig_size)
		*orig_size = orig;
	if (comp_size)
		*comp_size = comp;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Decoder                                                                  */

/* Bit reader: MSB first; reads zeros past the end (lookahead), the caller
 * checks that the bits actually consumed stay inside the stream. */
struct bitrd {
	const uint8_t *p;
	size_t len, pos;
	uint64_t buf;      /* valid bits top-aligned */
	unsigned cnt;
	uint64_t consumed; /* bits consumed */
	uint64_t limit;    /* bits available */
};

static inline void br_refill(struct bitrd *b)
{
	while (b->cnt <= 56) {
		uint64_t byte = b->pos < b->len ? b->p[b->pos] : 0;
		b->pos++;
		b->buf |= byte << (56 - b->cnt);
		b->cnt += 8;
	}
}

/* Peek n <= 32 bits. */
static inline uint32_t br_peek(struct bitrd *b, unsigned n)
{
	if (!n)
		return 0;
	if (b->cnt < n)
		br_refill(b);
	return (uint32_t)(b->buf >> (64 - n));
}

static inline void br_skip(struct bitrd *b, unsigned n)
{
	if (!n)
		return;
	b->buf <<= n;
	b->cnt -= n;
	b->consumed += n;
}

static inline uint32_t br_get(struct bitrd *b, unsigned n)
{
	uint32_t v = br_peek(b, n);
	br_skip(b, n);
	return v;
}

static inline bool br_over(const struct bitrd *b)
{
	return b->consumed > b->limit;
}

/* Canonical Huffman decoding table. */
struct huff {
	int single;                /* >= 0: the only symbol, coded on 0 bits */
	uint16_t count[MAXBITS + 1];
	uint16_t first[MAXBITS + 1];
	uint16_t index[MAXBITS + 1];
	uint16_t sorted[NC];
	uint16_t fast[1u << FASTBITS]; /* (len << 10 | sym) + 1, 0: longer code */
};

/* Build from code lengths; the code must be complete (Kraft sum exactly 1),
 * which rules out the over-subscribed tables EDK2 once accepted. */
static int huff_build(struct huff *h, const uint8_t *lens, unsigned n)
{
	uint16_t next[MAXBITS + 1];
	int32_t left = 1;
	unsigned len, s, code = 0, idx = 0;

	h->single = -1;
	memset(h->count, 0, sizeof(h->count));
	for (s = 0; s < n; s++) {
		if (lens[s] > MAXBITS)
			return -EBADMSG;
		h->count[lens[s]]++;
	}
	h->count[0] = 0;
	for (len = 1; len <= MAXBITS; len++) {
		left = left * 2 - h->count[len];
		if (left < 0)
			return -EBADMSG;
	}
	if (left != 0)
		return -EBADMSG;
	for (len = 1; len <= MAXBITS; len++) {
		h->first[len] = (uint16_t)code;
		h->index[len] = (uint16_t)idx;
		next[len] = (uint16_t)idx;
		idx += h->count[len];
		code = (code + h->count[len]) << 1;
	}
	for (s = 0; s < n; s++)
		if (lens[s])
			h->sorted[next[lens[s]]++] = (uint16_t)s;
	memset(h->fast, 0, sizeof(h->fast));
	for (len = 1; len <= FASTBITS; len++) {
		for (unsigned k = 0; k < h->count[len]; k++) {
			unsigned c = h->first[len] + k, sym = h->sorted[h->index[len] + k];
			unsigned lo = c << (FASTBITS - len), span = 1u << (FASTBITS - len);
			uint16_t e = (uint16_t)(((len << 10) | sym) + 1);
			for (unsigned j = 0; j < span; j++)
				h->fast[lo + j] = e;
		}
	}
	return 0;
}

static inline unsigned huff_decode(struct bitrd *b, const struct huff *h)
{
	if (h->single >= 0)
		return (unsigned)h->single;
	uint32_t v = br_peek(b, MAXBITS);
	uint16_t e = h->fast[v >> (MAXBITS - FASTBITS)];
	if (e) {
		e--;
		br_skip(b, e >> 10);
		return e & 0x3ff;
	}
	for (unsigned len = FASTBITS + 1; len <= MAXBITS; len++) {
		uint32_t c = v >> (MAXBITS - len);
		if (c - h->first[len] < h->count[len]) {
			br_skip(b, len);
			return h->sorted[h->index[len] + (c - h->first[len])];
		}
	}
	/* unreachable for a complete code */
	return 0;
}

struct dec {
	struct bitrd br;
	unsigned pbit, npt, np;
	uint32_t block_left;
	struct huff t, c, p;
	uint8_t lens[NC];
};

/* Read the code lengths of the T or P set. */
/* nn: largest count accepted; nsym: symbols that may be used (the single
 * symbol must be below it; the caller checks decoded symbols). */
static int read_pt_len(struct dec *d, struct huff *h, unsigned nn, unsigned nsym,
		       unsigned nbit, unsigned special)
{
	struct bitrd *b = &d->br;
	unsigned n = br_get(b, nbit), i = 0;

	if (n == 0) {
		unsigned s = br_get(b, nbit);
		if (s >= nsym)
			return -EBADMSG;
		h->single = (int)s;
		return br_over(b) ? -EBADMSG : 0;
	}
	if (n > nn)
		return -EBADMSG;
	memset(d->lens, 0, nn);
	while (i < n) {
		unsigned c = br_get(b, 3);
		if (c == 7) {
			while (br_get(b, 1)) {
				if (++c > MAXBITS)
					return -EBADMSG;
			}
		}
		d->lens[i++] = (uint8_t)c;
		if (i == special) {
			unsigned z = br_get(b, 2);
			if (i + z > nn)
				return -EBADMSG;
			while (z--)
				d->lens[i++] = 0;
		}
		if (br_over(b))
			return -EBADMSG;
	}
	return huff_build(h, d->lens, nn);
}

static int read_c_len(struct dec *d)
{
	struct bitrd *b = &d->br;
	unsigned n = br_get(b, CBIT), i = 0;

	if (n == 0) {
		unsigned s = br_get(b, CBIT);
		if (s >= NC)
			return -EBADMSG;
		d->c.single = (int)s;
		return br_over(b) ? -EBADMSG : 0;
	}
	if (n > NC)
		return -EBADMSG;
	memset(d->lens, 0, NC);
	while (i < n) {
		unsigned c = huff_decode(b, &d->t), run;
		if (c <= 2) {
			if (c == 0)
				run = 1;
			else if (c == 1)
				run = br_get(b, 4) + 3;
			else
				run = br_get(b, CBIT) + 20;
			if (run > n - i)
				return -EBADMSG;
			i += run; /* lens already zero */
		} else {
			d->lens[i++] = (uint8_t)(c - 2);
		}
		if (br_over(b))
			return -EBADMSG;
	}
	return huff_build(&d->c, d->lens, NC);
}

static int read_block_header(struct dec *d)
{
	int rc;
	uint32_t size = br_get(&d->br, 16);

	d->block_left = size ? size : 65536; /* EDK2: 16-bit counter wraps */
	rc = read_pt_len(d, &d->t, NT, NT, TBIT, 3);
	if (rc)
		return rc;
	rc = read_c_len(d);
	if (rc)
		return rc;
	return read_pt_len(d, &d->p, d->npt, d->np, d->pbit, ~0u);
}

struct dec_result {
	bool clean; /* ended at a block boundary within the last byte */
};

static int decode(enum lb_tiano_alg alg, const uint8_t *src, size_t len, size_t max_out,
		  uint8_t **out, size_t *out_len, struct dec_result *res)
{
	uint32_t orig, comp;
	uint8_t *buf = NULL;
	size_t have = 0, cap;
	struct dec *d;
	int rc;

	if (!out || !out_len || (unsigned)alg > LB_ALG_TIANO || max_out > LB_TIANO_MAX_OUT)
		return -EINVAL;
	rc = lb_tiano_info(src, len, &orig, &comp);
	if (rc)
		return rc;
	if (orig > max_out)
		return -EFBIG;
	/* Each block carries at least 16 + 2*TBIT + CBIT + 2*PBIT header bits
	 * (single-symbol T and P sets; C lengths coded on 0-bit T codes) and at
	 * most 65536 symbols of at most MAXMATCH bytes. */
	unsigned pbit = alg_tab[alg].pbit;
	uint64_t max_blocks = ((uint64_t)comp * 8) / (16 + 2 * TBIT + CBIT + 2 * pbit);
	if ((uint64_t)orig > max_blocks * 65536 * MAXMATCH)
		return -EBADMSG;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->pbit = pbit;
	d->npt = (1u << pbit) - 1;
	d->np = alg_tab[alg].np;
	d->br.p = src + LB_TIANO_HDR_SIZE;
	d->br.len = comp;
	d->br.limit = (uint64_t)comp * 8;

	/* Grow the output as it is produced: a small forged header cannot make
	 * us commit the whole declared size up front. */
	cap = orig < 65536 ? orig : 65536;
	buf = malloc(cap ? cap : 1);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	while (have < orig) {
		if (d->block_left == 0) {
			rc = read_block_header(d);
			if (rc)
				goto out;
		}
		d->block_left--;
		unsigned c = huff_decode(&d->br, &d->c);
		size_t need;
		uint32_t dist = 0, mlen;
		if (c < 256) {
			mlen = 1;
		} else {
			unsigned v = huff_decode(&d->br, &d->p);
			if (v >= d->np) {
				/* beyond the algorithm's window (spec: NP codes) */
				rc = -EBADMSG;
				goto out;
			}
			mlen = c - (256 - THRESHOLD);
			dist = v <= 1 ? v : (1u << (v - 1)) + br_get(&d->br, v - 1);
			if ((uint64_t)dist + 1 > have) {
				rc = -EBADMSG;
				goto out;
			}
			dist++;
		}
		if (br_over(&d->br) || mlen > orig - have) {
			rc = -EBADMSG;
			goto out;
		}
		need = have + mlen;
		if (need > cap) {
			size_t ncap = cap * 2 > need ? cap * 2 : need;
			if (ncap > orig)
				ncap = orig;
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				rc = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		if (c < 256) {
			buf[have++] = (uint8_t)c;
		} else {
			/* byte by byte: overlapping copies repeat the pattern */
			const uint8_t *from = buf + have - dist;
			uint8_t *to = buf + have;
			for (uint32_t k = 0; k < mlen; k++)
				to[k] = from[k];
			have += mlen;
		}
	}
	if (res)
		res->clean = orig == 0 ||
			(d->block_left == 0 && d->br.limit - d->br.consumed < 8);
	*out = buf;
	*out_len = have;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	free(d);
	return rc;
}

int lb_tiano_decompress_cap(enum lb_tiano_alg alg, const uint8_t *src, size_t len,
			    size_t max_out, uint8_t **out, size_t *out_len)
{
	return decode(alg, src, len, max_out, out, out_len, NULL);
}

int lb_tiano_decompress(enum lb_tiano_alg alg, const uint8_t *src, size_t len,
			uint8_t **out, size_t *out_len)
{
	return decode(alg, src, len, LB_TIANO_MAX_OUT, out, out_len, NULL);
}

int lb_tiano_decompress_any_ex(const uint8_t *src, size_t len,
			       int (*accept)(const uint8_t *data, size_t len, void *ctx), void *ctx,
			       uint8_t **out, size_t *out_len, enum lb_tiano_alg *which)
{
	uint8_t *b[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	struct dec_result r[2] = { { false }, { false } };
	int rc[2], pick;

	if (!out || !out_len)
		return -EINVAL;
	rc[0] = decode(LB_ALG_EFI11, src, len, LB_TIANO_MAX_OUT, &b[0], &n[0], &r[0]);
	if (rc[0] == -EINVAL || rc[0] == -EFBIG || rc[0] == -ENOMEM)
		return rc[0];
	if (rc[0] == 0 && r[0].clean && !accept)
		goto pick_efi;
	rc[1] = decode(LB_ALG_TIANO, src, len, LB_TIANO_MAX_OUT, &b[1], &n[1], &r[1]);
	if (rc[0] && rc[1]) {
		return rc[0];
	} else if (rc[0] || rc[1]) {
		pick = rc[0] ? 1 : 0;
	} else if (accept) {
		/* both decode: let the caller's parser judge, then cleanliness */
		bool a0 = accept(b[0], n[0], ctx) == 0, a1 = accept(b[1], n[1], ctx) == 0;
		if (a0 != a1)
			pick = a0 ? 0 : 1;
		else
			pick = (!r[0].clean && r[1].clean) ? 1 : 0;
	} else {
		pick = (!r[0].clean && r[1].clean) ? 1 : 0;
	}
	free(b[!pick]);
	*out = b[pick];
	*out_len = n[pick];
	if (which)
		*which = pick ? LB_ALG_TIANO : LB_ALG_EFI11;
	return 0;
pick_efi:
	*out = b[0];
	*out_len = n[0];
	if (which)
		*which = LB_ALG_EFI11;
	return 0;
}

int lb_tiano_decompress_any(const uint8_t *src, size_t len, uint8_t **out,
			    size_t *out_len, enum lb_tiano_alg *which)
{
	return lb_tiano_decompress_any_ex(src, len, NULL, NULL, out, out_len, which);
}

/* ------------------------------------------------------------------------ */
/* Encoder                                                                  */

struct bitwr {
	uint8_t *buf;
	size_t len, cap;
	uint64_t acc;
	unsigned n;
	int err;
};

static void bw_byte(struct bitwr *w, uint8_t v)
{
	if (w->len == w->cap) {
		size_t ncap = w->cap ? w->cap * 2 : 4096;
		uint8_t *nb;
		if (w->err)
			return;
		if (ncap < w->cap || ncap - LB_TIANO_HDR_SIZE > UINT32_MAX) {
			w->err = -EFBIG;
			return;
		}
		nb = realloc(w->buf, ncap);
		if (!nb) {
			w->err = -ENOMEM;
			return;
		}
		w->buf = nb;
		w->cap = ncap;
	}
	w->buf[w->len++] = v;
}

/* Write the low n <= 32 bits of v, MSB first. */
static void bw_put(struct bitwr *w, unsigned n, uint32_t v)
{
	if (!n)
		return;
	w->acc = (w->acc << n) | (v & (n == 32 ? 0xffffffffu : ((1u << n) - 1)));
	w->n += n;
	while (w->n >= 8) {
		w->n -= 8;
		bw_byte(w, (uint8_t)(w->acc >> w->n));
	}
}

static void bw_flush(struct bitwr *w)
{
	if (w->n)
		bw_put(w, 8 - w->n, 0);
}

static uint16_t heap_pop(uint16_t *heap, unsigned *hn, const uint32_t *w)
{
	uint16_t top = heap[1], last = heap[(*hn)--];
	unsigned i = 1;

	for (;;) {
		unsigned c = i * 2;
		if (c > *hn)
			break;
		if (c + 1 <= *hn && w[heap[c + 1]] < w[heap[c]])
			c++;
		if (w[heap[c]] >= w[last])
			break;
		heap[i] = heap[c];
		i = c;
	}
	heap[i] = last;
	return top;
}

/*
 * Huffman code lengths for freq[0..n) limited to maxbits. Symbols with zero
 * frequency get length 0. Returns the number of used symbols; when it is
 * below 2 no lengths are assigned (the single-symbol form is used) and
 * *only receives the used symbol (or 0).
 */
static unsigned make_lengths(const uint32_t *freq_in, unsigned n, unsigned maxbits,
			     uint8_t *lens, unsigned *only)
{
	uint32_t freq[NC];
	uint32_t w[2 * NC];
	uint16_t parent[2 * NC], heap[NC + 1];
	uint16_t depth[2 * NC];
	unsigned used = 0, s;

	memset(lens, 0, n);
	*only = 0;
	for (s = 0; s < n; s++) {
		freq[s] = freq_in[s];
		if (freq[s]) {
			used++;
			*only = s;
		}
	}
	if (used < 2)
		return used;
	for (;;) {
		unsigned hn = 0, next = n, maxd = 0;
		/* min-heap of node ids by weight */
		for (s = 0; s < n; s++) {
			if (!freq[s])
				continue;
			w[s] = freq[s];
			unsigned i = ++hn;
			while (i > 1 && w[heap[i / 2]] > w[s]) {
				heap[i] = heap[i / 2];
				i /= 2;
			}
			heap[i] = (uint16_t)s;
		}
		while (hn > 1) {
			uint16_t a = heap_pop(heap, &hn, w);
			uint16_t b = heap_pop(heap, &hn, w);
			w[next] = w[a] + w[b];
			parent[a] = parent[b] = (uint16_t)next;
			unsigned i = ++hn;
			while (i > 1 && w[heap[i / 2]] > w[next]) {
				heap[i] = heap[i / 2];
				i /= 2;
			}
			heap[i] = (uint16_t)next;
			next++;
		}
		/* root is next-1; internal nodes have larger ids than children */
		depth[next - 1] = 0;
		for (unsigned k = next - 1; k-- > n;)
			depth[k] = depth[parent[k]] + 1;
		for (s = 0; s < n; s++) {
			if (!freq[s])
				continue;
			depth[s] = depth[parent[s]] + 1;
			if (depth[s] > maxd)
				maxd = depth[s];
		}
		if (maxd <= maxbits) {
			for (s = 0; s < n; s++)
				lens[s] = freq[s] ? (uint8_t)depth[s] : 0;
			return used;
		}
		/* too deep: flatten the distribution and retry */
		for (s = 0; s < n; s++)
			if (freq[s])
				freq[s] = (freq[s] >> 1) | 1;
	}
}

static void make_codes(const uint8_t *lens, unsigned n, uint16_t *codes)
{
	uint16_t count[MAXBITS + 2] = { 0 }, next[MAXBITS + 2];
	unsigned code = 0;

	for (unsigned s = 0; s < n; s++)
		count[lens[s]]++;
	count[0] = 0;
	for (unsigned len = 1; len <= MAXBITS; len++) {
		next[len] = (uint16_t)code;
		code = (code + count[len]) << 1;
	}
	for (unsigned s = 0; s < n; s++)
		codes[s] = lens[s] ? next[lens[s]]++ : 0;
}

struct sym {
	uint16_t c;
	uint32_t p; /* distance - 1 for matches */
};

struct enc {
	const struct alg_params *ap;
	struct bitwr w;
	uint32_t cfreq[NC], pfreq[NPT_MAX], tfreq[NT];
	uint8_t clen[NC], plen[NPT_MAX], tlen[NT];
	uint16_t ccode[NC], pcode[NPT_MAX], tcode[NT];
	unsigned p_pad; /* extra zero lengths in the next P header (see below) */
};

static unsigned bitlen(uint32_t v)
{
	unsigned n = 0;
	while (v) {
		v >>= 1;
		n++;
	}
	return n;
}

/* Visit the run-length coding of the C lengths (trimmed to cn entries):
 * emit(T symbol, extra bits count, extra value). */
#define C_LEN_RLE(cn, EMIT) do {                                              \
	unsigned i_ = 0;                                                      \
	while (i_ < (cn)) {                                                   \
		unsigned k_ = e->clen[i_++];                                  \
		if (k_ == 0) {                                                \
			unsigned cnt_ = 1;                                    \
			while (i_ < (cn) && e->clen[i_] == 0) {               \
				i_++;                                         \
				cnt_++;                                       \
			}                                                     \
			if (cnt_ <= 2) {                                      \
				for (unsigned j_ = 0; j_ < cnt_; j_++)        \
					EMIT(0, 0, 0);                        \
			} else if (cnt_ <= 18) {                              \
				EMIT(1, 4, cnt_ - 3);                         \
			} else if (cnt_ == 19) {                              \
				EMIT(0, 0, 0);                                \
				EMIT(1, 4, 15);                               \
			} else {                                              \
				EMIT(2, CBIT, cnt_ - 20);                     \
			}                                                     \
		} else {                                                      \
			EMIT(k_ + 2, 0, 0);                                   \
		}                                                             \
	}                                                                     \
} while (0)

static void write_pt_len(struct enc *e, const uint8_t *lens, unsigned n, unsigned nbit,
			 unsigned special, unsigned pad)
{
	unsigned i = 0;

	while (n > 0 && lens[n - 1] == 0)
		n--;
	n += pad; /* trailing zero lengths: lens[] is zero there */
	bw_put(&e->w, nbit, n);
	while (i < n) {
		unsigned k = lens[i++];
		if (k <= 6)
			bw_put(&e->w, 3, k);
		else
			bw_put(&e->w, k - 3, (1u << (k - 3)) - 2);
		if (i == special) {
			while (i < 6 && lens[i] == 0)
				i++;
			bw_put(&e->w, 2, (i - 3) & 3);
		}
	}
}

static void send_block(struct enc *e, const struct sym *syms, size_t nsym)
{
	const struct alg_params *ap = e->ap;
	unsigned only, used, cn;

	memset(e->cfreq, 0, sizeof(e->cfreq));
	memset(e->pfreq, 0, sizeof(e->pfreq));
	for (size_t i = 0; i < nsym; i++) {
		e->cfreq[syms[i].c]++;
		if (syms[i].c >= 256)
			e->pfreq[bitlen(syms[i].p)]++;
	}
	bw_put(&e->w, 16, (uint32_t)nsym);

	used = make_lengths(e->cfreq, NC, MAXBITS, e->clen, &only);
	if (used >= 2) {
		make_codes(e->clen, NC, e->ccode);
		cn = NC;
		while (cn > 0 && e->clen[cn - 1] == 0)
			cn--;
		memset(e->tfreq, 0, sizeof(e->tfreq));
#define T_COUNT(t, nb, v) e->tfreq[t]++
		C_LEN_RLE(cn, T_COUNT);
#undef T_COUNT
		unsigned tonly, tused = make_lengths(e->tfreq, NT, MAXBITS, e->tlen, &tonly);
		if (tused >= 2) {
			make_codes(e->tlen, NT, e->tcode);
			write_pt_len(e, e->tlen, NT, TBIT, 3, 0);
		} else {
			memset(e->tlen, 0, sizeof(e->tlen));
			bw_put(&e->w, TBIT, 0);
			bw_put(&e->w, TBIT, tonly);
		}
		bw_put(&e->w, CBIT, cn);
#define T_WRITE(t, nb, v) do { \
		bw_put(&e->w, e->tlen[t], e->tcode[t]); \
		bw_put(&e->w, nb, v); } while (0)
		C_LEN_RLE(cn, T_WRITE);
#undef T_WRITE
	} else {
		memset(e->clen, 0, sizeof(e->clen));
		bw_put(&e->w, TBIT, 0);
		bw_put(&e->w, TBIT, 0);
		bw_put(&e->w, CBIT, 0);
		bw_put(&e->w, CBIT, only);
	}

	used = make_lengths(e->pfreq, ap->np, MAXBITS, e->plen, &only);
	if (used < 2 && (ap->pbit == 5 || e->p_pad)) {
		/*
		 * Tiano block with 0 or 1 position symbols: the single-symbol form
		 * would also parse as EFI 1.1 (the two formats differ only in PBIT)
		 * and auto-detection could pick the wrong one. Use a two-symbol
		 * code {s-1, s} (or {0, 1}) of 1-bit lengths instead: count n =
		 * s+1 in 5 bits, then 3(s-1) zero bits. EFI 1.1 reads a count of
		 * n >> 1 and then lengths from one bit of n followed by zeros:
		 * at most one nonzero length, never a complete code.
		 */
		unsigned s = used ? only : 0;
		memset(e->plen, 0, sizeof(e->plen));
		e->plen[s ? s - 1 : 0] = 1;
		e->plen[s ? s : 1] = 1;
		used = 2;
	}
	if (used >= 2) {
		unsigned n = ap->np, pad = e->p_pad;
		while (n > 0 && e->plen[n - 1] == 0)
			n--;
		if (n + pad > (1u << ap->pbit) - 1)
			pad = (1u << ap->pbit) - 1 - n;
		make_codes(e->plen, ap->np, e->pcode);
		write_pt_len(e, e->plen, ap->np, ap->pbit, ~0u, pad);
		e->p_pad = 0;
	} else if (used == 1) {
		memset(e->plen, 0, sizeof(e->plen));
		bw_put(&e->w, ap->pbit, 0);
		bw_put(&e->w, ap->pbit, only);
	} else {
		/*
		 * EFI 1.1 block without matches: the P header is unused; "0000
		 * 0111" is read by Tiano as count 0, then a symbol "0111x" >= its
		 * NP of 20, so Tiano rejects it (helps UEFITool-style detection).
		 */
		memset(e->plen, 0, sizeof(e->plen));
		bw_put(&e->w, 4, 0);
		bw_put(&e->w, 4, 7);
	}

	for (size_t i = 0; i < nsym; i++) {
		unsigned c = syms[i].c;
		bw_put(&e->w, e->clen[c], e->ccode[c]);
		if (c >= 256) {
			uint32_t p = syms[i].p;
			unsigned v = bitlen(p);
			bw_put(&e->w, e->plen[v], e->pcode[v]);
			if (v > 1)
				bw_put(&e->w, v - 1, p & ((1u << (v - 1)) - 1));
		}
	}
}

#define BLOCK_SYMS 16384
#define MAX_CHAIN  128
#define NICE_LEN   128

struct matcher {
	const uint8_t *src;
	size_t n;
	uint32_t wmask, hbits, wsize; /* ring mask, hash bits, window (max distance + 1) */
	int32_t *head, *prev;
};

static inline uint32_t hash3(const struct matcher *m, size_t i)
{
	uint32_t v = (uint32_t)m->src[i] << 16 | (uint32_t)m->src[i + 1] << 8 | m->src[i + 2];
	return (v * 2654435761u) >> (32 - m->hbits);
}

static inline void m_insert(struct matcher *m, size_t i)
{
	if (m->n - i < 3)
		return;
	uint32_t h = hash3(m, i);
	m->prev[i & m->wmask] = m->head[h];
	m->head[h] = (int32_t)i;
}

/* Longest match for position i among earlier positions (not yet inserted). */
static unsigned m_find(const struct matcher *m, size_t i, uint32_t *dist)
{
	size_t avail = m->n - i;
	unsigned maxlen = avail < MAXMATCH ? (unsigned)avail : MAXMATCH, best = THRESHOLD - 1;
	unsigned chain = MAX_CHAIN;
	const uint8_t *s = m->src;

	if (avail < THRESHOLD)
		return 0;
	int32_t cand = m->head[hash3(m, i)];
	while (cand >= 0 && chain--) {
		size_t c = (size_t)cand;
		if (i - c >= m->wsize)
			break;
		if (s[c + best] == s[i + best] && s[c] == s[i]) {
			unsigned l = 0;
			while (l < maxlen && s[c + l] == s[i + l])
				l++;
			if (l > best) {
				best = l;
				*dist = (uint32_t)(i - c);
				if (l >= maxlen || l >= NICE_LEN)
					break;
			}
		}
		int32_t nx = m->prev[c & m->wmask];
		if (nx >= cand)
			break; /* slot reused by a newer position */
		cand = nx;
	}
	return best >= THRESHOLD ? best : 0;
}

static int encode(enum lb_tiano_alg alg, const uint8_t *src, size_t len, unsigned p_pad,
		  uint8_t **out, size_t *out_len)
{
	struct enc *e = NULL;
	struct sym *syms = NULL;
	struct matcher m = { 0 };
	size_t nsym = 0;
	int rc;

	e = calloc(1, sizeof(*e));
	syms = malloc(BLOCK_SYMS * sizeof(*syms));
	if (!e || !syms) {
		rc = -ENOMEM;
		goto out;
	}
	e->ap = &alg_tab[alg];
	e->p_pad = p_pad;
	m.src = src;
	m.n = len;
	m.wsize = 1u << e->ap->wndbit;
	/* ring of chain links: no larger than needed for a short input */
	uint32_t ring = 4096;
	while (ring < m.wsize && ring < len)
		ring <<= 1;
	m.wmask = ring - 1;
	m.hbits = e->ap->wndbit > 15 ? 17 : 15;
	while (m.hbits > 10 && (1u << (m.hbits - 1)) >= len)
		m.hbits--;
	m.head = malloc(sizeof(int32_t) << m.hbits);
	m.prev = malloc(sizeof(int32_t) * (size_t)ring);
	if (!m.head || !m.prev) {
		rc = -ENOMEM;
		goto out;
	}
	memset(m.head, 0xff, sizeof(int32_t) << m.hbits);
	for (int k = 0; k < (int)LB_TIANO_HDR_SIZE; k++)
		bw_byte(&e->w, 0); /* header, filled in below */

	if (len == 0) {
		/* like EDK2: one empty block header, every set single-symbol 0 */
		bw_put(&e->w, 16, 0);
		bw_put(&e->w, TBIT, 0);
		bw_put(&e->w, TBIT, 0);
		bw_put(&e->w, CBIT, 0);
		bw_put(&e->w, CBIT, 0);
		bw_put(&e->w, e->ap->pbit, 0);
		bw_put(&e->w, e->ap->pbit, 0);
	}

	/* LZ77 with one-step lazy matching */
	unsigned prev_len = 0;
	uint32_t prev_dist = 0;
	bool pending = false;
#define EMIT(cv, pv) do { \
		syms[nsym].c = (uint16_t)(cv); syms[nsym].p = (pv); \
		if (++nsym == BLOCK_SYMS) { send_block(e, syms, nsym); nsym = 0; } \
	} while (0)
	for (size_t i = 0; i < len; i++) {
		uint32_t dist = 0;
		unsigned cur = 0;
		if (prev_len < NICE_LEN)
			cur = m_find(&m, i, &dist);
		m_insert(&m, i);
		if (prev_len >= THRESHOLD && cur <= prev_len) {
			/* the match started at i - 1 */
			EMIT(prev_len + (256 - THRESHOLD), prev_dist - 1);
			size_t end = i - 1 + prev_len;
			for (size_t k = i + 1; k < end; k++)
				m_insert(&m, k);
			i = end - 1;
			pending = false;
			prev_len = 0;
		} else {
			if (pending)
				EMIT(src[i - 1], 0);
			pending = true;
			prev_len = cur;
			prev_dist = dist;
		}
		if (e->w.err)
			break;
	}
	if (pending)
		EMIT(src[len - 1], 0);
#undef EMIT
	if (nsym)
		send_block(e, syms, nsym);
	bw_flush(&e->w);
	rc = e->w.err;
	if (rc)
		goto out;
	put_le32(e->w.buf, (uint32_t)(e->w.len - LB_TIANO_HDR_SIZE));
	put_le32(e->w.buf + 4, (uint32_t)len);
	*out = e->w.buf;
	*out_len = e->w.len;
	e->w.buf = NULL;
out:
	if (e)
		free(e->w.buf);
	free(e);
	free(syms);
	free(m.head);
	free(m.prev);
	return rc;
}

/*
 * The two formats differ only in the width of the position-set count, so a
 * stream may also decode (to garbage) under the other algorithm, which
 * defeats auto-detection (ours and UEFITool's). Check the result with the
 * other decoder; if it decodes, re-encode with the first block's position
 * count padded by trailing zero lengths (valid for every decoder, but it
 * changes how the other algorithm misparses the header).
 */
#define MAX_VARIANTS 8

int lb_tiano_compress(enum lb_tiano_alg alg, const uint8_t *src, size_t len,
		      uint8_t **out, size_t *out_len)
{
	enum lb_tiano_alg other = alg == LB_ALG_EFI11 ? LB_ALG_TIANO : LB_ALG_EFI11;
	uint8_t *buf = NULL, *chk;
	size_t n = 0, chk_n;
	int rc;

	if (!out || !out_len || (unsigned)alg > LB_ALG_TIANO || (!src && len))
		return -EINVAL;
	if (len > LB_TIANO_MAX_OUT)
		return -EFBIG;
	for (unsigned v = 0; v < MAX_VARIANTS; v++) {
		free(buf);
		buf = NULL;
		rc = encode(alg, src, len, v, &buf, &n);
		if (rc)
			return rc;
		if (len == 0)
			break;
		rc = decode(other, buf, n, LB_TIANO_MAX_OUT, &chk, &chk_n, NULL);
		if (rc == -ENOMEM) {
			free(buf);
			return rc;
		}
		if (rc)
			break; /* unambiguous */
		free(chk);
	}
	*out = buf;
	*out_len = n;
	return 0;
}
