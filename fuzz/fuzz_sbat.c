/* Fuzz the .sbat CSV parser and the image check (sbat.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct lb_sbat_rule rules[] = { { "grub", 3 }, { "systemd", 2 }, { "c", 1 } };
	struct lb_sbat_entry e[LB_SBAT_MAX_ENTRIES];
	char err[200];
	size_t n = 0;

	if (size > (1u << 20))
		return 0;
	if (!lb_sbat_parse(data, size, e, LB_SBAT_MAX_ENTRIES, &n)) {
		if (!n || n > LB_SBAT_MAX_ENTRIES)
			abort();
		for (size_t i = 0; i < n; i++) {
			if (!e[i].name_len || e[i].name_len > LB_SBAT_MAX_NAME ||
			    (const uint8_t *)e[i].name < data ||
			    (const uint8_t *)e[i].name + e[i].name_len > data + size ||
			    memchr(e[i].name, ',', e[i].name_len))
				abort();
		}
	}
	/* the same bytes as a whole PE image */
	(void)lb_sbat_check(data, size, rules, 3, err, sizeof(err));
	return 0;
}
