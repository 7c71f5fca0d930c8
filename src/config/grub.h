/* GRUB 2 configuration (grub.cfg) interpreter: the script language subset
 * that grub-mkconfig and distributions write, evaluated without side effects
 * to produce boot entries. */
#ifndef LB_GRUB_H
#define LB_GRUB_H

#include <sys/stat.h>

#include "entry.h"
#include "fs.h"

/* What evaluating a config did besides making entries. */
#define LB_GRUB_MAX_SAVES 16

/* A `save_env [-f FILE] VAR...` the config ran: GRUB writes these into its
 * environment block while it evaluates grub.cfg (Debian's and RHEL's
 * configs clear next_entry this way after grub-reboot). The interpreter
 * only records them; the boot flow writes them (src/firmware/grubenv.c). */
struct lb_grub_save {
	const struct lb_fs *fs;     /* where the environment block is */
	char path[256];
	size_t n;
	char *name[LB_GRUB_MAX_SAVES], *value[LB_GRUB_MAX_SAVES];
};

struct lb_grub_info {
	int ran_blscfg; /* the `blscfg` command ran (it lists the BLS entries) */
	/* the last save_env of each environment file, in order (malloc'd
	 * strings; lb_grub_info_free) */
	struct lb_grub_save save[4];
	size_t n_save;
};

/* Free the saves (ran_blscfg is kept). */
void lb_grub_info_free(struct lb_grub_info *info);

/*
 * Evaluate the GRUB config at `path` inside filesystem `fs` (the one GRUB's
 * $root/$prefix start on), with every filesystem of `all` reachable for
 * `search`, `set root`, `(hdX,gptY)` paths, grubenv and blscfg. Appends the
 * resulting entries to `out` (kernel paths inside the entry's `fs`), marks
 * the one GRUB would boot by default, sets out->timeout when the config does,
 * and adds a message "file:line: reason" for anything skipped. `info`
 * (may be NULL; zeroed, or from an earlier call: its saves are freed)
 * gets what the config did. Returns 0, or a negative errno
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

/* For fuzzing only: lower the interpreter's command budget per phase
 * (config, menu) from its default of 20000 to `steps`, and in proportion
 * the caps a script can run into for its time: loop iterations (1000),
 * menu entries (1024), bytes expanded (8 MiB, never below 512 KiB,
 * twice the largest command or environment) and variables (1024, never
 * below 128). So every cap stays
 * reachable within the budget, at a fraction of its cost. 0 restores the
 * defaults, and they are never raised. Process-wide; the boot flow never
 * calls it. Under ASan and coverage a command costs microseconds and a
 * menu entry tens: scripts that ran into the default caps (a loop, a
 * thousand entries, a value expanded over and over) took milliseconds
 * each and dominated a fuzzing run (docs/fuzzing.md). */
void lb_grub_fuzz_steps(long steps);

/* For fuzzing only: on (1), a file that `source` or `configfile` reads is
 * parsed once per process and its syntax tree kept for later runs, keyed
 * by its path and bytes (at most 16 files of at most 256 KiB; past that,
 * files are parsed as without it). Every run reports what it would
 * without the cache: parsing depends on the bytes alone. Process-wide;
 * the boot flow never calls it. */
void lb_grub_fuzz_cache(int on);

#endif
