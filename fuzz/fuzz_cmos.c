/* Fuzz coreboot's CMOS option table reader (src/firmware/cmos.h): the
 * input is the table (as coreboot copies cmos_layout.bin into its table);
 * every entry it accepts is read and written on a CMOS image, and stays
 * inside it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmos.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lb_cmos_layout lay;
	uint8_t img[LB_CMOS_SIZE + 16];
	char why[256], s[LB_CMOS_SIZE + 1];

	if (size > (1u << 16) || lb_cmos_layout_parse(data, size, &lay, why, sizeof(why)))
		return 0;
	memset(img, 0xa5, sizeof(img));
	for (size_t i = 0; i < lay.n; i++) {
		const struct lb_cmos_entry *e = &lay.e[i];

		if (e->bit + e->length > LB_CMOS_SIZE * 8 || lb_cmos_find(&lay, e->name) != e)
			abort();
		if (e->config == 's') {
			memset(s, 'x', e->length / 8);
			s[e->length / 8] = 0;
			if (lb_cmos_set_str(img, e, s))
				abort();
			lb_cmos_get_str(img, e, s);
			if (strlen(s) != e->length / 8)
				abort();
		} else if (e->config != 'r' && e->length > 64) {
			if (lb_cmos_set(img, e, 1) != -E2BIG) /* too wide: refused */
				abort();
		} else if (e->config != 'r') {
			uint64_t v = e->length == 64 ? ~0ull : (1ull << e->length) - 1;

			if (lb_cmos_set(img, e, v) || lb_cmos_get(img, e) != v)
				abort();
			(void)lb_cmos_enum_text(&lay, e, v);
		}
	}
	lb_cmos_cks_set(&lay, img);
	if (!lb_cmos_cks_ok(&lay, img))
		abort();
	for (size_t i = LB_CMOS_SIZE; i < sizeof(img); i++)
		if (img[i] != 0xa5)
			abort(); /* nothing written past the CMOS */
	return 0;
}
