/* PE/COFF reader and UKI split on a real systemd-stub UKI
 * (tests/files/uki/debian.efi, made by tests/files/uki/make-uki.sh). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>

#include "t.h"
#include "uki_fixture.h"
#include "bls.h"
#include "pe.h"
#include "uki.h"

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long sz;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	b = malloc(sz > 0 ? (size_t)sz : 1);
	if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*n = (size_t)sz;
	return b;
}

static int span_is(const uint8_t *img, struct lb_span s, const char *want)
{
	return s.len == strlen(want) && !memcmp(img + s.off, want, s.len);
}

/* Offset of section header `name` in the image (for corrupting it). */
static size_t sect_hdr(const uint8_t *img, size_t n, const char *name)
{
	for (size_t i = 0; i + 8 <= n && i < 4096; i++)
		if (!memcmp(img + i, name, strlen(name)) &&
		    img[i + strlen(name)] == 0)
			return i;
	return 0;
}


int main(void)
{
	char path[PATH_MAX];
	uint8_t *img;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/uki/debian.efi", t_files());
	img = slurp(path, &n);
	TEST("uki fixture present") {
		CHECK(img != NULL);
		CHECK(n > 4096);
	}
	if (!img)
		return t_done();
	TEST("pe headers of the systemd stub UKI") {
		struct lb_pe pe;

		CHECK_INT(lb_pe_parse(img, n, n, &pe), 0);
		CHECK_INT(pe.machine, LB_PE_MACHINE_AMD64);
		CHECK_INT(pe.pe32plus, 1);
		CHECK_INT(pe.subsystem, 10); /* EFI application */
		CHECK(lb_pe_find(&pe, ".text") != NULL);
		CHECK(lb_pe_find(&pe, ".sbat") != NULL);
		CHECK(lb_pe_find(&pe, ".linux") != NULL);
		CHECK(lb_pe_find(&pe, ".nothere") == NULL);
		CHECK(lb_pe_find(&pe, "toolongname") == NULL);
		/* headers only: sections still checked against the file size */
		CHECK_INT(lb_pe_parse(img, 1024, n, &pe), 0);
		CHECK_INT(lb_pe_parse(img, 1024, 1024, &pe), -EINVAL);
	}
	TEST("uki split spans") {
		struct lb_uki u;

		CHECK_INT(lb_uki_split(img, n, &u), 0);
		CHECK(span_is(img, u.linux_, "MZfake-bzImage-payload"));
		CHECK(span_is(img, u.initrd, "070701fake-initrd"));
		CHECK(span_is(img, u.cmdline, "root=UUID=6a5f2b1c-0d7e-4c4f-9a51-2b3c4d5e6f70 ro quiet\n"));
		CHECK(span_is(img, u.uname, "6.1.0-18-amd64"));
		CHECK(u.osrel.len > 0 && !memcmp(img + u.osrel.off, "NAME=", 5));
		CHECK_INT(u.ucode.len, 0);
		CHECK_INT(u.dtb.len, 0);
	}
	TEST("uki multi-profile: profile 0 over the base, as systemd-stub boots it") {
		uint8_t *c = multi_profile(img, n);
		struct lb_uki u, u0;
		struct lb_pe pe;

		CHECK(c != NULL);
		if (!c)
			continue;
		CHECK_INT(lb_uki_split(img, n, &u0), 0);
		CHECK_INT(lb_pe_parse(c, n, n, &pe), 0);
		CHECK_INT(lb_uki_split(c, n, &u), 0);
		/* the base .linux, not profile 1's */
		CHECK(span_is(c, u.linux_, "MZfake-bzImage-payload"));
		/* profile 0's .cmdline overrides the base's */
		CHECK(span_is(c, u.cmdline, "root=UUID=6a5f2b1c-0d7e-4c4f-9a51-2b3c4d5e6f70 ro quiet\n"));
		/* profile 1's .initrd is not profile 0's */
		CHECK_INT(u.initrd.len, 0);
		CHECK_INT(u.osrel.len, 0);
		CHECK(lb_pe_uki_section(&pe, ".profile") == &pe.sec[8]);
		CHECK(lb_pe_uki_section(&pe, ".cmdline") == &pe.sec[9]);
		CHECK(lb_pe_uki_section(&pe, ".linux") == &pe.sec[6]);
		CHECK(lb_pe_uki_section(&pe, ".initrd") == NULL);
		CHECK(lb_pe_uki_section(&pe, "toolongname") == NULL);
		/* a .linux only in profile 0 boots (systemd-stub looks for it
		 * after the overlay); profile 1's never */
		memcpy(pe.sec[6].name, ".linuX", 6);
		CHECK(lb_pe_uki_section(&pe, ".linux") == NULL);
		{
			size_t t = sect_hdr(c, n, ".text");

			memcpy(c + t + 40 * 6, ".linuX", 6);
			CHECK_INT(lb_uki_split(c, n, &u), -ENOENT);
			memcpy(c + t + 40 * 9, ".linux\0\0", 8);
			CHECK_INT(lb_uki_split(c, n, &u), 0);
			CHECK(span_is(c, u.linux_, "root=UUID=6a5f2b1c-0d7e-4c4f-9a51-2b3c4d5e6f70 ro quiet\n"));
			/* and the .cmdline is the base's (the .sbat bytes) */
			CHECK_INT(u.cmdline.off, pe.sec[7].raw_off);
		}
		free(c);
	}
	TEST("uki split rejects bad input") {
		struct lb_uki u;
		uint8_t *c = malloc(n);
		size_t h;

		CHECK_INT(lb_uki_split(img, 0x3f, &u), -EINVAL);
		CHECK_INT(lb_uki_split((const uint8_t *)"not a PE image at all..........."
				       "................................", 64, &u), -EINVAL);
		/* cut inside the .linux section's data */
		{
			struct lb_pe pe;
			const struct lb_pe_section *s;

			CHECK_INT(lb_pe_parse(img, n, n, &pe), 0);
			s = lb_pe_find(&pe, ".linux");
			CHECK(s != NULL);
			if (s)
				CHECK_INT(lb_uki_split(img, s->raw_off + 8, &u), -EINVAL);
		}
		memcpy(c, img, n);
		c[0x3c] = 0xff; c[0x3d] = 0xff; c[0x3e] = 0xff; c[0x3f] = 0x7f;
		CHECK_INT(lb_uki_split(c, n, &u), -EINVAL);
		memcpy(c, img, n);
		h = sect_hdr(c, n, ".linux");
		CHECK(h > 0);
		if (h) {
			c[h + 1] = 'X'; /* ".Xinux": no kernel section */
			CHECK_INT(lb_uki_split(c, n, &u), -ENOENT);
			memcpy(c, img, n);
			/* raw size pointing past the end */
			c[h + 16] = 0xff; c[h + 17] = 0xff; c[h + 18] = 0xff; c[h + 19] = 0x0f;
			CHECK_INT(lb_uki_split(c, n, &u), -EINVAL);
			memcpy(c, img, n);
			/* raw offset near 4 GiB: offset + size overflows 32 bits */
			c[h + 20] = 0xf0; c[h + 21] = 0xff; c[h + 22] = 0xff; c[h + 23] = 0xff;
			CHECK_INT(lb_uki_split(c, n, &u), -EINVAL);
		}
		free(c);
	}
	TEST("uki every truncation is safe") {
		struct lb_uki u;

		for (size_t k = 0; k < n; k += (k < 1024 ? 1 : 509)) {
			uint8_t *c = malloc(k ? k : 1);
			memcpy(c, img, k);
			int r = lb_uki_split(c, k, &u);
			CHECK(r == -EINVAL || r == -ENOENT || r == 0);
			if (!r)
				CHECK(u.linux_.off + u.linux_.len <= k);
			free(c);
		}
	}
	TEST("uki as a BLS type 2 entry") {
		struct lb_fs fs = { 0 };
		struct lb_entry e;
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "%s/uki", t_files());
		fs.dir = dir;
		fs.name = dir;
		CHECK_INT(lb_bls_uki_entry(&fs, "/debian.efi", &e), 0);
		CHECK_INT(e.type, LB_ENTRY_UKI);
		CHECK_STR(e.title, "Debian GNU/Linux 12 (bookworm) (6.1.0-18-amd64)");
		CHECK_STR(e.id, "debian");
		CHECK_STR(e.kernel, "/debian.efi");
		CHECK_STR(e.version, "12");
		CHECK_STR(e.sort_key, "debian");
		CHECK_STR(e.cmdline, "root=UUID=6a5f2b1c-0d7e-4c4f-9a51-2b3c4d5e6f70 ro quiet");
		lb_entry_free(&e);
		CHECK_INT(lb_bls_uki_entry(&fs, "/make-uki.sh", &e), -EINVAL);
		CHECK_INT(lb_bls_uki_entry(&fs, "/missing.efi", &e), -ENOENT);
	}
	free(img);
	return t_done();
}
