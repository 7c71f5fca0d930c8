/*
 * uefi: parser, editor and serializer on synthetic images built here
 * (independently of the library: own checksums, liblzma directly), plus a
 * full-rebuild check on Debian's OVMF when installed.
 */
#include <errno.h>
#include <lzma.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "t.h"
#include "uefi/tiano.h"
#include "uefi/uefi.h"

/* ---- builders ------------------------------------------------------------------------ */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
	}
	if (n)
		memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void fill(struct buf *b, uint8_t v, size_t n)
{
	uint8_t *t = malloc(n ? n : 1);
	memset(t, v, n);
	put(b, t, n);
	free(t);
}

static void w16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void w24(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); }
static void w32(uint8_t *p, uint32_t v) { w16(p, (uint16_t)v); w16(p + 2, (uint16_t)(v >> 16)); }
static void w64(uint8_t *p, uint64_t v) { w32(p, (uint32_t)v); w32(p + 4, (uint32_t)(v >> 32)); }
static uint32_t r32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t r64(const uint8_t *p) { return r32(p) | (uint64_t)r32(p + 4) << 32; }

static void G(const char *s, uint8_t g[16])
{
	if (lb_guid_parse(s, g))
		abort();
}

/* A section: type, extra header bytes, body. */
static void sec(struct buf *b, uint8_t type, const void *extra, size_t elen, const void *body, size_t len)
{
	uint8_t h[8];
	size_t total = 4 + elen + len;

	while (b->len % 4)
		fill(b, 0, 1);
	if (total >= 0xFFFFFF) {
		w24(h, 0xFFFFFF);
		w32(h + 4, (uint32_t)(total + 4));
		h[3] = type;
		put(b, h, 8);
	} else {
		w24(h, (uint32_t)total);
		h[3] = type;
		put(b, h, 4);
	}
	put(b, extra, elen);
	put(b, body, len);
}

static void ui(struct buf *b, const char *name)
{
	uint8_t u[128] = { 0 };
	size_t n = strlen(name);

	for (size_t i = 0; i < n; i++)
		u[2 * i] = (uint8_t)name[i];
	sec(b, 0x15, NULL, 0, u, 2 * n + 2);
}

/* An FFS file with the checksum rules computed here. */
static void mkffs(struct buf *b, const char *guid, uint8_t type, uint8_t attr, const uint8_t *body, size_t len)
{
	uint8_t h[32] = { 0 }, s = 0;
	size_t hs = 24;

	G(guid, h);
	h[18] = type;
	h[19] = attr;
	if (attr & 1) {
		hs = 32;
		w64(h + 24, 32 + len);
	} else {
		w24(h + 20, (uint32_t)(24 + len));
	}
	for (size_t i = 0; i < hs; i++)
		s = (uint8_t)(s + h[i]);
	h[16] = (uint8_t)-s;
	if (attr & 0x40) {
		s = 0;
		for (size_t i = 0; i < len; i++)
			s = (uint8_t)(s + body[i]);
		h[17] = (uint8_t)-s;
	} else {
		h[17] = 0xAA;
	}
	h[23] = 0xF8;
	put(b, h, hs);
	put(b, body, len);
}

static void align8(struct buf *b, uint8_t e)
{
	while (b->len % 8)
		fill(b, e, 1);
}

/* A firmware volume of fvlen bytes (block size blk) around files. */
static void fv(struct buf *b, size_t fvlen, uint32_t blk, const char *name, const struct buf *files)
{
	uint8_t h[0x60];
	size_t start = b->len, hl = 0x48, off;
	uint16_t sum = 0;

	memset(h, 0, sizeof(h));
	G("8C8CE578-8A3D-4F1C-9935-896185C32DD3", h + 0x10);
	w64(h + 0x20, fvlen);
	memcpy(h + 0x28, "_FVH", 4);
	w32(h + 0x2C, 0x0004FEFF);
	w16(h + 0x30, (uint16_t)hl);
	h[0x37] = 2;
	w32(h + 0x38, (uint32_t)(fvlen / blk));
	w32(h + 0x3C, blk);
	off = hl;
	if (name) {
		w16(h + 0x34, (uint16_t)hl);
		G(name, h + hl);
		w32(h + hl + 16, 0x14);
		off = 0x60;
	}
	for (size_t i = 0; i < hl; i += 2)
		sum = (uint16_t)(sum + (h[i] | h[i + 1] << 8));
	w16(h + 0x32, (uint16_t)-sum);
	put(b, h, off);
	if (files)
		put(b, files->p, files->len);
	fill(b, 0xFF, fvlen - (b->len - start));
}

/* EDK2-style LZMA: 13-byte header with the real size, no end marker. */
static void lzma_sec(struct buf *b, const uint8_t *data, size_t len)
{
	lzma_options_lzma o;
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = len + 4096;
	uint8_t *out = malloc(cap + 13), hdr[20];

	lzma_lzma_preset(&o, 6);
	if (lzma_alone_encoder(&s, &o) != LZMA_OK)
		abort();
	s.next_in = data;
	s.avail_in = len;
	s.next_out = out;
	s.avail_out = cap;
	while (lzma_code(&s, LZMA_FINISH) == LZMA_OK)
		;
	size_t n = cap - s.avail_out;
	lzma_end(&s);
	w64(out + 5, len); /* alone encoder wrote "unknown" + an end marker */
	G("EE4E5898-3914-4259-9D6E-DC7BD79403CF", hdr);
	w16(hdr + 16, 0x18);
	w16(hdr + 18, 1);
	sec(b, 0x02, hdr, 20, out, n);
	free(out);
}

static const char *DXE_FV = "7CB8BDC9-F8EB-4F34-AAEA-3EE4AF6516A1";
static const char *TOP_FV = "48DB5E17-707C-472D-91CD-1613E7EF51B0";
static const uint8_t PE[] = "MZ fake PE image for tests, 0123456789abcdef";

/* The nested DXE volume: DxeCore, two drivers, an application, a CRC32 file, a stored-compression file. */
static void dxe_fv(struct buf *out, size_t fvlen)
{
	struct buf files = { 0 }, body = { 0 };
	static const uint8_t depex[] = { 0x06, 0x08 };

	sec(&body, 0x10, NULL, 0, PE, sizeof(PE));
	ui(&body, "DxeCore");
	mkffs(&files, "D6A2CB7F-6A18-4E2F-B43B-9920A733700A", 0x05, 0, body.p, body.len);
	align8(&files, 0xFF);
	body.len = 0;
	sec(&body, 0x13, NULL, 0, depex, 2);
	sec(&body, 0x10, NULL, 0, PE, sizeof(PE));
	ui(&body, "DriverA");
	mkffs(&files, "AAAAAAAA-0000-4000-8000-000000000001", 0x07, 0x40, body.p, body.len);
	align8(&files, 0xFF);
	body.len = 0;
	sec(&body, 0x10, NULL, 0, PE, sizeof(PE));
	ui(&body, "DriverB");
	mkffs(&files, "AAAAAAAA-0000-4000-8000-000000000002", 0x07, 0, body.p, body.len);
	align8(&files, 0xFF);
	body.len = 0;
	sec(&body, 0x10, NULL, 0, PE, sizeof(PE));
	ui(&body, "Shell");
	mkffs(&files, "7C04A583-9E3E-4F1C-AD65-E05268D0B4D1", 0x09, 0, body.p, body.len);
	align8(&files, 0xFF);
	/* CRC32 GUID-defined section around a PE32 + UI */
	{
		struct buf in = { 0 };
		uint8_t hdr[24];
		sec(&in, 0x10, NULL, 0, PE, sizeof(PE));
		ui(&in, "Crc");
		G("FC1BCDB0-7D31-49AA-936A-A4600D9DD083", hdr);
		w16(hdr + 16, 0x1C);
		w16(hdr + 18, 2);
		w32(hdr + 20, (uint32_t)crc32(0, in.p, (uInt)in.len));
		body.len = 0;
		sec(&body, 0x02, hdr, 24, in.p, in.len);
		mkffs(&files, "CCCCCCCC-0000-4000-8000-000000000003", 0x07, 0, body.p, body.len);
		align8(&files, 0xFF);
		free(in.p);
	}
	/* COMPRESSION section type 0 (stored) */
	{
		struct buf in = { 0 };
		uint8_t hdr[5];
		sec(&in, 0x10, NULL, 0, PE, sizeof(PE));
		ui(&in, "Stored");
		w32(hdr, (uint32_t)in.len);
		hdr[4] = 0;
		body.len = 0;
		sec(&body, 0x01, hdr, 5, in.p, in.len);
		mkffs(&files, "CCCCCCCC-0000-4000-8000-000000000004", 0x07, 0, body.p, body.len);
		align8(&files, 0xFF);
		free(in.p);
	}
	fv(out, fvlen, 0x1000, DXE_FV, &files);
	free(files.p);
	free(body.p);
}

/* Bare BIOS image: 0x1000 padding, main FV (one file: LZMA { FV image { DXE FV } }), SEC FV with a VTF. */
static void bios(struct buf *img, size_t main_len)
{
	struct buf d = { 0 }, in = { 0 }, body = { 0 }, files = { 0 }, sec_files = { 0 };

	dxe_fv(&d, 0x4000);
	sec(&in, 0x17, NULL, 0, d.p, d.len);
	lzma_sec(&body, in.p, in.len);
	mkffs(&files, "9E21FD93-9C72-4C15-8C4B-E77F1DB2D792", 0x0B, 0, body.p, body.len);
	fill(img, 0xFF, 0x1000);
	fv(img, main_len, 0x1000, TOP_FV, &files);
	/* SEC volume: SecMain, then the volume top file at the very end */
	body.len = 0;
	sec(&body, 0x10, NULL, 0, PE, sizeof(PE));
	ui(&body, "SecMain");
	mkffs(&sec_files, "DF1CCEF6-F301-4A63-9661-FC6030DCC880", 0x03, 0, body.p, body.len);
	align8(&sec_files, 0xFF);
	{
		size_t vtf_len = 24 + 40; /* ends at 0x2000: files start at 0x60 */
		size_t at = 0x2000 - 0x60 - vtf_len;
		size_t pad = at - sec_files.len;
		uint8_t padb[0x2000];
		memset(padb, 0xFF, sizeof(padb));
		mkffs(&sec_files, "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", 0xF0, 0, padb, pad - 24);
		memset(padb, 0x90, 40);
		mkffs(&sec_files, "1BA0062E-C779-4582-8566-336AE8F78F09", 0x01, 0, padb, 40);
	}
	fv(img, 0x2000, 0x1000, "763BED0D-DE9F-48F5-81F1-3E90E1B1A015", &sec_files);
	free(d.p);
	free(in.p);
	free(body.p);
	free(files.p);
	free(sec_files.p);
}

static struct lb_uefi_image *parse(const uint8_t *p, size_t n, unsigned flags, int *rc, char *why)
{
	struct lb_uefi_image *img = NULL;

	why[0] = 0; /* a message must come from this call, not an earlier one */
	*rc = lb_uefi_parse(p, n, flags, &img, why, LB_UEFI_ERRLEN);
	return img;
}

static struct lb_uefi_image *reparse(struct lb_uefi_image *img, uint8_t **keep, size_t *len)
{
	char why[LB_UEFI_ERRLEN];
	int rc;
	struct lb_uefi_image *n;

	if (lb_uefi_serialize(img, keep, len))
		return NULL;
	n = parse(*keep, *len, 0, &rc, why);
	if (rc)
		printf("# reparse: %s\n", why);
	return n;
}

static size_t count_kind(const struct lb_uefi_node *n, enum lb_uefi_kind k)
{
	size_t c = n->kind == k;

	for (size_t i = 0; i < n->n_child; i++)
		c += count_kind(n->child[i], k);
	return c;
}

static void dirty_all(struct lb_uefi_node *n)
{
	n->dirty = 1;
	for (size_t i = 0; i < n->n_child; i++)
		dirty_all(n->child[i]);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n);
	if (fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

int main(void)
{
	struct buf img = { 0 };
	char why[LB_UEFI_ERRLEN];
	int rc;

	TEST("guid parse and format") {
		uint8_t g[16];
		char s[37];
		CHECK_INT(lb_guid_parse("8c8ce578-8a3d-4f1c-9935-896185c32dd3", g), 0);
		CHECK_INT(g[0], 0x78);
		CHECK_INT(g[3], 0x8C);
		CHECK_INT(g[8], 0x99);
		lb_guid_str(g, s);
		CHECK_STR(s, "8C8CE578-8A3D-4F1C-9935-896185C32DD3");
		CHECK_INT(lb_guid_parse("8C8CE578-8A3D-4F1C-9935-896185C32DD", g), -EINVAL);
		CHECK_INT(lb_guid_parse("8C8CE578-8A3D-4F1C-9935_896185C32DD3", g), -EINVAL);
		CHECK_INT(lb_guid_parse("8C8CE578-8A3D-4F1C-9935-896185C32DDZ", g), -EINVAL);
		CHECK_INT(lb_guid_parse("DxeCore", g), -EINVAL);
	}

	bios(&img, 0x4000);

	TEST("parse a bare BIOS image: tree, names, nesting") {
		struct lb_uefi_image *im = parse(img.p, img.len, 0, &rc, why);
		CHECK_INT(rc, 0);
		if (!im) {
			printf("# %s\n", why);
			continue;
		}
		struct lb_uefi_node *r = im->root;
		CHECK_INT(r->n_child, 3);
		CHECK_INT(r->child[0]->kind, LB_UEFI_PADDING);
		CHECK_INT(r->child[1]->kind, LB_UEFI_VOLUME);
		CHECK_INT(r->child[1]->offset, 0x1000);
		CHECK_INT(r->child[1]->fixed, 1);
		CHECK_INT(count_kind(r, LB_UEFI_VOLUME), 3);
		struct lb_uefi_node *f = lb_uefi_find_file(im, "DriverA");
		CHECK(f != NULL);
		if (f) {
			CHECK_INT(f->type, LB_FV_FILETYPE_DRIVER);
			CHECK(f->offset == LB_UEFI_NO_OFFSET); /* inside LZMA data */
			CHECK_INT(f->attributes & LB_FFS_ATTRIB_CHECKSUM, LB_FFS_ATTRIB_CHECKSUM);
			CHECK_INT(f->state, 0x07);
		}
		CHECK(lb_uefi_find_file(im, "Crc") != NULL);
		CHECK(lb_uefi_find_file(im, "Stored") != NULL);
		CHECK(lb_uefi_find_file(im, "SecMain") != NULL);
		CHECK(lb_uefi_find_file(im, "CCCCCCCC-0000-4000-8000-000000000003") != NULL);
		CHECK(lb_uefi_find_file(im, "Nope") == NULL);
		struct lb_uefi_node *dv = lb_uefi_dxe_volume(im);
		CHECK(dv != NULL);
		CHECK(dv == lb_uefi_find_volume(im, DXE_FV));
		CHECK(dv == lb_uefi_find_volume(im, "9E21FD93-9C72-4C15-8C4B-E77F1DB2D792"));
		if (dv) {
			CHECK_INT(dv->fixed, 0);
			CHECK_INT(dv->size, 0x4000);
			CHECK(dv->parent->parent->comp == LB_COMP_LZMA);
		}
		struct lb_uefi_node *m[8];
		CHECK_INT(lb_uefi_find(im, "1BA0062E-C779-4582-8566-336AE8F78F09", 0, m, 8), 1);
		CHECK_INT(lb_uefi_find(im, TOP_FV, 1u << LB_UEFI_VOLUME, m, 8), 1);
		CHECK_STR(lb_uefi_type_name(m[0]), "FFS2");
		lb_uefi_free(im);
	}

	TEST("serialize without edits is byte-identical") {
		struct lb_uefi_image *im = parse(img.p, img.len, 0, &rc, why);
		uint8_t *o = NULL;
		size_t n = 0;
		CHECK(im && !lb_uefi_serialize(im, &o, &n));
		CHECK(n == img.len && o && !memcmp(o, img.p, n));
		free(o);
		lb_uefi_free(im);
	}

	TEST("full rebuild of unchanged uncompressed volumes is byte-identical") {
		struct lb_uefi_image *im = parse(img.p, img.len, 0, &rc, why);
		struct lb_uefi_node *dv = im ? lb_uefi_dxe_volume(im) : NULL;
		uint8_t *o = NULL;
		size_t n = 0;
		CHECK(dv != NULL);
		if (!dv)
			continue;
		dirty_all(dv);
		CHECK_INT(lb_uefi_node_bytes(im, dv, 0, &o, &n), 0);
		CHECK(n == dv->raw_len && !memcmp(o, dv->raw, n));
		free(o);
		/* the SEC volume with its pad file and volume top file */
		struct lb_uefi_node *sv = lb_uefi_find_volume(im, "763BED0D-DE9F-48F5-81F1-3E90E1B1A015");
		CHECK(sv != NULL);
		if (sv) {
			dirty_all(sv);
			CHECK_INT(lb_uefi_node_bytes(im, sv, 0, &o, &n), 0);
			CHECK(n == sv->raw_len && !memcmp(o, sv->raw, n));
			free(o);
		}
		lb_uefi_free(im);
	}

	TEST("remove a file inside the LZMA section, recompress, reparse") {
		struct lb_uefi_image *im = parse(img.p, img.len, 0, &rc, why), *re;
		uint8_t *o = NULL;
		size_t n = 0;
		CHECK_INT(lb_uefi_remove(im, lb_uefi_find_file(im, "DriverB")), 0);
		re = reparse(im, &o, &n);
		CHECK(re != NULL);
		CHECK_INT(n, img.len);
		if (re) {
			CHECK(lb_uefi_find_file(re, "DriverB") == NULL);
			CHECK(lb_uefi_find_file(re, "DriverA") != NULL);
			CHECK(lb_uefi_find_file(re, "Crc") != NULL);
			struct lb_uefi_node *dv = lb_uefi_dxe_volume(re);
			struct lb_uefi_node *gs = dv ? dv->parent->parent : NULL;
			CHECK(gs && gs->comp == LB_COMP_LZMA);
			if (gs) {
				/* the 13-byte LZMA header carries the real size */
				size_t off = gs->hdr_len;
				CHECK_INT(r64(gs->raw + off + 5), gs->own_len);
			}
			/* untouched volumes keep their bytes */
			CHECK(!memcmp(o + img.len - 0x2000, img.p + img.len - 0x2000, 0x2000));
			CHECK(!memcmp(o, img.p, 0x1000));
			lb_uefi_free(re);
		}
		free(o);
		lb_uefi_free(im);
	}

	TEST("keep_only removes unlisted DXE drivers and applications") {
		struct lb_uefi_image *im = parse(img.p, img.len, 0, &rc, why), *re;
		const char *keep[] = { "DriverA", "CCCCCCCC-0000-4000-8000-000000000004" };
		size_t removed = 0;
		uint8_t *o = NULL;
		size_t n;
		CHECK_INT(lb_uefi_keep_only(im, keep, 2, &removed), 0);
		CHECK_INT(removed, 3); /* DriverB, Shell, Crc */
		re = reparse(im, &o, &n);
		CHECK(re != NULL);
		if (re) {
			CHECK(lb_uefi_find_file(re, "DxeCore") != NULL);
			CHECK(lb_uefi_find_file(re, "DriverA") != NULL);
			CHECK(lb_uefi_find_file(re, "Stored") != NULL);
			CHECK(lb_uefi_find_file(re, "Shell") == NULL);
			CHECK(lb_uefi_find_file(re, "Crc") == NULL);
			lb_uefi_free(re);
		}
		free(o);
		lb_uefi_free(im);
	}

	TEST("insert a built FFS: nested volume grows, alignment honoured") {
		struct lb_uefi_image *im = parse(img.p, img.len, 0, &rc, why), *re;
		struct lb_uefi_ffs_spec sp = { 0 };
		uint8_t *ffsb = NULL, *o = NULL, *pe = malloc(0x5000);
		size_t fl = 0, n = 0;
		for (size_t i = 0; i < 0x5000; i++)
			pe[i] = (uint8_t)(i * 7 + (i >> 8));
		memcpy(pe, "MZ", 2);
		G("12345678-1234-4234-8234-123456789ABC", sp.guid);
		sp.type = LB_FV_FILETYPE_DRIVER;
		sp.name = "Inserted";
		sp.version = "1.0";
		sp.pe32 = pe;
		sp.pe32_len = 0x5000;
		sp.depex = lb_uefi_depex_true;
		sp.depex_len = 2;
		sp.align = 4096;
		sp.checksum = 1;
		CHECK_INT(lb_uefi_ffs_build(&sp, &ffsb, &fl), 0);
		CHECK_INT(lb_uefi_insert(im, lb_uefi_dxe_volume(im), ffsb, fl, NULL), 0);
		CHECK_INT(lb_uefi_insert(im, lb_uefi_dxe_volume(im), ffsb, fl, NULL), -EEXIST);
		re = reparse(im, &o, &n);
		CHECK(re != NULL);
		if (re) {
			struct lb_uefi_node *f = lb_uefi_find_file(re, "Inserted");
			struct lb_uefi_node *dv = lb_uefi_dxe_volume(re);
			CHECK(f != NULL && dv != NULL);
			if (f && dv) {
				size_t rel = (size_t)(f->raw - dv->raw);
				CHECK_INT(f->align, 4096);
				CHECK_INT((rel + f->hdr_len) % 4096, 0);
				CHECK(dv->size > 0x4000);
				CHECK_INT(dv->size % 0x1000, 0);
				CHECK_INT(r32(dv->raw + 0x38) * (uint64_t)0x1000, dv->size); /* block map */
				CHECK(f->parent == dv);
				uint8_t *body = NULL;
				size_t bl = 0;
				/* the PE32 section body is the PE and it is 4 KiB aligned in the volume */
				struct lb_uefi_node *pes = NULL;
				for (size_t i = 0; i < f->n_child; i++)
					if (f->child[i]->type == 0x10)
						pes = f->child[i];
				CHECK(pes != NULL);
				if (pes) {
					CHECK_INT(lb_uefi_node_bytes(re, pes, 1, &body, &bl), 0);
					CHECK(bl == 0x5000 && !memcmp(body, pe, bl));
					CHECK_INT((size_t)(pes->raw + 4 - dv->raw) % 4096, 0);
					free(body);
				}
				CHECK(count_kind(dv, LB_UEFI_FILE) >= 7); /* + a pad file */
			}
			lb_uefi_free(re);
		}
		free(o);
		free(ffsb);
		free(pe);
		lb_uefi_free(im);
	}

	TEST("insert into a fixed top-level volume: does not fit") {
		struct lb_uefi_image *im = parse(img.p, img.len, 0, &rc, why);
		struct lb_uefi_ffs_spec sp = { 0 };
		uint8_t *ffsb = NULL, *o = NULL, raw[0x3000];
		size_t fl = 0, n = 0;
		memset(raw, 0x5A, sizeof(raw));
		G("12345678-1234-4234-8234-123456789ABD", sp.guid);
		sp.type = LB_FV_FILETYPE_FREEFORM;
		sp.raw = raw;
		sp.raw_len = sizeof(raw);
		CHECK_INT(lb_uefi_ffs_build(&sp, &ffsb, &fl), 0);
		struct lb_uefi_node *sv = lb_uefi_find_volume(im, "763BED0D-DE9F-48F5-81F1-3E90E1B1A015");
		CHECK_INT(lb_uefi_insert(im, sv, ffsb, fl, NULL), 0);
		CHECK_INT(lb_uefi_serialize(im, &o, &n), -ENOSPC);
		CHECK(strstr(im->err, "763BED0D-DE9F-48F5-81F1-3E90E1B1A015: does not fit: ") != NULL);
		/* exact: 0x60 hdr + SecMain 0x60 + new file 0x3020 + VTF 0x40 - 0x2000 */
		CHECK(strstr(im->err, "does not fit: 4384 bytes over") != NULL);
		printf("# %s\n", im->err);
		free(o);
		free(ffsb);
		lb_uefi_free(im);
	}

	TEST("insert a small file before the volume top file of a fixed volume") {
		struct lb_uefi_image *im = parse(img.p, img.len, 0, &rc, why), *re;
		struct lb_uefi_ffs_spec sp = { 0 };
		uint8_t *ffsb = NULL, *o = NULL, raw[100];
		size_t fl = 0, n = 0;
		memset(raw, 0x11, sizeof(raw));
		G("12345678-1234-4234-8234-123456789ABE", sp.guid);
		sp.type = LB_FV_FILETYPE_RAW;
		sp.raw = raw;
		sp.raw_len = sizeof(raw);
		CHECK_INT(lb_uefi_ffs_build(&sp, &ffsb, &fl), 0);
		struct lb_uefi_node *sv = lb_uefi_find_volume(im, "763BED0D-DE9F-48F5-81F1-3E90E1B1A015");
		CHECK_INT(lb_uefi_insert(im, sv, ffsb, fl, NULL), 0);
		re = reparse(im, &o, &n);
		CHECK(re != NULL);
		if (re) {
			struct lb_uefi_node *v = lb_uefi_find_volume(re, "763BED0D-DE9F-48F5-81F1-3E90E1B1A015");
			struct lb_uefi_node *last = v ? v->child[v->n_child - 1] : NULL;
			CHECK(last && last->kind == LB_UEFI_FILE);
			char g[37] = "";
			if (last)
				lb_guid_str(last->guid, g);
			CHECK_STR(g, "1BA0062E-C779-4582-8566-336AE8F78F09");
			CHECK(!memcmp(o + n - 40, img.p + img.len - 40, 40));
			CHECK(lb_uefi_find_file(re, "12345678-1234-4234-8234-123456789ABE") != NULL);
			lb_uefi_free(re);
		}
		free(o);
		free(ffsb);
		lb_uefi_free(im);
	}

	TEST("replace a PE32 body") {
		struct lb_uefi_image *im = parse(img.p, img.len, 0, &rc, why), *re;
		static const uint8_t npe[] = "MZ a brand new PE body, longer than the old one..........";
		uint8_t *o = NULL, *b = NULL;
		size_t n = 0, bl = 0;
		CHECK_INT(lb_uefi_replace_pe32(im, lb_uefi_find_file(im, "Crc"), npe, sizeof(npe)), 0);
		re = reparse(im, &o, &n);
		CHECK(re != NULL);
		if (re) {
			struct lb_uefi_node *f = lb_uefi_find_file(re, "Crc");
			struct lb_uefi_node *crc = f && f->n_child ? f->child[0] : NULL;
			CHECK(crc && crc->comp == LB_COMP_CRC32); /* CRC recomputed: reparse verified it */
			if (crc && crc->n_child) {
				CHECK_INT(lb_uefi_node_bytes(re, crc->child[0], 1, &b, &bl), 0);
				CHECK(bl == sizeof(npe) && !memcmp(b, npe, bl));
				free(b);
			}
			lb_uefi_free(re);
		}
		CHECK_INT(lb_uefi_replace_pe32(im, lb_uefi_find_file(im, "1BA0062E-C779-4582-8566-336AE8F78F09"), npe, 4),
			  -ENOENT);
		free(o);
		lb_uefi_free(im);
	}

	TEST("ffs_build: header, checksums, sections") {
		struct lb_uefi_ffs_spec sp = { 0 };
		uint8_t *f = NULL, s = 0;
		size_t n = 0;
		G("AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE", sp.guid);
		sp.type = LB_FV_FILETYPE_APPLICATION;
		sp.name = "App";
		sp.pe32 = PE;
		sp.pe32_len = sizeof(PE);
		CHECK_INT(lb_uefi_ffs_build(&sp, &f, &n), 0);
		CHECK_INT(r32(f + 20) & 0xFFFFFF, n);
		for (size_t i = 0; i < 24; i++)
			if (i != 17 && i != 23)
				s = (uint8_t)(s + f[i]);
		CHECK_INT(s, 0);
		CHECK_INT(f[17], 0xAA);
		CHECK_INT(f[18], 0x09);
		CHECK_INT(f[23], 0xF8);
		CHECK_INT(f[24 + 3], 0x10); /* PE32 first */
		free(f);
		sp.type = LB_FV_FILETYPE_PAD;
		CHECK_INT(lb_uefi_ffs_build(&sp, &f, &n), -EINVAL);
		sp.type = LB_FV_FILETYPE_RAW;
		CHECK_INT(lb_uefi_ffs_build(&sp, &f, &n), -EINVAL); /* RAW with sections */
	}

	TEST("large file (HEADER2) and large section in an FFS3 volume") {
		size_t big = (16u << 20) + 100, fvlen = 18u << 20;
		struct lb_uefi_ffs_spec sp = { 0 };
		uint8_t *raw = calloc(1, big), *f = NULL, *o = NULL;
		size_t n = 0, on = 0;
		struct buf files = { 0 }, im2 = { 0 };
		G("BBBBBBBB-BBBB-4BBB-8BBB-BBBBBBBBBBBB", sp.guid);
		sp.type = LB_FV_FILETYPE_FREEFORM;
		sp.raw = raw;
		sp.raw_len = big;
		sp.name = "Big";
		CHECK_INT(lb_uefi_ffs_build(&sp, &f, &n), 0);
		CHECK(f[19] & LB_FFS_ATTRIB_LARGE_FILE);
		CHECK_INT(r64(f + 24), n);
		CHECK_INT(f[32 + 3], 0x15); /* UI "Big": 12 bytes */
		CHECK_INT(f[44 + 0] | f[44 + 1] << 8 | f[44 + 2] << 16, 0xFFFFFF); /* HEADER2 section */
		CHECK_INT(f[44 + 3], 0x19);
		CHECK_INT(r32(f + 48), big + 8);
		put(&files, f, n);
		fv(&im2, fvlen, 0x10000, NULL, &files);
		G("5473C07A-3DCB-4DCA-BD6F-1E9689E7349A", im2.p + 0x10); /* FFS3 */
		{ /* fix the checksum after the GUID change */
			uint16_t sum = 0;
			w16(im2.p + 0x32, 0);
			for (size_t i = 0; i < 0x48; i += 2)
				sum = (uint16_t)(sum + (im2.p[i] | im2.p[i + 1] << 8));
			w16(im2.p + 0x32, (uint16_t)-sum);
		}
		struct lb_uefi_image *im = parse(im2.p, im2.len, 0, &rc, why);
		CHECK_INT(rc, 0);
		if (im) {
			struct lb_uefi_node *bf = lb_uefi_find_file(im, "Big");
			CHECK(bf != NULL);
			if (bf) {
				CHECK_INT(bf->size, n);
				CHECK_INT(bf->hdr_len, 32);
			}
			CHECK_STR(lb_uefi_type_name(im->root->child[0]), "FFS3");
			/* rebuild the file: same bytes */
			dirty_all(im->root);
			CHECK_INT(lb_uefi_serialize(im, &o, &on), 0);
			CHECK(on == im2.len && !memcmp(o, im2.p, on));
			free(o);
			lb_uefi_free(im);
		}
		free(f);
		free(raw);
		free(files.p);
		free(im2.p);
	}

	TEST("Tiano / EFI 1.1 compression sections round-trip") {
		struct buf in = { 0 }, body = { 0 }, files = { 0 }, im2 = { 0 };
		uint8_t *c = NULL, hdr[5], *o = NULL;
		size_t cl = 0, on = 0;
		sec(&in, 0x10, NULL, 0, PE, sizeof(PE));
		ui(&in, "Tiano");
		CHECK_INT(lb_tiano_compress(LB_ALG_TIANO, in.p, in.len, &c, &cl), 0);
		w32(hdr, (uint32_t)in.len);
		hdr[4] = 1;
		sec(&body, 0x01, hdr, 5, c, cl);
		mkffs(&files, "DDDDDDDD-0000-4000-8000-000000000001", 0x07, 0, body.p, body.len);
		fv(&im2, 0x2000, 0x1000, NULL, &files);
		struct lb_uefi_image *im = parse(im2.p, im2.len, 0, &rc, why), *re;
		CHECK_INT(rc, 0);
		if (rc)
			printf("# %s\n", why);
		if (im) {
			struct lb_uefi_node *f = lb_uefi_find_file(im, "Tiano");
			CHECK(f != NULL);
			CHECK(f && f->n_child && (f->child[0]->comp == LB_COMP_TIANO ||
						 f->child[0]->comp == LB_COMP_EFI11));
			/* edit inside: replace PE -> recompressed with the same algorithm */
			enum lb_uefi_comp was = f ? f->child[0]->comp : LB_COMP_NONE;
			CHECK_INT(lb_uefi_replace_pe32(im, f, (const uint8_t *)"MZ new", 6), 0);
			re = reparse(im, &o, &on);
			CHECK(re != NULL);
			if (re) {
				struct lb_uefi_node *g = lb_uefi_find_file(re, "Tiano");
				CHECK(g && g->n_child && g->child[0]->comp == was);
				lb_uefi_free(re);
			}
			free(o);
			lb_uefi_free(im);
		}
		free(c);
		free(in.p);
		free(body.p);
		free(files.p);
		free(im2.p);
	}

	TEST("Intel flash descriptor image: only BIOS region parsed and edited") {
		struct buf fd = { 0 }, bios_r = { 0 };
		size_t blen;
		bios(&bios_r, 0x4000);
		blen = bios_r.len; /* 0x1000 + 0x4000 + 0x2000 = 0x7000 */
		fill(&fd, 0xFF, 0x1000);
		w32(fd.p + 0x10, 0x0FF0A55A);
		w32(fd.p + 0x14, 0x00040003 | (0x04 << 16)); /* FRBA = 0x40 */
		w32(fd.p + 0x40, 0x00000000);                /* descriptor 0-0xFFF */
		w32(fd.p + 0x44, ((0x3000 + blen - 1) >> 12) << 16 | (0x3000 >> 12)); /* BIOS */
		w32(fd.p + 0x48, (0x2000 >> 12) << 16 | (0x1000 >> 12)); /* ME 0x1000-0x2FFF */
		w32(fd.p + 0x4C, 0x00007FFF);                /* unused */
		fill(&fd, 0x4D, 0x2000);                     /* ME */
		put(&fd, bios_r.p, blen);
		struct lb_uefi_image *im = parse(fd.p, fd.len, 0, &rc, why), *re;
		CHECK_INT(rc, 0);
		if (!im) {
			printf("# %s\n", why);
		} else {
			CHECK_INT(im->has_descriptor, 1);
			CHECK_INT(im->root->n_child, 3);
			CHECK_STR(lb_uefi_type_name(im->root->child[1]), "ME");
			CHECK_STR(lb_uefi_type_name(im->root->child[2]), "BIOS");
			CHECK(lb_uefi_find_file(im, "DriverA") != NULL);
			uint8_t *o = NULL;
			size_t on = 0;
			CHECK_INT(lb_uefi_remove(im, lb_uefi_find_file(im, "DriverA")), 0);
			re = reparse(im, &o, &on);
			CHECK(re != NULL);
			CHECK(on == fd.len && !memcmp(o, fd.p, 0x3000)); /* descriptor + ME kept */
			if (re) {
				CHECK(lb_uefi_find_file(re, "DriverA") == NULL);
				lb_uefi_free(re);
			}
			free(o);
			lb_uefi_free(im);
		}
		/* a region beyond the image */
		w32(fd.p + 0x44, (0x7FFF) << 16 | (0x3000 >> 12));
		im = parse(fd.p, fd.len, 0, &rc, why);
		CHECK_INT(rc, -EBADMSG);
		CHECK(strstr(why, "region 1") != NULL);
		free(fd.p);
		free(bios_r.p);
	}

	TEST("corrupt variants fail cleanly with a reason") {
		uint8_t *c = malloc(img.len);
		struct lb_uefi_image *im;
		/* file header checksum (SecMain, SEC volume at len-0x2000, file at +0x60) */
		memcpy(c, img.p, img.len);
		c[img.len - 0x2000 + 0x60 + 1] ^= 0x40;
		im = parse(c, img.len, 0, &rc, why);
		lb_uefi_free(im);
		CHECK_INT(rc, -EBADMSG);
		CHECK(im == NULL && strstr(why, "header checksum") != NULL);
		im = parse(c, img.len, LB_UEFI_LENIENT, &rc, why);
		CHECK_INT(rc, 0);
		lb_uefi_free(im);
		/* volume header checksum */
		memcpy(c, img.p, img.len);
		c[0x1000 + 0x2C] ^= 1;
		im = parse(c, img.len, 0, &rc, why);
		lb_uefi_free(im);
		CHECK_INT(rc, -EBADMSG);
		CHECK(strstr(why, "volume at 0x1000: header checksum") != NULL);
		/* data checksum of DriverA lives in LZMA data: corrupt the LZMA stream instead */
		memcpy(c, img.p, img.len);
		for (size_t i = 0x1000 + 0x60 + 24 + 24 + 40; i < 0x1000 + 0x60 + 24 + 24 + 80; i++)
			c[i] ^= 0x55;
		im = parse(c, img.len, 0, &rc, why);
		lb_uefi_free(im);
		CHECK(rc == -EBADMSG && im == NULL);
		printf("# %s\n", why);
		/* truncations at many points: never crash, always a clean result */
		for (size_t cut = 0; cut < img.len; cut += 0x1F3) {
			im = parse(img.p, cut, 0, &rc, why);
			CHECK(rc == 0 || (rc < 0 && why[0]));
			lb_uefi_free(im);
		}
		/* byte flips everywhere in the headers: no crash, no leak */
		for (size_t i = 0x1000; i < 0x1000 + 0x200; i++) {
			memcpy(c, img.p, img.len);
			c[i] ^= 0xFF;
			im = parse(c, img.len, LB_UEFI_LENIENT, &rc, why);
			lb_uefi_free(im);
		}
		CHECK_INT(lb_uefi_parse(c, 10, 0, &im, why, sizeof(why)), -EBADMSG);
		free(c);
	}

	TEST("unknown GUID-defined sections: plain, garbage, processing required") {
		struct buf in = { 0 }, files = { 0 }, im2 = { 0 }, body = { 0 };
		uint8_t hdr[20];
		sec(&in, 0x10, NULL, 0, PE, sizeof(PE));
		ui(&in, "Inner");
		for (int k = 0; k < 3; k++) {
			G("ABABABAB-0000-4000-8000-00000000000A", hdr);
			w16(hdr + 16, 0x18);
			w16(hdr + 18, k == 2 ? 1 : 2); /* PROCESSING_REQUIRED for k == 2 */
			body.len = 0;
			if (k == 1)
				sec(&body, 0x02, hdr, 20, "\xff\xff\xff\x7f garbage", 13);
			else
				sec(&body, 0x02, hdr, 20, in.p, in.len);
			char g[40];
			snprintf(g, sizeof(g), "EEEEEEEE-0000-4000-8000-00000000000%d", k);
			mkffs(&files, g, 0x07, 0, body.p, body.len);
			align8(&files, 0xFF);
		}
		fv(&im2, 0x1000, 0x1000, NULL, &files);
		struct lb_uefi_image *im = parse(im2.p, im2.len, 0, &rc, why);
		CHECK_INT(rc, 0);
		if (im) {
			struct lb_uefi_node *f0 = lb_uefi_find_file(im, "EEEEEEEE-0000-4000-8000-000000000000");
			struct lb_uefi_node *f1 = lb_uefi_find_file(im, "EEEEEEEE-0000-4000-8000-000000000001");
			struct lb_uefi_node *f2 = lb_uefi_find_file(im, "EEEEEEEE-0000-4000-8000-000000000002");
			CHECK(f0 && f1 && f2);
			if (f0 && f1 && f2) {
				CHECK_STR(f0->name, "Inner");
				CHECK_INT(f0->child[0]->n_child, 2);
				CHECK_INT(f1->child[0]->n_child, 0);
				CHECK_INT(f1->child[0]->opaque, 1);
				CHECK_INT(f2->child[0]->n_child, 0);
				CHECK(f2->name == NULL);
			}
			uint8_t *o = NULL;
			size_t on = 0;
			dirty_all(im->root);
			CHECK_INT(lb_uefi_serialize(im, &o, &on), 0);
			CHECK(on == im2.len && !memcmp(o, im2.p, on));
			free(o);
			lb_uefi_free(im);
		}
		free(in.p);
		free(files.p);
		free(im2.p);
		free(body.p);
	}

	TEST("erase polarity 0 volume: free space, state bits, pad files") {
		struct buf files = { 0 }, im2 = { 0 }, body = { 0 };
		sec(&body, 0x10, NULL, 0, PE, sizeof(PE));
		ui(&body, "Zero");
		mkffs(&files, "0000AAAA-0000-4000-8000-000000000001", 0x07, 0, body.p, body.len);
		files.p[23] = 0x07; /* polarity 0: bits set as they are */
		fv(&im2, 0x2000, 0x1000, NULL, &files);
		{ /* clear ERASE_POLARITY, zero the free space, fix the checksum */
			uint16_t sum = 0;
			w32(im2.p + 0x2C, 0x0004F6FF);
			for (size_t i = 0x48 + files.len; i < im2.len; i++)
				im2.p[i] = 0;
			w16(im2.p + 0x32, 0);
			for (size_t i = 0; i < 0x48; i += 2)
				sum = (uint16_t)(sum + (im2.p[i] | im2.p[i + 1] << 8));
			w16(im2.p + 0x32, (uint16_t)-sum);
		}
		struct lb_uefi_image *im = parse(im2.p, im2.len, 0, &rc, why), *re;
		CHECK_INT(rc, 0);
		if (rc)
			printf("# %s\n", why);
		if (im) {
			struct lb_uefi_node *v = im->root->child[0];
			CHECK_INT(v->erase, 0x00);
			CHECK_INT(v->child[v->n_child - 1]->kind, LB_UEFI_FREE);
			CHECK_INT(lb_uefi_find_file(im, "Zero")->state, 0x07);
			struct lb_uefi_ffs_spec sp = { 0 };
			uint8_t *f = NULL, *o = NULL;
			size_t fl = 0, on = 0;
			G("0000AAAA-0000-4000-8000-000000000002", sp.guid);
			sp.type = LB_FV_FILETYPE_DRIVER;
			sp.name = "Aligned";
			sp.pe32 = PE;
			sp.pe32_len = sizeof(PE);
			sp.align = 512;
			CHECK_INT(lb_uefi_ffs_build(&sp, &f, &fl), 0);
			CHECK_INT(lb_uefi_insert(im, v, f, fl, NULL), 0);
			re = reparse(im, &o, &on);
			CHECK(re != NULL);
			if (re) {
				struct lb_uefi_node *a = lb_uefi_find_file(re, "Aligned");
				struct lb_uefi_node *rv = re->root->child[0];
				CHECK(a != NULL);
				if (a) {
					CHECK_INT(a->state, 0x07);
					CHECK_INT(a->raw[23], 0x07);
					CHECK_INT((size_t)(a->raw + 24 - rv->raw) % 512, 0);
				}
				/* a pad file (polarity 0: zero body) before it */
				CHECK_INT(rv->child[1]->type, LB_FV_FILETYPE_PAD);
				CHECK_INT(rv->child[1]->raw[24], 0x00);
				CHECK_INT(rv->child[rv->n_child - 1]->kind, LB_UEFI_FREE);
				CHECK_INT(o[on - 1], 0x00);
				lb_uefi_free(re);
			}
			free(f);
			free(o);
			lb_uefi_free(im);
		}
		free(files.p);
		free(im2.p);
		free(body.p);
	}

	TEST("LZMA-F86 sections: x86 BCJ + LZMA both ways") {
		struct buf in = { 0 }, body = { 0 }, files = { 0 }, im2 = { 0 };
		uint8_t code[4096], hdr[20];
		for (size_t i = 0; i < sizeof(code); i += 8) { /* call rel32 + nops */
			code[i] = 0xE8;
			w32(code + i + 1, (uint32_t)(0x100 + i));
			code[i + 5] = code[i + 6] = code[i + 7] = 0x90;
		}
		code[0] = 'M';
		code[1] = 'Z';
		sec(&in, 0x10, NULL, 0, code, sizeof(code));
		ui(&in, "F86");
		/* encode here with liblzma's own chain: x86 BCJ then LZMA1, 13-byte header */
		lzma_options_lzma o;
		lzma_lzma_preset(&o, 6);
		lzma_filter fl[3] = { { LZMA_FILTER_X86, NULL }, { LZMA_FILTER_LZMA1, &o },
				      { LZMA_VLI_UNKNOWN, NULL } };
		lzma_stream s = LZMA_STREAM_INIT;
		uint8_t *c = malloc(in.len + 4096);
		CHECK(lzma_raw_encoder(&s, fl) == LZMA_OK);
		lzma_properties_encode(&fl[1], c);
		w64(c + 5, in.len);
		s.next_in = in.p;
		s.avail_in = in.len;
		s.next_out = c + 13;
		s.avail_out = in.len + 4096 - 13;
		while (lzma_code(&s, LZMA_FINISH) == LZMA_OK)
			;
		size_t cl = in.len + 4096 - s.avail_out;
		lzma_end(&s);
		G("D42AE6BD-1352-4BFB-909A-CA72A6EAE889", hdr);
		w16(hdr + 16, 0x18);
		w16(hdr + 18, 1);
		sec(&body, 0x02, hdr, 20, c, cl);
		free(c);
		mkffs(&files, "F86F86F8-0000-4000-8000-000000000001", 0x07, 0, body.p, body.len);
		fv(&im2, 0x4000, 0x1000, NULL, &files);
		struct lb_uefi_image *im = parse(im2.p, im2.len, 0, &rc, why), *re;
		CHECK_INT(rc, 0);
		if (rc)
			printf("# %s\n", why);
		if (im) {
			struct lb_uefi_node *f = lb_uefi_find_file(im, "F86");
			CHECK(f && f->n_child == 1 && f->child[0]->comp == LB_COMP_LZMAF86);
			CHECK(f && f->child[0]->own_len == in.len && !memcmp(f->child[0]->own, in.p, in.len));
			code[100] = 0x77; /* change the body: recompress */
			CHECK_INT(lb_uefi_replace_pe32(im, f, code, sizeof(code)), 0);
			uint8_t *out = NULL;
			size_t on = 0;
			re = reparse(im, &out, &on);
			CHECK(re != NULL);
			if (re) {
				struct lb_uefi_node *g = lb_uefi_find_file(re, "F86");
				struct lb_uefi_node *gs = g ? g->child[0] : NULL;
				CHECK(gs && gs->comp == LB_COMP_LZMAF86);
				if (gs) {
					const uint8_t *d = gs->raw + gs->hdr_len;
					size_t dl = gs->raw_len - gs->hdr_len;
					CHECK_INT(r64(d + 5), gs->own_len);
					CHECK(!memcmp(gs->own + 4, code, sizeof(code)));
					/* LZMA alone (no BCJ) gives the filtered bytes, not the code */
					lzma_stream t = LZMA_STREAM_INIT;
					uint8_t *plain = malloc(gs->own_len);
					CHECK(lzma_alone_decoder(&t, UINT64_MAX) == LZMA_OK);
					t.next_in = d;
					t.avail_in = dl;
					t.next_out = plain;
					t.avail_out = gs->own_len;
					lzma_ret r;
					while ((r = lzma_code(&t, LZMA_FINISH)) == LZMA_OK && t.avail_out)
						;
					lzma_end(&t);
					CHECK_INT(t.avail_out, 0);
					CHECK(memcmp(plain + 4, code, sizeof(code)) != 0);
					CHECK(!memcmp(plain + 4, "MZ", 2));
					free(plain);
				}
				lb_uefi_free(re);
			}
			free(out);
			lb_uefi_free(im);
		}
		free(in.p);
		free(body.p);
		free(files.p);
		free(im2.p);
	}

	TEST("execute-in-place files do not move unless allowed") {
		struct buf files = { 0 }, im2 = { 0 }, body = { 0 };
		sec(&body, 0x10, NULL, 0, PE, sizeof(PE));
		ui(&body, "PeimA");
		mkffs(&files, "0000BBBB-0000-4000-8000-00000000000A", 0x06, 0, body.p, body.len);
		align8(&files, 0xFF);
		body.len = 0;
		sec(&body, 0x10, NULL, 0, PE, sizeof(PE));
		ui(&body, "PeimB");
		mkffs(&files, "0000BBBB-0000-4000-8000-00000000000B", 0x06, 0, body.p, body.len);
		fv(&im2, 0x1000, 0x1000, NULL, &files);
		struct lb_uefi_image *im = parse(im2.p, im2.len, 0, &rc, why), *re;
		CHECK_INT(rc, 0);
		if (im) {
			uint8_t *o = NULL;
			size_t on = 0;
			/* appending after them is fine */
			struct lb_uefi_ffs_spec sp = { 0 };
			uint8_t *f = NULL;
			size_t fl = 0;
			G("0000BBBB-0000-4000-8000-00000000000C", sp.guid);
			sp.type = LB_FV_FILETYPE_PEIM;
			sp.name = "PeimC";
			sp.pe32 = PE;
			sp.pe32_len = sizeof(PE);
			CHECK_INT(lb_uefi_ffs_build(&sp, &f, &fl), 0);
			CHECK_INT(lb_uefi_insert(im, im->root->child[0], f, fl, NULL), 0);
			free(f);
			CHECK_INT(lb_uefi_serialize(im, &o, &on), 0);
			free(o);
			o = NULL;
			/* removing the first moves the second: refused */
			CHECK_INT(lb_uefi_remove(im, lb_uefi_find_file(im, "PeimA")), 0);
			CHECK_INT(lb_uefi_serialize(im, &o, &on), -ENOTSUP);
			CHECK(strstr(im->err, "0000BBBB-0000-4000-8000-00000000000B PeimB would move from 0x") != NULL);
			im->flags |= LB_UEFI_MOVE_XIP;
			re = reparse(im, &o, &on);
			CHECK(re != NULL);
			if (re) {
				CHECK(lb_uefi_find_file(re, "PeimA") == NULL);
				CHECK(lb_uefi_find_file(re, "PeimB") != NULL);
				CHECK(lb_uefi_find_file(re, "PeimC") != NULL);
				lb_uefi_free(re);
			}
			free(o);
			lb_uefi_free(im);
		}
		free(files.p);
		free(im2.p);
		free(body.p);
	}

	TEST("insert rejects malformed FFS bytes") {
		struct lb_uefi_image *im = parse(img.p, img.len, 0, &rc, why);
		uint8_t junk[64];
		memset(junk, 0, sizeof(junk));
		struct lb_uefi_node *dv = lb_uefi_dxe_volume(im);
		CHECK_INT(lb_uefi_insert(im, dv, junk, 10, NULL), -EBADMSG);
		w24(junk + 20, 64);
		junk[18] = 7;
		CHECK_INT(lb_uefi_insert(im, dv, junk, 64, NULL), -EBADMSG); /* checksum */
		CHECK_INT(lb_uefi_insert(im, lb_uefi_find_file(im, "DriverA"), junk, 64, NULL), -EINVAL);
		lb_uefi_free(im);
	}

	TEST("OVMF: rebuilding every uncompressed volume reproduces EDK2's bytes") {
		static const char ovmf[] = "/usr/share/OVMF/OVMF_CODE_4M.fd";
		size_t len = 0;
		if (access(ovmf, F_OK) != 0) {
			SKIP("%s not installed (apt-get install ovmf)", ovmf);
			continue;
		}
		uint8_t *ov = slurp(ovmf, &len);
		CHECK(ov != NULL); /* installed but unreadable is a failure */
		if (!ov)
			continue;
		struct lb_uefi_image *im = parse(ov, len, 0, &rc, why);
		CHECK_INT(rc, 0);
		if (im) {
			const char *vols[] = { "6938079B-B503-4E3D-9D24-B28337A25806", DXE_FV,
					       "763BED0D-DE9F-48F5-81F1-3E90E1B1A015" };
			for (int i = 0; i < 3; i++) {
				struct lb_uefi_node *v = lb_uefi_find_volume(im, vols[i]);
				uint8_t *o = NULL;
				size_t n = 0;
				CHECK(v != NULL);
				if (!v)
					continue;
				dirty_all(v);
				CHECK_INT(lb_uefi_node_bytes(im, v, 0, &o, &n), 0);
				CHECK(n == v->raw_len && !memcmp(o, v->raw, n));
				free(o);
			}
			CHECK_INT(count_kind(lb_uefi_dxe_volume(im), LB_UEFI_FILE), 111); /* as UEFIExtract counts them */
			lb_uefi_free(im);
		}
		free(ov);
	}

	free(img.p);
	return t_done();
}
