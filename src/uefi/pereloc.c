/* PE base relocations from an AArch64 ELF PIE: see pereloc.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "le.h"
#include "pereloc.h"

#define EM_AARCH64_         183
#define ET_DYN_             3
#define SHT_RELA_           4
#define SHT_NOBITS_         8
#define SHT_REL_            9
#define SHT_RELR_           19
#define SHF_ALLOC_          2
#define R_AARCH64_RELATIVE_ 1027
#define EHDR_SIZE 64
#define SHDR_SIZE 64
#define RELA_SIZE 24

struct shdr {
	uint32_t type;
	uint64_t flags, addr, off, size, entsize;
};

static void shdr_at(const uint8_t *p, struct shdr *s)
{
	s->type = le32(p + 4);
	s->flags = le64(p + 8);
	s->addr = le64(p + 16);
	s->off = le64(p + 24);
	s->size = le64(p + 32);
	s->entsize = le64(p + 56);
}

/* [off, off + size) inside [0, len), without overflow */
static int in_file(uint64_t off, uint64_t size, size_t len)
{
	return off <= len && size <= len - off;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* the 8 bytes the image holds at address va: 0, or -EBADMSG when no
 * allocated section with file bytes holds all 8 */
static int value_at(const uint8_t *elf, size_t len, const uint8_t *sh, unsigned shnum,
		    uint64_t va, uint64_t *v)
{
	for (unsigned i = 0; i < shnum; i++) {
		struct shdr s;

		shdr_at(sh + (size_t)i * SHDR_SIZE, &s);
		if (!(s.flags & SHF_ALLOC_) || s.type == SHT_NOBITS_ || va < s.addr ||
		    va - s.addr > s.size || s.size - (va - s.addr) < 8)
			continue;
		if (!in_file(s.off, s.size, len))
			return -EBADMSG;
		*v = le64(elf + s.off + (va - s.addr));
		return 0;
	}
	return -EBADMSG;
}

int lb_elf_relative(const uint8_t *elf, size_t len, uint32_t **rva, size_t *n,
		    char *why, size_t whysz)
{
	uint64_t shoff;
	unsigned shnum, shentsize;
	const uint8_t *sh;
	uint32_t *v = NULL;
	size_t cnt = 0, cap = 0;
	int rc;

	*rva = NULL;
	*n = 0;
	if (len < EHDR_SIZE || memcmp(elf, "\177ELF", 4) || elf[4] != 2 || elf[5] != 1)
		return lb_whyf(why, whysz, -EINVAL, "not an ELF64 little-endian file");
	if (le16(elf + 18) != EM_AARCH64_ || le16(elf + 16) != ET_DYN_)
		return lb_whyf(why, whysz, -EINVAL,
			       "not an AArch64 position-independent ELF (machine %u, type %u)",
			       le16(elf + 18), le16(elf + 16));
	shoff = le64(elf + 40);
	shentsize = le16(elf + 58);
	shnum = le16(elf + 60);
	if (shentsize != SHDR_SIZE || !in_file(shoff, (uint64_t)shnum * SHDR_SIZE, len))
		return lb_whyf(why, whysz, -EBADMSG,
			       "section headers (%u of %u bytes at %llu) outside the file's %zu bytes",
			       shnum, shentsize, (unsigned long long)shoff, len);
	sh = elf + shoff;
	for (unsigned i = 0; i < shnum; i++) {
		struct shdr s;

		shdr_at(sh + (size_t)i * SHDR_SIZE, &s);
		if ((s.type == SHT_REL_ || s.type == SHT_RELR_) && s.size) {
			rc = lb_whyf(why, whysz, -ENOTSUP, "section %u: %s relocations (only RELA)",
				     i, s.type == SHT_REL_ ? "REL" : "RELR");
			goto fail;
		}
		if (s.type != SHT_RELA_)
			continue;
		if (s.entsize != RELA_SIZE || s.size % RELA_SIZE || !in_file(s.off, s.size, len)) {
			rc = lb_whyf(why, whysz, -EBADMSG,
				     "section %u: RELA of %llu bytes at %llu (entries of %llu) "
				     "does not fit the file", i, (unsigned long long)s.size,
				     (unsigned long long)s.off, (unsigned long long)s.entsize);
			goto fail;
		}
		for (uint64_t o = 0; o < s.size; o += RELA_SIZE) {
			const uint8_t *r = elf + s.off + o;
			uint64_t off = le64(r), info = le64(r + 8), add = le64(r + 16), val;

			if ((uint32_t)info != R_AARCH64_RELATIVE_ || info >> 32) {
				rc = lb_whyf(why, whysz, -ENOTSUP,
					     "relocation at 0x%llx: type %u symbol %u, not "
					     "R_AARCH64_RELATIVE (a PE loader only adds the base)",
					     (unsigned long long)off, (unsigned)(uint32_t)info,
					     (unsigned)(info >> 32));
				goto fail;
			}
			if (off > UINT32_MAX - 7) {
				rc = lb_whyf(why, whysz, -EBADMSG,
					     "relocation at 0x%llx: beyond 4 GiB", (unsigned long long)off);
				goto fail;
			}
			if (value_at(elf, len, sh, shnum, off, &val)) {
				rc = lb_whyf(why, whysz, -EBADMSG,
					     "relocation at 0x%llx: not in a section with bytes in the file",
					     (unsigned long long)off);
				goto fail;
			}
			if (val != add) {
				rc = lb_whyf(why, whysz, -EBADMSG,
					     "relocation at 0x%llx: the image holds 0x%llx, the addend is "
					     "0x%llx (linked with --no-apply-dynamic-relocs?)",
					     (unsigned long long)off, (unsigned long long)val,
					     (unsigned long long)add);
				goto fail;
			}
			if (cnt == LB_PERELOC_MAX) {
				rc = lb_whyf(why, whysz, -E2BIG, "more than %u relocations", LB_PERELOC_MAX);
				goto fail;
			}
			if (cnt == cap) {
				size_t nc = cap ? cap * 2 : 64;
				uint32_t *nv = realloc(v, nc * sizeof(*v));

				if (!nv) {
					rc = lb_whyf(why, whysz, -ENOMEM, "out of memory");
					goto fail;
				}
				v = nv;
				cap = nc;
			}
			v[cnt++] = (uint32_t)off;
		}
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_u32);
	for (size_t i = 1; i < cnt; i++)
		if (v[i] == v[i - 1]) {
			rc = lb_whyf(why, whysz, -EBADMSG, "two relocations at 0x%x", v[i]);
			goto fail;
		}
	*rva = v;
	*n = cnt;
	return 0;
fail:
	free(v);
	return rc;
}

static void wr16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, v & 0xffff);
	wr16(p + 2, v >> 16);
}

int lb_pe_reloc_build(const uint32_t *rva, size_t n, uint8_t *out, size_t cap, size_t *len)
{
	size_t need = 0, at = 0;

	for (size_t i = 1; i < n; i++)
		if (rva[i] <= rva[i - 1])
			return -EINVAL;
	/* the size first: 8 per block, 2 per entry, a pad when odd */
	for (size_t i = 0; i < n;) {
		uint32_t page = rva[i] & ~(LB_PERELOC_PAGE - 1);
		size_t k = 0;

		while (i < n && (rva[i] & ~(LB_PERELOC_PAGE - 1)) == page)
			i++, k++;
		need += 8 + 2 * (k + (k & 1));
	}
	*len = need;
	if (!out)
		return 0;
	if (cap < need)
		return -ENOSPC;
	for (size_t i = 0; i < n;) {
		uint32_t page = rva[i] & ~(LB_PERELOC_PAGE - 1);
		size_t start = at;

		at += 8;
		while (i < n && (rva[i] & ~(LB_PERELOC_PAGE - 1)) == page) {
			wr16(out + at, LB_PE_REL_DIR64 << 12 | (rva[i] & (LB_PERELOC_PAGE - 1)));
			at += 2;
			i++;
		}
		if ((at - start) % 4) {
			wr16(out + at, LB_PE_REL_ABSOLUTE << 12);
			at += 2;
		}
		wr32(out + start, page);
		wr32(out + start + 4, (uint32_t)(at - start));
	}
	return 0;
}

int lb_pe_reloc_walk(const uint8_t *b, size_t len,
		     int (*fn)(void *arg, uint32_t rva, unsigned type), void *arg)
{
	size_t at = 0;

	while (at < len) {
		uint32_t page, size;

		if (len - at < 8)
			return -EBADMSG;
		page = le32(b + at);
		size = le32(b + at + 4);
		if (size < 8 || size % 4 || size > len - at || page % LB_PERELOC_PAGE)
			return -EBADMSG;
		for (size_t e = at + 8; e < at + size; e += 2) {
			unsigned ent = le16(b + e), type = ent >> 12;
			int r;

			if (type == LB_PE_REL_ABSOLUTE)
				continue;
			if ((r = fn(arg, page + (ent & 0xfff), type)))
				return r;
		}
		at += size;
	}
	return 0;
}
