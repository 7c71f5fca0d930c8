/* Base32 encoder (RFC 4648): see base32.h. */
#include <errno.h>

#include "base32.h"

long lb_base32_encode(const uint8_t *in, size_t len, int pad, char *out, size_t cap)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	size_t n, k = 0;
	uint32_t acc = 0;
	unsigned bits = 0;

	if (len > ((size_t)-1 - 8) / 8 * 5 - 5)
		return -ENOSPC;
	n = (len * 8 + 4) / 5;
	if (pad)
		n = (n + 7) / 8 * 8;
	if (n >= cap || n > (size_t)0x7fffffff)
		return -ENOSPC;
	for (size_t i = 0; i < len; i++) {
		acc = (acc << 8 | in[i]) & 0xffff;
		bits += 8;
		while (bits >= 5) {
			bits -= 5;
			out[k++] = a[(acc >> bits) & 31];
		}
	}
	if (bits)
		out[k++] = a[(acc << (5 - bits)) & 31];
	while (k < n)
		out[k++] = '=';
	out[k] = 0;
	return (long)k;
}
