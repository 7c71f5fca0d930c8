/* Fuzz the SNTP reply checks (src/net/sntp.c). The first 8 bytes are the
 * nonce our request carried (so the origin check can pass), the first 8
 * after them the era pivot; the rest is the reply. Checks the parser's
 * promises: on success the reply is mode 4, version 3/4, stratum 1..15,
 * LI not 3, transmit non-zero and the origin our nonce; the era
 * conversion lands within 68 years of the pivot. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sntp.h"

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_sntp_reply r;
	const char *why = NULL;
	uint64_t nonce;
	int64_t pivot, t;
	uint32_t ns;
	int rc;

	if (size < 16 || size > (1u << 16))
		return 0;
	nonce = get64(data);
	/* pivots from 1970 to about 2500 */
	pivot = (int64_t)(get64(data + 8) % 16725225600ull);
	memset(&r, 0, sizeof(r));
	rc = lb_sntp_parse(data + 16, size - 16, nonce, &r, &why);
	if (!why || (rc && !*why))
		abort();
	if (rc)
		return 0;
	if (r.mode != 4 || (r.version != 3 && r.version != 4) || !r.stratum ||
	    r.stratum > 15 || r.li == 3 || !r.xmit || r.orig != nonce)
		abort();
	t = lb_sntp_unix(r.xmit, pivot, &ns);
	if (ns >= 1000000000u || t < pivot - 2147483648ll || t >= pivot + 2147483648ll)
		abort();
	if ((lb_sntp_from_unix(t, ns) >> 32) != (r.xmit >> 32))
		abort();
	return 0;
}
