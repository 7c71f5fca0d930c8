/* Fuzz the console key decoder: any byte stream (0xff: a pause) gives
 * events that together cover every byte fed, each within its cap. */
#include <stdint.h>
#include <stdlib.h>

#include "keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_keydec d;
	struct lb_key k;
	size_t fed = 0, covered = 0;

	if (size > (1u << 20))
		return 0;
	lb_key_init(&d);
	for (size_t i = 0; i <= size; i++) {
		int got;

		if (i == size || (data[i] == 0xff && i + 1 < size && data[i + 1] == 0xff)) {
			got = lb_key_flush(&d, &k);
			if (i < size)
				i++;
		} else {
			fed++;
			got = lb_key_feed(&d, data[i], &k);
		}
		if (!got)
			continue;
		if (k.kind < LB_KEY_NOISE || k.kind > LB_KEY_SPECIAL || !k.n ||
		    k.n > LB_KEY_STR_MAX)
			abort();
		covered += k.n;
	}
	if (covered != fed || lb_key_busy(&d))
		abort();
	return 0;
}
