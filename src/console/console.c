/* Every console of `console=` at once (see console.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "console.h"

#define ACTIVE "/sys/class/tty/console/active"
#define STALL_MS 200   /* a console that takes nothing this long is skipped */
#define DRAIN_MS 2000  /* the bound of lb_console_drain */

static struct {
	size_t n;
	int fd[LB_CONS_MAX];
	char name[LB_CONS_MAX][LB_CONS_NAME];
	int stalled[LB_CONS_MAX];
	int saved_ok[LB_CONS_MAX];
	struct termios saved[LB_CONS_MAX];
	int data_r, req_r, req_w, ack_r, ack_w; /* the copy thread's pipes */
	int on;
} C = { .data_r = -1, .req_r = -1, .req_w = -1, .ack_r = -1, .ack_w = -1 };

size_t lb_console_parse(const char *s, char names[][LB_CONS_NAME], size_t cap)
{
	size_t n = 0;

	while (s && *s && n < cap) {
		size_t len = 0, ok = 1;

		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		while (s[len] && s[len] != ' ' && s[len] != '\t' && s[len] != '\n') {
			char c = s[len];
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9') || c == '_'))
				ok = 0;
			len++;
		}
		if (!len)
			break;
		if (ok && len < LB_CONS_NAME) {
			int dup = 0;
			for (size_t i = 0; i < n; i++)
				if (strlen(names[i]) == len && !memcmp(names[i], s, len))
					dup = 1;
			if (!dup) {
				memcpy(names[n], s, len);
				names[n++][len] = 0;
			}
		}
		s += len;
	}
	return n;
}

const int *lb_console_fds(size_t *n)
{
	*n = C.on ? C.n : 0;
	return C.on ? C.fd : NULL;
}

const char *lb_console_name(size_t i)
{
	return i < C.n ? C.name[i] : "console";
}

static long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* all of buf to console i, unless it takes nothing for STALL_MS (a
 * stalled console gets no wait until it takes bytes again) */
static void put(size_t i, const char *buf, size_t len)
{
	long t0 = mono_ms();

	while (len) {
		ssize_t w = write(C.fd[i], buf, len);

		if (w > 0) {
			buf += w;
			len -= (size_t)w;
			C.stalled[i] = 0;
			t0 = mono_ms();
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN)
			return; /* gone (hung up): nothing to do about it here */
		long left = STALL_MS - (mono_ms() - t0);
		struct pollfd p = { .fd = C.fd[i], .events = POLLOUT };
		if (C.stalled[i] || left <= 0 || poll(&p, 1, (int)left) <= 0) {
			C.stalled[i] = 1;
			return;
		}
	}
}

/* copy what is in the pipe now; 0 when it is empty, -1 when closed */
static int copy_some(void)
{
	char buf[4096];
	ssize_t r = read(C.data_r, buf, sizeof(buf));

	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (!r)
		return -1;
	for (size_t i = 0; i < C.n; i++)
		put(i, buf, (size_t)r);
	return 1;
}

/* each console's output queue sent (bounded: flow control may hold it) */
static void wait_sent(void)
{
	long t0 = mono_ms();

	for (size_t i = 0; i < C.n; i++) {
		int q = 0;
		while (!C.stalled[i] && ioctl(C.fd[i], TIOCOUTQ, &q) == 0 && q > 0 &&
		       mono_ms() - t0 < DRAIN_MS / 2) {
			struct timespec ts = { 0, 10 * 1000000L };
			nanosleep(&ts, NULL);
		}
	}
}

static void *copier(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p[2] = { { .fd = C.data_r, .events = POLLIN },
				       { .fd = C.req_r, .events = POLLIN } };
		char c;

		if (poll(p, 2, -1) < 0)
			continue;
		if (p[0].revents && copy_some() < 0)
			return NULL; /* nobody can write: not reached, PID 1 keeps an end */
		if (p[1].revents & POLLIN && read(C.req_r, &c, 1) == 1) {
			/* everything written before the request is in the pipe now */
			while (copy_some() > 0)
				;
			wait_sent();
			if (write(C.ack_w, "", 1) < 0) {
				/* the drainer bounds its wait */
			}
		}
	}
}

/* /dev/NAME, made from /sys/class/tty/NAME/dev when it is not there */
static int open_console(const char *name)
{
	char path[64], sys[96], dev[32];
	unsigned ma, mi;
	int fd;

	/* a name too long for the buffers is refused, never opened cut short */
	if ((size_t)snprintf(path, sizeof(path), "/dev/%s", name) >= sizeof(path))
		return -ENAMETOOLONG;
	if (access(path, F_OK) != 0) {
		if ((size_t)snprintf(sys, sizeof(sys), "/sys/class/tty/%s/dev", name) >= sizeof(sys))
			return -ENAMETOOLONG;
		fd = open(sys, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		ssize_t r = read(fd, dev, sizeof(dev) - 1);
		close(fd);
		dev[r > 0 ? r : 0] = 0;
		if (sscanf(dev, "%u:%u", &ma, &mi) != 2)
			return -ENODEV;
		if (mknod(path, S_IFCHR | 0600, makedev(ma, mi)) < 0 && errno != EEXIST)
			return -errno;
	}
	fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* a port without hardware (an 8250 that probed as unknown) opens but
	 * fails every write: an empty write says so */
	if (write(fd, "", 0) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

static void cloexec_pipe(int p[2], int nonblock_read)
{
	if (pipe2(p, O_CLOEXEC) < 0) {
		p[0] = p[1] = -1;
		return;
	}
	if (nonblock_read)
		fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
}

static void bad_lines(FILE *log, const char **bad, const int *err, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(log, "lboot: console %s: cannot use /dev/%s: %s: going on without it\n",
			bad[i], bad[i], strerror(err[i]));
	fflush(log);
}

void lb_console_setup(FILE *log)
{
	char names[LB_CONS_MAX][LB_CONS_NAME], buf[512];
	int fd = open(ACTIVE, O_RDONLY | O_CLOEXEC), data[2], req[2], ack[2];
	size_t n = 0, nbad = 0;
	int bad_err[LB_CONS_MAX];
	const char *bad[LB_CONS_MAX];
	pthread_t th;
	sigset_t all, old;

	if (fd >= 0) {
		ssize_t r = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[r > 0 ? r : 0] = 0;
		n = lb_console_parse(buf, names, LB_CONS_MAX);
	}
	if (n < 2)
		return; /* /dev/console is all there is */
	for (size_t i = 0; i < n; i++) {
		int cfd = open_console(names[i]);
		if (cfd < 0) {
			bad[nbad] = names[i];
			bad_err[nbad++] = -cfd;
			continue;
		}
		C.saved_ok[C.n] = tcgetattr(cfd, &C.saved[C.n]) == 0;
		C.fd[C.n] = cfd;
		memcpy(C.name[C.n++], names[i], LB_CONS_NAME);
	}
	if (C.n < 2)
		goto single;
	cloexec_pipe(data, 1);
	cloexec_pipe(req, 0);
	cloexec_pipe(ack, 1);
	if (data[0] < 0 || req[0] < 0 || ack[0] < 0) {
		int *all_fds[] = { data, req, ack };
		fprintf(log, "lboot: consoles: no pipe: %s\n", strerror(errno));
		for (size_t i = 0; i < 3; i++)
			for (int j = 0; j < 2; j++)
				if (all_fds[i][j] >= 0)
					close(all_fds[i][j]);
		goto single;
	}
	C.data_r = data[0];
	C.req_r = req[0];
	C.req_w = req[1];
	C.ack_r = ack[0];
	C.ack_w = ack[1];
	/* the thread takes no signal: PID 1 waits for SIGCHLD itself */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&th, NULL, copier, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		fprintf(log, "lboot: consoles: no copy thread: %s\n", strerror(e));
		close(data[1]);
		close(req[1]);
		close(ack[1]);
		close(C.data_r);
		close(C.req_r);
		close(C.ack_r);
		C.data_r = C.req_r = C.req_w = C.ack_r = C.ack_w = -1;
		goto single;
	}
	pthread_detach(th);
	fflush(stdout);
	fflush(stderr);
	dup2(data[1], 1);
	dup2(data[1], 2);
	close(data[1]); /* data[0] stays open in PID 1: writers never see EPIPE */
	C.on = 1;
	fprintf(log, "lboot: consoles:");
	for (size_t i = 0; i < C.n; i++)
		fprintf(log, " %s", C.name[i]);
	fprintf(log, " (messages and the menu on each, keys from any)\n");
	bad_lines(log, bad, bad_err, nbad);
	return;
single:
	bad_lines(log, bad, bad_err, nbad);
	if (C.n)
		fprintf(log, "lboot: consoles: only /dev/console in use\n");
	for (size_t i = 0; i < C.n; i++)
		close(C.fd[i]);
	C.n = 0;
}

void lb_console_restore(void)
{
	for (size_t i = 0; C.on && i < C.n; i++)
		if (C.saved_ok[i])
			tcsetattr(C.fd[i], TCSANOW, &C.saved[i]);
}

void lb_console_drain(void)
{
	char c[16];
	struct pollfd p = { .fd = C.ack_r, .events = POLLIN };

	fflush(NULL);
	if (!C.on)
		return;
	while (read(C.ack_r, c, sizeof(c)) > 0)
		; /* an old answer */
	if (write(C.req_w, "", 1) != 1)
		return;
	for (long t0 = mono_ms(), left; (left = DRAIN_MS - (mono_ms() - t0)) > 0;) {
		if (poll(&p, 1, (int)left) > 0 && read(C.ack_r, c, 1) == 1)
			return;
	}
}
