/* Block device discovery on the target: enumerate /sys/class/block, probe
 * each disk's partition table and each filesystem, and mount what is found
 * read-only, producing the filesystem set the config parsers work on. */
#ifndef LB_DISCOVER_H
#define LB_DISCOVER_H

#include <stdint.h>
#include <stdio.h>

#include "blkdev.h"
#include "fs.h"
#include "log.h"

struct lb_discover_opts {
	const char *sysfs; /* default /sys/class/block */
	const char *dev;   /* default /dev */
	const char *mnt;   /* default /run/lboot/mnt */
	int wait_ms;       /* bound on waiting for devices (lboot.wait) */
	int stable_ms;     /* quiet time (lboot.settle); 0 = 250 ms with USB, else none */
	int no_mount;      /* probe only: fs entries get no dir */
	FILE *log;         /* progress lines, NULL for none */
};

/* Compare kernel device names in a stable human order: sda < sdb < sdaa,
 * vda2 < vda10, nvme0n1 < nvme1n1. */
int lb_devname_cmp(const char *a, const char *b);

/* List the block devices under opts->sysfs: disks sorted by name, each
 * followed by its partitions by number. RAM disks, zram and empty devices
 * (size 0: unused loop devices, CD drives without media) are left out.
 * *out is malloc'd. Returns 0 or negative errno. */
int lb_discover_list(const char *sysfs, struct lb_blkdev **out, size_t *n);

#define LB_DEFAULT_SETTLE_MS 250 /* with a USB host controller */
#define LB_SETTLE_NO_USB_MS 0 /* probing finished before /init */

/* Wait up to wait_ms for the device list to settle: returns as soon as at
 * least one disk exists, no device is known to be on its way (a USB
 * mass-storage interface without its disk yet, an NVMe controller not yet
 * live) and the list has not changed for stable_ms. Returns the number of
 * devices then present. */
size_t lb_discover_wait(const char *sysfs, int wait_ms, int stable_ms);

/*
 * The whole discovery: wait, list, probe, mount read-only under
 * opts->mnt/NAME, and add one lb_fs per mounted filesystem to *set (dir,
 * uuid, label, name=/dev/NAME, grub "hdN,gptM"/"hdN,msdosM"/"hdN", fstype,
 * partuuid). A filesystem that cannot be mounted gets one log line and is
 * skipped. *n_devices gets how many block devices were examined (drives
 * without a medium not counted). Returns 0
 * or negative errno (only for failures that stop everything, e.g. ENOMEM).
 */
int lb_discover(const struct lb_discover_opts *opts, struct lb_fsset *set,
		size_t *n_devices);

/* Unmount (lazily) everything lb_discover mounted and free the set. */
void lb_discover_release(struct lb_fsset *set);

#endif
