/*
 * EFI 1.1 and Tiano compression (UEFI spec "Compression Algorithm
 * Specification"; EDK2 BaseUefiDecompressLib / TianoCompress), both ways.
 * Host-only library, libc only.
 *
 * Both formats share one layout: an 8-byte little-endian header
 * (UINT32 compressed size of the bitstream, UINT32 original size) followed
 * by the bitstream: LZ77 (sliding window) + static Huffman blocks.
 * They differ only in the window / position-set parameters:
 *   EFI 1.1: 8 KiB window (WNDBIT 13), NP 14 position codes, PBIT 4
 *   Tiano:  512 KiB window (WNDBIT 19), NP 20 position codes, PBIT 5
 * EFI_COMPRESSION_SECTION with CompressionType 0x01
 * (EFI_STANDARD_COMPRESSION) is used for both; the section does not say
 * which: use lb_tiano_decompress_any().
 *
 * All functions return 0 or a negative errno; output parameters are written
 * only on success. Decoders treat input as untrusted and are stricter than
 * EDK2's: Huffman codes must be complete, code lengths <= 16, zero runs stay
 * inside the declared count, position symbols < NP, match distances within
 * the output so far, matches must not run past the declared size, and the
 * bits consumed must stay within comp_size (lookahead past it reads zeros,
 * as EDK2 does).
 */
#ifndef LB_UEFI_TIANO_H
#define LB_UEFI_TIANO_H

#include <stddef.h>
#include <stdint.h>

enum lb_tiano_alg {
	LB_ALG_EFI11 = 0,
	LB_ALG_TIANO = 1,
};

/* Largest original size the decoders accept (-EFBIG above it). */
#define LB_TIANO_MAX_OUT (64u << 20)
/* Size of the header in front of the bitstream. */
#define LB_TIANO_HDR_SIZE 8u

/*
 * Read the 8-byte header and validate it against len: comp_size + 8 must
 * fit in len (trailing bytes, e.g. section alignment padding, are allowed).
 * -EINVAL: NULL src with len > 0; -EBADMSG: len < 8 or comp_size + 8 > len;
 * -EFBIG: orig_size > LB_TIANO_MAX_OUT. Either out pointer may be NULL.
 */
int lb_tiano_info(const uint8_t *src, size_t len, uint32_t *orig_size, uint32_t *comp_size);

/*
 * Decompress src (header + bitstream) into a malloc'd buffer (*out, free()
 * it; *out_len = original size; a zero-length result gives a non-NULL
 * 1-byte allocation). -EINVAL bad arguments/alg, -EBADMSG corrupt or
 * truncated stream, -ENOMEM, -EFBIG original size above LB_TIANO_MAX_OUT.
 */
int lb_tiano_decompress(enum lb_tiano_alg alg, const uint8_t *src, size_t len,
			uint8_t **out, size_t *out_len);

/*
 * Same, with an explicit output cap (bytes; must be <= LB_TIANO_MAX_OUT).
 * Streams whose original size exceeds max_out fail with -EFBIG.
 */
int lb_tiano_decompress_cap(enum lb_tiano_alg alg, const uint8_t *src, size_t len,
			    size_t max_out, uint8_t **out, size_t *out_len);

/*
 * Try EFI 1.1 then Tiano; keep the first that decodes consistently (whole
 * output produced, no error, bitstream consumed within comp_size). *which
 * (may be NULL) receives the algorithm used. Errors as lb_tiano_decompress
 * (the EFI 1.1 error if both fail).
 */
int lb_tiano_decompress_any(const uint8_t *src, size_t len, uint8_t **out,
			    size_t *out_len, enum lb_tiano_alg *which);

/*
 * Same, for callers that can judge a result (e.g. a firmware parser that
 * checks the output is a valid section stream, as UEFITool does): when both
 * algorithms decode, accept(data, len, ctx) == 0 marks a plausible output;
 * a result accepted alone wins, otherwise the cleaner decode (EFI 1.1 on
 * ties). accept may be NULL (= lb_tiano_decompress_any).
 */
int lb_tiano_decompress_any_ex(const uint8_t *src, size_t len,
			       int (*accept)(const uint8_t *data, size_t len, void *ctx), void *ctx,
			       uint8_t **out, size_t *out_len, enum lb_tiano_alg *which);

/*
 * Compress src into a complete section payload (8-byte header + bitstream)
 * in a malloc'd buffer. Input larger than LB_TIANO_MAX_OUT: -EFBIG.
 * -EINVAL bad arguments/alg, -ENOMEM. The result is checked not to decode
 * under the other algorithm (re-encoded with a padded position-set count if
 * it does, up to 8 tries), so auto-detection by us or UEFITool is
 * unambiguous. Not byte-identical to EDK2's compressor.
 */
int lb_tiano_compress(enum lb_tiano_alg alg, const uint8_t *src, size_t len,
		      uint8_t **out, size_t *out_len);

#endif
