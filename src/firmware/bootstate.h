/*
 * The boot state the OS expects from its boot loader (issue 11), through
 * EFI variables (efivars.h), as systemd-boot keeps it: docs/boot-state.md.
 *
 * Before the menu: LoaderEntryOneShot (read, then deleted), then
 * LoaderEntryDefault choose the default entry (systemd-boot's id match:
 * bootcount.h), over lboot.default= and the configs' own default;
 * lboot.default=saved takes the entry lboot booted last (LbootEntryLastBooted
 * in lboot's own vendor GUID, efivar.h).
 *
 * Before kexec: Automatic Boot Assessment (an entry file NAME+LEFT-DONE on
 * an ESP or XBOOTLDR partition is renamed NAME+(LEFT-1)-(DONE+1) first,
 * LoaderBootCountPath names it), then the Boot Loader Interface variables
 * bootctl and systemd-analyze read: LoaderInfo, LoaderEntrySelected,
 * LoaderDevicePartUUID, LoaderTimeInitUSec, LoaderTimeExecUSec,
 * LoaderFirmwareInfo, LoaderFirmwareType, LoaderFeatures.
 */
#ifndef LB_BOOTSTATE_H
#define LB_BOOTSTATE_H

#include <stddef.h>
#include <stdio.h>

#include "entry.h"
#include "fs.h"

/* lboot's variable for lboot.default=saved (vendor LB_EFIVAR_GUID_LBOOT) */
#define LB_BOOTSTATE_LAST_BOOTED "LbootEntryLastBooted"

/*
 * Choose the default of l: the EFI variables when use_efi (and efivarfs is
 * there), then sel (lboot.default=: an id, title or index, or "saved").
 * One line to log says what chose it, or why a variable or sel was not
 * used. A dry run reads LoaderEntryOneShot without deleting it. Returns 1
 * when a variable or sel chose the default, else 0.
 */
int lb_bootstate_select(struct lb_entries *l, const char *sel, int use_efi,
			int dry_run, FILE *log);

/*
 * Just before the jump to entry e (loaded): boot counting, then the
 * variables (sel "saved": LbootEntryLastBooted too). start_ms: lboot's
 * start (CLOCK_MONOTONIC ms). Only when efivarfs is there; every failure
 * is one line and the boot goes on.
 */
void lb_bootstate_handover(const struct lb_fsset *set, const struct lb_entries *l,
			   const struct lb_entry *e, const char *sel, long start_ms, FILE *log);

/*
 * The value of LoaderEntries for the entries l, as systemd-boot writes it:
 * each entry's id (lb_bootstate_entry_id) as UCS-2LE with its NUL, in menu
 * order, into out (*outlen bytes). Ids that do not fit in outsz, or are
 * not UCS-2, are left out and counted in *left_out. -ENOENT: no id at all.
 */
int lb_bootstate_entries_var(const struct lb_entries *l, uint8_t *out, size_t outsz,
			     size_t *outlen, size_t *left_out);

/*
 * Under coreboot (no EFI variables), the same choices from coreboot's CMOS
 * options (cmos.h; docs/coreboot.md), when its option table has them:
 * lboot_oneshot (cleared before use), lboot_default (both unset when empty
 * or "-": nvramtool cannot write an empty string), and for
 * lboot.default=saved lboot_last: the first 4 bytes of the SHA-256 of the
 * id lb_bootstate_entry_id gives, big-endian (written at the hand-over).
 * The values are used only when the options' checksum holds. PID 1 sets
 * lb_cmos_boot (cmos.h) when coreboot's table has an option table.
 */
uint32_t lb_bootstate_id_hash(const char *id);

/* Parts, for tests. */

/* The BLS file an entry came from (its `source` without ":LINE") and its
 * suffix (".conf" or ".efi"): 0, or -ENOENT for entries of other configs. */
int lb_bootstate_entry_file(const struct lb_entry *e, char *path, size_t n,
			    const char **suffix);
/* The first shown entry of l whose id matches pattern, or -1. */
long lb_bootstate_find(const struct lb_entries *l, const char *pattern);
/* The id to publish for e (LoaderEntrySelected, LbootEntryLastBooted): the
 * BLS file name lower-cased as systemd-boot's id, else e->id, else title. */
int lb_bootstate_entry_id(const struct lb_entry *e, char *out, size_t n);
/*
 * Boot counting on a mounted directory: rename the file at path (inside
 * dir, a BLS file name with a counter) to its next name (bootcount.h),
 * never over an existing file, then fsync the directory. newpath gets the
 * new path inside dir. -ENOENT when the name has no counter.
 */
int lb_bootstate_count(const char *dir, const char *path, const char *suffix,
		       char *newpath, size_t n);

#endif
