/* lboot pereloc: PE base relocations (.reloc) from an AArch64 ELF PIE. */
#include "lboot.h"

LB_APPLET(pereloc, LB_HOST,
"usage: lboot pereloc ELF -o RELOC\n"
"Write the bytes of a PE/COFF .reloc section for ELF, an ELF64 AArch64\n"
"position-independent image linked at address 0 (lbootdxe for arm64,\n"
"mk/arm64.mk): one DIR64 entry per R_AARCH64_RELATIVE relocation, one block\n"
"per 4 KiB page. Refuses any other relocation (a symbol a PE loader cannot\n"
"resolve) and relocations whose stored value is not their addend.\n"
"`objcopy -O pei-aarch64-little --add-section .reloc=RELOC` puts it in the PE.\n"
"  -o FILE    where to write (replaced atomically); prints the count on stderr\n"
"Exit: 0 ok, 1 failure, 2 usage.\n")

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "uefi/pereloc.h"

int pereloc_main(int argc, char **argv)
{
	static const struct option lo[] = { { "output", required_argument, 0, 'o' }, { 0, 0, 0, 0 } };
	const char *out = NULL;
	char why[256] = "";
	uint8_t *elf = NULL, *rel = NULL;
	uint32_t *rva = NULL;
	size_t len, n, rlen;
	int c, rc, ret = 1;

	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		if (c != 'o')
			return 2;
		out = optarg;
	}
	if (!out || optind != argc - 1) {
		lb_err("usage: lboot pereloc ELF -o RELOC");
		return 2;
	}
	if ((rc = lb_read_path(argv[optind], 64u << 20, &elf, &len))) {
		lb_err("%s: %s", argv[optind], strerror(-rc));
		return 1;
	}
	if ((rc = lb_elf_relative(elf, len, &rva, &n, why, sizeof(why)))) {
		lb_err("%s: %s", argv[optind], why);
		goto out;
	}
	if (!n) {
		lb_err("%s: no R_AARCH64_RELATIVE relocation (an image with none needs no "
		       ".reloc; is it linked with -pie?)", argv[optind]);
		goto out;
	}
	lb_pe_reloc_build(rva, n, NULL, 0, &rlen);
	if (!(rel = malloc(rlen)) || lb_pe_reloc_build(rva, n, rel, rlen, &rlen)) {
		lb_err("%s: out of memory", argv[optind]);
		goto out;
	}
	if ((rc = lb_write_atomic(out, rel, rlen, 0644))) {
		lb_err("%s: %s", out, strerror(-rc));
		goto out;
	}
	fprintf(stderr, "pereloc: %s: %zu relocations, %zu bytes of .reloc\n", argv[optind], n, rlen);
	ret = 0;
out:
	free(elf);
	free(rva);
	free(rel);
	return ret;
}
