/* Fuzz the syslinux config parser; `include`/`config` get the same input
 * back (a bounded number of times). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "syslinux.h"

struct ctx {
	const uint8_t *data;
	size_t size;
	int reads;
};

static int rd(void *p, const char *path, char **buf, size_t *len)
{
	struct ctx *c = p;

	(void)path;
	if (c->reads++ >= 8)
		return -ENOENT;
	if (!(*buf = malloc(c->size + 1)))
		return -ENOMEM;
	memcpy(*buf, c->data, c->size);
	(*buf)[c->size] = 0;
	*len = c->size;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_entries l = LB_ENTRIES_INIT;
	struct ctx c = { data, size, 0 };
	struct lb_syslinux_opts o = { "/isolinux", rd, &c, "fuzzfs" };
	int defaults = 0;

	if (size > (1u << 20))
		return 0;
	if (!lb_syslinux_parse(&o, "fuzz.cfg", (const char *)data, size, &l)) {
		for (size_t i = 0; i < l.n; i++) {
			defaults += l.v[i].is_default;
			if (!l.v[i].kernel || !l.v[i].title || !l.v[i].id)
				abort();
		}
		if (l.n && defaults != 1)
			abort(); /* exactly one default */
	}
	lb_entries_free(&l);
	return 0;
}
