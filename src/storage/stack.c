/* MD RAID1 and LVM2 set up read-only through kernel ioctls; XFS and btrfs
 * mounts (see stack.h). */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "blkdev.h"
#include "io.h"
#include "le.h"
#include "log.h"
#include "lvm.h"
#include "prefetch.h"
#include "progress.h"
#include "probe.h"
#include "stack.h"

#define MAX_ARRAYS 32
#define MAX_MEMBERS 32
#define MAX_VGS 32
#define MAX_LABELS 128
#define MD_MAJOR 9

/* the sysfs root (/sys) from the class/block directory */
static void sys_root(const char *sysfs, char *out, size_t sz)
{
	const char *cb;

	snprintf(out, sz, "%s", sysfs);
	if ((cb = strstr(out, "/class/block")) && !cb[12])
		out[cb - out] = 0;
}

/* open a block device node, making it when devtmpfs has none */
static int open_node(const char *devdir, const char *name, unsigned ma,
		     unsigned mi, int flags)
{
	char path[PATH_MAX];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", devdir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && (ma || mi)) {
		if (!mknod(path, S_IFBLK | 0600, makedev(ma, mi)) || errno == EEXIST)
			fd = open(path, flags | O_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

static struct lb_stack_dev *add_made(struct lb_stack *st, const char *kname,
				     const char *path, const char *grub)
{
	struct lb_stack_dev *d;

	if (st->n_made >= LB_STACK_MAX_MADE || strlen(kname) >= sizeof(d->kname) ||
	    strlen(path) >= sizeof(d->path) || strlen(grub) >= sizeof(d->grub))
		return NULL;
	d = &st->made[st->n_made++];
	strcpy(d->kname, kname);
	strcpy(d->path, path);
	strcpy(d->grub, grub);
	return d;
}

static long seen_idx(const struct lb_stack *st, const char *name)
{
	for (size_t i = 0; i < st->n_seen; i++)
		if (!strcmp(st->seen[i].name, name))
			return (long)i;
	return -1;
}

static void set_member(struct lb_stack *st, const char *name, const char *holder,
		       const char *what)
{
	long i = seen_idx(st, name);

	if (i < 0)
		return;
	snprintf(st->seen[i].holder, sizeof(st->seen[i].holder), "%s", holder);
	snprintf(st->seen[i].what, sizeof(st->seen[i].what), "%s", what);
}

const struct lb_stack_dev *lb_stack_made(const struct lb_stack *st,
					 const char *kname)
{
	for (size_t i = 0; st && i < st->n_made; i++)
		if (!strcmp(st->made[i].kname, kname))
			return &st->made[i];
	return NULL;
}

const char *lb_stack_member(const struct lb_stack *st, const char *name,
			    char *buf, size_t sz)
{
	long i = st ? seen_idx(st, name) : -1;

	if (i < 0 || !st->seen[i].holder[0])
		return NULL;
	snprintf(buf, sz, "%s of %s", st->seen[i].what, st->seen[i].holder);
	return buf;
}

/* --- MD ---------------------------------------------------------------------- */

struct md_array_info { int v[18]; };   /* mdu_array_info_t */
struct md_disk_info { int number, major, minor, raid_disk, state; };
#define LB_SET_ARRAY_INFO _IOW(MD_MAJOR, 0x23, struct md_array_info)
#define LB_ADD_NEW_DISK   _IOW(MD_MAJOR, 0x21, struct md_disk_info)
#define LB_STOP_ARRAY     _IO(MD_MAJOR, 0x32)

struct md_member {
	const struct lb_blkdev *dev;
	struct lb_md sb;
};

struct md_set {
	struct lb_md sb; /* of the freshest member */
	size_t n;
	struct md_member m[MAX_MEMBERS];
};

/* the superblock candidates, from what was read already (head: hlen bytes
 * from 0; tail: tlen bytes from toff) or else from fd */
static int md_probe_dev(int fd, uint64_t bytes, const uint8_t *head, size_t hlen,
			const uint8_t *tail, uint64_t toff, size_t tlen, struct lb_md *out)
{
	uint64_t off[4];
	size_t n = lb_md_sb_offsets(bytes, off);
	uint8_t *b = malloc(LB_MD_SB_BYTES);
	int r = -ENOENT;

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n && r; i++) {
		size_t got = 0;

		if (off[i] + LB_MD_SB_BYTES <= hlen) {
			memcpy(b, head + off[i], LB_MD_SB_BYTES);
			got = LB_MD_SB_BYTES;
		} else if (tail && off[i] >= toff && off[i] - toff + LB_MD_SB_BYTES <= tlen) {
			memcpy(b, tail + (off[i] - toff), LB_MD_SB_BYTES);
			got = LB_MD_SB_BYTES;
		} else if (lb_pread_full(fd, b, LB_MD_SB_BYTES, off[i], &got) && got < 12) {
			continue;
		}
		r = lb_probe_md(b, got, off[i], bytes, out);
		if (r == -EBADMSG)
			r = -ENOENT; /* a stale or foreign block: look further */
	}
	free(b);
	return r;
}

/* the name mdadm would give: mdN for 0.90's preferred minor and for 1.x
 * names ending in ":N" or "N"; else the first free from md127 down */
static int md_pick(const char *sysroot, const struct lb_md *sb, char *kname, size_t sz)
{
	char path[PATH_MAX];
	struct stat st;
	long want = -1;

	if (sb->major == 0) {
		want = sb->md_minor;
	} else {
		const char *c = strrchr(sb->name, ':');
		const char *s = c ? c + 1 : sb->name;
		char *end;
		long v;

		if (*s >= '0' && *s <= '9') {
			v = strtol(s, &end, 10);
			if (!*end && v >= 0 && v < 1000)
				want = v;
		}
	}
	for (long i = want >= 0 ? want : 127, tries = 0; tries < 256; tries++) {
		snprintf(path, sizeof(path), "%s/class/block/md%ld", sysroot, i);
		if (stat(path, &st) < 0) {
			snprintf(kname, sz, "md%ld", i);
			return 0;
		}
		i = want >= 0 && i == want ? 127 : i - 1;
		if (i < 0)
			break;
	}
	return -EBUSY;
}

static const char *level_name(int level, char *buf, size_t sz)
{
	if (level == -1)
		return "linear";
	snprintf(buf, sz, "RAID%d", level);
	return buf;
}

static int md_assemble(struct lb_stack *st, const char *sysroot, const char *devdir,
		       struct md_set *set, FILE *log)
{
	char kname[32], path[PATH_MAX], attr[PATH_MAX], v[64], lv[16], grub[192];
	struct md_array_info ai;
	int fd, r;
	unsigned long degraded = 0, raid_disks = set->sb.raid_disks;

	if (set->sb.level != 1) {
		lb_logf(log, "lboot: md %s: %s not supported (RAID1 only): members skipped\n",
		      set->sb.uuid, level_name(set->sb.level, lv, sizeof(lv)));
		return 0;
	}
	if ((r = md_pick(sysroot, &set->sb, kname, sizeof(kname))))
		return r;
	snprintf(attr, sizeof(attr), "%s/module/md_mod/parameters/new_array", sysroot);
	if ((r = lb_write_attr(attr, kname)) && r != -EEXIST) {
		lb_logf(log, "lboot: %s: cannot create the array: %s\n", kname, strerror(-r));
		return 0;
	}
	if ((fd = open_node(devdir, kname, MD_MAJOR, (unsigned)atoi(kname + 2), O_RDONLY)) < 0) {
		lb_logf(log, "lboot: %s: cannot open: %s\n", kname, strerror(-fd));
		return 0;
	}
	memset(&ai, 0, sizeof(ai));
	ai.v[0] = (int)set->sb.major;  /* only the superblock version: */
	ai.v[1] = (int)set->sb.minor;  /* members' superblocks say the rest */
	if (ioctl(fd, LB_SET_ARRAY_INFO, &ai) < 0) {
		r = -errno;
		goto fail;
	}
	for (size_t i = 0; i < set->n; i++) {
		struct md_disk_info di = { 0 };

		di.major = (int)set->m[i].dev->dev_major;
		di.minor = (int)set->m[i].dev->dev_minor;
		if (ioctl(fd, LB_ADD_NEW_DISK, &di) < 0)
			lb_logf(log, "lboot: %s: member %s refused: %s\n", kname,
			      set->m[i].dev->name, strerror(errno));
	}
	/* run it read-only: nothing is written to the members, no resync */
	snprintf(attr, sizeof(attr), "%s/class/block/%s/md/array_state", sysroot, kname);
	if ((r = lb_write_attr(attr, "readonly")))
		goto fail;
	snprintf(attr, sizeof(attr), "%s/class/block/%s/md/degraded", sysroot, kname);
	if (!lb_read_attr(attr, v, sizeof(v)))
		degraded = strtoul(v, NULL, 10);
	snprintf(attr, sizeof(attr), "%s/class/block/%s/md/raid_disks", sysroot, kname);
	if (!lb_read_attr(attr, v, sizeof(v)))
		raid_disks = strtoul(v, NULL, 10);
	close(fd);
	/* an open after the run has the kernel read its partition table */
	if ((fd = open_node(devdir, kname, MD_MAJOR, (unsigned)atoi(kname + 2), O_RDONLY)) >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/%s", devdir, kname);
	{
		const char *c = strrchr(set->sb.name, ':');
		const char *nm = set->sb.major ? (c ? c + 1 : set->sb.name) : "";
		snprintf(grub, sizeof(grub), "md/%s", *nm ? nm : kname + 2);
	}
	add_made(st, kname, path, grub);
	{
		char names[256] = "";
		size_t o = 0;
		for (size_t i = 0; i < set->n; i++) {
			int w = snprintf(names + o, sizeof(names) - o, "%s%s", i ? "," : "",
					 set->m[i].dev->name);
			if (w < 0 || (size_t)w >= sizeof(names) - o)
				break;
			o += (size_t)w;
			set_member(st, set->m[i].dev->name, kname, "md member");
		}
		lb_logf(log, "lboot: %s: RAID1 (%u.%u%s) assembled read-only from %s, uuid %s%s%s\n",
		      kname, set->sb.major, set->sb.minor, set->sb.major ? "" : "0",
		      names, set->sb.uuid, set->sb.name[0] ? " name " : "", set->sb.name);
	}
	if (degraded && degraded <= raid_disks)
		lb_logf(log, "lboot: %s: RAID1 degraded: %lu of %lu members\n", kname,
		      raid_disks - degraded, raid_disks);
	return 1;
fail:
	lb_logf(log, "lboot: %s: cannot assemble %s: %s\n", kname, set->sb.uuid, strerror(-r));
	ioctl(fd, LB_STOP_ARRAY, 0);
	close(fd);
	return 0;
}

/* --- device-mapper --------------------------------------------------------------- */

struct dm_ioctl {
	uint32_t version[3];
	uint32_t data_size;
	uint32_t data_start;
	uint32_t target_count;
	int32_t open_count;
	uint32_t flags;
	uint32_t event_nr;
	uint32_t padding;
	uint64_t dev;
	char name[128];
	char uuid[129];
	char data[7];
};

struct dm_target_spec {
	uint64_t sector_start;
	uint64_t length;
	int32_t status;
	uint32_t next;
	char target_type[16];
};

_Static_assert(sizeof(struct dm_ioctl) == 312, "struct dm_ioctl");
_Static_assert(sizeof(struct dm_target_spec) == 40, "struct dm_target_spec");

#define DM_IOCTL 0xfd
#define LB_DM_VERSION     _IOWR(DM_IOCTL, 0, struct dm_ioctl)
#define LB_DM_DEV_CREATE  _IOWR(DM_IOCTL, 3, struct dm_ioctl)
#define LB_DM_DEV_REMOVE  _IOWR(DM_IOCTL, 4, struct dm_ioctl)
#define LB_DM_DEV_SUSPEND _IOWR(DM_IOCTL, 6, struct dm_ioctl)
#define LB_DM_TABLE_LOAD  _IOWR(DM_IOCTL, 9, struct dm_ioctl)
#define DM_READONLY_FLAG 1u

static void dm_init(struct dm_ioctl *io, size_t size, const char *name)
{
	memset(io, 0, size);
	io->version[0] = 4;
	io->data_size = (uint32_t)size;
	io->data_start = sizeof(*io);
	if (name)
		snprintf(io->name, sizeof(io->name), "%s", name);
}

static int dm_control(const char *devdir)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/mapper", devdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/mapper/control", devdir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* misc device 10:236 */
		if (!mknod(path, S_IFCHR | 0600, makedev(10, 236)) || errno == EEXIST)
			fd = open(path, O_RDWR | O_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

/* Create a read-only mapped device: name, uuid, table; *minor gets its
 * minor number (kernel name dm-N). */
static int dm_create(int ctl, const char *name, const char *uuid,
		     const struct lb_dm_target *t, size_t nt, unsigned *minor)
{
	struct dm_ioctl io, *ld;
	size_t size = sizeof(struct dm_ioctl), o;
	uint8_t *buf;
	int r;

	for (size_t i = 0; i < nt; i++)
		size += sizeof(struct dm_target_spec) + ((strlen(t[i].params) + 1 + 7) & ~(size_t)7);
	dm_init(&io, sizeof(io), name);
	snprintf(io.uuid, sizeof(io.uuid), "%s", uuid);
	if (ioctl(ctl, LB_DM_DEV_CREATE, &io) < 0)
		return -errno;
	*minor = (unsigned)((io.dev & 0xff) | ((io.dev >> 12) & 0xfff00));
	if (!(buf = calloc(1, size))) {
		r = -ENOMEM;
		goto remove;
	}
	ld = (struct dm_ioctl *)buf;
	dm_init(ld, size, name);
	ld->target_count = (uint32_t)nt;
	ld->flags = DM_READONLY_FLAG;
	o = sizeof(struct dm_ioctl);
	for (size_t i = 0; i < nt; i++) {
		struct dm_target_spec *sp = (struct dm_target_spec *)(buf + o);
		size_t pl = (strlen(t[i].params) + 1 + 7) & ~(size_t)7;

		sp->sector_start = t[i].start;
		sp->length = t[i].length;
		snprintf(sp->target_type, sizeof(sp->target_type), "%s", t[i].type);
		memcpy(buf + o + sizeof(*sp), t[i].params, strlen(t[i].params) + 1);
		sp->next = (uint32_t)(sizeof(*sp) + pl);
		o += sizeof(*sp) + pl;
	}
	r = ioctl(ctl, LB_DM_TABLE_LOAD, buf) < 0 ? -errno : 0;
	free(buf);
	if (r)
		goto remove;
	dm_init(&io, sizeof(io), name); /* resume: the table goes live */
	if (ioctl(ctl, LB_DM_DEV_SUSPEND, &io) < 0) {
		r = -errno;
		goto remove;
	}
	return 0;
remove:
	dm_init(&io, sizeof(io), name);
	ioctl(ctl, LB_DM_DEV_REMOVE, &io);
	return r;
}

/* VG/LV names as device-mapper names: '-' doubled, joined by '-' */
static void dm_name(char *out, size_t sz, const char *vg, const char *lv)
{
	size_t o = 0;
	const char *parts[2] = { vg, lv };

	for (int k = 0; k < 2; k++) {
		for (const char *p = parts[k]; *p && o + 3 < sz; p++) {
			if (*p == '-')
				out[o++] = '-';
			out[o++] = *p;
		}
		if (!k && o + 2 < sz)
			out[o++] = '-';
	}
	out[o] = 0;
}

static void strip_dashes(char *out, const char *id)
{
	size_t o = 0;

	for (; *id; id++)
		if (*id != '-')
			out[o++] = *id;
	out[o] = 0;
}

struct pv_label {
	const struct lb_blkdev *dev;
	struct lb_lvm_label lab;
};

struct vg_ent {
	struct lb_lvm_vg vg;
};

/* read the VG metadata text of a PV (its first metadata area) */
static int lvm_read_vg(int fd, const struct lb_lvm_label *lab, struct lb_lvm_vg *vg)
{
	uint8_t hdr[LB_LVM_MDA_HDR_BYTES], *mda;
	struct lb_lvm_raw raw;
	char *text;
	size_t tlen, got = 0;
	int r = -ENOENT;

	for (size_t i = 0; i < lab->n_mda; i++) {
		uint64_t off = lab->mda[i].offset, size = lab->mda[i].size;

		if ((r = lb_pread_full(fd, hdr, sizeof(hdr), off, NULL)) ||
		    (r = lb_lvm_mda_header(hdr, sizeof(hdr), off, size, &raw)))
			continue;
		if (size > LB_LVM_MDA_MAX)
			return -EFBIG;
		if (!(mda = malloc((size_t)size)))
			return -ENOMEM;
		r = lb_pread_full(fd, mda, (size_t)size, off, &got);
		if (!r || got)
			r = lb_lvm_mda_text(mda, got, size, &raw, &text, &tlen);
		free(mda);
		if (r)
			continue;
		r = lb_lvm_parse(text, tlen, vg);
		free(text);
		if (!r)
			return 0;
	}
	return r;
}

static int lvm_activate(struct lb_stack *st, const char *devdir, struct lb_lvm_vg *vg,
			const struct pv_label *labels, size_t nl, FILE *log)
{
	const char **pvdev = calloc(vg->n_pv ? vg->n_pv : 1, sizeof(*pvdev));
	char (*mm)[24] = calloc(vg->n_pv ? vg->n_pv : 1, sizeof(*mm));
	const struct lb_blkdev **pvblk = calloc(vg->n_pv ? vg->n_pv : 1, sizeof(*pvblk));
	size_t present = 0;
	int made = 0, ctl = -1;

	if (!pvdev || !mm || !pvblk) {
		made = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nl; i++) {
		long k = lb_lvm_find_pv(vg, labels[i].lab.pv_id);
		if (k < 0 || pvdev[k])
			continue;
		snprintf(mm[k], sizeof(mm[k]), "%u:%u", labels[i].dev->dev_major,
			 labels[i].dev->dev_minor);
		pvdev[k] = mm[k];
		pvblk[k] = labels[i].dev;
		present++;
	}
	lb_logf(log, "lboot: lvm: volume group %s: %zu of %zu PVs, %zu LVs\n", vg->name,
	      present, vg->n_pv, vg->n_lv);
	for (size_t i = 0; i < vg->n_lv; i++) {
		const struct lb_lvm_lv *lv = &vg->lv[i];
		struct lb_dm_target *t = NULL;
		char name[300], uuid[96], vgid[40], lvid[40], kname[32], path[PATH_MAX],
		     grub[320];
		unsigned minor = 0;
		size_t nt = 0;
		int r;

		if (!lv->visible)
			continue;
		r = lb_lvm_table(vg, lv, pvdev, &t, &nt);
		if (r) {
			lb_logf(log, "lboot: lvm: %s/%s: skipped: %s\n", vg->name, lv->name,
			      r == -ENODEV ? "a PV it uses is missing" :
			      r == -EOPNOTSUPP ? "segment type not supported (linear and striped only)" :
			      strerror(-r));
			continue;
		}
		if (ctl < 0 && (ctl = dm_control(devdir)) < 0) {
			lb_logf(log, "lboot: lvm: device-mapper: %s\n", strerror(-ctl));
			free(t);
			break;
		}
		dm_name(name, sizeof(name), vg->name, lv->name);
		if (strlen(name) >= 128) {
			free(t);
			continue;
		}
		strip_dashes(vgid, vg->id);
		strip_dashes(lvid, lv->id);
		snprintf(uuid, sizeof(uuid), "LVM-%s%s", vgid, lvid);
		r = dm_create(ctl, name, uuid, t, nt, &minor);
		if (r) {
			lb_logf(log, "lboot: lvm: %s/%s: device-mapper: %s\n", vg->name,
			      lv->name, strerror(-r));
			free(t);
			continue;
		}
		snprintf(kname, sizeof(kname), "dm-%u", minor);
		snprintf(path, sizeof(path), "%s/mapper/%s", devdir, name);
		{
			/* /dev/mapper/NAME as udev would make it */
			char target[64];
			snprintf(target, sizeof(target), "../%s", kname);
			unlink(path);
			if (symlink(target, path) < 0)
				snprintf(path, sizeof(path), "%s/%s", devdir, kname);
		}
		snprintf(grub, sizeof(grub), "lvm/%s", name);
		add_made(st, kname, path, grub);
		for (size_t s = 0; s < lv->n_seg; s++)
			for (unsigned k = 0; k < lv->seg[s].stripe_count; k++) {
				const struct lb_blkdev *b = pvblk[lv->seg[s].stripes[k].pv];
				if (b)
					set_member(st, b->name, vg->name, "LVM PV");
			}
		lb_logf(log, "lboot: lvm: %s/%s -> %s (%s): %zu segment%s%s, read-only\n",
		      vg->name, lv->name, kname, path, nt, nt == 1 ? "" : "s",
		      !strcmp(t[0].type, "striped") ? ", striped" : "");
		free(t);
		made++;
	}
out:
	if (ctl >= 0)
		close(ctl);
	free(pvdev);
	free(mm);
	free(pvblk);
	return made;
}

/* --- btrfs device registration ------------------------------------------------- */

struct btrfs_vol_args {
	int64_t fd;
	char name[4088];
};
#define LB_BTRFS_IOC_SCAN_DEV _IOW(0x94, 4, struct btrfs_vol_args)

static void btrfs_register(const char *devdir, const char *name, FILE *log)
{
	char path[PATH_MAX];
	struct btrfs_vol_args *a;
	int fd;

	snprintf(path, sizeof(path), "%s/btrfs-control", devdir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT &&
	    (!mknod(path, S_IFCHR | 0600, makedev(10, 234)) || errno == EEXIST))
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || !(a = calloc(1, sizeof(*a)))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	snprintf(a->name, sizeof(a->name), "%s/%s", devdir, name);
	if (ioctl(fd, LB_BTRFS_IOC_SCAN_DEV, a) < 0)
		lb_logf(log, "lboot: %s: btrfs device scan: %s\n", a->name, strerror(errno));
	free(a);
	close(fd);
}

/* --- the pass over devices ------------------------------------------------------ */

/* The first holder of a device in sysfs (an md or dm device over it, as
 * after an earlier round of discovery), or 0 when none. */
static int first_holder(const char *sysfs, const char *name, char *out, size_t sz)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int found = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/holders", sysfs, name) >= sizeof(path) ||
	    !(d = opendir(path)))
		return 0;
	while (!found && (e = readdir(d)))
		if (e->d_name[0] != '.' && strlen(e->d_name) < sz) {
			strcpy(out, e->d_name);
			found = 1;
		}
	closedir(d);
	return found;
}

/* Devices made before this pass (an earlier discovery round): their
 * names as the first pass gave them, from sysfs. */
static void adopt(struct lb_stack *st, const char *sysfs, const char *devdir,
		  const struct lb_blkdev *d)
{
	char attr[PATH_MAX], name[160] = "", uuid[160] = "", path[PATH_MAX], grub[192];

	if (d->partno || lb_stack_made(st, d->name))
		return;
	if (!strncmp(d->name, "dm-", 3)) {
		snprintf(attr, sizeof(attr), "%s/%s/dm/name", sysfs, d->name);
		if (lb_read_attr(attr, name, sizeof(name)) || !name[0])
			return;
		snprintf(attr, sizeof(attr), "%s/%s/dm/uuid", sysfs, d->name);
		lb_read_attr(attr, uuid, sizeof(uuid));
		snprintf(path, sizeof(path), "%s/mapper/%s", devdir, name);
		snprintf(grub, sizeof(grub), "%s/%s", strncmp(uuid, "LVM-", 4) ? "dm" : "lvm", name);
	} else if (!strncmp(d->name, "md", 2)) {
		/* the array's name is in its members' superblocks */
		struct dirent *e;
		DIR *dir;

		snprintf(path, sizeof(path), "%s/%s", devdir, d->name);
		snprintf(grub, sizeof(grub), "md/%s", d->name + 2);
		snprintf(attr, sizeof(attr), "%s/%s/md", sysfs, d->name);
		if ((dir = opendir(attr))) {
			while ((e = readdir(dir))) {
				char sz[32], mp[PATH_MAX];
				struct lb_md md;
				uint64_t sectors;
				int fd, r;

				if (strncmp(e->d_name, "dev-", 4))
					continue;
				snprintf(mp, sizeof(mp), "%s/%s/size", sysfs, e->d_name + 4);
				if (lb_read_attr(mp, sz, sizeof(sz)) ||
				    !(sectors = strtoull(sz, NULL, 10)) || sectors > UINT64_MAX / 512)
					continue;
				snprintf(mp, sizeof(mp), "%s/%s", devdir, e->d_name + 4);
				if ((fd = open(mp, O_RDONLY | O_CLOEXEC)) < 0)
					continue;
				r = md_probe_dev(fd, sectors * 512, NULL, 0, NULL, 0, 0, &md);
				close(fd);
				if (!r && md.major) {
					const char *c = strrchr(md.name, ':');
					const char *nm = c ? c + 1 : md.name;
					if (*nm)
						snprintf(grub, sizeof(grub), "md/%s", nm);
					break;
				}
			}
			closedir(dir);
		}
	} else {
		return;
	}
	add_made(st, d->name, path, grub);
}

int lb_stack_assemble(struct lb_stack *st, const char *sysfs, const char *devdir,
		      const struct lb_blkdev *devs, size_t n,
		      const struct lb_prefetch *pf, FILE *log)
{
	char sysroot[PATH_MAX - 256];
	struct md_set *sets = NULL;
	struct pv_label *labels = NULL;
	struct vg_ent *vgs = NULL;
	size_t nsets = 0, nl = 0, nvg = 0;
	uint8_t *head = NULL;
	int made = 0, r;

	sysfs = sysfs && *sysfs ? sysfs : "/sys/class/block";
	devdir = devdir && *devdir ? devdir : "/dev";
	sys_root(sysfs, sysroot, sizeof(sysroot));
	if (!(sets = calloc(MAX_ARRAYS, sizeof(*sets))) ||
	    !(labels = calloc(MAX_LABELS, sizeof(*labels))) ||
	    !(vgs = calloc(MAX_VGS, sizeof(*vgs))) || !(head = malloc(LB_PROBE_BYTES))) {
		made = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct lb_blkdev *d = &devs[i];
		struct lb_md md;
		struct lb_probe p;
		const uint8_t *ph = NULL, *pt = NULL;
		uint64_t ptoff = 0;
		size_t got = 0, phlen = 0, ptlen = 0;
		int fd, pr;

		/* whole disks with partitions hold none of these (a superblock at
		 * the end of such a disk belongs to its last partition); CD
		 * drives neither */
		if (seen_idx(st, d->name) >= 0 || d->is_cd || (!d->partno && d->has_parts))
			continue;
		if (st->n_seen >= LB_STACK_MAX_SEEN)
			break;
		if (d->is_virtual)
			adopt(st, sysfs, devdir, d);
		/* a device that did not answer in the bound is left out */
		pr = lb_prefetch_get(pf, d->name, &ph, &phlen, &pt, &ptoff, &ptlen);
		if (pr && pr != -ENOENT)
			continue;
		memset(&st->seen[st->n_seen], 0, sizeof(st->seen[0]));
		snprintf(st->seen[st->n_seen].name, sizeof(st->seen[0].name), "%s", d->name);
		st->n_seen++;
		{
			/* already part of an array or mapping (an earlier round) */
			char h[64];
			if (first_holder(sysfs, d->name, h, sizeof(h))) {
				set_member(st, d->name, h, "member");
				continue;
			}
		}
		if ((fd = open_node(devdir, d->name, d->dev_major, d->dev_minor, O_RDONLY)) < 0)
			continue;
		if (!pr) {
			memcpy(head, ph, phlen);
			got = phlen;
		} else if (lb_pread_full(fd, head, LB_PROBE_BYTES, 0, &got) && !got) {
			close(fd);
			continue;
		}
		if (d->size <= UINT64_MAX / 512 &&
		    !md_probe_dev(fd, d->size * 512, head, got, pr ? NULL : pt, ptoff, ptlen, &md)) {
			size_t k;

			for (k = 0; k < nsets; k++)
				if (!strcmp(sets[k].sb.uuid, md.uuid))
					break;
			if (k == nsets && nsets < MAX_ARRAYS) {
				memset(&sets[k], 0, sizeof(sets[k]));
				sets[k].sb = md;
				nsets++;
			}
			if (k < nsets && sets[k].n < MAX_MEMBERS) {
				sets[k].m[sets[k].n].dev = d;
				sets[k].m[sets[k].n].sb = md;
				sets[k].n++;
				if (md.events > sets[k].sb.events)
					sets[k].sb = md;
			}
			lb_logf(log, "lboot: %s/%s: md member (%u.%u), array %s, slot %d, events %llu\n",
			      devdir, d->name, md.major, md.minor, md.uuid, md.role,
			      (unsigned long long)md.events);
			close(fd);
			continue;
		}
		if (nl < MAX_LABELS && !lb_lvm_label(head, got, &labels[nl].lab)) {
			struct lb_lvm_vg vg;

			labels[nl].dev = d;
			lb_logf(log, "lboot: %s/%s: LVM PV %s\n", devdir, d->name,
			      labels[nl].lab.pv_id);
			nl++;
			if (!(r = lvm_read_vg(fd, &labels[nl - 1].lab, &vg))) {
				size_t k;

				for (k = 0; k < nvg; k++)
					if (!strcmp(vgs[k].vg.id, vg.id))
						break;
				if (k < nvg && vgs[k].vg.seqno >= vg.seqno) {
					lb_lvm_vg_free(&vg);
				} else if (k < nvg) {
					lb_lvm_vg_free(&vgs[k].vg);
					vgs[k].vg = vg;
				} else if (nvg < MAX_VGS) {
					vgs[nvg++].vg = vg;
				} else {
					lb_lvm_vg_free(&vg);
				}
			} else if (r == -ENOMEM) {
				close(fd);
				made = r;
				goto out;
			} else if (r != -ENOENT) {
				lb_logf(log, "lboot: %s/%s: LVM metadata unreadable: %s\n", devdir,
				      d->name, strerror(-r));
			}
			close(fd);
			continue;
		}
		if (!lb_probe_btrfs(head, got, &p) && (p.flags & LB_PROBE_MULTIDEV))
			btrfs_register(devdir, d->name, log);
		close(fd);
	}
	for (size_t k = 0; k < nsets; k++) {
		r = md_assemble(st, sysroot, devdir, &sets[k], log);
		if (r > 0)
			made += r;
	}
	for (size_t k = 0; k < nvg; k++) {
		r = lvm_activate(st, devdir, &vgs[k].vg, labels, nl, log);
		if (r < 0) {
			made = r;
			goto out;
		}
		made += r;
	}
out:
	for (size_t k = 0; vgs && k < nvg; k++)
		lb_lvm_vg_free(&vgs[k].vg);
	free(vgs);
	free(labels);
	free(sets);
	free(head);
	return made;
}

/* --- XFS ------------------------------------------------------------------------ */

#define LB_BLKROSET _IO(0x12, 93)
#define LB_BLKROGET _IO(0x12, 94)

int lb_mount_xfs(const char *devpath, const char *dir, unsigned long flags,
		 int *dirty)
{
	int fd = open(devpath, O_RDONLY | O_CLOEXEC), old = 0, one = 1, r = 0;

	*dirty = 0;
	if (fd < 0)
		return -errno;
	/* with the device read-only XFS refuses (EROFS) to mount a log that
	 * needs recovery instead of replaying it */
	if (ioctl(fd, LB_BLKROGET, &old) < 0 || ioctl(fd, LB_BLKROSET, &one) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (mount(devpath, dir, "xfs", flags, NULL) < 0) {
		r = -errno;
		if (r == -EROFS) {
			*dirty = 1;
			r = mount(devpath, dir, "xfs", flags, "norecovery") < 0 ? -errno : 0;
		}
	}
	ioctl(fd, LB_BLKROSET, &old);
	close(fd);
	return r;
}

/* --- btrfs ------------------------------------------------------------------------ */

struct btrfs_search_key {
	uint64_t tree_id, min_objectid, max_objectid, min_offset, max_offset,
		 min_transid, max_transid;
	uint32_t min_type, max_type, nr_items, unused;
	uint64_t unused1, unused2, unused3, unused4;
};
struct btrfs_search_args {
	struct btrfs_search_key key;
	char buf[4096 - sizeof(struct btrfs_search_key)];
};
struct btrfs_ino_lookup {
	uint64_t treeid, objectid;
	char name[4080];
};
_Static_assert(sizeof(struct btrfs_search_key) == 104, "btrfs search key");
#define LB_BTRFS_IOC_TREE_SEARCH _IOWR(0x94, 17, struct btrfs_search_args)
#define LB_BTRFS_IOC_INO_LOOKUP _IOWR(0x94, 18, struct btrfs_ino_lookup)
#define BTRFS_ROOT_TREE 1
#define BTRFS_ROOT_TREE_DIR 6
#define BTRFS_FS_TREE 5
#define BTRFS_DIR_ITEM_KEY 84
#define BTRFS_ROOT_BACKREF_KEY 144

struct search_hdr {
	uint64_t transid, objectid, offset;
	uint32_t type, len;
};

/* First item of (objectid, type) in the root tree: its offset and data
 * (the data in on-disk little-endian order). */
static int btrfs_search(int fd, uint64_t objectid, uint32_t type,
			struct btrfs_search_args *a, uint64_t *offset,
			const uint8_t **data, uint32_t *len)
{
	size_t o = 0;

	memset(a, 0, sizeof(*a));
	a->key.tree_id = BTRFS_ROOT_TREE;
	a->key.min_objectid = a->key.max_objectid = objectid;
	a->key.min_type = a->key.max_type = type;
	a->key.max_offset = UINT64_MAX;
	a->key.max_transid = UINT64_MAX;
	a->key.nr_items = 16;
	if (ioctl(fd, LB_BTRFS_IOC_TREE_SEARCH, a) < 0)
		return -errno;
	for (uint32_t i = 0; i < a->key.nr_items; i++) {
		struct search_hdr h;

		if (sizeof(a->buf) - o < sizeof(h))
			break;
		memcpy(&h, a->buf + o, sizeof(h));
		if (h.len > sizeof(a->buf) - o - sizeof(h))
			break;
		if (h.objectid == objectid && h.type == type) {
			*offset = h.offset;
			*data = (const uint8_t *)a->buf + o + sizeof(h);
			*len = h.len;
			return 0;
		}
		o += sizeof(h) + h.len;
	}
	return -ENOENT;
}

/* The default subvolume's id: the "default" item of the root tree dir. */
static int btrfs_default_id(int fd, struct btrfs_search_args *a, uint64_t *id)
{
	const uint8_t *d;
	uint64_t off;
	uint32_t len;
	int r;

	/* btrfs_dir_item: location key (objectid, type, offset: 17 bytes),
	 * transid, data_len, name_len, type, then the name */
	r = btrfs_search(fd, BTRFS_ROOT_TREE_DIR, BTRFS_DIR_ITEM_KEY, a, &off, &d, &len);
	if (r == -ENOENT) {
		*id = BTRFS_FS_TREE;
		return 0;
	}
	if (r)
		return r;
	if (len < 30 || le16(d + 27) != 7 || len - 30 < 7 || memcmp(d + 30, "default", 7))
		return -ENOENT;
	*id = le64(d);
	return 0;
}

/* The path of subvolume id from the top level ("/@/.snapshots/1/snapshot"). */
static int btrfs_subvol_path(int fd, uint64_t id, char *out, size_t sz)
{
	struct btrfs_search_args *a = malloc(sizeof(*a));
	struct btrfs_ino_lookup *il = malloc(sizeof(*il));
	char *path = malloc(sz), *tmp = malloc(sz);
	int r = 0, depth = 0;

	if (!a || !il || !path || !tmp) {
		r = -ENOMEM;
		goto out;
	}
	path[0] = 0;
	while (id != BTRFS_FS_TREE) {
		const uint8_t *d;
		uint64_t parent;
		uint32_t len;
		uint16_t nl;

		if (++depth > 32) {
			r = -ELOOP;
			goto out;
		}
		/* btrfs_root_ref: dirid, sequence, name_len, name; the key's
		 * offset is the parent subvolume */
		if ((r = btrfs_search(fd, id, BTRFS_ROOT_BACKREF_KEY, a, &parent, &d, &len)))
			goto out;
		if (len < 18 || (nl = le16(d + 16)) > len - 18 || !nl) {
			r = -EBADMSG;
			goto out;
		}
		memset(il, 0, sizeof(*il));
		il->treeid = parent;
		il->objectid = le64(d);
		if (ioctl(fd, LB_BTRFS_IOC_INO_LOOKUP, il) < 0) {
			r = -errno;
			goto out;
		}
		il->name[sizeof(il->name) - 1] = 0;
		/* il->name: "dir/in/parent/" or "" */
		if ((size_t)snprintf(tmp, sz, "/%s%.*s%s", il->name, (int)nl,
				     (const char *)d + 18, path) >= sz) {
			r = -ENAMETOOLONG;
			goto out;
		}
		memcpy(path, tmp, strlen(tmp) + 1);
		id = parent;
	}
	memcpy(out, path, strlen(path) + 1);
out:
	free(a);
	free(il);
	free(path);
	free(tmp);
	return r;
}

int lb_mount_btrfs(const char *devpath, const char *dir, unsigned long flags,
		   char **subvol)
{
	struct btrfs_search_args *a;
	char path[1024];
	uint64_t id = BTRFS_FS_TREE;
	int fd;

	*subvol = NULL;
	if (mount(devpath, dir, "btrfs", flags, "subvolid=5") < 0)
		return -errno;
	/* where the default subvolume is, for btrfs_relative_path (best
	 * effort: the mount stands without it) */
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	if ((a = malloc(sizeof(*a))) && !btrfs_default_id(fd, a, &id) &&
	    id != BTRFS_FS_TREE && !btrfs_subvol_path(fd, id, path, sizeof(path)))
		*subvol = strdup(path);
	free(a);
	close(fd);
	return 0;
}
