/* Fuzz the CBFS reader (cbfs.h): FMAP, master header, file walk,
 * attributes, payload segments, LZMA/LZ4 data of every file; edits on a
 * copy; the input as a bzImage for add-payload's Linux payload (stored,
 * then LZ4). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbfs/cbfs.h"

static size_t live(const struct lb_cbfs_area *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		n += a->v[i].type != LB_CBFS_TYPE_NULL && a->v[i].type != LB_CBFS_TYPE_DELETED;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_cbfs *c;
	char why[LB_CBFS_ERRLEN];

	if (size > (4u << 20))
		return 0;
	/* the input as the bzImage of add-payload: refused, or a payload whose
	 * segments parse back (zero page, kernel, trampoline, command line,
	 * initrd, entry) */
	{
		struct lb_cbfs_linux in = { .kernel = data, .klen = size, .initrd = data,
					    .ilen = size < 64 ? size : 64, .cmdline = "console=ttyS0" };
		struct lb_cbfs_seg sg[LB_CBFS_MAX_SEGS];
		uint8_t *p;
		size_t pn, n;

		if (!lb_cbfs_linux_payload(&in, &p, &pn, why, sizeof(why))) {
			struct lb_cbfs_file f = { .type = LB_CBFS_TYPE_SELF, .len = (uint32_t)pn, .data = p };

			if (lb_cbfs_payload_segs(&f, sg, LB_CBFS_MAX_SEGS, &n, why, sizeof(why)) ||
			    n != 6 || sg[1].len != size - ((size_t)(data[0x1f1] ? data[0x1f1] : 4) + 1) * 512)
				abort();
			free(p);
			/* the same with LZ4 segments (each read back by the writer):
			 * the same segments, each LZ4 only where that is smaller */
			in.comp = LB_CBFS_COMP_LZ4;
			if (lb_cbfs_linux_payload(&in, &p, &pn, why, sizeof(why)))
				abort();
			f.len = (uint32_t)pn;
			f.data = p;
			struct lb_cbfs_seg sz[LB_CBFS_MAX_SEGS];
			size_t nz;

			if (lb_cbfs_payload_segs(&f, sz, LB_CBFS_MAX_SEGS, &nz, why, sizeof(why)) || nz != n)
				abort();
			for (size_t i = 0; i + 1 < n; i++)
				if (sz[i].memlen != sg[i].len || sz[i].load != sg[i].load ||
				    (sz[i].comp == LB_CBFS_COMP_LZ4) != (sz[i].len < sz[i].memlen))
					abort();
			free(p);
		}
	}
	if (lb_cbfs_parse(data, size, &c, why, sizeof(why)))
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct lb_cbfs_area *a = &c->a[i];

		if (a->off > size || a->size > size - a->off)
			abort();
		for (size_t k = 0; k < a->n; k++) {
			const struct lb_cbfs_file *f = &a->v[k];
			struct lb_cbfs_seg s[LB_CBFS_MAX_SEGS];
			uint8_t *d;
			size_t n, dn;

			/* every file lies inside its area, in the input */
			if (f->off % LB_CBFS_ALIGN || f->off > a->size ||
			    f->hdr_len > a->size - f->off || f->len > a->size - f->off - f->hdr_len ||
			    f->data != data + a->off + f->off + f->hdr_len || strlen(f->name) > LB_CBFS_NAME_MAX)
				abort();
			if (!lb_cbfs_file_data(f, 1u << 22, &d, &n, why, sizeof(why))) {
				if (f->has_comp && f->comp && n != f->dsize)
					abort();
				free(d);
			}
			if (!lb_cbfs_payload_segs(f, s, LB_CBFS_MAX_SEGS, &n, why, sizeof(why)))
				for (size_t j = 0; j < n; j++) {
					if (s[j].type != LB_CBFS_SEG_ENTRY && s[j].type != LB_CBFS_SEG_BSS &&
					    (s[j].off > f->len || s[j].len > f->len - s[j].off))
						abort();
					if (s[j].type != LB_CBFS_SEG_ENTRY && s[j].type != LB_CBFS_SEG_BSS &&
					    !lb_cbfs_decompress(s[j].comp, f->data + s[j].off, s[j].len,
								1u << 22, &d, &dn))
						free(d);
				}
			(void)lb_cbfs_find(a, f->name);
		}
	}
	/* edits on a copy: what they write must parse, with the file gone or there */
	const struct lb_cbfs_area *a = lb_cbfs_area(c, NULL);
	if (a) {
		uint8_t *copy = malloc(size ? size : 1);
		struct lb_cbfs *c2 = NULL, *c3 = NULL;
		const struct lb_cbfs_area *a2, *a3;
		const char *victim = NULL;

		if (!copy)
			abort();
		memcpy(copy, data, size);
		if (lb_cbfs_parse(copy, size, &c2, why, sizeof(why)) || !(a2 = lb_cbfs_area(c2, NULL)))
			abort(); /* the same bytes parsed once already */
		for (size_t k = 0; k < a2->n && !victim; k++)
			if (a2->v[k].type != LB_CBFS_TYPE_NULL && a2->v[k].type != LB_CBFS_TYPE_DELETED &&
			    a2->v[k].name[0])
				victim = a2->v[k].name;
		if (victim) {
			char name[LB_CBFS_NAME_MAX + 1];

			snprintf(name, sizeof(name), "%s", victim);
			if (a2->holds_fmap) {
				/* never edited: refused, nothing written */
				if (!lb_cbfs_remove(copy, a2, name, why, sizeof(why)) ||
				    memcmp(copy, data, size))
					abort();
				goto done;
			}
			if (lb_cbfs_remove(copy, a2, name, why, sizeof(why)))
				abort();
			if (lb_cbfs_parse(copy, size, &c3, why, sizeof(why)) ||
			    !(a3 = lb_cbfs_area(c3, a2->name)))
				abort();
			/* one file fewer; the rest of the walk is as it was */
			if (live(a3) + 1 != live(a2))
				abort();
			lb_cbfs_free(c3);
			c3 = NULL;
			lb_cbfs_free(c2);
			c2 = NULL;
			if (lb_cbfs_parse(copy, size, &c2, why, sizeof(why)))
				abort();
			a2 = lb_cbfs_area(c2, NULL);
		}
		if (a2 && !lb_cbfs_find(a2, "fuzz/new") &&
		    !lb_cbfs_add(copy, a2, "fuzz/new", LB_CBFS_TYPE_RAW, size & 1, data,
				 size < 300 ? size : 300, why, sizeof(why))) {
			const struct lb_cbfs_file *f;
			uint8_t *d;
			size_t n;

			if (lb_cbfs_parse(copy, size, &c3, why, sizeof(why)) ||
			    !(a3 = lb_cbfs_area(c3, a2->name)) || !(f = lb_cbfs_find(a3, "fuzz/new")) ||
			    lb_cbfs_file_data(f, 1u << 20, &d, &n, why, sizeof(why)))
				abort();
			if (n != (size < 300 ? size : 300) || memcmp(d, data, n))
				abort();
			free(d);
		}
done:
		lb_cbfs_free(c2);
		lb_cbfs_free(c3);
		free(copy);
	}
	lb_cbfs_free(c);
	return 0;
}
