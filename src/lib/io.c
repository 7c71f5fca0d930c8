#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

int lb_pread_full(int fd, void *buf, size_t len, uint64_t off, size_t *got)
{
	uint8_t *b = buf;
	size_t n = 0;
	int rc = 0;

	if (off > (uint64_t)INT64_MAX || len > (uint64_t)INT64_MAX - off)
		rc = -EINVAL;
	while (!rc && n < len) {
		ssize_t r = pread(fd, b + n, len - n, (off_t)(off + n));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			rc = -errno;
		else if (!r && got)
			break;
		else if (!r)
			rc = -EIO;
		else
			n += (size_t)r;
	}
	if (got)
		*got = n;
	return rc;
}

int lb_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (!w)
			return -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int lb_read_fd(int fd, size_t max, uint8_t **out, size_t *len)
{
	struct stat st;
	uint8_t *b;
	size_t n = 0, size;
	int rc;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size < 0 || (uint64_t)st.st_size > max)
		return -EFBIG;
	size = (size_t)st.st_size;
	if (!(b = malloc(size + 1)))
		return -ENOMEM;
	if ((rc = lb_pread_full(fd, b, size, 0, NULL))) {
		free(b);
		return rc;
	}
	n = size;
	b[n] = 0;
	*out = b;
	*len = n;
	return 0;
}

int lb_read_path(const char *path, size_t max, uint8_t **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = lb_read_fd(fd, max, out, len);
	close(fd);
	return r;
}

int lb_whyf(char *why, size_t whysz, int rc, const char *fmt, ...)
{
	va_list ap;

	if (why && whysz) {
		va_start(ap, fmt);
		vsnprintf(why, whysz, fmt, ap);
		va_end(ap);
	}
	return rc;
}

int lb_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) || stat(b, &sb))
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int lb_write_atomic(const char *path, const void *p, size_t len, mode_t mode)
{
	struct stat st;
	size_t n = strlen(path);
	char *tmp;
	int fd, rc;

	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
			return -errno;
		rc = lb_write_all(fd, p, len);
		if (close(fd) < 0 && !rc)
			rc = -errno;
		return rc;
	}
	if (!(tmp = malloc(n + 16)))
		return -ENOMEM;
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".tmp.XXXXXX", 12);
	if ((fd = mkstemp(tmp)) < 0) {
		rc = -errno;
		free(tmp);
		return rc;
	}
	rc = lb_write_all(fd, p, len);
	if (!rc && fchmod(fd, mode) < 0)
		rc = -errno;
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

void lb_seterr(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errsz)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

int lb_read_stream(const char *path, size_t max, uint8_t **out, size_t *len)
{
	size_t n = 0, cap = 65536;
	uint8_t *b = malloc(cap), *nb;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0 || !b) {
		rc = fd < 0 ? -errno : -ENOMEM;
		goto fail;
	}
	for (;;) {
		ssize_t k;

		if (n == cap) {
			if (cap >= max) {
				rc = -EFBIG;
				goto fail;
			}
			cap = cap * 2 > max ? max : cap * 2;
			if (!(nb = realloc(b, cap))) {
				rc = -ENOMEM;
				goto fail;
			}
			b = nb;
		}
		k = read(fd, b + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = -errno;
			goto fail;
		}
		if (!k)
			break;
		n += k;
	}
	close(fd);
	*out = b;
	*len = n;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(b);
	return rc;
}

char *lb_memdup0(const void *s, size_t n)
{
	char *c = n < SIZE_MAX ? malloc(n + 1) : NULL;

	if (c) {
		memcpy(c, s, n);
		c[n] = 0;
	}
	return c;
}

int lb_read_attr(const char *path, char *buf, size_t sz)
{
	ssize_t n;
	int fd;

	if (!sz)
		return -EINVAL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, buf, sz - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

int lb_write_attr(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		r = -errno;
	close(fd);
	return r;
}
