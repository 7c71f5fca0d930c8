/*
 * /init of the tiny target OS the tests (and `make run`) boot into through
 * lboot's kexec: it proves the OS came up by printing a marker and the
 * command line it was given, then powers the machine off.
 * Built static with musl-gcc; runs under Debian's own kernel.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <unistd.h>

int main(void)
{
	char buf[4096];
	ssize_t n = 0;
	int fd;

	mount("proc", "/proc", "proc", 0, NULL);
	fd = open("/proc/cmdline", O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n < 0)
		n = 0;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	/* one write per line so the markers are never interleaved */
	dprintf(1, "\nlboot-target: TARGET-OS-UP\n");
	dprintf(1, "lboot-target: cmdline: %s\n", buf);
	fd = open("/proc/version", O_RDONLY);
	if (fd >= 0 && (n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		dprintf(1, "lboot-target: kernel: %s", buf);
	}
	dprintf(1, "lboot-target: powering off\n");
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
