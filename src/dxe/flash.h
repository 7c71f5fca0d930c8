/*
 * Finding lboot's payload (kernel, initramfs) in the memory-mapped flash,
 * without the DXE core's firmware volume protocol: `lboot mkrom` stores
 * them uncompressed in the top-level flash volume (OVMF's FVMAIN_COMPACT),
 * which the DXE core never sees (SEC decompresses what is inside it), or in
 * a payload volume of their own below the variable store (larger flash).
 *
 * The flash is mapped so that it ends at `top` (4 GiB on x86: the reset
 * vector is in the last volume). Volumes are found from the top down: the
 * volume that ends at `top`, then the one that ends where that one starts,
 * and so on; a volume is an aligned EFI_FIRMWARE_VOLUME_HEADER ("_FVH",
 * FFS2/FFS3 file system, valid header checksum) whose FvLength reaches
 * exactly to the end of the previous one. A volume of another file system
 * (OVMF's variable store) is a link of that chain but is not searched: in
 * the larger ROM layout (docs/rom.md) the payload volume ends where the
 * store begins, at the bottom of pflash unit 1. Reads never go below
 * top - max_scan nor above top. Every size and offset is checked.
 *
 * Plain freestanding C (flash.c's only other include is ../lib/le.h, which
 * has none): built into lbootdxe and into the host unit test
 * (tests/unit/test_mkrom.c), which runs it on a ROM image.
 */
#ifndef LBOOT_DXE_FLASH_H
#define LBOOT_DXE_FLASH_H

#define LB_FLASH_MAX_SCAN   (16ull << 20) /* flash size at most (q35: 8/16 MiB) */
#define LB_FLASH_ALIGN      0x1000ull     /* volume start alignment probed */
#define LB_FLASH_MAX_VOLS   16

#define LB_FLASH_SECTION_PE32 0x10
#define LB_FLASH_SECTION_RAW  0x19

/*
 * Look for the FFS file named guid (16 bytes, on-disk order) in the flash
 * volumes ending at top, and its first section of type sect_type. On
 * success returns 0 and points *data and *size at the section body (inside the
 * flash). Returns -1 when not found, -2 when a volume or a file on the way
 * is malformed (the walk stops there). *nvols (may be 0) gets the number of
 * volumes walked.
 */
int lb_flash_find(const unsigned char *top, unsigned long long max_scan,
		  const unsigned char guid[16], unsigned char sect_type,
		  const unsigned char **data, unsigned long long *size,
		  unsigned *nvols);

/* How far below top the chain of volumes reaches (0: no volume at top):
 * the flash lboot's ROM occupies, [top - extent, top). */
unsigned long long lb_flash_extent(const unsigned char *top, unsigned long long max_scan);

#endif
