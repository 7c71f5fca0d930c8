/*
 * "Read once": a boot artifact (kernel, initrd, UKI, config) held as a
 * sealed memfd with its size and digests. The bytes are hashed as they are
 * written into the memfd, the memfd is then sealed (no write, grow, shrink,
 * or further seal changes), so what was verified is exactly what kexec
 * receives: nothing is re-read from the disk or the network after the check.
 *
 * A sink, so that files and network streams feed it alike:
 *   lb_blob_begin(&b, cap, mask); lb_blob_write(&b, buf, n)...; lb_blob_end(&b);
 * or lb_blob_from_fd(fd, cap, mask, &b) for a file. Negative errno.
 */
#ifndef LB_BLOB_H
#define LB_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

struct lb_blob {
	int fd;                   /* the memfd; -1 when none */
	uint64_t size;            /* bytes written */
	size_t cap;               /* lb_blob_write refuses to go beyond (-EFBIG) */
	int sealed;               /* lb_blob_end succeeded */
	int patched;              /* lb_blob_patch since: dig is stale */
	struct lb_digests dig;    /* valid after lb_blob_end */
	const uint8_t *map;       /* lb_blob_map's read-only mapping */
	struct lb_hash h;         /* keep last: not copyable while streaming */
};

/* Start an empty blob: memfd_create(MFD_CLOEXEC|MFD_ALLOW_SEALING), digests
 * selected by mask (hash.h, LB_HASH_BIT(alg)...; 0: none). */
int lb_blob_begin(struct lb_blob *b, size_t cap, unsigned digest_mask);
/* Append len bytes (written whole: short writes and EINTR retried) and hash
 * them. -EFBIG past the cap, -ENOMEM when memory runs out; after an error
 * the blob can only be freed. */
int lb_blob_write(struct lb_blob *b, const void *buf, size_t len);
/* Overwrite len bytes at off inside what was written (before the end),
 * not hashed: the digests are stale (b->patched) until lb_blob_rehash.
 * -EINVAL outside the written bytes. For a header whose content is known
 * only after the bytes that follow it. */
int lb_blob_patch(struct lb_blob *b, uint64_t off, const void *buf, size_t len);
/* After lb_blob_end: the digests again, over the sealed bytes (one pass
 * over the mapping, the mask the blob began with). */
int lb_blob_rehash(struct lb_blob *b);
/* Seal (F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_WRITE|F_SEAL_SEAL), verify the
 * seals took and finalise the digests into b->dig. */
int lb_blob_end(struct lb_blob *b);
/* begin + read fd to its end in large reads + end. fd may be a file, a
 * pipe or a socket; it is not closed. On error *b holds nothing. */
int lb_blob_from_fd(int fd, size_t cap, unsigned digest_mask,
		    struct lb_blob *b);
/* A read-only shared mapping of a sealed blob (for parsers: PE, UKI),
 * unmapped by lb_blob_free; a 0-byte blob maps to a non-NULL empty buffer. */
int lb_blob_map(struct lb_blob *b, const uint8_t **p);
/* Unmap, close, forget. Safe after a failed lb_blob_begin and twice. */
void lb_blob_free(struct lb_blob *b);

#endif
