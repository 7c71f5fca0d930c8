/* libFuzzer harness: LVM2 metadata text, and the same bytes as the head of
 * a PV (label, metadata area header, text, volume group, dm tables). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lvm.h"

static void tables(const struct lb_lvm_vg *vg)
{
	const char **devs = calloc(vg->n_pv ? vg->n_pv : 1, sizeof(*devs));

	if (!devs)
		return;
	for (size_t i = 0; i < vg->n_pv; i++)
		devs[i] = (i & 3) == 3 ? NULL : "253:1";
	for (size_t i = 0; i < vg->n_lv; i++) {
		struct lb_dm_target *t = NULL;
		size_t n = 0;

		if (!lb_lvm_table(vg, &vg->lv[i], devs, &t, &n)) {
			for (size_t k = 0; k < n; k++)
				if (!memchr(t[k].params, 0, sizeof(t[k].params)))
					abort();
			free(t);
		}
	}
	free(devs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_lvm_label lab;
	struct lb_lvm_vg vg;

	if (size > (2u << 20))
		return 0;
	if (!lb_lvm_parse((const char *)data, size, &vg)) {
		tables(&vg);
		lb_lvm_vg_free(&vg);
	}
	if (!lb_lvm_label(data, size, &lab)) {
		for (size_t i = 0; i < lab.n_mda; i++) {
			struct lb_lvm_raw raw;
			uint64_t off = lab.mda[i].offset;
			char *text;
			size_t tlen;

			if (off >= size ||
			    lb_lvm_mda_header(data + off, size - off, off, lab.mda[i].size, &raw) ||
			    lb_lvm_mda_text(data + off, size - off, lab.mda[i].size, &raw,
					    &text, &tlen))
				continue;
			if (strlen(text) != tlen)
				abort();
			if (!lb_lvm_parse(text, tlen, &vg)) {
				tables(&vg);
				lb_lvm_vg_free(&vg);
			}
			free(text);
		}
	}
	return 0;
}
