/* Probes against real superblocks (made by mkfs.ext4/ext2/ext3, mkfs.vfat,
 * xorriso, genisoimage, sfdisk; the expected values are what blkid -p
 * printed for the same images) and hand-broken variants. The images are
 * the fuzz seed corpus: fuzz/corpus/probe/. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32.h"
#include "probe.h"
#include "t.h"

static uint8_t *load(const char *name, size_t *len)
{
	char path[4096];
	FILE *f;
	uint8_t *b;
	long n;

	snprintf(path, sizeof(path), "%s/../../fuzz/corpus/probe/%s", t_files(), name);
	if (!(f = fopen(path, "rb"))) {
		printf("# cannot open %s\n", path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc(n > 0 ? (size_t)n : 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

static const struct {
	const char *file, *type, *uuid, *label;
	unsigned fat_bits;
} fs_cases[] = {
	{ "ext4.img", "ext4", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", "LBOOTROOT", 0 },
	{ "ext2.img", "ext2", "11111111-2222-3333-4444-555555555555", "old", 0 },
	{ "ext3.img", "ext3", "22222222-3333-4444-5555-666666666666", "", 0 },
	{ "fat12.img", "vfat", "1234-ABCD", "ESP12", 12 },
	{ "fat16.img", "vfat", "DEAD-BEEF", "", 16 },
	{ "fat32.img", "vfat", "0BAD-F00D", "EFI SYSTEM", 32 },
	{ "xorriso.iso", "iso9660", "2023-11-14-22-13-20-00", "LBOOT_ISO", 0 },
	{ "genisoimage.iso", "iso9660", "2026-12-03-06-32-45-00", "GENISO", 0 },
};

static const char *const not_fs[] = {
	"gpt.img", "mbr.img", "mbrl.img", "trunc-ext4-1500", "trunc-fat32-300",
	"trunc-iso-33000", "trunc-gpt-600",
};

int main(void)
{
	struct lb_probe p;
	struct lb_ptable *pt = calloc(1, sizeof(*pt));
	uint8_t *b;
	size_t n;

	if (!pt)
		return 1;
	for (size_t i = 0; i < sizeof(fs_cases) / sizeof(fs_cases[0]); i++) {
		TEST(fs_cases[i].file) {
			b = load(fs_cases[i].file, &n);
			CHECK(b != NULL);
			if (!b)
				continue;
			memset(&p, 0x55, sizeof(p));
			CHECK_INT(lb_probe_fs(b, n, &p), 0);
			CHECK_STR(p.type, fs_cases[i].type);
			CHECK_STR(p.uuid, fs_cases[i].uuid);
			CHECK_STR(p.label, fs_cases[i].label);
			CHECK_INT(p.fat_bits, fs_cases[i].fat_bits);
			CHECK_INT(p.flags, 0);
			/* the same bytes one short of what the probe needs */
			size_t need = !strcmp(p.type, "iso9660") ? 34816 :
				      !strcmp(p.type, "vfat") ? 512 : 2048;
			CHECK_INT(lb_probe_fs(b, need, &p), 0);
			CHECK_INT(lb_probe_fs(b, need - 1, &p), -ENOENT);
			/* a disk head that is a filesystem has no partition table */
			CHECK_INT(lb_probe_ptable(b, n, 512, pt), 0);
			CHECK_INT(pt->kind, LB_PT_NONE);
			free(b);
		}
	}
	for (size_t i = 0; i < sizeof(not_fs) / sizeof(not_fs[0]); i++) {
		TEST(not_fs[i]) {
			b = load(not_fs[i], &n);
			CHECK(b != NULL);
			if (b)
				CHECK_INT(lb_probe_fs(b, n, &p), -ENOENT);
			free(b);
		}
	}

	TEST("ext4 dirty journal, unknown feature, journal device, bad sanity") {
		b = load("ext4.img", &n);
		CHECK(b != NULL);
		if (b) {
			uint8_t *inc = b + 1024 + 0x60;
			inc[0] |= 0x04; /* needs_recovery */
			CHECK_INT(lb_probe_ext(b, n, &p), 0);
			CHECK_INT(p.flags, LB_PROBE_DIRTY);
			inc[3] |= 0x80; /* incompat bit 31: unknown */
			CHECK_INT(lb_probe_ext(b, n, &p), 0);
			CHECK_INT(p.flags, LB_PROBE_DIRTY | LB_PROBE_UNSUPPORTED);
			inc[3] &= 0x7f;
			inc[0] |= 0x08; /* journal_dev */
			CHECK_INT(lb_probe_ext(b, n, &p), 0);
			CHECK_STR(p.type, "jbd");
			CHECK(p.flags & LB_PROBE_NOMOUNT);
			b[1024 + 0x18] = 7; /* 128 KiB blocks: not ext */
			CHECK_INT(lb_probe_ext(b, n, &p), -ENOENT);
			b[1024 + 0x18] = 0;
			memset(b + 1024 + 0x68, 0, 16); /* no uuid */
			memset(b + 1024 + 0x78, ' ', 16);
			CHECK_INT(lb_probe_ext(b, n, &p), 0);
			CHECK_STR(p.uuid, "");
			CHECK_STR(p.label, "");
			b[1024 + 0x38] = 0; /* magic */
			CHECK_INT(lb_probe_fs(b, n, &p), -ENOENT);
		}
		free(b);
	}

	TEST("vfat NO NAME label, geometry sanity, 8-bit label") {
		b = load("fat32.img", &n);
		CHECK(b != NULL);
		if (b) {
			memcpy(b + 71, "NO NAME    ", 11);
			CHECK_INT(lb_probe_vfat(b, n, &p), 0);
			CHECK_STR(p.label, "");
			memcpy(b + 71, "A\x82" "B\x01       ", 11);
			CHECK_INT(lb_probe_vfat(b, n, &p), 0);
			CHECK_STR(p.label, "A?B?");
			b[13] = 3; /* sectors per cluster not a power of 2 */
			CHECK_INT(lb_probe_vfat(b, n, &p), -ENOENT);
			b[13] = 1;
			b[11] = 0; b[12] = 0x01; /* 256 bytes per sector */
			CHECK_INT(lb_probe_vfat(b, n, &p), -ENOENT);
			b[12] = 0x02;
			memset(b + 36, 0xff, 4); /* FAT larger than the volume */
			CHECK_INT(lb_probe_vfat(b, n, &p), -ENOENT);
		}
		free(b);
	}

	TEST("iso9660 uuid from creation date when modification date unset") {
		b = load("xorriso.iso", &n);
		CHECK(b != NULL);
		if (b) {
			memcpy(b + 32768 + 830, "0000000000000000", 16);
			memcpy(b + 32768 + 813, "2001020304050607", 16);
			CHECK_INT(lb_probe_iso9660(b, n, &p), 0);
			CHECK_STR(p.uuid, "2001-02-03-04-05-06-07");
			memcpy(b + 32768 + 813, "20010203040506x7", 16);
			CHECK_INT(lb_probe_iso9660(b, n, &p), 0);
			CHECK_STR(p.uuid, "");
			b[32768 + 6] = 2; /* version */
			CHECK_INT(lb_probe_iso9660(b, n, &p), -ENOENT);
		}
		free(b);
	}

	TEST("gpt partitions") {
		b = load("gpt.img", &n);
		CHECK(b != NULL);
		if (b) {
			CHECK_INT(lb_probe_ptable(b, n, 512, pt), 0);
			CHECK_INT(pt->kind, LB_PT_GPT);
			CHECK_STR(pt->disk_uuid, "01234567-89ab-cdef-0123-456789abcdef");
			CHECK_INT(pt->n, 2);
			const struct lb_part *p1 = lb_ptable_find(pt, 1), *p2 = lb_ptable_find(pt, 2);
			CHECK(p1 && p2 && !lb_ptable_find(pt, 3));
			if (p1 && p2) {
				CHECK_STR(p1->uuid, "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
				CHECK_STR(p1->type_guid, "c12a7328-f81f-11d2-ba4b-00a0c93ec93b");
				CHECK_STR(p1->name, "EFI system");
				CHECK_INT(p1->start, 2048);
				CHECK_INT(p1->size, 4096);
				CHECK_STR(p2->uuid, "12345678-1234-5678-9abc-def012345678");
				CHECK_STR(p2->type_guid, "0fc63daf-8483-4772-8e79-3d69d8477de4");
				CHECK_STR(p2->name, "root \xc3\xbc");
				CHECK_INT(p2->start, 8192);
			}
			CHECK_INT(lb_probe_gpt_need(b, n, 512), 2 * 512 + 128 * 128);
			/* entry array not inside the buffer */
			CHECK_INT(lb_probe_ptable(b, 1024, 512, pt), -ERANGE);
			CHECK_INT(pt->kind, LB_PT_NONE);
			/* wrong sector size: no GPT header there; protective MBR
			 * then reads as an MBR with one 0xee partition */
			CHECK_INT(lb_probe_ptable(b, n, 4096, pt), 0);
			CHECK_INT(pt->kind, LB_PT_MBR);
			CHECK_INT(lb_probe_ptable(b, n, 1000, pt), -EINVAL);
			/* a flipped byte in an entry breaks the array CRC */
			b[1024 + 128 + 60] ^= 1;
			CHECK_INT(lb_probe_ptable(b, n, 512, pt), -EBADMSG);
			b[1024 + 128 + 60] ^= 1;
			/* and one in the header breaks the header CRC */
			b[512 + 80] ^= 1;
			CHECK_INT(lb_probe_ptable(b, n, 512, pt), -EBADMSG);
			CHECK_INT(lb_probe_gpt_need(b, n, 512), 0);
		}
		free(b);
	}

	TEST("gpt backup header and entries at the end of the disk") {
		b = load("gpt.img", &n);
		CHECK(b != NULL);
		if (b) {
			const uint64_t last = 20 * 2048 - 1;
			uint8_t hdr[512];
			uint64_t elba = 0;
			size_t elen = 0;

			memcpy(hdr, b + 512, 512);
			for (int i = 0; i < 8; i++) {
				hdr[24 + i] = (uint8_t)(last >> (8 * i));       /* MyLBA */
				hdr[32 + i] = (uint8_t)(1ull >> (8 * i));       /* AlternateLBA */
				hdr[72 + i] = (uint8_t)((last - 32) >> (8 * i)); /* entries */
			}
			memset(hdr + 16, 0, 4);
			uint32_t c = lb_crc32(0, hdr, 92);
			for (int i = 0; i < 4; i++)
				hdr[16 + i] = (uint8_t)(c >> (8 * i));
			CHECK_INT(lb_probe_gpt_backup_loc(hdr, sizeof(hdr), 512, last, &elba, &elen), 0);
			CHECK_INT(elba, last - 32);
			CHECK_INT(elen, 128 * 128);
			CHECK_INT(lb_probe_gpt_backup(hdr, sizeof(hdr), 512, last, b + 1024, 128 * 128, pt), 0);
			CHECK_INT(pt->kind, LB_PT_GPT);
			CHECK_INT(pt->n, 2);
			CHECK_STR(pt->v[1].uuid, "12345678-1234-5678-9abc-def012345678");
			/* the header must say it is where it was read from */
			CHECK_INT(lb_probe_gpt_backup_loc(hdr, sizeof(hdr), 512, last - 1, &elba, &elen), -EBADMSG);
			/* entries short or corrupt */
			CHECK_INT(lb_probe_gpt_backup(hdr, sizeof(hdr), 512, last, b + 1024, 100, pt), -ERANGE);
			CHECK_INT(pt->kind, LB_PT_NONE);
			b[1024 + 20] ^= 1;
			CHECK_INT(lb_probe_gpt_backup(hdr, sizeof(hdr), 512, last, b + 1024, 128 * 128, pt), -EBADMSG);
			CHECK_INT(lb_probe_gpt_backup(hdr, 91, 512, last, b + 1024, 128 * 128, pt), -ENOENT);
		}
		free(b);
	}

	TEST("gpt name with surrogate pair and unpaired surrogate") {
		b = load("gpt.img", &n);
		CHECK(b != NULL);
		if (b) {
			uint8_t *e = b + 1024;
			uint8_t name[72] = { 'x', 0, 0x3d, 0xd8, 0x00, 0xde, 0x00, 0xd8, 'y', 0 };
			memcpy(e + 56, name, sizeof(name));
			uint32_t c = lb_crc32(0, b + 1024, 128 * 128);
			b[512 + 88] = (uint8_t)c; b[512 + 89] = (uint8_t)(c >> 8);
			b[512 + 90] = (uint8_t)(c >> 16); b[512 + 91] = (uint8_t)(c >> 24);
			memset(b + 512 + 16, 0, 4);
			c = lb_crc32(0, b + 512, 92);
			b[512 + 16] = (uint8_t)c; b[512 + 17] = (uint8_t)(c >> 8);
			b[512 + 18] = (uint8_t)(c >> 16); b[512 + 19] = (uint8_t)(c >> 24);
			CHECK_INT(lb_probe_ptable(b, n, 512, pt), 0);
			CHECK_INT(pt->kind, LB_PT_GPT);
			CHECK_STR(pt->v[0].name, "x\xf0\x9f\x98\x80\xef\xbf\xbdy");
		}
		free(b);
	}

	TEST("mbr primary and logical partitions") {
		b = load("mbr.img", &n);
		CHECK(b != NULL);
		if (b) {
			CHECK_INT(lb_probe_ptable(b, n, 512, pt), 0);
			CHECK_INT(pt->kind, LB_PT_MBR);
			CHECK_STR(pt->disk_uuid, "cafe1234");
			/* the EBRs lie at 4 MiB, outside the 64 KiB head */
			CHECK_INT(pt->n, 2);
			CHECK(lb_ptable_find(pt, 1) && lb_ptable_find(pt, 1)->mbr_type == 0x0c);
			CHECK_STR(lb_ptable_find(pt, 2) ? lb_ptable_find(pt, 2)->uuid : NULL, "cafe1234-02");
		}
		free(b);
		b = load("mbrl.img", &n);
		CHECK(b != NULL);
		if (b) {
			CHECK_INT(lb_probe_ptable(b, n, 512, pt), 0);
			CHECK_INT(pt->kind, LB_PT_MBR);
			CHECK_INT(pt->n, 4);
			const struct lb_part *p5 = lb_ptable_find(pt, 5), *p6 = lb_ptable_find(pt, 6);
			CHECK(p5 && p6);
			if (p5 && p6) {
				CHECK_INT(p5->start, 40);
				CHECK_INT(p6->start, 64);
				CHECK_INT(p6->mbr_type, 0x0c);
				CHECK_STR(p6->uuid, "0badcafe-06");
			}
			/* an EBR chain pointing backwards stops, no loop */
			b[32 * 512 + 462 + 8] = 0;
			CHECK_INT(lb_probe_ptable(b, n, 512, pt), 0);
			CHECK_INT(pt->n, 3);
			/* bad boot flag: not an MBR */
			b[446] = 0x12;
			CHECK_INT(lb_probe_ptable(b, n, 512, pt), 0);
			CHECK_INT(pt->kind, LB_PT_NONE);
		}
		free(b);
	}

	TEST("short and empty buffers") {
		uint8_t z[600] = { 0 };
		CHECK_INT(lb_probe_fs(z, 0, &p), -ENOENT);
		CHECK_INT(lb_probe_fs(z, sizeof(z), &p), -ENOENT);
		CHECK_INT(lb_probe_fs(NULL, 0, &p), -EINVAL);
		CHECK_INT(lb_probe_ptable(z, 100, 512, pt), 0);
		CHECK_INT(pt->kind, LB_PT_NONE);
		CHECK_INT(lb_crc32(0, "123456789", 9), 0xcbf43926);
	}
	free(pt);
	return t_done();
}
