/*
 * /init of the target OS of tests/e2e/sdboot-vars.sh: what the OS sees of
 * the boot loader through efivarfs (Debian's efivarfs.ko from a second
 * initrd), as bootctl would read it. Prints "sdboot-target: var NAME=VALUE"
 * for each Boot Loader Interface variable (UCS-2 strings decoded; absent:
 * "NAME unset"), then, with "sdtest.oneshot=ID" on its command line, writes
 * LoaderEntryOneShot the way `printf '\x07\x00\x00\x00...' > FILE` does
 * (attributes NV|BS|RT, UCS-2 with its NUL), and powers off. With
 * "sdtest.bootctl" (and systemd's bootctl with its libraries in the
 * initrd) it also runs `bootctl status`, each line prefixed
 * "sdboot-target: bootctl: ".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOADER "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
#define LBOOT "1091470e-9b9e-4c00-ba9b-e09ff089d37f"
#define DIR_ "/sys/firmware/efi/efivars/"

static void show(const char *name, const char *guid, int raw)
{
	unsigned char b[4096];
	char out[2048], path[256];
	ssize_t n;
	size_t k = 0;
	int fd;

	snprintf(path, sizeof(path), DIR_ "%s-%s", name, guid);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		dprintf(1, "sdboot-target: var %s unset\n", name);
		return;
	}
	n = read(fd, b, sizeof(b));
	close(fd);
	if (n < 4) {
		dprintf(1, "sdboot-target: var %s unreadable\n", name);
		return;
	}
	if (raw) {
		for (ssize_t i = 4; i < n && k + 3 < sizeof(out); i++)
			k += (size_t)snprintf(out + k, sizeof(out) - k, "%02x", b[i]);
	} else {
		for (ssize_t i = 4; i + 1 < n && k + 2 < sizeof(out); i += 2) {
			unsigned c = b[i] | b[i + 1] << 8;
			if (!c)
				break;
			out[k++] = c < 0x80 ? (char)c : '?';
		}
	}
	out[k] = 0;
	dprintf(1, "sdboot-target: var %s=%s attr=%02x\n", name, out, b[0]);
}

/* lboot's boot log (UTF-8 lines), each line prefixed, the attributes */
static void bootlog(void)
{
	static unsigned char b[4 + 16384];
	ssize_t n;
	int fd = open(DIR_ "LbootLog-" LBOOT, O_RDONLY);

	if (fd < 0) {
		dprintf(1, "sdboot-target: bootlog unset\n");
		return;
	}
	n = read(fd, b, sizeof(b));
	close(fd);
	if (n < 4) {
		dprintf(1, "sdboot-target: bootlog unreadable\n");
		return;
	}
	dprintf(1, "sdboot-target: bootlog attr=%02x bytes=%zd\n", b[0], n - 4);
	for (ssize_t i = 4, s = 4; i < n; i++)
		if (b[i] == '\n') {
			dprintf(1, "sdboot-target: bootlog: %.*s\n", (int)(i - s), (char *)b + s);
			s = i + 1;
		}
}

/* `bootctl status`, its output prefixed line by line */
static void bootctl(void)
{
	char *const argv[] = { "/usr/bin/bootctl", "status", "--no-pager", NULL };
	char *const envp[] = { "PATH=/usr/bin:/bin", "SYSTEMD_COLORS=0", "TERM=dumb",
			       "SYSTEMD_PAGER=cat", NULL };
	char buf[8192], line[1024];
	size_t k = 0;
	ssize_t n;
	int p[2], st = 0;
	pid_t pid;

	if (access(argv[0], X_OK) || pipe(p)) {
		dprintf(1, "sdboot-target: bootctl: not in this initrd\n");
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n' || k + 1 >= sizeof(line)) {
				line[k] = 0;
				dprintf(1, "sdboot-target: bootctl: %s\n", line);
				k = 0;
			} else {
				line[k++] = buf[i];
			}
		}
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	dprintf(1, "sdboot-target: bootctl: exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(void)
{
	static const char *const names[] = {
		"LoaderInfo", "LoaderEntrySelected", "LoaderDevicePartUUID",
		"LoaderTimeInitUSec", "LoaderTimeExecUSec", "LoaderFirmwareInfo",
		"LoaderFirmwareType", "LoaderBootCountPath", "LoaderEntryOneShot",
		"LoaderEntryDefault",
	};
	char cmd[4096];
	const char *os;
	ssize_t n = 0;
	int fd;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	fd = open("/proc/cmdline", O_RDONLY);
	if (fd >= 0) {
		n = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
	}
	cmd[n > 0 ? n : 0] = 0;
	cmd[strcspn(cmd, "\n")] = 0;
	dprintf(1, "\nsdboot-target: up: %s\n", cmd);
	fd = open("/efivarfs.ko", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)
			dprintf(1, "sdboot-target: efivarfs.ko: %s\n", strerror(errno));
		close(fd);
	}
	if (mount("efivarfs", "/sys/firmware/efi/efivars", "efivarfs", 0, NULL)) {
		dprintf(1, "sdboot-target: efivarfs: %s\n", strerror(errno));
	} else {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			show(names[i], LOADER, 0);
		show("LoaderFeatures", LOADER, 1);
		show("LbootEntryLastBooted", LBOOT, 0);
		bootlog();
	}
	if (strstr(cmd, "sdtest.bootctl"))
		bootctl();
	os = strstr(cmd, "sdtest.oneshot=");
	if (os) {
		unsigned char b[4 + 512];
		size_t k = 4;
		char path[256];

		os += 15;
		memcpy(b, "\x07\x00\x00\x00", 4);
		for (; *os && *os != ' ' && k + 4 < sizeof(b); os++) {
			b[k++] = (unsigned char)*os;
			b[k++] = 0;
		}
		b[k++] = 0;
		b[k++] = 0;
		snprintf(path, sizeof(path), DIR_ "LoaderEntryOneShot-" LOADER);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		if (fd < 0 || write(fd, b, k) != (ssize_t)k)
			dprintf(1, "sdboot-target: writing LoaderEntryOneShot: %s\n", strerror(errno));
		else
			dprintf(1, "sdboot-target: wrote LoaderEntryOneShot\n");
		if (fd >= 0)
			close(fd);
	}
	dprintf(1, "sdboot-target: done\n");
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
