/*
 * Firmware update images (docs/firmware-update.md), and the one decision
 * whether one may be written to the boot flash.
 *
 *   FILE          a 4096-byte header, then the image (the whole flash)
 *   FILE.minisig  a minisign signature over all of FILE by an update key
 *                 (/etc/lboot/update/NAME.pub of the running firmware)
 *
 * header (little-endian):
 *   0   8  "LBOOTUPD"
 *   8   4  format, 1
 *   12  4  kind, 1: the whole flash; 2: a payload slot (slots.h: header,
 *          payload volume, erased bytes; written to the slot not running)
 *   16  8  version: the firmware-version the image's own policy carries
 *   24  8  offset of the image in FILE, 4096
 *   32  8  length of the image (the flash's size)
 *   40  32 SHA-256 of the image
 *   72  64 label: printable ASCII, NUL-padded (at least one NUL)
 *   136    zeros up to 4096
 */
#ifndef LB_UPDATE_H
#define LB_UPDATE_H

#include <stddef.h>
#include <stdint.h>

#include "bootflash.h"
#include "sig.h"
#include "slots.h"

#define LB_UPDATE_HDR 4096u
#define LB_UPDATE_KIND_FLASH 1u
#define LB_UPDATE_KIND_SLOT  2u
#define LB_UPDATE_MAX (LB_UPDATE_HDR + LB_FLASH_MAX)

struct lb_update_hdr {
	uint32_t kind;
	uint64_t version;
	uint64_t img_off, img_len;
	uint8_t sha256[32];
	char label[65];
	/* kind 2, set by lb_update_check: the slot to write */
	char slot;              /* 'A' or 'B': the one not running */
	uint64_t slot_off;      /* its offset in the flash */
	struct lb_slot_hdr sh;  /* the image's slot header */
};

/* Parse (strictly) the header of an update file of len bytes. */
int lb_update_parse(const uint8_t *buf, size_t len, struct lb_update_hdr *h,
		    char *why, size_t whysz);

/* Write the header for img of kind (host: lboot update image). */
int lb_update_header(uint32_t kind, uint64_t version, const char *label, const uint8_t *img,
		     size_t len, uint8_t hdr[LB_UPDATE_HDR], char *why, size_t whysz);

/* The UEFI variable store in a flash image (the volume with the NVRAM file
 * system GUID, 4 KiB aligned): 0, or -ENOENT. */
int lb_update_store(const uint8_t *img, size_t len, struct lb_flash_range *r);

struct lb_update_ctx {
	const struct lb_keyring *keys;  /* the running firmware's update keys */
	uint64_t running;               /* its firmware-version */
	int floor_set;                  /* update-floor-nv was read: */
	uint64_t floor;                 /* its value */
	char slot;                      /* the payload slot running (lboot.slot=): 'A', 'B'; 0 none */
};

/*
 * May FILE (file, len) with signature sig (siglen bytes of FILE.minisig)
 * replace the flash whose current contents are cur (curlen bytes)? In
 * order: the signature by an update key (before any byte of FILE is
 * parsed), the header, the image's SHA-256, the version (not below the
 * running firmware's, not below the NV floor), the flash's size, the
 * firmware kind (uefi, coreboot) on both sides, and the variable store at
 * the same place in both (it is kept: *keep, *nkeep). A payload slot (kind
 * 2) instead: the running firmware booted from a slot (c->slot), the
 * image is a slot that checks with the update's version, for the layout of
 * the running slot (the same slot table); h->slot and h->slot_off name the
 * other slot, the one to write. 0 when it may; else negative errno and why
 * in one line.
 */
int lb_update_check(const uint8_t *file, size_t len, const uint8_t *sig, size_t siglen,
		    const struct lb_update_ctx *c, const uint8_t *cur, size_t curlen,
		    struct lb_update_hdr *h, struct lb_flash_range *keep, size_t *nkeep,
		    char *why, size_t whysz);

#endif
