/*
 * PE/COFF headers: MZ DOS header -> e_lfanew -> "PE\0\0" -> COFF file header
 * (20 bytes) -> optional header (PE32 0x10b / PE32+ 0x20b) of
 * SizeOfOptionalHeader bytes -> NumberOfSections section headers of 40 bytes.
 */
#include <errno.h>
#include <string.h>

#include "le.h"
#include "pe.h"

int lb_pe_parse(const uint8_t *buf, size_t len, uint64_t file_size,
		struct lb_pe *out)
{
	struct lb_pe tmp, *pe = &tmp; /* *out is written only on success */
	uint32_t lfanew;
	uint16_t nsec, optsz, magic;
	size_t coff, opt, sect, dd;
	uint32_t ndd;

	if (!buf || len > file_size || len < 0x40 || buf[0] != 'M' ||
	    buf[1] != 'Z')
		return -EINVAL;
	lfanew = le32(buf + 0x3c);
	if (lfanew < 0x40 || lfanew % 4 || (uint64_t)lfanew + 24 > len)
		return -EINVAL;
	if (memcmp(buf + lfanew, "PE\0\0", 4))
		return -EINVAL;
	coff = (size_t)lfanew + 4;
	memset(pe, 0, sizeof(*pe));
	pe->machine = le16(buf + coff);
	nsec = le16(buf + coff + 2);
	optsz = le16(buf + coff + 16);
	if (nsec > LB_PE_MAX_SECTIONS)
		return -EINVAL;
	opt = coff + 20;
	if (optsz < 2 || (uint64_t)opt + optsz > len)
		return -EINVAL;
	magic = le16(buf + opt);
	if (magic == 0x10b) {
		if (optsz < 96)
			return -EINVAL;
		pe->image_base = le32(buf + opt + 28);
		ndd = le32(buf + opt + 92);
		dd = 96;
	} else if (magic == 0x20b) {
		if (optsz < 112)
			return -EINVAL;
		pe->pe32plus = 1;
		pe->image_base = le64(buf + opt + 24);
		ndd = le32(buf + opt + 108);
		dd = 112;
	} else {
		return -EINVAL;
	}
	pe->entry = le32(buf + opt + 16);
	pe->section_alignment = le32(buf + opt + 32);
	pe->file_alignment = le32(buf + opt + 36);
	pe->size_of_image = le32(buf + opt + 56);
	pe->size_of_headers = le32(buf + opt + 60);
	pe->subsystem = le16(buf + opt + 68);
	pe->checksum_off = (uint32_t)(opt + 64);
	if (ndd > (optsz - dd) / 8)
		ndd = (uint32_t)((optsz - dd) / 8);
	pe->n_datadirs = ndd;
	if (ndd > 4) {
		pe->certdir_off = (uint32_t)(opt + dd + 4 * 8);
		pe->cert_off = le32(buf + pe->certdir_off);
		pe->cert_size = le32(buf + pe->certdir_off + 4);
	}
	sect = opt + optsz;
	if ((uint64_t)sect + (uint64_t)nsec * 40 > len)
		return -EINVAL;
	pe->headers_end = (uint32_t)(sect + (size_t)nsec * 40);
	for (size_t i = 0; i < nsec; i++) {
		const uint8_t *h = buf + sect + i * 40;
		struct lb_pe_section *s = &pe->sec[i];

		memcpy(s->name, h, 8);
		s->name[8] = 0;
		s->vsize = le32(h + 8);
		s->vaddr = le32(h + 12);
		s->raw_size = le32(h + 16);
		s->raw_off = le32(h + 20);
		s->flags = le32(h + 36);
		if (s->raw_size &&
		    (uint64_t)s->raw_off + s->raw_size > file_size)
			return -EINVAL;
	}
	pe->n_sections = nsec;
	*out = tmp;
	return 0;
}

const struct lb_pe_section *lb_pe_find(const struct lb_pe *pe,
				       const char *name)
{
	size_t n = strlen(name);

	if (n > 8)
		return NULL;
	for (size_t i = 0; i < pe->n_sections; i++)
		if (!strcmp(pe->sec[i].name, name))
			return &pe->sec[i];
	return NULL;
}

/* The first section named name in sec[from, to). */
static const struct lb_pe_section *find_in(const struct lb_pe *pe, size_t from, size_t to,
					   const char *name)
{
	for (size_t i = from; i < to; i++)
		if (!strcmp(pe->sec[i].name, name))
			return &pe->sec[i];
	return NULL;
}

const struct lb_pe_section *lb_pe_uki_section(const struct lb_pe *pe, const char *name)
{
	const struct lb_pe_section *s;
	size_t base, end;

	if (strlen(name) > 8)
		return NULL;
	/* the base profile: the sections before the first .profile */
	for (base = 0; base < pe->n_sections && strcmp(pe->sec[base].name, ".profile"); base++)
		;
	/* profile 0: from the first .profile up to the next one; its
	 * sections override the base's (systemd-stub's find_sections) */
	for (end = base + 1; end < pe->n_sections && strcmp(pe->sec[end].name, ".profile"); end++)
		;
	if (base < pe->n_sections && (s = find_in(pe, base, end, name)))
		return s;
	return find_in(pe, 0, base, name);
}

void lb_pe_span(const struct lb_pe_section *s, uint64_t *off, uint64_t *len)
{
	uint64_t l = s->raw_size;

	if (s->vsize && s->vsize < l)
		l = s->vsize;
	*off = l ? s->raw_off : 0;
	*len = l;
}
