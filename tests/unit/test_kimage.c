/* The kernel image each architecture's kexec boots (src/kexec/kimage_ARCH.c):
 * x86-64's bzImage (linked, as in every host build) and arm64's Image and
 * EFI zboot (kimage_arm64.c compiled in here under other names), each
 * refusing the other's. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "io.h"

#define lb_kimage_cmdline_max arm64_kimage_cmdline_max
#define lb_kimage_name arm64_kimage_name
#include "../../src/kexec/kimage_arm64.c"
#undef lb_kimage_cmdline_max
#undef lb_kimage_name
long lb_kimage_cmdline_max(const uint8_t *h, size_t n);
extern const char lb_kimage_name[];

/* an arm64 Image header (Documentation/arm64/booting.rst) */
static void arm64_header(uint8_t *h)
{
	memset(h, 0, 64);
	h[0] = 0x4d; h[1] = 0x5a; /* "MZ": the EFI stub's PE header */
	memcpy(h + 56, "ARM\x64", 4);
}

/* an x86 setup header of boot protocol VER with cmdline_size CS */
static void x86_header(uint8_t *h, unsigned ver, uint32_t cs)
{
	memset(h, 0, 0x240);
	h[0x1fe] = 0x55; h[0x1ff] = 0xaa;
	memcpy(h + 0x202, "HdrS", 4);
	h[0x206] = (uint8_t)ver; h[0x207] = (uint8_t)(ver >> 8);
	h[0x238] = (uint8_t)cs; h[0x239] = (uint8_t)(cs >> 8);
	h[0x23a] = (uint8_t)(cs >> 16); h[0x23b] = (uint8_t)(cs >> 24);
}

int main(void)
{
	TEST("kimage/arm64: Image and EFI zboot headers, 2047 bytes of command line") {
		uint8_t h[0x240];

		arm64_header(h);
		CHECK_INT(arm64_kimage_cmdline_max(h, 64), 2047);
		CHECK_INT(arm64_kimage_cmdline_max(h, 63), -ENOEXEC); /* cut */
		h[59] = 0x65;
		CHECK_INT(arm64_kimage_cmdline_max(h, 64), -ENOEXEC); /* bad magic */
		memset(h, 0, 64);
		memcpy(h, "MZ\0\0zimg", 8);
		CHECK_INT(arm64_kimage_cmdline_max(h, 64), 2047);
		CHECK_INT(arm64_kimage_cmdline_max(h, 8), -ENOEXEC);
		h[1] = 'X';
		CHECK_INT(arm64_kimage_cmdline_max(h, 64), -ENOEXEC);
		x86_header(h, 0x20f, 2048); /* a bzImage is not an arm64 kernel */
		CHECK_INT(arm64_kimage_cmdline_max(h, sizeof(h)), -ENOEXEC);
		CHECK(strstr(arm64_kimage_name, "arm64 Image") != NULL);
	}
	TEST("kimage/x86_64: setup header's cmdline_size, 255 before protocol 2.06") {
		uint8_t h[0x240];

		x86_header(h, 0x20f, 2048);
		CHECK_INT(lb_kimage_cmdline_max(h, sizeof(h)), 2048);
		CHECK_INT(lb_kimage_cmdline_max(h, 0x23b), 255); /* cmdline_size cut off */
		CHECK_INT(lb_kimage_cmdline_max(h, 0x205), -ENOEXEC);
		x86_header(h, 0x205, 2048);
		CHECK_INT(lb_kimage_cmdline_max(h, sizeof(h)), 255);
		memset(h, 0, sizeof(h));
		arm64_header(h); /* an arm64 Image is not a bzImage */
		CHECK_INT(lb_kimage_cmdline_max(h, sizeof(h)), -ENOEXEC);
		CHECK_STR(lb_kimage_name, "a bzImage");
	}
	TEST("kimage/x86_64: Debian's kernel in /boot") {
		const char *k = NULL;
		char path[256];
		FILE *p = popen("ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n1", "r");

		if (p && fgets(path, sizeof(path), p)) {
			path[strcspn(path, "\n")] = 0;
			k = path;
		}
		if (p)
			pclose(p);
		if (!k || !*k) {
			SKIP("no /boot/vmlinuz-*-amd64 (linux-image-amd64)");
		} else {
			uint8_t *b;
			size_t n;

			CHECK_INT(lb_read_path(k, 64u << 20, &b, &n), 0);
			if (n) {
				long m = lb_kimage_cmdline_max(b, n);

				printf("# %s: cmdline_size %ld\n", k, m);
				CHECK(m >= 2047); /* COMMAND_LINE_SIZE 2048 less the NUL */
				CHECK_INT(arm64_kimage_cmdline_max(b, n), -ENOEXEC);
				free(b);
			}
		}
	}
	return t_done();
}
