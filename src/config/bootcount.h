/*
 * Automatic Boot Assessment (systemd.io/AUTOMATIC_BOOT_ASSESSMENT) as
 * systemd-boot does it: the counters "+LEFT[-DONE]" at the end of a BLS
 * entry's file name, before ".conf" (type 1) or ".efi" (type 2); the name
 * the file gets when it is booted; and how systemd-boot matches an entry
 * id from an EFI variable (LoaderEntryOneShot, LoaderEntryDefault). Pure:
 * negative errno, never logs.
 */
#ifndef LB_BOOTCOUNT_H
#define LB_BOOTCOUNT_H

#include <stddef.h>

struct lb_bootcount {
	size_t prefix; /* bytes of the name before the '+' */
	int left;      /* tries left */
	int done;      /* tries done (0 when the name has no "-DONE") */
};

/* Parse fname ("NAME+LEFT[-DONE]SUFFIX", SUFFIX compared without case):
 * the last '+' starts the counter, which must run up to the suffix. 0, or
 * -ENOENT when the name has no counter (or a counter above INT_MAX). */
int lb_bootcount_parse(const char *fname, const char *suffix, struct lb_bootcount *bc);

/* The name systemd-boot renames fname to when it boots it:
 * NAME+(LEFT-1, not below 0)-(DONE+1)SUFFIX (suffix as given). -ENOENT
 * without a counter, -ENOSPC. */
int lb_bootcount_next(const char *fname, const char *suffix, char *out, size_t outsz);

/* systemd-boot's entry id for a BLS file name: the name lower-cased
 * (counter and suffix kept), into out. -ENOSPC. */
int lb_bootcount_sdboot_id(const char *fname, char *out, size_t outsz);

/* Does a variable's value (an id or a glob, as systemd-boot matches it,
 * without case) name this entry? fname: its BLS file name (may be NULL for
 * entries not from a BLS file), suffix ".conf"/".efi", id: lboot's id (the
 * name without counter and suffix). Matched against the systemd-boot id
 * (file name with counter), the file name without counter, and the id.
 * 1 or 0. */
int lb_bootcount_id_match(const char *pattern, const char *fname, const char *suffix,
			  const char *id);

#endif
