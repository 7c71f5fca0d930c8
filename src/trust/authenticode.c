/* Authenticode digest of a PE image (see authenticode.h). */
#include <errno.h>
#include <stdlib.h>

#include "authenticode.h"
#include "pe.h"

int lb_authenticode(const uint8_t *buf, size_t len, unsigned mask,
		    struct lb_digests *out)
{
	struct lb_pe *pe = malloc(sizeof(*pe));
	size_t order[LB_PE_MAX_SECTIONS], n = 0;
	struct lb_hash *h = NULL;
	uint64_t hashed, hdr;
	int rc = -EINVAL;

	if (!pe)
		return -ENOMEM;
	if (lb_pe_parse(buf, len, len, pe))
		goto out;
	hdr = pe->size_of_headers;
	/* the headers hashed must hold the fields skipped and the section
	 * table, and fit in the file */
	if (hdr > len || hdr < pe->headers_end ||
	    (uint64_t)pe->checksum_off + 4 > hdr ||
	    (pe->certdir_off && (uint64_t)pe->certdir_off + 8 > hdr))
		goto out;
	if (!(h = malloc(sizeof(*h)))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = lb_hash_init(h, mask)))
		goto out;
	lb_hash_update(h, buf, pe->checksum_off);
	if (pe->certdir_off) {
		lb_hash_update(h, buf + pe->checksum_off + 4,
			       pe->certdir_off - (pe->checksum_off + 4));
		lb_hash_update(h, buf + pe->certdir_off + 8,
			       (size_t)hdr - (pe->certdir_off + 8));
	} else {
		lb_hash_update(h, buf + pe->checksum_off + 4,
			       (size_t)hdr - (pe->checksum_off + 4));
	}
	/* sections with raw data, by PointerToRawData (insertion sort: at
	 * most 96, stable) */
	for (size_t i = 0; i < pe->n_sections; i++) {
		size_t j;

		if (!pe->sec[i].raw_size)
			continue;
		for (j = n; j > 0 && pe->sec[order[j - 1]].raw_off >
					     pe->sec[i].raw_off; j--)
			order[j] = order[j - 1];
		order[j] = i;
		n++;
	}
	hashed = hdr;
	for (size_t k = 0; k < n; k++) {
		const struct lb_pe_section *s = &pe->sec[order[k]];

		/* lb_pe_parse checked raw_off + raw_size <= len */
		lb_hash_update(h, buf + s->raw_off, s->raw_size);
		hashed += s->raw_size;
	}
	/* the rest of the file, without the certificate table */
	if (len > hashed) {
		uint64_t certs = pe->cert_off ? pe->cert_size : 0;

		if (certs > len - hashed) {
			rc = -EINVAL;
			goto out;
		}
		lb_hash_update(h, buf + hashed, (size_t)(len - hashed - certs));
	}
	lb_hash_final(h, out);
	rc = 0;
out:
	free(h);
	free(pe);
	return rc;
}
