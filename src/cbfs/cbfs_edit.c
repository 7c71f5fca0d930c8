/*
 * CBFS edits (cbfs.h): add a file into the first empty space that holds
 * it, remove a file (its space and the empty files next to it become one
 * empty file). Both work on the caller's copy of the image, which
 * lb_cbfs_parse parsed; on any error nothing has been written to it.
 * Files are laid out as cbfstool lays them out: a 24-byte header, the name
 * padded to 4 bytes, the attributes, the data; files on 64-byte
 * boundaries; free space is an empty file (type null, no name, data 0xff).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbfs.h"
#include "io.h"
#include "le.h"
#include "uefi/uefi.h"

#define EMPTY_HDR 28u /* 24 + the empty name padded to 4 */
#define TAG_COMP  0x42435a4cu

static int is_empty(const struct lb_cbfs_file *f)
{
	return f->type == LB_CBFS_TYPE_NULL || f->type == LB_CBFS_TYPE_DELETED;
}

static uint32_t align64(uint64_t v)
{
	return (uint32_t)((v + LB_CBFS_ALIGN - 1) & ~(uint64_t)(LB_CBFS_ALIGN - 1));
}

/* where the space of file i ends: the next file's header if it follows
 * on the next boundary, else the end of its own data */
static uint32_t space_end(const struct lb_cbfs_area *a, size_t i)
{
	const struct lb_cbfs_file *f = &a->v[i];
	uint32_t end = f->off + f->hdr_len + f->len;

	if (i + 1 < a->n && a->v[i + 1].off == align64(end))
		return a->v[i + 1].off;
	return end;
}

/* an empty file from off to end (region offsets), data 0xff */
static void write_empty(uint8_t *r, uint32_t off, uint32_t end)
{
	memset(r + off, 0xff, end - off);
	memcpy(r + off, "LARCHIVE", 8);
	put_be32(r + off + 8, end - off - EMPTY_HDR);
	put_be32(r + off + 12, LB_CBFS_TYPE_NULL);
	put_be32(r + off + 16, 0);
	put_be32(r + off + 20, EMPTY_HDR);
	memset(r + off + 24, 0, 4);
}

int lb_cbfs_remove(uint8_t *img, const struct lb_cbfs_area *a, const char *name, char *why,
		   size_t whysz)
{
	const struct lb_cbfs_file *f = lb_cbfs_find(a, name);
	size_t i, s, e;

	if (a->holds_fmap)
		return lb_whyf(why, whysz, -EINVAL, "region %s holds the FMAP: not edited", a->name);
	if (!f)
		return lb_whyf(why, whysz, -ENOENT, "region %s: no file '%s'", a->name, name);
	i = (size_t)(f - a->v);
	/* the run of empty files around it, each on the boundary after the last */
	for (s = i; s > 0 && is_empty(&a->v[s - 1]) && space_end(a, s - 1) == a->v[s].off; s--)
		;
	for (e = i; e + 1 < a->n && is_empty(&a->v[e + 1]) && space_end(a, e) == a->v[e + 1].off; e++)
		;
	if (space_end(a, e) - a->v[s].off < EMPTY_HDR) {
		/* too small for a new header (the last bytes of the region): the
		 * file's own header becomes empty in place (type null, no name) */
		uint8_t *p = img + a->off + f->off;

		put_be32(p + 12, LB_CBFS_TYPE_NULL);
		p[LB_CBFS_HDR] = 0;
		memset(p + f->hdr_len, 0xff, f->len);
		return 0;
	}
	write_empty(img + a->off, a->v[s].off, space_end(a, e));
	return 0;
}

int lb_cbfs_add(uint8_t *img, const struct lb_cbfs_area *a, const char *name, uint32_t type,
		uint32_t comp, const uint8_t *data, size_t len, char *why, size_t whysz)
{
	size_t nl = strlen(name), best = 0;
	uint8_t *stored = NULL;
	size_t slen = len;
	uint32_t hdr;
	int rc;

	if (a->holds_fmap)
		return lb_whyf(why, whysz, -EINVAL, "region %s holds the FMAP: not edited", a->name);
	if (!nl || nl > 200 || memchr(name, '\n', nl))
		return lb_whyf(why, whysz, -EINVAL, "'%s': a CBFS name is 1 to 200 bytes", name);
	if (type == LB_CBFS_TYPE_NULL || type == LB_CBFS_TYPE_DELETED)
		return lb_whyf(why, whysz, -EINVAL, "'%s': type 0x%x is the type of free space", name, type);
	if (lb_cbfs_find(a, name))
		return lb_whyf(why, whysz, -EEXIST, "region %s: '%s' is already there (remove it first)",
			    a->name, name);
	if (len > LB_CBFS_MAX_IMAGE)
		return lb_whyf(why, whysz, -E2BIG, "'%s': %zu bytes: larger than any ROM", name, len);
	if (comp == LB_CBFS_COMP_LZMA) {
		if ((rc = lb_uefi_lzma_encode(data, len, &stored, &slen)))
			return lb_whyf(why, whysz, rc, "'%s': LZMA: %s", name, strerror(-rc));
		data = stored;
	} else if (comp == LB_CBFS_COMP_LZ4) {
		if ((rc = lb_lz4f_encode(data, len, &stored, &slen)))
			return lb_whyf(why, whysz, rc, "'%s': LZ4: %s", name, strerror(-rc));
		if (slen >= len) {
			/* as cbfstool ("Compression failed - disabled"): stored,
			 * no attribute; coreboot's ulz4fn also refuses frames
			 * under 15 bytes, which an empty file's would be */
			free(stored);
			stored = NULL;
			slen = len;
			comp = LB_CBFS_COMP_NONE;
		} else {
			data = stored;
		}
	} else if (comp != LB_CBFS_COMP_NONE) {
		return lb_whyf(why, whysz, -ENOTSUP, "'%s': lboot writes CBFS files stored, LZMA or LZ4",
			    name);
	}
	hdr = LB_CBFS_HDR + (uint32_t)((nl + 1 + 3) & ~(size_t)3) + (comp ? 16u : 0u);
	for (size_t i = 0; i < a->n; i++) {
		const struct lb_cbfs_file *f = &a->v[i];
		uint32_t end = space_end(a, i), room = end - f->off, next;
		uint8_t *p;

		if (!is_empty(f))
			continue;
		if (room > best)
			best = room;
		if ((uint64_t)hdr + slen > room)
			continue;
		next = align64((uint64_t)f->off + hdr + slen);
		if (next < end && end - next < EMPTY_HDR)
			continue; /* the rest could not hold the empty file it must become */
		p = img + a->off + f->off;
		if (next < end)
			write_empty(img + a->off, next, end);
		memset(p, 0xff, (next < end ? next : end) - f->off);
		memcpy(p, "LARCHIVE", 8);
		put_be32(p + 8, (uint32_t)slen);
		put_be32(p + 12, type);
		put_be32(p + 16, comp ? hdr - 16 : 0);
		put_be32(p + 20, hdr);
		memset(p + 24, 0, hdr - 24 - (comp ? 16 : 0));
		memcpy(p + 24, name, nl);
		if (comp) {
			put_be32(p + hdr - 16, TAG_COMP);
			put_be32(p + hdr - 12, 16);
			put_be32(p + hdr - 8, comp);
			put_be32(p + hdr - 4, (uint32_t)len);
		}
		memcpy(p + hdr, data, slen);
		free(stored);
		return 0;
	}
	free(stored);
	return lb_whyf(why, whysz, -ENOSPC,
		    "region %s: '%s' needs %zu bytes (header %u + data %zu); the largest free space is %zu bytes",
		    a->name, name, hdr + slen, hdr, slen, best);
}
