/* Block device discovery: sysfs enumeration, probes, read-only mounts. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "discover.h"
#include "io.h"
#include "probe.h"
#include "progress.h"
#include "prefetch.h"
#include "stack.h"

#define MAX_DEVS 512
#define MAX_HEAD (16u << 20)

static const char *or_def(const char *s, const char *d)
{
	return s && *s ? s : d;
}

int lb_devname_cmp(const char *a, const char *b)
{
	/* runs of digits compare as numbers, runs of letters by length and
	 * then bytes (kernel letter suffixes count like sda..sdz, sdaa) */
	while (*a && *b) {
		size_t la = 0, lb = 0;
		int da = isdigit((unsigned char)*a), db = isdigit((unsigned char)*b);

		if (da != db)
			return da ? -1 : 1;
		if (da) {
			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			while (isdigit((unsigned char)a[la]))
				la++;
			while (isdigit((unsigned char)b[lb]))
				lb++;
		} else {
			while (a[la] && !isdigit((unsigned char)a[la]))
				la++;
			while (b[lb] && !isdigit((unsigned char)b[lb]))
				lb++;
		}
		if (la != lb)
			return la < lb ? -1 : 1;
		int c = memcmp(a, b, la);
		if (c)
			return c < 0 ? -1 : 1;
		a += la;
		b += lb;
	}
	return *a ? 1 : *b ? -1 : 0;
}

/* Read a small sysfs attribute dir/name/attr into buf (trailing newline cut). */
static int read_attr(const char *dir, const char *name, const char *attr,
		     char *buf, size_t sz)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, name, attr) >= sizeof(path))
		return -ENAMETOOLONG;
	return lb_read_attr(path, buf, sz);
}

static int read_u64(const char *dir, const char *name, const char *attr,
		    uint64_t *v)
{
	char b[64], *end;
	unsigned long long x;
	int r;

	if ((r = read_attr(dir, name, attr, b, sizeof(b))))
		return r;
	errno = 0;
	x = strtoull(b, &end, 10);
	if (errno || end == b || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

static int skip_name(const char *n)
{
	return !strncmp(n, "ram", 3) || !strncmp(n, "zram", 4) ||
	       !strncmp(n, "mtdblock", 8) || n[0] == '.';
}

static int virtual_name(const char *n)
{
	return !strncmp(n, "dm-", 3) ||
	       (!strncmp(n, "md", 2) && n[2] >= '0' && n[2] <= '9');
}

static int cmp_dev(const void *pa, const void *pb)
{
	const struct lb_blkdev *a = pa, *b = pb;
	int c = virtual_name(a->disk) - virtual_name(b->disk);

	if (c)
		return c; /* arrays and mapped devices after the disks */
	c = lb_devname_cmp(a->disk, b->disk);

	if (c)
		return c;
	if (a->partno != b->partno)
		return a->partno < b->partno ? -1 : 1;
	return lb_devname_cmp(a->name, b->name);
}

int lb_discover_list(const char *sysfs, struct lb_blkdev **out, size_t *n)
{
	struct lb_blkdev *v = NULL;
	size_t k = 0, cap = 0;
	struct dirent *d;
	DIR *dir;

	sysfs = or_def(sysfs, "/sys/class/block");
	if (!(dir = opendir(sysfs)))
		return -errno;
	while ((d = readdir(dir))) {
		char path[PATH_MAX], real[PATH_MAX], b[32];
		struct lb_blkdev dev;
		uint64_t v64;

		if (skip_name(d->d_name) || strlen(d->d_name) >= sizeof(dev.name))
			continue;
		memset(&dev, 0, sizeof(dev));
		strcpy(dev.name, d->d_name);
		if (read_u64(sysfs, d->d_name, "size", &dev.size) || !dev.size)
			continue;
		if (!read_u64(sysfs, d->d_name, "partition", &v64)) {
			char *slash;

			if (!v64 || v64 > 100000)
				continue;
			dev.partno = (unsigned)v64;
			/* the parent directory of a partition is its disk */
			if ((size_t)snprintf(path, sizeof(path), "%s/%s", sysfs,
					     d->d_name) >= sizeof(path) ||
			    !realpath(path, real) || !(slash = strrchr(real, '/')))
				continue;
			*slash = 0;
			if (!(slash = strrchr(real, '/')) ||
			    strlen(slash + 1) >= sizeof(dev.disk))
				continue;
			strcpy(dev.disk, slash + 1);
		} else {
			strcpy(dev.disk, dev.name);
		}
		if (!read_attr(sysfs, d->d_name, "dev", b, sizeof(b))) {
			unsigned ma, mi;
			if (sscanf(b, "%u:%u", &ma, &mi) == 2) {
				dev.dev_major = ma;
				dev.dev_minor = mi;
			}
		}
		if (k >= MAX_DEVS)
			break;
		if (k == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct lb_blkdev *nv = realloc(v, nc * sizeof(*v));
			if (!nv) {
				closedir(dir);
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap = nc;
		}
		v[k++] = dev;
	}
	closedir(dir);
	if (k)
		qsort(v, k, sizeof(*v), cmp_dev);
	/* disk indexes; a partition whose disk is not listed is dropped */
	{
		size_t w = 0;
		unsigned idx = 0, cd_idx = 0;
		long last_disk = -1;

		for (size_t i = 0; i < k; i++) {
			if (!v[i].partno) {
				v[i].is_cd = !strncmp(v[i].name, "sr", 2);
				v[i].is_virtual = virtual_name(v[i].name);
				v[i].disk_idx = v[i].is_virtual ? 0 : v[i].is_cd ? cd_idx++ : idx++;
				last_disk = (long)w;
				v[w++] = v[i];
			} else if (last_disk >= 0 &&
				   !strcmp(v[last_disk].name, v[i].disk)) {
				v[i].disk_idx = v[last_disk].disk_idx;
				v[i].is_cd = v[last_disk].is_cd;
				v[i].is_virtual = v[last_disk].is_virtual;
				v[last_disk].has_parts = 1;
				v[w++] = v[i];
			}
		}
		k = w;
	}
	*out = v;
	*n = k;
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* a cheap fingerprint of the device list */
static int snapshot(const char *sysfs, uint64_t *hash, size_t *n, size_t *disks)
{
	struct lb_blkdev *v;
	uint64_t h = 1469598103934665603ull;
	int r;

	if ((r = lb_discover_list(sysfs, &v, n)))
		return r;
	*disks = 0;
	for (size_t i = 0; i < *n; i++) {
		for (const char *p = v[i].name; *p; p++)
			h = (h ^ (uint8_t)*p) * 1099511628211ull;
		h = (h ^ v[i].size) * 1099511628211ull;
		h = (h ^ '/') * 1099511628211ull;
		if (!v[i].partno)
			(*disks)++;
	}
	free(v);
	*hash = h;
	return 0;
}

/* Does `dir` (a sysfs device directory) have a block device below it,
 * within `depth` levels? usb-storage: INTF/hostN/targetN:0:0/N:0:0:0/block */
static int has_block(const char *dir, int depth)
{
	struct dirent *d;
	DIR *dp;
	int found = 0;

	if (depth < 0 || !(dp = opendir(dir)))
		return 0;
	while (!found && (d = readdir(dp))) {
		char sub[PATH_MAX];

		if (d->d_type != DT_DIR || d->d_name[0] == '.' ||
		    !strcmp(d->d_name, "subsystem") || !strcmp(d->d_name, "driver") ||
		    !strcmp(d->d_name, "power"))
			continue;
		if (!strcmp(d->d_name, "block")) {
			found = 1;
			break;
		}
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, d->d_name) >= sizeof(sub))
			continue;
		found = has_block(sub, depth - 1);
	}
	closedir(dp);
	return found;
}

/* Does NVMe controller NAME have a namespace (NAMEnX or nvmeXcYnZ) yet? */
static int has_namespace(const char *classdir, const char *name)
{
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int found = 0;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", classdir, name) >= sizeof(dir) ||
	    !(dp = opendir(dir)))
		return 1; /* cannot tell: do not hold the boot */
	while (!found && (d = readdir(dp)))
		found = !strncmp(d->d_name, "nvme", 4) && strchr(d->d_name + 4, 'n');
	closedir(dp);
	return found;
}

/* Is there a USB host controller (root hub usbN)? */
static int have_usb(const char *sysroot)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int found = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/bus/usb/devices", sysroot) >= sizeof(path) ||
	    !(dp = opendir(path)))
		return 0;
	while (!found && (d = readdir(dp)))
		found = !strncmp(d->d_name, "usb", 3);
	closedir(dp);
	return found;
}

/*
 * Devices known to be on their way: a USB mass-storage interface bound to
 * usb-storage or uas whose disk has not appeared yet (usb-storage waits
 * delay_use seconds before scanning), an NVMe controller not yet live.
 * Built-in virtio, AHCI and SCSI probing is finished before /init runs
 * (the kernel waits for async probes), so these are what arrives late.
 */
static int pending_devices(const char *sysroot)
{
	static const char *const usb[] = { "bus/usb/drivers/usb-storage",
					    "bus/usb/drivers/uas" };
	char path[PATH_MAX - 64];
	struct dirent *d;
	DIR *dp;
	int n = 0;

	for (size_t i = 0; i < sizeof(usb) / sizeof(usb[0]); i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", sysroot, usb[i]) >= sizeof(path) ||
		    !(dp = opendir(path)))
			continue;
		while ((d = readdir(dp))) {
			char intf[PATH_MAX];

			if (!strchr(d->d_name, ':'))
				continue; /* bind, unbind, module, ... */
			if ((size_t)snprintf(intf, sizeof(intf), "%s/%s", path,
					     d->d_name) >= sizeof(intf))
				continue;
			if (!has_block(intf, 5))
				n++;
		}
		closedir(dp);
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/class/nvme", sysroot) < sizeof(path) &&
	    (dp = opendir(path))) {
		while ((d = readdir(dp))) {
			char st[PATH_MAX], buf[32] = "";
			int fd;
			ssize_t got;

			if (d->d_name[0] == '.')
				continue;
			if ((size_t)snprintf(st, sizeof(st), "%s/%s/state", path,
					     d->d_name) >= sizeof(st))
				continue;
			if ((fd = open(st, O_RDONLY | O_CLOEXEC)) < 0)
				continue;
			got = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (got > 0 && strncmp(buf, "live", 4) && strncmp(buf, "dead", 4))
				n++;
			else if (got > 0 && !strncmp(buf, "live", 4) &&
				 !has_namespace(path, d->d_name))
				n++; /* live, namespaces still being scanned */
		}
		closedir(dp);
	}
	return n;
}

size_t lb_discover_wait(const char *sysfs, int wait_ms, int stable_ms)
{
	long start = now_ms(), since = start;
	uint64_t h = 0, prev = 0;
	size_t n = 0, disks = 0;
	int have = 0;
	char sysroot[PATH_MAX - 128];
	const char *cb;

	if (!sysfs)
		sysfs = "/sys/class/block";
	/* the sysfs root holding class/block (tests pass a fake tree) */
	snprintf(sysroot, sizeof(sysroot), "%s", sysfs);
	if ((cb = strstr(sysroot, "/class/block")) && !cb[12])
		sysroot[cb - sysroot] = 0;
	/* A USB device may still be enumerating (nothing in sysfs says so):
	 * with a USB host controller, wait for a quiet spell; without one,
	 * built-in drivers finished probing before /init ran. */
	if (stable_ms <= 0)
		stable_ms = have_usb(sysroot) ? LB_DEFAULT_SETTLE_MS : LB_SETTLE_NO_USB_MS;
	for (;;) {
		long t;

		if (snapshot(sysfs, &h, &n, &disks))
			n = disks = 0, h = 0;
		t = now_ms();
		if (!have || h != prev || pending_devices(sysroot)) {
			prev = h;
			since = t;
			have = 1;
		}
		if (disks && t - since >= stable_ms)
			break;
		if (t - start >= wait_ms)
			break;
		struct timespec ts = { 0, 50 * 1000000L };
		nanosleep(&ts, NULL);
	}
	return n;
}

/* pread the first `want` bytes (fewer on a short device, or when a read
 * error comes after some bytes). */
static int read_head(int fd, uint8_t *buf, size_t want, size_t *got)
{
	size_t n = 0;
	int r = lb_pread_full(fd, buf, want, 0, &n);

	if (r && !n)
		return r;
	*got = n;
	return 0;
}

/* <linux/cdrom.h> */
#define LB_CDROM_DRIVE_STATUS 0x5326
#define LB_CDSL_CURRENT ((int)(~0U >> 1))
#define LB_CDS_DISC_OK 4

static int open_dev(const char *devdir, const struct lb_blkdev *d, char *path,
		    size_t pathsz)
{
	int fd;

	if ((size_t)snprintf(path, pathsz, "%s/%s", devdir, d->name) >= pathsz)
		return -ENAMETOOLONG;
	if (d->is_cd) {
		/* An optical drive: ask whether a disc is in before a normal
		 * open, which on an empty drive spends ~150 ms (QEMU TCG)
		 * failing its media checks. O_NONBLOCK opens without them. */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			int st = ioctl(fd, LB_CDROM_DRIVE_STATUS, LB_CDSL_CURRENT);
			close(fd);
			if (st >= 0 && st != LB_CDS_DISC_OK)
				return -ENOMEDIUM;
		}
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && (d->dev_major || d->dev_minor)) {
		/* no devtmpfs node (yet): make one */
		if (mknod(path, S_IFBLK | 0600, makedev(d->dev_major, d->dev_minor)) == 0 ||
		    errno == EEXIST)
			fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

/* The backup GPT at the end of the disk (size in 512-byte sectors). */
static int gpt_backup(int fd, uint64_t size, unsigned lbs, struct lb_ptable *pt)
{
	uint64_t last, elba;
	uint8_t *hdr, *ents = NULL;
	size_t elen;
	int r;

	if (size < 4 || size > UINT64_MAX / 512 || !(hdr = malloc(lbs)))
		return -EINVAL;
	last = size * 512 / lbs - 1;
	if (!(r = lb_pread_full(fd, hdr, lbs, last * lbs, NULL)) &&
	    !(r = lb_probe_gpt_backup_loc(hdr, lbs, lbs, last, &elba, &elen))) {
		if (elba > UINT64_MAX / lbs || !(ents = malloc(elen ? elen : 1)))
			r = -ENOMEM;
		else if (!(r = lb_pread_full(fd, ents, elen, elba * lbs, NULL)))
			r = lb_probe_gpt_backup(hdr, lbs, lbs, last, ents, elen, pt);
	}
	free(ents);
	free(hdr);
	return r;
}

static int protective_only(const struct lb_ptable *pt)
{
	for (size_t i = 0; i < pt->n; i++)
		if (pt->v[i].mbr_type == 0xee)
			return 1;
	return 0;
}

static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static const char *mount_reason(int err)
{
	switch (err) {
	case EINVAL:
		return "invalid or unsupported filesystem (EINVAL)";
	case EUCLEAN:
		return "filesystem corrupt (EUCLEAN)";
	case ENODEV:
		return "filesystem type not supported by the kernel (ENODEV)";
	case EIO:
		return "I/O error (EIO)";
	default:
		return strerror(err);
	}
}

#define MNT_FLAGS (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)

static int do_mount(const char *devpath, const char *dir,
		    const struct lb_probe *p, int *dirty, char **subvol)
{
	int ext = !strncmp(p->type, "ext", 3);

	if (!strcmp(p->type, "xfs"))
		return lb_mount_xfs(devpath, dir, MNT_FLAGS, dirty);
	if (!strcmp(p->type, "btrfs"))
		return lb_mount_btrfs(devpath, dir, MNT_FLAGS, subvol);

	if (ext) {
		/* never write to the disk: a journal that needs recovery is
		 * not replayed (noload); a clean one mounts as is */
		if (p->flags & LB_PROBE_DIRTY) {
			if (!mount(devpath, dir, "ext4", MNT_FLAGS, "noload"))
				return 0;
			return -errno;
		}
		if (!mount(devpath, dir, "ext4", MNT_FLAGS, NULL))
			return 0;
		int e = errno;
		if (!mount(devpath, dir, "ext4", MNT_FLAGS, "noload"))
			return 0;
		if (!mount(devpath, dir, p->type, MNT_FLAGS, NULL))
			return 0;
		return -e;
	}
	if (!mount(devpath, dir, p->type, MNT_FLAGS, NULL))
		return 0;
	return -errno;
}

static int set_str(char **dst, const char *s)
{
	if (!s || !*s)
		return 0;
	return (*dst = strdup(s)) ? 0 : -ENOMEM;
}

int lb_discover(const struct lb_discover_opts *o, struct lb_fsset *set,
		size_t *n_devices)
{
	const char *sysfs = or_def(o->sysfs, "/sys/class/block");
	const char *devdir = or_def(o->dev, "/dev");
	const char *mnt = or_def(o->mnt, "/run/lboot/mnt");
	struct lb_ptable *pt = NULL;
	struct lb_blkdev *devs = NULL;
	struct lb_stack *st = NULL;
	struct lb_prefetch *pf = NULL;
	size_t n = 0, pt_disk = (size_t)-1;
	uint8_t *head = NULL;
	int r;

	*n_devices = 0;
	if (o->wait_ms > 0)
		lb_discover_wait(sysfs, o->wait_ms, o->stable_ms);
	if ((r = lb_discover_list(sysfs, &devs, &n)))
		return r;
	if (!(pt = malloc(sizeof(*pt))) || !(head = malloc(LB_PROBE_BYTES)) ||
	    !(st = calloc(1, sizeof(*st)))) {
		r = -ENOMEM;
		goto out;
	}
	/* every device's first and last bytes read in parallel (prefetch.c):
	 * one that does not answer within 3/4 of the probe bound is left out,
	 * before PID 1's watch would stop the whole boot process over it */
	if ((pf = lb_prefetch_start(devdir, devs, n))) {
		int bound = lb_progress_default_ms(LB_PHASE_PROBE);
		size_t left;

		lb_progress_bound(LB_PHASE_PROBE, "(all devices)", bound);
		left = lb_prefetch_wait(pf, bound > 0 ? bound / 4 * 3 : INT_MAX);
		if (left)
			lb_logf(o->log, "lboot: %zu device%s did not answer within %d ms: left out\n",
			      left, left == 1 ? "" : "s", bound / 4 * 3);
	}
	/* MD arrays and LVM volumes (stack.c), then the list again with the
	 * devices made; again for stacks of them (LVM on MD) */
	for (int round = 0; round < 4 && !o->no_mount; round++) {
		int made = lb_stack_assemble(st, sysfs, devdir, devs, n, pf, o->log);

		if (made < 0) {
			r = made;
			goto out;
		}
		if (!made)
			break;
		free(devs);
		devs = NULL;
		if ((r = lb_discover_list(sysfs, &devs, &n)))
			goto out;
	}
	*n_devices = n;
	for (size_t i = 0; i < n; i++) {
		const struct lb_blkdev *d = &devs[i];
		char devpath[PATH_MAX], dir[PATH_MAX], grub[256], diskpath[PATH_MAX], why[128];
		const struct lb_stack_dev *made = d->is_virtual ? lb_stack_made(st, d->disk) : NULL;
		const uint8_t *ph, *ptl;
		uint64_t ptoff;
		size_t phlen, ptlen;
		char *subvol = NULL;
		struct lb_probe p;
		struct lb_fs fs;
		size_t got = 0;
		int fd, dirty = 0;

		snprintf(devpath, sizeof(devpath), "%s/%s", devdir, d->name);
		/* PID 1 stopped a boot process stuck on it (or on its disk) */
		snprintf(diskpath, sizeof(diskpath), "%s/%s", devdir, d->disk);
		if (lb_progress_skipped(devpath) || lb_progress_skipped(diskpath)) {
			lb_logf(o->log, "lboot: %s: skipped: it hung earlier\n", devpath);
			continue;
		}
		if (lb_stack_member(st, d->name, why, sizeof(why))) {
			lb_logf(o->log, "lboot: %s: %s\n", devpath, why);
			continue;
		}
		r = lb_prefetch_get(pf, d->name, &ph, &phlen, &ptl, &ptoff, &ptlen);
		if (r == -ETIMEDOUT) {
			lb_logf(o->log, "lboot: %s: no answer in time: left out\n", devpath);
			continue;
		}
		lb_progress(LB_PHASE_PROBE, devpath);
		fd = open_dev(devdir, d, devpath, sizeof(devpath));
		if (fd == -ENOMEDIUM) {
			(*n_devices)--; /* an empty drive: not a device to boot from */
			continue;
		}
		if (fd < 0) {
			lb_logf(o->log, "lboot: %s/%s: cannot open: %s\n", devdir,
			      d->name, strerror(-fd));
			continue;
		}
		if (!r) {
			memcpy(head, ph, phlen); /* read already, in parallel */
			got = phlen;
		} else {
			r = read_head(fd, head, LB_PROBE_BYTES, &got);
		}
		if (r) {
			lb_logf(o->log, "lboot: %s: cannot read: %s\n", devpath,
			      strerror(-r));
			close(fd);
			continue;
		}
		if (!d->partno) {
			/* the disk: its partition table names the partitions */
			uint64_t lbs = 512;
			char sub[96];

			snprintf(sub, sizeof(sub), "queue/logical_block_size");
			if (read_u64(sysfs, d->name, sub, &lbs) || lbs < 512 ||
			    lbs > 65536 || (lbs & (lbs - 1)))
				lbs = 512;
			pt_disk = i;
			r = lb_probe_ptable(head, got, (unsigned)lbs, pt);
			if (r == -ERANGE) {
				size_t need = lb_probe_gpt_need(head, got, (unsigned)lbs);
				uint8_t *big = need && need <= MAX_HEAD ? malloc(need) : NULL;
				size_t g2;

				r = -EBADMSG;
				if (big && !read_head(fd, big, need, &g2))
					r = lb_probe_ptable(big, g2, (unsigned)lbs, pt);
				free(big);
			}
			if ((r == -EBADMSG || (!r && pt->kind == LB_PT_MBR &&
					       protective_only(pt))) &&
			    !gpt_backup(fd, d->size, (unsigned)lbs, pt)) {
				lb_logf(o->log, "lboot: %s: primary GPT damaged, using the backup GPT\n",
				      devpath);
				r = 0;
			}
			if (r) {
				lb_logf(o->log, "lboot: %s: partition table unreadable: %s\n",
				      devpath, strerror(-r));
				pt->kind = LB_PT_NONE;
				pt->n = 0;
			}
			if (d->has_parts) {
				lb_logf(o->log, "lboot: disk %s (%s%u): %s partition table\n",
				      devpath, d->is_cd ? "cd" : "hd", d->disk_idx,
				      pt->kind == LB_PT_GPT ? "gpt" :
				      pt->kind == LB_PT_MBR ? "msdos" : "unknown");
				close(fd);
				continue;
			}
		}
		close(fd);
		if (lb_probe_fs(head, got, &p)) {
			lb_logf(o->log, "lboot: %s: no known filesystem\n", devpath);
			continue;
		}
		if (d->is_virtual) {
			/* GRUB's names: md/NAME, lvm/VG-LV */
			const char *base = made ? made->grub : d->disk;
			if (d->partno) {
				const char *kind = pt_disk < n && !strcmp(devs[pt_disk].name, d->disk) &&
						   pt->kind == LB_PT_GPT ? "gpt" : "msdos";
				snprintf(grub, sizeof(grub), "%s,%s%u", base, kind, d->partno);
			} else {
				snprintf(grub, sizeof(grub), "%s", base);
			}
		} else if (d->partno) {
			const char *kind = "";
			if (pt_disk < n && !strcmp(devs[pt_disk].name, d->disk))
				kind = pt->kind == LB_PT_GPT ? "gpt" :
				       pt->kind == LB_PT_MBR ? "msdos" : "";
			snprintf(grub, sizeof(grub), "%s%u,%s%u", d->is_cd ? "cd" : "hd",
				 d->disk_idx, kind, d->partno);
		} else {
			snprintf(grub, sizeof(grub), "%s%u", d->is_cd ? "cd" : "hd",
				 d->disk_idx);
		}
		lb_logf(o->log, "lboot: found %s %s uuid=%s label=%s (%s)%s\n", devpath,
		      p.type, p.uuid[0] ? p.uuid : "-", p.label[0] ? p.label : "-",
		      grub, p.flags & LB_PROBE_DIRTY ? " journal needs recovery: not replayed" : "");
		if ((p.flags & LB_PROBE_MULTIDEV) && lb_fsset_by_uuid(set, p.uuid)) {
			lb_logf(o->log, "lboot: %s: btrfs device of %s, mounted already\n",
			      devpath, p.uuid);
			continue;
		}
		if (p.flags & (LB_PROBE_NOMOUNT | LB_PROBE_UNSUPPORTED)) {
			lb_logf(o->log, "lboot: %s: %s: skipped: %s\n", devpath, p.type,
			      p.flags & LB_PROBE_NOMOUNT ? "not a mountable filesystem"
							 : "unsupported incompatible features");
			continue;
		}
		memset(&fs, 0, sizeof(fs));
		if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", mnt, d->name) >= sizeof(dir))
			continue;
		if (!o->no_mount) {
			if ((r = mkdir_p(dir))) {
				lb_logf(o->log, "lboot: %s: %s: cannot create %s: %s\n",
				      devpath, p.type, dir, strerror(-r));
				continue;
			}
			/* a rescan finds earlier mounts: drop them first */
			umount2(dir, MNT_DETACH);
			lb_progress(LB_PHASE_MOUNT, devpath);
			if ((r = do_mount(devpath, dir, &p, &dirty, &subvol))) {
				lb_logf(o->log, "lboot: %s: %s: mount failed: %s\n",
				      devpath, p.type, mount_reason(-r));
				rmdir(dir);
				continue;
			}
			if (dirty)
				lb_logf(o->log, "lboot: %s: xfs: log needs recovery: mounted with norecovery, not replayed\n",
				      devpath);
			if (subvol)
				lb_logf(o->log, "lboot: %s: btrfs: top level mounted, default subvolume %s\n",
				      devpath, subvol);
		}
		fs.subvol = subvol;
		if ((!o->no_mount && set_str(&fs.dir, dir)) ||
		    set_str(&fs.uuid, p.uuid) || set_str(&fs.label, p.label) ||
		    set_str(&fs.name, made && !d->partno ? made->path : devpath) ||
		    set_str(&fs.grub, grub) ||
		    set_str(&fs.fstype, p.type)) {
			lb_fs_free(&fs);
			r = -ENOMEM;
			goto out;
		}
		if (d->partno && pt_disk < n && !strcmp(devs[pt_disk].name, d->disk)) {
			const struct lb_part *part = lb_ptable_find(pt, d->partno);
			if (part && set_str(&fs.partuuid, part->uuid)) {
				lb_fs_free(&fs);
				r = -ENOMEM;
				goto out;
			}
		}
		if ((r = lb_fsset_add(set, &fs))) {
			if (fs.dir && !o->no_mount)
				umount2(fs.dir, MNT_DETACH);
			lb_fs_free(&fs);
			goto out;
		}
	}
	r = 0;
out:
	lb_prefetch_free(pf);
	free(st);
	free(head);
	free(pt);
	free(devs);
	return r;
}

void lb_discover_release(struct lb_fsset *set)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].dir) {
			umount2(set->v[i].dir, MNT_DETACH);
			rmdir(set->v[i].dir);
		}
	lb_fsset_free(set);
}
