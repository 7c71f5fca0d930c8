/* Fuzz arm64's kernel unpacking (src/kexec/kimage_arm64.c, compiled in
 * under other names as in tests/unit/test_kimage.c): the header checks
 * (lb_kimage_cmdline_max) and lb_kimage_unpack_cap on hostile Images,
 * gzip'd Images and EFI zboot images, the Image capped at 8 MiB; what comes
 * out must be a sealed Image of at most the cap, with a note; what is
 * refused must say why and keep nothing. Inputs are capped at 1 MiB. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define lb_kimage_cmdline_max arm64_kimage_cmdline_max
#define lb_kimage_name arm64_kimage_name
#define lb_kimage_unpack arm64_kimage_unpack
#define lb_kimage_unpack_cap arm64_kimage_unpack_cap
#include "../src/kexec/kimage_arm64.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_blob out = { .fd = -1 };
	char note[160], what[160];
	const uint8_t *p;
	int r;

	if (size > (1u << 20))
		return 0;
	(void)arm64_kimage_cmdline_max(data, size);
	what[0] = 0;
	r = arm64_kimage_unpack_cap(data, size, 8u << 20, &out, note, sizeof(note), what,
				    sizeof(what));
	if (r < 0) {
		if (out.fd >= 0 || !what[0])
			abort(); /* refused without a reason, or kept something */
		return 0;
	}
	if (out.fd < 0)
		return 0; /* an Image as it is */
	if (!note[0] || out.size > (8u << 20) || out.size < 64 || lb_blob_map(&out, &p) ||
	    memcmp(p + 56, "ARM\x64", 4))
		abort();
	lb_blob_free(&out);
	return 0;
}
