/*
 * Serializer: unmodified subtrees are copied byte for byte; modified ones
 * are rebuilt (layout, pad files, sizes, checksums, recompression).
 * Layers, one way: uefi_parse.c (tree, names) <- uefi_write.c <- uefi_edit.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tiano.h"
#include "uefi_int.h"

void uefi_ffs_header(uint8_t *hdr, size_t hsz, const uint8_t *body, size_t body_len,
		     uint8_t erase, uint8_t fixed)
{
	uint64_t total = (uint64_t)hsz + body_len;

	if (hsz == FFS_HDR2_SIZE) {
		hdr[19] |= LB_FFS_ATTRIB_LARGE_FILE;
		put_le24(hdr + 20, 0);
		put_le64(hdr + 24, total);
	} else {
		hdr[19] &= (uint8_t)~LB_FFS_ATTRIB_LARGE_FILE;
		put_le24(hdr + 20, (uint32_t)total);
	}
	hdr[16] = 0;
	hdr[17] = 0;
	hdr[23] = 0;
	hdr[16] = (uint8_t)(0x100 - sum8(hdr, hsz));
	if (hdr[19] & LB_FFS_ATTRIB_CHECKSUM)
		hdr[17] = (uint8_t)(0x100 - sum8(body, body_len));
	else
		hdr[17] = fixed;
	hdr[23] = erase == 0xFF ? (uint8_t)~(FILE_HEADER_CONSTRUCTION | FILE_HEADER_VALID | FILE_DATA_VALID)
				: (FILE_HEADER_CONSTRUCTION | FILE_HEADER_VALID | FILE_DATA_VALID);
}

size_t uefi_sec_hdr_len(const uint8_t *p, size_t len)
{
	size_t h = 4;

	if (len < 4)
		return 0;
	if (le24(p) == 0xFFFFFF) {
		if (len < 8)
			return 0;
		h = 8;
	}
	switch (p[3]) {
	case LB_SECTION_COMPRESSION:
		h += 5;
		break;
	case LB_SECTION_GUID_DEFINED:
		if (len < h + 20)
			return 0;
		h = le16(p + h + 16);
		break;
	case LB_SECTION_FREEFORM_SUBTYPE_GUID:
		h += 16;
		break;
	default:
		break;
	}
	return h <= len ? h : 0;
}

int uefi_ser_stream(struct lb_uefi_image *img, struct lb_uefi_node *n, struct obuf *o)
{
	size_t start = o->len;
	int rc;

	for (size_t i = 0; i < n->n_child; i++) {
		if (i) {
			size_t rel = o->len - start;
			rc = ob_fill(o, 0, align_up(rel, 4) - rel);
			if (rc)
				return rc;
		}
		rc = uefi_ser_node(img, n->child[i], o);
		if (rc)
			return rc;
	}
	return 0;
}

static int ser_section(struct lb_uefi_image *img, struct lb_uefi_node *n, struct obuf *o)
{
	struct obuf in = { 0 };
	uint8_t *enc = NULL, *hdr;
	const uint8_t *data;
	size_t dlen, hl = n->hdr_len, hs = le24(n->raw) == 0xFFFFFF ? 8 : 4;
	uint64_t total;
	int rc;

	hdr = malloc(hl + 4);
	if (!hdr)
		return -ENOMEM;
	if (n->type == LB_SECTION_FIRMWARE_VOLUME_IMAGE) {
		for (size_t i = 0; i < n->n_child; i++)
			if ((rc = uefi_ser_node(img, n->child[i], &in)))
				goto out;
	} else if ((rc = uefi_ser_stream(img, n, &in))) {
		goto out;
	}
	data = in.p;
	dlen = in.len;
	switch (n->comp) {
	case LB_COMP_EFI11:
	case LB_COMP_TIANO:
		rc = lb_tiano_compress(n->comp == LB_COMP_TIANO ? LB_ALG_TIANO : LB_ALG_EFI11,
				       in.p, in.len, &enc, &dlen);
		if (rc) {
			uefi_seterr(img, rc, "cannot compress section at 0x%llx", (unsigned long long)n->offset);
			goto out;
		}
		data = enc;
		break;
	case LB_COMP_LZMA:
	case LB_COMP_LZMAF86:
		rc = uefi_lzma_encode(in.p, in.len, n->comp == LB_COMP_LZMAF86, &enc, &dlen);
		if (rc) {
			uefi_seterr(img, rc, "cannot LZMA-compress section at 0x%llx",
				    (unsigned long long)n->offset);
			goto out;
		}
		data = enc;
		break;
	default:
		break;
	}
	memcpy(hdr, n->raw, hl);
	total = (uint64_t)hl + dlen;
	if (hs == 4 && total >= 0xFFFFFF) {
		/* switch to EFI_COMMON_SECTION_HEADER2 */
		memmove(hdr + 8, hdr + 4, hl - 4);
		hl += 4;
		total += 4;
		hs = 8;
		if (n->type == LB_SECTION_GUID_DEFINED)
			put_le16(hdr + 8 + 16, (uint16_t)(le16(hdr + 8 + 16) + 4));
	}
	if (total > UINT32_MAX) {
		rc = uefi_seterr(img, -E2BIG, "section too large");
		goto out;
	}
	if (hs == 8) {
		put_le24(hdr, 0xFFFFFF);
		put_le32(hdr + 4, (uint32_t)total);
	} else {
		put_le24(hdr, (uint32_t)total);
	}
	if (n->type == LB_SECTION_COMPRESSION) {
		if (in.len > UINT32_MAX) {
			rc = -E2BIG;
			goto out;
		}
		put_le32(hdr + hs, (uint32_t)in.len);
	}
	if (n->comp == LB_COMP_CRC32)
		put_le32(hdr + hs + 20, lb_crc32(0, data, dlen));
	if (!(rc = ob_put(o, hdr, hl)))
		rc = ob_put(o, data, dlen);
out:
	free(hdr);
	free(in.p);
	free(enc);
	return rc;
}

static int ser_file(struct lb_uefi_image *img, struct lb_uefi_node *n, struct obuf *o)
{
	struct obuf body = { 0 };
	struct lb_uefi_node *v = lb_uefi_volume_of(n);
	uint8_t hdr[FFS_HDR2_SIZE];
	size_t hsz;
	int rc;

	if ((rc = uefi_ser_stream(img, n, &body)))
		goto out;
	hsz = body.len + FFS_HDR_SIZE > FFS_MAX_SIZE ? FFS_HDR2_SIZE : FFS_HDR_SIZE;
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, n->raw, FFS_HDR_SIZE);
	uefi_ffs_header(hdr, hsz, body.p, body.len, v ? v->erase : 0xFF,
			n->raw[17] == FFS_FIXED_CHECKSUM_V1 ? FFS_FIXED_CHECKSUM_V1 : FFS_FIXED_CHECKSUM);
	if (!(rc = ob_put(o, hdr, hsz)))
		rc = ob_put(o, body.p, body.len);
out:
	free(body.p);
	return rc;
}

/* A pad file of exactly len bytes (len >= 24). */
static int put_pad(struct obuf *o, size_t len, uint8_t erase, uint8_t fixed)
{
	uint8_t hdr[FFS_HDR2_SIZE];
	size_t hsz = len > FFS_MAX_SIZE ? FFS_HDR2_SIZE : FFS_HDR_SIZE;
	size_t start = o->len;
	int rc;

	memset(hdr, 0xFF, 16);
	memset(hdr + 16, 0, sizeof(hdr) - 16);
	hdr[18] = LB_FV_FILETYPE_PAD;
	if ((rc = ob_reserve(o, len)))
		return rc;
	if ((rc = ob_put(o, hdr, hsz)) || (rc = ob_fill(o, erase, len - hsz)))
		return rc;
	uefi_ffs_header(o->p + start, hsz, o->p + start + hsz, len - hsz, erase, fixed);
	return 0;
}

static int is_empty_pad(const struct lb_uefi_node *f, uint8_t erase)
{
	if (f->kind != LB_UEFI_FILE || f->type != LB_FV_FILETYPE_PAD || f->dirty || !f->raw)
		return 0;
	for (size_t i = f->hdr_len; i < f->raw_len; i++)
		if (f->raw[i] != erase)
			return 0;
	return 1;
}

static int is_xip(unsigned t)
{
	return t == LB_FV_FILETYPE_SECURITY_CORE || t == LB_FV_FILETYPE_PEI_CORE ||
	       t == LB_FV_FILETYPE_PEIM || t == LB_FV_FILETYPE_COMBINED_PEIM_DRIVER;
}

/* An original execute-in-place file must stay where it was linked. */
static int check_xip(struct lb_uefi_image *img, struct lb_uefi_node *v, struct lb_uefi_node *f,
		     size_t rel)
{
	char g[37], vg[37];
	size_t orig;

	if ((img->flags & LB_UEFI_MOVE_XIP) || !is_xip(f->type) || !f->raw ||
	    f->raw < v->raw || f->raw >= v->raw + v->raw_len)
		return 0;
	orig = (size_t)(f->raw - v->raw);
	if (orig == rel)
		return 0;
	lb_guid_str(f->guid, g);
	lb_guid_str(v->guid, vg);
	return uefi_seterr(img, -ENOTSUP,
			   "volume %s: execute-in-place file %s%s%s would move from 0x%zx to 0x%zx "
			   "(allow with LB_UEFI_MOVE_XIP / --allow-xip-move)",
			   vg, g, f->name ? " " : "", f->name ? f->name : "", orig, rel);
}

static int ser_volume(struct lb_uefi_image *img, struct lb_uefi_node *v, struct obuf *o)
{
	struct lb_uefi_node *vtf = NULL;
	struct obuf vtfb = { 0 };
	size_t start = o->len, rel, need, vol_len, orig = v->raw_len;
	uint32_t blk = 0;
	uint8_t fixed = v->raw[0x37] == 1 ? FFS_FIXED_CHECKSUM_V1 : FFS_FIXED_CHECKSUM;
	char g[37];
	int rc;

	if (!v->is_ffs || v->opaque)
		return uefi_seterr(img, -ENOTSUP,
				   "volume %s at 0x%llx holds unparsed data: cannot rebuild it",
				   (lb_guid_str(v->guid, g), g), (unsigned long long)v->offset);
	/* the block map: one entry, or we cannot resize */
	{
		size_t hl = le16(v->raw + 0x30), nent = 0;
		for (size_t b = 0x38; b + 8 <= hl; b += 8) {
			uint32_t nb = le32(v->raw + b), l = le32(v->raw + b + 4);
			if (!nb && !l)
				break;
			nent++;
			blk = l;
		}
		if (nent != 1 || !blk || (blk & (blk - 1)))
			blk = 0; /* no resizing */
	}
	if ((rc = ob_put(o, v->raw, v->hdr_len)))
		return rc;
	for (size_t i = 0; i < v->n_child; i++) {
		struct lb_uefi_node *f = v->child[i];
		struct obuf fb = { 0 };
		size_t hsz, a;

		if (f->kind != LB_UEFI_FILE || is_empty_pad(f, v->erase))
			continue;
		if (f->has_guid && !memcmp(f->guid, lb_guid_vtf, 16) && !vtf) {
			vtf = f;
			continue;
		}
		if ((rc = uefi_ser_node(img, f, &fb))) {
			free(fb.p);
			return rc;
		}
		rel = o->len - start;
		if ((rc = ob_fill(o, v->erase, align_up(rel, 8) - rel))) {
			free(fb.p);
			return rc;
		}
		rel = o->len - start;
		hsz = (fb.p[19] & LB_FFS_ATTRIB_LARGE_FILE) ? FFS_HDR2_SIZE : FFS_HDR_SIZE;
		a = uefi_file_align(fb.p[19]);
		if (a > 8 && (rel + hsz) % a) {
			size_t p = (a - (rel + hsz) % a) % a;
			while (p < FFS_HDR_SIZE)
				p += a;
			if ((rc = put_pad(o, p, v->erase, fixed))) {
				free(fb.p);
				return rc;
			}
		}
		if ((rc = check_xip(img, v, f, o->len - start))) {
			free(fb.p);
			return rc;
		}
		rc = ob_put(o, fb.p, fb.len);
		free(fb.p);
		if (rc)
			return rc;
	}
	rel = o->len - start;
	need = rel;
	if (vtf) {
		if ((rc = uefi_ser_node(img, vtf, &vtfb)))
			goto out;
		need = align_up(rel, 8) + vtfb.len;
	}
	vol_len = orig;
	if (need > orig) {
		if (v->fixed || !blk) {
			rc = uefi_seterr(img, -ENOSPC, "volume %s: does not fit: %zu bytes over",
					 (lb_guid_str(v->guid, g), g), need - orig);
			goto out;
		}
		vol_len = align_up(need, blk);
	}
	if (vtf) {
		size_t at = align_up(rel, 8), target = vol_len - vtfb.len, gap;
		if (target & 7) {
			rc = uefi_seterr(img, -ENOTSUP, "volume %s: volume top file is not 8-byte aligned",
					 (lb_guid_str(v->guid, g), g));
			goto out;
		}
		gap = target - at;
		if (gap && gap < FFS_HDR_SIZE) {
			rc = uefi_seterr(img, -ENOSPC, "volume %s: does not fit: %zu bytes over",
					 (lb_guid_str(v->guid, g), g), FFS_HDR_SIZE - gap);
			goto out;
		}
		if ((rc = ob_fill(o, v->erase, at - rel)))
			goto out;
		if (gap && (rc = put_pad(o, gap, v->erase, fixed)))
			goto out;
		if ((rc = ob_put(o, vtfb.p, vtfb.len)))
			goto out;
	} else if ((rc = ob_fill(o, v->erase, vol_len - rel))) {
		goto out;
	}
	/* header: length, block map, checksum */
	{
		uint8_t *h = o->p + start;
		size_t hl = le16(h + 0x30);
		uint16_t sum = 0;
		put_le64(h + 0x20, vol_len);
		if (vol_len != orig)
			put_le32(h + 0x38, (uint32_t)(vol_len / blk));
		put_le16(h + 0x32, 0);
		for (size_t i = 0; i < hl; i += 2)
			sum = (uint16_t)(sum + le16(h + i));
		put_le16(h + 0x32, (uint16_t)(0x10000 - sum));
	}
	v->size = vol_len;
	rc = 0;
out:
	free(vtfb.p);
	return rc;
}

int uefi_ser_node(struct lb_uefi_image *img, struct lb_uefi_node *n, struct obuf *o)
{
	size_t start = o->len;
	int rc;

	if (!n->dirty || (n->opaque && n->kind != LB_UEFI_VOLUME) ||
	    (n->kind == LB_UEFI_SECTION && n->comp == LB_COMP_NONE &&
	     n->type != LB_SECTION_FIRMWARE_VOLUME_IMAGE))
		return ob_put(o, n->raw, n->raw_len);
	switch (n->kind) {
	case LB_UEFI_IMAGE:
	case LB_UEFI_REGION:
		for (size_t i = 0; i < n->n_child; i++)
			if ((rc = uefi_ser_node(img, n->child[i], o)))
				return rc;
		if (o->len - start != n->raw_len)
			return uefi_seterr(img, -ENOSPC, "%s at 0x%llx: size changed from 0x%zx to 0x%zx",
					   lb_uefi_kind_name(n->kind), (unsigned long long)n->offset,
					   n->raw_len, o->len - start);
		return 0;
	case LB_UEFI_VOLUME:
		return ser_volume(img, n, o);
	case LB_UEFI_FILE:
		return ser_file(img, n, o);
	case LB_UEFI_SECTION:
		return ser_section(img, n, o);
	default:
		return ob_put(o, n->raw, n->raw_len);
	}
}

int lb_uefi_serialize(struct lb_uefi_image *img, uint8_t **out, size_t *len)
{
	struct obuf o = { 0 };
	int rc;

	if (!img || !out || !len)
		return -EINVAL;
	img->err[0] = 0;
	if ((rc = ob_reserve(&o, img->len ? img->len : 1)))
		return rc;
	rc = uefi_ser_node(img, img->root, &o);
	if (!rc && o.len != img->len)
		rc = uefi_seterr(img, -ENOSPC, "image size changed from 0x%zx to 0x%zx", img->len, o.len);
	if (rc) {
		free(o.p);
		return rc;
	}
	*out = o.p;
	*len = o.len;
	return 0;
}

int lb_uefi_node_bytes(struct lb_uefi_image *img, struct lb_uefi_node *n, int body,
		       uint8_t **out, size_t *len)
{
	struct obuf o = { 0 };
	size_t skip = 0;
	int rc;

	if (!img || !n || !out || !len)
		return -EINVAL;
	if (body && n->kind == LB_UEFI_SECTION && n->comp != LB_COMP_NONE &&
	    n->type != LB_SECTION_FIRMWARE_VOLUME_IMAGE && !n->opaque) {
		rc = uefi_ser_stream(img, n, &o); /* decoded data */
	} else {
		rc = uefi_ser_node(img, n, &o);
		if (!rc && body) {
			if (n->kind == LB_UEFI_FILE && o.len >= FFS_HDR_SIZE)
				skip = (o.p[19] & LB_FFS_ATTRIB_LARGE_FILE) ? FFS_HDR2_SIZE : FFS_HDR_SIZE;
			else if (n->kind == LB_UEFI_SECTION)
				skip = uefi_sec_hdr_len(o.p, o.len);
			else if (n->kind == LB_UEFI_VOLUME)
				skip = n->hdr_len;
			if (skip > o.len)
				skip = o.len;
			memmove(o.p, o.p + skip, o.len - skip);
			o.len -= skip;
		}
	}
	if (rc) {
		free(o.p);
		return rc;
	}
	if (!o.p && !(o.p = malloc(1)))
		return -ENOMEM;
	*out = o.p;
	*len = o.len;
	return 0;
}
