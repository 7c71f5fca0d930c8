/* The hardware watchdog: armed by PID 1, handed over at kexec (watchdog.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "watchdog.h"

static struct {
	int fd;             /* -1: not armed */
	int secs;           /* lboot's timeout as the driver took it */
	int core;           /* a watchdog core device (not legacy) */
	long fed_ms, every_ms;
	char dev[32];
	char ident[33];
} wd = { .fd = -1 };

static void path_join(char *out, size_t sz, const char *root, const char *p)
{
	if (!root || !*root || !strcmp(root, "/"))
		root = "";
	snprintf(out, sz, "%s%s", root, p);
}

int lb_watchdog_pick(const char *root, char *dev, size_t devsz)
{
	char path[512];
	struct dirent *de;
	long best = -1;
	DIR *d;

	path_join(path, sizeof(path), root, "/sys/class/watchdog");
	if ((d = opendir(path))) {
		while ((de = readdir(d))) {
			char *end;
			long n;

			if (strncmp(de->d_name, "watchdog", 8) || !de->d_name[8])
				continue;
			errno = 0;
			n = strtol(de->d_name + 8, &end, 10);
			if (errno || *end || n < 0 || n > 1000000)
				continue;
			if (best < 0 || n < best)
				best = n;
		}
		closedir(d);
	}
	if (best >= 0) {
		if ((size_t)snprintf(dev, devsz, "/dev/watchdog%ld", best) >= devsz)
			return -ENAMETOOLONG;
		return 1;
	}
	path_join(path, sizeof(path), root, "/dev/watchdog");
	if (access(path, F_OK))
		return -ENOENT;
	if (devsz < sizeof("/dev/watchdog"))
		return -ENAMETOOLONG;
	memcpy(dev, "/dev/watchdog", sizeof("/dev/watchdog"));
	return 0;
}

static int set_timeout(int fd, int secs, int *got)
{
	int t = secs;

	if (ioctl(fd, LB_WDIOC_SETTIMEOUT, &t) < 0) {
		int e = errno;

		t = 0;
		if (ioctl(fd, LB_WDIOC_GETTIMEOUT, &t) < 0)
			t = 0;
		*got = t;
		return -e;
	}
	*got = t;
	return 0;
}

static void schedule(int secs)
{
	long t = (long)(secs > 0 ? secs : 1) * 1000 / 4;

	wd.every_ms = t < 250 ? 250 : t > 5000 ? 5000 : t;
}

int lb_watchdog_arm(int secs, FILE *log)
{
	struct lb_watchdog_info info;
	int fd, r, got = 0;

	if (wd.fd >= 0)
		return 0;
	r = lb_watchdog_pick(NULL, wd.dev, sizeof(wd.dev));
	if (r < 0) {
		fprintf(log, "lboot: watchdog: lboot.watchdog=%d, but there is no watchdog device\n", secs);
		return r;
	}
	wd.core = r;
	/* opening starts it: from here on it must be fed */
	fd = open(wd.dev, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		fprintf(log, "lboot: watchdog: %s: %s\n", wd.dev, strerror(-r));
		return r;
	}
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, LB_WDIOC_GETSUPPORT, &info) == 0) {
		memcpy(wd.ident, info.identity, sizeof(info.identity));
		wd.ident[sizeof(wd.ident) - 1] = 0;
	} else {
		snprintf(wd.ident, sizeof(wd.ident), "?");
	}
	r = set_timeout(fd, secs, &got);
	ioctl(fd, LB_WDIOC_KEEPALIVE, 0);
	wd.fd = fd;
	wd.secs = got > 0 ? got : secs;
	schedule(wd.secs);
	wd.fed_ms = 0;
	if (r)
		fprintf(log, "lboot: watchdog: %s (%s) refused %d s (%s): armed with its %d s\n",
			wd.dev, wd.ident, secs, strerror(-r), got);
	else
		fprintf(log, "lboot: watchdog: %s (%s) armed, %d s%s\n", wd.dev, wd.ident,
			got, got != secs ? " (the driver's nearest)" : "");
	fflush(log);
	return 0;
}

int lb_watchdog_armed(void)
{
	return wd.fd >= 0;
}

void lb_watchdog_feed(long now_ms)
{
	if (wd.fd < 0 || (wd.fed_ms && now_ms - wd.fed_ms < wd.every_ms))
		return;
	ioctl(wd.fd, LB_WDIOC_KEEPALIVE, 0);
	wd.fed_ms = now_ms;
}

/* what the kernel does to the watchdog at kexec, as far as lboot can know */
static const char *kexec_fate(void)
{
	char v[16] = "";
	int fd = open("/sys/module/watchdog/parameters/stop_on_reboot", O_RDONLY | O_CLOEXEC);

	if (!wd.core)
		return "; a legacy driver, which may stop it at kexec";
	if (fd >= 0) {
		ssize_t n = read(fd, v, sizeof(v) - 1);
		close(fd);
		v[n > 0 ? n : 0] = 0;
	}
	if (!strncmp(v, "0", 1) && (v[1] == '\n' || !v[1]))
		return " (watchdog.stop_on_reboot=0: the kernel keeps it running)";
	return "; the kernel stops it at kexec unless the firmware runs with watchdog.stop_on_reboot=0";
}

int lb_watchdog_handover(int secs, FILE *log)
{
	int got = 0, r, off = LB_WDIOS_DISABLECARD;

	if (wd.fd < 0)
		return 0;
	if (secs > 0) {
		r = set_timeout(wd.fd, secs, &got);
		ioctl(wd.fd, LB_WDIOC_KEEPALIVE, 0);
		if (r)
			fprintf(log, "lboot: watchdog: handover %d s refused (%s): left armed with %d s for the OS%s\n",
				secs, strerror(-r), got, kexec_fate());
		else
			fprintf(log, "lboot: watchdog: left armed for the OS: %d s to take over%s\n",
				got, kexec_fate());
		fflush(log);
		return 0;
	}
	/* the magic close says the stop is wanted; DISABLECARD stops it now,
	 * as the file stays open (PID 1 holds it) through kexec */
	if (write(wd.fd, "V", 1) < 0) {
		/* nothing: DISABLECARD below decides */
	}
	if (ioctl(wd.fd, LB_WDIOC_SETOPTIONS, &off) < 0) {
		r = -errno;
		fprintf(log, "lboot: watchdog: cannot stop it before kexec (%s): the OS must feed it within %d s\n",
			strerror(-r), wd.secs);
		fflush(log);
		return r;
	}
	fprintf(log, "lboot: watchdog: stopped before kexec (lboot.watchdog.handover=0)\n");
	fflush(log);
	return 0;
}

void lb_watchdog_resume(FILE *log)
{
	int on = LB_WDIOS_ENABLECARD, got = 0;

	if (wd.fd < 0)
		return;
	ioctl(wd.fd, LB_WDIOC_SETOPTIONS, &on);
	set_timeout(wd.fd, wd.secs, &got);
	ioctl(wd.fd, LB_WDIOC_KEEPALIVE, 0);
	fprintf(log, "lboot: watchdog: back to %d s\n", got > 0 ? got : wd.secs);
	fflush(log);
}
