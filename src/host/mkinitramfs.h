/*
 * Building initramfs images (host only). An lb_initramfs is an in-memory
 * tree of members keyed by path; writing it emits a reproducible newc cpio:
 * members sorted by path (byte order, so parents come first), names without
 * a leading '/', uid/gid 0, one fixed mtime, inode numbers 1..N in that
 * order, nlink 1 for non-directories and 2 + subdirectories for directories,
 * device numbers 0, then TRAILER!!! and zero padding to 512 bytes.
 *
 * Also reading them back: lb_initramfs_walk() visits the members of an image
 * as the kernel unpacks it: several archives one after another, each either
 * plain cpio or compressed (xz, gzip), with zero padding between.
 *
 * Functions return 0 or a negative errno; those that touch host files also
 * write a one-line "what: why" to err (errsz bytes) on failure.
 */
#ifndef LB_MKINITRAMFS_H
#define LB_MKINITRAMFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpio.h"
#include "compress.h"

#define LB_INITRAMFS_MAX_NODES  (1u << 20)
#define LB_INITRAMFS_MAX_BYTES  (1ull << 31) /* total file data */
#define LB_INITRAMFS_MAX_DEPTH  64           /* directory recursion */

struct lb_initramfs;

int lb_initramfs_new(struct lb_initramfs **r, uint32_t mtime);
void lb_initramfs_free(struct lb_initramfs *r);

/*
 * Add members. Paths may start with '/', "." components are dropped; ".."
 * and empty paths are -EINVAL. Missing parent directories are added (0755).
 * Adding a directory where one exists updates nothing and succeeds; any
 * other existing path is -EEXIST. mode is the permission bits (07777).
 */
int lb_initramfs_add_dir(struct lb_initramfs *r, const char *path, uint32_t mode);
int lb_initramfs_add_file(struct lb_initramfs *r, const char *path,
			  uint32_t mode, const void *data, size_t len);
int lb_initramfs_add_symlink(struct lb_initramfs *r, const char *path,
			     const char *target);
/* type is S_IFCHR, S_IFBLK, S_IFIFO (major/minor 0 for fifos). */
int lb_initramfs_add_node(struct lb_initramfs *r, const char *path,
			  uint32_t type, uint32_t mode, uint32_t major,
			  uint32_t minor);
/* 1 if path is a member, 0 if not. */
int lb_initramfs_has(const struct lb_initramfs *r, const char *path);
/* Number of members (without the trailer). */
size_t lb_initramfs_count(const struct lb_initramfs *r);

/*
 * Add a host file or directory tree at dst. A regular file keeps its
 * permission bits; a directory is copied recursively (subdirectories,
 * files, symlinks kept as symlinks, device nodes and fifos; sockets are
 * skipped). src itself is followed if it is a symlink. If dst is "/" (or
 * empty), a directory's contents go to the root. No file whose device and
 * inode equal (avoid_dev, avoid_ino) is read when avoid is set: -EEXIST
 * (the output must not be one of the inputs).
 */
struct lb_initramfs_avoid {
	int set;
	dev_t dev;
	ino_t ino;
};
int lb_initramfs_add_host(struct lb_initramfs *r, const char *src,
			  const char *dst, const struct lb_initramfs_avoid *avoid,
			  char *err, size_t errsz);

/* Read a whole host file (cap max bytes, -EFBIG), refusing `avoid`. */
int lb_initramfs_read_host(const char *path, size_t max,
			   const struct lb_initramfs_avoid *avoid,
			   uint8_t **data, size_t *len, char *err, size_t errsz);

/* Emit the archive (sorted members, trailer, 512 padding). */
int lb_initramfs_write(const struct lb_initramfs *r, struct lb_cpio_writer *w);

/*
 * The standard lboot image: base tree (/dev /proc /sys /run /tmp /mnt /etc
 * /bin /sbin, /dev/console c 5 1 0600, /dev/null c 1 3 0666), then init
 * (the binary as /init 0755, /bin/lboot -> ../init), then the extra files,
 * then busybox (/bin/busybox 0755 and /bin/APPLET -> busybox for each
 * applet `BUSYBOX --list` prints, skipping names already present).
 */
struct lb_initramfs_file {
	const char *src;
	const char *dst; /* NULL: "/" + basename(src) */
};
struct lb_initramfs_opts {
	const char *init;     /* may be NULL */
	const char *busybox;  /* may be NULL */
	const struct lb_initramfs_file *files;
	size_t n_files;
	uint32_t mtime;
	struct lb_initramfs_avoid avoid;
};
int lb_initramfs_build(const struct lb_initramfs_opts *o,
		       struct lb_initramfs **out, char *err, size_t errsz);

/* Run `busybox --list` and return its applet names (sorted, validated). */
int lb_initramfs_busybox_applets(const char *busybox, char ***names,
				 size_t *n, char *err, size_t errsz);
void lb_initramfs_names_free(char **names, size_t n);

/*
 * Visit every member of an initramfs image (see above). cb returns 0 to go
 * on or a negative errno to stop (returned by the walk). max_out caps the
 * total decompressed bytes (-EFBIG). Errors: those of lb_cpio_next and
 * lb_decompress; -EINVAL for data that is neither cpio nor compressed.
 * *where (if not NULL) gets the offset in the outer image of the
 * archive or compressed stream where an error happened.
 */
typedef int (*lb_initramfs_cb)(void *ctx, const struct lb_cpio_entry *e);
int lb_initramfs_walk(const void *buf, size_t len, size_t max_out,
		      lb_initramfs_cb cb, void *ctx, size_t *where);

#endif
