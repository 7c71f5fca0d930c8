/*
 * coreboot's file system (CBFS) in a ROM image: read it (regions, files,
 * attributes, payload segments, LZMA and LZ4 data). A C peer of coreboot's
 * cbfstool (Debian's coreboot-utils), checked against it by host/cbfs.sh.
 * Host-only library: libc + liblzma (through src/uefi's LZMA codec).
 *
 * Layout (coreboot's src/commonlib/bsd/include/commonlib/bsd/
 * cbfs_serialized.h and fmap_serialized.h; all CBFS fields big-endian,
 * FMAP little-endian):
 *   FMAP     "__FMAP__" anywhere in the image (found on 64-byte steps, as
 *            cbfstool's fmap_find does on its own steps), areas with names;
 *            an area whose first bytes are a CBFS file header is a CBFS
 *            region ("COREBOOT", "FW_MAIN_A" ...).
 *   legacy   no FMAP: the last 4 bytes of the image are a signed offset
 *            from the end to the master header (magic "ORBC"), which gives
 *            where the one region starts; it ends where the bootblock starts.
 *   file     "LARCHIVE", len, type, attributes_offset, offset (of the data,
 *            from the header), then the NUL-terminated name, then the
 *            attributes (tag, len, ...), then the data; files start on
 *            64-byte boundaries from the region's start. The walk follows
 *            coreboot's cbfs_walk: bytes that are not a header are skipped
 *            64 at a time, a header whose lengths leave the region ends it.
 *
 * Edits (cbfs_edit.c) lay files out as cbfstool does, so that cbfstool and
 * coreboot read what lboot writes.
 *
 * Every length and offset is checked against the region before it is
 * used; file count, region count and decompressed sizes are capped. All
 * functions return 0 or a negative errno and never log; the one-line reason
 * (naming the region, file, offset and size) is left in `why`.
 */
#ifndef LB_CBFS_H
#define LB_CBFS_H

#include <stddef.h>
#include <stdint.h>

#define LB_CBFS_MAX_IMAGE   (256u << 20)
#define LB_CBFS_MAX_FILES   8192u
#define LB_CBFS_MAX_AREAS   256u
#define LB_CBFS_MAX_DECOMP  (256u << 20)
#define LB_CBFS_MAX_SEGS    64u
#define LB_CBFS_ERRLEN      256
#define LB_CBFS_ALIGN       64u
#define LB_CBFS_HDR         24u   /* struct cbfs_file without the name */
#define LB_CBFS_META_MAX    256u  /* CBFS_METADATA_MAX_SIZE */
#define LB_CBFS_NAME_MAX    (LB_CBFS_META_MAX - LB_CBFS_HDR)

/* enum cbfs_type (the ones cbfstool names) */
#define LB_CBFS_TYPE_DELETED    0x00000000u
#define LB_CBFS_TYPE_NULL       0xffffffffu
#define LB_CBFS_TYPE_BOOTBLOCK  0x01u
#define LB_CBFS_TYPE_CBFSHEADER 0x02u
#define LB_CBFS_TYPE_LEGACY_STAGE 0x10u
#define LB_CBFS_TYPE_STAGE      0x11u
#define LB_CBFS_TYPE_SELF       0x20u
#define LB_CBFS_TYPE_FIT        0x21u
#define LB_CBFS_TYPE_RAW        0x50u

enum lb_cbfs_comp { LB_CBFS_COMP_NONE = 0, LB_CBFS_COMP_LZMA = 1, LB_CBFS_COMP_LZ4 = 2 };

/* payload segment types (big-endian ASCII in the ROM) */
#define LB_CBFS_SEG_CODE   0x434F4445u
#define LB_CBFS_SEG_DATA   0x44415441u
#define LB_CBFS_SEG_BSS    0x42535320u
#define LB_CBFS_SEG_PARAMS 0x50415241u
#define LB_CBFS_SEG_ENTRY  0x454E5452u

struct lb_cbfs_file {
	uint32_t off;        /* of the header, from the region's start */
	uint32_t hdr_len;    /* header + name + attributes: the data's offset */
	uint32_t len;        /* data bytes in the ROM */
	uint32_t type;
	char name[LB_CBFS_NAME_MAX + 1];
	int has_comp;        /* a compression attribute */
	uint32_t comp;       /* enum lb_cbfs_comp (any value the ROM holds) */
	uint32_t dsize;      /* decompressed size (the attribute's), else len */
	int has_hash;
	uint32_t hash_algo;  /* vboot's enum vb2_hash_algorithm */
	uint32_t hash_len;
	uint8_t hash[64];
	int has_pos;
	uint32_t pos;
	int has_align;
	uint32_t align;
	const uint8_t *data; /* the data's bytes, in the parsed image */
};

struct lb_cbfs_area {            /* an FMAP area, or the legacy region */
	char name[33];
	uint32_t off, size;          /* in the image */
	uint16_t flags;
	int is_cbfs;
	int bad;                     /* the walk stopped on a header that overflows */
	int holds_fmap;              /* the FMAP's own bytes lie inside: never edited */
	size_t n;                    /* files (is_cbfs) */
	struct lb_cbfs_file *v;
	char err[LB_CBFS_ERRLEN];    /* why the walk stopped early, if it did */
};

struct lb_cbfs {
	const uint8_t *img;
	size_t len;
	int has_fmap;
	uint32_t fmap_off;
	char fmap_name[33];
	int has_master;              /* a master header was found */
	uint32_t master_off, arch, align, bootblock;
	size_t n;                    /* areas */
	struct lb_cbfs_area *a;
};

/* Parse img (kept, not copied: it must outlive the result). */
int lb_cbfs_parse(const uint8_t *img, size_t len, struct lb_cbfs **out, char *why, size_t whysz);
void lb_cbfs_free(struct lb_cbfs *c);

/* The CBFS area called name (NULL: "COREBOOT", else the only one). */
const struct lb_cbfs_area *lb_cbfs_area(const struct lb_cbfs *c, const char *name);
/* The first live file called name in area a. */
const struct lb_cbfs_file *lb_cbfs_find(const struct lb_cbfs_area *a, const char *name);

/* cbfstool's names: "stage", "simple elf", "raw", "null", ... */
const char *lb_cbfs_type_name(uint32_t type);
const char *lb_cbfs_comp_name(uint32_t comp);

/* A file's data, decompressed as its compression attribute says (a copy;
 * free() it). Capped at max bytes (-E2BIG). */
int lb_cbfs_file_data(const struct lb_cbfs_file *f, size_t max, uint8_t **out, size_t *len,
		      char *why, size_t whysz);

/* A payload's segments (type SELF/FIT: struct cbfs_payload_segment,
 * big-endian), up to and including the entry segment. */
struct lb_cbfs_seg {
	uint32_t type, comp, off, len, memlen;
	uint64_t load;
};
int lb_cbfs_payload_segs(const struct lb_cbfs_file *f, struct lb_cbfs_seg *v, size_t max,
			 size_t *n, char *why, size_t whysz);

/* Edits, on the caller's copy img of the image that c was parsed from
 * (a is one of c's CBFS areas); nothing is written on failure. Parse the
 * result again before using it. remove: the file's space and the empty
 * files next to it become one empty file. add: into the first empty
 * space that holds the header, the data and the empty file the rest must
 * become; comp LB_CBFS_COMP_NONE, LZMA or LZ4 (a compression attribute
 * with the decompressed size; LZ4 data that would not shrink is stored
 * without one, as cbfstool does). */
int lb_cbfs_remove(uint8_t *img, const struct lb_cbfs_area *a, const char *name, char *why,
		   size_t whysz);
int lb_cbfs_add(uint8_t *img, const struct lb_cbfs_area *a, const char *name, uint32_t type,
		uint32_t comp, const uint8_t *data, size_t len, char *why, size_t whysz);

/* A Linux payload for x86 as coreboot's selfboot loads it (payload.c has
 * the layout): the bzImage's protected-mode part, lboot's trampoline
 * (coreboot table -> e820 -> Linux's 32-bit entry), the zero page, the
 * command line and initrd; each segment stored, LZMA or LZ4 (comp; a
 * segment that does not shrink is stored). Every
 * field of the bzImage's setup header is checked first. The result is a
 * CBFS file of type LB_CBFS_TYPE_SELF for lb_cbfs_add (free() it). */
struct lb_cbfs_linux {
	const uint8_t *kernel;
	size_t klen;
	const uint8_t *initrd;   /* NULL / 0: none */
	size_t ilen;
	const char *cmdline;     /* NULL: none */
	uint32_t comp;
};
int lb_cbfs_linux_payload(const struct lb_cbfs_linux *in, uint8_t **out, size_t *len, char *why,
			  size_t whysz);

/* Decompress one segment or a whole LZ4/LZMA blob. */
int lb_cbfs_decompress(uint32_t comp, const uint8_t *in, size_t len, size_t max,
		       uint8_t **out, size_t *out_len);

/* The LZ4 frame format as coreboot writes it (lz4_wrapper.c reads it):
 * frame header, blocks, end mark; checksums skipped, not verified, as
 * coreboot does. Returns bytes written or a negative errno. */
long lb_lz4f_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap);

/* in[0..len) as the LZ4 frame cbfstool writes for CBFS (lz4.c: independent
 * blocks of the smallest of 64 KiB .. 4 MiB that holds the input, blocks
 * that do not shrink stored, no checksums but the header's); *out is
 * malloc()ed, at most lb_lz4f_bound(len) bytes. 0, -E2BIG past
 * LB_CBFS_MAX_DECOMP, -ENOMEM. */
int lb_lz4f_encode(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len);
size_t lb_lz4f_bound(size_t len);
/* xxHash's XXH32 (the frame header's checksum byte is bits 8-15 of it) */
uint32_t lb_xxh32(const uint8_t *p, size_t len, uint32_t seed);

#endif
