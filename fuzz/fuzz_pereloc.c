/* Fuzz the PE base relocation maker (src/uefi/pereloc.c): the first byte
 * picks the input: 0 an AArch64 ELF (its R_AARCH64_RELATIVE entries, then
 * the .reloc built from them walked back: the same RVAs, in order), 1 the
 * bytes of a .reloc section (walked). Inputs are capped at 1 MiB. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uefi/pereloc.h"

struct cmp { const uint32_t *rva; size_t n, at; };

static int same(void *arg, uint32_t rva, unsigned type)
{
	struct cmp *c = arg;

	if (type != LB_PE_REL_DIR64 || c->at >= c->n || c->rva[c->at] != rva)
		abort(); /* build and walk disagree */
	c->at++;
	return 0;
}

static int count(void *arg, uint32_t rva, unsigned type)
{
	(void)rva; (void)type;
	++*(size_t *)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256];

	if (size < 1 || size > (1u << 20))
		return 0;
	if (data[0] == 0) {
		uint32_t *rva;
		size_t n, len;

		if (lb_elf_relative(data + 1, size - 1, &rva, &n, why, sizeof(why)))
			return 0;
		if (!lb_pe_reloc_build(rva, n, NULL, 0, &len)) {
			uint8_t *b = malloc(len ? len : 1);
			struct cmp c = { rva, n, 0 };

			if (b && !lb_pe_reloc_build(rva, n, b, len, &len)) {
				if (lb_pe_reloc_walk(b, len, same, &c) || c.at != n)
					abort();
			}
			free(b);
		}
		free(rva);
	} else {
		size_t k = 0;

		(void)lb_pe_reloc_walk(data + 1, size - 1, count, &k);
	}
	return 0;
}
