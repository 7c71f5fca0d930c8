/* PE base relocations from an AArch64 ELF (src/uefi/pereloc.c, lboot
 * pereloc): the .reloc block layout byte for byte against hand-made RVA
 * lists, the walker on good and bad blocks, and the ELF reader on
 * hand-made ELF files, good and bad (every header, section and entry out
 * of bounds, wrong types, wrong stored values, every truncation). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "uefi/pereloc.h"

static void w16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void w32(uint8_t *p, uint32_t v) { w16(p, v & 0xffff); w16(p + 2, v >> 16); }
static void w64(uint8_t *p, uint64_t v) { w32(p, (uint32_t)v); w32(p + 4, (uint32_t)(v >> 32)); }

/* ---- a hand-made ELF ------------------------------------------------------
 * header (64) | .data bytes at file 0x100, address 0x2000, 64 bytes |
 * .rela.dyn at 0x200 (n entries) | section headers at 0x400:
 * [0] NULL [1] .data PROGBITS ALLOC [2] .bss NOBITS ALLOC at 0x3000 (64)
 * [3] .rela.dyn RELA [4] spare (SHT_NULL unless a case sets it) */
#define E_DATA_OFF 0x100
#define E_DATA_VA  0x2000
#define E_DATA_LEN 64
#define E_RELA_OFF 0x200
#define E_SH_OFF   0x400
#define E_SHNUM    5
#define E_LEN      (E_SH_OFF + E_SHNUM * 64)

struct rel { uint64_t off, info, add; };

static void sh(uint8_t *e, int i, uint32_t type, uint64_t flags, uint64_t addr, uint64_t off,
	       uint64_t size, uint64_t entsize)
{
	uint8_t *p = e + E_SH_OFF + i * 64;

	memset(p, 0, 64);
	w32(p + 4, type);
	w64(p + 8, flags);
	w64(p + 16, addr);
	w64(p + 24, off);
	w64(p + 32, size);
	w64(p + 56, entsize);
}

static void make_elf(uint8_t *e, const struct rel *r, size_t n)
{
	memset(e, 0, E_LEN);
	memcpy(e, "\177ELF", 4);
	e[4] = 2; /* ELF64 */
	e[5] = 1; /* little-endian */
	e[6] = 1;
	w16(e + 16, 3);   /* ET_DYN */
	w16(e + 18, 183); /* EM_AARCH64 */
	w64(e + 40, E_SH_OFF);
	w16(e + 52, 64);
	w16(e + 58, 64);
	w16(e + 60, E_SHNUM);
	sh(e, 1, 1, 3, E_DATA_VA, E_DATA_OFF, E_DATA_LEN, 0);
	sh(e, 2, 8, 3, 0x3000, 0x180, 64, 0);
	sh(e, 3, 4, 2, 0x4000, E_RELA_OFF, n * 24, 24);
	for (size_t i = 0; i < n; i++) {
		w64(e + E_RELA_OFF + i * 24, r[i].off);
		w64(e + E_RELA_OFF + i * 24 + 8, r[i].info);
		w64(e + E_RELA_OFF + i * 24 + 16, r[i].add);
		/* what ld -pie stores at the place: the addend */
		if (r[i].off >= E_DATA_VA && r[i].off + 8 <= E_DATA_VA + E_DATA_LEN)
			w64(e + E_DATA_OFF + (r[i].off - E_DATA_VA), r[i].add);
	}
}

#define RELATIVE 1027u

static int elf_rc(const uint8_t *e, size_t len)
{
	uint32_t *v;
	size_t n;
	char why[256] = "";
	int rc = lb_elf_relative(e, len, &v, &n, why, sizeof(why));

	if (rc && !why[0])
		printf("# error %d without a reason\n", rc);
	if (!rc && n && !v)
		rc = -9999;
	free(v);
	return rc;
}

/* ---- the walker's callback: collects the entries --------------------------- */
struct got { uint32_t rva[64]; unsigned type[64]; size_t n; };

static int collect(void *arg, uint32_t rva, unsigned type)
{
	struct got *g = arg;

	if (g->n == 64)
		return -E2BIG;
	g->rva[g->n] = rva;
	g->type[g->n++] = type;
	return 0;
}

static int stop_at_2(void *arg, uint32_t rva, unsigned type)
{
	(void)rva; (void)type;
	return ++*(int *)arg == 2 ? 42 : 0;
}

int main(void)
{
	TEST("pereloc/build: blocks per 4 KiB page, padded to 4 bytes, byte for byte") {
		static const uint32_t rva[] = { 0x3770, 0x3780, 0x4008 };
		static const uint8_t want[] = {
			0x00, 0x30, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x70, 0xa7, 0x80, 0xa7,
			0x00, 0x40, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x08, 0xa0, 0x00, 0x00,
		};
		uint8_t out[64];
		size_t len = 0;

		CHECK_INT(lb_pe_reloc_build(rva, 3, NULL, 0, &len), 0);
		CHECK_INT(len, sizeof(want));
		memset(out, 0xee, sizeof(out));
		CHECK_INT(lb_pe_reloc_build(rva, 3, out, sizeof(out), &len), 0);
		CHECK_INT(len, sizeof(want));
		CHECK(!memcmp(out, want, sizeof(want)));
		CHECK_INT(out[sizeof(want)], 0xee); /* nothing written past */
	}
	TEST("pereloc/build: page edges, one entry, none") {
		static const uint32_t edge[] = { 0x0ff8, 0x1000, 0xfffff000u, 0xfffffff8u };
		static const uint8_t want[] = {
			0x00, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0xf8, 0xaf, 0x00, 0x00,
			0x00, 0x10, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x00, 0x00,
			0x00, 0xf0, 0xff, 0xff, 0x0c, 0x00, 0x00, 0x00, 0x00, 0xa0, 0xf8, 0xaf,
		};
		uint8_t out[64];
		size_t len = 99;

		CHECK_INT(lb_pe_reloc_build(edge, 4, out, sizeof(out), &len), 0);
		CHECK_INT(len, sizeof(want));
		CHECK(!memcmp(out, want, sizeof(want)));
		CHECK_INT(lb_pe_reloc_build(edge, 0, out, sizeof(out), &len), 0);
		CHECK_INT(len, 0);
	}
	TEST("pereloc/build: unsorted, duplicate, too small a buffer") {
		static const uint32_t down[] = { 0x2000, 0x1000 }, dup[] = { 0x1000, 0x1000 },
				      ok[] = { 0x10, 0x18, 0x20 };
		uint8_t out[64];
		size_t len = 0;

		CHECK_INT(lb_pe_reloc_build(down, 2, out, sizeof(out), &len), -EINVAL);
		CHECK_INT(lb_pe_reloc_build(dup, 2, out, sizeof(out), &len), -EINVAL);
		memset(out, 0xee, sizeof(out));
		CHECK_INT(lb_pe_reloc_build(ok, 3, out, 15, &len), -ENOSPC);
		CHECK_INT(len, 16);
		CHECK_INT(out[0], 0xee); /* nothing written */
		CHECK_INT(lb_pe_reloc_build(ok, 3, out, 16, &len), 0);
	}
	TEST("pereloc/walk: what build wrote comes back, padding skipped") {
		uint32_t rva[40];
		uint8_t out[256];
		size_t len;
		struct got g = { .n = 0 };
		int ok = 1;

		for (int i = 0; i < 40; i++) /* three pages, odd and even counts */
			rva[i] = 0x5000 + (uint32_t)i * 0x1d0 + (i & 1) * 8;
		CHECK_INT(lb_pe_reloc_build(rva, 40, out, sizeof(out), &len), 0);
		CHECK_INT(lb_pe_reloc_walk(out, len, collect, &g), 0);
		CHECK_INT(g.n, 40);
		for (size_t i = 0; i < g.n && i < 40; i++)
			ok &= g.rva[i] == rva[i] && g.type[i] == LB_PE_REL_DIR64;
		CHECK(ok);
		{
			int calls = 0;
			CHECK_INT(lb_pe_reloc_walk(out, len, stop_at_2, &calls), 42);
			CHECK_INT(calls, 2);
		}
	}
	TEST("pereloc/walk: bad blocks are -EBADMSG") {
		uint8_t b[32];
		struct got g = { .n = 0 };

		memset(b, 0, sizeof(b));
		w32(b, 0x1000); w32(b + 4, 12); w16(b + 8, 0xa010);
		CHECK_INT(lb_pe_reloc_walk(b, 12, collect, &g), 0);
		CHECK_INT(lb_pe_reloc_walk(b, 4, collect, &g), -EBADMSG);   /* header cut */
		CHECK_INT(lb_pe_reloc_walk(b, 11, collect, &g), -EBADMSG);  /* block cut */
		CHECK_INT(lb_pe_reloc_walk(b, 16, collect, &g), -EBADMSG);  /* 4 bytes of header after */
		w32(b + 4, 6);
		CHECK_INT(lb_pe_reloc_walk(b, 12, collect, &g), -EBADMSG);  /* shorter than its header */
		w32(b + 4, 10);
		CHECK_INT(lb_pe_reloc_walk(b, 12, collect, &g), -EBADMSG);  /* not a multiple of 4 */
		w32(b + 4, 0xfffffff0u);
		CHECK_INT(lb_pe_reloc_walk(b, 12, collect, &g), -EBADMSG);  /* longer than what is left */
		w32(b + 4, 12); w32(b, 0x1008);
		CHECK_INT(lb_pe_reloc_walk(b, 12, collect, &g), -EBADMSG);  /* page not aligned */
		CHECK_INT(lb_pe_reloc_walk(b, 0, collect, &g), 0);          /* empty: nothing */
	}
	TEST("pereloc/elf: R_AARCH64_RELATIVE offsets, sorted, values checked") {
		static const struct rel r[] = {
			{ E_DATA_VA + 0x18, RELATIVE, 0x1234 },
			{ E_DATA_VA + 0x00, RELATIVE, 0x2040 },
			{ E_DATA_VA + 0x38, RELATIVE, 0 },
		};
		uint8_t e[E_LEN];
		uint32_t *v = NULL;
		size_t n = 0;
		char why[256];

		make_elf(e, r, 3);
		CHECK_INT(lb_elf_relative(e, sizeof(e), &v, &n, why, sizeof(why)), 0);
		CHECK_INT(n, 3);
		if (n == 3 && v) {
			CHECK_INT(v[0], E_DATA_VA + 0x00);
			CHECK_INT(v[1], E_DATA_VA + 0x18);
			CHECK_INT(v[2], E_DATA_VA + 0x38);
		}
		free(v);
		make_elf(e, r, 0); /* no relocation: none, no error */
		CHECK_INT(lb_elf_relative(e, sizeof(e), &v, &n, why, sizeof(why)), 0);
		CHECK_INT(n, 0);
		CHECK(v == NULL);
	}
	TEST("pereloc/elf: not an AArch64 ELF64 LE PIE is -EINVAL") {
		static const struct rel r[] = { { E_DATA_VA, RELATIVE, 8 } };
		uint8_t e[E_LEN];

		make_elf(e, r, 1);
		CHECK_INT(elf_rc(e, 63), -EINVAL);
		e[0] = 'M';
		CHECK_INT(elf_rc(e, sizeof(e)), -EINVAL);
		make_elf(e, r, 1); e[4] = 1; /* ELF32 */
		CHECK_INT(elf_rc(e, sizeof(e)), -EINVAL);
		make_elf(e, r, 1); e[5] = 2; /* big-endian */
		CHECK_INT(elf_rc(e, sizeof(e)), -EINVAL);
		make_elf(e, r, 1); w16(e + 18, 62); /* x86-64 */
		CHECK_INT(elf_rc(e, sizeof(e)), -EINVAL);
		make_elf(e, r, 1); w16(e + 16, 2); /* ET_EXEC */
		CHECK_INT(elf_rc(e, sizeof(e)), -EINVAL);
	}
	TEST("pereloc/elf: headers, sections and entries out of bounds are -EBADMSG") {
		static const struct rel r[] = { { E_DATA_VA + 8, RELATIVE, 0x40 },
						{ E_DATA_VA + 16, RELATIVE, 0x48 } };
		uint8_t e[E_LEN];

		make_elf(e, r, 2);
		CHECK_INT(elf_rc(e, sizeof(e)), 0);
		w64(e + 40, E_LEN); /* section headers at the end */
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		make_elf(e, r, 2); w64(e + 40, UINT64_MAX - 100); /* overflowing offset */
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		make_elf(e, r, 2); w16(e + 60, 0xffff); /* too many sections */
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		make_elf(e, r, 2); w16(e + 58, 40); /* section header size */
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		make_elf(e, r, 2); sh(e, 3, 4, 2, 0x4000, E_RELA_OFF, 47, 24); /* not whole entries */
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		make_elf(e, r, 2); sh(e, 3, 4, 2, 0x4000, E_RELA_OFF, 48, 16); /* entry size */
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		make_elf(e, r, 2); sh(e, 3, 4, 2, 0x4000, E_LEN - 24, 48, 24); /* past the end */
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		make_elf(e, r, 2); sh(e, 3, 4, 2, 0x4000, UINT64_MAX - 23, 48, 24); /* wraps */
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		make_elf(e, r, 2); sh(e, 3, 4, 2, 0x4000, E_RELA_OFF, UINT64_MAX - 23, 24);
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		/* .data's own bytes outside the file */
		make_elf(e, r, 2); sh(e, 1, 1, 3, E_DATA_VA, E_LEN - 8, E_DATA_LEN, 0);
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
	}
	TEST("pereloc/elf: a place outside file bytes, a wrong value, twice is -EBADMSG") {
		struct rel r[1] = { { 0x3000 + 8, RELATIVE, 0x40 } }; /* in .bss */
		uint8_t e[E_LEN];

		make_elf(e, r, 1);
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		r[0].off = E_DATA_VA + E_DATA_LEN - 4; /* straddles .data's end */
		make_elf(e, r, 1);
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		r[0].off = 0x9000; /* in no section */
		make_elf(e, r, 1);
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		r[0].off = 0xfffffffcu; /* beyond what a PE RVA holds with 8 bytes */
		make_elf(e, r, 1);
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		r[0].off = UINT64_MAX - 3;
		make_elf(e, r, 1);
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		r[0].off = E_DATA_VA + 8; /* the image holds another value */
		make_elf(e, r, 1);
		w64(e + E_DATA_OFF + 8, 0);
		CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		{
			static const struct rel two[] = { { E_DATA_VA + 8, RELATIVE, 0x40 },
							  { E_DATA_VA + 8, RELATIVE, 0x40 } };
			make_elf(e, two, 2);
			CHECK_INT(elf_rc(e, sizeof(e)), -EBADMSG);
		}
	}
	TEST("pereloc/elf: other relocations are -ENOTSUP") {
		struct rel r[1] = { { E_DATA_VA + 8, 257 /* R_AARCH64_ABS64 */, 0x40 } };
		uint8_t e[E_LEN];

		make_elf(e, r, 1);
		CHECK_INT(elf_rc(e, sizeof(e)), -ENOTSUP);
		r[0].info = (uint64_t)1 << 32 | RELATIVE; /* RELATIVE with a symbol */
		make_elf(e, r, 1);
		CHECK_INT(elf_rc(e, sizeof(e)), -ENOTSUP);
		r[0].info = 1025; /* R_AARCH64_GLOB_DAT */
		make_elf(e, r, 1);
		CHECK_INT(elf_rc(e, sizeof(e)), -ENOTSUP);
		r[0].info = RELATIVE;
		make_elf(e, r, 1);
		sh(e, 4, 9, 2, 0x5000, E_RELA_OFF, 16, 16); /* a REL section */
		CHECK_INT(elf_rc(e, sizeof(e)), -ENOTSUP);
		make_elf(e, r, 1);
		sh(e, 4, 19, 2, 0x5000, E_RELA_OFF, 8, 8); /* a RELR section */
		CHECK_INT(elf_rc(e, sizeof(e)), -ENOTSUP);
		make_elf(e, r, 1);
		sh(e, 4, 9, 2, 0x5000, E_RELA_OFF, 0, 16); /* an empty REL: nothing to do */
		CHECK_INT(elf_rc(e, sizeof(e)), 0);
	}
	TEST("pereloc/elf: every truncation is an error, never a read past it") {
		static const struct rel r[] = { { E_DATA_VA + 8, RELATIVE, 0x40 },
						{ E_DATA_VA + 32, RELATIVE, 0x48 } };
		uint8_t e[E_LEN];
		int bad = 0;

		make_elf(e, r, 2);
		for (size_t l = 0; l < sizeof(e); l++) {
			/* a heap copy of exactly l bytes: ASan sees any read past it */
			uint8_t *c = malloc(l ? l : 1);

			if (!c)
				break;
			memcpy(c, e, l);
			if (elf_rc(c, l) == 0)
				bad++;
			free(c);
		}
		CHECK_INT(bad, 0);
		CHECK_INT(elf_rc(e, sizeof(e)), 0);
	}
	return t_done();
}
