/* lboot init: the firmware's PID 1. */
#include "lboot.h"

LB_APPLET(init, LB_TARGET,
"usage: init            (run by the kernel as PID 1 from the initramfs)\n"
"Mount /proc /sys /dev /run, take /dev/console, print 'lboot VERSION starting',\n"
"read lboot.* options from /proc/cmdline, then forever: find block devices,\n"
"mount their filesystems read-only, collect boot entries (BLS, UKI, GRUB,\n"
"syslinux), count down and kexec the default, falling back to the next entry;\n"
"else show the menu / recovery prompt. Never exits.\n"
"Kernel command line options:\n"
"  lboot.timeout=N     seconds before booting the default (0: at once;\n"
"                      default: the config's timeout, else 5)\n"
"  lboot.wait=N        wait up to N seconds for disks to appear (default 5)\n"
"  lboot.default=X     default entry by id, title or 0-based index\n"
"  lboot.debug         list every entry found\n"
"  lboot.phase_timeout=S  bound on each phase of the boot process (probing,\n"
"                      mounting, scanning one device, loading an entry;\n"
"                      default 30 s each, 120 s for loading; 0: none); a\n"
"                      phase that outlives it is killed and the boot goes\n"
"                      on without its device. The menu has no bound.\n"
"  lboot.fault_hang=PHASE[:DEV]  fault injection for tests: the boot process\n"
"                      hangs when it enters PHASE (discover, probe, mount,\n"
"                      scan, load) on DEV\n"
"Run as anything but PID 1 it refuses (use `lboot boot`).\n"
"Exit: 0 never, 1 not PID 1, 2 usage.\n")

#include <stdio.h>
#include <unistd.h>

#include "init.h"

int init_main(int argc, char **argv)
{
	if (argc > 1) {
		lb_usage("init");
		return 2;
	}
	if (getpid() != 1) {
		lb_err("not PID 1: use `lboot boot` to run the boot flow from a shell");
		return 1;
	}
	lb_init_main();
}
