/* Fuzz the Authenticode digest over arbitrary PE-like bytes: it must refuse
 * or digest without reading outside the buffer. */
#include <stdint.h>

#include "authenticode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_digests d;

	if (size > (1u << 20))
		return 0;
	(void)lb_authenticode(data, size, LB_HASH_BIT(LB_SHA256) |
			      LB_HASH_BIT(LB_SHA1), &d);
	return 0;
}
