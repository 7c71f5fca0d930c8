/* Fuzz the TOTP NV record parser (what lboot reads back from TPM NV at
 * every boot): whatever it accepts must rebuild to the same bytes. The
 * same input also goes through the QR encoder (bounded length, level and
 * mask from the first byte; a forced mask: the automatic choice runs the
 * penalty eight times and is covered by tests/unit/test_qr.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qr.h"
#include "totprec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lb_totprec r;
	static uint8_t out[LB_TOTPREC_MAX];
	static struct lb_qr q;
	size_t len;

	if (size > 1 << 16)
		return 0;
	if (!lb_totprec_parse(data, size, &r)) {
		if (lb_totprec_build(&r, out, sizeof(out), &len) || len != size ||
		    memcmp(out, data, size))
			abort();
	}
	if (size) {
		int ecc = data[0] & 1, mask = (data[0] >> 1) % 8;
		size_t n = size - 1 > 300 ? 300 : size - 1;
		int rc = lb_qr_encode(data + 1, n, ecc, mask, &q);

		if (rc == 0 && (q.version < 1 || q.version > LB_QR_MAX_VERSION || q.mask < 0 ||
				q.mask > 7 || (mask >= 0 && q.mask != mask)))
			abort();
		if (rc && n <= 213)
			abort();
	}
	return 0;
}
