/* lboot's messages to the console and the kernel log; the boot log handed
 * to the OS (log.h, docs/boot-state.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coreboot.h"
#include "efivar.h"
#include "efivars.h"
#include "io.h"
#include "log.h"

#define LINE_MAX_ 2048

struct logc {
	int kmsg;
	const char *path;
	size_t n;
	char line[LINE_MAX_];
};

/* would the kernel print a record of this level on the console now?
 * console_loglevel is the first number of /proc/sys/kernel/printk (read
 * each time: `dmesg -n` changes it), printk.ignore_loglevel prints all */
static const char *printk_path = "/proc/sys/kernel/printk",
		  *ignore_path = "/sys/module/printk/parameters/ignore_loglevel";

void lb_log_set_printk(const char *printk, const char *ignore)
{
	printk_path = printk;
	ignore_path = ignore;
}

static int kernel_prints(int level)
{
	char b[64];

	if (!lb_read_attr(ignore_path, b, sizeof(b)) && b[0] == 'Y')
		return 1;
	if (lb_read_attr(printk_path, b, sizeof(b)) || !b[0])
		return 0;
	return level < atoi(b);
}

static void emit(struct logc *c, const char *line, size_t len)
{
	char rec[LB_KMSG_TEXT_MAX + 32];
	const char *t;
	size_t tl, rl;
	int level = lb_kmsg_level(line, len, &t, &tl), fd, logged = 0;

	if (c->kmsg && (rl = lb_kmsg_record(rec, sizeof(rec), line, len))) {
		/* a fresh open for each line: the kernel rate-limits what one
		 * open file writes (printk.devkmsg=ratelimit, 10 lines in 5 s)
		 * and drops the rest without an error; one write, one record */
		fd = open(c->path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			logged = !lb_write_all(fd, rec, rl);
			close(fd);
		}
	}
	/* the kernel printed it on the console already: not twice */
	if (logged && tl <= LB_KMSG_TEXT_MAX && kernel_prints(level))
		return;
	char out[LINE_MAX_ + 1];
	memcpy(out, t, tl);
	out[tl] = '\n';
	(void)lb_write_all(1, out, tl + 1);
}

static ssize_t log_write(void *cookie, const char *buf, size_t size)
{
	struct logc *c = cookie;

	for (size_t i = 0; i < size; i++) {
		if (buf[i] == '\n') {
			emit(c, c->line, c->n);
			c->n = 0;
			continue;
		}
		if (c->n == sizeof(c->line)) { /* a very long line: in parts */
			emit(c, c->line, c->n);
			c->n = 0;
		}
		c->line[c->n++] = buf[i];
	}
	return (ssize_t)size;
}

static int log_close(void *cookie)
{
	struct logc *c = cookie;

	if (c->n)
		emit(c, c->line, c->n);
	free(c);
	return 0;
}

FILE *lb_log_open(int kmsg, const char *kmsg_path)
{
	cookie_io_functions_t io = { .write = log_write, .close = log_close };
	struct logc *c = calloc(1, sizeof(*c));
	FILE *f;

	if (!c)
		return NULL;
	c->kmsg = kmsg;
	c->path = kmsg_path ? kmsg_path : "/dev/kmsg";
	if (!(f = fopencookie(c, "w", io))) {
		free(c);
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

int lb_bootlog_collect(const char *kmsg_path, char *buf, size_t cap, size_t *len)
{
	const size_t tagl = sizeof(LB_KMSG_TAG) - 1;
	char rec[8192];
	struct lb_kmsg_rec r;
	int fd = open(kmsg_path ? kmsg_path : "/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	*len = 0;
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) /* overwritten while we read */
			continue;
		if (n <= 0)
			break; /* EAGAIN: the end; or a plain file's end */
		if (lb_kmsg_parse(rec, (size_t)n, &r))
			continue;
		if (r.facility != LB_KMSG_FACILITY || r.tlen < tagl ||
		    memcmp(r.text, LB_KMSG_TAG, tagl))
			continue;
		/* the line as printed: backslashes and UTF-8 unescaped */
		lb_bootlog_add(buf, cap, len, r.level, r.text,
			       lb_kmsg_unescape((char *)r.text, r.tlen));
	}
	close(fd);
	return 0;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Under coreboot: the boot log after coreboot's own console in CBMEM, which
 * survives the kexec (reserved memory) and the OS reads (cbmem -c, Linux's
 * memconsole-coreboot: /sys/firmware/log): one log, firmware then lboot.
 * 1 when it is not coreboot (nothing said), else 0. */
static int bootlog_coreboot(FILE *log)
{
	static char want[4 * LB_BOOTLOG_MAX], text[4 * LB_BOOTLOG_MAX + 64];
	char why[256] = "";
	size_t wn = 0, n;
	uint64_t addr = 0;
	int r;

	if ((r = lb_bootlog_collect(NULL, want, sizeof(want), &wn)) || !wn) {
		fprintf(log, "lboot: boot log: /dev/kmsg: %s: not handed over\n",
			r ? strerror(-r) : "no lboot lines");
		return 0;
	}
	n = (size_t)snprintf(text, sizeof(text), "\n*** lboot boot log ***\n");
	for (size_t i = 0; i < wn;) { /* the lines without their "<level>" */
		const char *nl = memchr(want + i, '\n', wn - i);
		size_t e = nl ? (size_t)(nl - want) + 1 : wn, s = i;

		if (e - s >= 3 && want[s] == '<' && want[s + 2] == '>')
			s += 3;
		memcpy(text + n, want + s, e - s);
		n += e - s;
		i = e;
	}
	r = lb_cb_console_write(NULL, text, n, &addr, why, sizeof(why));
	if (r == -ENODEV)
		return 1; /* not coreboot */
	if (r)
		fprintf(log, "lboot: boot log: no EFI variables, and coreboot's console: %s: not handed over\n",
			why);
	else
		fprintf(log, "lboot: boot log: %zu bytes after coreboot's console in CBMEM at 0x%llx "
			"(the OS reads both: cbmem -c, /sys/firmware/log)\n", n, (unsigned long long)addr);
	return 0;
}

void lb_bootlog_handover(FILE *log)
{
	static char want[LB_BOOTLOG_MAX];
	static uint8_t have[LB_BOOTLOG_MAX];
	size_t wn = 0, hn = 0;
	uint32_t attr = 0;
	struct timespec t0;
	int r;

	fflush(log);
	if ((r = lb_efivars_open())) {
		if (r == -ENOENT && !bootlog_coreboot(log))
			return;
		fprintf(log, "lboot: boot log: no EFI variables (%s): not handed over\n",
			r == -ENOENT ? "not booted by EFI" : strerror(-r));
		return;
	}
	if ((r = lb_bootlog_collect(NULL, want, sizeof(want), &wn)) || !wn) {
		fprintf(log, "lboot: boot log: /dev/kmsg: %s: not handed over\n",
			r ? strerror(-r) : "no lboot lines");
		return;
	}
	if (!lb_efivar_get(LB_BOOTLOG_VAR, LB_EFIVAR_GUID_LBOOT, &attr, have, sizeof(have), &hn) &&
	    attr == LB_EFIVAR_NV_BS_RT && hn == wn && !memcmp(have, want, wn)) {
		fprintf(log, "lboot: boot log: %zu bytes, as in EFI variable %s-%s already: not rewritten\n",
			wn, LB_BOOTLOG_VAR, LB_EFIVAR_GUID_LBOOT);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = lb_efivar_set(LB_BOOTLOG_VAR, LB_EFIVAR_GUID_LBOOT, LB_EFIVAR_NV_BS_RT, want, wn);
	if (r)
		fprintf(log, "lboot: boot log: EFI variable %s-%s: %s: not handed over\n",
			LB_BOOTLOG_VAR, LB_EFIVAR_GUID_LBOOT, strerror(-r));
	else
		fprintf(log, "lboot: boot log: %zu bytes in EFI variable %s-%s (written in %ld ms)\n",
			wn, LB_BOOTLOG_VAR, LB_EFIVAR_GUID_LBOOT, ms_since(&t0));
}

void lb_logf(FILE *log, const char *fmt, ...)
{
	va_list ap;

	if (!log)
		return;
	va_start(ap, fmt);
	vfprintf(log, fmt, ap);
	va_end(ap);
	fflush(log);
}
