/* XFS, btrfs and MD superblock probes against what the real tools wrote:
 * mkfs.xfs 6.1 (v5 and v4), mkfs.btrfs 6.2 (one device; two-device
 * RAID1), mdadm 4.2 --create (0.90, 1.0, 1.1, 1.2 RAID1 on 20 MiB members,
 * in a QEMU guest). Expected values: what blkid -p and mdadm --examine
 * printed for the same images. Fixtures: fuzz/corpus/probe/{xfs,btrfs,md}*. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "le.h"
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

#define MEMBER (20u << 20) /* the members' size */

static const struct {
	const char *file, *uuid, *name;
	unsigned major, minor;
	int role;
	uint64_t events, sb_off, data_off, data_size;
} md_cases[] = {
	{ "md-0.90-a.sb", "91ab4e9f-5fa0-73b5-f419-c74ed47dbd02", "", 0, 90, 0, 1,
	  20905984, 0, 40832 },
	{ "md-0.90-b.sb", "91ab4e9f-5fa0-73b5-f419-c74ed47dbd02", "", 0, 90, 1, 1,
	  20905984, 0, 40832 },
	{ "md-1.0-a.sb", "9ab973cd-de8b-fb2a-6cb8-2ff773ef4158", "lboot:boot", 1, 0, 0, 0,
	  20963328, 0, 40928 },
	{ "md-1.1-a.sb", "7f86ea37-fe96-7b13-3094-a2b841c41244", "lboot:2", 1, 1, 0, 0,
	  0, 2048, 38912 },
	{ "md-1.2-a.sb", "5983f40a-7294-1a2f-2f43-20fb1493ccd0", "lboot:root", 1, 2, 0, 0,
	  4096, 2048, 38912 },
	{ "md-1.2-b.sb", "5983f40a-7294-1a2f-2f43-20fb1493ccd0", "lboot:root", 1, 2, 1, 0,
	  4096, 2048, 38912 },
};

int main(void)
{
	struct lb_probe p;
	struct lb_md m;
	uint8_t *b;
	size_t n;

	TEST("xfs v5 (mkfs.xfs -L RHELBOOT -m uuid=...)") {
		b = load("xfs.img", &n);
		CHECK(b != NULL);
		if (!b)
			continue;
		CHECK_INT(lb_probe_fs(b, n, &p), 0);
		CHECK_STR(p.type, "xfs");
		CHECK_STR(p.uuid, "5f0c3a2e-9b1d-4e7a-8c6f-2d4b1a0e9c37");
		CHECK_STR(p.label, "RHELBOOT");
		CHECK_INT(p.flags, 0);
		CHECK_INT(lb_probe_xfs(b, 512, &p), 0);
		CHECK_INT(lb_probe_xfs(b, 511, &p), -ENOENT);
		b[216 + 3] |= 0x40; /* unknown incompat feature */
		CHECK_INT(lb_probe_xfs(b, n, &p), 0);
		CHECK_INT(p.flags, LB_PROBE_UNSUPPORTED);
		b[216 + 3] &= ~0x40;
		b[126] = 1; /* sb_inprogress */
		CHECK_INT(lb_probe_xfs(b, n, &p), 0);
		CHECK_INT(p.flags, LB_PROBE_UNSUPPORTED);
		b[126] = 0;
		b[4] ^= 0x01; /* block size not a power of 2 */
		CHECK_INT(lb_probe_fs(b, n, &p), -ENOENT);
		free(b);
	}

	TEST("xfs v4") {
		b = load("xfs-v4.img", &n);
		CHECK(b != NULL);
		if (!b)
			continue;
		CHECK_INT(lb_probe_fs(b, n, &p), 0);
		CHECK_STR(p.type, "xfs");
		CHECK_STR(p.uuid, "9c6f8ec6-6155-4e32-8b2a-8a579dbdd17c");
		CHECK_STR(p.label, "OLDXFS");
		CHECK_INT(p.flags, 0);
		free(b);
	}

	TEST("btrfs, one device") {
		b = load("btrfs.img", &n);
		CHECK(b != NULL);
		if (!b)
			continue;
		CHECK_INT(lb_probe_fs(b, n, &p), 0);
		CHECK_STR(p.type, "btrfs");
		CHECK_STR(p.uuid, "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d");
		CHECK_STR(p.dev_uuid, "80eaa6c2-0a9c-4a7b-8d27-58c0b4016c7c");
		CHECK_STR(p.label, "SUSEROOT");
		CHECK_INT(p.num_devices, 1);
		CHECK_INT(p.flags, 0);
		/* the superblock ends 4 KiB after 64 KiB */
		CHECK_INT(lb_probe_btrfs(b, 65536 + 4096, &p), 0);
		CHECK_INT(lb_probe_btrfs(b, 65536 + 4095, &p), -ENOENT);
		b[65536 + 299] ^= 1; /* label byte: CRC32C no longer matches */
		CHECK_INT(lb_probe_btrfs(b, n, &p), -ENOENT);
		free(b);
	}

	TEST("btrfs, second device of a two-device RAID1") {
		b = load("btrfs-raid1-dev2.img", &n);
		CHECK(b != NULL);
		if (!b)
			continue;
		CHECK_INT(lb_probe_fs(b, n, &p), 0);
		CHECK_STR(p.uuid, "3ad100c2-e5a6-44b7-bbeb-622fade8e4fe");
		CHECK_STR(p.dev_uuid, "300663e4-6519-4377-a1ab-38bba47d4390");
		CHECK_STR(p.label, "TWODEV");
		CHECK_INT(p.num_devices, 2);
		CHECK_INT(p.flags, LB_PROBE_MULTIDEV);
		free(b);
	}

	TEST("md superblock locations") {
		uint64_t off[4];
		CHECK_INT(lb_md_sb_offsets(MEMBER, off), 4);
		CHECK_INT(off[0], 4096);
		CHECK_INT(off[1], 0);
		CHECK_INT(off[2], 20963328);
		CHECK_INT(off[3], 20905984);
		CHECK_INT(lb_md_sb_offsets(4096, off), 0);
	}

	for (size_t i = 0; i < sizeof(md_cases) / sizeof(md_cases[0]); i++) {
		TEST(md_cases[i].file) {
			b = load(md_cases[i].file, &n);
			CHECK(b != NULL);
			if (!b)
				continue;
			memset(&m, 0x55, sizeof(m));
			CHECK_INT(lb_probe_md(b, n, md_cases[i].sb_off, MEMBER, &m), 0);
			CHECK_STR(m.uuid, md_cases[i].uuid);
			CHECK_STR(m.name, md_cases[i].name);
			CHECK_INT(m.major, md_cases[i].major);
			CHECK_INT(m.minor, md_cases[i].minor);
			CHECK_INT(m.level, 1);
			CHECK_INT(m.raid_disks, 2);
			CHECK_INT(m.role, md_cases[i].role);
			CHECK_INT(m.events, md_cases[i].events);
			CHECK_INT(m.data_offset, md_cases[i].data_off);
			CHECK_INT(m.data_size, md_cases[i].data_size);
			CHECK_INT(m.sb_offset, md_cases[i].sb_off);
			CHECK(m.clean);
			/* the version must be the one that lives there */
			CHECK_INT(lb_probe_md(b, n, md_cases[i].sb_off + 4096, MEMBER, &m) < 0, 1);
			/* a changed byte breaks the checksum */
			b[72] ^= 0x10;
			CHECK_INT(lb_probe_md(b, n, md_cases[i].sb_off, MEMBER, &m), -EBADMSG);
			b[72] ^= 0x10;
			/* too short for the superblock (1.x: its roles) */
			CHECK_INT(lb_probe_md(b, 200, md_cases[i].sb_off, MEMBER, &m) < 0, 1);
			/* not a superblock */
			b[0] ^= 1;
			CHECK_INT(lb_probe_md(b, n, md_cases[i].sb_off, MEMBER, &m), -ENOENT);
			free(b);
		}
	}

	TEST("md 1.2: spare, faulty, and data outside the member") {
		b = load("md-1.2-a.sb", &n);
		CHECK(b != NULL);
		if (!b)
			continue;
		/* recompute the checksum after each change, as md does */
		uint32_t maxdev = le32(b + 220);
		for (int k = 0; k < 3; k++) {
			uint16_t role = k == 0 ? 0xffff : k == 1 ? 0xfffe : 0;
			uint64_t dsize = k == 2 ? 1ull << 40 : 38912;
			uint64_t sum = 0;

			put_le16(b + 256, role);
			put_le64(b + 136, dsize);
			put_le32(b + 216, 0);
			for (size_t o = 0; o + 4 <= 256 + maxdev * 2; o += 4)
				sum += le32(b + o);
			put_le32(b + 216, (uint32_t)((sum & 0xffffffff) + (sum >> 32)));
			int r = lb_probe_md(b, n, 4096, MEMBER, &m);
			if (k == 0) {
				CHECK_INT(r, 0);
				CHECK_INT(m.role, LB_MD_ROLE_SPARE);
			} else if (k == 1) {
				CHECK_INT(r, 0);
				CHECK_INT(m.role, LB_MD_ROLE_FAULTY);
			} else {
				CHECK_INT(r, -EBADMSG);
			}
		}
		free(b);
	}

	TEST("a member is not mistaken for a filesystem by lb_probe_fs") {
		b = load("md-1.2-a.sb", &n);
		CHECK(b != NULL);
		if (b)
			CHECK_INT(lb_probe_fs(b, n, &p), -ENOENT);
		free(b);
	}
	return t_done();
}
