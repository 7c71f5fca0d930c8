/* xz / gzip whole-buffer compression and decompression (see compress.h). */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "compress.h"

#define XZ_MEMLIMIT (256u << 20) /* decoder memory cap (dictionary) */

const char *lb_comp_name(enum lb_comp c)
{
	switch (c) {
	case LB_COMP_NONE: return "none";
	case LB_COMP_GZIP: return "gzip";
	case LB_COMP_XZ: return "xz";
	case LB_COMP_BZIP2: return "bzip2";
	case LB_COMP_LZMA: return "lzma";
	case LB_COMP_LZO: return "lzo";
	case LB_COMP_LZ4: return "lz4";
	case LB_COMP_ZSTD: return "zstd";
	default: return "unknown";
	}
}

int lb_comp_parse(const char *s, enum lb_comp *c)
{
	if (!strcmp(s, "none"))
		*c = LB_COMP_NONE;
	else if (!strcmp(s, "gzip") || !strcmp(s, "gz"))
		*c = LB_COMP_GZIP;
	else if (!strcmp(s, "xz"))
		*c = LB_COMP_XZ;
	else
		return -EINVAL;
	return 0;
}

static int starts(const uint8_t *p, size_t len, const void *m, size_t n)
{
	return len >= n && !memcmp(p, m, n);
}

enum lb_comp lb_comp_detect(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (starts(p, len, "07070", 5))
		return LB_COMP_NONE;
	if (starts(p, len, "\xfd" "7zXZ\0", 6))
		return LB_COMP_XZ;
	if (starts(p, len, "\x1f\x8b", 2))
		return LB_COMP_GZIP;
	if (starts(p, len, "BZh", 3))
		return LB_COMP_BZIP2;
	if (starts(p, len, "\x5d\x00\x00", 3))
		return LB_COMP_LZMA;
	if (starts(p, len, "\x89LZO", 4))
		return LB_COMP_LZO;
	if (starts(p, len, "\x02\x21\x4c\x18", 4))
		return LB_COMP_LZ4;
	if (starts(p, len, "\x28\xb5\x2f\xfd", 4))
		return LB_COMP_ZSTD;
	return LB_COMP_UNKNOWN;
}

/* ---- compression ---------------------------------------------------------- */

static int xz_compress(const void *in, size_t len, uint8_t **out, size_t *outlen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_options_lzma opt;
	lzma_filter filters[2];
	size_t cap = lzma_stream_buffer_bound(len);
	uint8_t *buf;
	lzma_ret ret;

	if (!cap)
		return -EFBIG;
	if (lzma_lzma_preset(&opt, 9 | LZMA_PRESET_EXTREME))
		return -EINVAL;
	/* A dictionary larger than the data gains nothing and costs the
	 * booting kernel that much vmalloc. */
	if (opt.dict_size > len) {
		uint32_t d = LZMA_DICT_SIZE_MIN;
		while (d < len)
			d <<= 1;
		opt.dict_size = d;
	}
	filters[0].id = LZMA_FILTER_LZMA2;
	filters[0].options = &opt;
	filters[1].id = LZMA_VLI_UNKNOWN;
	filters[1].options = NULL;
	if (lzma_stream_encoder(&s, filters, LZMA_CHECK_CRC32) != LZMA_OK)
		return -ENOMEM;
	buf = malloc(cap);
	if (!buf) {
		lzma_end(&s);
		return -ENOMEM;
	}
	s.next_in = in;
	s.avail_in = len;
	s.next_out = buf;
	s.avail_out = cap;
	ret = lzma_code(&s, LZMA_FINISH);
	if (ret != LZMA_STREAM_END) {
		lzma_end(&s);
		free(buf);
		return ret == LZMA_MEM_ERROR ? -ENOMEM : -EIO;
	}
	*outlen = cap - s.avail_out;
	lzma_end(&s);
	*out = buf;
	return 0;
}

static int gz_compress(const void *in, size_t len, uint8_t **out, size_t *outlen)
{
	z_stream z;
	uint8_t *buf;
	size_t cap, done = 0, left = len;
	int ret;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	/* deflateBound works on uLong; grow if needed for huge inputs. */
	cap = len + len / 1000 + 64 * 1024;
	if (cap < len || !(buf = malloc(cap))) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	do {
		if (done == cap) {
			size_t ncap = cap * 2;
			uint8_t *n = ncap > cap ? realloc(buf, ncap) : NULL;
			if (!n) {
				deflateEnd(&z);
				free(buf);
				return -ENOMEM;
			}
			buf = n;
			cap = ncap;
		}
		uInt ain = left > (1u << 30) ? (1u << 30) : (uInt)left;
		size_t room = cap - done;
		uInt aout = room > (1u << 30) ? (1u << 30) : (uInt)room;
		z.avail_in = ain;
		z.next_out = buf + done;
		z.avail_out = aout;
		ret = deflate(&z, left == ain ? Z_FINISH : Z_NO_FLUSH);
		left -= ain - z.avail_in;
		done += aout - z.avail_out;
	} while (ret == Z_OK || ret == Z_BUF_ERROR);
	deflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(buf);
		return -EIO;
	}
	*out = buf;
	*outlen = done;
	return 0;
}

int lb_compress(enum lb_comp c, const void *in, size_t len,
		uint8_t **out, size_t *outlen)
{
	switch (c) {
	case LB_COMP_NONE: {
		uint8_t *p = malloc(len ? len : 1);
		if (!p)
			return -ENOMEM;
		if (len)
			memcpy(p, in, len);
		*out = p;
		*outlen = len;
		return 0;
	}
	case LB_COMP_GZIP:
		return gz_compress(in, len, out, outlen);
	case LB_COMP_XZ:
		return xz_compress(in, len, out, outlen);
	default:
		return -EOPNOTSUPP;
	}
}

/* ---- decompression ---------------------------------------------------------- */

/* Make room for at least one more byte, up to max. */
static int grow(uint8_t **buf, size_t *cap, size_t used, size_t max)
{
	size_t ncap;
	uint8_t *n;

	if (used < *cap)
		return 0;
	if (*cap >= max)
		return -EFBIG;
	ncap = *cap ? *cap * 2 : 64 * 1024;
	if (ncap < *cap || ncap > max)
		ncap = max;
	/* one byte past max lets us tell "exactly max" from "more" */
	n = realloc(*buf, ncap + (ncap == max));
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = ncap + (ncap == max);
	return 0;
}

static int xz_decompress(const uint8_t *in, size_t len, size_t max,
			 uint8_t **out, size_t *outlen, size_t *consumed)
{
	lzma_stream s = LZMA_STREAM_INIT;
	uint8_t *buf = NULL;
	size_t cap = 0;
	lzma_ret ret;
	int rc;

	if (lzma_stream_decoder(&s, XZ_MEMLIMIT, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = len;
	for (;;) {
		if ((rc = grow(&buf, &cap, s.total_out, max)) < 0)
			goto fail;
		s.next_out = buf + s.total_out;
		s.avail_out = cap - s.total_out;
		ret = lzma_code(&s, LZMA_FINISH);
		if (s.total_out > max) {
			rc = -EFBIG;
			goto fail;
		}
		if (ret == LZMA_STREAM_END)
			break;
		if (ret == LZMA_OK && !s.avail_out)
			continue;
		if (ret == LZMA_MEM_ERROR)
			rc = -ENOMEM;
		else if (ret == LZMA_MEMLIMIT_ERROR)
			rc = -EFBIG;
		else if (ret == LZMA_OPTIONS_ERROR)
			rc = -EOPNOTSUPP;
		else
			rc = -EBADMSG; /* data error, truncation (BUF_ERROR) */
		goto fail;
	}
	*outlen = s.total_out;
	*consumed = s.total_in;
	lzma_end(&s);
	*out = buf ? buf : malloc(1);
	return *out ? 0 : -ENOMEM;
fail:
	lzma_end(&s);
	free(buf);
	return rc;
}

static int gz_decompress(const uint8_t *in, size_t len, size_t max,
			 uint8_t **out, size_t *outlen, size_t *consumed)
{
	z_stream z;
	uint8_t *buf = NULL;
	size_t cap = 0, done = 0, used = 0;
	int ret, rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return -ENOMEM;
	for (;;) {
		if ((rc = grow(&buf, &cap, done, max)) < 0)
			goto fail;
		size_t ain = len - used, room = cap - done;
		z.next_in = (Bytef *)in + used;
		z.avail_in = ain > (1u << 30) ? (1u << 30) : (uInt)ain;
		z.next_out = buf + done;
		z.avail_out = room > (1u << 30) ? (1u << 30) : (uInt)room;
		uInt ai = z.avail_in, ao = z.avail_out;
		ret = inflate(&z, Z_NO_FLUSH);
		used += ai - z.avail_in;
		done += ao - z.avail_out;
		if (done > max) {
			rc = -EFBIG;
			goto fail;
		}
		if (ret == Z_STREAM_END)
			break;
		if (ret == Z_OK)
			continue;
		if (ret == Z_BUF_ERROR && !z.avail_out)
			continue;
		rc = ret == Z_MEM_ERROR ? -ENOMEM : -EBADMSG;
		goto fail;
	}
	inflateEnd(&z);
	*outlen = done;
	*consumed = used;
	*out = buf ? buf : malloc(1);
	return *out ? 0 : -ENOMEM;
fail:
	inflateEnd(&z);
	free(buf);
	return rc;
}

int lb_decompress(const void *in, size_t len, size_t max_out,
		  uint8_t **out, size_t *outlen, size_t *consumed)
{
	if (max_out > SIZE_MAX / 4)
		max_out = SIZE_MAX / 4;
	switch (lb_comp_detect(in, len)) {
	case LB_COMP_XZ:
		return xz_decompress(in, len, max_out, out, outlen, consumed);
	case LB_COMP_GZIP:
		return gz_decompress(in, len, max_out, out, outlen, consumed);
	case LB_COMP_NONE:
	case LB_COMP_UNKNOWN:
		return -EINVAL;
	default:
		return -EOPNOTSUPP;
	}
}
