/*
 * SYSLINUX / EXTLINUX / ISOLINUX / PXELINUX configuration files (the
 * keywords of syslinux's readconfig and the menu.c32/vesamenu.c32
 * extensions). Library code: negative errno, never logs.
 */
#ifndef LB_SYSLINUX_H
#define LB_SYSLINUX_H

#include <stddef.h>
#include <sys/stat.h>

#include "entry.h"
#include "fs.h"

/* Read the file at `path` (absolute, already resolved against the working
 * directory) for `include`, `menu include` and `config`. Returns 0 with a
 * malloc'd NUL-terminated buffer, or negative errno. */
typedef int (*lb_syslinux_read_fn)(void *ctx, const char *path, char **buf,
				   size_t *len);

struct lb_syslinux_opts {
	const char *cwd;          /* working directory ("/isolinux"); relative
				     paths resolve against it; NULL = "/" */
	lb_syslinux_read_fn read; /* NULL: includes are skipped (message) */
	void *ctx;
	const char *fs;           /* entries' `fs` value (may be NULL) */
};

/*
 * Parse a config held in memory (`name` is its path, for `source` fields
 * and messages) and append its boot entries to out in menu order: titles
 * from `menu label` (hotkey '^' removed; entries of `menu begin` submenus
 * get "Submenu > Title"), kernel/initrd as absolute paths, `initrd=` taken
 * out of the command line into initrd[]. Marks exactly one entry default:
 * what syslinux boots untouched (ONTIMEOUT when a timeout is set, else
 * the top-level MENU DEFAULT, else DEFAULT, else the first entry). Sets
 * out->timeout (TIMEOUT is in 1/10 s: rounded up; 0 with a menu or prompt
 * = wait forever = not set). Returns 0 or negative errno (-ENOMEM).
 */
int lb_syslinux_parse(const struct lb_syslinux_opts *o, const char *name,
		      const char *buf, size_t len, struct lb_entries *out);

/* Read `path` from fs and parse it with the directory of `path` as the
 * working directory and includes read from fs. */
int lb_syslinux_parse_fs(const struct lb_fs *fs, const char *path,
			 struct lb_entries *out);

#endif
