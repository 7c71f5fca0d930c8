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
 */
#include <errno.h>
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

