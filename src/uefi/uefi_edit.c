/* Finding nodes, editing the tree, building FFS files. Uses the parser
 * (uefi_parse.c) and the writer (uefi_write.c); neither calls back here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uefi_int.h"

const uint8_t lb_uefi_depex_true[2] = { 0x06, 0x08 }; /* TRUE, END */

static int matches(const struct lb_uefi_node *n, const uint8_t *g, const char *sel)
{
	if (g)
		return n->has_guid && !memcmp(n->guid, g, 16);
	return n->kind == LB_UEFI_FILE && n->name && !strcmp(n->name, sel);
}

static void walk_find(struct lb_uefi_node *n, const uint8_t *g, const char *sel, unsigned kinds,
		      struct lb_uefi_node **out, size_t max, size_t *cnt)
{
	if ((!kinds || (kinds & (1u << n->kind))) && matches(n, g, sel)) {
		if (*cnt < max)
			out[*cnt] = n;
		(*cnt)++;
	}
	for (size_t i = 0; i < n->n_child; i++)
		walk_find(n->child[i], g, sel, kinds, out, max, cnt);
}

size_t lb_uefi_find(struct lb_uefi_image *img, const char *sel, unsigned kinds,
		    struct lb_uefi_node **out, size_t max)
{
	uint8_t g[16];
	size_t cnt = 0;

	if (!img || !sel || !*sel)
		return 0;
	walk_find(img->root, lb_guid_parse(sel, g) ? NULL : g, sel, kinds, out, max, &cnt);
	return cnt;
}

struct lb_uefi_node *lb_uefi_find_file(struct lb_uefi_image *img, const char *sel)
{
	struct lb_uefi_node *n = NULL;

	return lb_uefi_find(img, sel, 1u << LB_UEFI_FILE, &n, 1) ? n : NULL;
}

static struct lb_uefi_node *first_ffs_volume(struct lb_uefi_node *n)
{
	if (n->kind == LB_UEFI_VOLUME && n->is_ffs)
		return n;
	for (size_t i = 0; i < n->n_child; i++) {
		struct lb_uefi_node *v = first_ffs_volume(n->child[i]);
		if (v)
			return v;
	}
	return NULL;
}

struct lb_uefi_node *lb_uefi_find_volume(struct lb_uefi_image *img, const char *sel)
{
	struct lb_uefi_node *n = NULL;

	if (lb_uefi_find(img, sel, 1u << LB_UEFI_VOLUME, &n, 1) && n->is_ffs)
		return n;
	n = lb_uefi_find_file(img, sel);
	return n ? first_ffs_volume(n) : NULL;
}

static struct lb_uefi_node *find_type(struct lb_uefi_node *n, unsigned type)
{
	if (n->kind == LB_UEFI_FILE && n->type == type)
		return n;
	for (size_t i = 0; i < n->n_child; i++) {
		struct lb_uefi_node *f = find_type(n->child[i], type);
		if (f)
			return f;
	}
	return NULL;
}

struct lb_uefi_node *lb_uefi_dxe_volume(struct lb_uefi_image *img)
{
	return img ? lb_uefi_volume_of(find_type(img->root, LB_FV_FILETYPE_DXE_CORE)) : NULL;
}

struct lb_uefi_node *lb_uefi_pei_volume(struct lb_uefi_image *img)
{
	return img ? lb_uefi_volume_of(find_type(img->root, LB_FV_FILETYPE_PEI_CORE)) : NULL;
}

static int editable_volume(struct lb_uefi_image *img, struct lb_uefi_node *v)
{
	char g[37];

	if (!v || v->kind != LB_UEFI_VOLUME || !v->is_ffs)
		return uefi_seterr(img, -EINVAL, "not an FFS volume");
	if (v->opaque) {
		lb_guid_str(v->guid, g);
		return uefi_seterr(img, -ENOTSUP, "volume %s holds unparsed data: cannot edit it", g);
	}
	return 0;
}

int lb_uefi_remove(struct lb_uefi_image *img, struct lb_uefi_node *file)
{
	struct lb_uefi_node *v;
	int rc;

	if (!img || !file || file->kind != LB_UEFI_FILE)
		return -EINVAL;
	v = file->parent;
	if ((rc = editable_volume(img, v)))
		return rc;
	if ((rc = uefi_node_detach(file)))
		return rc;
	uefi_node_free(file);
	uefi_mark_dirty(v);
	return 0;
}

int lb_uefi_insert(struct lb_uefi_image *img, struct lb_uefi_node *v,
		   const uint8_t *ffs, size_t len, struct lb_uefi_node **added)
{
	struct lb_uefi_node *f = NULL;
	uint8_t *buf;
	size_t hsz = FFS_HDR_SIZE, fsz, pos;
	char g[37];
	int rc;

	if (!img || !ffs)
		return -EINVAL;
	if ((rc = editable_volume(img, v)))
		return rc;
	if (len < FFS_HDR_SIZE)
		return uefi_seterr(img, -EBADMSG, "FFS file: %zu bytes, shorter than its header", len);
	fsz = le24(ffs + 20);
	if (ffs[19] & LB_FFS_ATTRIB_LARGE_FILE) {
		if (len < FFS_HDR2_SIZE)
			return uefi_seterr(img, -EBADMSG, "FFS file: truncated large header");
		fsz = le64(ffs + 24) > SIZE_MAX ? 0 : (size_t)le64(ffs + 24);
		hsz = FFS_HDR2_SIZE;
	}
	if (fsz != len || fsz < hsz)
		return uefi_seterr(img, -EBADMSG, "FFS file: header says 0x%zx bytes, file has 0x%zx",
				   fsz, len);
	if (ffs[18] == LB_FV_FILETYPE_PAD)
		return uefi_seterr(img, -EINVAL, "FFS file: refusing to insert a pad file");
	for (size_t i = 0; i < v->n_child; i++) {
		struct lb_uefi_node *c = v->child[i];
		if (c->kind == LB_UEFI_FILE && c->type != LB_FV_FILETYPE_PAD &&
		    !memcmp(c->guid, ffs, 16)) {
			lb_guid_str(ffs, g);
			return uefi_seterr(img, -EEXIST, "volume already holds a file %s", g);
		}
	}
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, ffs, len);
	buf[23] = v->erase == 0xFF ? (uint8_t)~(FILE_HEADER_CONSTRUCTION | FILE_HEADER_VALID | FILE_DATA_VALID)
				   : (FILE_HEADER_CONSTRUCTION | FILE_HEADER_VALID | FILE_DATA_VALID);
	rc = uefi_parse_file_at(img, v, buf, len, LB_UEFI_NO_OFFSET, 1, &f);
	if (rc) {
		/* the node (if any) was appended last: drop it */
		if (f && !uefi_node_detach(f))
			uefi_node_free(f);
		free(buf);
		return rc;
	}
	f->own = buf;
	f->own_len = len;
	/* move it before free space / the volume top file */
	uefi_node_detach(f);
	pos = v->n_child;
	while (pos > 0) {
		struct lb_uefi_node *c = v->child[pos - 1];
		if (c->kind == LB_UEFI_FILE && memcmp(c->guid, lb_guid_vtf, 16))
			break;
		pos--;
	}
	{
		struct lb_uefi_node **c = realloc(v->child, (v->n_child + 1) * sizeof(*c));
		if (!c) {
			uefi_node_free(f);
			return -ENOMEM;
		}
		v->child = c;
		memmove(c + pos + 1, c + pos, (v->n_child - pos) * sizeof(*c));
		c[pos] = f;
		v->n_child++;
		f->parent = v;
	}
	uefi_mark_dirty(v);
	f->dirty = 0;
	if (added)
		*added = f;
	return 0;
}

/* Replace file by the FFS file ffs at the same place in its volume (files
 * before it do not move; files after it move only by the size change,
 * which the caller checks when they execute in place). */
int lb_uefi_replace_file(struct lb_uefi_image *img, struct lb_uefi_node *file,
			 const uint8_t *ffs, size_t len)
{
	struct lb_uefi_node *v, *added = NULL;
	size_t i, j;
	uint8_t name[16];
	int rc;

	if (!img || !file || file->kind != LB_UEFI_FILE || !ffs || len < 16)
		return -EINVAL;
	v = file->parent;
	if (memcmp(ffs, file->guid, 16))
		return uefi_seterr(img, -EINVAL, "replacement file has another name");
	/* lb_uefi_insert refuses a second file of one name: rename the old
	 * one while both are there */
	memcpy(name, file->guid, 16);
	file->guid[0] ^= 0xFF;
	rc = lb_uefi_insert(img, v, ffs, len, &added);
	memcpy(file->guid, name, 16);
	if (rc)
		return rc;
	for (i = 0; i < v->n_child && v->child[i] != file; i++)
		;
	for (j = 0; j < v->n_child && v->child[j] != added; j++)
		;
	if (i == v->n_child || j == v->n_child)
		return uefi_seterr(img, -EFAULT, "replace: file not in its volume");
	memmove(v->child + j, v->child + j + 1, (v->n_child - j - 1) * sizeof(*v->child));
	v->n_child--;
	if (j < i)
		i--;
	v->child[i] = added;
	file->parent = NULL;
	uefi_node_free(file);
	uefi_mark_dirty(v);
	return 0;
}

static struct lb_uefi_node *find_pe(struct lb_uefi_node *n)
{
	for (size_t i = 0; i < n->n_child; i++) {
		struct lb_uefi_node *c = n->child[i], *r;
		if (c->kind != LB_UEFI_SECTION)
			continue;
		if (c->type == LB_SECTION_PE32 || c->type == LB_SECTION_TE)
			return c;
		if (c->type != LB_SECTION_FIRMWARE_VOLUME_IMAGE && (r = find_pe(c)))
			return r;
	}
	return NULL;
}

int lb_uefi_replace_pe32(struct lb_uefi_image *img, struct lb_uefi_node *file,
			 const uint8_t *pe, size_t len)
{
	struct lb_uefi_node *old, *p, *s;
	size_t hs, i;
	uint8_t *buf;
	int rc;

	if (!img || !file || file->kind != LB_UEFI_FILE || !pe)
		return -EINVAL;
	if ((rc = editable_volume(img, file->parent)))
		return rc;
	old = find_pe(file);
	if (!old)
		return uefi_seterr(img, -ENOENT, "file has no PE32/TE section");
	if (len > UINT32_MAX - 8)
		return -E2BIG;
	hs = len + 4 >= 0xFFFFFF ? 8 : 4;
	buf = malloc(len + hs);
	if (!buf)
		return -ENOMEM;
	if (hs == 8) {
		put_le24(buf, 0xFFFFFF);
		put_le32(buf + 4, (uint32_t)(len + 8));
	} else {
		put_le24(buf, (uint32_t)(len + 4));
	}
	buf[3] = (uint8_t)old->type;
	if (len >= 2 && pe[0] == 'M' && pe[1] == 'Z')
		buf[3] = LB_SECTION_PE32;
	else if (len >= 2 && pe[0] == 'V' && pe[1] == 'Z')
		buf[3] = LB_SECTION_TE;
	memcpy(buf + hs, pe, len);
	p = old->parent;
	s = calloc(1, sizeof(*s));
	if (!s) {
		free(buf);
		return -ENOMEM;
	}
	s->kind = LB_UEFI_SECTION;
	s->type = buf[3];
	s->offset = LB_UEFI_NO_OFFSET;
	s->align = 1;
	s->raw = s->own = buf;
	s->raw_len = s->own_len = s->size = len + hs;
	s->hdr_len = hs;
	s->parent = p;
	for (i = 0; i < p->n_child && p->child[i] != old; i++)
		;
	p->child[i] = s;
	old->parent = NULL;
	uefi_node_free(old);
	uefi_mark_dirty(p);
	return 0;
}

static int is_dxe_type(unsigned t)
{
	return t == LB_FV_FILETYPE_DRIVER || t == LB_FV_FILETYPE_COMBINED_PEIM_DRIVER ||
	       t == LB_FV_FILETYPE_APPLICATION || t == LB_FV_FILETYPE_COMBINED_MM_DXE ||
	       t == LB_FV_FILETYPE_MM || t == LB_FV_FILETYPE_MM_STANDALONE;
}

int lb_uefi_keep_only(struct lb_uefi_image *img, const char *const *keep,
		      size_t n_keep, size_t *n_removed)
{
	struct lb_uefi_node *v = lb_uefi_dxe_volume(img);
	size_t removed = 0;
	int rc;

	if (!v)
		return uefi_seterr(img, -ENOENT, "no volume holds a DXE core");
	if ((rc = editable_volume(img, v)))
		return rc;
	for (size_t i = 0; i < v->n_child;) {
		struct lb_uefi_node *f = v->child[i];
		int kept = 0;
		if (f->kind != LB_UEFI_FILE || !is_dxe_type(f->type)) {
			i++;
			continue;
		}
		for (size_t k = 0; k < n_keep && !kept; k++) {
			uint8_t g[16];
			if (!lb_guid_parse(keep[k], g))
				kept = !memcmp(g, f->guid, 16);
			else
				kept = f->name && !strcmp(f->name, keep[k]);
		}
		if (kept) {
			i++;
			continue;
		}
		uefi_node_detach(f);
		uefi_node_free(f);
		removed++;
	}
	if (removed)
		uefi_mark_dirty(v);
	if (n_removed)
		*n_removed = removed;
	return 0;
}

/* ---- building FFS files ------------------------------------------------------------- */

static int put_section(struct obuf *o, uint8_t type, const uint8_t *pre, size_t pre_len,
		       const uint8_t *body, size_t len)
{
	uint8_t h[8];
	size_t hs, total;
	int rc;

	if (len > UINT32_MAX - 8 - pre_len)
		return -E2BIG;
	hs = 4 + pre_len + len >= 0xFFFFFF ? 8 : 4;
	total = hs + pre_len + len;
	if (hs == 8) {
		put_le24(h, 0xFFFFFF);
		put_le32(h + 4, (uint32_t)total);
	} else {
		put_le24(h, (uint32_t)total);
	}
	h[3] = type;
	if ((rc = ob_put(o, h, hs)) || (rc = ob_put(o, pre, pre_len)))
		return rc;
	return ob_put(o, body, len);
}

static int align4(struct obuf *o)
{
	return ob_fill(o, 0, align_up(o->len, 4) - o->len);
}

static int ucs2(const char *s, uint8_t **out, size_t *len)
{
	size_t n = strlen(s);
	uint8_t *b;

	if (n > 4096)
		return -E2BIG;
	b = calloc(n + 1, 2);
	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		b[2 * i] = (uint8_t)s[i] < 0x80 ? (uint8_t)s[i] : '?';
	*out = b;
	*len = (n + 1) * 2;
	return 0;
}

int lb_uefi_ffs_build(const struct lb_uefi_ffs_spec *sp, uint8_t **out, size_t *len)
{
	struct obuf b = { 0 };
	uint8_t hdr[FFS_HDR2_SIZE], attr = 0, erase;
	uint32_t align;
	size_t hsz;
	unsigned ai = 0;
	int rc = 0;

	if (!sp || !out || !len || sp->type == LB_FV_FILETYPE_PAD || !sp->type)
		return -EINVAL;
	erase = sp->erase ? sp->erase : 0xFF;
	if (erase != 0xFF)
		return -EINVAL;
	align = sp->align ? sp->align : 1;
	if (align > (16u << 20))
		return -EINVAL;
	/* smallest supported alignment >= align */
	{
		static const uint32_t tab[16] = { 1, 16, 128, 512, 1024, 4096, 32768, 65536,
						  1u << 17, 1u << 18, 1u << 19, 1u << 20,
						  1u << 21, 1u << 22, 1u << 23, 1u << 24 };
		while (tab[ai] < align)
			ai++;
		align = tab[ai];
		attr |= (uint8_t)((ai & 7) << 3);
		if (ai >= 8)
			attr |= LB_FFS_ATTRIB_DATA_ALIGNMENT_2;
	}
	if (sp->checksum)
		attr |= LB_FFS_ATTRIB_CHECKSUM;
	if (sp->type == LB_FV_FILETYPE_RAW) {
		if (sp->pe32 || sp->depex || sp->name || sp->version)
			return -EINVAL; /* RAW files hold no sections */
		rc = ob_put(&b, sp->raw, sp->raw ? sp->raw_len : 0);
	} else {
		if (sp->depex) {
			uint8_t t = LB_SECTION_DXE_DEPEX;
			if (sp->type == LB_FV_FILETYPE_PEIM)
				t = LB_SECTION_PEI_DEPEX;
			else if (sp->type == LB_FV_FILETYPE_MM || sp->type == LB_FV_FILETYPE_MM_STANDALONE)
				t = LB_SECTION_MM_DEPEX;
			rc = put_section(&b, t, NULL, 0, sp->depex, sp->depex_len);
		}
		if (!rc && sp->pe32) {
			if (!(rc = align4(&b)) && align > 4) {
				/* RAW pad section so the PE32 image itself is aligned */
				size_t cur = b.len, p = (align - (cur + 4) % align) % align;
				if (p && p < 4)
					p += align;
				if (p) {
					uint8_t ph[4] = { 0, 0, 0, LB_SECTION_RAW };
					put_le24(ph, (uint32_t)p);
					if (!(rc = ob_put(&b, ph, 4)))
						rc = ob_fill(&b, 0, p - 4);
				}
			}
			if (!rc)
				rc = put_section(&b, LB_SECTION_PE32, NULL, 0, sp->pe32, sp->pe32_len);
		}
		if (!rc && sp->name) {
			uint8_t *u;
			size_t ul;
			if (!(rc = align4(&b)) && !(rc = ucs2(sp->name, &u, &ul))) {
				rc = put_section(&b, LB_SECTION_USER_INTERFACE, NULL, 0, u, ul);
				free(u);
			}
		}
		if (!rc && sp->version) {
			uint8_t *u, bn[2] = { 0, 0 };
			size_t ul;
			if (!(rc = align4(&b)) && !(rc = ucs2(sp->version, &u, &ul))) {
				rc = put_section(&b, LB_SECTION_VERSION, bn, 2, u, ul);
				free(u);
			}
		}
		if (!rc && sp->raw) {
			if (!(rc = align4(&b)))
				rc = put_section(&b, LB_SECTION_RAW, NULL, 0, sp->raw, sp->raw_len);
		}
		if (!rc && !b.len)
			rc = -EINVAL; /* a sectioned file with no section */
	}
	if (rc) {
		free(b.p);
		return rc;
	}
	hsz = b.len + FFS_HDR_SIZE > FFS_MAX_SIZE ? FFS_HDR2_SIZE : FFS_HDR_SIZE;
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, sp->guid, 16);
	hdr[18] = sp->type;
	hdr[19] = attr;
	uefi_ffs_header(hdr, hsz, b.p, b.len, erase, 0xAA);
	{
		uint8_t *f = malloc(hsz + b.len);
		if (!f) {
			free(b.p);
			return -ENOMEM;
		}
		memcpy(f, hdr, hsz);
		if (b.len)
			memcpy(f + hsz, b.p, b.len);
		*out = f;
		*len = hsz + b.len;
	}
	free(b.p);
	return 0;
}
