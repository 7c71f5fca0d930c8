/*
 * Applying a firmware update (docs/firmware-update.md): the running
 * firmware's policy, the boot flash, the decision (update.h) and the
 * programming (flash.h) in one place, shared by `lboot update` and PID 1
 * (lboot.update=). Nothing is written before every check passed.
 */
#ifndef LB_FWUPDATE_H
#define LB_FWUPDATE_H

#include <stddef.h>
#include <stdint.h>

#include "bootflash.h"
#include "update.h"

struct lb_fwupdate_opts {
	const char *root;       /* the policy's root: "/" on the target */
	const char *flash;      /* a device or flash image file; NULL: find it */
	const char *want;       /* lboot.flash=: which MTD, NULL: any */
	int apply;              /* 0: check only */
	int only_newer;         /* the same version as the running one: nothing to do */
	unsigned failk;         /* tests: fail the failk-th block written */
	char slot;              /* the payload slot running (lboot.slot=): 'A', 'B'; 0: none */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *arg;
};

struct lb_fwupdate_result {
	struct lb_update_hdr h;
	struct lb_flash_stats st;
	uint64_t running;       /* the running firmware's version */
	char flash[256];        /* what was (or would be) written */
	char kind[16];
};

/* A payload slot update (kind 2) writes only the slot not running (r->h.slot
 * at r->h.slot_off): its first erase block (the header) is erased first and
 * written last, so that the slot never checks before all of it is written;
 * progress then counts the slot's bytes. */
/* 0: the update may be (or was) written; 1: nothing to do (only_newer and
 * the same version); negative errno: refused or failed, why in one line. */
int lb_fwupdate(const uint8_t *file, size_t len, const uint8_t *sig, size_t siglen,
		const struct lb_fwupdate_opts *o, struct lb_fwupdate_result *r,
		char *why, size_t whysz);

#endif
