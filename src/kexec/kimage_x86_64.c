/* x86-64: what kexec boots is a bzImage (kexec.h lb_kimage_cmdline_max;
 * src/kexec/kimage_arm64.c is arm64's Image). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kexec.h"

const char lb_kimage_name[] = "a bzImage";

/* cmdline_size of the setup header from boot protocol 2.06 on, else 255
 * (Documentation/arch/x86/boot.rst). -ENOEXEC when h is not a bzImage. */
long lb_kimage_cmdline_max(const uint8_t *h, size_t n)
{
	unsigned version;

	if (n < 0x206 || h[0x1fe] != 0x55 || h[0x1ff] != 0xaa ||
	    memcmp(h + 0x202, "HdrS", 4))
		return -ENOEXEC;
	version = n >= 0x208 ? (unsigned)h[0x206] | (unsigned)h[0x207] << 8 : 0;
	if (version < 0x206 || n < 0x23c)
		return 255;
	return (long)((uint32_t)h[0x238] | (uint32_t)h[0x239] << 8 |
		      (uint32_t)h[0x23a] << 16 | (uint32_t)h[0x23b] << 24);
}

/* a bzImage is what kexec_file_load takes: nothing to unpack */
int lb_kimage_unpack(const uint8_t *img, size_t n, struct lb_blob *out,
		     char *note, size_t notesz, char *what, size_t whatsz)
{
	(void)img; (void)n; (void)what; (void)whatsz;
	out->fd = -1;
	if (notesz)
		note[0] = 0;
	return 0;
}
