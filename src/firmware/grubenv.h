/*
 * Writing GRUB's environment block the way GRUB does (issue 11): the
 * save_env commands a grub.cfg ran (Debian's and RHEL's configs clear
 * next_entry after a grub-reboot one-shot) are applied to the 1024-byte
 * grubenv file in place: same size, same blocks, only rewritten when a
 * value changes. Like GRUB, lboot refuses to write on btrfs, on MD and on
 * LVM (GRUB: "cannot write to ... the environment block" on RAID/LVM and
 * btrfs), and anywhere the block is not a well-formed 1024-byte
 * "# GRUB Environment Block". The filesystem is remounted read-write for
 * the write only, then read-only again.
 */
#ifndef LB_GRUBENV_H
#define LB_GRUBENV_H

#include <stddef.h>
#include <stdio.h>

#include "fs.h"
#include "grub.h"

#define LB_GRUBENV_SIZE 1024

/* The new block for `old` (len bytes) with the saves applied (values set,
 * unknown names appended), into out[LB_GRUBENV_SIZE]. 0, 1 when nothing
 * changes, -EINVAL when old is not a GRUB environment block, -ENOSPC when
 * the result does not fit 1024 bytes. Pure. */
int lb_grubenv_update(const char *old, size_t len, const struct lb_grub_save *s,
		      char out[LB_GRUBENV_SIZE]);

/* Apply s on its filesystem (s->fs->dir mounted read-only): one line to
 * log either way. 0 when written or nothing to change; negative errno. */
int lb_grubenv_apply(const struct lb_grub_save *s, FILE *log);

#endif
