/* arm64: what kexec boots is an arm64 Image, or an EFI zboot image (a PE
 * file whose payload the kernel's kexec_file_load decompresses, 6.1 and
 * later). kexec.h lb_kimage_cmdline_max; x86-64's is kimage_x86_64.c. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kexec.h"

const char lb_kimage_name[] = "an arm64 Image or EFI zboot image";

/* arm64's COMMAND_LINE_SIZE (arch/arm64/include/uapi/asm/setup.h) less the NUL */
#define ARM64_CMDLINE_MAX 2047

long lb_kimage_cmdline_max(const uint8_t *h, size_t n)
{
	/* Documentation/arm64/booting.rst: the 64-byte header, magic
	 * "ARM\x64" at offset 56 */
	if (n >= 64 && !memcmp(h + 56, "ARM\x64", 4))
		return ARM64_CMDLINE_MAX;
	/* drivers/firmware/efi/libstub/zboot-header.S: "MZ", then "zimg" */
	if (n >= 64 && h[0] == 'M' && h[1] == 'Z' && !memcmp(h + 4, "zimg", 4))
		return ARM64_CMDLINE_MAX;
	return -ENOEXEC;
}
