/* The kernel image each architecture's kexec boots (src/kexec/kimage_ARCH.c):
 * x86-64's bzImage (linked, as in every host build) and arm64's Image and
 * EFI zboot (kimage_arm64.c compiled in here under other names), each
 * refusing the other's. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "t.h"
#include "io.h"

#define lb_kimage_cmdline_max arm64_kimage_cmdline_max
#define lb_kimage_name arm64_kimage_name
#define lb_kimage_unpack arm64_kimage_unpack
#define lb_kimage_unpack_cap arm64_kimage_unpack_cap
#include "../../src/kexec/kimage_arm64.c"
#undef lb_kimage_unpack_cap
#undef lb_kimage_cmdline_max
#undef lb_kimage_name
#undef lb_kimage_unpack
long lb_kimage_cmdline_max(const uint8_t *h, size_t n);
extern const char lb_kimage_name[];
int lb_kimage_unpack(const uint8_t *img, size_t n, struct lb_blob *out,
		     char *note, size_t notesz, char *what, size_t whatsz);

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

/* IN gzip'd (RFC 1952) into a new buffer *OUT of *OUTN bytes */
static int gz(const uint8_t *in, size_t n, uint8_t **out, size_t *outn)
{
	z_stream z;
	size_t cap = n + n / 100 + 1024;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	*out = malloc(cap);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = *out;
	z.avail_out = (uInt)cap;
	if (!*out || deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		return -1;
	}
	*outn = z.total_out;
	deflateEnd(&z);
	return 0;
}

/* an EFI zboot image (zboot-header.S) around PAYLOAD: payload at 0x200 */
static uint8_t *zboot(const uint8_t *payload, size_t n, const char *type, size_t *outn)
{
	uint8_t *b = calloc(1, 0x200 + n);

	memcpy(b, "MZ\0\0zimg", 8);
	b[8] = 0x00; b[9] = 0x02; /* payload offset 0x200 */
	b[12] = (uint8_t)n; b[13] = (uint8_t)(n >> 8); b[14] = (uint8_t)(n >> 16);
	b[15] = (uint8_t)(n >> 24);
	memcpy(b + 24, type, strlen(type));
	b[60] = 0x40; /* PE header offset */
	memcpy(b + 0x200, payload, n);
	*outn = 0x200 + n;
	return b;
}

static int blob_equals(struct lb_blob *b, const uint8_t *want, size_t n)
{
	const uint8_t *p;

	return b->fd >= 0 && b->size == n && !lb_blob_map(b, &p) && !memcmp(p, want, n);
}

int main(void)
{
	TEST("kimage/arm64: unpack: an Image as it is; gzip'd Image and EFI zboot (gzip) decompressed") {
		size_t n = 300000, gn = 0, zn = 0;
		uint8_t *img = malloc(n), *g = NULL, *z;
		struct lb_blob out = { .fd = -1 };
		char note[160], what[160];

		arm64_header(img);
		for (size_t i = 64; i < n; i++)
			img[i] = (uint8_t)((i * 2654435761u) >> 13 ^ (i / 7));
		CHECK_INT(arm64_kimage_unpack(img, n, &out, note, sizeof(note), what, sizeof(what)), 0);
		CHECK_INT(out.fd, -1);
		CHECK_STR(note, "");
		CHECK_INT(gz(img, n, &g, &gn), 0);
		CHECK_INT(arm64_kimage_cmdline_max(g, gn), 2047);
		CHECK_INT(arm64_kimage_unpack(g, gn, &out, note, sizeof(note), what, sizeof(what)), 0);
		CHECK(blob_equals(&out, img, n));
		CHECK(strstr(note, "gzip'd Image: the 300000-byte Image") != NULL);
		lb_blob_free(&out);
		z = zboot(g, gn, "gzip", &zn);
		CHECK_INT(arm64_kimage_cmdline_max(z, zn), 2047);
		CHECK_INT(arm64_kimage_unpack(z, zn, &out, note, sizeof(note), what, sizeof(what)), 0);
		CHECK(blob_equals(&out, img, n));
		CHECK(strstr(note, "EFI zboot image (gzip)") != NULL);
		lb_blob_free(&out);
		/* a cap below the Image's size (half of MemAvailable: a gzip bomb
		 * must not take PID 1's memory): refused, nothing kept */
		CHECK_INT(arm64_kimage_unpack_cap(z, zn, n - 1, &out, note, sizeof(note), what,
						  sizeof(what)), -EFBIG);
		CHECK(strstr(what, "half the memory available") != NULL && out.fd < 0);
		CHECK_INT(arm64_kimage_unpack_cap(z, zn, n, &out, note, sizeof(note), what,
						  sizeof(what)), 0);
		CHECK(blob_equals(&out, img, n));
		lb_blob_free(&out);
		/* every cut of the zboot file: refused or (past the payload) whole */
		for (size_t k = 0; k < zn; k += k < 0x240 ? 1 : 997) {
			int r = arm64_kimage_unpack(z, k, &out, note, sizeof(note), what, sizeof(what));

			CHECK(r < 0 && out.fd < 0 && what[0]);
		}
		free(z);
		/* other compressions of zboot: named, refused */
		z = zboot(g, gn, "zstd22", &zn);
		CHECK_INT(arm64_kimage_unpack(z, zn, &out, note, sizeof(note), what, sizeof(what)), -ENOTSUP);
		CHECK(strstr(what, "'zstd22'") != NULL && out.fd < 0);
		/* payload offset and size outside the file */
		z[8] = 0x10; z[9] = 0; /* offset 16: inside the header */
		CHECK_INT(arm64_kimage_unpack(z, zn, &out, note, sizeof(note), what, sizeof(what)), -ENOEXEC);
		z[8] = 0xff; z[9] = 0xff; z[10] = 0xff; z[11] = 0xff;
		CHECK_INT(arm64_kimage_unpack(z, zn, &out, note, sizeof(note), what, sizeof(what)), -ENOEXEC);
		z[8] = 0; z[9] = 2; z[10] = 0; z[11] = 0;
		z[12] = z[13] = z[14] = z[15] = 0xff; /* size wraps past the end */
		CHECK_INT(arm64_kimage_unpack(z, zn, &out, note, sizeof(note), what, sizeof(what)), -ENOEXEC);
		CHECK(strstr(what, "outside the file") != NULL);
		free(z);
		/* corrupt and cut gzip data */
		g[gn / 2] ^= 0x55;
		CHECK_INT(arm64_kimage_unpack(g, gn, &out, note, sizeof(note), what, sizeof(what)), -EBADMSG);
		CHECK(out.fd < 0);
		g[gn / 2] ^= 0x55;
		CHECK_INT(arm64_kimage_unpack(g, gn / 2, &out, note, sizeof(note), what, sizeof(what)), -EBADMSG);
		CHECK(strstr(what, "ends before") != NULL && out.fd < 0);
		free(g);
		/* gzip of something that is not an Image */
		memset(img + 56, 0, 4);
		CHECK_INT(gz(img, n, &g, &gn), 0);
		CHECK_INT(arm64_kimage_unpack(g, gn, &out, note, sizeof(note), what, sizeof(what)), -ENOEXEC);
		CHECK(strstr(what, "not an arm64 Image") != NULL && out.fd < 0);
		/* nothing this architecture boots */
		CHECK_INT(arm64_kimage_unpack(img, n, &out, note, sizeof(note), what, sizeof(what)), -ENOEXEC);
		/* x86: a bzImage goes to kexec_file_load as it is */
		CHECK_INT(lb_kimage_unpack(img, n, &out, note, sizeof(note), what, sizeof(what)), 0);
		CHECK_INT(out.fd, -1);
		free(g);
		free(img);
	}
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
