/* lboot boot: the PID 1 boot flow, run from a shell. */
#include "lboot.h"

LB_APPLET(boot, LB_TARGET,
"usage: lboot boot [--timeout N] [--wait N] [--default X] [--mnt DIR] [--debug] [--dry-run]\n"
"Find block devices, mount their filesystems read-only (see --mnt),\n"
"collect boot entries, count down and kexec the default (falling back to the\n"
"next entries), or let the user choose in the menu. Options override the\n"
"lboot.* options of /proc/cmdline.\n"
"  --timeout N   seconds before booting the default (0: at once)\n"
"  --wait N      wait up to N seconds for disks (default 5)\n"
"  --default X   default entry by id, title or 0-based index\n"
"  --mnt DIR     where to mount filesystems (default /run/lboot/boot.PID,\n"
"                removed again when done)\n"
"  --debug       list every entry found\n"
"  --dry-run     load nothing: print `lboot: would kexec ...` for the entry\n"
"                that would boot and exit\n"
"Exit: 0 dry run found a bootable entry, 1 nothing bootable / input closed,\n"
"2 usage. A real boot does not return.\n")

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "init.h"

static int secs(const char *v, int *out)
{
	struct lb_boot_opts t;
	char buf[64];

	lb_boot_opts_init(&t);
	snprintf(buf, sizeof(buf), "lboot.timeout=%s", v);
	if (lb_boot_parse_cmdline(buf, &t) != 1)
		return -1;
	*out = t.timeout;
	return 0;
}

int boot_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "wait", required_argument, NULL, 'w' },
		{ "default", required_argument, NULL, 'd' },
		{ "mnt", required_argument, NULL, 'm' },
		{ "debug", no_argument, NULL, 'D' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct lb_boot_opts o;
	char buf[4096], mnt[64];
	ssize_t n = 0;
	int c, fd;

	lb_boot_opts_init(&o);
	if ((fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
	lb_boot_parse_cmdline(buf, &o);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			if (secs(optarg, &o.timeout)) {
				lb_err("--timeout %s: not a number of seconds", optarg);
				return 2;
			}
			break;
		case 'w':
			if (secs(optarg, &o.wait)) {
				lb_err("--wait %s: not a number of seconds", optarg);
				return 2;
			}
			break;
		case 'd':
			snprintf(o.default_sel, sizeof(o.default_sel), "%s", optarg);
			break;
		case 'm':
			o.mnt = optarg;
			break;
		case 'D':
			o.debug = 1;
			break;
		case 'n':
			o.dry_run = 1;
			break;
		default:
			lb_usage("boot");
			return 2;
		}
	}
	if (optind != argc) {
		lb_usage("boot");
		return 2;
	}
	o.pid1 = 0;
	if (!o.mnt) {
		/* apart from PID 1's mounts under /run/lboot/mnt, which its menu
		 * still uses when this runs from the menu's shell */
		snprintf(mnt, sizeof(mnt), "/run/lboot/boot.%ld", (long)getpid());
		o.mnt = mnt;
	}
	c = lb_boot_run(&o) ? 1 : 0;
	if (o.mnt == mnt)
		rmdir(mnt);
	return c;
}
