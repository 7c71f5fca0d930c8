/*
 * Read-only access to the files of one or more filesystems, each a directory
 * (a mount point on the target, any directory on the host) with an identity.
 * Parsers reach files only through this, so the same code runs on the host
 * (`lboot entries DIR@uuid=..`) and on the target (mounted partitions), and
 * tests need no disk. Paths are resolved inside the root: `..` and symlinks
 * cannot escape it (openat2 RESOLVE_IN_ROOT, or the same walk done by hand
 * on kernels without openat2).
 */
#ifndef LB_FS_H
#define LB_FS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct lb_fs {
	char *dir;    /* where it is mounted / the host directory */
	char *uuid;   /* filesystem UUID as GRUB prints it (may be NULL) */
	char *label;  /* filesystem label (may be NULL) */
	char *name;   /* a display name: device (/dev/vda2) or the ROOT arg */
	char *grub;   /* GRUB device name, "hd0,gpt2" (may be NULL) */
	char *fstype; /* ext4, vfat, iso9660 ... (may be NULL) */
	char *partuuid; /* GPT partition UUID (may be NULL) */
	char *subvol; /* btrfs mounted at its top level: the default
		       * subvolume's path from there ("/@"), which GRUB's
		       * btrfs_relative_path makes paths relative to (may be NULL) */
	int ambiguous; /* another fs of the set has the same UUID or label
			* (cloned disks): its identity is its name */
};

struct lb_fsset {
	struct lb_fs *v;
	size_t n;
};

/* Cap on any single file a parser reads (configs, not kernels). */
#define LB_FS_MAX_CONFIG (4u << 20)

/* The identity used in entries' `fs` field: uuid, else label, else name;
 * the name (the device) when the fs is ambiguous. */
const char *lb_fs_ident(const struct lb_fs *fs);
/* Mark the filesystems whose identity (UUID, else label) also names
 * another one of the set, as its UUID, label, device name or directory
 * (cloned disks, a label equal to another disk's UUID), so that their
 * entries name their own device. Returns how many were marked. */
size_t lb_fsset_mark_ambiguous(struct lb_fsset *s);

/* Open a regular file path (absolute inside the fs, or relative to its
 * root) read-only, resolved inside fs->dir. Returns an fd or negative
 * errno: -EISDIR for a directory, -EINVAL for anything else that is not a
 * regular file. A FIFO, socket or device node is never opened (only looked
 * up with O_PATH), so nothing on a disk can block the caller or reach a
 * driver. */
int lb_fs_open(const struct lb_fs *fs, const char *path);
/* Read a whole regular file up to max bytes into a NUL-terminated malloc'd
 * buffer. -EFBIG if larger, -EISDIR for a directory, -EINVAL for anything
 * else that is not a regular file. */
int lb_fs_read(const struct lb_fs *fs, const char *path, size_t max,
	       char **buf, size_t *len);
/* Called (when set) with every file lb_fs_read returns, the exact bytes
 * the caller gets: the boot flow checks the signatures of config files on
 * the bytes that are parsed (src/trust/verify.c). Not thread-safe; set and
 * cleared around a scan. */
extern void (*lb_fs_read_hook)(void *arg, const struct lb_fs *fs,
			       const char *path, const uint8_t *buf, size_t len);
extern void *lb_fs_read_hook_arg;

/* stat inside fs (the last component followed inside the root, nothing
 * opened): 0 or negative errno. */
int lb_fs_stat(const struct lb_fs *fs, const char *path, struct stat *st);
/* List a directory (-ENOTDIR for anything else): *names gets a sorted malloc'd array of malloc'd names
 * (without . and ..), at most 4096 entries. */
int lb_fs_list(const struct lb_fs *fs, const char *path, char ***names,
	       size_t *n);
void lb_fs_list_free(char **names, size_t n);

/* Fuzzing: nonzero keeps what lb_fs_read, lb_fs_stat and lb_fs_list
 * return (failures included) per filesystem, path (and limit), and gives
 * copies of it again without touching the tree: for a fixture that does
 * not change while a process runs many inputs over it (the GRUB harness:
 * a third of a run was the system calls of its fixture's lookups). At most
 * 2048 results are kept; others are looked up each time. Zero (or on
 * again) forgets all. 0 or -ENOMEM. */
int lb_fs_memo(int on);

/* Tests: nonzero makes every lookup take the walk used when the kernel has
 * no openat2 (ENOSYS, before 5.6), which must resolve exactly as openat2's
 * RESOLVE_IN_ROOT: symlinks (at most 40 per lookup, else -ELOOP) and `..`
 * never leave the root. */
extern int lb_fs_no_openat2;

/* Find a filesystem of the set by uuid (case-insensitive), label (the
 * first one: GRUB's `search` semantics), or (by_ident) by any of those,
 * display name or directory: by_ident returns NULL when the string names
 * no filesystem OR more than one (by any mix of UUID, label, name and
 * directory: an ambiguous identity is never resolved; count_ident says how
 * many it names, for the refusal message). */
const struct lb_fs *lb_fsset_by_uuid(const struct lb_fsset *s, const char *u);
const struct lb_fs *lb_fsset_by_label(const struct lb_fsset *s, const char *l);
const struct lb_fs *lb_fsset_by_ident(const struct lb_fsset *s, const char *id);
size_t lb_fsset_count_ident(const struct lb_fsset *s, const char *id);

/* Parse "DIR[@key=val,key=val]" (keys: uuid, label, name, grub, type,
 * partuuid, subvol) into fs. A comma splits only before a known key, so
 * grub=hd0,gpt2 keeps its comma. Returns 0 or negative errno. */
int lb_fs_parse_spec(const char *spec, struct lb_fs *fs);
void lb_fs_free(struct lb_fs *fs);
void lb_fsset_free(struct lb_fsset *s);
int lb_fsset_add(struct lb_fsset *s, const struct lb_fs *fs); /* takes ownership */

#endif
