/*
 * libFuzzer harness for the EFI 1.1 / Tiano decoders and encoder.
 * - Both decoders on the input as is (8-byte header + bitstream), output
 *   capped at 16 MiB; a success must produce exactly the declared size.
 * - Both decoders again with the header's compressed size forced to match
 *   the input, so mutations reach the bitstream instead of the header check.
 * - Auto-detection must agree with one of the explicit decoders.
 * - Small inputs: compress -> decompress round trip with each algorithm
 *   must give the input back, and auto-detection must name that algorithm.
 * Input capped at 1 MiB.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uefi/tiano.h"

#define MAX_IN   (1u << 20)
#define MAX_OUT  (16u << 20)
#define RT_MAX   4096

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void decode_both(const uint8_t *d, size_t n)
{
	uint8_t *out[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	int rc[2];

	for (int a = 0; a < 2; a++) {
		rc[a] = lb_tiano_decompress_cap((enum lb_tiano_alg)a, d, n, MAX_OUT, &out[a], &len[a]);
		if (rc[a] == 0 && (n < 8 || len[a] != get_le32(d + 4)))
			abort();
		if (rc[a] != 0 && rc[a] != -EBADMSG && rc[a] != -EFBIG && rc[a] != -ENOMEM)
			abort();
	}
	if (n <= MAX_OUT) {
		uint8_t *any = NULL;
		size_t any_len = 0;
		enum lb_tiano_alg which;
		uint32_t orig = 0;
		/* _any uses the full 64 MiB cap: only run it below our output cap */
		if (lb_tiano_info(d, n, &orig, NULL) == 0 && orig <= MAX_OUT &&
		    lb_tiano_decompress_any(d, n, &any, &any_len, &which) == 0) {
			int w = which == LB_ALG_TIANO;
			if (rc[w] || any_len != len[w] || memcmp(any, out[w], any_len))
				abort();
			free(any);
		}
	}
	free(out[0]);
	free(out[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_IN)
		return 0;
	decode_both(data, size);

	if (size >= 8) {
		uint8_t *fix = malloc(size);
		if (!fix)
			return 0;
		memcpy(fix, data, size);
		put_le32(fix, (uint32_t)(size - 8));
		decode_both(fix, size);
		free(fix);
	}

	if (size <= RT_MAX) {
		for (int a = 0; a < 2; a++) {
			uint8_t *c = NULL, *d = NULL;
			size_t cn = 0, dn = 0;
			enum lb_tiano_alg which;
			if (lb_tiano_compress((enum lb_tiano_alg)a, data, size, &c, &cn))
				abort();
			if (lb_tiano_decompress((enum lb_tiano_alg)a, c, cn, &d, &dn) || dn != size ||
			    (size && memcmp(d, data, size)))
				abort();
			free(d);
			d = NULL;
			if (lb_tiano_decompress_any(c, cn, &d, &dn, &which) || dn != size ||
			    (size && memcmp(d, data, size)) || (size && which != (enum lb_tiano_alg)a))
				abort();
			free(d);
			free(c);
		}
	}
	return 0;
}
