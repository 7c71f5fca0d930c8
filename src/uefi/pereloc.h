/*
 * PE/COFF base relocations for lbootdxe on AArch64 (docs/arm64.md).
 * binutils' ld writes no PE for AArch64; lbootdxe is linked as an ELF PIE
 * at address 0 and converted by `objcopy -O pei-aarch64-little`, which
 * writes no .reloc, and AAVMF refuses an image without one ("relocations
 * stripped"). These make it from the ELF's R_AARCH64_RELATIVE relocations:
 * one IMAGE_REL_BASED_DIR64 entry per 64-bit pointer, one block per 4 KiB
 * page (`lboot pereloc`, mk/arm64.mk). The ELF is read as untrusted bytes:
 * every offset, size and count is checked.
 */
#ifndef LB_PERELOC_H
#define LB_PERELOC_H

#include <stddef.h>
#include <stdint.h>

#define LB_PERELOC_PAGE  4096u
#define LB_PERELOC_MAX   (1u << 20)  /* relocations taken at most */
#define LB_PE_REL_ABSOLUTE 0         /* padding entry */
#define LB_PE_REL_DIR64    10

/*
 * The RVAs (ELF virtual addresses: the image is linked at 0) of the
 * pointers an ELF64 little-endian AArch64 PIE needs fixed when loaded
 * elsewhere: the r_offset of every R_AARCH64_RELATIVE in its SHT_RELA
 * sections, sorted. Each is checked: it lies in an allocated section with
 * bytes in the file (not .bss), and the 8 bytes stored there equal the
 * addend (the value at base 0, which ld -pie writes; a PE loader adds the
 * load address to it). *rva is malloc'ed (NULL when *n is 0).
 * Returns 0, or -EINVAL (not an ELF64 LE AArch64 ET_DYN), -EBADMSG (a
 * header, section or entry out of bounds, a bad stored value, two at one
 * address), -ENOTSUP (another relocation type: a symbol the PE loader
 * cannot resolve; REL or RELR sections), -E2BIG, -ENOMEM; why says.
 */
int lb_elf_relative(const uint8_t *elf, size_t len, uint32_t **rva, size_t *n,
		    char *why, size_t whysz);

/*
 * The .reloc section's bytes for rva[0..n) (sorted, strictly increasing):
 * per 4 KiB page one block: u32 page RVA, u32 block size (8 + 2 per entry,
 * a multiple of 4: an odd count gets an ABSOLUTE entry as padding), then
 * u16 entries (DIR64 << 12 | offset in the page). out NULL: *len only.
 * Returns 0, -EINVAL (not strictly increasing), -ENOSPC (cap too small:
 * *len says how much is needed).
 */
int lb_pe_reloc_build(const uint32_t *rva, size_t n, uint8_t *out, size_t cap, size_t *len);

/*
 * Walk a .reloc section's bytes: fn(arg, rva, type) for each entry but the
 * ABSOLUTE padding; a non-zero return stops the walk and is returned.
 * -EBADMSG: a block that is shorter than its header, not a multiple of 4,
 * longer than what is left, or a page RVA not 4 KiB aligned.
 */
int lb_pe_reloc_walk(const uint8_t *b, size_t len,
		     int (*fn)(void *arg, uint32_t rva, unsigned type), void *arg);

#endif
