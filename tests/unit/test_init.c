/* PID 1's watch over the boot process: progress stamps, bounds per phase,
 * the supervisor killing a child stuck in a phase (src/console/progress.c,
 * lb_supervise_once in src/boot/init.c). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "init.h"
#include "progress.h"
#include "t.h"

static void nap(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* children run by lb_supervise_once */
static int run_hang_scan(const struct lb_boot_opts *o)
{
	lb_progress_bound(LB_PHASE_SCAN, "/dev/x", 200);
	for (;;)
		pause();
	return 0;
}

static int run_exit3(const struct lb_boot_opts *o)
{
	lb_progress(LB_PHASE_DISCOVER, NULL);
	_exit(3);
}

/* every phase under its bound, the whole longer than any bound */
static int run_steady(const struct lb_boot_opts *o)
{
	static const char *const devs[] = { "/dev/a", "/dev/b", "/dev/c", "/dev/d" };

	for (int i = 0; i < 4; i++) {
		lb_progress_bound(LB_PHASE_PROBE, devs[i], 600);
		nap(200);
	}
	_exit(0);
}

/* the menu waits for the user: no bound however long */
static int run_menu(const struct lb_boot_opts *o)
{
	lb_progress(LB_PHASE_MENU, NULL);
	nap(500);
	_exit(0);
}

/* fault injection: the second device's scan never ends */
static int run_fault(const struct lb_boot_opts *o)
{
	lb_progress(LB_PHASE_SCAN, "/dev/vda1");
	lb_progress(LB_PHASE_SCAN, "/dev/vdb1");
	lb_progress_interactive();
	lb_progress(LB_PHASE_LOAD, "/dev/vdb1"); /* never reached */
	_exit(0);
}

int main(void)
{
	struct lb_boot_opts o;

	alarm(60); /* a supervisor that never returns fails the program */
	lb_boot_opts_init(&o);

	TEST("fallback: the default, its own disk, then the rest; clones keep their device") {
		struct lb_fs fsv[4] = {
			{ .dir = "/a1", .name = "/dev/vda1", .uuid = "U1", .grub = "hd0,gpt1" },
			{ .dir = "/b1", .name = "/dev/vdb1", .uuid = "U2", .grub = "hd1,gpt1" },
			{ .dir = "/b2", .name = "/dev/vdb2", .uuid = "U1", .grub = "hd1,gpt2" },
			{ .dir = "/c1", .name = "/dev/vdc1", .label = "L", .grub = "hd2,gpt1" },
		};
		struct lb_fsset set = { fsv, 4 };
		struct lb_entry ev[6] = {
			{ .fs = "/dev/vda1" }, { .fs = "U2" }, { .fs = "/dev/vdc1" },
			{ .fs = "/dev/vdb2", .is_default = 1 }, { .fs = "U2", .hidden = 1 }, { .fs = "U2" },
		};
		struct lb_entries l = { .v = ev, .n = 6 };
		size_t order[6];
		int n;

		/* U1 on vda1 and vdb2: both marked, their ident is the device */
		CHECK_INT((int)lb_fsset_mark_ambiguous(&set), 2);
		CHECK_STR(lb_fs_ident(&fsv[0]), "/dev/vda1");
		CHECK_STR(lb_fs_ident(&fsv[2]), "/dev/vdb2");
		CHECK_STR(lb_fs_ident(&fsv[1]), "U2");
		CHECK(lb_fsset_by_ident(&set, "/dev/vdb2") == &fsv[2]);
		/* default on hd1 (vdb2): then vdb1's entries (same disk, the
		 * hidden one skipped), then vda1, vdc1 */
		n = lb_boot_fallback_order(&set, &l, order);
		CHECK_INT(n, 5);
		if (n == 5) {
			CHECK_INT((int)order[0], 3);
			CHECK_INT((int)order[1], 1);
			CHECK_INT((int)order[2], 5);
			CHECK_INT((int)order[3], 0);
			CHECK_INT((int)order[4], 2);
		}
	}
	TEST("lboot.phase_timeout and lboot.fault_hang") {
		struct lb_boot_opts p;

		lb_boot_opts_init(&p);
		CHECK_STR(p.phase_timeout, "");
		CHECK_STR(p.fault_hang, "");
		CHECK_INT(lb_boot_parse_cmdline("lboot.phase_timeout=7 lboot.fault_hang=scan:/dev/vda1", &p), 2);
		CHECK_STR(p.phase_timeout, "7");
		CHECK_STR(p.fault_hang, "scan:/dev/vda1");
		CHECK_INT(lb_boot_parse_cmdline("lboot.phase_timeout=0,load:60", &p), 1);
		CHECK_STR(p.phase_timeout, "0,load:60");
		CHECK_INT(lb_boot_parse_cmdline("lboot.phase_timeout=-1 lboot.phase_timeout=x "
						"lboot.phase_timeout= lboot.phase_timeout=menu:5 "
						"lboot.phase_timeout=7, lboot.phase_timeout=scan: "
						"lboot.phase_timeout=99999999", &p), 0);
		CHECK_STR(p.phase_timeout, "0,load:60");
	}

	TEST("lboot.fault_dropcaches") {
		struct lb_boot_opts p;

		lb_boot_opts_init(&p);
		CHECK_INT(p.fault_dropcaches, 0);
		CHECK_INT(lb_boot_parse_cmdline("lboot.fault_dropcaches=1", &p), 1);
		CHECK_INT(p.fault_dropcaches, 1);
		CHECK_INT(lb_boot_parse_cmdline("lboot.fault_dropcaches=2 lboot.fault_dropcaches "
						"lboot.fault_dropcaches=10", &p), 0);
		CHECK_INT(p.fault_dropcaches, 1);
		CHECK_INT(lb_boot_parse_cmdline("lboot.fault_dropcaches=0", &p), 1);
		CHECK_INT(p.fault_dropcaches, 0);
	}

	TEST("bounds per phase: defaults, lboot.phase_timeout, off, the menu never") {
		CHECK_INT(lb_progress_configure(-1, NULL), 0);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_SCAN), 30000);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_MOUNT), 30000);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_LOAD), 120000);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_MENU), 0);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_NONE), 0);
		CHECK_INT(lb_progress_configure(5000, ""), 0);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_PROBE), 5000);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_LOAD), 5000);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_MENU), 0);
		CHECK_INT(lb_progress_configure(0, NULL), 0);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_SCAN), 0);
		CHECK_INT(lb_progress_configure(-1, "bogus"), -EINVAL);
		CHECK_INT(lb_progress_configure(-1, "scanx:/dev/a"), -EINVAL);
		CHECK_INT(lb_progress_configure(-1, "scan:/dev/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), -EINVAL);
		CHECK_INT(lb_progress_configure(-1, "load"), 0);
		/* lboot.phase_timeout=SPEC: S for all, PHASE:S for one, in order */
		CHECK_INT(lb_progress_timeouts("10,load:60"), 0);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_SCAN), 10000);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_DISCOVER), 10000);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_LOAD), 60000);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_MENU), 0);
		CHECK_INT(lb_progress_timeouts("mount:0"), 0);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_MOUNT), 0);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_PROBE), 10000);
		CHECK_INT(lb_progress_timeouts("scan:5,bogus:3"), -EINVAL);
		CHECK_INT(lb_progress_default_ms(LB_PHASE_SCAN), 10000); /* unchanged */
		int ms[LB_PHASE_N];
		for (int i = 0; i < LB_PHASE_N; i++)
			ms[i] = -1;
		CHECK_INT(lb_progress_parse_timeouts("probe:2", ms), 0);
		CHECK_INT(ms[LB_PHASE_PROBE], 2000);
		CHECK_INT(ms[LB_PHASE_SCAN], -1);
		CHECK_INT(lb_progress_parse_timeouts("", ms), -EINVAL);
		CHECK_INT(lb_progress_parse_timeouts(",", ms), -EINVAL);
		CHECK_INT(lb_progress_parse_timeouts("1,,2", ms), -EINVAL);
		CHECK_INT(lb_progress_parse_timeouts("86401", ms), -EINVAL);
		CHECK_INT(lb_progress_parse_timeouts("verylongphasename:1", ms), -EINVAL);
		CHECK_INT(lb_progress_configure(-1, NULL), 0);
		CHECK_STR(lb_phase_name(LB_PHASE_MOUNT), "mount");
		CHECK_INT(lb_phase_parse("probe"), LB_PHASE_PROBE);
		CHECK_INT(lb_phase_parse("start"), -1);
	}

	TEST("the watch: a stamp starts the clock, the bound ends it") {
		struct lb_progress *p = lb_progress_new();
		struct lb_watch w;
		long wait;

		CHECK(p != NULL);
		if (p) {
			lb_watch_init(&w, 1000);
			CHECK_INT(lb_watch_check(&w, p, 999999, &wait), 0); /* nothing stamped */
			CHECK_INT(wait, -1);
			lb_progress_attach(p);
			lb_progress_bound(LB_PHASE_MOUNT, "/dev/sda1", 500);
			CHECK_INT(lb_watch_check(&w, p, 2000, &wait), 0);
			CHECK_INT(wait, 500);
			CHECK_INT(w.phase, LB_PHASE_MOUNT);
			CHECK_STR(w.dev, "/dev/sda1");
			CHECK_INT(lb_watch_check(&w, p, 2499, &wait), 0);
			CHECK_INT(wait, 1);
			CHECK_INT(lb_watch_check(&w, p, 2500, &wait), 1);
			/* a new stamp (even the same phase and device) restarts it */
			lb_progress_bound(LB_PHASE_MOUNT, "/dev/sda1", 500);
			CHECK_INT(lb_watch_check(&w, p, 2600, &wait), 0);
			CHECK_INT(lb_watch_check(&w, p, 3099, &wait), 0);
			CHECK_INT(lb_watch_check(&w, p, 3100, &wait), 1);
			/* the menu: never */
			lb_progress(LB_PHASE_MENU, NULL);
			CHECK_INT(lb_watch_check(&w, p, 3200, &wait), 0);
			CHECK_INT(lb_watch_check(&w, p, 99999999, &wait), 0);
			CHECK_INT(wait, -1);
			CHECK_STR(w.dev, "");
			CHECK_INT(w.interactive, 0);
			lb_progress_interactive();
			lb_watch_check(&w, p, 99999999, &wait);
			CHECK_INT(w.interactive, 1);
			/* a stamp half written is not taken */
			p->seq++;
			p->phase = LB_PHASE_LOAD;
			p->bound_ms = 1;
			CHECK_INT(lb_watch_check(&w, p, 100000000, &wait), 0);
			CHECK_INT(w.phase, LB_PHASE_MENU);
			CHECK_INT(wait, 10);
			p->seq++;
			CHECK_INT(lb_watch_check(&w, p, 100000000, &wait), 0);
			CHECK_INT(w.phase, LB_PHASE_LOAD);
			CHECK_INT(lb_watch_check(&w, p, 100000001, &wait), 1);
			/* a long device name is cut, never overruns */
			lb_progress(LB_PHASE_PROBE, "/dev/disk/by-id/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
			lb_watch_check(&w, p, 100000002, &wait);
			CHECK_INT(strlen(w.dev), LB_PROGRESS_DEV - 1);
			lb_progress_attach(NULL);
			lb_progress_free(p);
		}
	}

	TEST("supervisor: a child stuck in a phase is killed, phase and device named") {
		struct lb_child_end end;
		long t0 = lb_progress_now_ms(), dt;

		lb_progress_configure(-1, NULL);
		CHECK_INT(lb_supervise_once(&o, run_hang_scan, &end), 0);
		dt = lb_progress_now_ms() - t0;
		CHECK_INT(end.hung, 1);
		CHECK_INT(end.stuck, 0);
		CHECK_INT(end.phase, LB_PHASE_SCAN);
		CHECK_STR(end.dev, "/dev/x");
		CHECK(dt >= 200 && dt < 3000);
		CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD); /* reaped */
	}

	TEST("supervisor: a child that exits is reported as such") {
		struct lb_child_end end;

		CHECK_INT(lb_supervise_once(&o, run_exit3, &end), 0);
		CHECK_INT(end.hung, 0);
		CHECK(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 3);
	}

	TEST("supervisor: the bound is per phase, not for the whole") {
		struct lb_child_end end;
		long t0 = lb_progress_now_ms();

		CHECK_INT(lb_supervise_once(&o, run_steady, &end), 0);
		CHECK_INT(end.hung, 0);
		CHECK(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0);
		CHECK(lb_progress_now_ms() - t0 >= 800); /* longer than any bound */
	}

	TEST("supervisor: no bound while the menu waits") {
		struct lb_child_end end;

		lb_progress_configure(100, NULL); /* every bounded phase: 0.1 s */
		CHECK_INT(lb_supervise_once(&o, run_menu, &end), 0);
		CHECK_INT(end.hung, 0);
		lb_progress_configure(-1, NULL);
	}

	TEST("supervisor: lboot.fault_hang stops the named phase and device only") {
		struct lb_child_end end;

		CHECK_INT(lb_progress_configure(500, "scan:/dev/vdb1"), 0);
		CHECK_INT(lb_supervise_once(&o, run_fault, &end), 0);
		CHECK_INT(end.hung, 1);
		CHECK_INT(end.phase, LB_PHASE_SCAN);
		CHECK_STR(end.dev, "/dev/vdb1");
		CHECK_INT(end.interactive, 0);
		/* the whole phase, device or not */
		CHECK_INT(lb_progress_configure(500, "scan"), 0);
		CHECK_INT(lb_supervise_once(&o, run_fault, &end), 0);
		CHECK_INT(end.hung, 1);
		CHECK_STR(end.dev, "/dev/vda1");
		lb_progress_configure(-1, NULL);
	}

	TEST("skip list: devices left out after a hang") {
		lb_progress_skip_clear();
		CHECK_INT(lb_progress_skipped("/dev/vda1"), 0);
		CHECK_INT(lb_progress_skip_add("/dev/vda1"), 0);
		CHECK_INT(lb_progress_skip_add("/dev/vda1"), 0);
		CHECK_INT(lb_progress_skipped("/dev/vda1"), 1);
		CHECK_INT(lb_progress_skipped("/dev/vda"), 0);
		CHECK_INT(lb_progress_skipped("/dev/vda10"), 0);
		CHECK_INT(lb_progress_skip_add(""), -EINVAL);
		CHECK_INT(lb_progress_skip_add(NULL), -EINVAL);
		int full = 0;
		for (int i = 0; i < 40; i++) {
			char d[32];
			snprintf(d, sizeof(d), "/dev/x%d", i);
			full += lb_progress_skip_add(d) == -E2BIG;
		}
		CHECK_INT(full, 40 - 31);
		lb_progress_skip_clear();
		CHECK_INT(lb_progress_skipped("/dev/vda1"), 0);
	}
	return t_done();
}
