/*
 * /init of the tiny target OS the tests (and `make run`) boot into through
 * lboot's kexec: it proves the OS came up by printing a marker and the
 * command line it was given, then powers the machine off.
 * Built static with musl-gcc; runs under Debian's own kernel.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char buf_cmdline[4096];

/* "lboot-test.tpm" on the command line: print the TPM event log the kernel
 * found (hex, 64 bytes a line) and PCRs 0-9 and 11 of each bank, for
 * tests/e2e/measure-boot.sh to replay with tpm2_eventlog */
static void dump_tpm(void)
{
	static const char *const banks[] = { "sha1", "sha256", "sha384", "sha512" };
	static const int pcrs[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11 };
	unsigned char b[64];
	char line[160], path[96];
	ssize_t n;
	int fd;

	/* the kernel's own late messages (e.g. "tsc: Refined TSC clocksource
	 * calibration") must not land inside a hex line: console level 1 */
	klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 1);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	fd = open("/sys/kernel/security/tpm0/binary_bios_measurements", O_RDONLY);
	if (fd < 0) {
		dprintf(1, "lboot-target: tpmlog: none\n");
	} else {
		while ((n = read(fd, b, sizeof(b))) > 0) {
			for (ssize_t i = 0; i < n; i++)
				snprintf(line + 2 * i, 3, "%02x", b[i]);
			dprintf(1, "lboot-target: tpmlog: %s\n", line);
		}
		close(fd);
		dprintf(1, "lboot-target: tpmlog-end\n");
	}
	for (size_t k = 0; k < sizeof(banks) / sizeof(banks[0]); k++)
		for (size_t i = 0; i < sizeof(pcrs) / sizeof(pcrs[0]); i++) {
			snprintf(path, sizeof(path), "/sys/class/tpm/tpm0/pcr-%s/%d", banks[k], pcrs[i]);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				continue;
			n = read(fd, line, sizeof(line) - 1);
			close(fd);
			if (n <= 0)
				continue;
			line[n] = 0;
			if (line[n - 1] == '\n')
				line[n - 1] = 0;
			dprintf(1, "lboot-target: pcr %s %d %s\n", banks[k], pcrs[i], line);
		}
}

/* "lboot-test.cbmem" on the command line (tests/e2e/coreboot-measure.sh):
 * coreboot's CBMEM console as the OS reads it, through Debian's
 * memconsole-coreboot driver (/memconsole.ko and /memconsole-coreboot.ko
 * from a second initrd): the number of lines, its first line that is not empty and
 * every "lboot: " line, each prefixed */
static void dump_cbmem(void)
{
	static char b[1 << 20];
	const char *mods[] = { "/memconsole.ko", "/memconsole-coreboot.ko" };
	size_t n = 0, lines = 0, shown = 0;
	ssize_t k;
	int fd;

	klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 1);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	for (size_t i = 0; i < 2; i++) {
		fd = open(mods[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0))
			dprintf(1, "lboot-target: cbmem: %s: %s\n", mods[i], strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	fd = open("/sys/firmware/log", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		dprintf(1, "lboot-target: cbmem: /sys/firmware/log: %s\n", strerror(errno));
		return;
	}
	while (n < sizeof(b) - 1 && (k = read(fd, b + n, sizeof(b) - 1 - n)) > 0)
		n += (size_t)k;
	close(fd);
	b[n] = 0;
	for (char *l = b, *e; *l; l = e) {
		e = strchr(l, '\n');
		e = e ? e + 1 : l + strlen(l);
		lines++;
		if ((!shown && *l != '\n' && (shown = 1)) || !strncmp(l, "lboot: ", 7) ||
		    !strncmp(l, "*** lboot", 9))
			dprintf(1, "lboot-target: cbmem: %.*s\n", (int)(e - l - (e[-1] == '\n')), l);
	}
	dprintf(1, "lboot-target: cbmem-end %zu lines\n", lines);
}

/* "lboot-test.acpi" on the command line (tests/e2e/kexec-load.sh): what
 * the boot loader handed over besides the command line: the root the
 * target runs from (its initrd), ACPI tables, EFI (and whether efivarfs
 * reads: runtime services), the framebuffer (/proc/fb) */
static void dump_handover(void)
{
	char b[512];
	ssize_t n;
	int fd, nvars = -1;

	mount("sysfs", "/sys", "sysfs", 0, NULL);
	fd = open("/proc/mounts", O_RDONLY);
	if (fd >= 0 && (n = read(fd, b, sizeof(b) - 1)) > 0) {
		b[n] = 0;
		b[strcspn(b, "\n")] = 0;
		dprintf(1, "lboot-target: root: %s\n", b);
	}
	if (fd >= 0)
		close(fd);
	dprintf(1, "lboot-target: acpi: %s\n",
		access("/sys/firmware/acpi/tables/DSDT", F_OK) ? "no" : "yes");
	dprintf(1, "lboot-target: efi: %s\n", access("/sys/firmware/efi", F_OK) ? "no" : "yes");
	/* a second initrd (concatenated after ours) may bring efivarfs.ko,
	 * a module in Debian's kernel */
	fd = open("/efivarfs.ko", O_RDONLY | O_CLOEXEC);
	dprintf(1, "lboot-target: second initrd: %s\n", fd >= 0 ? "yes" : "no");
	if (fd >= 0) {
		if (syscall(SYS_finit_module, fd, "", 0))
			dprintf(1, "lboot-target: efivarfs.ko: %s\n", strerror(errno));
		close(fd);
	}
	if (!access("/sys/firmware/efi", F_OK) &&
	    !mount("efivarfs", "/sys/firmware/efi/efivars", "efivarfs", 0, NULL)) {
		DIR *d = opendir("/sys/firmware/efi/efivars");
		struct dirent *de;

		nvars = 0;
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.')
				nvars++;
		if (d)
			closedir(d);
	}
	dprintf(1, "lboot-target: efivars: %d\n", nvars);
	fd = open("/proc/fb", O_RDONLY);
	n = fd >= 0 ? read(fd, b, sizeof(b) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n < 0)
		n = 0;
	b[n] = 0;
	b[strcspn(b, "\n")] = 0;
	dprintf(1, "lboot-target: fb: %s\n", n ? b : "none");
}

/* "lboot-test.files" on the command line (tests/e2e/netboot-ipxe-cpio.sh):
 * every regular file the initrds put in the root but /init (path, mode,
 * owner, mtime, the first 64 bytes with non-printables as '.'), then the
 * size of the initrd buffer the boot loader handed over (boot_params
 * hdr.ramdisk_size, /sys/kernel/boot_params/data at 0x21c) */
static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[512], b[65];

	while (d && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", strcmp(dir, "/") ? dir : "", de->d_name);
		if (!strcmp(p, "/proc") || !strcmp(p, "/sys") || !strcmp(p, "/dev") ||
		    !strcmp(p, "/init") || lstat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(p);
		} else if (S_ISREG(st.st_mode)) {
			int fd = open(p, O_RDONLY | O_CLOEXEC);
			ssize_t n = fd < 0 ? 0 : read(fd, b, 64);

			if (fd >= 0)
				close(fd);
			if (n < 0)
				n = 0;
			for (ssize_t i = 0; i < n; i++)
				if (b[i] < 0x21 || b[i] > 0x7e)
					b[i] = '.';
			b[n] = 0;
			dprintf(1, "lboot-target: file: %s %04o %u:%u %lld %s\n", p,
				(unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
				(unsigned)st.st_gid, (long long)st.st_mtime, b);
		}
	}
	if (d)
		closedir(d);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* With retain_initrd the initrd's memory is kept: read it back through
 * /proc/kcore (its RAM segments carry physical addresses) and print its
 * FNV-1a 64, the FNV-1a 64 of its non-zero bytes (the kernel skips zeros
 * between archives: a boot loader may leave gaps) and its first 16 bytes,
 * so a test can compare the bytes two boot loaders handed over. */
static void dump_initrd_bytes(uint64_t addr, uint64_t size)
{
	unsigned char eh[64], ph[56], buf[4096];
	uint64_t h = 0xcbf29ce484222325ull, nz = h, done = 0;
	char head[40] = "";
	int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || pread(fd, eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh, "\177ELF", 4) || eh[4] != 2) {
		dprintf(1, "lboot-target: initrd-bytes: no /proc/kcore\n");
		goto out;
	}
	uint64_t phoff; uint16_t phnum, phentsize;
	memcpy(&phoff, eh + 32, 8);
	memcpy(&phentsize, eh + 54, 2);
	memcpy(&phnum, eh + 56, 2);
	for (unsigned i = 0; i < phnum; i++) {
		uint64_t off, paddr, filesz;
		uint32_t type;

		if (pread(fd, ph, sizeof(ph), (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)sizeof(ph))
			break;
		memcpy(&type, ph, 4);
		memcpy(&off, ph + 8, 8);
		memcpy(&paddr, ph + 24, 8);
		memcpy(&filesz, ph + 32, 8);
		if (type != 1 || paddr == ~0ull || addr < paddr || addr - paddr > filesz ||
		    size > filesz - (addr - paddr))
			continue;
		while (done < size) {
			size_t n = size - done < sizeof(buf) ? (size_t)(size - done) : sizeof(buf);
			if (pread(fd, buf, n, (off_t)(off + (addr - paddr) + done)) != (ssize_t)n)
				break;
			if (!done)
				for (int j = 0; j < 16 && (size_t)j < n; j++)
					snprintf(head + 2 * j, 3, "%02x", buf[j]);
			for (size_t j = 0; j < n; j++) {
				h = (h ^ buf[j]) * 0x100000001b3ull;
				if (buf[j])
					nz = (nz ^ buf[j]) * 0x100000001b3ull;
			}
			done += n;
		}
		break;
	}
	if (done == size)
		dprintf(1, "lboot-target: initrd-bytes: fnv1a64 %016llx nonzero %016llx head %s\n",
			(unsigned long long)h, (unsigned long long)nz, head);
	else
		dprintf(1, "lboot-target: initrd-bytes: not found in /proc/kcore\n");
out:
	if (fd >= 0)
		close(fd);
}

static void dump_files(void)
{
	unsigned char bp[0x220];
	int fd;

	mount("sysfs", "/sys", "sysfs", 0, NULL);
	walk("/");
	fd = open("/sys/kernel/boot_params/data", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && read(fd, bp, sizeof(bp)) == (ssize_t)sizeof(bp)) {
		uint64_t addr = le32(bp + 0x218) | (uint64_t)le32(bp + 0xc0) << 32;
		uint64_t size = le32(bp + 0x21c) | (uint64_t)le32(bp + 0xc4) << 32;

		dprintf(1, "lboot-target: initrd-size: %llu\n", (unsigned long long)size);
		if (strstr(buf_cmdline, "retain_initrd"))
			dump_initrd_bytes(addr, size);
	} else {
		dprintf(1, "lboot-target: initrd-size: unknown\n");
	}
	if (fd >= 0)
		close(fd);
	dprintf(1, "lboot-target: files-end\n");
}

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
	memcpy(buf_cmdline, buf, (size_t)n + 1);
	/* one write per line so the markers are never interleaved */
	dprintf(1, "\nlboot-target: TARGET-OS-UP\n");
	dprintf(1, "lboot-target: cmdline: %s\n", buf);
	/* the target kernel's own boot time, from its clock's start (after
	 * decompression) to here: bench/rom-boot.sh separates it from the
	 * hand-over before it */
	fd = open("/proc/uptime", O_RDONLY);
	if (fd >= 0 && (n = read(fd, buf, 64)) > 0) {
		buf[n] = 0;
		buf[strcspn(buf, " \n")] = 0;
		dprintf(1, "lboot-target: uptime %s s\n", buf);
	}
	if (fd >= 0)
		close(fd);
	fd = open("/proc/version", O_RDONLY);
	if (fd >= 0 && (n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		dprintf(1, "lboot-target: kernel: %s", buf);
	}
	if (strstr(buf_cmdline, "lboot-test.tpm"))
		dump_tpm();
	if (strstr(buf_cmdline, "lboot-test.cbmem"))
		dump_cbmem();
	/* "lboot-test.hold=S": stay up S seconds first (tests/e2e/watchdog.sh:
	 * a watchdog left armed by lboot resets the machine meanwhile) */
	const char *hold = strstr(buf_cmdline, "lboot-test.hold=");
	if (hold) {
		unsigned s = (unsigned)atoi(hold + 16);
		dprintf(1, "lboot-target: holding %u s\n", s);
		sleep(s > 3600 ? 3600 : s);
	}
	if (strstr(buf_cmdline, "lboot-test.acpi"))
		dump_handover();
	if (strstr(buf_cmdline, "lboot-test.files"))
		dump_files();
	/* /lboot-test-run, when a second initrd brings it (tests/e2e/
	 * coreboot-state.sh: a script run with busybox and nvramtool): run to
	 * its end; exit 10 asks for a reboot (the same machine boots again,
	 * its CMOS kept) instead of powering off */
	if (!access("/lboot-test-run", X_OK)) {
		int st = 0;
		pid_t p = fork();

		if (p == 0) {
			execl("/lboot-test-run", "/lboot-test-run", (char *)NULL);
			_exit(127);
		}
		if (p > 0)
			waitpid(p, &st, 0);
		if (p > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 10) {
			dprintf(1, "lboot-target: rebooting\n");
			sync();
			reboot(RB_AUTOBOOT);
		}
	}
	dprintf(1, "lboot-target: powering off\n");
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
