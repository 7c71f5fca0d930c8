/* mkrom: keep-list parser, option checks and (with OVMF installed) a whole
 * build under ASan/UBSan, leak-checked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "mkrom.h"
#include "uefi/uefi.h"
#include "dxe/guids.h"
/* lbootdxe's flash walker (freestanding C), run here on the ROM's bytes */
#include "dxe/flash.c"

struct keep_case {
	const char *text;
	int rc;
	size_t n;
	const char *first;
	const char *err; /* substring of the message */
};

static const struct keep_case keep_cases[] = {
	{ "", 0, 0, NULL, NULL },
	{ "# only a comment\n\n   \t\n", 0, 0, NULL, NULL },
	{ "80cf7257-87ab-47f9-a3fe-d50b76d89541\n", 0, 1,
	  "80CF7257-87AB-47F9-A3FE-D50B76D89541", NULL },
	{ "  80CF7257-87AB-47F9-A3FE-D50B76D89541   # PcdDxe: why\r\n"
	  "D93CE3D8-A7EB-4730-8C8E-CC466A9ECC3C", 0, 2,
	  "80CF7257-87AB-47F9-A3FE-D50B76D89541", NULL },
	{ "80CF7257-87AB-47F9-A3FE-D50B76D89541\nPcdDxe\n", -EINVAL, 0, NULL, "line 2" },
	{ "80CF7257-87AB-47F9-A3FE-D50B76D8954\n", -EINVAL, 0, NULL, "line 1" },
	{ "80CF7257-87AB-47F9-A3FE-D50B76D89541X\n", -EINVAL, 0, NULL, "line 1" },
	{ "80CF7257+87AB-47F9-A3FE-D50B76D89541\n", -EINVAL, 0, NULL, "line 1" },
	{ "\n\n\n80CF7257-87AB-47F9-A3FE-D50B76D89541 80CF7257-87AB-47F9-A3FE-D50B76D89541\n",
	  -EINVAL, 0, NULL, "line 4" },
	{ "0123456789012345678901234567890123456789012345678901234567890123456789\n",
	  -EINVAL, 0, NULL, "line 1" },
};

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)n)) && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	if (b)
		*len = (size_t)n;
	fclose(f);
	return b;
}

/* lbootdxe finds the kernel and the initramfs in the ROM's flash volumes
 * (mapped so that the ROM ends at `top`), and not the command line (it is
 * in the compressed DXE volume); damage is reported, never read past. */
static void flash_test(const char *rom, const unsigned char *pe, size_t pe_len)
{
	uint8_t gk[16], gi[16], gc[16];
	const unsigned char *d = NULL;
	unsigned long long n = 0;
	unsigned nv = 0;
	size_t len = 0;
	unsigned char *b = slurp(rom, &len);

	CHECK(b != NULL);
	if (!b)
		return;
	CHECK(lb_guid_parse(LBOOT_GUID_KERNEL_STR, gk) == 0);
	CHECK(lb_guid_parse(LBOOT_GUID_INITRD_STR, gi) == 0);
	CHECK(lb_guid_parse(LBOOT_GUID_CMDLINE_STR, gc) == 0);
	CHECK_INT(lb_flash_find(b + len, len, gk, LB_FLASH_SECTION_PE32, &d, &n, &nv), 0);
	CHECK_INT(nv, 2); /* the SEC volume, then FVMAIN_COMPACT */
	CHECK(n == pe_len && d && !memcmp(d, pe, pe_len));
	CHECK_INT(lb_flash_find(b + len, len, gi, LB_FLASH_SECTION_RAW, &d, &n, NULL), 0);
	CHECK(n == 6 && d && !memcmp(d, "initrd", 6));
	CHECK_INT(lb_flash_find(b + len, len, gk, LB_FLASH_SECTION_RAW, &d, &n, NULL), -1);
	CHECK_INT(lb_flash_find(b + len, len, gc, LB_FLASH_SECTION_RAW, &d, &n, &nv), -1);
	CHECK_INT(nv, 2);
	/* the scan window too small for FVMAIN_COMPACT: not found, no read below */
	CHECK_INT(lb_flash_find(b + len, 0x40000, gk, LB_FLASH_SECTION_PE32, &d, &n, &nv), -1);
	CHECK_INT(nv, 1);
	/* a damaged file header (its checksum no longer adds up) */
	if (d) {
		d = NULL;
		lb_flash_find(b + len, len, gi, LB_FLASH_SECTION_RAW, &d, &n, NULL);
	}
	CHECK(d != NULL && (size_t)(d - b) > 24 + 4);
	if (d && (size_t)(d - b) > 24 + 4) {
		unsigned char *hdr = (unsigned char *)d - 4 - 24; /* RAW section, then FFS header */
		unsigned char save[24];
		CHECK(!memcmp(hdr, gi, 16));
		memcpy(save, hdr, 24);
		hdr[20] ^= 0x08; /* size: the header checksum no longer adds up */
		CHECK_INT(lb_flash_find(b + len, len, gi, LB_FLASH_SECTION_RAW, &d, &n, NULL), -2);
		memcpy(hdr, save, 24);
		hdr[22] = (unsigned char)(hdr[22] + 0x7F); /* a size past the volume, */
		hdr[16] = (unsigned char)(hdr[16] - 0x7F); /* with a right checksum */
		CHECK_INT(lb_flash_find(b + len, len, gi, LB_FLASH_SECTION_RAW, &d, &n, NULL), -2);
		memcpy(hdr, save, 24);
		CHECK_INT(lb_flash_find(b + len, len, gi, LB_FLASH_SECTION_RAW, &d, &n, NULL), 0);
	}
	/* no volume at all */
	memset(b, 0xFF, len);
	CHECK_INT(lb_flash_find(b + len, len, gk, LB_FLASH_SECTION_PE32, &d, &n, &nv), -1);
	CHECK_INT(nv, 0);
	free(b);
}

static int rom_has(const char *path, const char *sel);

/* arm64 (AAVMF): the architecture from the base, the payload volume from
 * 0x200000 to the end of the 64 MiB unit 0, where lbootdxe's walk starts
 * (src/dxe/arm64/cpu.h: LB_DXE_FLASH_TOP 0x4000000) and finds the kernel in
 * the first volume; the 8-byte console file; --arch of the other kind. */
static void arm64_test(void)
{
	char dir[] = "/tmp/test_mkrom_arm64.XXXXXX", p[6][64];
	static const char *names[6] = { "dxe", "kernel", "initrd", "keep", "out.rom",
					"out-vars.fd" };
	static const unsigned char pe[64] = { 'M', 'Z', 9, 8, 7 };
	static const char keep[] = "80CF7257-87AB-47F9-A3FE-D50B76D89541 # PcdDxe\n";
	struct lb_mkrom_report r;
	char err[512] = "";
	int rc;

	CHECK(mkdtemp(dir) != NULL);
	for (int i = 0; i < 6; i++)
		snprintf(p[i], sizeof(p[i]), "%s/%s", dir, names[i]);
	CHECK(write_file(p[0], pe, sizeof(pe)) == 0);
	CHECK(write_file(p[1], pe, sizeof(pe)) == 0);
	CHECK(write_file(p[2], "initrd", 6) == 0);
	CHECK(write_file(p[3], keep, sizeof(keep) - 1) == 0);
	struct lb_mkrom_opts o = { .base = LB_MKROM_ARM64_BASE, .keep = p[3], .dxe = p[0],
				   .kernel = p[1], .initrd = p[2], .cmdline = "console=ttyAMA0",
				   .out = p[4], .dxe_console_set = 1, .dxe_console_arg = "0x9040000" };
	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK_INT(rc, 0);
	if (rc)
		printf("# %s\n", err);
	if (rc == 0) {
		size_t len = 0;
		unsigned char *b = slurp(p[4], &len);
		uint8_t gk[16], gi[16], gc[16];
		const unsigned char *d = NULL;
		unsigned long long n = 0;
		unsigned nv = 0;

		CHECK_INT(r.arch, LB_MKROM_ARCH_ARM64);
		CHECK(r.image_size == LB_MKROM_ARM64_UNIT && len == LB_MKROM_ARM64_UNIT);
		CHECK(r.payload_at == LB_MKROM_ARM64_PAYLOAD_AT);
		CHECK(r.payload_vol == LB_MKROM_ARM64_UNIT - LB_MKROM_ARM64_PAYLOAD_AT);
		CHECK(r.console == 0x9040000);
		lb_mkrom_report_free(&r);
		CHECK(lb_guid_parse(LBOOT_GUID_KERNEL_STR, gk) == 0);
		CHECK(lb_guid_parse(LBOOT_GUID_INITRD_STR, gi) == 0);
		CHECK(lb_guid_parse(LBOOT_GUID_CMDLINE_STR, gc) == 0);
		if (b && len == LB_MKROM_ARM64_UNIT) {
			CHECK_INT(lb_flash_find(b + len, len, gk, LB_FLASH_SECTION_PE32, &d, &n, &nv), 0);
			CHECK_INT(nv, 1); /* the payload volume ends at the top */
			CHECK(n == sizeof(pe) && d && !memcmp(d, pe, sizeof(pe)));
			CHECK(d && (size_t)(d - b) > LB_MKROM_ARM64_PAYLOAD_AT);
			CHECK_INT(lb_flash_find(b + len, len, gi, LB_FLASH_SECTION_RAW, &d, &n, NULL), 0);
			CHECK(n == 6 && d && !memcmp(d, "initrd", 6));
			/* the command line is in the compressed DXE volume; the walk goes
			 * on to AAVMF's volume at 0x1000 (it ends at 0x200000) */
			CHECK_INT(lb_flash_find(b + len, len, gc, LB_FLASH_SECTION_RAW, &d, &n, &nv), -1);
			CHECK_INT(nv, 2);
			/* a window one block short of the payload volume: not found */
			CHECK_INT(lb_flash_find(b + len, len - LB_MKROM_ARM64_PAYLOAD_AT - 0x1000, gk,
						LB_FLASH_SECTION_PE32, &d, &n, &nv), -1);
			CHECK_INT(nv, 0);
		}
		free(b);
	}
	/* the console file on arm64 holds 8 bytes; x86 forms are refused */
	o.dxe_console_arg = "com1";
	CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not a console of arm64") != NULL);
	o.dxe_console_set = 0;
	/* --arch of the other architecture */
	o.arch = LB_MKROM_ARCH_X86_64;
	CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "an arm64 image, not x86_64") != NULL);
	o.arch = LB_MKROM_ARCH_ARM64;
	/* --tpm: AAVMF's TPM PEIMs stay, Tcg2Dxe and HiiDatabase join the
	 * keep list (which names neither); lbootpei is x86's */
	o.tpm = 1;
	o.pei = "build/pei/lbootpei.efi";
	o.pei_given = 1;
	CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "--pei is not for arm64") != NULL);
	o.pei_given = 0;   /* the default path: not read for arm64 */
	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK_INT(rc, 0);
	if (rc)
		printf("# %s\n", err);
	if (rc == 0) {
		static const char *const kept[] = { "Tcg2ConfigPei", "Tcg2Pei", "Tcg2Dxe",
						    "HiiDatabase" };
		CHECK_INT(r.n_tpm, 4);
		CHECK_INT(r.pei_size, 0);
		for (size_t i = 0; i < 4; i++) {
			CHECK(i < r.n_tpm && r.tpm[i].name && !strcmp(r.tpm[i].name, kept[i]));
			CHECK_INT(rom_has(p[4], kept[i]), 1);
		}
		lb_mkrom_report_free(&r);
		/* without --tpm, the same keep list removes the TPM DXE driver */
		o.tpm = 0;
		CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), 0);
		CHECK_INT(rom_has(p[4], "Tcg2Dxe"), 0);
		CHECK_INT(rom_has(p[4], "Tcg2Pei"), 1);
		lb_mkrom_report_free(&r);
	}
	for (int i = 0; i < 6; i++)
		unlink(p[i]);
	rmdir(dir);
}

/* --tpm: the TPM PEIMs stay despite 'remove' lines, the TPM DXE drivers
 * join the keep list, and a base without them is refused */
static int rom_has(const char *path, const char *sel)
{
	size_t len = 0;
	unsigned char *b = slurp(path, &len);
	struct lb_uefi_image *img = NULL;
	char why[256];
	int has = -1;

	if (b && lb_uefi_parse(b, len, 0, &img, why, sizeof(why)) == 0)
		has = lb_uefi_find_file(img, sel) != NULL;
	lb_uefi_free(img);
	free(b);
	return has;
}

static void tpm_test(void)
{
	char dir[] = "/tmp/test_mkrom_tpm.XXXXXX", p[5][80];
	static const char *names[5] = { "dxe", "keep", "tpm.rom", "plain.rom", "notpm.fd" };
	static const unsigned char pe[64] = { 'M', 'Z', 1, 2, 3 };
	static const char keep[] = "80CF7257-87AB-47F9-A3FE-D50B76D89541 # PcdDxe\n"
		"remove F12F698A-E506-4A1B-B32E-6920E55DA1C4\n"
		"remove 8AD3148F-945F-46B4-8ACD-71469EA73945\n"
		"remove 2BE1E4A6-6505-43B3-9FFC-A3C8330E0432\n"
		"remove A0C98B77-CBA5-4BB8-993B-4AF6CE33ECE4\n"
		"remove 47727552-A54B-4A84-8CC1-BFF23E239636\n";
	static const char *const tpm_dxe[] = { "Tcg2Dxe", "Tcg2PlatformDxe", "HiiDatabase" };
	static const char *const tpm_pei[] = { "TpmMmioSevDecryptPei", "Tcg2ConfigPei", "TcgPei",
					       "Tcg2Pei", "Tcg2PlatformPei" };
	struct lb_mkrom_report r;
	char err[512] = "";
	int rc;

	CHECK(mkdtemp(dir) != NULL);
	for (int i = 0; i < 5; i++)
		snprintf(p[i], sizeof(p[i]), "%s/%s", dir, names[i]);
	CHECK(write_file(p[0], pe, sizeof(pe)) == 0);
	CHECK(write_file(p[1], keep, sizeof(keep) - 1) == 0);
	struct lb_mkrom_opts o = { .keep = p[1], .dxe = p[0], .out = p[2], .tpm = 1 };

	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK_INT(rc, 0);
	if (rc) {
		printf("# %s\n", err);
	} else {
		CHECK_INT(r.n_tpm, 8);
		CHECK_INT(r.n_tpm_unremoved, 5);
		CHECK_INT(r.n_removed_other, 0);
		CHECK_INT(r.n_kept, 4); /* PcdDxe + the three TPM DXE drivers */
		for (size_t i = 0; i < r.n_tpm && i < 8; i++)
			CHECK(r.tpm[i].name && r.tpm[i].name[0]);
		lb_mkrom_report_free(&r);
		for (size_t i = 0; i < 3; i++)
			CHECK_INT(rom_has(p[2], tpm_dxe[i]), 1);
		for (size_t i = 0; i < 5; i++)
			CHECK_INT(rom_has(p[2], tpm_pei[i]), 1);
		CHECK_INT(rom_has(p[2], "Tcg2ConfigDxe"), 0); /* setup UI: not needed */
	}
	/* the same list without --tpm removes them all */
	o.tpm = 0;
	o.out = p[3];
	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK_INT(rc, 0);
	if (rc == 0) {
		CHECK_INT(r.n_tpm, 0);
		CHECK_INT(r.n_removed_other, 5);
		CHECK_INT(r.n_kept, 1);
		lb_mkrom_report_free(&r);
		CHECK_INT(rom_has(p[3], "Tcg2Dxe"), 0);
		CHECK_INT(rom_has(p[3], "Tcg2Pei"), 0);
	}
	/* a base without Tcg2Dxe: --tpm refuses it, nothing written */
	{
		size_t len = 0;
		unsigned char *b = slurp(LB_MKROM_DEFAULT_BASE, &len), *nb = NULL;
		struct lb_uefi_image *img = NULL;
		struct lb_uefi_node *f;
		size_t nlen = 0;
		char why[256], xrom[96];

		CHECK(b && lb_uefi_parse(b, len, 0, &img, why, sizeof(why)) == 0);
		while (img && (f = lb_uefi_find_file(img, "Tcg2Dxe")))
			CHECK_INT(lb_uefi_remove(img, f), 0);
		CHECK(img && lb_uefi_serialize(img, &nb, &nlen) == 0);
		CHECK(nb && write_file(p[4], nb, nlen) == 0);
		snprintf(xrom, sizeof(xrom), "%s/x.rom", dir);
		o.base = p[4];
		o.vars = "/usr/share/OVMF/OVMF_VARS_4M.fd";
		o.out = xrom;
		o.tpm = 1;
		CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -ENOENT);
		CHECK(strstr(err, "--tpm") && strstr(err, "Tcg2Dxe"));
		CHECK(access(xrom, F_OK) != 0);
		o.tpm = 0; /* without --tpm that base is fine */
		rc = lb_mkrom_build(&o, &r, err, sizeof(err));
		CHECK_INT(rc, 0);
		if (rc == 0)
			lb_mkrom_report_free(&r);
		unlink(xrom);
		lb_uefi_free(img);
		free(nb);
		free(b);
	}
	for (int i = 2; i < 5; i++)
		unlink(p[i]);
	for (int i = 0; i < 3; i++) { /* the variable stores written next to the ROMs */
		static const char *const v[3] = { "tpm-vars.fd", "plain-vars.fd", "x-vars.fd" };
		char vp[96];

		snprintf(vp, sizeof(vp), "%s/%s", dir, v[i]);
		unlink(vp);
	}
	unlink(p[0]);
	unlink(p[1]);
	rmdir(dir);
}

static void build_test(void)
{
	char dir[] = "/tmp/test_mkrom.XXXXXX", p[6][64];
	CHECK(mkdtemp(dir) != NULL);
	static const char *names[6] = { "dxe", "kernel", "initrd", "keep", "out.rom",
					"out-vars.fd" };
	for (int i = 0; i < 6; i++)
		snprintf(p[i], sizeof(p[i]), "%s/%s", dir, names[i]);
	static const unsigned char pe[64] = { 'M', 'Z', 1, 2, 3 };
	static const char keep[] = "# test\n80CF7257-87AB-47F9-A3FE-D50B76D89541 # PcdDxe\n"
				   "01234567-89AB-CDEF-0123-456789ABCDEF # absent\n"
				   "remove 47727552-A54B-4A84-8CC1-BFF23E239636 # Tcg2PlatformPei (last PEIM)\n"
				   "remove 11111111-2222-3333-4444-555555555555 # absent\n";
	CHECK(write_file(p[0], pe, sizeof(pe)) == 0);
	CHECK(write_file(p[1], pe, sizeof(pe)) == 0);
	CHECK(write_file(p[2], "initrd", 6) == 0);
	CHECK(write_file(p[3], keep, sizeof(keep) - 1) == 0);
	struct lb_mkrom_opts o = { .keep = p[3], .dxe = p[0], .kernel = p[1],
				   .initrd = p[2], .cmdline = "console=ttyS0",
				   .out = p[4] };
	struct lb_mkrom_report r;
	char err[512] = "";
	int rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK_INT(rc, 0);
	if (rc)
		printf("# %s\n", err);
	if (rc == 0) {
		struct stat st;
		CHECK_INT(r.n_kept, 1);
		CHECK(r.n_removed > 50);
		CHECK_INT(r.n_keep_missing, 1);
		CHECK_STR(r.keep_missing[0], "01234567-89AB-CDEF-0123-456789ABCDEF");
		CHECK_INT(r.n_removed_other, 1);
		if (r.n_removed_other == 1) {
			CHECK_STR(r.removed_other[0].name, "Tcg2PlatformPei");
			CHECK_STR(r.removed_other[0].type, "PEIM");
		}
		CHECK_INT(r.n_remove_missing, 1);
		if (r.n_remove_missing == 1)
			CHECK_STR(r.remove_missing[0], "11111111-2222-3333-4444-555555555555");
		CHECK_INT(r.kernel_size, sizeof(pe));
		CHECK_INT(r.initrd_size, 6);
		CHECK(r.free_after > r.free_before); /* almost everything went */
		CHECK(r.vars_out && !strcmp(r.vars_out, p[5]));
		CHECK(stat(p[4], &st) == 0 && (uint64_t)st.st_size == r.image_size);
		int bds_removed = 0;
		for (size_t i = 0; i < r.n_removed; i++)
			bds_removed |= !strcmp(r.removed[i].name, "BdsDxe");
		CHECK(bds_removed);
		lb_mkrom_report_free(&r);
		flash_test(p[4], pe, sizeof(pe));
		{ /* the PEIM is gone from the ROM */
			size_t len = 0;
			unsigned char *b = slurp(p[4], &len);
			struct lb_uefi_image *img = NULL;
			char why[256];
			CHECK(b && lb_uefi_parse(b, len, 0, &img, why, sizeof(why)) == 0);
			if (img) {
				CHECK(!lb_uefi_find_file(img, "47727552-A54B-4A84-8CC1-BFF23E239636"));
				CHECK(lb_uefi_find_file(img, "PlatformPei") != NULL);
			}
			lb_uefi_free(img);
			free(b);
		}
		/* a core is never removed (and nothing is written) */
		char xrom[96];
		snprintf(xrom, sizeof(xrom), "%s/x.rom", dir);
		static const char bad[] = "remove 52C05B14-0B98-496C-BC3B-04B50211D680 # PeiCore\n";
		CHECK(write_file(p[3], bad, sizeof(bad) - 1) == 0);
		o.out = xrom;
		CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, "refusing to remove") && strstr(err, "PeiCore"));
		CHECK(access(xrom, F_OK) != 0);
		/* nor a PEIM whose removal would move execute-in-place PEIMs */
		static const char xip[] = "remove 8AD3148F-945F-46B4-8ACD-71469EA73945 # Tcg2ConfigPei\n";
		CHECK(write_file(p[3], xip, sizeof(xip) - 1) == 0);
		CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -EOPNOTSUPP);
		CHECK(strstr(err, "execute-in-place") != NULL);
		CHECK(access(xrom, F_OK) != 0);
		unlink(xrom);
		o.out = p[4];
		CHECK(write_file(p[3], keep, sizeof(keep) - 1) == 0);
		/* the ROM as a base is refused (already holds our files) */
		o.base = p[4];
		o.out = p[5];
		o.vars = LB_MKROM_DEFAULT_BASE;
		CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -EEXIST);
	}
	for (int i = 0; i < 6; i++)
		unlink(p[i]);
	rmdir(dir);
}

/* The larger layout: kernel and initramfs in a payload volume at the bottom
 * of pflash unit 1, below the variable store; lbootdxe's walker finds them
 * across the store in the flash as QEMU maps it (unit 1 right below unit 0). */
static void unit1_test(void)
{
	char dir[] = "/tmp/test_mkrom1.XXXXXX", p[6][64];
	static const char *names[6] = { "dxe", "kernel", "initrd", "keep", "out.rom",
					"out-vars.fd" };
	static const unsigned char pe[64] = { 'M', 'Z', 1, 2, 3 };
	static const char keep[] = "80CF7257-87AB-47F9-A3FE-D50B76D89541 # PcdDxe\n";
	const size_t klen = 3500000, big = 13u << 20; /* > the 4 MiB room, < 4 MiB */
	unsigned char *k = malloc(big);
	struct lb_mkrom_report r;
	char err[512] = "";
	int rc;

	CHECK(mkdtemp(dir) != NULL && k != NULL);
	if (!k)
		return;
	for (int i = 0; i < 6; i++)
		snprintf(p[i], sizeof(p[i]), "%s/%s", dir, names[i]);
	for (size_t i = 0; i < big; i++)
		k[i] = (unsigned char)(i * 2654435761u >> 24);
	k[0] = 'M';
	k[1] = 'Z';
	CHECK(write_file(p[0], pe, sizeof(pe)) == 0);
	CHECK(write_file(p[1], k, klen) == 0);
	CHECK(write_file(p[2], "initrd", 6) == 0);
	CHECK(write_file(p[3], keep, sizeof(keep) - 1) == 0);
	struct lb_mkrom_opts o = { .keep = p[3], .dxe = p[0], .kernel = p[1],
				   .initrd = p[2], .out = p[4] };

	/* the 4 MiB layout asked for: does not fit, says by how much, writes nothing */
	o.flash_size = 4u << 20;
	CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -ENOSPC);
	CHECK(strstr(err, "does not fit: ") && strstr(err, " bytes over"));
	CHECK(access(p[4], F_OK) != 0 && access(p[5], F_OK) != 0);

	/* automatic: grows to 8 MiB */
	o.flash_size = 0;
	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK_INT(rc, 0);
	if (rc) {
		printf("# %s\n", err);
	} else {
		size_t rl = 0, ul = 0, vl = 0;
		unsigned char *rom = slurp(p[4], &rl), *u1 = slurp(p[5], &ul);
		unsigned char *vars = slurp("/usr/share/OVMF/OVMF_VARS_4M.fd", &vl);
		unsigned char *flash = malloc(8u << 20);
		uint8_t gk[16], gi[16];
		const unsigned char *d = NULL;
		unsigned long long n = 0;
		unsigned nv = 0;

		CHECK_INT(r.payload_unit1, 1);
		CHECK_INT(r.flash_size, 8u << 20);
		CHECK(r.grown_over > 0);
		CHECK_INT(r.payload_vol, (8u << 20) - rl - vl);
		CHECK_INT(r.unit1_size, ul);
		CHECK(rom && u1 && vars && flash);
		CHECK_INT(rl + ul, 8u << 20);
		CHECK(u1 && vars && ul > vl && !memcmp(u1 + ul - vl, vars, vl));
		CHECK(lb_guid_parse(LBOOT_GUID_KERNEL_STR, gk) == 0);
		CHECK(lb_guid_parse(LBOOT_GUID_INITRD_STR, gi) == 0);
		if (rom && u1 && flash && rl + ul == (8u << 20)) {
			const unsigned char *top = flash + (8u << 20);
			memcpy(flash, u1, ul);
			memcpy(flash + ul, rom, rl);
			CHECK_INT(lb_flash_find(top, 8u << 20, gk, LB_FLASH_SECTION_PE32, &d, &n, &nv), 0);
			CHECK_INT(nv, 4); /* SEC, FVMAIN_COMPACT, variable store, payload */
			CHECK(n == klen && d && !memcmp(d, k, klen));
			CHECK_INT(lb_flash_find(top, 8u << 20, gi, LB_FLASH_SECTION_RAW, &d, &n, NULL), 0);
			CHECK(n == 6 && d && !memcmp(d, "initrd", 6));
			/* the window ends one block above the payload volume: not found */
			CHECK_INT(lb_flash_find(top, (8u << 20) - 0x1000, gk, LB_FLASH_SECTION_PE32,
						&d, &n, &nv), -1);
			CHECK_INT(nv, 3);
			/* a damaged store header breaks the chain: nothing read below it */
			flash[ul - vl + 40] ^= 1;
			CHECK_INT(lb_flash_find(top, 8u << 20, gk, LB_FLASH_SECTION_PE32, &d, &n, &nv), -1);
			CHECK_INT(nv, 2);
		}
		free(rom);
		free(u1);
		free(vars);
		free(flash);
		lb_mkrom_report_free(&r);
	}

	/* 16 MiB asked for: unit 1 takes what unit 0 leaves */
	o.flash_size = 16u << 20;
	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK_INT(rc, 0);
	if (rc == 0) {
		struct stat a, b;
		CHECK(stat(p[4], &a) == 0 && stat(p[5], &b) == 0 &&
		      a.st_size + b.st_size == (16 << 20));
		CHECK_INT(r.flash_size, 16u << 20);
		CHECK_INT(r.grown_over, 0);
		lb_mkrom_report_free(&r);
	}
	/* a small payload with the 16 MiB layout asked for still goes to unit 1 */
	CHECK(write_file(p[1], pe, sizeof(pe)) == 0);
	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK_INT(rc, 0);
	if (rc == 0) {
		CHECK_INT(r.payload_unit1, 1);
		lb_mkrom_report_free(&r);
	}
	/* ... and with auto, stays in the 4 MiB layout */
	o.flash_size = 0;
	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK_INT(rc, 0);
	if (rc == 0) {
		CHECK_INT(r.payload_unit1, 0);
		CHECK_INT(r.flash_size, 4u << 20);
		CHECK_INT(r.unit1_size, 0x84000);
		lb_mkrom_report_free(&r);
	}
	/* more than the 16 MiB flash holds */
	unlink(p[4]);
	unlink(p[5]);
	CHECK(write_file(p[1], k, big) == 0);
	CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -ENOSPC);
	CHECK(strstr(err, "does not fit: ") && strstr(err, "16 MiB"));
	CHECK(access(p[4], F_OK) != 0 && access(p[5], F_OK) != 0);
	/* smaller than the base */
	o.flash_size = 2u << 20;
	CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "smaller than") != NULL);
	for (int i = 0; i < 6; i++)
		unlink(p[i]);
	rmdir(dir);
	free(k);
}

struct size_case {
	const char *s;
	int rc;
	uint64_t v;
};

static const struct size_case size_cases[] = {
	{ "auto", 0, 0 },
	{ "4M", 0, 4u << 20 },
	{ "8MiB", 0, 8u << 20 },
	{ "16M", 0, 16u << 20 },
	{ "8388608", 0, 8u << 20 },
	{ "17M", -ERANGE, 0 },
	{ "99999999999999999999999", -ERANGE, 0 },
	{ "0", -EINVAL, 0 },
	{ "0M", -EINVAL, 0 },
	{ "1000000", -EINVAL, 0 },
	{ "4.5M", -EINVAL, 0 },
	{ "4K", -EINVAL, 0 },
	{ "M", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
	{ "-4M", -EINVAL, 0 },
	{ "4M ", -EINVAL, 0 },
};

/* --tpm with lbootpei: the PEIM is in the PEI volume, first in its apriori
 * file (the old list after it), its config block names the DXE volume and
 * FVMAIN_COMPACT's flash address; a PE without one config block is refused */
static void pei_test(void)
{
	char dir[] = "/tmp/test_mkrom_pei.XXXXXX", p[4][80];
	static const char *names[4] = { "dxe", "pei", "pei.rom", "bad" };
	static const unsigned char pe[64] = { 'M', 'Z', 1, 2, 3 };
	unsigned char pei[128] = { 'M', 'Z' };
	static const unsigned char dxe_fv[16] = { 0xc9, 0xbd, 0xb8, 0x7c, 0xeb, 0xf8, 0x34, 0x4f,
						  0xaa, 0xea, 0x3e, 0xe4, 0xaf, 0x65, 0x16, 0xa1 };
	static const unsigned char me[16] = { 0xf0, 0x52, 0x1e, 0x6b, 0x2d, 0x3c, 0x77, 0x4a,
					      0x9e, 0x0b, 0x5d, 0x1c, 0x8a, 0x4f, 0x2e, 0x61 };
	struct lb_mkrom_report r;
	char err[512] = "";
	int rc;

	memcpy(pei + 48, "LBOOT-PEI-CFG-v1", 16);
	CHECK(mkdtemp(dir) != NULL);
	for (int i = 0; i < 4; i++)
		snprintf(p[i], sizeof(p[i]), "%s/%s", dir, names[i]);
	CHECK(write_file(p[0], pe, sizeof(pe)) == 0);
	CHECK(write_file(p[1], pei, sizeof(pei)) == 0);
	struct lb_mkrom_opts o = { .dxe = p[0], .pei = p[1], .out = p[2], .tpm = 1 };

	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK_INT(rc, 0);
	if (rc) {
		printf("# %s\n", err);
	} else {
		size_t len = 0, blen = 0, flen = 0;
		unsigned char *b = slurp(p[2], &len), *body = NULL, *f = NULL;
		struct lb_uefi_image *img = NULL;
		struct lb_uefi_node *apr, *pf;
		char why[256];

		CHECK_INT(r.pei_size, sizeof(pei));
		CHECK(r.pei_measured_at == 0x100000000ull - len); /* FVMAIN_COMPACT is at offset 0 */
		lb_mkrom_report_free(&r);
		CHECK(b && lb_uefi_parse(b, len, 0, &img, why, sizeof(why)) == 0);
		apr = img ? lb_uefi_find_file(img, "1B45CC0A-156A-428A-AF62-49864DA0E6E6") : NULL;
		pf = img ? lb_uefi_find_file(img, "LbootPei") : NULL;
		CHECK(apr && pf && pf->type == LB_FV_FILETYPE_PEIM);
		CHECK(apr && pf && apr->parent == pf->parent && pf->parent == lb_uefi_pei_volume(img));
		if (apr && apr->n_child && lb_uefi_node_bytes(img, apr->child[0], 1, &body, &blen) == 0) {
			CHECK(blen == 32 && !memcmp(body, me, 16)); /* lbootpei, then PcdPeim */
			CHECK(blen == 32 && !memcmp(body + 16, "\x4f\xda\x3a\x9b", 4));
		} else {
			CHECK(0);
		}
		if (pf && lb_uefi_node_bytes(img, pf, 0, &f, &flen) == 0) {
			unsigned char *m = memmem(f, flen, "LBOOT-PEI-CFG-v1", 16);
			uint64_t a = 0;

			CHECK(m && m + 40 <= f + flen && !memcmp(m + 16, dxe_fv, 16));
			for (int i = 0; m && i < 8; i++)
				a |= (uint64_t)m[32 + i] << (8 * i);
			CHECK(a == 0x100000000ull - len);
		} else {
			CHECK(0);
		}
		free(f);
		free(body);
		lb_uefi_free(img);
		free(b);
	}
	/* no config block, or two: refused, nothing written */
	memset(pei + 48, 0, 16);
	CHECK(write_file(p[1], pei, sizeof(pei)) == 0);
	o.out = p[3];
	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK(rc != 0 && strstr(err, "LBOOT-PEI-CFG-v1"));
	CHECK(access(p[3], F_OK) != 0);
	memcpy(pei + 16, "LBOOT-PEI-CFG-v1", 16);
	memcpy(pei + 80, "LBOOT-PEI-CFG-v1", 16);
	CHECK(write_file(p[1], pei, sizeof(pei)) == 0);
	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	CHECK(rc != 0 && strstr(err, "LBOOT-PEI-CFG-v1"));
	CHECK(access(p[3], F_OK) != 0);
	unlink(p[2]);
	for (int i = 0; i < 3; i++) {
		static const char *const v[2] = { "pei-vars.fd", "bad-vars.fd" };
		char vp[96];

		if (i < 2) {
			snprintf(vp, sizeof(vp), "%s/%s", dir, v[i]);
			unlink(vp);
		}
		unlink(p[i]);
	}
	rmdir(dir);
}

int main(void)
{
	TEST("mkrom: keep list parser") {
		for (size_t i = 0; i < sizeof(keep_cases) / sizeof(keep_cases[0]); i++) {
			const struct keep_case *c = &keep_cases[i];
			char **v = NULL, err[256] = "";
			size_t n = 99;
			int rc = lb_mkrom_parse_keep(c->text, strlen(c->text), &v, &n,
						     err, sizeof(err));
			CHECK_INT(rc, c->rc);
			if (rc == 0) {
				CHECK_INT(n, c->n);
				if (c->first && n)
					CHECK_STR(v[0], c->first);
				lb_mkrom_strv_free(v, n);
			} else {
				CHECK(strstr(err, c->err) != NULL);
			}
		}
	}

	TEST("mkrom: 'remove' lines") {
		static const char t[] = "80CF7257-87AB-47F9-A3FE-D50B76D89541\n"
			"  remove\t8ad3148f-945f-46b4-8acd-71469ea73945  # Tcg2ConfigPei\r\n"
			"remove 2BE1E4A6-6505-43B3-9FFC-A3C8330E0432\n";
		char **k = NULL, **rm = NULL, err[256] = "";
		size_t nk = 0, nr = 0;
		CHECK_INT(lb_mkrom_parse_list(t, sizeof(t) - 1, &k, &nk, &rm, &nr, err,
					      sizeof(err)), 0);
		CHECK_INT(nk, 1);
		CHECK_INT(nr, 2);
		if (nr == 2) {
			CHECK_STR(rm[0], "8AD3148F-945F-46B4-8ACD-71469EA73945");
			CHECK_STR(rm[1], "2BE1E4A6-6505-43B3-9FFC-A3C8330E0432");
		}
		lb_mkrom_strv_free(k, nk);
		lb_mkrom_strv_free(rm, nr);
		/* the keep-only parser refuses them, naming the line */
		CHECK_INT(lb_mkrom_parse_keep(t, sizeof(t) - 1, &k, &nk, err, sizeof(err)),
			  -EINVAL);
		CHECK(strstr(err, "line 2") != NULL);
		static const char *const bad[] = { "remove\n", "remove \n", "removeX 8AD3148F-945F-46B4-8ACD-71469EA73945\n",
			"remove 8AD3148F-945F-46B4-8ACD-71469EA73945 x\n", "remove remove 8AD3148F-945F-46B4-8ACD-71469EA73945\n" };
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			CHECK_INT(lb_mkrom_parse_list(bad[i], strlen(bad[i]), &k, &nk, &rm, &nr,
						      err, sizeof(err)), -EINVAL);
			CHECK(strstr(err, "line 1") != NULL);
		}
	}

	TEST("mkrom: keep list with NUL bytes and the cap") {
		static const char nul[] = "80CF7257-87AB-47F9\0A3FE-D50B76D89541\n";
		char **v = NULL, err[256] = "";
		size_t n = 0;
		CHECK_INT(lb_mkrom_parse_keep(nul, sizeof(nul) - 1, &v, &n, err, sizeof(err)),
			  -EINVAL);
		size_t line = 37, total = line * (LB_MKROM_MAX_KEEP + 1);
		char *big = malloc(total);
		CHECK(big != NULL);
		if (big) {
			for (size_t i = 0; i <= LB_MKROM_MAX_KEEP; i++)
				memcpy(big + i * line, "80CF7257-87AB-47F9-A3FE-D50B76D89541\n", line);
			CHECK_INT(lb_mkrom_parse_keep(big, total - line, &v, &n, err, sizeof(err)), 0);
			CHECK_INT(n, LB_MKROM_MAX_KEEP);
			lb_mkrom_strv_free(v, n);
			CHECK_INT(lb_mkrom_parse_keep(big, total, &v, &n, err, sizeof(err)), -E2BIG);
			free(big);
		}
	}

	TEST("mkrom: option errors") {
		struct lb_mkrom_opts o = { 0 };
		struct lb_mkrom_report r;
		char err[256] = "";
		CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -EINVAL);
		o.dxe = "/nonexistent/lbootdxe.efi";
		o.out = "/nonexistent/out.rom";
		o.base = "/nonexistent/base.fd";
		CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -ENOENT);
		CHECK(strstr(err, "/nonexistent/base.fd") != NULL);
		char longline[LBOOT_CMDLINE_MAX + 2];
		memset(longline, 'a', sizeof(longline) - 1);
		longline[sizeof(longline) - 1] = 0;
		o.cmdline = longline;
		CHECK_INT(lb_mkrom_build(&o, &r, err, sizeof(err)), -E2BIG);
	}

	/* A real build from Debian's OVMF (skipped when it is not installed):
	 * the driver and kernel are a minimal "MZ" blob, only their bytes
	 * matter to mkrom. */
	TEST("mkrom: build from OVMF_CODE_4M.fd") {
		if (access(LB_MKROM_DEFAULT_BASE, R_OK) != 0)
			SKIP("%s not installed (apt-get install ovmf)", LB_MKROM_DEFAULT_BASE);
		else
			build_test();
	}
	TEST("mkrom: --tpm keeps the TPM modules") {
		if (access(LB_MKROM_DEFAULT_BASE, R_OK) != 0)
			SKIP("%s not installed (apt-get install ovmf)", LB_MKROM_DEFAULT_BASE);
		else
			tpm_test();
	}
	TEST("mkrom: --tpm adds lbootpei, first in the PEI apriori file") {
		if (access(LB_MKROM_DEFAULT_BASE, R_OK) != 0)
			SKIP("%s not installed (apt-get install ovmf)", LB_MKROM_DEFAULT_BASE);
		else
			pei_test();
	}
	TEST("mkrom: --size parser") {
		for (size_t i = 0; i < sizeof(size_cases) / sizeof(size_cases[0]); i++) {
			uint64_t v = 12345;
			int rc = lb_mkrom_parse_size(size_cases[i].s, &v);
			CHECK_INT(rc, size_cases[i].rc);
			if (rc != size_cases[i].rc)
				printf("# case '%s'\n", size_cases[i].s);
			CHECK_INT(v, rc ? 12345 : size_cases[i].v);
		}
	}
	TEST("mkrom: --dxe-console parser") {
		static const struct { const char *s; int rc, port; } c[] = {
			{ "com1", 0, 0x3F8 }, { "COM2", 0, 0x2F8 }, { "com3", 0, 0x3E8 },
			{ "com4", 0, 0x2E8 }, { "none", 0, 0 }, { "0x2f8", 0, 0x2F8 },
			{ "0X1", 0, 1 }, { "0xFFF8", 0, 0xFFF8 },
			{ "0xFFF9", -EINVAL, 0 }, { "0x10000", -EINVAL, 0 },
			{ "0x123456789abcdef0123", -EINVAL, 0 }, { "0x0", -EINVAL, 0 },
			{ "0x", -EINVAL, 0 }, { "0x2g8", -EINVAL, 0 }, { "760", -EINVAL, 0 },
			{ "com5", -EINVAL, 0 }, { "", -EINVAL, 0 }, { NULL, -EINVAL, 0 },
		};
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			int port = -7, rc = lb_mkrom_parse_console(c[i].s, &port);
			if (rc != c[i].rc)
				printf("# case '%s'\n", c[i].s ? c[i].s : "(null)");
			CHECK_INT(rc, c[i].rc);
			CHECK_INT(port, rc ? -7 : c[i].port);
		}
	}
	TEST("mkrom: arm64 parsers (--arch, --dxe-console)") {
		int a = -1;
		uint64_t v = 1;
		CHECK_INT(lb_mkrom_parse_arch("arm64", &a), 0);
		CHECK_INT(a, LB_MKROM_ARCH_ARM64);
		CHECK_INT(lb_mkrom_parse_arch("aarch64", &a), 0);
		CHECK_INT(lb_mkrom_parse_arch("x86_64", &a), 0);
		CHECK_INT(a, LB_MKROM_ARCH_X86_64);
		CHECK_INT(lb_mkrom_parse_arch("auto", &a), 0);
		CHECK_INT(a, LB_MKROM_ARCH_AUTO);
		CHECK_INT(lb_mkrom_parse_arch("riscv64", &a), -EINVAL);
		CHECK_INT(lb_mkrom_parse_console_arm64("pl011", &v), 0);
		CHECK(v == 0x09000000);
		CHECK_INT(lb_mkrom_parse_console_arm64("none", &v), 0);
		CHECK(v == 0);
		CHECK_INT(lb_mkrom_parse_console_arm64("0x9040000", &v), 0);
		CHECK(v == 0x9040000);
		CHECK_INT(lb_mkrom_parse_console_arm64("0xFFFFFFFFF000", &v), 0);
		CHECK_INT(lb_mkrom_parse_console_arm64("0x1000000000000", &v), -EINVAL);
		CHECK_INT(lb_mkrom_parse_console_arm64("0x9000001", &v), -EINVAL);
		CHECK_INT(lb_mkrom_parse_console_arm64("0x0", &v), -EINVAL);
		CHECK_INT(lb_mkrom_parse_console_arm64("0x", &v), -EINVAL);
		CHECK_INT(lb_mkrom_parse_console_arm64("com1", &v), -EINVAL);
		CHECK_INT(lb_mkrom_parse_console_arm64("0x9g00000", &v), -EINVAL);
		CHECK_INT(lb_mkrom_parse_console_arm64("", &v), -EINVAL);
		CHECK_INT(lb_mkrom_parse_console_arm64(NULL, &v), -EINVAL);
	}
	TEST("mkrom: arm64 (AAVMF) layout, found by lbootdxe's walk from 64 MiB") {
		CHECK(access(LB_MKROM_ARM64_BASE, R_OK) == 0); /* scripts/deps.sh: qemu-efi-aarch64 */
		if (access(LB_MKROM_ARM64_BASE, R_OK) == 0)
			arm64_test();
	}
	TEST("mkrom: payload volume in pflash unit 1 (larger flash)") {
		CHECK(access(LB_MKROM_DEFAULT_BASE, R_OK) == 0); /* scripts/deps.sh: ovmf */
		if (access(LB_MKROM_DEFAULT_BASE, R_OK) == 0)
			unit1_test();
	}
	return t_done();
}
