/*
 * Whole-buffer compression for initramfs images (host only: liblzma, zlib).
 * xz is written with a CRC32 check (the kernel's XZ decoder supports CRC32,
 * not necessarily CRC64/SHA-256) and an LZMA2 dictionary no larger than the
 * input (the kernel allocates the declared dictionary at boot); gzip with
 * zlib's deterministic header (mtime 0). Decompression detects the format
 * by its magic. All functions return 0 or a negative errno.
 */
#ifndef LB_COMPRESS_H
#define LB_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

enum lb_comp {
	LB_COMP_NONE = 0,
	LB_COMP_GZIP,
	LB_COMP_XZ,
	/* detected only (decompression: -EOPNOTSUPP) */
	LB_COMP_BZIP2,
	LB_COMP_LZMA,
	LB_COMP_LZO,
	LB_COMP_LZ4,
	LB_COMP_ZSTD,
	LB_COMP_UNKNOWN,
};

/* "none", "gzip", "xz", ... */
const char *lb_comp_name(enum lb_comp c);
/* Parse a --compress value: none, gzip (gz), xz. -EINVAL otherwise. */
int lb_comp_parse(const char *s, enum lb_comp *c);
/* What the data starts with: a known compression magic, LB_COMP_NONE for a
 * cpio header ("07070"), else LB_COMP_UNKNOWN. */
enum lb_comp lb_comp_detect(const void *buf, size_t len);

/* Compress len bytes into a malloc'd *out (*outlen bytes). c must be NONE
 * (a copy), GZIP or XZ. */
int lb_compress(enum lb_comp c, const void *in, size_t len,
		uint8_t **out, size_t *outlen);

/* Decompress ONE stream (gzip member or xz stream) at the start of in.
 * *consumed gets the number of input bytes the stream used (data may follow
 * it), *out a malloc'd buffer of *outlen bytes. -EFBIG if the output would
 * exceed max_out, -EBADMSG for corrupt or truncated data, -EOPNOTSUPP for
 * a format we detect but do not decode, -EINVAL for no known magic. */
int lb_decompress(const void *in, size_t len, size_t max_out,
		  uint8_t **out, size_t *outlen, size_t *consumed);

#endif
