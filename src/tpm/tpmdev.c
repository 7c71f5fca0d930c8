/*
 * TPM transports. The character device takes one whole command per write
 * and gives one whole response per read; opened O_NONBLOCK, the kernel
 * (4.20+) queues the command and the response is waited for with poll, so
 * the wait is ours to bound. swtpm's TCP data port is a stream of the same
 * bytes: the response header's size says how much to read.
 */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tpmdev.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for ev or the deadline passes. */
static int wait_fd(int fd, short ev, long long deadline)
{
	for (;;) {
		long long left = deadline - now_ms();
		struct pollfd p = { fd, ev, 0 };
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			continue;
		if (p.revents & (ev | POLLHUP | POLLERR))
			return 0;
	}
}

int lb_tpmdev_open(struct lb_tpmdev *d, const char *path, int timeout_ms)
{
	static const char *const paths[] = { "/dev/tpmrm0", "/dev/tpm0" };
	int fd = -1, err = -ENOENT;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->timeout_ms = timeout_ms > 0 ? timeout_ms : LB_TPMDEV_TIMEOUT_MS;
	for (size_t i = 0; i < 2 && fd < 0; i++) {
		const char *p = path ? path : paths[i];

		fd = open(p, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			err = -errno;
			if (path)
				break;
			continue;
		}
		snprintf(d->path, sizeof(d->path), "%s", p);
	}
	if (fd < 0)
		return err;
	d->fd = fd;
	return 0;
}

int lb_tpmdev_open_tcp(struct lb_tpmdev *d, const char *hostport, int timeout_ms)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t slen;
	char host[64], *end;
	const char *colon = strrchr(hostport, ':');
	unsigned long port;
	int fd, rc, soerr = 0;
	socklen_t sl = sizeof(soerr);
	size_t hl;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->tcp = 1;
	d->timeout_ms = timeout_ms > 0 ? timeout_ms : LB_TPMDEV_TIMEOUT_MS;
	if (!colon || colon == hostport || !colon[1])
		return -EINVAL;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || !port || port > 65535)
		return -EINVAL;
	hl = colon - hostport;
	if (hostport[0] == '[' && hl >= 2 && hostport[hl - 1] == ']') {
		hostport++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, hostport, hl);
	host[hl] = 0;
	if (!strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	/* numeric addresses only: no resolver in the target binary */
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		slen = sizeof(*s4);
	} else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		slen = sizeof(*s6);
	} else {
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&ss, slen) && errno != EINPROGRESS) {
		rc = -errno;
	} else if ((rc = wait_fd(fd, POLLOUT, now_ms() + d->timeout_ms)) == 0) {
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl))
			rc = -errno;
		else if (soerr)
			rc = -soerr;
	}
	if (rc) {
		close(fd);
		return rc;
	}
	snprintf(d->path, sizeof(d->path), "tcp:%s:%lu", host, port);
	d->fd = fd;
	return 0;
}

static int write_all(struct lb_tpmdev *d, const uint8_t *p, size_t n, long long deadline)
{
	while (n) {
		ssize_t k = write(d->fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			int rc = wait_fd(d->fd, POLLOUT, deadline);
			if (rc)
				return rc;
			continue;
		}
		if (k < 0)
			return -errno;
		if (!d->tcp && (size_t)k != n)
			return -EIO; /* the device takes a command in one write */
		p += k;
		n -= k;
	}
	return 0;
}

/* Read exactly n bytes from the stream. */
static int read_n(struct lb_tpmdev *d, uint8_t *p, size_t n, long long deadline)
{
	while (n) {
		ssize_t k = read(d->fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			int rc = wait_fd(d->fd, POLLIN, deadline);
			if (rc)
				return rc;
			continue;
		}
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ECONNRESET;
		p += k;
		n -= k;
	}
	return 0;
}

int lb_tpmdev_xfer(void *ctx, const uint8_t *cmd, size_t clen, uint8_t *rsp,
		   size_t rcap, size_t *rlen)
{
	struct lb_tpmdev *d = ctx;
	long long deadline = now_ms() + d->timeout_ms;
	size_t size;
	int rc;

	if (d->fd < 0 || d->stuck)
		return -EIO;
	if (rcap < 10)
		return -EINVAL;
	rc = write_all(d, cmd, clen, deadline);
	if (rc)
		goto fail;
	if (!d->tcp) {
		ssize_t k;

		for (;;) {
			rc = wait_fd(d->fd, POLLIN, deadline);
			if (rc)
				goto fail;
			k = read(d->fd, rsp, rcap);
			if (k < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			break;
		}
		if (k < 0) {
			rc = -errno;
			goto fail;
		}
		*rlen = k;
		return 0;
	}
	rc = read_n(d, rsp, 10, deadline);
	if (rc)
		goto fail;
	size = (size_t)rsp[2] << 24 | (size_t)rsp[3] << 16 | (size_t)rsp[4] << 8 | rsp[5];
	if (size < 10 || size > rcap) {
		rc = -EBADMSG; /* the stream cannot be resynchronised */
		goto fail;
	}
	rc = read_n(d, rsp + 10, size - 10, deadline);
	if (rc)
		goto fail;
	*rlen = size;
	return 0;
fail:
	/* A command may still be running (or half a reply in the stream):
	 * this transport is not used again. */
	d->stuck = 1;
	return rc;
}

void lb_tpmdev_close(struct lb_tpmdev *d)
{
	/* After a timeout on the device, closing would wait in the kernel for
	 * the queued command (tpm_common_release flushes its work): leave the
	 * descriptor open instead (CLOEXEC, so kexec does not care). */
	if (d->fd >= 0 && !(d->stuck && !d->tcp))
		close(d->fd);
	d->fd = -1;
}
