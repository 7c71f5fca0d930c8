/* libFuzzer harness: filesystem and partition table probes on arbitrary
 * disk heads, with every supported sector size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_probe p;
	struct lb_ptable *pt;
	static const unsigned sectors[] = { 512, 4096 };

	if (size > (1u << 20))
		return 0;
	if (!lb_probe_fs(data, size, &p)) {
		/* outputs are always NUL terminated inside their arrays */
		if (!memchr(p.type, 0, sizeof(p.type)) ||
		    !memchr(p.uuid, 0, sizeof(p.uuid)) ||
		    !memchr(p.label, 0, sizeof(p.label)))
			abort();
	}
	lb_probe_ext(data, size, &p);
	lb_probe_vfat(data, size, &p);
	lb_probe_iso9660(data, size, &p);
	lb_probe_xfs(data, size, &p);
	lb_probe_btrfs(data, size, &p);
	{
		/* MD superblocks: the input as the block at each place a 20 MiB
		 * member may hold one */
		uint64_t off[4];
		size_t k = lb_md_sb_offsets(20u << 20, off);
		struct lb_md m;

		for (size_t i = 0; i < k; i++)
			if (!lb_probe_md(data, size, off[i], 20u << 20, &m) &&
			    (!memchr(m.name, 0, sizeof(m.name)) ||
			     m.data_offset + m.data_size > (20u << 20) / 512))
				abort();
	}
	if (!(pt = malloc(sizeof(*pt))))
		return 0;
	for (size_t i = 0; i < sizeof(sectors) / sizeof(sectors[0]); i++) {
		size_t need = lb_probe_gpt_need(data, size, sectors[i]);
		if (need > (32u << 20))
			abort();
		if (!lb_probe_ptable(data, size, sectors[i], pt)) {
			if (pt->n > LB_PT_MAX)
				abort();
			for (size_t k = 0; k < pt->n; k++)
				if (!memchr(pt->v[k].name, 0, sizeof(pt->v[k].name)) ||
				    lb_ptable_find(pt, pt->v[k].num) == NULL)
					abort();
		}
	}
	/* backup GPT: first 512 bytes as the last block, the rest as entries */
	if (size >= 512) {
		uint64_t elba, last = 0;
		size_t elen;
		for (int i = 0; i < 8; i++)
			last |= (uint64_t)data[24 + i] << (8 * i);
		if (!lb_probe_gpt_backup_loc(data, 512, 512, last, &elba, &elen) &&
		    (elba >= last || elen > (16u << 20)))
			abort();
		lb_probe_gpt_backup(data, 512, 512, last, data + 512, size - 512, pt);
		if (pt->n > LB_PT_MAX)
			abort();
	}
	free(pt);
	return 0;
}
