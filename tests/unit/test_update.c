/* src/firmware/update.c and flash.c: the update header (every field
 * checked), the firmware kind and store finders on hostile images, and
 * programming a flash image file with kept ranges. tests/host/update.sh
 * runs the whole decision with keys signed by Debian's minisign. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bootflash.h"
#include "le.h"
#include "update.h"
#include "t.h"

#define IMG 16384

static uint8_t img[IMG], file[LB_UPDATE_HDR + IMG];

static void fv(uint8_t *p, uint64_t len, int nvram)
{
	static const uint8_t ffs2[16] = { 0x78, 0xE5, 0x8C, 0x8C, 0x3D, 0x8A, 0x1C, 0x4F,
		0x99, 0x35, 0x89, 0x61, 0x85, 0xC3, 0x2D, 0xD3 };
	static const uint8_t nv[16] = { 0x8D, 0x2B, 0xF1, 0xFF, 0x96, 0x76, 0x8B, 0x4C,
		0xA9, 0x85, 0x27, 0x47, 0x07, 0x5B, 0x4F, 0x50 };

	memcpy(p + 16, nvram ? nv : ffs2, 16);
	put_le64(p + 32, len);
	memcpy(p + 40, "_FVH", 4);
}

static void make_img(void)
{
	memset(img, 0xff, sizeof(img));
	fv(img, 4096, 0);
	fv(img + 4096, 8192, 1);
	fv(img + 12288, 4096, 0);
	memcpy(img + IMG - 16, "\x90\x90\xe9\x5b\xff", 5);
}

static int parse(size_t len)
{
	struct lb_update_hdr h;
	char why[256];

	return lb_update_parse(file, len, &h, why, sizeof(why));
}

int main(void)
{
	struct lb_update_hdr h;
	struct lb_flash_range r;
	char why[256];

	make_img();
	TEST("update: a header written is parsed back") {
		CHECK_INT(lb_update_header(LB_UPDATE_KIND_FLASH, 42, "lboot v42", img, IMG, file, why, sizeof(why)), 0);
		memcpy(file + LB_UPDATE_HDR, img, IMG);
		CHECK_INT(lb_update_parse(file, sizeof(file), &h, why, sizeof(why)), 0);
		CHECK_INT((long long)h.version, 42);
		CHECK_INT((long long)h.img_len, IMG);
		CHECK_STR(h.label, "lboot v42");
		CHECK_INT(lb_update_header(LB_UPDATE_KIND_FLASH, 1, "tab\there", img, IMG, file + 0, why, sizeof(why)), -EINVAL);
		CHECK_INT(lb_update_header(LB_UPDATE_KIND_FLASH, 1, "0123456789012345678901234567890123456789012345678901234567890123",
					   img, IMG, file, why, sizeof(why)), -EINVAL);
	}
	TEST("update: every header field is checked") {
		CHECK_INT(lb_update_header(LB_UPDATE_KIND_FLASH, 42, "lboot v42", img, IMG, file, why, sizeof(why)), 0);
		CHECK_INT(parse(sizeof(file) - 1), -EINVAL);     /* length is not the file's */
		CHECK_INT(parse(100), -EINVAL);                  /* shorter than a header */
		file[0] = 'X';
		CHECK_INT(parse(sizeof(file)), -EINVAL);
		file[0] = 'L';
		put_le32(file + 8, 2);                           /* another format */
		CHECK_INT(parse(sizeof(file)), -EPROTONOSUPPORT);
		put_le32(file + 8, 1);
		put_le32(file + 12, 3);                          /* another kind (1 flash, 2 slot) */
		CHECK_INT(parse(sizeof(file)), -EPROTONOSUPPORT);
		put_le32(file + 12, 1);
		put_le64(file + 24, 0);                          /* the image over the header */
		CHECK_INT(parse(sizeof(file)), -EINVAL);
		put_le64(file + 24, LB_UPDATE_HDR);
		put_le64(file + 32, ~0ull - 100);                /* offset + length wraps */
		CHECK_INT(parse(sizeof(file)), -EINVAL);
		put_le64(file + 32, IMG);
		memset(file + 72, 'a', 64);                      /* a label without its NUL */
		CHECK_INT(parse(sizeof(file)), -EINVAL);
		memset(file + 72, 0, 64);
		file[72] = '\n';                                 /* a control character */
		CHECK_INT(parse(sizeof(file)), -EINVAL);
		file[72] = 0;
		file[4095] = 1;                                  /* padding not zero */
		CHECK_INT(parse(sizeof(file)), -EINVAL);
		file[4095] = 0;
		CHECK_INT(parse(sizeof(file)), 0);
	}
	TEST("update: the firmware kind and the variable store on hostile images") {
		CHECK_STR(lb_flash_image_kind(img, IMG), "uefi");
		CHECK_STR(lb_flash_image_kind(img, IMG - 1), "unknown");
		CHECK_STR(lb_flash_image_kind(img, 100), "unknown");
		CHECK_INT(lb_update_store(img, IMG, &r), 0);
		CHECK_INT((long long)r.off, 4096);
		CHECK_INT((long long)r.len, 8192);
		put_le64(img + 4096 + 32, 1ull << 62);           /* a store past the end */
		CHECK_INT(lb_update_store(img, IMG, &r), -ENOENT);
		put_le64(img + 4096 + 32, 8192 + 100);           /* not whole blocks */
		CHECK_INT(lb_update_store(img, IMG, &r), -ENOENT);
		put_le64(img + 12288 + 32, 8192);                /* the top volume does not end at the end */
		CHECK_STR(lb_flash_image_kind(img, IMG), "unknown");
		make_img();
		/* coreboot: the CBFS master header's address at the end */
		memset(img, 0xff, sizeof(img));
		memcpy(img + 0x100, "ORBC", 4);
		put_le32(img + IMG - 4, (uint32_t)(0x100000000ull - IMG + 0x100));
		CHECK_STR(lb_flash_image_kind(img, IMG), "coreboot");
		put_le32(img + IMG - 4, (uint32_t)(0x100000000ull - 4)); /* pointing at itself */
		CHECK_STR(lb_flash_image_kind(img, IMG), "unknown");
		put_le32(img + IMG - 4, 5);                              /* below the flash */
		CHECK_STR(lb_flash_image_kind(img, IMG), "unknown");
		make_img();
	}
	TEST("flash: programming a file: only differing blocks, kept ranges untouched") {
		char path[] = "/tmp/lboot-test-flash.XXXXXX";
		int fd = mkstemp(path);
		uint8_t cur[IMG], want[IMG];
		struct lb_flash f;
		struct lb_flash_stats st;
		struct lb_flash_range keep = { 4096, 8192 }, bad = { 100, 4096 };
		uint64_t first;

		CHECK(fd >= 0);
		memcpy(cur, img, IMG);
		memset(cur + 5000, 0x11, 10);    /* in the kept store */
		CHECK_INT(write(fd, cur, IMG), IMG);
		close(fd);
		memcpy(want, img, IMG);
		want[10] ^= 0xff;                /* block 0 differs */
		want[6000] ^= 0xff;              /* in the store: kept, not written */
		CHECK_INT(lb_flash_open(path, 0, &f, why, sizeof(why)), 0);
		CHECK_STR(f.kind, "uefi");
		CHECK_INT(lb_flash_program(&f, want, IMG, &keep, 1, NULL, NULL, &st, why, sizeof(why)), -EROFS);
		lb_flash_close(&f);
		CHECK_INT(lb_flash_open(path, 1, &f, why, sizeof(why)), 0);
		CHECK_INT(lb_flash_program(&f, want, IMG, &bad, 1, NULL, NULL, &st, why, sizeof(why)), -EINVAL);
		CHECK_INT(lb_flash_program(&f, want, IMG - 4096, &keep, 1, NULL, NULL, &st, why, sizeof(why)), -EINVAL);
		CHECK_INT(lb_flash_compare(&f, want, IMG, &keep, 1, &first), 1);
		CHECK_INT((long long)first, 10);
		CHECK_INT(lb_flash_program(&f, want, IMG, &keep, 1, NULL, NULL, &st, why, sizeof(why)), 0);
		CHECK_INT((long long)st.blocks, 4);
		CHECK_INT((long long)st.differ, 1);
		CHECK_INT((long long)st.kept, 2);
		CHECK_INT(lb_flash_compare(&f, want, IMG, &keep, 1, &first), 0);
		CHECK_INT(lb_flash_read(&f, 5000, cur, 10), 0);
		CHECK(cur[0] == 0x11 && cur[9] == 0x11);   /* the store as it was */
		CHECK_INT(lb_flash_read(&f, IMG - 4, cur, 8), -EINVAL);
		want[0] ^= 1;
		want[IMG - 1] ^= 1;
		f.failk = 2;                               /* the second block written fails */
		CHECK_INT(lb_flash_program(&f, want, IMG, &keep, 1, NULL, NULL, &st, why, sizeof(why)), -EIO);
		CHECK(strstr(why, "0x3000") != NULL);
		CHECK_INT(lb_flash_compare(&f, want, IMG, &keep, 1, &first), 1);
		CHECK_INT((long long)first, IMG - 1);
		CHECK_INT(lb_flash_program(&f, want, IMG, &keep, 1, NULL, NULL, &st, why, sizeof(why)), 0);
		CHECK_INT((long long)st.differ, 1);
		lb_flash_close(&f);
		unlink(path);
	}
	TEST("flash: find: only a NOR MTD with a reset vector, by name if asked") {
		char d[] = "/tmp/lboot-test-mtd.XXXXXX", p[512], path[256];
		FILE *fp;

		CHECK(mkdtemp(d) != NULL);
		const char *mk[][4] = { { "mtd0", "ram", "65536", "vec" }, { "mtd1", "nor", "65536", "none" },
					{ "mtd2", "nor", "65536", "vec" }, { "mtd2ro", "nor", "65536", "vec" } };
		for (int i = 0; i < 4; i++) {
			snprintf(p, sizeof(p), "%s/%s", d, mk[i][0]);
			mkdir(p, 0755);
			snprintf(p, sizeof(p), "%s/%s/type", d, mk[i][0]);
			if ((fp = fopen(p, "w"))) { fprintf(fp, "%s\n", mk[i][1]); fclose(fp); }
			snprintf(p, sizeof(p), "%s/%s/size", d, mk[i][0]);
			if ((fp = fopen(p, "w"))) { fprintf(fp, "%s\n", mk[i][2]); fclose(fp); }
			snprintf(p, sizeof(p), "%s/%s/name", d, mk[i][0]);
			if ((fp = fopen(p, "w"))) { fprintf(fp, "flash%d\n", i); fclose(fp); }
			/* the "device node" sits next to the sysfs directory: dev/mtdN */
			snprintf(p, sizeof(p), "%s/dev", d);
			mkdir(p, 0755);
			snprintf(p, sizeof(p), "%s/dev/%s", d, mk[i][0]);
			if ((fp = fopen(p, "w"))) {
				static uint8_t b[65536];
				memset(b, 0xff, sizeof(b));
				if (!strcmp(mk[i][3], "vec"))
					memcpy(b + sizeof(b) - 16, "\xe9\x00\x00", 3);
				fwrite(b, 1, sizeof(b), fp);
				fclose(fp);
			}
		}
		snprintf(p, sizeof(p), "%s/dev", d);
		CHECK_INT(lb_flash_locate(d, p, NULL, path, sizeof(path), why, sizeof(why)), 0);
		CHECK(strstr(path, "/dev/mtd2") != NULL && !strstr(path, "mtd2ro"));
		CHECK_INT(lb_flash_locate(d, p, "flash1", path, sizeof(path), why, sizeof(why)), -ENODEV);
		CHECK(strstr(why, "mtd1 (flash1, nor)") != NULL);
		CHECK_INT(lb_flash_locate(d, p, "mtd0", path, sizeof(path), why, sizeof(why)), -ENODEV);
		CHECK_INT(lb_flash_locate("/nonexistent", p, NULL, path, sizeof(path), why, sizeof(why)), -ENODEV);
		snprintf(p, sizeof(p), "rm -rf '%s'", d);
		CHECK_INT(system(p), 0);
	}
	return t_done();
}
