/* Fuzz the iPXE script interpreter. Fetches of URLs ending in ".ipxe" get
 * the input back (so chains nest), others are kernels; settings come from
 * a fixed table; menus pick by the input's last byte. Also resolves the
 * input's first line against a base URL and builds cpio headers for every
 * initrd of a boot result. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipxe.h"

struct ctx {
	const uint8_t *data;
	size_t size;
	int fetches;
};

static int setting(void *p, const char *block, const char *name, char *buf,
		   size_t size)
{
	if (!strcmp(name, "mac")) {
		snprintf(buf, size, "52:54:00:12:34:56");
		return LB_IPXE_HEX;
	}
	if (!strcmp(name, "ip") || !strcmp(name, "gateway")) {
		snprintf(buf, size, "10.0.2.15");
		return LB_IPXE_IPV4;
	}
	if (!strcmp(name, "uuid")) {
		snprintf(buf, size, "5b1e4b3c-aa55-4d3e-8c1b-123456789abc");
		return LB_IPXE_UUID;
	}
	if (!strcmp(name, "serial")) {
		snprintf(buf, size, "${serial}x"); /* a self-reference */
		return LB_IPXE_STRING;
	}
	if (!strcmp(name, "bad")) {
		snprintf(buf, size, "zz");
		return LB_IPXE_HEX;               /* does not parse */
	}
	return -ENOENT;
}

static int fetch(void *p, const char *url, unsigned long tmo, char **script,
		 size_t *len)
{
	struct ctx *c = p;
	size_t n = strlen(url);

	if (n >= 4 && !strcmp(url + n - 4, "fail"))
		return -ENOENT;
	if (n >= 5 && !strcmp(url + n - 5, ".ipxe") && c->fetches++ < 16) {
		if (!(*script = malloc(c->size + 1)))
			return -ENOMEM;
		memcpy(*script, c->data, c->size);
		(*script)[c->size] = 0;
		*len = c->size;
	}
	return 0;
}

static int choose(void *p, const struct lb_ipxe_menu *m, size_t def,
		  unsigned long tmo, size_t *chosen)
{
	struct ctx *c = p;
	unsigned pick = c->size ? c->data[c->size - 1] : 0;

	if (!m->n || pick == 0xff)
		return -ECANCELED;
	*chosen = pick % m->n;
	if (!m->items[*chosen].label)
		*chosen = def;
	return 0;
}

static void output(void *p, const char *text)
{
	(void)p;
	(void)text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c = { data, size, 0 };
	struct lb_ipxe_host h = {
		.ctx = &c, .setting = setting, .fetch = fetch, .choose = choose,
		.output = output,
	};
	struct lb_ipxe_result r;
	int rc;

	if (size > (1u << 20))
		return 0;
	rc = lb_ipxe_run(&h, "http://fuzz/dir/boot.ipxe", (const char *)data, size, &r);
	if (rc == 0 && (r.action == LB_IPXE_BOOT || r.action == LB_IPXE_CHAIN)) {
		if (!r.kernel || !r.name)
			abort();
		for (size_t i = 0; i < r.n_initrd; i++) {
			unsigned char hdr[256];
			if (!r.initrd[i].url || !r.initrd[i].name)
				abort();
			long n = lb_ipxe_cpio_header(&r.initrd[i], 100, hdr, sizeof(hdr));
			if (n < 0 && n != -ENAMETOOLONG)
				abort();
			/* what the boot flow accepts, it can build */
			char err[160];
			int ck = lb_ipxe_cpio_check(&r.initrd[i], err, sizeof(err));
			if (ck && ck != -EINVAL && ck != -ENAMETOOLONG)
				abort();
			if (!ck && (n < 0 || n > (long)LB_IPXE_CPIO_MAX_HEADER ||
				   (r.initrd[i].cpio_name && !r.initrd[i].cpio_args) ||
				   (r.initrd[i].mode_bad)))
				abort();
		}
	}
	if (rc < 0 && !r.error)
		abort(); /* every failure says why */
	lb_ipxe_result_free(&r);

	/* the no-fetch path: chains end the run */
	h.fetch = NULL;
	h.choose = NULL;
	rc = lb_ipxe_run(&h, NULL, (const char *)data, size, &r);
	if (rc < 0 && !r.error)
		abort();
	lb_ipxe_result_free(&r);

	/* URI resolution of the first line against a base */
	size_t l = 0;
	while (l < size && l < 4096 && data[l] != '\n')
		l++;
	char *ref = malloc(l + 1);
	if (!ref)
		return 0;
	memcpy(ref, data, l);
	ref[l] = 0;
	free(lb_ipxe_resolve("http://a/b/c/d;p?q", ref));
	free(lb_ipxe_resolve(ref, "../x/./y?z#f"));
	free(ref);
	return 0;
}
