/* Fuzz the efivarfs payload parser, UCS-2 <-> UTF-8 (each direction must
 * give back what the other took) and the boot counter in file names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bootcount.h"
#include "efivar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char s[8192], u8[3 * LB_EFIVAR_MAX + 1], back[3 * LB_EFIVAR_MAX + 1];
	static uint8_t u16[2 * 8192 + 2];
	const uint8_t *v;
	size_t vl, n;
	uint32_t a;

	if (size > (1u << 20))
		return 0;
	if (!lb_efivar_parse(data, size, &a, &v, &vl)) {
		if (vl > LB_EFIVAR_MAX || v != data + 4)
			abort();
		if (!lb_ucs2_to_utf8(v, vl, u8, sizeof(u8))) {
			/* back to UCS-2: the same units up to the first NUL,
			 * unless a surrogate pair made a code point above U+FFFF */
			int r = lb_utf8_to_ucs2(u8, u16, sizeof(u16), &n);
			if (!r && (n > vl + 2 || memcmp(u16, v, n - 2)))
				abort();
			if (!r && (n - 2 < vl && (v[n - 2] || v[n - 1])))
				abort();
		}
	}
	/* the input as a string */
	n = size < sizeof(s) - 1 ? size : sizeof(s) - 1;
	memcpy(s, data, n);
	s[n] = 0;
	if (!lb_utf8_to_ucs2(s, u16, sizeof(u16), &vl)) {
		if (vl < 2 || u16[vl - 1] || u16[vl - 2])
			abort();
		if (lb_ucs2_to_utf8(u16, vl, back, sizeof(back)) || strcmp(back, s))
			abort();
	}
	{
		struct lb_bootcount bc;
		char next[8300];
		if (!lb_bootcount_parse(s, ".conf", &bc)) {
			if (bc.prefix >= strlen(s) || s[bc.prefix] != '+' || bc.left < 0 || bc.done < 0)
				abort();
			if (lb_bootcount_next(s, ".conf", next, sizeof(next)) ||
			    lb_bootcount_parse(next, ".conf", &bc))
				abort();
		}
		lb_bootcount_id_match(s, "a+1-2.conf", ".conf", "a");
	}
	return 0;
}
