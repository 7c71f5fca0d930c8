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
"  lboot.phase_timeout=SPEC  bounds on the phases of the boot process\n"
"                      (probing, mounting, scanning one device: 30 s each;\n"
"                      loading an entry: 120 s): S for every phase or\n"
"                      PHASE:S for one, comma-separated (e.g. 10,load:60;\n"
"                      0: none). A phase that outlives its bound is killed\n"
"                      and the boot goes on without its device. The menu\n"
"                      has no bound.\n"
"  lboot.fault_hang=PHASE[:DEV]  fault injection for tests: the boot process\n"
"                      hangs when it enters PHASE (discover, probe, mount,\n"
"                      scan, load) on DEV\n"
"  lboot.fault_dropcaches=1  fault injection for tests: drop the page cache\n"
"                      after an entry's check, before its load\n"
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
