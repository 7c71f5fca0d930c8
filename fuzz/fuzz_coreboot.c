/* Fuzz coreboot's table and TCPA log readers (src/firmware/coreboot.h):
 * the input is physical memory from address 0 (the low table at 0-4 KiB
 * forwarding anywhere in it), and also a TCPA log on its own. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coreboot.h"

struct img {
	const uint8_t *p;
	size_t n;
};

static int rd(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct img *m = ctx;

	if (addr > m->n || len > m->n - addr)
		return -EFAULT;
	memcpy(buf, m->p + addr, len);
	return 0;
}

static size_t le32size(const uint8_t *p)
{
	return (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lb_cb_mevent ev[LB_CB_MAX_MEVENTS];
	struct img m = { data, size };
	char why[256];
	uint8_t *tbl;
	size_t n, len;
	uint64_t at;

	if (size > (2u << 20))
		return 0;
	if (!lb_cb_table(rd, &m, &tbl, &len, &at, why, sizeof(why))) {
		uint32_t rs;

		if (len < 24 || at > size || len > size - at || memcmp(tbl, data + at, len))
			abort(); /* the table returned is the bytes where it was found */
		for (uint32_t tag = 0; tag < 0x40; tag++) {
			const uint8_t *r = lb_cb_record(tbl, len, tag, &rs);

			if (r && (r < tbl + 24 || rs < 8 || rs > len - (size_t)(r - tbl)))
				abort();
		}
		free(tbl);
	}
	if (!lb_cb_measurements(rd, &m, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)))
		for (size_t i = 0; i < n; i++)
			if (ev[i].pcr > 23 || strlen(ev[i].name) > LB_CB_NAME_MAX)
				abort();
	if (!lb_cb_tcpa_parse(data, size, ev, LB_CB_MAX_MEVENTS, &n, why, sizeof(why)) &&
	    4 + n * LB_CB_TCPA_ENTRY > size)
		abort();
	/* the input as a CBMEM console: read, appended to in a copy, read again */
	{
		char *t = NULL, *t2 = NULL;
		size_t tl, tl2;

		if (!lb_cb_console_text(data, size, &t, &tl, why, sizeof(why))) {
			uint8_t *c = malloc(size);

			if (!c)
				abort();
			memcpy(c, data, size);
			/* the text ends with what was appended (its last `size`
			 * bytes when the ring is smaller) */
			size_t want = le32size(data) < 6 ? le32size(data) : 6;

			if (lb_cb_console_append(c, size, "lboot\n", 6, why, sizeof(why)) ||
			    lb_cb_console_text(c, size, &t2, &tl2, why, sizeof(why)) || tl2 < want ||
			    memcmp(t2 + tl2 - want, &"lboot\n"[6 - want], want) || tl2 > le32size(data))
				abort();
			free(c);
		}
		free(t);
		free(t2);
	}
	return 0;
}
