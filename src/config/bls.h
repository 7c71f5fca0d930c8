/*
 * Boot Loader Specification (UAPI.1): type 1 entries (loader/entries/NAME.conf),
 * type 2 entries (unified kernel images in EFI/Linux/NAME.efi) and
 * loader/loader.conf, with systemd-boot's ordering and default selection.
 * Library code: negative errno, never logs.
 */
#ifndef LB_BLS_H
#define LB_BLS_H

#include <stddef.h>
#include <sys/stat.h>

#include "arch.h"
#include "entry.h"
#include "fs.h"

/* The architecture we boot is LB_BLS_ARCH (arch.h; BLS `architecture`
 * values: ia32 x64 aa64 ...). */

/*
 * Parse the bytes of one type 1 entry file. `fname` is its file name (with
 * ".conf" and an optional boot counting suffix "+LEFT[-DONE]"); `where` is
 * used for `source` ("where:LINE") and messages. Paths, options and all other
 * values are kept raw (no prefix, no $var expansion). Fills *e (fs unset) and
 * *tries_left (-1 without boot counting). Returns 0, or -ENOENT when the entry
 * boots nothing kexec can use (no linux/uki, `efi` only: a message says why),
 * -ENOMEM.
 */
int lb_bls_parse_entry(const char *fname, const char *where, const char *buf,
		       size_t len, struct lb_entry *e, int *tries_left,
		       struct lb_entries *msgs);

/*
 * Load every "*.conf" of directory `dir` inside `fs` (e.g.
 * "/loader/entries" or "/boot/loader/entries") and append the entries, in
 * BLS order, to out. Values raw as in lb_bls_parse_entry (for GRUB's blscfg,
 * which expands $variables and paths itself); `fs` set to lb_fs_ident(fs);
 * no default marked. Entries for another architecture are marked hidden.
 * Returns 0 (also for an empty or missing directory: -ENOENT only when it
 * does not exist), or a negative errno.
 */
int lb_bls_load_dir(const struct lb_fs *fs, const char *dir,
		    struct lb_entries *out);

/*
 * What systemd-boot would offer from a boot partition (ESP or XBOOTLDR):
 * type 1 entries of ROOT/loader/entries and type 2 UKIs of ROOT/EFI/Linux,
 * sorted together, with ROOT/loader/loader.conf's `default` (glob over entry
 * ids, "@saved" = the first entry) and `timeout`; entries whose kernel file
 * is missing are dropped with a message. ROOT is "" for a partition root or
 * e.g. "/boot" for /boot on the root filesystem; kernel and initrd paths are
 * resolved against ROOT (falling back to the filesystem root); type 1
 * command lines start with systemd-boot's initrd= words
 * (lb_bls_sdboot_cmdline; an entry whose initrd cannot be named is dropped
 * with a message). Exactly one
 * entry is marked default when any is appended. Returns 0 or negative errno.
 */
int lb_bls_scan(const struct lb_fs *fs, const char *root,
		struct lb_entries *out);

/*
 * The command line systemd-boot hands a type 1 entry's kernel: for each
 * initrd, in order, "initrd=" and its path as the entry gives it, made an
 * EFI path (a leading '\', every '/' a '\', runs of them one), then the
 * `options` (systemd-boot 252 boot.c initrd_prepare; the OS reads them in
 * /proc/cmdline, the EFI stub measures them into PCR 9; a kexec boot's
 * kernel ignores them). lb_bls_scan applies it to its type 1 entries, GRUB's
 * blscfg does not (GRUB's loader passes no initrd= words). Nothing for a UKI
 * or an entry without initrds. Returns 0 (e->cmdline replaced), -EINVAL with
 * *bad = the initrd path when it holds a byte <= ' ', DEL, '"' or is not
 * UTF-8 that UCS-2 carries (the word would split, quote, or not be what
 * systemd-boot passes), -E2BIG, -ENOMEM.
 */
int lb_bls_sdboot_cmdline(struct lb_entry *e, const char **bad);

/*
 * Type 2: turn the UKI at `path` inside fs into an entry (reads only the PE
 * headers and the small .cmdline/.osrel/.uname sections). type LB_ENTRY_UKI,
 * kernel = path, cmdline = .cmdline trimmed (lb_bls_scan drops it: the stage
 * takes the staged UKI's own .cmdline, a scan-time copy is covered by
 * nothing), title from .osrel PRETTY_NAME
 * (else NAME, else the file name) plus " (" .uname or version ")", version =
 * IMAGE_VERSION or VERSION_ID or .uname, sort_key = IMAGE_ID or ID.
 * Returns 0, -EINVAL (not a PE), -ENOENT (no .linux), or negative errno.
 */
int lb_bls_uki_entry(const struct lb_fs *fs, const char *path,
		     struct lb_entry *e);

/* BLS ordering of two entries (see bls.c); `bad` = boot counting says no
 * tries left. <0 when a sorts first. */
int lb_bls_compare(const struct lb_entry *a, int a_bad,
		   const struct lb_entry *b, int b_bad);

/* Parse an os-release style buffer and return a malloc'd copy of the value
 * of `key` (quotes and escapes removed), or NULL. */
char *lb_osrel_get(const char *buf, size_t len, const char *key);

#endif
