/* Find every boot config on a set of filesystems and turn them into one
 * list of entries: the code path shared by `lboot entries` (host and
 * target) and the boot path. */
#ifndef LB_SCAN_H
#define LB_SCAN_H

#include <stdint.h>

#include "entry.h"
#include "grub.h"
#include "fs.h"

/*
 * Look on filesystem `fs` for BLS type 1 entries (/loader/entries,
 * /boot/loader/entries, with loader.conf), UKIs (/EFI/Linux/NAME.efi), GRUB
 * (grub.cfg at its usual paths) and syslinux/extlinux/isolinux configs, and
 * append the entries the installed system's bootloader would offer, in its
 * order, exactly one marked default (the one it boots untouched). `all` is
 * the set of every filesystem (for GRUB's search and root). Every entry's
 * `fs` names the filesystem holding its kernel. Problems go to out->msgs.
 */
int lb_scan_fs(const struct lb_fsset *all, const struct lb_fs *fs,
	       struct lb_entries *out);

/* lb_scan_fs over each filesystem of `all` in order; the default of the
 * whole list is the default of the first filesystem that has entries. */
int lb_scan(const struct lb_fsset *all, struct lb_entries *out);

/*
 * Verified boot: when a check is set, every config file a parser reads is
 * passed to it with the exact bytes parsed (it returns 0 when the file has
 * a valid signature of a trusted key, else a sig.h reason), and each entry
 * gets cfg_checked, cfg_rc and cfg_file (entry.h) from the files that
 * define it: the files read while its config was evaluated (GRUB's sourced
 * files and grubenv, syslinux includes), except loader.conf and other BLS
 * entries' .conf files. A UKI found by the BLS scan depends on none (its
 * own signature covers its command line). NULL turns it off.
 */
typedef int (*lb_scan_check_fn)(void *arg, const struct lb_fs *fs,
				const char *path, const uint8_t *buf, size_t len);
void lb_scan_set_check(lb_scan_check_fn fn, void *arg);

/* GRUB's save_env (grub.h): called after each GRUB config's evaluation with
 * the environment writes it made (the boot flow writes them: grubenv.c; a
 * host listing does not). NULL turns it off. */
typedef void (*lb_scan_save_fn)(void *arg, const struct lb_grub_save *s);
void lb_scan_set_save(lb_scan_save_fn fn, void *arg);

#endif
