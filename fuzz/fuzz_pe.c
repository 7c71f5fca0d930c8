/* Fuzz the PE/COFF header reader and the UKI split. */
#include <stdint.h>
#include <stdlib.h>

#include "pe.h"
#include "uki.h"

static void in(const struct lb_span *s, size_t size)
{
	if (s->len && (s->off > size || s->len > size - s->off))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_uki u;
	struct lb_pe *pe;

	if (size > (1u << 20))
		return 0;
	if (!lb_uki_split(data, size, &u)) {
		in(&u.linux_, size);
		in(&u.initrd, size);
		in(&u.ucode, size);
		in(&u.cmdline, size);
		in(&u.osrel, size);
		in(&u.uname, size);
		in(&u.dtb, size);
		if (!u.linux_.len)
			abort();
	}
	/* headers-only view: a prefix of the file checked against a larger
	 * claimed file size */
	pe = malloc(sizeof(*pe));
	if (pe && size > 64) {
		if (!lb_pe_parse(data, size / 2, size, pe)) {
			for (size_t i = 0; i < pe->n_sections; i++) {
				uint64_t off, len;
				lb_pe_span(&pe->sec[i], &off, &len);
				if (len && off + len > size)
					abort();
			}
			(void)lb_pe_find(pe, ".linux");
		}
	}
	free(pe);
	return 0;
}
