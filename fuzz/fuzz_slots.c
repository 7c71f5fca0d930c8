/* Fuzz the payload slot parsers (src/firmware/slots.h), which lbootdxe and
 * lboot run on flash contents anyone with flash access can write: the input
 * is a whole flash image (slots found by lb_slot_find), and its first 40
 * bytes are also tried as a slot table with the image as the flash below
 * its top (lb_slot_pick). Every read must stay inside the input; a slot
 * that is picked must check again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slots.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_slot_table t;
	struct lb_slot_hdr h[2], one;
	unsigned long long off;
	int rc[2], i;

	if (size > (4u << 20))
		return 0;
	if (!lb_slot_find(data, size, &off, &t, &one)) {
		if (off + t.size > size || lb_slot_check(data + off, &t, &one) != LB_SLOT_OK)
			abort();
	}
	if (lb_slot_table_parse(data, size, size, &t))
		return 0;
	if (t.below[0] > size || t.below[1] > size || t.below[0] < t.size || t.below[1] < t.size)
		abort();
	i = lb_slot_pick(data + size, &t, h, rc);
	if (i >= 0 && (rc[i] != LB_SLOT_OK || h[i].vol_len > t.size - LB_SLOT_HDR ||
		       lb_slot_check(data + size - t.below[i], &t, &one) != LB_SLOT_OK))
		abort();
	for (int k = 0; k < 2; k++)
		(void)lb_slot_why(rc[k]);
	return 0;
}
