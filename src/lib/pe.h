/* PE/COFF image reader (headers and section table), every offset checked.
 * Library code: negative errno, never logs. */
#ifndef LB_PE_H
#define LB_PE_H

#include <stddef.h>
#include <stdint.h>

#define LB_PE_MAX_SECTIONS 96 /* the PE/COFF specification's limit */

#define LB_PE_MACHINE_I386  0x014c
#define LB_PE_MACHINE_AMD64 0x8664
#define LB_PE_MACHINE_ARM64 0xaa64

struct lb_pe_section {
	char name[9];      /* NUL-terminated short name */
	uint32_t vsize, vaddr, raw_size, raw_off, flags;
};

struct lb_pe {
	uint16_t machine;
	int pe32plus;              /* optional header magic 0x20b */
	uint16_t subsystem;
	uint32_t entry;            /* AddressOfEntryPoint */
	uint64_t image_base;
	uint32_t size_of_image, size_of_headers;
	uint32_t section_alignment, file_alignment;
	size_t n_sections;
	struct lb_pe_section sec[LB_PE_MAX_SECTIONS];
	/* For the Authenticode digest (file offsets, all checked < len): */
	uint32_t checksum_off;     /* the optional header's CheckSum field */
	uint32_t n_datadirs;       /* data directories present (clamped to
				    * what fits in SizeOfOptionalHeader) */
	uint32_t certdir_off;      /* directory entry 4 (certificate table);
				    * 0 when n_datadirs <= 4 */
	uint32_t cert_off, cert_size; /* that entry: a file offset and size */
	uint32_t headers_end;      /* end of the section table */
};

/*
 * Parse the headers at the start of an image. `buf`/`len` hold at least the
 * headers (the whole file or its first bytes); `file_size` is the size of the
 * whole file, against which every section's raw data is checked. Returns 0,
 * -EINVAL when it is not a well-formed PE image.
 */
int lb_pe_parse(const uint8_t *buf, size_t len, uint64_t file_size,
		struct lb_pe *pe);

/* The first section with this name, or NULL. */
const struct lb_pe_section *lb_pe_find(const struct lb_pe *pe,
				       const char *name);

/*
 * A unified kernel image's section as systemd-stub (257+) picks it for the
 * profile it boots by default, profile 0: the first section of that name
 * among profile 0's sections (the first .profile, itself included, up to
 * the next .profile), else among the base profile's (those before the
 * first .profile), else NULL. A UKI without .profile: the first of that
 * name. Both what boots (uki.c, bls.c) and what is measured (measure.c)
 * pick their sections here, so they are the same sections.
 */
const struct lb_pe_section *lb_pe_uki_section(const struct lb_pe *pe, const char *name);

/* File span of a section's data: the raw data, cut to VirtualSize when that
 * is smaller and nonzero (raw data is padded to FileAlignment). */
void lb_pe_span(const struct lb_pe_section *s, uint64_t *off, uint64_t *len);

#endif
