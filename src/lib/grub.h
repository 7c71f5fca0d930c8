/* GRUB 2 configuration (grub.cfg) interpreter: the script language subset
 * that grub-mkconfig and distributions write, evaluated without side effects
 * to produce boot entries. */
#ifndef LB_GRUB_H
#define LB_GRUB_H

#include <sys/stat.h>

#include "entry.h"
#include "fs.h"

/* What evaluating a config did besides making entries. */
struct lb_grub_info {
	int ran_blscfg; /* the `blscfg` command ran (it lists the BLS entries) */
};

/*
 * Evaluate the GRUB config at `path` inside filesystem `fs` (the one GRUB's
 * $root/$prefix start on), with every filesystem of `all` reachable for
 * `search`, `set root`, `(hdX,gptY)` paths, grubenv and blscfg. Appends the
 * resulting entries to `out` (kernel paths inside the entry's `fs`), marks
 * the one GRUB would boot by default, sets out->timeout when the config does,
 * and adds a message "file:line: reason" for anything skipped. `info`
 * (may be NULL) gets what the config did. Returns 0, or a negative errno
 * when the config itself cannot be read.
 */
int lb_grub_parse(const struct lb_fsset *all, const struct lb_fs *fs,
		  const char *path, struct lb_entries *out,
		  struct lb_grub_info *info);

/* The same on an in-memory buffer (fuzzing, tests); `name` is used in
 * messages and `source` fields. `fs` may be NULL. */
int lb_grub_parse_buf(const struct lb_fsset *all, const struct lb_fs *fs,
		      const char *name, const char *buf, size_t len,
		      struct lb_entries *out);

#endif
