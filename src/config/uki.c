/* Unified kernel images: locate the payload sections of a PE file held in
 * memory. Multi-profile UKIs: profile 0's sections over the base profile's,
 * as systemd-stub boots them by default (lb_pe_uki_section, the same pick
 * measure.c measures). */
#include <errno.h>
#include <stdlib.h>

#include "pe.h"
#include "uki.h"

static void span(const struct lb_pe *pe, const char *name, struct lb_span *o)
{
	const struct lb_pe_section *s = lb_pe_uki_section(pe, name);
	uint64_t off, len;

	o->off = o->len = 0;
	if (!s)
		return;
	lb_pe_span(s, &off, &len);
	/* lb_pe_parse checked raw_off + raw_size <= image length */
	o->off = (size_t)off;
	o->len = (size_t)len;
}

int lb_uki_split(const uint8_t *img, size_t len, struct lb_uki *out)
{
	struct lb_pe *pe;
	struct lb_uki u;
	int r;

	if (!img)
		return -EINVAL;
	if (!(pe = malloc(sizeof(*pe))))
		return -ENOMEM;
	r = lb_pe_parse(img, len, len, pe);
	if (r)
		goto out;
	span(pe, ".linux", &u.linux_);
	span(pe, ".initrd", &u.initrd);
	span(pe, ".ucode", &u.ucode);
	span(pe, ".cmdline", &u.cmdline);
	span(pe, ".osrel", &u.osrel);
	span(pe, ".uname", &u.uname);
	span(pe, ".dtb", &u.dtb);
	if (!u.linux_.len) {
		r = -ENOENT;
		goto out;
	}
	*out = u;
out:
	free(pe);
	return r;
}
