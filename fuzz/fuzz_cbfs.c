/* Fuzz the CBFS reader (cbfs.h): FMAP, master header, file walk,
 * attributes, payload segments, LZMA/LZ4 data of every file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cbfs/cbfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_cbfs *c;
	char why[LB_CBFS_ERRLEN];

	if (size > (4u << 20))
		return 0;
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
	(void)lb_cbfs_area(c, NULL);
	lb_cbfs_free(c);
	return 0;
}
