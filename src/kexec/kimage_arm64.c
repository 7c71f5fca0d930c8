/* arm64: what kexec boots is an arm64 Image. Linux 6.1's kexec_file_load
 * takes nothing else (arch/arm64/kernel/kexec_image.c: the "ARM\x64" magic
 * at 56), so a gzip'd Image (Image.gz, as Ubuntu ships vmlinuz) and an EFI
 * zboot image (drivers/firmware/efi/libstub/zboot-header.S: a PE file whose
 * payload is the compressed Image) are decompressed here, from the staged
 * bytes, into the Image kexec_file_load gets (lb_kimage_unpack). kexec.h;
 * x86-64's is kimage_x86_64.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "kexec.h"

const char lb_kimage_name[] = "an arm64 Image, gzip'd Image or EFI zboot image";

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
	/* gzip (RFC 1952: ID1 ID2, CM 8 deflate): checked to be an Image
	 * once decompressed (lb_kimage_unpack) */
	if (n >= 18 && h[0] == 0x1f && h[1] == 0x8b && h[2] == 8)
		return ARM64_CMDLINE_MAX;
	return -ENOEXEC;
}

static uint32_t le32at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* half of MemAvailable (/proc/meminfo), in bytes; 0 when unknown */
static uint64_t half_mem_available(void)
{
	char line[128];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024 / 2;
}

/* gzip member(s) IN of LEN bytes inflated into OUT, at most CAP bytes (a
 * few hundred compressed bytes can claim hundreds of MiB: the Image lives in
 * a memfd, and PID 1 cannot be chosen by the OOM killer, so running out of
 * memory would panic the firmware); the result must be an arm64 Image */
static int gunzip_image(const uint8_t *in, size_t len, uint64_t cap, struct lb_blob *out,
			char *what, size_t whatsz)
{
	static uint8_t buf[1u << 16];
	z_stream z;
	int r, zr;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		snprintf(what, whatsz, "gzip: zlib would not start (ENOMEM)");
		return -ENOMEM;
	}
	if ((r = lb_blob_begin(out, (size_t)cap, 0))) {
		inflateEnd(&z);
		snprintf(what, whatsz, "no memory for the decompressed Image");
		return r;
	}
	z.next_in = (Bytef *)in;
	do {
		/* zlib's avail_in is 32 bits: feed at most 1 GiB at a time */
		if (!z.avail_in && len) {
			size_t k = len < (1u << 30) ? len : (1u << 30);

			z.avail_in = (uInt)k;
			len -= k;
		}
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END) {
			snprintf(what, whatsz, "gzip: %s at compressed byte %lu (EBADMSG)",
				 z.msg ? z.msg : "corrupt data", (unsigned long)z.total_in);
			r = -EBADMSG;
			break;
		}
		if ((r = lb_blob_write(out, buf, sizeof(buf) - z.avail_out))) {
			if (r == -EFBIG)
				snprintf(what, whatsz, "gzip: decompresses to more than %llu MiB, the "
					 "most an Image may take here (%s) (EFBIG)",
					 (unsigned long long)(cap >> 20), cap < LB_KEXEC_MAX_UKI ?
					 "half the memory available" : "lboot's limit");
			else
				snprintf(what, whatsz, "gzip: writing the Image: %s", strerror(-r));
			break;
		}
		if (zr == Z_OK && !z.avail_in && !len && z.avail_out) {
			snprintf(what, whatsz, "gzip: the data ends before the stream does (EBADMSG)");
			r = -EBADMSG;
			break;
		}
	} while (zr != Z_STREAM_END);
	inflateEnd(&z);
	if (!r && (r = lb_blob_end(out)))
		snprintf(what, whatsz, "gzip: sealing the Image");
	if (!r) {
		const uint8_t *p;

		if ((r = lb_blob_map(out, &p)) || out->size < 64 || memcmp(p + 56, "ARM\x64", 4)) {
			snprintf(what, whatsz, "gzip: the data inside is not an arm64 Image (ENOEXEC)");
			r = -ENOEXEC;
		}
	}
	if (r)
		lb_blob_free(out);
	return r;
}

/* lb_kimage_unpack with the decompressed Image capped at CAP bytes */
int lb_kimage_unpack_cap(const uint8_t *img, size_t n, uint64_t cap, struct lb_blob *out,
			 char *note, size_t notesz, char *what, size_t whatsz);

int lb_kimage_unpack(const uint8_t *img, size_t n, struct lb_blob *out,
		     char *note, size_t notesz, char *what, size_t whatsz)
{
	uint64_t cap = half_mem_available();

	if (!cap || cap > LB_KEXEC_MAX_UKI)
		cap = LB_KEXEC_MAX_UKI;
	return lb_kimage_unpack_cap(img, n, cap, out, note, notesz, what, whatsz);
}

int lb_kimage_unpack_cap(const uint8_t *img, size_t n, uint64_t cap, struct lb_blob *out,
			 char *note, size_t notesz, char *what, size_t whatsz)
{
	int r;

	out->fd = -1;
	if (notesz)
		note[0] = 0;
	if (n >= 64 && !memcmp(img + 56, "ARM\x64", 4))
		return 0; /* an Image: kexec_file_load takes it */
	if (n >= 64 && img[0] == 'M' && img[1] == 'Z' && !memcmp(img + 4, "zimg", 4)) {
		/* zboot-header.S: payload offset at 8, size at 12, the
		 * compression type (NUL-terminated) at 24, the PE header
		 * offset at 60 */
		uint32_t off = le32at(img + 8), len = le32at(img + 12);
		char type[16];
		size_t tl = 0;

		while (tl < sizeof(type) - 1 && 24 + tl < 60 && img[24 + tl] &&
		       img[24 + tl] >= 0x21 && img[24 + tl] < 0x7f) {
			type[tl] = (char)img[24 + tl];
			tl++;
		}
		type[tl] = 0;
		if (off < 64 || off > n || len > n - off || !len) {
			snprintf(what, whatsz, "EFI zboot image: payload at %u, %u bytes, outside "
				 "the file's %zu bytes (ENOEXEC)", off, len, n);
			return -ENOEXEC;
		}
		if (strcmp(type, "gzip")) {
			snprintf(what, whatsz, "EFI zboot image compressed with '%s': lboot "
				 "decompresses gzip only (ENOTSUP)", type);
			return -ENOTSUP;
		}
		if ((r = gunzip_image(img + off, len, cap, out, what, whatsz)))
			return r;
		snprintf(note, notesz, "EFI zboot image (gzip): the %llu-byte Image from its "
			 "%u-byte payload", (unsigned long long)out->size, len);
		return 0;
	}
	if (n >= 18 && img[0] == 0x1f && img[1] == 0x8b && img[2] == 8) {
		if ((r = gunzip_image(img, n, cap, out, what, whatsz)))
			return r;
		snprintf(note, notesz, "gzip'd Image: the %llu-byte Image from %zu bytes",
			 (unsigned long long)out->size, n);
		return 0;
	}
	snprintf(what, whatsz, "not %s (ENOEXEC)", lb_kimage_name);
	return -ENOEXEC;
}
