/*
 * UEFI image parser: flash descriptor / bare BIOS -> volumes -> FFS files ->
 * sections (recursively through compressed and nested volumes). Every
 * length and offset is checked against its container; depth, node count and
 * decompressed sizes are capped. Also the tree's navigation and names,
 * which the writer and the editor both use (this file calls neither).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiano.h"
#include "uefi_int.h"

const uint8_t lb_guid_ffs2[16] = { 0x78, 0xE5, 0x8C, 0x8C, 0x3D, 0x8A, 0x1C, 0x4F,
				   0x99, 0x35, 0x89, 0x61, 0x85, 0xC3, 0x2D, 0xD3 };
const uint8_t lb_guid_ffs3[16] = { 0x7A, 0xC0, 0x73, 0x54, 0xCB, 0x3D, 0xCA, 0x4D,
				   0xBD, 0x6F, 0x1E, 0x96, 0x89, 0xE7, 0x34, 0x9A };
const uint8_t lb_guid_lzma[16] = { 0x98, 0x58, 0x4E, 0xEE, 0x14, 0x39, 0x59, 0x42,
				   0x9D, 0x6E, 0xDC, 0x7B, 0xD7, 0x94, 0x03, 0xCF };
const uint8_t lb_guid_lzmaf86[16] = { 0xBD, 0xE6, 0x2A, 0xD4, 0x52, 0x13, 0xFB, 0x4B,
				      0x90, 0x9A, 0xCA, 0x72, 0xA6, 0xEA, 0xE8, 0x89 };
const uint8_t lb_guid_crc32[16] = { 0xB0, 0xCD, 0x1B, 0xFC, 0x31, 0x7D, 0xAA, 0x49,
				    0x93, 0x6A, 0xA4, 0x60, 0x0D, 0x9D, 0xD0, 0x83 };
const uint8_t lb_guid_vtf[16] = { 0x2E, 0x06, 0xA0, 0x1B, 0x79, 0xC7, 0x82, 0x45,
				  0x85, 0x66, 0x33, 0x6A, 0xE8, 0xF7, 0x8F, 0x09 };

/* EFI_SYSTEM_NV_DATA_FV_GUID FFF12B8D-7696-4C8B-A985-2747075B4F50 */
static const uint8_t nvram_guid[16] = { 0x8D, 0x2B, 0xF1, 0xFF, 0x96, 0x76, 0x8B, 0x4C,
					0xA9, 0x85, 0x27, 0x47, 0x07, 0x5B, 0x4F, 0x50 };

/* ---- small helpers ------------------------------------------------------------ */

int ob_reserve(struct obuf *o, size_t more)
{
	size_t need, cap;
	uint8_t *p;

	if (more > SIZE_MAX - o->len)
		return -ENOMEM;
	need = o->len + more;
	if (need <= o->cap)
		return 0;
	cap = o->cap ? o->cap : 4096;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	p = realloc(o->p, cap);
	if (!p)
		return -ENOMEM;
	o->p = p;
	o->cap = cap;
	return 0;
}

int ob_put(struct obuf *o, const void *d, size_t n)
{
	int rc = ob_reserve(o, n);

	if (rc)
		return rc;
	if (n)
		memcpy(o->p + o->len, d, n);
	o->len += n;
	return 0;
}

int ob_fill(struct obuf *o, uint8_t b, size_t n)
{
	int rc = ob_reserve(o, n);

	if (rc)
		return rc;
	if (n)
		memset(o->p + o->len, b, n);
	o->len += n;
	return 0;
}

int uefi_seterr(struct lb_uefi_image *img, int rc, const char *fmt, ...)
{
	va_list ap;

	if (img) {
		va_start(ap, fmt);
		vsnprintf(img->err, sizeof(img->err), fmt, ap);
		va_end(ap);
	}
	return rc;
}

int lb_guid_parse(const char *s, uint8_t g[16])
{
	static const int pos[16] = { 6, 4, 2, 0, 11, 9, 16, 14, 19, 21, 24, 26, 28, 30, 32, 34 };
	uint8_t t[16];

	if (!s || strlen(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
		return -EINVAL;
	for (int i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23)
			continue;
		char c = s[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return -EINVAL;
	}
	for (int i = 0; i < 16; i++) {
		unsigned v;
		char hx[3] = { s[pos[i]], s[pos[i] + 1], 0 };
		v = (unsigned)strtoul(hx, NULL, 16);
		t[i] = (uint8_t)v;
	}
	memcpy(g, t, 16);
	return 0;
}

void lb_guid_str(const uint8_t g[16], char out[37])
{
	snprintf(out, 37, "%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X",
		 le32(g), le16(g + 4), le16(g + 6), g[8], g[9], g[10], g[11], g[12], g[13],
		 g[14], g[15]);
}

static const char *gs(const uint8_t g[16], char buf[37])
{
	lb_guid_str(g, buf);
	return buf;
}

struct lb_uefi_node *uefi_node_new(struct lb_uefi_image *img, struct lb_uefi_node *parent,
				   enum lb_uefi_kind kind)
{
	struct lb_uefi_node *n;

	if (img->n_nodes >= LB_UEFI_MAX_NODES)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->kind = kind;
	n->offset = LB_UEFI_NO_OFFSET;
	n->align = 1;
	if (parent) {
		struct lb_uefi_node **c = realloc(parent->child,
						  (parent->n_child + 1) * sizeof(*c));
		if (!c) {
			free(n);
			return NULL;
		}
		parent->child = c;
		c[parent->n_child++] = n;
		n->parent = parent;
	}
	img->n_nodes++;
	return n;
}

void uefi_node_free(struct lb_uefi_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_child; i++)
		uefi_node_free(n->child[i]);
	free(n->child);
	free(n->name);
	free(n->own);
	free(n);
}

int uefi_node_detach(struct lb_uefi_node *n)
{
	struct lb_uefi_node *p = n->parent;

	if (!p)
		return -EINVAL;
	for (size_t i = 0; i < p->n_child; i++) {
		if (p->child[i] == n) {
			memmove(p->child + i, p->child + i + 1,
				(p->n_child - i - 1) * sizeof(*p->child));
			p->n_child--;
			n->parent = NULL;
			return 0;
		}
	}
	return -ENOENT;
}

void uefi_mark_dirty(struct lb_uefi_node *n)
{
	for (; n; n = n->parent)
		n->dirty = 1;
}

static uint64_t sub_abs(uint64_t abs, size_t off)
{
	return abs == LB_UEFI_NO_OFFSET ? abs : abs + off;
}

/* UCS-2 (little endian, NUL-terminated or not) -> malloc'd UTF-8. */
static char *ucs2_to_utf8(const uint8_t *p, size_t len)
{
	size_t n = len / 2, o = 0;
	char *s;

	if (n > 512)
		n = 512;
	s = malloc(n * 3 + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint16_t c = le16(p + 2 * i);
		if (!c)
			break;
		if (c < 0x20 || c == 0x7F) {
			s[o++] = '?';
		} else if (c < 0x80) {
			s[o++] = (char)c;
		} else if (c < 0x800) {
			s[o++] = (char)(0xC0 | c >> 6);
			s[o++] = (char)(0x80 | (c & 0x3F));
		} else if (c >= 0xD800 && c <= 0xDFFF) {
			s[o++] = '?';
		} else {
			s[o++] = (char)(0xE0 | c >> 12);
			s[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
			s[o++] = (char)(0x80 | (c & 0x3F));
		}
	}
	s[o] = 0;
	return s;
}

uint32_t uefi_file_align(uint8_t attrib)
{
	static const uint32_t a1[8] = { 1, 16, 128, 512, 1024, 4096, 32768, 65536 };
	unsigned i = (attrib & LB_FFS_ATTRIB_DATA_ALIGNMENT) >> 3;

	if (attrib & LB_FFS_ATTRIB_DATA_ALIGNMENT_2)
		return 131072u << i;
	return a1[i];
}

/* ---- volumes -------------------------------------------------------------------------- */

static int bad_sum(struct lb_uefi_image *img)
{
	return !(img->flags & LB_UEFI_LENIENT);
}

/*
 * Does p (avail bytes) start with a plausible volume header? Returns 0 and
 * the FvLength, or -EBADMSG with a reason in img->err.
 */
static int fv_check(struct lb_uefi_image *img, const uint8_t *p, size_t avail, uint64_t abs,
		    uint64_t *fvlen)
{
	uint64_t len;
	uint16_t hl, sum = 0;

	if (avail < 0x40)
		return uefi_seterr(img, -EBADMSG, "volume at 0x%llx: truncated header",
				   (unsigned long long)abs);
	if (le32(p + 0x28) != FVH_SIGNATURE)
		return uefi_seterr(img, -EBADMSG, "volume at 0x%llx: no _FVH signature",
				   (unsigned long long)abs);
	len = le64(p + 0x20);
	hl = le16(p + 0x30);
	if (hl < 0x40 || (hl & 1) || len < hl)
		return uefi_seterr(img, -EBADMSG, "volume at 0x%llx: bad header length 0x%x",
				   (unsigned long long)abs, hl);
	if (len > avail)
		return uefi_seterr(img, -EBADMSG,
				   "volume at 0x%llx: length 0x%llx exceeds the 0x%zx bytes available (truncated?)",
				   (unsigned long long)abs, (unsigned long long)len, avail);
	for (unsigned i = 0; i < hl; i += 2)
		sum = (uint16_t)(sum + le16(p + i));
	if (sum && bad_sum(img))
		return uefi_seterr(img, -EBADMSG, "volume at 0x%llx: header checksum mismatch (sum 0x%04x)",
				   (unsigned long long)abs, sum);
	*fvlen = len;
	return 0;
}

static int is_erased(const uint8_t *p, size_t n, uint8_t e)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != e)
			return 0;
	return 1;
}

static int parse_volume(struct lb_uefi_image *img, struct lb_uefi_node *parent,
			const uint8_t *p, size_t len, uint64_t abs, int depth, int fixed)
{
	struct lb_uefi_node *v;
	uint64_t fvlen;
	uint16_t hl, ext;
	size_t off;
	int rc;
	char g[37];

	if (depth > LB_UEFI_MAX_DEPTH)
		return uefi_seterr(img, -E2BIG, "volume at 0x%llx: nesting too deep",
				   (unsigned long long)abs);
	rc = fv_check(img, p, len, abs, &fvlen);
	if (rc)
		return rc;
	if (fvlen != len)
		return uefi_seterr(img, -EBADMSG, "volume at 0x%llx: length mismatch",
				   (unsigned long long)abs);
	v = uefi_node_new(img, parent, LB_UEFI_VOLUME);
	if (!v)
		return uefi_seterr(img, -E2BIG, "too many nodes (or out of memory)");
	hl = le16(p + 0x30);
	ext = le16(p + 0x34);
	v->raw = p;
	v->raw_len = len;
	v->size = len;
	v->offset = abs;
	v->fixed = fixed;
	memcpy(v->fs_guid, p + 0x10, 16);
	memcpy(v->guid, p + 0x10, 16);
	v->has_guid = 1;
	v->attributes = le32(p + 0x2C);
	v->erase = (v->attributes & FVB2_ERASE_POLARITY) ? 0xFF : 0x00;
	v->is_ffs = !memcmp(v->fs_guid, lb_guid_ffs2, 16) || !memcmp(v->fs_guid, lb_guid_ffs3, 16);
	v->type = v->is_ffs ? (unsigned)(!memcmp(v->fs_guid, lb_guid_ffs3, 16) ? 3 : 2) : 0;
	off = hl;
	if (ext && v->is_ffs) {
		uint32_t esz;
		if (ext < hl || (size_t)ext + 20 > len)
			return uefi_seterr(img, -EBADMSG,
					   "volume at 0x%llx: extended header offset 0x%x out of bounds",
					   (unsigned long long)abs, ext);
		esz = le32(p + ext + 16);
		if (esz < 20 || esz > len - ext)
			return uefi_seterr(img, -EBADMSG,
					   "volume at 0x%llx: extended header size 0x%x out of bounds",
					   (unsigned long long)abs, esz);
		memcpy(v->guid, p + ext, 16);
		off = ext + esz;
	}
	off = align_up(off, 8);
	if (off > len)
		off = len;
	v->hdr_len = off;
	if (!v->is_ffs) {
		v->opaque = 1;
		return 0;
	}
	while (off < len) {
		size_t rem = len - off, fsz, hsz = FFS_HDR_SIZE;
		struct lb_uefi_node *f;
		const uint8_t *fp = p + off;

		if (rem < FFS_HDR_SIZE || is_erased(fp, FFS_HDR_SIZE, v->erase)) {
			struct lb_uefi_node *fr;
			int empty = is_erased(fp, rem, v->erase);
			fr = uefi_node_new(img, v, empty ? LB_UEFI_FREE : LB_UEFI_PADDING);
			if (!fr)
				return uefi_seterr(img, -E2BIG, "too many nodes (or out of memory)");
			fr->raw = fp;
			fr->raw_len = rem;
			fr->size = rem;
			fr->offset = sub_abs(abs, off);
			if (!empty)
				v->opaque = 1; /* data after free space: keep, do not rebuild */
			break;
		}
		fsz = le24(fp + 20);
		if (fp[19] & LB_FFS_ATTRIB_LARGE_FILE) {
			if (rem < FFS_HDR2_SIZE)
				goto badsize;
			uint64_t x = le64(fp + 24);
			if (x > rem)
				goto badsize;
			fsz = (size_t)x;
			hsz = FFS_HDR2_SIZE;
		}
		if (fsz < hsz || fsz > rem) {
badsize:
			return uefi_seterr(img, -EBADMSG,
					   "file %s at 0x%llx: size 0x%zx out of bounds (0x%zx left in the volume)",
					   gs(fp, g), (unsigned long long)sub_abs(abs, off), fsz, rem);
		}
		rc = uefi_parse_file_at(img, v, fp, fsz, sub_abs(abs, off), depth + 1, &f);
		if (rc)
			return rc;
		off += fsz;
		off = align_up(off, 8) > len ? len : align_up(off, 8);
	}
	return 0;
}

/* Forget a node's parsed children: it becomes an opaque leaf. */
static void drop_children(struct lb_uefi_node *n)
{
	for (size_t i = 0; i < n->n_child; i++)
		uefi_node_free(n->child[i]);
	free(n->child);
	n->child = NULL;
	n->n_child = 0;
	n->opaque = 1;
}

static int file_sectioned(unsigned t)
{
	return t >= LB_FV_FILETYPE_FREEFORM && t <= LB_FV_FILETYPE_MM_CORE_STANDALONE;
}

static void find_ui(struct lb_uefi_node *n, char **name)
{
	for (size_t i = 0; i < n->n_child && !*name; i++) {
		struct lb_uefi_node *c = n->child[i];
		if (c->kind != LB_UEFI_SECTION)
			continue;
		if (c->type == LB_SECTION_USER_INTERFACE && c->name) {
			*name = c->name;
			return;
		}
		find_ui(c, name);
	}
}

void uefi_file_name(struct lb_uefi_node *file)
{
	char *nm = NULL;

	find_ui(file, &nm);
	free(file->name);
	file->name = nm && *nm ? strdup(nm) : NULL; /* an empty UI name is no name */
}

int uefi_parse_file_at(struct lb_uefi_image *img, struct lb_uefi_node *vol,
		       const uint8_t *fp, size_t fsz, uint64_t abs, int depth,
		       struct lb_uefi_node **out)
{
	struct lb_uefi_node *f;
	size_t hsz = (fp[19] & LB_FFS_ATTRIB_LARGE_FILE) ? FFS_HDR2_SIZE : FFS_HDR_SIZE;
	uint8_t hs, st, attr = fp[19];
	char g[37];
	int rc;

	if (depth > LB_UEFI_MAX_DEPTH)
		return uefi_seterr(img, -E2BIG, "file at 0x%llx: nesting too deep",
				   (unsigned long long)abs);
	if (fsz < hsz)
		return uefi_seterr(img, -EBADMSG, "file at 0x%llx: truncated header",
				   (unsigned long long)abs);
	/* header checksum: State and the file checksum count as zero */
	hs = (uint8_t)(sum8(fp, hsz) - fp[23] - fp[17]);
	if (hs && bad_sum(img))
		return uefi_seterr(img, -EBADMSG,
				   "file %s at 0x%llx: header checksum mismatch (sum 0x%02x)",
				   gs(fp, g), (unsigned long long)abs, hs);
	if (attr & LB_FFS_ATTRIB_CHECKSUM) {
		uint8_t ds = (uint8_t)(sum8(fp + hsz, fsz - hsz) + fp[17]);
		if (ds && bad_sum(img))
			return uefi_seterr(img, -EBADMSG,
					   "file %s at 0x%llx: data checksum mismatch (sum 0x%02x)",
					   gs(fp, g), (unsigned long long)abs, ds);
	} else if (fp[17] != FFS_FIXED_CHECKSUM && fp[17] != FFS_FIXED_CHECKSUM_V1 && bad_sum(img)) {
		return uefi_seterr(img, -EBADMSG,
				   "file %s at 0x%llx: data checksum 0x%02x, expected fixed 0xAA (or 0x5A)",
				   gs(fp, g), (unsigned long long)abs, fp[17]);
	}
	f = uefi_node_new(img, vol, LB_UEFI_FILE);
	if (!f)
		return uefi_seterr(img, -E2BIG, "too many nodes (or out of memory)");
	st = fp[23];
	if (vol && vol->erase == 0xFF)
		st = (uint8_t)~st;
	f->raw = fp;
	f->raw_len = fsz;
	f->hdr_len = hsz;
	f->size = fsz;
	f->offset = abs;
	f->type = fp[18];
	f->attributes = attr;
	f->state = st;
	f->align = uefi_file_align(attr);
	memcpy(f->guid, fp, 16);
	f->has_guid = 1;
	if (out)
		*out = f;
	if (!file_sectioned(f->type)) {
		f->opaque = 1;
		return 0;
	}
	rc = uefi_parse_sections(img, f, fp + hsz, fsz - hsz, sub_abs(abs, hsz), depth + 1);
	if (rc) {
		if (!(img->flags & LB_UEFI_LENIENT) || rc == -ENOMEM)
			return rc;
		/* lenient: keep the file body opaque */
		drop_children(f);
		return 0;
	}
	uefi_file_name(f);
	return 0;
}

/* ---- sections ----------------------------------------------------------------------- */

static int decomp_account(struct lb_uefi_image *img, size_t n)
{
	if (n > LB_UEFI_MAX_TOTAL - img->total_decomp)
		return uefi_seterr(img, -E2BIG, "decompressed data exceeds %u MiB in total",
				   LB_UEFI_MAX_TOTAL >> 20);
	img->total_decomp += n;
	return 0;
}

static int parse_one_section(struct lb_uefi_image *img, struct lb_uefi_node *parent,
			     const uint8_t *sp, size_t ssz, size_t hsz, uint64_t abs, int depth)
{
	struct lb_uefi_node *s;
	unsigned type = sp[3];
	size_t dlen, doff = hsz;
	const uint8_t *data;
	char g[37];
	int rc;

	s = uefi_node_new(img, parent, LB_UEFI_SECTION);
	if (!s)
		return uefi_seterr(img, -E2BIG, "too many nodes (or out of memory)");
	s->raw = sp;
	s->raw_len = ssz;
	s->size = ssz;
	s->offset = abs;
	s->type = type;
	switch (type) {
	case LB_SECTION_COMPRESSION:
		if (ssz < hsz + 5)
			goto trunc;
		doff = hsz + 5;
		break;
	case LB_SECTION_GUID_DEFINED: {
		uint16_t dof;
		if (ssz < hsz + 20)
			goto trunc;
		memcpy(s->guid, sp + hsz, 16);
		s->has_guid = 1;
		dof = le16(sp + hsz + 16);
		s->attributes = le16(sp + hsz + 18);
		if (dof < hsz + 20 || dof > ssz)
			return uefi_seterr(img, -EBADMSG,
					   "GUID-defined section %s at 0x%llx: data offset 0x%x out of bounds",
					   gs(s->guid, g), (unsigned long long)abs, dof);
		doff = dof;
		break;
	}
	case LB_SECTION_FREEFORM_SUBTYPE_GUID:
		if (ssz < hsz + 16)
			goto trunc;
		memcpy(s->guid, sp + hsz, 16);
		s->has_guid = 1;
		doff = hsz + 16;
		break;
	case LB_SECTION_VERSION:
		if (ssz < hsz + 2)
			goto trunc;
		break;
	default:
		break;
	}
	s->hdr_len = doff;
	data = sp + doff;
	dlen = ssz - doff;

	switch (type) {
	case LB_SECTION_COMPRESSION: {
		uint32_t ulen = le32(sp + hsz);
		uint8_t ct = sp[hsz + 4];
		if (ct == 0) {
			s->comp = LB_COMP_STORED;
			return uefi_parse_sections(img, s, data, dlen, sub_abs(abs, doff), depth + 1);
		}
		if (ct != 1)
			return uefi_seterr(img, -EBADMSG,
					   "compression section at 0x%llx: unknown compression type %u",
					   (unsigned long long)abs, ct);
		enum lb_tiano_alg alg;
		uint32_t osz;
		rc = lb_tiano_info(data, dlen, &osz, NULL);
		if (!rc && (osz > LB_UEFI_MAX_DECOMP || osz != ulen))
			rc = osz > LB_UEFI_MAX_DECOMP ? -E2BIG : -EBADMSG;
		if (!rc)
			rc = decomp_account(img, osz);
		if (!rc)
			rc = lb_tiano_decompress_any(data, dlen, &s->own, &s->own_len, &alg);
		if (rc)
			return uefi_seterr(img, rc == -ENOMEM ? rc : (rc == -E2BIG || rc == -EFBIG) ? -E2BIG : -EBADMSG,
					   "compression section at 0x%llx: cannot decompress (%s)",
					   (unsigned long long)abs, strerror(-rc));
		s->comp = alg == LB_ALG_TIANO ? LB_COMP_TIANO : LB_COMP_EFI11;
		return uefi_parse_sections(img, s, s->own, s->own_len, LB_UEFI_NO_OFFSET, depth + 1);
	}
	case LB_SECTION_GUID_DEFINED: {
		int x86 = !memcmp(s->guid, lb_guid_lzmaf86, 16);
		if (x86 || !memcmp(s->guid, lb_guid_lzma, 16)) {
			s->comp = x86 ? LB_COMP_LZMAF86 : LB_COMP_LZMA;
			if (dlen >= 13 && le64(data + 5) <= LB_UEFI_MAX_DECOMP) {
				rc = decomp_account(img, (size_t)le64(data + 5));
				if (rc)
					return rc;
			}
			rc = uefi_lzma_decode(data, dlen, x86, LB_UEFI_MAX_DECOMP, &s->own, &s->own_len);
			if (rc)
				return uefi_seterr(img, rc == -ENOMEM ? rc : rc == -E2BIG ? rc : -EBADMSG,
						   "LZMA section at 0x%llx: cannot decompress (%s)",
						   (unsigned long long)abs,
						   rc == -E2BIG ? "too large" : strerror(-rc));
			return uefi_parse_sections(img, s, s->own, s->own_len, LB_UEFI_NO_OFFSET, depth + 1);
		}
		if (!memcmp(s->guid, lb_guid_crc32, 16)) {
			if (doff < hsz + 24)
				return uefi_seterr(img, -EBADMSG, "CRC32 section at 0x%llx: header too short",
						   (unsigned long long)abs);
			uint32_t want = le32(sp + hsz + 20), got = lb_crc32(0, data, dlen);
			if (want != got && bad_sum(img))
				return uefi_seterr(img, -EBADMSG,
						   "CRC32 section at 0x%llx: CRC 0x%08x, expected 0x%08x",
						   (unsigned long long)abs, got, want);
			s->comp = LB_COMP_CRC32;
			return uefi_parse_sections(img, s, data, dlen, sub_abs(abs, doff), depth + 1);
		}
		if (!(s->attributes & GUIDED_PROCESSING_REQUIRED)) {
			/* unknown GUID, data readable as is: sections if they parse */
			s->comp = LB_COMP_PLAIN;
			rc = uefi_parse_sections(img, s, data, dlen, sub_abs(abs, doff), depth + 1);
			if (rc && rc != -ENOMEM && rc != -E2BIG) {
				drop_children(s);
				s->comp = LB_COMP_NONE;
				img->err[0] = 0;
				rc = 0;
			}
			return rc;
		}
		s->opaque = 1; /* unknown encoding: keep as is */
		return 0;
	}
	case LB_SECTION_DISPOSABLE:
		s->comp = LB_COMP_PLAIN;
		return uefi_parse_sections(img, s, data, dlen, sub_abs(abs, doff), depth + 1);
	case LB_SECTION_FIRMWARE_VOLUME_IMAGE: {
		uint64_t fvlen;
		rc = fv_check(img, data, dlen, sub_abs(abs, doff), &fvlen);
		if (rc)
			return rc;
		rc = parse_volume(img, s, data, (size_t)fvlen, sub_abs(abs, doff), depth + 1, 0);
		if (rc)
			return rc;
		if (fvlen < dlen) {
			struct lb_uefi_node *pad = uefi_node_new(img, s, LB_UEFI_PADDING);
			if (!pad)
				return uefi_seterr(img, -E2BIG, "too many nodes (or out of memory)");
			pad->raw = data + fvlen;
			pad->raw_len = dlen - fvlen;
			pad->size = pad->raw_len;
			pad->offset = sub_abs(abs, doff + fvlen);
		}
		return 0;
	}
	case LB_SECTION_USER_INTERFACE:
		s->name = ucs2_to_utf8(data, dlen);
		if (!s->name)
			return -ENOMEM;
		return 0;
	default:
		return 0;
	}
trunc:
	return uefi_seterr(img, -EBADMSG, "section type 0x%02x at 0x%llx: truncated header",
			   type, (unsigned long long)abs);
}

int uefi_parse_sections(struct lb_uefi_image *img, struct lb_uefi_node *parent,
			const uint8_t *p, size_t len, uint64_t abs, int depth)
{
	size_t off = 0;
	int rc;

	if (depth > LB_UEFI_MAX_DEPTH)
		return uefi_seterr(img, -E2BIG, "sections at 0x%llx: nesting too deep",
				   (unsigned long long)abs);
	while (len - off >= 4) {
		const uint8_t *sp = p + off;
		size_t ssz = le24(sp), hsz = 4;

		if (ssz == 0xFFFFFF) {
			if (len - off < 8)
				goto bad;
			ssz = le32(sp + 4);
			hsz = 8;
		}
		if (ssz < hsz || ssz > len - off) {
bad:
			return uefi_seterr(img, -EBADMSG,
					   "section at 0x%llx (+0x%zx in its container): size 0x%zx out of bounds (0x%zx left)",
					   (unsigned long long)sub_abs(abs, off), off, ssz, len - off);
		}
		rc = parse_one_section(img, parent, sp, ssz, hsz, sub_abs(abs, off), depth);
		if (rc)
			return rc;
		off += ssz;
		if (align_up(off, 4) >= len)
			break;
		off = align_up(off, 4);
	}
	return 0;
}

/* ---- image level ------------------------------------------------------------------------ */

/* Add a padding node [from, to) of root-relative bytes. */
static int add_pad(struct lb_uefi_image *img, struct lb_uefi_node *parent, size_t from, size_t to)
{
	struct lb_uefi_node *n;

	if (to <= from)
		return 0;
	n = uefi_node_new(img, parent, LB_UEFI_PADDING);
	if (!n)
		return uefi_seterr(img, -E2BIG, "too many nodes (or out of memory)");
	n->raw = img->data + from;
	n->raw_len = to - from;
	n->size = to - from;
	n->offset = from;
	return 0;
}

/*
 * Is there a volume header at p that is surely meant as one: sane header
 * length, a known FFS file system GUID or a right header checksum? Its
 * failures (truncation, bad checksum) are errors, not padding.
 */
static int plausible_fv(const uint8_t *p, size_t avail)
{
	uint16_t hl, sum = 0;

	if (avail < 0x40)
		return 0;
	hl = le16(p + 0x30);
	if (hl < 0x40 || (hl & 1) || le64(p + 0x20) < hl || (p[0x37] != 1 && p[0x37] != 2))
		return 0;
	if (!memcmp(p + 0x10, lb_guid_ffs2, 16) || !memcmp(p + 0x10, lb_guid_ffs3, 16))
		return 1;
	if (hl > avail)
		return 0;
	for (unsigned i = 0; i < hl; i += 2)
		sum = (uint16_t)(sum + le16(p + i));
	return sum == 0;
}

/* Scan [start, end) of the image for volumes. */
static int parse_bios(struct lb_uefi_image *img, struct lb_uefi_node *parent, size_t start, size_t end)
{
	size_t cur = start, pos = start + 0x28;
	int rc;

	while (pos + 4 <= end) {
		const uint8_t *hit = memmem(img->data + pos, end - pos, "_FVH", 4);
		size_t v;
		uint64_t fvlen;

		if (!hit)
			break;
		pos = (size_t)(hit - img->data);
		v = pos - 0x28;
		if (v < cur) {
			pos++;
			continue;
		}
		/* a plausible candidate: zero vector-ish structure + sane lengths */
		rc = fv_check(img, img->data + v, end - v, v, &fvlen);
		if (rc) {
			/* a header whose own checksum is right is a volume: its
			 * failure (truncation, ...) is an error, not padding */
			if (plausible_fv(img->data + v, end - v))
				return rc;
			img->err[0] = 0;
			pos++;
			continue;
		}
		rc = add_pad(img, parent, cur, v);
		if (rc)
			return rc;
		rc = parse_volume(img, parent, img->data + v, (size_t)fvlen, v, 1, 1);
		if (rc)
			return rc;
		cur = v + (size_t)fvlen;
		pos = cur + 0x28;
	}
	return add_pad(img, parent, cur, end);
}

struct region { size_t base, end; unsigned idx; };

static int parse_descriptor(struct lb_uefi_image *img, size_t sig)
{
	struct region r[16];
	size_t nr = 0, cur = 0;
	uint32_t flmap0 = le32(img->data + sig + 4);
	size_t frba = ((flmap0 >> 16) & 0xFF) << 4;
	int rc;

	for (unsigned i = 0; i < 16; i++) {
		size_t o = frba + 4 * i;
		uint32_t v;
		size_t base, limit;

		if (o + 4 > 0x1000 || o + 4 > img->len)
			break;
		v = le32(img->data + o);
		base = (size_t)(v & 0x7FFF) << 12;
		limit = ((size_t)((v >> 16) & 0x7FFF) << 12) | 0xFFF;
		if (base > limit || (i > 0 && base == 0) || (v & 0x7FFF) == 0x7FFF)
			continue; /* unused */
		if (limit >= img->len)
			return uefi_seterr(img, -EBADMSG,
					   "flash descriptor: region %u (0x%zx-0x%zx) beyond the image (0x%zx bytes)",
					   i, base, limit, img->len);
		r[nr++] = (struct region){ base, limit + 1, i };
	}
	if (!nr)
		return uefi_seterr(img, -EBADMSG, "flash descriptor: no regions");
	/* sort by base, reject overlaps */
	for (size_t i = 1; i < nr; i++)
		for (size_t j = i; j > 0 && r[j - 1].base > r[j].base; j--) {
			struct region t = r[j];
			r[j] = r[j - 1];
			r[j - 1] = t;
		}
	for (size_t i = 0; i < nr; i++) {
		struct lb_uefi_node *n;
		if (r[i].base < cur)
			return uefi_seterr(img, -EBADMSG, "flash descriptor: region %u overlaps region %u",
					   r[i].idx, r[i - 1].idx);
		rc = add_pad(img, img->root, cur, r[i].base);
		if (rc)
			return rc;
		n = uefi_node_new(img, img->root, LB_UEFI_REGION);
		if (!n)
			return -ENOMEM;
		n->type = r[i].idx;
		n->raw = img->data + r[i].base;
		n->raw_len = r[i].end - r[i].base;
		n->size = n->raw_len;
		n->offset = r[i].base;
		if (r[i].idx == 1) {
			rc = parse_bios(img, n, r[i].base, r[i].end);
			if (rc)
				return rc;
		} else {
			n->opaque = 1;
		}
		cur = r[i].end;
	}
	return add_pad(img, img->root, cur, img->len);
}

int lb_uefi_parse(const uint8_t *data, size_t len, unsigned flags,
		  struct lb_uefi_image **out, char *why, size_t why_len)
{
	struct lb_uefi_image *img;
	int rc;

	if (why && why_len)
		why[0] = 0;
	if (!data || !out)
		return -EINVAL;
	if (len > LB_UEFI_MAX_IMAGE) {
		if (why)
			snprintf(why, why_len, "image larger than %u MiB", LB_UEFI_MAX_IMAGE >> 20);
		return -E2BIG;
	}
	img = calloc(1, sizeof(*img));
	if (!img)
		return -ENOMEM;
	img->data = malloc(len ? len : 1);
	if (!img->data) {
		free(img);
		return -ENOMEM;
	}
	memcpy(img->data, data, len);
	img->len = len;
	img->flags = flags;
	img->root = uefi_node_new(img, NULL, LB_UEFI_IMAGE);
	if (!img->root) {
		rc = -ENOMEM;
		goto fail;
	}
	img->root->raw = img->data;
	img->root->raw_len = len;
	img->root->size = len;
	img->root->offset = 0;
	if (len >= 0x1000 && le32(img->data + 0x10) == 0x0FF0A55A) {
		img->has_descriptor = 1;
		rc = parse_descriptor(img, 0x10);
	} else if (len >= 0x1000 && le32(img->data) == 0x0FF0A55A) {
		img->has_descriptor = 1;
		rc = parse_descriptor(img, 0);
	} else {
		rc = parse_bios(img, img->root, 0, len);
	}
	if (rc)
		goto fail;
	{
		int nvol = 0;
		for (size_t i = 0; i < img->root->n_child; i++) {
			struct lb_uefi_node *c = img->root->child[i];
			if (c->kind == LB_UEFI_VOLUME)
				nvol++;
			for (size_t j = 0; c->kind == LB_UEFI_REGION && j < c->n_child; j++)
				nvol += c->child[j]->kind == LB_UEFI_VOLUME;
		}
		if (!nvol) {
			rc = uefi_seterr(img, -EBADMSG, "no firmware volume found");
			goto fail;
		}
	}
	img->err[0] = 0;
	*out = img;
	return 0;
fail:
	if (why)
		snprintf(why, why_len, "%s", img->err[0] ? img->err : strerror(-rc));
	lb_uefi_free(img);
	return rc;
}

void lb_uefi_free(struct lb_uefi_image *img)
{
	if (!img)
		return;
	uefi_node_free(img->root);
	free(img->data);
	free(img);
}

/* ---- the tree: navigation and names ---------------------------------------------- */

struct lb_uefi_node *lb_uefi_volume_of(struct lb_uefi_node *n)
{
	for (n = n ? n->parent : NULL; n; n = n->parent)
		if (n->kind == LB_UEFI_VOLUME)
			return n;
	return NULL;
}

const char *lb_uefi_kind_name(enum lb_uefi_kind k)
{
	static const char *const n[] = { "image", "region", "volume", "file", "section", "padding", "free" };

	return (unsigned)k < sizeof(n) / sizeof(n[0]) ? n[k] : "unknown";
}

const char *lb_uefi_type_name(const struct lb_uefi_node *n)
{
	static const char *const ft[] = {
		"ALL", "RAW", "FREEFORM", "SECURITY_CORE", "PEI_CORE", "DXE_CORE", "PEIM", "DRIVER",
		"COMBINED_PEIM_DRIVER", "APPLICATION", "MM", "FIRMWARE_VOLUME_IMAGE",
		"COMBINED_MM_DXE", "MM_CORE", "MM_STANDALONE", "MM_CORE_STANDALONE",
	};
	static const char *const st[] = {
		[0x01] = "COMPRESSION", [0x02] = "GUID_DEFINED", [0x03] = "DISPOSABLE",
		[0x10] = "PE32", [0x11] = "PIC", [0x12] = "TE", [0x13] = "DXE_DEPEX",
		[0x14] = "VERSION", [0x15] = "USER_INTERFACE", [0x16] = "COMPATIBILITY16",
		[0x17] = "FIRMWARE_VOLUME_IMAGE", [0x18] = "FREEFORM_SUBTYPE_GUID", [0x19] = "RAW",
		[0x1B] = "PEI_DEPEX", [0x1C] = "MM_DEPEX",
	};
	static const char *const rg[] = { "DESCRIPTOR", "BIOS", "ME", "GBE", "PDR", "DEVEXP1",
					  "BIOS2", "MICROCODE", "EC", "DEVEXP2", "IE", "10GBE1",
					  "10GBE2", "RESERVED13", "RESERVED14", "PTT" };

	if (!n)
		return "";
	switch (n->kind) {
	case LB_UEFI_FILE:
		if (n->type < sizeof(ft) / sizeof(ft[0]))
			return ft[n->type];
		if (n->type == LB_FV_FILETYPE_PAD)
			return "PAD";
		if (n->type >= 0xC0 && n->type <= 0xDF)
			return "OEM";
		if (n->type >= 0xE0 && n->type <= 0xEF)
			return "DEBUG";
		return "FFS";
	case LB_UEFI_SECTION:
		if (n->type < sizeof(st) / sizeof(st[0]) && st[n->type])
			return st[n->type];
		return "UNKNOWN";
	case LB_UEFI_VOLUME:
		if (n->is_ffs)
			return n->type == 3 ? "FFS3" : "FFS2";
		return !memcmp(n->fs_guid, nvram_guid, 16) ? "NVRAM" : "OPAQUE";
	case LB_UEFI_REGION:
		return n->type < 16 ? rg[n->type] : "REGION";
	case LB_UEFI_IMAGE:
		return "UEFI";
	case LB_UEFI_FREE:
		return "FREE";
	case LB_UEFI_PADDING:
		return "PADDING";
	}
	return "";
}
