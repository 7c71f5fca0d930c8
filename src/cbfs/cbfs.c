/* CBFS reader: FMAP, master header, file walk, attributes (cbfs.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbfs.h"
#include "io.h"
#include "le.h"
#include "uefi/uefi.h"

#define FMAP_SIG      "__FMAP__"
#define FMAP_HDR      56u
#define FMAP_AREA     42u
#define MASTER_MAGIC  0x4F524243u
#define MASTER_LEN    32u

#define TAG_UNUSED    0x00000000u
#define TAG_UNUSED2   0xffffffffu
#define TAG_COMP      0x42435a4cu
#define TAG_HASH      0x68736148u
#define TAG_POS       0x42435350u
#define TAG_ALIGN     0x42434c41u

/* a fixed-size name field as a C string: printable ASCII only, else '?' */
static void field_name(char *dst, const uint8_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? (char)src[i] : '?';
	dst[i] = 0;
}

const char *lb_cbfs_type_name(uint32_t type)
{
	static const struct { uint32_t t; const char *n; } names[] = {
		{ 0x00000000u, "deleted" }, { 0xffffffffu, "null" },
		{ 0x01, "bootblock" }, { 0x02, "cbfs header" }, { 0x10, "stage" },
		{ 0x11, "stage" }, { 0x20, "simple elf" }, { 0x21, "fit" },
		{ 0x30, "optionrom" }, { 0x40, "bootsplash" }, { 0x50, "raw" },
		{ 0x51, "vsa" }, { 0x52, "mbi" }, { 0x53, "microcode" }, { 0x60, "fsp" },
		{ 0x61, "mrc" }, { 0x62, "mma" }, { 0x63, "efi" }, { 0x70, "struct" },
		{ 0xaa, "cmos_default" }, { 0xab, "spd" }, { 0xac, "mrc_cache" },
		{ 0x1aa, "cmos_layout" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].t == type)
			return names[i].n;
	return NULL;
}

const char *lb_cbfs_comp_name(uint32_t comp)
{
	return comp == LB_CBFS_COMP_NONE ? "none" : comp == LB_CBFS_COMP_LZMA ? "LZMA" :
	       comp == LB_CBFS_COMP_LZ4 ? "LZ4" : NULL;
}

/* ---- FMAP ------------------------------------------------------------------------------ */

static int fmap_valid(const uint8_t *p, size_t room)
{
	size_t n;

	if (room < FMAP_HDR || memcmp(p, FMAP_SIG, 8) || p[8] != 1 || p[9] > 1)
		return 0;
	if (!memchr(p + 22, 0, 32))
		return 0;
	n = le16(p + 54);
	return n && n <= LB_CBFS_MAX_AREAS && n * FMAP_AREA <= room - FMAP_HDR;
}

static int fmap_find(const uint8_t *img, size_t len, uint32_t *off)
{
	const uint8_t *p = img, *end = img + len;

	while ((p = memmem(p, (size_t)(end - p), FMAP_SIG, 8))) {
		if (fmap_valid(p, (size_t)(end - p))) {
			*off = (uint32_t)(p - img);
			return 1;
		}
		p++;
	}
	return 0;
}

/* ---- the file walk ------------------------------------------------------------------------ */

static int parse_attrs(struct lb_cbfs_file *f, const uint8_t *h, uint32_t a, uint32_t end,
		       char *why, size_t whysz)
{
	while (a + 8 <= end) {
		uint32_t tag = be32(h + a), len = be32(h + a + 4);

		if (tag == TAG_UNUSED || tag == TAG_UNUSED2)
			break;
		if (len < 8 || len % 4 || len > end - a)
			return lb_whyf(why, whysz, -EBADMSG, "attribute 0x%x at +%u: length %u", tag, a,
				    len);
		switch (tag) {
		case TAG_COMP:
			if (len < 16)
				return lb_whyf(why, whysz, -EBADMSG, "compression attribute: length %u", len);
			f->has_comp = 1;
			f->comp = be32(h + a + 8);
			f->dsize = be32(h + a + 12);
			break;
		case TAG_HASH:
			/* struct vb2_hash: algo (BE32 in CBFS), then the digest */
			if (len < 12)
				return lb_whyf(why, whysz, -EBADMSG, "hash attribute: length %u", len);
			f->has_hash = 1;
			f->hash_algo = be32(h + a + 8);
			f->hash_len = len - 12 > sizeof(f->hash) ? (uint32_t)sizeof(f->hash) : len - 12;
			memcpy(f->hash, h + a + 12, f->hash_len);
			break;
		case TAG_POS:
			if (len >= 12) {
				f->has_pos = 1;
				f->pos = be32(h + a + 8);
			}
			break;
		case TAG_ALIGN:
			if (len >= 12) {
				f->has_align = 1;
				f->align = be32(h + a + 8);
			}
			break;
		default:
			break; /* attributes we do not know are kept, not read */
		}
		a += len;
	}
	return 0;
}

/* one file header at region offset off; 0, or -EBADMSG with why set */
static int parse_file(const uint8_t *r, uint32_t size, uint32_t off, struct lb_cbfs_file *f,
		      char *why, size_t whysz)
{
	const uint8_t *h = r + off;
	uint32_t attr, data, len, name_end;

	memset(f, 0, sizeof(*f));
	len = be32(h + 8);
	f->type = be32(h + 12);
	attr = be32(h + 16);
	data = be32(h + 20);
	/* coreboot's cbfs_walk: metadata at most 256 bytes, data inside the region */
	if (data < LB_CBFS_HDR || data > LB_CBFS_META_MAX || data > size - off ||
	    len > size - off - data)
		return lb_whyf(why, whysz, -EBADMSG,
			    "file header at 0x%x: data at +%u, %u bytes: past the region's end (0x%x)",
			    off, data, len, size);
	if (attr && (attr < LB_CBFS_HDR || attr > data))
		return lb_whyf(why, whysz, -EBADMSG, "file header at 0x%x: attributes at +%u outside its metadata",
			    off, attr);
	name_end = attr ? attr : data;
	if (!memchr(h + LB_CBFS_HDR, 0, name_end - LB_CBFS_HDR))
		return lb_whyf(why, whysz, -EBADMSG, "file header at 0x%x: the name is not terminated", off);
	field_name(f->name, h + LB_CBFS_HDR, name_end - LB_CBFS_HDR);
	f->off = off;
	f->hdr_len = data;
	f->len = len;
	f->dsize = len;
	f->data = h + data;
	if (attr) {
		char w[160];
		int rc = parse_attrs(f, h, attr, data, w, sizeof(w));

		if (rc)
			return lb_whyf(why, whysz, rc, "file '%s' at 0x%x: %s", f->name, off, w);
	}
	return 0;
}

static int walk(const uint8_t *img, struct lb_cbfs_area *a)
{
	const uint8_t *r = img + a->off;
	uint32_t off = 0;
	size_t cap = 0;

	while (off < a->size && a->size - off >= LB_CBFS_HDR) {
		struct lb_cbfs_file f;

		if (memcmp(r + off, "LARCHIVE", 8)) {
			off += LB_CBFS_ALIGN;
			continue;
		}
		if (parse_file(r, a->size, off, &f, a->err, sizeof(a->err))) {
			/* as coreboot does: not a file; look on at the next boundary */
			a->bad = 1;
			off += LB_CBFS_ALIGN;
			continue;
		}
		if (a->n == LB_CBFS_MAX_FILES) {
			snprintf(a->err, sizeof(a->err), "more than %u files: the rest not read",
				 LB_CBFS_MAX_FILES);
			a->bad = 1;
			break;
		}
		if (a->n == cap) {
			size_t nc = cap ? cap * 2 : 32;
			struct lb_cbfs_file *v = realloc(a->v, nc * sizeof(*v));

			if (!v)
				return -ENOMEM;
			a->v = v;
			cap = nc;
		}
		a->v[a->n++] = f;
		/* the next header: after the data, on the alignment */
		uint64_t next = (uint64_t)off + f.hdr_len + f.len;
		next = (next + LB_CBFS_ALIGN - 1) & ~(uint64_t)(LB_CBFS_ALIGN - 1);
		if (next >= a->size)
			break;
		off = (uint32_t)next;
	}
	return 0;
}

static int is_cbfs(const uint8_t *img, const struct lb_cbfs_area *a)
{
	return a->size >= LB_CBFS_HDR && !memcmp(img + a->off, "LARCHIVE", 8);
}

/* an area that starts where a smaller area starts holds it: the file
 * header at its start belongs to the smaller one (FW_A around FW_MAIN_A) */
static int is_parent(const struct lb_cbfs *c, size_t i)
{
	for (size_t k = 0; k < c->n; k++)
		if (k != i && c->a[k].off == c->a[i].off && c->a[k].size < c->a[i].size)
			return 1;
	return 0;
}

/* ---- the image ---------------------------------------------------------------------------- */

static int add_area(struct lb_cbfs *c, const char *name, uint32_t off, uint32_t size,
		    uint16_t flags)
{
	struct lb_cbfs_area *v = realloc(c->a, (c->n + 1) * sizeof(*v)), *a;

	if (!v)
		return -ENOMEM;
	c->a = v;
	a = &v[c->n++];
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", name);
	a->off = off;
	a->size = size;
	a->flags = flags;
	return 0;
}

static int master_header(struct lb_cbfs *c, char *why, size_t whysz)
{
	const uint8_t *img = c->img;
	size_t len = c->len;
	int32_t rel;
	uint64_t at;

	if (len < 4)
		return -ENOENT;
	rel = (int32_t)le32(img + len - 4);
	/* a negative offset from the end, to a header that lies inside */
	if (rel >= 0 || (uint64_t)-(int64_t)rel > len)
		return -ENOENT;
	at = len - (uint64_t)-(int64_t)rel;
	if (at + MASTER_LEN > len || be32(img + at) != MASTER_MAGIC)
		return -ENOENT;
	c->has_master = 1;
	c->master_off = (uint32_t)at;
	c->bootblock = be32(img + at + 12);
	c->align = be32(img + at + 16);
	c->arch = be32(img + at + 24);
	if (c->has_fmap)
		return 0;
	/* legacy: one region from the header's offset to the bootblock */
	uint32_t romsize = be32(img + at + 8), start = be32(img + at + 20);

	if (romsize != len || c->bootblock > romsize || start >= romsize - c->bootblock)
		return lb_whyf(why, whysz, -EBADMSG,
			    "master header at 0x%x: ROM size %u (the file has %zu), bootblock %u, CBFS at 0x%x: inconsistent",
			    c->master_off, romsize, len, c->bootblock, start);
	return add_area(c, "COREBOOT", start, romsize - c->bootblock - start, 0);
}

int lb_cbfs_parse(const uint8_t *img, size_t len, struct lb_cbfs **out, char *why, size_t whysz)
{
	struct lb_cbfs *c;
	int rc;

	*out = NULL;
	if (why && whysz)
		why[0] = 0;
	if (len > LB_CBFS_MAX_IMAGE)
		return lb_whyf(why, whysz, -E2BIG, "%zu bytes: larger than the %u MiB cap", len,
			    LB_CBFS_MAX_IMAGE >> 20);
	if (!(c = calloc(1, sizeof(*c))))
		return -ENOMEM;
	c->img = img;
	c->len = len;
	if (fmap_find(img, len, &c->fmap_off)) {
		const uint8_t *f = img + c->fmap_off;
		size_t n = le16(f + 54);

		c->has_fmap = 1;
		field_name(c->fmap_name, f + 22, 32);
		for (size_t i = 0; i < n; i++) {
			const uint8_t *e = f + FMAP_HDR + i * FMAP_AREA;
			uint32_t off = le32(e), size = le32(e + 4);
			char name[33];

			field_name(name, e + 8, 32);
			if (off > len || size > len - off) {
				rc = lb_whyf(why, whysz, -EBADMSG,
					  "FMAP at 0x%x: area '%s' at 0x%x, %u bytes: past the image's end (%zu bytes)",
					  c->fmap_off, name, off, size, len);
				goto bad;
			}
			if ((rc = add_area(c, name, off, size, le16(e + 40))))
				goto bad;
		}
	}
	rc = master_header(c, why, whysz);
	if (rc && rc != -ENOENT)
		goto bad;
	for (size_t i = 0; i < c->n; i++) {
		struct lb_cbfs_area *a = &c->a[i];

		if (!is_cbfs(img, a) || is_parent(c, i))
			continue;
		if (c->has_fmap) {
			uint64_t fend = c->fmap_off + FMAP_HDR + (uint64_t)le16(img + c->fmap_off + 54) * FMAP_AREA;

			a->holds_fmap = c->fmap_off < (uint64_t)a->off + a->size && a->off < fend;
		}
		a->is_cbfs = 1;
		if ((rc = walk(img, a)))
			goto bad;
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->a[i].is_cbfs) {
			*out = c;
			return 0;
		}
	rc = lb_whyf(why, whysz, -ENOENT, "%s",
		  c->has_fmap ? "no CBFS in any FMAP area (no area starts with a file header)" :
		  "not a coreboot image: no FMAP and no CBFS master header");
bad:
	lb_cbfs_free(c);
	return rc;
}

void lb_cbfs_free(struct lb_cbfs *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->a[i].v);
	free(c->a);
	free(c);
}

const struct lb_cbfs_area *lb_cbfs_area(const struct lb_cbfs *c, const char *name)
{
	const struct lb_cbfs_area *only = NULL;
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (!c->a[i].is_cbfs)
			continue;
		if (!strcmp(c->a[i].name, name ? name : "COREBOOT"))
			return &c->a[i];
		only = &c->a[i];
		n++;
	}
	return !name && n == 1 ? only : NULL;
}

const struct lb_cbfs_file *lb_cbfs_find(const struct lb_cbfs_area *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].type != LB_CBFS_TYPE_NULL && a->v[i].type != LB_CBFS_TYPE_DELETED &&
		    !strcmp(a->v[i].name, name))
			return &a->v[i];
	return NULL;
}

/* ---- data ------------------------------------------------------------------------------------ */

int lb_cbfs_decompress(uint32_t comp, const uint8_t *in, size_t len, size_t max,
		       uint8_t **out, size_t *out_len)
{
	uint8_t *buf;
	long n;

	switch (comp) {
	case LB_CBFS_COMP_NONE:
		if (len > max)
			return -E2BIG;
		if (!(buf = malloc(len ? len : 1)))
			return -ENOMEM;
		memcpy(buf, in, len);
		*out = buf;
		*out_len = len;
		return 0;
	case LB_CBFS_COMP_LZMA:
		/* coreboot's LZMA: 5 property bytes, 64-bit size, raw LZMA1 (as EDK2's) */
		return lb_uefi_lzma_decode(in, len, max, out, out_len);
	case LB_CBFS_COMP_LZ4:
		/* the frame may say its content size; else grow up to max */
		for (size_t cap = len * 4 + 4096;; cap *= 2) {
			if (cap > max)
				cap = max;
			if (!(buf = malloc(cap ? cap : 1)))
				return -ENOMEM;
			n = lb_lz4f_decode(in, len, buf, cap);
			if (n >= 0) {
				*out = buf;
				*out_len = (size_t)n;
				return 0;
			}
			free(buf);
			if (n != -ENOSPC)
				return (int)n;
			if (cap == max)
				return -E2BIG;
		}
	default:
		return -ENOTSUP;
	}
}

int lb_cbfs_file_data(const struct lb_cbfs_file *f, size_t max, uint8_t **out, size_t *len,
		      char *why, size_t whysz)
{
	uint32_t comp = f->has_comp ? f->comp : LB_CBFS_COMP_NONE;
	int rc = lb_cbfs_decompress(comp, f->data, f->len, max, out, len);

	if (rc == -ENOTSUP)
		return lb_whyf(why, whysz, rc, "'%s': compression %u is not LZMA or LZ4", f->name, comp);
	if (rc == -E2BIG)
		return lb_whyf(why, whysz, rc, "'%s': decompresses to more than %zu bytes", f->name, max);
	if (rc)
		return lb_whyf(why, whysz, rc, "'%s': %s data is corrupt (%s)", f->name,
			    lb_cbfs_comp_name(comp), strerror(-rc));
	if (f->has_comp && comp != LB_CBFS_COMP_NONE && *len != f->dsize) {
		free(*out);
		*out = NULL;
		return lb_whyf(why, whysz, -EBADMSG, "'%s': decompressed to %zu bytes, its attribute says %u",
			    f->name, *len, f->dsize);
	}
	return 0;
}

int lb_cbfs_payload_segs(const struct lb_cbfs_file *f, struct lb_cbfs_seg *v, size_t max,
			 size_t *n, char *why, size_t whysz)
{
	const uint8_t *p = f->data;
	size_t k = 0;

	*n = 0;
	if (f->type != LB_CBFS_TYPE_SELF && f->type != LB_CBFS_TYPE_FIT)
		return lb_whyf(why, whysz, -EINVAL, "'%s' is not a payload", f->name);
	for (size_t at = 0;; at += 28) {
		struct lb_cbfs_seg s;

		if (at + 28 > f->len)
			return lb_whyf(why, whysz, -EBADMSG,
				    "payload '%s': segment table runs past its %u bytes (no entry segment)",
				    f->name, f->len);
		if (k == max)
			return lb_whyf(why, whysz, -E2BIG, "payload '%s': more than %zu segments", f->name,
				    max);
		s.type = be32(p + at);
		s.comp = be32(p + at + 4);
		s.off = be32(p + at + 8);
		s.load = be64(p + at + 12);
		s.len = be32(p + at + 20);
		s.memlen = be32(p + at + 24);
		if (s.type != LB_CBFS_SEG_ENTRY && s.type != LB_CBFS_SEG_BSS &&
		    (s.off > f->len || s.len > f->len - s.off))
			return lb_whyf(why, whysz, -EBADMSG,
				    "payload '%s': segment %zu at +%u, %u bytes: past its %u bytes",
				    f->name, k, s.off, s.len, f->len);
		v[k++] = s;
		if (s.type == LB_CBFS_SEG_ENTRY)
			break;
	}
	*n = k;
	return 0;
}
