/*
 * The boot flash through Linux's MTD interface (docs/firmware-update.md):
 * find it by what it is, read it, and program it.
 *
 * A flash is either an MTD character device (/dev/mtdN: erase with
 * MEMERASE, then write) or, for host tools and tests, a flash image file of
 * the same shape (4 KiB erase blocks, no erase step). Programming compares
 * erase block by erase block and touches only the blocks that differ: each
 * is erased, written, read back and compared before the next one; ranges the
 * caller keeps (the variable store) are never erased or written.
 */
#ifndef LB_BOOTFLASH_H
#define LB_BOOTFLASH_H

#include <stddef.h>
#include <stdint.h>

#define LB_FLASH_MAX (64ull << 20)  /* the largest flash handled (bytes) */
#define LB_FLASH_FILE_ERASE 4096u   /* a file's erase block (QEMU's pflash) */

struct lb_flash {
	int fd;
	int is_mtd;
	int writable;           /* MTD_WRITEABLE, or the file opened for writing */
	char path[256];         /* /dev/mtdN or the file */
	char name[64];          /* the MTD's name (sysfs), or the file's path */
	char kind[16];          /* the image's firmware: "uefi", "coreboot", "unknown" */
	uint64_t size;
	uint32_t erasesize;
	uint8_t *img;           /* the contents as read at open (NULL: no memory) */
	/* tests: fail (EIO) the write of the failk-th block written (1-based) */
	unsigned failk;
};

struct lb_flash_range {
	uint64_t off, len;
};

struct lb_flash_stats {
	uint64_t blocks;        /* erase blocks compared */
	uint64_t differ;        /* of them, differing (and written) */
	uint64_t kept;          /* skipped: inside a kept range */
};

/*
 * Find the boot flash among the MTDs under sysfs (e.g. "/sys/class/mtd")
 * with their device nodes in devdir ("/dev"): a NOR MTD whose contents end
 * like an x86 boot ROM (a jump at the reset vector, 16 bytes below its end).
 * want (NULL: any) names one by its MTD name or "mtdN" (lboot.flash=).
 * Fills path (the device node); 0, or -ENODEV with why naming what was
 * seen.
 */
int lb_flash_locate(const char *sysfs, const char *devdir, const char *want,
		  char *path, size_t pathsz, char *why, size_t whysz);

/* Open an MTD device node or a flash image file (write: for programming);
 * its contents are read once into f->img (kind is set from them).
 * -ENOTTY, -EINVAL (a size not a multiple of the erase block or above
 * LB_FLASH_MAX) with why. */
int lb_flash_open(const char *path, int write, struct lb_flash *f, char *why, size_t whysz);
void lb_flash_close(struct lb_flash *f);

/* len bytes at off (within the flash). */
int lb_flash_read(struct lb_flash *f, uint64_t off, void *buf, size_t len);

/* What firmware the image holds: "uefi" (a firmware volume ends at its
 * end), "coreboot" (a CBFS master header pointer at its end), else
 * "unknown". */
const char *lb_flash_image_kind(const uint8_t *img, size_t len);

/*
 * Program img (exactly f->size bytes) into f: for each erase block outside
 * keep[], read it; when it differs from img, erase it, write it, read it
 * back and compare. progress (may be NULL) is called after each block with
 * the bytes done and the total. Kept ranges must be erase-block aligned
 * (-EINVAL, nothing written). On a failure: negative errno and why names
 * the block's offset; blocks before it are already written.
 */
int lb_flash_program(struct lb_flash *f, const uint8_t *img, size_t len,
		     const struct lb_flash_range *keep, size_t nkeep,
		     void (*progress)(void *arg, uint64_t done, uint64_t total), void *arg,
		     struct lb_flash_stats *st, char *why, size_t whysz);

/* A progress callback for lb_flash_program: "WHO: writing N%" on stderr at
 * every 10 %; arg is a struct lb_flash_progress. */
struct lb_flash_progress {
	const char *who;
	unsigned last;
};
void lb_flash_progress_stderr(void *arg, uint64_t done, uint64_t total);

/* Compare the flash with img outside keep[]: 0 equal, 1 differ (*first:
 * the first differing offset), negative errno. */
int lb_flash_compare(struct lb_flash *f, const uint8_t *img, size_t len,
		     const struct lb_flash_range *keep, size_t nkeep, uint64_t *first);

#endif
