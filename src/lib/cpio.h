/*
 * The "newc" cpio format (magic 070701, and 070702 with a checksum), the
 * format of Linux initramfs archives. Pure library: libc only, no logging,
 * negative errno on failure.
 *
 * Layout of one member: a 110-byte ASCII header ("070701" then 13 fields of
 * 8 hex digits: ino mode uid gid nlink mtime filesize devmajor devminor
 * rdevmajor rdevminor namesize check), the name with its NUL (namesize bytes
 * including the NUL), zero padding to a multiple of 4 counted from the start
 * of the archive, the data (filesize bytes; a symlink's data is its target
 * without a NUL), zero padding to 4. The archive ends with a member named
 * "TRAILER!!!". Several archives may follow one another with zero padding
 * between them (the kernel accepts this; we write 512-byte aligned ends).
 */
#ifndef LB_CPIO_H
#define LB_CPIO_H

#include <stddef.h>
#include <stdint.h>

#define LB_CPIO_HDR_LEN   110
#define LB_CPIO_MAX_NAME  4096  /* namesize cap, NUL included (PATH_MAX) */
#define LB_CPIO_MAX_LINK  4095  /* symlink target cap */
#define LB_CPIO_TRAILER   "TRAILER!!!"

/* One member, as read or as to be written. */
struct lb_cpio_entry {
	const char *name;     /* NUL-terminated; read: points into the buffer */
	uint32_t ino, mode, uid, gid, nlink, mtime;
	uint32_t filesize;
	uint32_t devmajor, devminor, rdevmajor, rdevminor;
	uint32_t check;       /* 070702 only: sum of the data bytes */
	const uint8_t *data;  /* filesize bytes; read: points into the buffer */
	size_t offset;        /* read: offset of the header in the buffer */
};

/* ---- writer --------------------------------------------------------------- */

/* Sink: write all len bytes, return 0 or negative errno. */
typedef int (*lb_cpio_write_fn)(void *ctx, const void *buf, size_t len);

struct lb_cpio_writer {
	lb_cpio_write_fn write;
	void *ctx;
	uint64_t off;   /* bytes written so far */
};

void lb_cpio_writer_init(struct lb_cpio_writer *w, lb_cpio_write_fn fn,
			 void *ctx);
/* Write one 070701 member: header, name, padding, e->data, padding.
 * e->check is ignored (written as 0). -EINVAL for an empty or too long
 * name, a missing data pointer, or a filesize on a non-regular, non-symlink
 * member; the sink's error otherwise. */
int lb_cpio_write_entry(struct lb_cpio_writer *w, const struct lb_cpio_entry *e);
/* Write the TRAILER!!! member and zero padding up to a multiple of block
 * (0 or 1: no padding beyond 4; 512 is what cpio(1) and the kernel use). */
int lb_cpio_write_trailer(struct lb_cpio_writer *w, size_t block);

/* A growable memory sink for the writer; max caps its size (-EFBIG). */
struct lb_cpio_buf {
	uint8_t *p;
	size_t len, cap, max;
};
int lb_cpio_buf_write(void *ctx, const void *buf, size_t len);
void lb_cpio_buf_free(struct lb_cpio_buf *b);

/* ---- reader --------------------------------------------------------------- */

struct lb_cpio_reader {
	const uint8_t *buf;
	size_t len;
	size_t off;        /* next byte to read; alignment is counted from buf */
	int in_archive;    /* inside an archive (no trailer seen yet) */
	unsigned archives; /* trailers seen */
	int err;           /* sticky error, 0 if none */
};

/* Read buf[off..len). off should be where an archive starts (normally 0;
 * a multiple of 4, as the kernel requires). */
void lb_cpio_reader_init(struct lb_cpio_reader *r, const void *buf, size_t len,
			 size_t off);
/*
 * Next member (the trailers are consumed, not returned): 1 and *e filled,
 * 0 at the end of the archive sequence, or a negative errno:
 * -EINVAL  bad magic, bad hex digit, bad namesize (empty name, > 4096),
 *          name without its NUL or with an embedded one, unknown file type, size on a special file,
 *          empty or too long symlink target;
 * -EBADMSG truncation (header, name, data or a missing trailer), misaligned
 *          archive start, 070702 checksum mismatch.
 * After a trailer, zero bytes are skipped and a following archive is read.
 * 0 is returned when the data ends there, or when it continues with bytes
 * that are not a cpio header (r->off then points at them: a compressed
 * archive, for the caller to handle). Data that does not start with a cpio
 * header (after zeros) is -EINVAL; only zeros is an empty sequence (0). After an error, the reader stays in
 * error (every call returns the same error).
 */
int lb_cpio_next(struct lb_cpio_reader *r, struct lb_cpio_entry *e);

/*
 * Make an archive member name safe to create under an extraction root:
 * drops empty and "." components, refuses absolute names (-EINVAL) and any
 * ".." component (-EINVAL). Writes the cleaned relative path (possibly ""
 * for the root itself, as for ".") to out (outsz bytes, -ENAMETOOLONG).
 */
int lb_cpio_safe_path(const char *name, char *out, size_t outsz);

#endif
