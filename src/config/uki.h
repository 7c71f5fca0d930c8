/* Unified kernel images (BLS type 2): a PE/COFF file whose sections carry
 * the kernel, initrd, command line and os-release. */
#ifndef LB_UKI_H
#define LB_UKI_H

#include <stddef.h>
#include <stdint.h>

struct lb_span {
	size_t off, len; /* inside the image buffer; len 0 = absent */
};

struct lb_uki {
	struct lb_span linux_, initrd, ucode, cmdline, osrel, uname, dtb;
};

/* Split a UKI held in memory. Every span is checked to lie inside the
 * buffer (section VirtualSize/SizeOfRawData respected). Returns 0, -EINVAL
 * (not PE), -ENOENT (no .linux section). */
int lb_uki_split(const uint8_t *img, size_t len, struct lb_uki *out);

#endif
