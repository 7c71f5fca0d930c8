/*
 * Verified boot in the boot flow (docs/verified-boot.md): the checks the
 * policy (policy.h) asks for, made on the bytes that are booted.
 *
 *  - config files, as a scan reads them (lb_verify_config, an
 *    lb_scan_check_fn): FILE.minisig / FILE.sig beside FILE on the same
 *    filesystem, over the exact bytes parsed;
 *  - an entry staged for kexec (lb_verify_stage, a lb_kexec_req check):
 *    a signed manifest for the entry (ID.manifest + .minisig, beside the
 *    kernel, in /loader/entries or /boot/loader/entries) binds it all;
 *    without one, the kernel needs a signature beside it (or, a PE kernel
 *    or UKI, an Authenticode signature chaining to a trusted CA), each
 *    initrd a signature beside it, and the command line the signatures of
 *    the config files that define it (a UKI's own .cmdline: the UKI's).
 * Off: nothing is checked. Warn: a failure is one line and the entry
 * boots. Enforce: the entry is refused (-EKEYREJECTED, "FILE: REASON").
 */
#ifndef LB_VERIFY_H
#define LB_VERIFY_H

#include <stdint.h>
#include <stdio.h>

#include "fs.h"
#include "kexec.h"
#include "policy.h"

struct lb_verifier {
	const struct lb_policy *pol;
	FILE *log;          /* "lboot: verified ..." and warn lines */
};

/* The digests the stage must compute for this policy (0 when off). */
unsigned lb_verify_mask(const struct lb_policy *p);

/* The one digest this entry's check will use: SHA-256 when it has a
 * manifest, BLAKE2b-512 (minisign ED) when not; 0 when off. */
unsigned lb_verify_mask_entry(const struct lb_policy *p, const struct lb_fsset *set,
			      const struct lb_entry *e);

/* lb_scan_check_fn: arg is a struct lb_verifier. */
int lb_verify_config(void *arg, const struct lb_fs *fs, const char *path,
		     const uint8_t *buf, size_t len);

/* A config fetched from url (an iPXE script, a pxelinux config): its
 * URL.minisig / URL.sig on the server, over buf. 0 or a sig.h reason. */
int lb_verify_url_config(const struct lb_verifier *v, const char *url,
			 const uint8_t *buf, size_t len);

/* The lb_kexec_req check: arg is a struct lb_verifier. The one place that
 * decides what may boot, from the policy and the staged bytes (and where
 * the command line came from: the staged UKI, a checked config's recorded
 * line, an allowed edit). Its evidence goes into st->verdict, whatever the
 * outcome: "verified 'TITLE': ... by manifest PATH vN, key K" (or key K,
 * PE signature), "NOT verified (verify warn|off) ...", "refused ...";
 * the boot log prints it and measured boot extends it into PCR 8. */
int lb_verify_stage(void *arg, const struct lb_entry *e, struct lb_stage *st,
		    char *why, size_t whysz);

#endif
