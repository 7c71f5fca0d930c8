/* Small file I/O helpers shared by the applets, host tools and the target:
 * whole writes, capped whole reads, atomic replacement. Negative errno. */
#ifndef LB_IO_H
#define LB_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* pread(2) len bytes at off, retrying EINTR and short reads: the one pread
 * loop. With got NULL, all len bytes or an error: -EIO when end of file
 * comes first. With got, up to len: end of file ends the read with 0 and
 * *got < len; *got is also set (bytes read before it) on a read error.
 * -errno on a read error; -EINVAL when off + len overflows off_t. */
int lb_pread_full(int fd, void *buf, size_t len, uint64_t off, size_t *got);
/* write(2) until done (EINTR retried). */
int lb_write_all(int fd, const void *p, size_t len);
/* Read a whole regular file from fd into a malloc'd buffer with one spare
 * NUL byte after the data; -EFBIG when larger than max, -EIO if it shrank. */
int lb_read_fd(int fd, size_t max, uint8_t **out, size_t *len);
/* A file read by read(2) to its end whatever its size says (securityfs and
 * proc sequence files say 0: binary_bios_measurements), at most max bytes
 * (-EFBIG beyond), into a malloc'd buffer. */
int lb_read_stream(const char *path, size_t max, uint8_t **out, size_t *len);
/* The same by path; -EINVAL when it is not a regular file. */
int lb_read_path(const char *path, size_t max, uint8_t **out, size_t *len);
/* Replace path atomically: a temporary file in the same directory, written,
 * fsync'd and renamed over it (mode applied). A path that exists and is not
 * a regular file (/dev/stdout, a pipe) is written in place instead, never
 * replaced. */
int lb_write_atomic(const char *path, const void *p, size_t len, mode_t mode);

/* A one-line reason into why (if why and whysz), as printf; returns rc:
 * `return lb_whyf(why, whysz, -EBADMSG, "...", ...)`. */
int lb_whyf(char *why, size_t whysz, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Do paths a and b name the same file (device and inode)? 0 if either
 * does not exist. Host tools refuse an output that is their input. */
int lb_same_file(const char *a, const char *b);

/* A small text attribute (sysfs, proc): one read(2) of at most sz - 1
 * bytes, NUL-terminated, trailing newlines and spaces cut. -EIO on a read
 * error. */
int lb_read_attr(const char *path, char *buf, size_t sz);
/* Write val to an attribute file in one write(2) (sysfs takes one). */
int lb_write_attr(const char *path, const char *val);

/* A malloc'd copy of the n bytes at s (NULs included) with a NUL after
 * them; NULL when out of memory. */
char *lb_memdup0(const void *s, size_t n);

/* Format a one-line error into err (errsz bytes; nothing when err is NULL). */
void lb_seterr(char *err, size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
