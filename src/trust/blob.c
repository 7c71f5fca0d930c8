/* Read-once artifacts: hash while copying into a memfd, then seal it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch.h"
#include "blob.h"
#include "io.h"

#define LB_MFD_CLOEXEC       1u
#define LB_MFD_ALLOW_SEALING 2u
#define LB_F_ADD_SEALS       1033
#define LB_F_GET_SEALS       1034
#define LB_F_SEAL_SEAL       1
#define LB_F_SEAL_SHRINK     2
#define LB_F_SEAL_GROW       4
#define LB_F_SEAL_WRITE      8
#define LB_SEALS (LB_F_SEAL_SEAL | LB_F_SEAL_SHRINK | LB_F_SEAL_GROW | LB_F_SEAL_WRITE)

#define READ_CHUNK ((size_t)1 << 20)

static const uint8_t empty_map[1];

int lb_blob_begin(struct lb_blob *b, size_t cap, unsigned digest_mask)
{
	int rc;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	if (digest_mask && (rc = lb_hash_init(&b->h, digest_mask)))
		return rc;
	b->fd = (int)syscall(LB_SYS_MEMFD_CREATE, "lboot-blob",
			     LB_MFD_CLOEXEC | LB_MFD_ALLOW_SEALING);
	if (b->fd < 0) {
		rc = -errno;
		b->fd = -1;
		return rc;
	}
	b->cap = cap;
	return 0;
}

int lb_blob_write(struct lb_blob *b, const void *buf, size_t len)
{
	int rc;

	if (b->fd < 0 || b->sealed)
		return -EBADF;
	if (len > b->cap || b->size > b->cap - len)
		return -EFBIG;
	if ((rc = lb_write_all(b->fd, buf, len)))
		return rc == -ENOSPC ? -ENOMEM : rc;
	lb_hash_update(&b->h, buf, len);
	b->size += len;
	return 0;
}

int lb_blob_patch(struct lb_blob *b, uint64_t off, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (b->fd < 0 || b->sealed)
		return -EBADF;
	if (off > b->size || len > b->size - off)
		return -EINVAL;
	while (len) {
		ssize_t n = pwrite(b->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	b->patched = 1;
	return 0;
}

int lb_blob_rehash(struct lb_blob *b)
{
	const uint8_t *p = NULL;
	int rc;

	if ((rc = lb_blob_map(b, &p)))
		return rc;
	if (b->dig.mask && (rc = lb_hash_buf(b->dig.mask, p, (size_t)b->size, &b->dig)))
		return rc;
	b->patched = 0;
	return 0;
}

int lb_blob_end(struct lb_blob *b)
{
	int seals;

	if (b->fd < 0 || b->sealed)
		return -EBADF;
	if (fcntl(b->fd, LB_F_ADD_SEALS, LB_SEALS) < 0)
		return -errno;
	seals = fcntl(b->fd, LB_F_GET_SEALS);
	if (seals < 0)
		return -errno;
	if ((seals & LB_SEALS) != LB_SEALS)
		return -EPERM;
	lb_hash_final(&b->h, &b->dig);
	b->sealed = 1;
	return 0;
}

int lb_blob_from_fd(int fd, size_t cap, unsigned digest_mask,
		    struct lb_blob *b)
{
	uint8_t *buf;
	int rc;

	if ((rc = lb_blob_begin(b, cap, digest_mask)))
		return rc;
	if (!(buf = malloc(READ_CHUNK))) {
		rc = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, buf, READ_CHUNK);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			break;
		}
		if (!r) {
			rc = lb_blob_end(b);
			break;
		}
		if ((rc = lb_blob_write(b, buf, (size_t)r)))
			break;
	}
	free(buf);
out:
	if (rc)
		lb_blob_free(b);
	return rc;
}

int lb_blob_map(struct lb_blob *b, const uint8_t **p)
{
	void *m;

	if (!b->sealed)
		return -EBADF;
	if (!b->map) {
		if (!b->size) {
			b->map = empty_map;
		} else {
			if (b->size > SIZE_MAX)
				return -EFBIG;
			m = mmap(NULL, (size_t)b->size, PROT_READ, MAP_SHARED,
				 b->fd, 0);
			if (m == MAP_FAILED)
				return -errno;
			b->map = m;
		}
	}
	*p = b->map;
	return 0;
}

void lb_blob_free(struct lb_blob *b)
{
	if (b->map && b->map != empty_map)
		munmap((void *)b->map, (size_t)b->size);
	b->map = NULL;
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	b->sealed = 0;
	b->size = 0;
}
