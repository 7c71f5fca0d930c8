/* Fuzz the manifest parser; a parsed manifest must format back to text
 * that parses to the same manifest, and check against itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_manifest *m, *m2;
	char err[128], *t;
	size_t n;

	if (size > (1u << 20))
		return 0;
	m = malloc(sizeof(*m));
	m2 = malloc(sizeof(*m2));
	if (!m || !m2)
		abort();
	if (!lb_manifest_parse(data, size, m, err, sizeof(err))) {
		if (m->n_initrds > LB_MANIFEST_MAX_INITRDS ||
		    m->cmdline_len > LB_MANIFEST_MAX_CMDLINE ||
		    strlen(m->cmdline) != m->cmdline_len)
			abort();
		if (lb_manifest_format(m, &t, &n))
			abort();
		if (lb_manifest_parse((uint8_t *)t, n, m2, err, sizeof(err)) ||
		    memcmp(m, m2, sizeof(*m)))
			abort();
		/* canonical: the text formatted is the text parsed */
		if (n != size || memcmp(t, data, n))
			abort();
		free(t);
		struct lb_manifest_boot b = { m->entry, m->kernel,
			m->has_authenticode ? m->kernel_authenticode : NULL,
			(const uint8_t(*)[32])m->initrd, m->n_initrds, m->cmdline };
		if (m->expires > 0 && lb_manifest_check(m, &b, m->expires - 1,
							m->version, NULL))
			abort();
	}
	free(m);
	free(m2);
	return 0;
}
