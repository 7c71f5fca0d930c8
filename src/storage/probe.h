/*
 * Superblock and partition table probes: pure functions on byte buffers
 * (the first bytes of a block device), no I/O. Every offset is checked
 * against the buffer length; a buffer that is too short for a structure
 * means "not this format" (-ENOENT), never a read past its end.
 */
#ifndef LB_PROBE_H
#define LB_PROBE_H

#include <stddef.h>
#include <stdint.h>

/* How many bytes of a device the filesystem probes look at (iso9660's
 * primary volume descriptor ends at 34 KiB, btrfs's superblock is at
 * 64 KiB and 4 KiB long). */
#define LB_PROBE_BYTES (68u * 1024)

/* lb_probe_fs flags */
#define LB_PROBE_DIRTY       0x1 /* ext3/4 journal needs recovery */
#define LB_PROBE_UNSUPPORTED 0x2 /* unknown incompat features: will not mount */
#define LB_PROBE_NOMOUNT     0x4 /* recognised but not a mountable fs (ext journal device) */
#define LB_PROBE_MULTIDEV    0x8 /* btrfs spanning several devices (num_devices) */

struct lb_probe {
	char type[16];   /* "ext2" "ext3" "ext4" "vfat" "iso9660" "jbd" "xfs" "btrfs" */
	char uuid[48];   /* as blkid/GRUB print it; "" when none */
	char label[112]; /* UTF-8 (non-ASCII bytes of 8-bit labels become '?'); "" when none */
	unsigned flags;  /* LB_PROBE_* */
	unsigned fat_bits; /* vfat: 12, 16 or 32 */
	unsigned num_devices; /* btrfs, xfs: devices of the filesystem; 0 for the others */
	char dev_uuid[37]; /* btrfs: this device's UUID (blkid UUID_SUB) */
};

/* Identify the filesystem at the start of buf. Returns 0 and fills *out, or
 * -ENOENT (no known filesystem), -EINVAL (bad arguments). */
int lb_probe_fs(const uint8_t *buf, size_t len, struct lb_probe *out);
/* The individual probes, same contract. */
int lb_probe_ext(const uint8_t *buf, size_t len, struct lb_probe *out);
int lb_probe_vfat(const uint8_t *buf, size_t len, struct lb_probe *out);
int lb_probe_iso9660(const uint8_t *buf, size_t len, struct lb_probe *out);
/* XFS: the superblock at 0 (v4 and v5). The superblock cannot say whether
 * the log is clean (that is in the log): the mount finds out. Unknown v5
 * incompat features or mkfs still in progress: LB_PROBE_UNSUPPORTED. */
int lb_probe_xfs(const uint8_t *buf, size_t len, struct lb_probe *out);
/* btrfs: the primary superblock at 64 KiB (its CRC32C checked), fsid as
 * UUID, label; LB_PROBE_MULTIDEV when num_devices > 1. */
int lb_probe_btrfs(const uint8_t *buf, size_t len, struct lb_probe *out);

/*
 * MD RAID member superblocks: 0.90 (at the last 64 KiB-aligned 64 KiB of
 * the device), 1.0 (8 KiB from the end, 4 KiB aligned), 1.1 (at 0) and 1.2
 * (at 4 KiB), little-endian (0.90 as written on x86). Checksums checked.
 */
#define LB_MD_SB_BYTES 4096
#define LB_MD_ROLE_SPARE  (-1)
#define LB_MD_ROLE_FAULTY (-2)
#define LB_MD_ROLE_OTHER  (-3) /* journal, replacement, ... */

struct lb_md {
	unsigned major, minor;  /* 0.90: 0, 90; 1.x: 1, 0/1/2 */
	char uuid[37];          /* array UUID as blkid prints it */
	char name[33];          /* 1.x set_name ("host:boot"); "" for 0.90 */
	int level;              /* 1 = RAID1 (0 raid0, -1 linear, ...) */
	unsigned raid_disks;
	int role;               /* this member's slot, or LB_MD_ROLE_* */
	unsigned dev_number;    /* this member's descriptor number */
	uint64_t events;
	uint64_t sb_offset;     /* bytes from the start of the member */
	uint64_t data_offset;   /* sectors */
	uint64_t data_size;     /* sectors of array data on this member */
	unsigned md_minor;      /* 0.90: preferred minor (md<N>) */
	int clean;              /* the array was stopped cleanly */
};

/* The byte offsets where a member of dev_bytes may hold a superblock, in
 * the order they are tried (1.2, 1.1, 1.0, 0.90); returns how many (<= 4;
 * a device too small for one has fewer). */
size_t lb_md_sb_offsets(uint64_t dev_bytes, uint64_t off[4]);
/* Parse the superblock read from byte offset sb_off of a member of
 * dev_bytes (buf: len bytes from sb_off). The version must be the one that
 * lives at that offset. Returns 0, -ENOENT (none there), -EBADMSG (magic
 * but bad checksum or fields), -EINVAL. */
int lb_probe_md(const uint8_t *buf, size_t len, uint64_t sb_off,
		uint64_t dev_bytes, struct lb_md *out);

enum lb_pt_kind { LB_PT_NONE = 0, LB_PT_MBR, LB_PT_GPT };

#define LB_PT_MAX 128 /* partitions reported at most */

struct lb_part {
	unsigned num;         /* Linux/GRUB partition number (1-based) */
	uint64_t start, size; /* in sectors of the table's sector size */
	uint8_t mbr_type;     /* MBR: partition type byte */
	uint64_t attrs;       /* GPT: attribute bits */
	char type_guid[37];   /* GPT: lower-case GUID */
	char uuid[37];        /* partition UUID: GPT unique GUID, MBR "xxxxxxxx-NN" */
	char name[112];       /* GPT: UTF-8 partition name */
};

struct lb_ptable {
	enum lb_pt_kind kind;
	unsigned sector;      /* sector size used */
	char disk_uuid[37];   /* GPT disk GUID, MBR signature "xxxxxxxx" */
	size_t n;
	struct lb_part v[LB_PT_MAX];
};

/*
 * Parse the partition table at the start of a disk (buf holds its first
 * len bytes; sector is the logical block size, 512..65536, power of 2).
 * GPT when the MBR is protective (type 0xEE) and the primary header at
 * LBA 1 is valid (signature, sizes, header and entry array CRC32); the entry
 * array must lie inside buf. MBR otherwise: the 4 primary entries and, for an
 * extended partition, the chain of logical ones as far as it lies inside
 * buf (at most LB_PT_MAX). Returns 0 (kind LB_PT_NONE when there is no
 * table), -EINVAL (bad arguments), -ERANGE (a GPT whose entry array is not
 * inside buf: read more of the disk), -EBADMSG (GPT header or entries
 * corrupt).
 */
int lb_probe_ptable(const uint8_t *buf, size_t len, unsigned sector,
		    struct lb_ptable *out);
/* Bytes of the disk needed to parse its GPT (header + entry array), from
 * the header alone; 0 when buf holds no GPT header. Capped at 16 MiB. */
size_t lb_probe_gpt_need(const uint8_t *buf, size_t len, unsigned sector);

/*
 * The backup GPT, for a disk whose primary one is damaged: hdr holds the
 * disk's last logical block (number last_lba). lb_probe_gpt_backup_loc
 * checks that header and says where its entry array is (LBA and bytes);
 * lb_probe_gpt_backup then parses header + array (ents: elen bytes read
 * from ents_lba). Same returns as lb_probe_ptable (-ENOENT: no header).
 */
int lb_probe_gpt_backup_loc(const uint8_t *hdr, size_t hlen, unsigned sector,
			    uint64_t last_lba, uint64_t *ents_lba, size_t *ents_len);
int lb_probe_gpt_backup(const uint8_t *hdr, size_t hlen, unsigned sector,
			uint64_t last_lba, const uint8_t *ents, size_t elen,
			struct lb_ptable *out);

/* The partition of a table with a given number, or NULL. */
const struct lb_part *lb_ptable_find(const struct lb_ptable *pt, unsigned num);

#endif
