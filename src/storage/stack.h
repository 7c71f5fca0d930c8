/*
 * Storage stacks under the filesystems of servers, set up read-only
 * without mdadm or lvm2: MD RAID1 arrays assembled through the md ioctls
 * and sysfs (array_state "readonly"), LVM2 logical volumes mapped through
 * the device-mapper ioctls (linear and striped tables, read-only), from the
 * superblocks and metadata lboot parses itself (src/storage/probe.c, lvm.c).
 * Also the mounts of XFS (norecovery when its log needs recovery) and
 * btrfs (the top-level subvolume, as GRUB addresses paths; the default
 * subvolume's path for btrfs_relative_path).
 */
#ifndef LB_STACK_H
#define LB_STACK_H

#include <stdio.h>

#include "blkdev.h"

struct lb_prefetch;

#define LB_STACK_MAX_MADE 64
#define LB_STACK_MAX_SEEN 512

struct lb_stack_dev {
	char kname[32];  /* kernel name: md127, dm-0 */
	char path[192];  /* what to call it: /dev/md127, /dev/mapper/vg-boot */
	char grub[192];  /* GRUB's name: md/boot, lvm/vg-boot */
};

struct lb_stack {
	size_t n_made;
	struct lb_stack_dev made[LB_STACK_MAX_MADE];
	size_t n_seen;
	struct {
		char name[64];    /* a device examined */
		char holder[128]; /* md device or volume group over it, "" if none */
		char what[64];    /* "md member", "LVM PV", "btrfs device" */
	} seen[LB_STACK_MAX_SEEN];
};

/* Examine the devices of devs not seen before (sysfs: the class/block
 * directory, devdir: /dev; what pf read of them is used, and a device pf
 * timed out on is left out): MD members are assembled into arrays, LVM PVs
 * into their volume groups' visible LVs, btrfs devices registered with the
 * kernel (multi-device filesystems). One log line per step. Returns how
 * many block devices were made (list the devices again and call this again
 * for stacks of stacks: LVM on MD), or -ENOMEM. */
int lb_stack_assemble(struct lb_stack *st, const char *sysfs, const char *devdir,
		      const struct lb_blkdev *devs, size_t n,
		      const struct lb_prefetch *pf, FILE *log);

/* The device made as kname, or NULL. */
const struct lb_stack_dev *lb_stack_made(const struct lb_stack *st,
					 const char *kname);
/* When name is a member of a device made (an MD member, an LVM PV used by
 * a mapped LV), what it is and of what: "md member of md127"; else NULL. */
const char *lb_stack_member(const struct lb_stack *st, const char *name,
			    char *buf, size_t sz);

/* Mount XFS read-only at dir: the device is set read-only for the mount,
 * so a log that needs recovery makes the first mount fail (EROFS) instead
 * of being replayed; then mounted with norecovery and *dirty set. */
int lb_mount_xfs(const char *devpath, const char *dir, unsigned long flags,
		 int *dirty);
/* Mount btrfs read-only at dir, its top-level subvolume (id 5). *subvol
 * gets the path of the default subvolume from there ("/@" or
 * "/@/.snapshots/1/snapshot"; malloc'd), NULL when it is the top level or
 * cannot be found. */
int lb_mount_btrfs(const char *devpath, const char *dir, unsigned long flags,
		   char **subvol);

#endif
