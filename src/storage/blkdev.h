/* A block device as discovery lists it (discover.c) and the MD/LVM
 * assembly reads it (stack.c): the one type both share, so that neither
 * needs the other's header. */
#ifndef LB_BLKDEV_H
#define LB_BLKDEV_H

#include <stdint.h>

struct lb_blkdev {
	char name[64];     /* kernel name: vda, vda1, sr0, nvme0n1p2 */
	char disk[64];     /* the whole disk (== name for disks) */
	unsigned partno;   /* partition number, 0 for a whole disk */
	unsigned disk_idx; /* GRUB's N: hdN among disks, cdN among CD drives (sr*) */
	int is_cd;         /* an optical drive: GRUB calls it cdN, not hdN */
	int has_parts;     /* disk: the kernel found partitions on it */
	int is_virtual;    /* an MD array or device-mapper device (md*, dm-*):
			    * listed after the hardware disks, no hdN index */
	uint64_t size;     /* in 512-byte sectors */
	unsigned dev_major, dev_minor;
};

#endif
