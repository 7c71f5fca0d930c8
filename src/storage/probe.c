/* Superblock and partition table probes on byte buffers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "crc32.h"
#include "le.h"
#include "probe.h"

static int have(size_t len, size_t off, size_t n)
{
	return off <= len && n <= len - off;
}

static int is_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Copy an 8-bit, space/NUL padded label: trailing spaces and NULs cut,
 * control and non-ASCII bytes made '?'. */
static void label8(char *dst, size_t dstsz, const uint8_t *src, size_t n)
{
	size_t o = 0, end = 0;

	for (size_t i = 0; i < n && src[i]; i++)
		end = i + 1;
	while (end > 0 && src[end - 1] == ' ')
		end--;
	for (size_t i = 0; i < end && o + 1 < dstsz; i++)
		dst[o++] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[o] = 0;
}

static void put_utf8(char *dst, size_t dstsz, size_t *o, uint32_t c)
{
	uint8_t b[4];
	size_t n;

	if (c < 0x80) {
		b[0] = (uint8_t)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (uint8_t)(0xc0 | (c >> 6));
		b[1] = (uint8_t)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (uint8_t)(0xe0 | (c >> 12));
		b[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (uint8_t)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		b[0] = (uint8_t)(0xf0 | (c >> 18));
		b[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
		b[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
		b[3] = (uint8_t)(0x80 | (c & 0x3f));
		n = 4;
	}
	if (*o + n + 1 > dstsz)
		return;
	memcpy(dst + *o, b, n);
	*o += n;
}

/* UTF-16LE (n code units, NUL terminated early) to UTF-8; unpaired
 * surrogates and control characters become U+FFFD / '?'. */
static void utf16le(char *dst, size_t dstsz, const uint8_t *src, size_t n)
{
	size_t o = 0;

	dst[0] = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = le16(src + 2 * i);

		if (!c)
			break;
		if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
			uint32_t d = le16(src + 2 * (i + 1));
			if (d >= 0xdc00 && d < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
				i++;
			} else {
				c = 0xfffd;
			}
		} else if (c >= 0xd800 && c < 0xe000) {
			c = 0xfffd;
		} else if (c < 0x20 || c == 0x7f) {
			c = '?';
		}
		put_utf8(dst, dstsz, &o, c);
	}
	dst[o] = 0;
}

/* GUID in its mixed-endian on-disk form to lower-case text. */
static void guid_str(char out[37], const uint8_t *g)
{
	snprintf(out, 37,
		 "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 le32(g), le16(g + 4), le16(g + 6), g[8], g[9], g[10], g[11],
		 g[12], g[13], g[14], g[15]);
}

/* A UUID stored as 16 bytes in text order (ext's s_uuid). */
static void uuid_str(char out[37], const uint8_t *u)
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* --- ext2/3/4 ------------------------------------------------------------ */

#define EXT_SB 1024
#define EXT_MAGIC 0xef53
#define EXT_COMPAT_HAS_JOURNAL 0x0004
#define EXT_INCOMPAT_RECOVER 0x0004
#define EXT_INCOMPAT_JOURNAL_DEV 0x0008
/* incompat features the Linux ext4 driver knows (through 6.x):
 * compression 0x1 is not supported, the rest are */
#define EXT_INCOMPAT_KNOWN 0x3f7feu
/* features that only ext4 has */
#define EXT4_INCOMPAT_ONLY (0x0040 | 0x0080 | 0x0200 | 0x0400 | 0x1000 | \
			    0x2000 | 0x8000 | 0x10000 | 0x20000)
#define EXT4_RO_ONLY (0x0008 | 0x0010 | 0x0020 | 0x0040 | 0x0100 | 0x0200 | \
		      0x0400 | 0x1000 | 0x2000 | 0x8000)

int lb_probe_ext(const uint8_t *buf, size_t len, struct lb_probe *out)
{
	const uint8_t *sb;
	uint32_t compat, incompat, ro, log_bs, rev;
	struct lb_probe p;

	if (!buf || !out)
		return -EINVAL;
	if (!have(len, EXT_SB, 1024))
		return -ENOENT;
	sb = buf + EXT_SB;
	if (le16(sb + 0x38) != EXT_MAGIC)
		return -ENOENT;
	log_bs = le32(sb + 0x18);
	rev = le32(sb + 0x4c);
	/* sanity: 1 KiB..64 KiB blocks, non-empty, known revision */
	if (log_bs > 6 || rev > 1 || !le32(sb + 0x00) || !le32(sb + 0x20) ||
	    !le32(sb + 0x28))
		return -ENOENT;
	compat = rev ? le32(sb + 0x5c) : 0;
	incompat = rev ? le32(sb + 0x60) : 0;
	ro = rev ? le32(sb + 0x64) : 0;
	memset(&p, 0, sizeof(p));
	if (incompat & EXT_INCOMPAT_JOURNAL_DEV) {
		strcpy(p.type, "jbd");
		p.flags |= LB_PROBE_NOMOUNT;
	} else if ((incompat & EXT4_INCOMPAT_ONLY) || (ro & EXT4_RO_ONLY)) {
		strcpy(p.type, "ext4");
	} else if (compat & EXT_COMPAT_HAS_JOURNAL) {
		strcpy(p.type, "ext3");
	} else {
		strcpy(p.type, "ext2");
	}
	if (incompat & ~EXT_INCOMPAT_KNOWN)
		p.flags |= LB_PROBE_UNSUPPORTED;
	if (incompat & EXT_INCOMPAT_RECOVER)
		p.flags |= LB_PROBE_DIRTY;
	if (!is_zero(sb + 0x68, 16))
		uuid_str(p.uuid, sb + 0x68);
	label8(p.label, sizeof(p.label), sb + 0x78, 16);
	*out = p;
	return 0;
}

/* --- FAT12/16/32 ----------------------------------------------------------- */

static int pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int lb_probe_vfat(const uint8_t *buf, size_t len, struct lb_probe *out)
{
	uint32_t bps, spc, rsvd, nfats, rootents, tot, fatsz, rootsecs, data,
		 clusters;
	const uint8_t *ext;
	struct lb_probe p;

	if (!buf || !out)
		return -EINVAL;
	if (!have(len, 0, 512))
		return -ENOENT;
	if (!(buf[0] == 0xeb && buf[2] == 0x90) && buf[0] != 0xe9)
		return -ENOENT;
	bps = le16(buf + 11);
	spc = buf[13];
	rsvd = le16(buf + 14);
	nfats = buf[16];
	rootents = le16(buf + 17);
	tot = le16(buf + 19) ? le16(buf + 19) : le32(buf + 32);
	fatsz = le16(buf + 22) ? le16(buf + 22) : le32(buf + 36);
	if (!pow2(bps) || bps < 512 || bps > 4096 || !pow2(spc) || !rsvd ||
	    !nfats || nfats > 4 || !tot || !fatsz)
		return -ENOENT;
	if (buf[21] != 0xf0 && buf[21] < 0xf8)
		return -ENOENT;
	rootsecs = (rootents * 32 + bps - 1) / bps;
	/* all in 64 bits would be cleaner; these bounds keep 32 bits safe:
	 * rsvd < 2^16, nfats*fatsz < 2^34 -> check */
	if ((uint64_t)rsvd + (uint64_t)nfats * fatsz + rootsecs >= tot)
		return -ENOENT;
	data = tot - (rsvd + nfats * fatsz + rootsecs);
	clusters = data / spc;

	memset(&p, 0, sizeof(p));
	strcpy(p.type, "vfat");
	if (!le16(buf + 22)) {
		/* FAT32: no fixed root directory, extended BPB at 64 */
		if (rootents)
			return -ENOENT;
		p.fat_bits = 32;
		ext = buf + 64;
	} else {
		p.fat_bits = clusters < 4085 ? 12 : 16;
		ext = buf + 36;
	}
	if (ext[2] == 0x29 || ext[2] == 0x28) {
		uint32_t id = le32(ext + 3);
		snprintf(p.uuid, sizeof(p.uuid), "%04X-%04X",
			 (unsigned)(id >> 16), (unsigned)(id & 0xffff));
		if (ext[2] == 0x29) {
			label8(p.label, sizeof(p.label), ext + 7, 11);
			if (!strcmp(p.label, "NO NAME"))
				p.label[0] = 0;
		}
	}
	*out = p;
	return 0;
}

/* --- ISO 9660 ----------------------------------------------------------------- */

#define ISO_PVD (16 * 2048)

/* "YYYYMMDDHHMMSSCC" all digits and not all zero */
static int iso_date_ok(const uint8_t *d)
{
	int nonzero = 0;

	for (int i = 0; i < 16; i++) {
		if (d[i] < '0' || d[i] > '9')
			return 0;
		if (d[i] != '0')
			nonzero = 1;
	}
	return nonzero;
}

int lb_probe_iso9660(const uint8_t *buf, size_t len, struct lb_probe *out)
{
	const uint8_t *pvd, *date = NULL;
	struct lb_probe p;

	if (!buf || !out)
		return -EINVAL;
	if (!have(len, ISO_PVD, 2048))
		return -ENOENT;
	pvd = buf + ISO_PVD;
	if (pvd[0] != 1 || memcmp(pvd + 1, "CD001", 5) || pvd[6] != 1)
		return -ENOENT;
	memset(&p, 0, sizeof(p));
	strcpy(p.type, "iso9660");
	label8(p.label, sizeof(p.label), pvd + 40, 32);
	/* GRUB and blkid build the UUID from the modification date, and
	 * fall back to the creation date when it is unset */
	if (iso_date_ok(pvd + 830))
		date = pvd + 830;
	else if (iso_date_ok(pvd + 813))
		date = pvd + 813;
	if (date)
		snprintf(p.uuid, sizeof(p.uuid),
			 "%.4s-%.2s-%.2s-%.2s-%.2s-%.2s-%.2s", (const char *)date,
			 (const char *)date + 4, (const char *)date + 6,
			 (const char *)date + 8, (const char *)date + 10,
			 (const char *)date + 12, (const char *)date + 14);
	*out = p;
	return 0;
}


/* --- XFS ------------------------------------------------------------------------ */

#define XFS_VERSION_NUMBITS 0x000f
/* v5 incompat features Linux 6.1 knows: ftype, sparse inodes, meta_uuid,
 * bigtime, needsrepair, nrext64 */
#define XFS_INCOMPAT_KNOWN 0x3fu
#define XFS_INCOMPAT_NEEDSREPAIR 0x10u

int lb_probe_xfs(const uint8_t *buf, size_t len, struct lb_probe *out)
{
	uint32_t bsize, ver;
	uint16_t ssize, isize;
	struct lb_probe p;

	if (!buf || !out)
		return -EINVAL;
	if (!have(len, 0, 512) || memcmp(buf, "XFSB", 4))
		return -ENOENT;
	bsize = be32(buf + 4);
	ssize = be16(buf + 102);
	isize = be16(buf + 104);
	ver = be16(buf + 100) & XFS_VERSION_NUMBITS;
	/* as blkid's sanity checks: sizes powers of two in range, agcount set */
	if (!pow2(bsize) || bsize < 512 || bsize > 65536 || !pow2(ssize) ||
	    ssize < 512 || ssize > 32768 || !pow2(isize) || isize < 256 ||
	    isize > 2048 || !be64(buf + 8) || !be32(buf + 88) || !be32(buf + 84) ||
	    ver < 4 || ver > 5 || buf[120] > 16 || (1u << buf[120]) != bsize)
		return -ENOENT;
	memset(&p, 0, sizeof(p));
	strcpy(p.type, "xfs");
	p.num_devices = 1;
	if (!is_zero(buf + 32, 16))
		uuid_str(p.uuid, buf + 32);
	label8(p.label, sizeof(p.label), buf + 108, 12);
	if (buf[126]) /* sb_inprogress: mkfs did not finish */
		p.flags |= LB_PROBE_UNSUPPORTED;
	if (ver == 5 && (be32(buf + 216) & (~XFS_INCOMPAT_KNOWN | XFS_INCOMPAT_NEEDSREPAIR)))
		p.flags |= LB_PROBE_UNSUPPORTED;
	*out = p;
	return 0;
}

/* --- btrfs ---------------------------------------------------------------------- */

#define BTRFS_SB_OFF (64u * 1024)
#define BTRFS_SB_SIZE 4096u

/* CRC-32C (Castagnoli), bitwise: only the 4 KiB superblock goes through it */
static uint32_t crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return ~crc;
}

int lb_probe_btrfs(const uint8_t *buf, size_t len, struct lb_probe *out)
{
	const uint8_t *sb;
	uint32_t sectorsize, nodesize;
	uint64_t ndev;
	struct lb_probe p;

	if (!buf || !out)
		return -EINVAL;
	if (!have(len, BTRFS_SB_OFF, BTRFS_SB_SIZE))
		return -ENOENT;
	sb = buf + BTRFS_SB_OFF;
	if (memcmp(sb + 64, "_BHRfS_M", 8) || le64(sb + 48) != BTRFS_SB_OFF)
		return -ENOENT;
	sectorsize = le32(sb + 144);
	nodesize = le32(sb + 148);
	ndev = le64(sb + 136);
	if (!pow2(sectorsize) || sectorsize < 4096 || sectorsize > 65536 ||
	    !pow2(nodesize) || nodesize < sectorsize || nodesize > 65536 || !ndev ||
	    ndev > 65536)
		return -ENOENT;
	/* csum_type 0 is CRC32C; the others (xxhash, sha256, blake2b) are
	 * left to the kernel */
	if (le16(sb + 196) == 0 &&
	    crc32c(0, sb + 32, BTRFS_SB_SIZE - 32) != le32(sb))
		return -ENOENT;
	memset(&p, 0, sizeof(p));
	strcpy(p.type, "btrfs");
	p.num_devices = (unsigned)ndev;
	if (ndev > 1)
		p.flags |= LB_PROBE_MULTIDEV;
	uuid_str(p.uuid, sb + 32);
	uuid_str(p.dev_uuid, sb + 267);
	{
		/* label: NUL-terminated UTF-8, 256 bytes; kept as bytes, control
		 * characters made '?' */
		size_t o = 0;
		for (size_t i = 0; i < 255 && sb[299 + i] && o + 1 < sizeof(p.label); i++)
			p.label[o++] = sb[299 + i] < 0x20 || sb[299 + i] == 0x7f ? '?' :
				       (char)sb[299 + i];
		p.label[o] = 0;
	}
	*out = p;
	return 0;
}

/* --- MD RAID superblocks --------------------------------------------------------- */

#define MD_MAGIC 0xa92b4efcu
#define MD_RESERVED_BYTES (64u * 1024)

size_t lb_md_sb_offsets(uint64_t dev_bytes, uint64_t off[4])
{
	size_t n = 0;

	if (dev_bytes >= 8192 + LB_MD_SB_BYTES)
		off[n++] = 4096; /* 1.2 */
	if (dev_bytes >= 2 * LB_MD_SB_BYTES)
		off[n++] = 0;    /* 1.1 */
	if (dev_bytes >= 16384)
		off[n++] = (dev_bytes - 8192) & ~(uint64_t)4095; /* 1.0 */
	if (dev_bytes >= 2 * MD_RESERVED_BYTES)
		off[n++] = (dev_bytes & ~(uint64_t)(MD_RESERVED_BYTES - 1)) -
			   MD_RESERVED_BYTES; /* 0.90 */
	return n;
}

static int md090(const uint8_t *b, size_t len, uint64_t sb_off,
		 uint64_t dev_bytes, struct lb_md *m)
{
	uint64_t sum = 0;
	uint32_t csum, state;
	const uint8_t *me;
	uint8_t u[16];

	if (!have(len, 0, LB_MD_SB_BYTES))
		return -ENOENT;
	if (dev_bytes < 2 * MD_RESERVED_BYTES ||
	    sb_off != (dev_bytes & ~(uint64_t)(MD_RESERVED_BYTES - 1)) - MD_RESERVED_BYTES)
		return -ENOENT;
	for (size_t i = 0; i < LB_MD_SB_BYTES; i += 4)
		sum += i == 152 ? 0 : le32(b + i);
	csum = (uint32_t)((sum & 0xffffffffu) + (sum >> 32));
	if (csum != le32(b + 152))
		return -EBADMSG;
	m->major = 0;
	m->minor = 90;
	/* blkid shows each of the four UUID words as the big-endian bytes of
	 * its value (what mdadm prints as %08x:%08x:%08x:%08x) */
	for (int i = 0; i < 4; i++) {
		uint32_t w = le32(b + (i ? 48 + 4 * i : 20));
		u[4 * i] = (uint8_t)(w >> 24);
		u[4 * i + 1] = (uint8_t)(w >> 16);
		u[4 * i + 2] = (uint8_t)(w >> 8);
		u[4 * i + 3] = (uint8_t)w;
	}
	uuid_str(m->uuid, u);
	m->level = (int)le32(b + 28);
	m->raid_disks = le32(b + 40);
	m->md_minor = le32(b + 44);
	m->events = (uint64_t)le32(b + 160) << 32 | le32(b + 156);
	state = le32(b + 132);
	m->clean = state & 1;
	m->sb_offset = sb_off;
	m->data_offset = 0;
	m->data_size = (uint64_t)le32(b + 32) * 2; /* KiB */
	/* this_disk: the descriptor at word 992 */
	me = b + 992 * 4;
	m->dev_number = le32(me);
	{
		uint32_t ds = le32(me + 16), slot = le32(me + 12);
		if (ds & 1)
			m->role = LB_MD_ROLE_FAULTY;
		else if ((ds & 6) == 6 && slot < m->raid_disks)
			m->role = (int)slot;
		else
			m->role = LB_MD_ROLE_SPARE;
	}
	if (!m->raid_disks || m->raid_disks > 27 || m->data_size > sb_off / 512)
		return -EBADMSG;
	return 0;
}

static int md1(const uint8_t *b, size_t len, uint64_t sb_off,
	       uint64_t dev_bytes, struct lb_md *m)
{
	uint32_t max_dev, dn;
	uint64_t sum = 0, end;
	size_t size;
	uint32_t csum;
	uint16_t role;

	if (!have(len, 0, 256) || le32(b + 4) != 1)
		return -ENOENT;
	if (sb_off == 4096)
		m->minor = 2;
	else if (sb_off == 0)
		m->minor = 1;
	else if (dev_bytes >= 16384 && sb_off == ((dev_bytes - 8192) & ~(uint64_t)4095))
		m->minor = 0;
	else
		return -ENOENT;
	max_dev = le32(b + 220);
	if (max_dev > (LB_MD_SB_BYTES - 256) / 2)
		return -EBADMSG;
	size = 256 + (size_t)max_dev * 2;
	if (!have(len, 0, size))
		return -EBADMSG;
	for (size_t i = 0; i + 4 <= size; i += 4)
		sum += i == 216 ? 0 : le32(b + i);
	if (size & 2)
		sum += le16(b + size - 2);
	csum = (uint32_t)((sum & 0xffffffffu) + (sum >> 32));
	if (csum != le32(b + 216))
		return -EBADMSG;
	if (le64(b + 144) * 512 != sb_off)
		return -EBADMSG;
	m->major = 1;
	uuid_str(m->uuid, b + 16);
	label8(m->name, sizeof(m->name), b + 32, 32);
	m->level = (int)le32(b + 72);
	m->raid_disks = le32(b + 92);
	m->events = le64(b + 200);
	m->clean = le64(b + 208) == UINT64_MAX; /* resync_offset MaxSector */
	m->sb_offset = sb_off;
	m->data_offset = le64(b + 128);
	m->data_size = le64(b + 136);
	dn = le32(b + 160);
	m->dev_number = dn;
	role = dn < max_dev ? le16(b + 256 + 2 * dn) : 0xffff;
	m->role = role == 0xffff ? LB_MD_ROLE_SPARE :
		  role == 0xfffe ? LB_MD_ROLE_FAULTY :
		  role >= 0xff00 ? LB_MD_ROLE_OTHER : (int)role;
	/* the data must lie on the device, clear of a superblock at its end */
	end = m->data_offset + m->data_size;
	if (!m->raid_disks || m->raid_disks > 384 || end < m->data_offset ||
	    end > dev_bytes / 512 || (m->minor != 0 && m->data_offset * 512 <= sb_off) ||
	    (m->minor == 0 && end * 512 > sb_off))
		return -EBADMSG;
	return 0;
}

int lb_probe_md(const uint8_t *buf, size_t len, uint64_t sb_off,
		uint64_t dev_bytes, struct lb_md *out)
{
	struct lb_md m;
	int r;

	if (!buf || !out)
		return -EINVAL;
	if (!have(len, 0, 12) || le32(buf) != MD_MAGIC)
		return -ENOENT;
	memset(&m, 0, sizeof(m));
	if (le32(buf + 4) == 0 && le32(buf + 8) == 90)
		r = md090(buf, len, sb_off, dev_bytes, &m);
	else
		r = md1(buf, len, sb_off, dev_bytes, &m);
	if (!r)
		*out = m;
	return r;
}

int lb_probe_fs(const uint8_t *buf, size_t len, struct lb_probe *out)
{
	int r;

	if (!buf || !out)
		return -EINVAL;
	/* iso9660 first: an ISO's system area may hold anything, even a FAT
	 * boot sector (El Torito images) */
	if (!(r = lb_probe_iso9660(buf, len, out)))
		return 0;
	if (!(r = lb_probe_ext(buf, len, out)))
		return 0;
	if (!(r = lb_probe_xfs(buf, len, out)))
		return 0;
	if (!(r = lb_probe_btrfs(buf, len, out)))
		return 0;
	if (!(r = lb_probe_vfat(buf, len, out)))
		return 0;
	return -ENOENT;
}

/* --- partition tables ------------------------------------------------------- */

#define GPT_SIG "EFI PART"
#define GPT_MAX_ENTRIES_BYTES (16u << 20)

struct gpt_hdr {
	uint64_t entries_lba;
	uint32_t n_entries, entry_size;
	uint64_t first_usable, last_usable;
	const uint8_t *h;
};

/* Check a GPT header (h: hlen bytes) that says it lives at my_lba. */
static int gpt_header_at(const uint8_t *h, size_t hlen, unsigned sector,
			 uint64_t my_lba, struct gpt_hdr *g)
{
	uint32_t hsize, crc;
	uint8_t tmp[512];

	if (hlen < 92 || memcmp(h, GPT_SIG, 8))
		return -ENOENT;
	hsize = le32(h + 12);
	if (hsize < 92 || hsize > sector || hsize > sizeof(tmp) || hsize > hlen)
		return -EBADMSG;
	memcpy(tmp, h, hsize);
	memset(tmp + 16, 0, 4);
	crc = lb_crc32(0, tmp, hsize);
	if (crc != le32(h + 16))
		return -EBADMSG;
	if (le64(h + 24) != my_lba)
		return -EBADMSG;
	g->first_usable = le64(h + 40);
	g->last_usable = le64(h + 48);
	g->entries_lba = le64(h + 72);
	g->n_entries = le32(h + 80);
	g->entry_size = le32(h + 84);
	g->h = h;
	if (g->entry_size < 128 || g->entry_size > 4096 || (g->entry_size & 7) ||
	    g->n_entries > GPT_MAX_ENTRIES_BYTES / g->entry_size ||
	    g->entries_lba < 2 || g->entries_lba == my_lba)
		return -EBADMSG;
	return 0;
}

static int gpt_header(const uint8_t *buf, size_t len, unsigned sector,
		      struct gpt_hdr *g)
{
	int r;

	if (!have(len, sector, 92))
		return -ENOENT;
	r = gpt_header_at(buf + sector, len - sector, sector, 1, g);
	/* the primary's entry array must follow it in the first 16 MiB */
	if (!r && g->entries_lba > GPT_MAX_ENTRIES_BYTES / sector)
		return -EBADMSG;
	return r;
}

static int sector_ok(unsigned sector)
{
	return sector >= 512 && sector <= 65536 && pow2(sector);
}

size_t lb_probe_gpt_need(const uint8_t *buf, size_t len, unsigned sector)
{
	struct gpt_hdr g;

	if (!buf || !sector_ok(sector) || gpt_header(buf, len, sector, &g))
		return 0;
	/* bounded by the checks in gpt_header: <= 32 MiB, no overflow */
	return (size_t)(g.entries_lba * sector +
			(uint64_t)g.n_entries * g.entry_size);
}

/* Fill pt from a checked header and its entry array (ents: elen bytes). */
static int gpt_entries(const struct gpt_hdr *g, const uint8_t *ents, size_t elen,
		       struct lb_ptable *pt)
{
	size_t bytes = (size_t)g->n_entries * g->entry_size;

	if (elen < bytes)
		return -ERANGE;
	if (lb_crc32(0, ents, bytes) != le32(g->h + 88))
		return -EBADMSG;
	pt->kind = LB_PT_GPT;
	guid_str(pt->disk_uuid, g->h + 56);
	for (uint32_t i = 0; i < g->n_entries && pt->n < LB_PT_MAX; i++) {
		const uint8_t *e = ents + (size_t)i * g->entry_size;
		struct lb_part *p;

		if (is_zero(e, 16))
			continue; /* unused entry */
		p = &pt->v[pt->n++];
		memset(p, 0, sizeof(*p));
		p->num = i + 1;
		p->start = le64(e + 32);
		p->size = le64(e + 40) >= p->start ? le64(e + 40) - p->start + 1 : 0;
		p->attrs = le64(e + 48);
		guid_str(p->type_guid, e);
		guid_str(p->uuid, e + 16);
		utf16le(p->name, sizeof(p->name), e + 56, 36);
	}
	return 0;
}

static int parse_gpt(const uint8_t *buf, size_t len, unsigned sector,
		     struct lb_ptable *pt)
{
	struct gpt_hdr g;
	size_t off;
	int r;

	if ((r = gpt_header(buf, len, sector, &g)))
		return r;
	off = (size_t)g.entries_lba * sector;
	if (!have(len, off, (size_t)g.n_entries * g.entry_size))
		return -ERANGE;
	return gpt_entries(&g, buf + off, len - off, pt);
}

int lb_probe_gpt_backup_loc(const uint8_t *hdr, size_t hlen, unsigned sector,
			    uint64_t last_lba, uint64_t *ents_lba, size_t *ents_len)
{
	struct gpt_hdr g;
	int r;

	if (!hdr || !ents_lba || !ents_len || !sector_ok(sector))
		return -EINVAL;
	if ((r = gpt_header_at(hdr, hlen, sector, last_lba, &g)))
		return r;
	if (g.entries_lba >= last_lba)
		return -EBADMSG;
	*ents_lba = g.entries_lba;
	*ents_len = (size_t)g.n_entries * g.entry_size;
	return 0;
}

int lb_probe_gpt_backup(const uint8_t *hdr, size_t hlen, unsigned sector,
			uint64_t last_lba, const uint8_t *ents, size_t elen,
			struct lb_ptable *out)
{
	struct gpt_hdr g;
	int r;

	if (!hdr || !ents || !out || !sector_ok(sector))
		return -EINVAL;
	out->kind = LB_PT_NONE;
	out->sector = sector;
	out->disk_uuid[0] = 0;
	out->n = 0;
	if ((r = gpt_header_at(hdr, hlen, sector, last_lba, &g)))
		return r;
	if (g.entries_lba >= last_lba)
		return -EBADMSG;
	r = gpt_entries(&g, ents, elen, out);
	if (r) {
		out->kind = LB_PT_NONE;
		out->n = 0;
		out->disk_uuid[0] = 0;
	}
	return r;
}

static int mbr_valid(const uint8_t *s)
{
	if (s[510] != 0x55 || s[511] != 0xaa)
		return 0;
	for (int i = 0; i < 4; i++) {
		uint8_t st = s[446 + 16 * i];
		if (st != 0 && st != 0x80)
			return 0;
	}
	return 1;
}

static int is_extended(uint8_t t)
{
	return t == 0x05 || t == 0x0f || t == 0x85;
}

static void mbr_add(struct lb_ptable *pt, unsigned num, uint64_t start,
		    uint64_t size, uint8_t type, uint32_t sig)
{
	struct lb_part *p;

	if (pt->n >= LB_PT_MAX)
		return;
	p = &pt->v[pt->n++];
	memset(p, 0, sizeof(*p));
	p->num = num;
	p->start = start;
	p->size = size;
	p->mbr_type = type;
	snprintf(p->uuid, sizeof(p->uuid), "%08x-%02x", (unsigned)sig, num & 0xff);
}

static int parse_mbr(const uint8_t *buf, size_t len, unsigned sector,
		     struct lb_ptable *pt)
{
	uint32_t sig = le32(buf + 440);
	uint64_t ext_start = 0;
	unsigned num = 5;

	pt->kind = LB_PT_MBR;
	snprintf(pt->disk_uuid, sizeof(pt->disk_uuid), "%08x", (unsigned)sig);
	for (int i = 0; i < 4; i++) {
		const uint8_t *e = buf + 446 + 16 * i;
		uint32_t start = le32(e + 8), size = le32(e + 12);

		if (!e[4] || !size)
			continue;
		if (is_extended(e[4]) && !ext_start)
			ext_start = start;
		mbr_add(pt, (unsigned)i + 1, start, size, e[4], sig);
	}
	/* logical partitions: a chain of EBRs, each relative to the extended
	 * partition start; followed while inside buf, at most LB_PT_MAX hops */
	if (ext_start) {
		uint64_t ebr = ext_start;
		for (int hops = 0; hops < LB_PT_MAX && pt->n < LB_PT_MAX; hops++) {
			const uint8_t *s, *e1, *e2;

			if (ebr > SIZE_MAX / sector || !have(len, (size_t)(ebr * sector), 512))
				break;
			s = buf + ebr * sector;
			if (s[510] != 0x55 || s[511] != 0xaa)
				break;
			e1 = s + 446;
			e2 = s + 462;
			if (e1[4] && le32(e1 + 12) && !is_extended(e1[4]))
				mbr_add(pt, num++, ebr + le32(e1 + 8), le32(e1 + 12),
					e1[4], sig);
			if (!is_extended(e2[4]) || !le32(e2 + 8))
				break;
			if (ext_start + le32(e2 + 8) <= ebr)
				break; /* must move forward: no loops */
			ebr = ext_start + le32(e2 + 8);
		}
	}
	return 0;
}

int lb_probe_ptable(const uint8_t *buf, size_t len, unsigned sector,
		    struct lb_ptable *out)
{
	int protective = 0, r;

	if (!buf || !out || !sector_ok(sector))
		return -EINVAL;
	out->kind = LB_PT_NONE;
	out->sector = sector;
	out->disk_uuid[0] = 0;
	out->n = 0;
	if (!have(len, 0, 512) || !mbr_valid(buf))
		return 0;
	for (int i = 0; i < 4; i++)
		if (buf[446 + 16 * i + 4] == 0xee)
			protective = 1;
	if (protective) {
		r = parse_gpt(buf, len, sector, out);
		if (r != -ENOENT) {
			if (r) {
				out->kind = LB_PT_NONE;
				out->n = 0;
				out->disk_uuid[0] = 0;
			}
			return r;
		}
	}
	/* a FAT/NTFS boot sector also ends in 55 aa: a real MBR has no BPB
	 * jump with a sane FAT geometry */
	{
		struct lb_probe p;
		if (!lb_probe_vfat(buf, len, &p))
			return 0;
	}
	return parse_mbr(buf, len, sector, out);
}

const struct lb_part *lb_ptable_find(const struct lb_ptable *pt, unsigned num)
{
	if (!pt)
		return NULL;
	for (size_t i = 0; i < pt->n; i++)
		if (pt->v[i].num == num)
			return &pt->v[i];
	return NULL;
}
