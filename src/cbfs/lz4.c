/*
 * The LZ4 frame format (lz4_Frame_format.md; coreboot's cbfstool writes
 * it, its lz4_wrapper.c reads it): magic, FLG/BD, optional content size
 * and dictionary ID, header checksum, then blocks (32-bit size, high bit =
 * stored), an end mark, an optional content checksum.
 *
 * Reading: checksums are skipped as coreboot skips them; every length is
 * checked against both buffers. Blocks are decoded into one output buffer:
 * a dependent block's matches may reach back into earlier blocks, an
 * independent one's may not (coreboot's decoder refuses that too). The
 * block format's end rules are enforced as coreboot's decoder enforces
 * them when the output buffer ends where the data does (payload segments:
 * memsz): the last 5 bytes of a block are literals and the last match
 * starts at least 12 bytes before its end.
 *
 * Writing (lb_lz4f_encode): the frame cbfstool's lz4_compress writes
 * (util/cbfstool/compress.c over LZ4F_compressFrame of lz4 1.7): FLG 0x60
 * (version 1, independent blocks; no block or content checksum, no
 * content size), the block size the smallest of 64 KiB, 256 KiB, 1 MiB,
 * 4 MiB that holds the input (LZ4F_optimalBSID), full blocks then the rest,
 * a block that does not shrink stored (high bit of its size), the end
 * mark. The blocks are lboot's own greedy matcher over hash chains (not
 * lz4's HC level 20 cbfstool asks for, so the bytes differ from
 * cbfstool's; any LZ4 decoder reads both).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cbfs.h"
#include "le.h"

#define LZ4F_MAGIC 0x184D2204u
#define LZ4_MINMATCH 4
#define LZ4_LASTLIT  5   /* the last 5 bytes of a block are literals */
#define LZ4_MFLIMIT  12  /* the last match starts 12 bytes before the end or earlier */

/* a length's extension bytes: added while they are 255 (capped at 1 GiB,
 * which no buffer here reaches); -1 if the input ends first */
static int more(const uint8_t *in, size_t len, size_t *i, size_t *v)
{
	unsigned b;

	do {
		if (*i >= len)
			return -1;
		b = in[(*i)++];
		*v += b;
	} while (b == 255 && *v < ((size_t)1 << 30));
	return 0;
}

/* one LZ4 block: in[0..len) appended at out[*pos], at most cap; its
 * matches reach back to out[low] at most */
static int block(const uint8_t *in, size_t len, uint8_t *out, size_t cap, size_t *pos, size_t low)
{
	size_t i = 0, o = *pos, mstart = 0, mend = 0;
	int matched = 0;

	while (i < len) {
		unsigned tok = in[i++];
		size_t lit = tok >> 4, mlen, off;

		if (lit == 15 && more(in, len, &i, &lit))
			return -EBADMSG;
		if (lit > len - i)
			return -EBADMSG;
		if (lit > cap - o)
			return -ENOSPC;
		memcpy(out + o, in + i, lit);
		i += lit;
		o += lit;
		if (i == len)
			break; /* the last sequence has literals only */
		if (len - i < 2)
			return -EBADMSG;
		off = le16(in + i);
		i += 2;
		if (!off || off > o - low)
			return -EBADMSG;
		mlen = (tok & 15) + 4;
		if ((tok & 15) == 15 && more(in, len, &i, &mlen))
			return -EBADMSG;
		if (mlen > cap - o)
			return -ENOSPC;
		matched = 1;
		mstart = o;
		for (size_t k = 0; k < mlen; k++, o++)
			out[o] = out[o - off];
		mend = o;
	}
	/* the end rules: at least 5 literals after the last match, which
	 * starts 12 bytes or more before the block's end */
	if (matched && (o - mend < LZ4_LASTLIT || o - mstart < LZ4_MFLIMIT))
		return -EBADMSG;
	*pos = o;
	return 0;
}

long lb_lz4f_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
	size_t i = 7, o = 0;
	unsigned flg, bd;
	int bsum, csum, indep;
	size_t bmax;

	if (len < 7 || le32(in) != LZ4F_MAGIC)
		return -EBADMSG;
	flg = in[4];
	bd = in[5];
	if ((flg >> 6) != 1 || (flg & 2) || (bd & 0x8f) || ((bd >> 4) & 7) < 4)
		return -EBADMSG;
	bmax = (size_t)1 << (8 + 2 * ((bd >> 4) & 7));
	bsum = !!(flg & 0x10);
	csum = !!(flg & 0x04);
	indep = !!(flg & 0x20);
	if (flg & 0x08)
		i += 8; /* content size */
	if (flg & 0x01)
		i += 4; /* dictionary ID: a dictionary we do not have */
	if (flg & 0x01)
		return -ENOTSUP;
	if (i > len)
		return -EBADMSG;
	for (;;) {
		uint32_t b;
		size_t n;
		int rc;

		if (len - i < 4)
			return -EBADMSG;
		b = le32(in + i);
		i += 4;
		if (!b)
			break;
		n = b & 0x7fffffffu;
		if (n > bmax || n > len - i)
			return -EBADMSG;
		if (b & 0x80000000u) {
			if (n > cap - o)
				return -ENOSPC;
			memcpy(out + o, in + i, n);
			o += n;
		} else if ((rc = block(in + i, n, out, cap, &o, indep ? o : 0))) {
			return rc;
		}
		i += n;
		if (bsum) {
			if (len - i < 4)
				return -EBADMSG;
			i += 4;
		}
	}
	if (csum && len - i < 4)
		return -EBADMSG;
	return (long)o;
}

/* ---- writing ---------------------------------------------------------- */

#define XXH_P1 2654435761u
#define XXH_P2 2246822519u
#define XXH_P3 3266489917u
#define XXH_P4 668265263u
#define XXH_P5 374761393u

static uint32_t rotl32(uint32_t x, unsigned r)
{
	return (x << r) | (x >> (32 - r));
}

static uint32_t xxh_round(uint32_t v, uint32_t in)
{
	return rotl32(v + in * XXH_P2, 13) * XXH_P1;
}

uint32_t lb_xxh32(const uint8_t *p, size_t len, uint32_t seed)
{
	size_t i = 0;
	uint32_t h;

	if (len >= 16) {
		uint32_t v1 = seed + XXH_P1 + XXH_P2, v2 = seed + XXH_P2, v3 = seed, v4 = seed - XXH_P1;

		for (; len - i >= 16; i += 16) {
			v1 = xxh_round(v1, le32(p + i));
			v2 = xxh_round(v2, le32(p + i + 4));
			v3 = xxh_round(v3, le32(p + i + 8));
			v4 = xxh_round(v4, le32(p + i + 12));
		}
		h = rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18);
	} else {
		h = seed + XXH_P5;
	}
	h += (uint32_t)len;
	for (; len - i >= 4; i += 4)
		h = rotl32(h + le32(p + i) * XXH_P3, 17) * XXH_P4;
	for (; i < len; i++)
		h = rotl32(h + p[i] * XXH_P5, 11) * XXH_P1;
	h ^= h >> 15;
	h *= XXH_P2;
	h ^= h >> 13;
	h *= XXH_P3;
	h ^= h >> 16;
	return h;
}

/*
 * The matcher: hash chains over 4-byte prefixes, a 64 KiB window (LZ4's
 * largest offset is 65535), greedy with up to CHAIN_DEPTH candidates per
 * position, matches extended backwards over pending literals. Chains hold
 * position + 1 (0: none); head[] is cleared per block, so no match leaves
 * its block; prev[] is indexed by position mod 64 KiB and only read for
 * positions inside the window, which no later position has overwritten.
 */
#define HASH_BITS   16
#define WINDOW      65536u
#define CHAIN_DEPTH 16
#define SKIP_SHIFT  6   /* after 64 misses in a row, step 2 bytes, ... (as lz4 does) */

struct lz4_enc {
	uint32_t head[1u << HASH_BITS];
	uint32_t prev[WINDOW];
};

static uint32_t hash4(const uint8_t *p)
{
	return (le32(p) * 2654435761u) >> (32 - HASH_BITS);
}

static uint8_t *put_len(uint8_t *o, size_t v)
{
	for (; v >= 255; v -= 255)
		*o++ = 255;
	*o++ = (uint8_t)v;
	return o;
}

/* one sequence: lit literals from lp, then (if mlen) a match */
static uint8_t *put_seq(uint8_t *o, const uint8_t *lp, size_t lit, size_t off, size_t mlen)
{
	uint8_t *tok = o++;
	size_t ml = mlen ? mlen - LZ4_MINMATCH : 0;

	*tok = (uint8_t)((lit < 15 ? lit : 15) << 4);
	if (lit >= 15)
		o = put_len(o, lit - 15);
	memcpy(o, lp, lit);
	o += lit;
	if (!mlen)
		return o;
	*o++ = (uint8_t)off;
	*o++ = (uint8_t)(off >> 8);
	*tok |= (uint8_t)(ml < 15 ? ml : 15);
	if (ml >= 15)
		o = put_len(o, ml - 15);
	return o;
}

/* the most an LZ4 block of n bytes takes (LZ4_compressBound) */
static size_t block_bound(size_t n)
{
	return n + n / 255 + 16;
}

/* in[0..n) as one LZ4 block into out (block_bound(n) bytes); returns its
 * length */
static size_t enc_block(struct lz4_enc *e, const uint8_t *in, size_t n, uint8_t *out)
{
	uint8_t *o = out;
	size_t p = 0, anchor = 0, ins = 0;
	unsigned miss = 0;

	if (n >= LZ4_MFLIMIT + 1) {
		size_t mflimit = n - LZ4_MFLIMIT, mlimit = n - LZ4_LASTLIT;

		memset(e->head, 0, sizeof(e->head));
		while (p <= mflimit) {
			size_t best = 0, boff = 0;
			uint32_t v = le32(in + p), cand;
			int depth = CHAIN_DEPTH;

			/* every position before p is in the chains */
			for (; ins < p; ins++) {
				uint32_t h = hash4(in + ins);

				e->prev[ins & (WINDOW - 1)] = e->head[h];
				e->head[h] = (uint32_t)ins + 1;
			}
			for (cand = e->head[hash4(in + p)]; cand && depth--;) {
				size_t q = cand - 1, l;
				uint32_t nx;

				if (p - q >= WINDOW)
					break;
				if (le32(in + q) == v && (!best || in[q + best] == in[p + best])) {
					for (l = LZ4_MINMATCH; p + l < mlimit && in[q + l] == in[p + l]; l++)
						;
					if (l > best) {
						best = l;
						boff = p - q;
						if (p + l >= mlimit)
							break;
					}
				}
				nx = e->prev[q & (WINDOW - 1)];
				if (nx >= cand)
					break;
				cand = nx;
			}
			if (!best) {
				p += 1 + (miss++ >> SKIP_SHIFT);
				continue;
			}
			miss = 0;
			/* backwards over the literals pending before it */
			while (p > anchor && p - boff > 0 && in[p - 1] == in[p - boff - 1]) {
				p--;
				best++;
			}
			o = put_seq(o, in + anchor, p - anchor, boff, best);
			p += best;
			anchor = p;
		}
	}
	return (size_t)(put_seq(o, in + anchor, n - anchor, 0, 0) - out);
}

size_t lb_lz4f_bound(size_t len)
{
	/* header 7, each block's size word and the data stored at worst, end
	 * mark; more than one block only with 4 MiB blocks (the block size
	 * is the smallest that holds the input, up to 4 MiB) */
	return 7 + len + 4 * (len / (4u << 20) + 1) + 4;
}

int lb_lz4f_encode(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len)
{
	unsigned bsid = 4;
	size_t bmax = 64u << 10, i = 0, o;
	struct lz4_enc *e = NULL;
	uint8_t *f = NULL, *tmp = NULL;
	int rc = -ENOMEM;

	*out = NULL;
	*out_len = 0;
	if (len > LB_CBFS_MAX_DECOMP)
		return -E2BIG;
	while (bsid < 7 && len > bmax) {
		bsid++;
		bmax <<= 2;
	}
	if (!(f = malloc(lb_lz4f_bound(len))) || !(e = malloc(sizeof(*e))) ||
	    !(tmp = malloc(block_bound(len < bmax ? len : bmax))))
		goto out;
	put_le32(f, LZ4F_MAGIC);
	f[4] = 0x60;                      /* version 01, independent blocks */
	f[5] = (uint8_t)(bsid << 4);
	f[6] = (uint8_t)(lb_xxh32(f + 4, 2, 0) >> 8);
	o = 7;
	while (i < len) {
		size_t n = len - i < bmax ? len - i : bmax;
		size_t z = enc_block(e, in + i, n, tmp);

		if (z < n) {
			put_le32(f + o, (uint32_t)z);
			memcpy(f + o + 4, tmp, z);
		} else { /* it did not shrink: stored, as LZ4F_compressBlock does */
			put_le32(f + o, (uint32_t)n | 0x80000000u);
			memcpy(f + o + 4, in + i, n);
			z = n;
		}
		o += 4 + z;
		i += n;
	}
	put_le32(f + o, 0);
	*out = f;
	*out_len = o + 4;
	f = NULL;
	rc = 0;
out:
	free(f);
	free(e);
	free(tmp);
	return rc;
}
