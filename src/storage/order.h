/*
 * The boot order as policy, not device names (issue 11): the filesystems
 * are scanned (and so their entries listed, the first one's default taken,
 * fallbacks tried) in this order:
 *   1. internal disks (NVMe, SATA/SAS, virtio, MD/DM built on them) before
 *      removable media (USB, optical, anything sysfs calls removable);
 *   2. within a class, the stable hardware path (the realpath of the
 *      disk's sysfs device: PCI topology, port, LUN), never the /dev name;
 *   3. partitions of one disk in partition order.
 * `lboot.order=TOKEN,...` (the kernel command line, or built in with
 * `lboot mkinitramfs --order`)
 * puts filesystems matching earlier tokens first: classes `internal`,
 * `removable`, `nvme`, `ata` (SATA/AHCI), `scsi` (SAS/SCSI HBAs,
 * virtio-scsi), `virtio` (virtio-blk), `usb`, `cd`, `md`, `dm`, or one
 * filesystem `uuid=U`, `label=L`, `partuuid=P`; what matches no token
 * comes after, in the default order. `net` places network boot: before the
 * disks when it is the first token, else after them. GRUB's hdN names are
 * not changed (they follow the firmware's disk order, as GRUB's do).
 */
#ifndef LB_ORDER_H
#define LB_ORDER_H

#include "fs.h"

#define LB_ORDER_MAX 256 /* bytes of lboot.order= */

/* The class of the block device behind fs (by its /dev name under sysfs,
 * default /sys/class/block): "nvme", "ata", "scsi", "virtio", "usb", "cd",
 * "md", "dm", "mmc" or "other"; *removable set for usb, cd and sysfs's
 * removable flag. path (size bytes) gets the stable hardware path. */
const char *lb_order_class(const char *sysfs, const struct lb_fs *fs, int *removable,
			   char *path, size_t size);

/* Sort set in place by the rules above and spec (NULL or "": the default).
 * Returns 1 when spec puts `net` first, 0 otherwise, -EINVAL for a token
 * it does not know (the default order is then used). */
int lb_order_sort(struct lb_fsset *set, const char *spec, const char *sysfs);

#endif
