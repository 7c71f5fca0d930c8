/* Fuzz LZ4 (src/cbfs/lz4.c): the input decoded as a frame (any bytes: no
 * crash, no read or write past either buffer; what decodes re-encodes and
 * decodes to the same bytes), and the input encoded and decoded back to
 * the same bytes: first byte 0 (or an empty input) plain, 1 the rest tiled
 * to (second byte + 1) * 256 bytes (long runs, up to the 64 KiB window and
 * block), 260 KiB when the second byte is 254 (1 MiB blocks, matches
 * across the window's edge), 4 MiB + 64 KiB when it is 255 (two 4 MiB-size
 * blocks; the large ones are rare: they are slow under ASan), 2 the
 * rest's bytes each repeated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cbfs/cbfs.h"
#include "le.h"

static void round_trip(const uint8_t *d, size_t n)
{
	uint8_t *z = NULL, *back = malloc(n + 1);
	size_t zl = 0;

	if (!back || lb_lz4f_encode(d, n, &z, &zl))
		abort();
	/* the frame cbfstool writes: header, bound, no more than it needs */
	if (zl < 11 || zl > lb_lz4f_bound(n) || le32(z) != 0x184D2204u || z[4] != 0x60 ||
	    z[6] != (uint8_t)(lb_xxh32(z + 4, 2, 0) >> 8))
		abort();
	if (lb_lz4f_decode(z, zl, back, n) != (long)n || (n && memcmp(back, d, n)))
		abort();
	/* one byte short of room: refused, not overrun */
	if (n && lb_lz4f_decode(z, zl, back, n - 1) >= 0)
		abort();
	free(z);
	free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap = 1u << 20;
	uint8_t *out;
	long r;

	if (size > (1u << 20))
		return 0;
	/* the input as a frame, into a bounded buffer */
	if (!(out = malloc(cap)))
		return 0;
	r = lb_lz4f_decode(data, size, out, cap);
	if (r > (long)cap)
		abort();
	if (r >= 0)
		round_trip(out, (size_t)r);
	free(out);

	if (!size || data[0] == 0 || data[0] > 2) {
		round_trip(data, size);
	} else if (data[0] == 1 && size > 2) {
		size_t n = data[1] == 255 ? (4u << 20) + 65536 :
			   data[1] == 254 ? 260u << 10 : ((size_t)data[1] + 1) * 256;
		size_t m = size - 2;
		uint8_t *t = malloc(n);

		if (!t)
			return 0;
		for (size_t i = 0; i < n; i++)
			t[i] = data[2 + i % m];
		round_trip(t, n);
		free(t);
	} else if (data[0] == 2) {
		size_t n = 0;
		uint8_t *t = malloc((size - 1) * 64 + 1);

		if (!t)
			return 0;
		for (size_t i = 1; i < size; i++) {
			size_t k = 1 + (data[i] & 63);

			memset(t + n, data[i], k);
			n += k;
		}
		round_trip(t, n);
		free(t);
	}
	return 0;
}
