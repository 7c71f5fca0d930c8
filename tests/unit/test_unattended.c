/* Nobody at the console: options, backoff, giving up, the watchdog device
 * and its ioctls, and the menu's noise filter and idle bound. */
#include <errno.h>
#include <fcntl.h>
#include <linux/watchdog.h> /* the test compares lboot's own numbers */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "init.h"
#include "menu.h"
#include "unattended.h"
#include "watchdog.h"
#include "t.h"

static long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct menu_case {
	const char *keys;
	size_t len;
	int timeout, first_wait, idle;
	enum lb_menu_action action;
	int idle_flag;
	unsigned noise;
	long min_ms, max_ms; /* how long lb_menu_run took */
};

static void run_menu(const struct menu_case *c, const struct lb_entries *l,
		     const struct lb_fsset *set)
{
	int in[2], outp[2];
	struct lb_menu_result res;
	long t0;

	if (pipe(in) || pipe(outp)) {
		CHECK(0);
		return;
	}
	struct lb_menu m = { .in = in[0], .out = outp[1], .shell = "/nonexistent",
			     .first_wait = c->first_wait, .idle = c->idle };
	fcntl(outp[1], F_SETPIPE_SZ, 1 << 20);
	if (c->len && write(in[1], c->keys, c->len) != (ssize_t)c->len)
		CHECK(0);
	t0 = mono_ms();
	CHECK_INT(lb_menu_run(&m, l, set, c->timeout, &res), 0);
	t0 = mono_ms() - t0;
	CHECK_INT(res.action, c->action);
	CHECK_INT(res.idle, c->idle_flag);
	CHECK_INT(res.noise, c->noise);
	if (t0 < c->min_ms || t0 > c->max_ms)
		printf("# %s: took %ld ms, want %ld..%ld\n", c->keys, t0, c->min_ms, c->max_ms);
	CHECK(t0 >= c->min_ms && t0 <= c->max_ms);
	free(res.cmdline);
	close(in[0]);
	close(in[1]);
	close(outp[0]);
	close(outp[1]);
}

int main(void)
{
	TEST("unattended: options") {
		struct lb_unattended_opts u;

		lb_unattended_init(&u);
		CHECK_INT(u.idle, 60);
		CHECK_INT(u.giveup, 300);
		CHECK_INT(u.watchdog, 0);
		CHECK_INT(u.handover, 120);
		CHECK_INT(lb_unattended_parse("lboot.idle=0", &u), 1);
		CHECK_INT(u.idle, 0);
		CHECK_INT(lb_unattended_parse("lboot.giveup=86400", &u), 1);
		CHECK_INT(u.giveup, 86400);
		CHECK_INT(lb_unattended_parse("lboot.watchdog=30", &u), 1);
		CHECK_INT(u.watchdog, 30);
		CHECK_INT(lb_unattended_parse("lboot.watchdog.handover=0", &u), 1);
		CHECK_INT(u.handover, 0);
		CHECK_INT(u.watchdog, 30);
		/* malformed: refused, the value stays */
		static const char *const bad[] = {
			"lboot.idle=", "lboot.idle=-1", "lboot.idle=1x", "lboot.idle= 5",
			"lboot.giveup=86401", "lboot.giveup=0000001", "lboot.watchdog=3601",
			"lboot.watchdog.handover=99999", "lboot.idle=+5",
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			CHECK_INT(lb_unattended_parse(bad[i], &u), -EINVAL);
		CHECK_INT(u.idle, 0);
		CHECK_INT(u.giveup, 86400);
		CHECK_INT(u.watchdog, 30);
		CHECK_INT(u.handover, 0);
		/* not ours */
		CHECK_INT(lb_unattended_parse("lboot.idler=5", &u), 0);
		CHECK_INT(lb_unattended_parse("lboot.watchdogs=5", &u), 0);
		CHECK_INT(lb_unattended_parse("lboot.timeout=5", &u), 0);
		CHECK_INT(lb_unattended_parse("idle=5", &u), 0);
	}

	TEST("unattended: through the kernel command line") {
		struct lb_boot_opts o;

		lb_boot_opts_init(&o);
		CHECK_INT(o.unattended.idle, LB_DEFAULT_IDLE);
		CHECK_INT(o.unattended.giveup, LB_DEFAULT_GIVEUP);
		CHECK_INT(lb_boot_parse_cmdline("console=ttyS0 lboot.idle=7 lboot.giveup=0 lboot.timeout=3 "
						"lboot.watchdog=20 lboot.watchdog.handover=45 lboot.idle=x",
						&o), 5);
		CHECK_INT(o.unattended.idle, 7);
		CHECK_INT(o.unattended.giveup, 0);
		CHECK_INT(o.unattended.watchdog, 20);
		CHECK_INT(o.unattended.handover, 45);
		CHECK_INT(o.timeout, 3);
	}

	TEST("unattended: rescan backoff and giving up") {
		static const int want[] = { 2, 4, 8, 16, 32, 60, 60, 60 };

		for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			CHECK_INT(lb_rescan_delay(i), want[i]);
		CHECK_INT(lb_rescan_delay(1000000), 60);
		CHECK_INT(lb_giveup_due(300, 1000, 300999), 0);
		CHECK_INT(lb_giveup_due(300, 1000, 301000), 1);
		CHECK_INT(lb_giveup_due(0, 0, 1L << 40), 0);
	}

	TEST("watchdog: ioctl numbers match <linux/watchdog.h>") {
		CHECK_INT(LB_WDIOC_GETSUPPORT, WDIOC_GETSUPPORT);
		CHECK_INT(LB_WDIOC_SETOPTIONS, WDIOC_SETOPTIONS);
		CHECK_INT(LB_WDIOC_KEEPALIVE, WDIOC_KEEPALIVE);
		CHECK_INT(LB_WDIOC_SETTIMEOUT, WDIOC_SETTIMEOUT);
		CHECK_INT(LB_WDIOC_GETTIMEOUT, WDIOC_GETTIMEOUT);
		CHECK_INT(LB_WDIOS_DISABLECARD, WDIOS_DISABLECARD);
		CHECK_INT(LB_WDIOS_ENABLECARD, WDIOS_ENABLECARD);
		CHECK_INT(sizeof(struct lb_watchdog_info), sizeof(struct watchdog_info));
	}

	TEST("watchdog: which device") {
		char root[] = "/tmp/lb-wd-XXXXXX", p[256], dev[32];

		if (!mkdtemp(root)) {
			CHECK(0);
			continue;
		}
		CHECK_INT(lb_watchdog_pick(root, dev, sizeof(dev)), -ENOENT);
		/* only the legacy node (ib700 in the firmware kernel) */
		snprintf(p, sizeof(p), "%s/dev", root);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/dev/watchdog", root);
		close(open(p, O_CREAT | O_WRONLY, 0600));
		CHECK_INT(lb_watchdog_pick(root, dev, sizeof(dev)), 0);
		CHECK_STR(dev, "/dev/watchdog");
		/* core devices: the lowest number, never the legacy node */
		snprintf(p, sizeof(p), "%s/sys", root);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/sys/class", root);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/sys/class/watchdog", root);
		mkdir(p, 0755);
		CHECK_INT(lb_watchdog_pick(root, dev, sizeof(dev)), 0);
		static const char *const names[] = { "watchdog12", "watchdog3", "watchdogx", "watchdog", "foo" };
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			snprintf(p, sizeof(p), "%s/sys/class/watchdog/%s", root, names[i]);
			mkdir(p, 0755);
		}
		CHECK_INT(lb_watchdog_pick(root, dev, sizeof(dev)), 1);
		CHECK_STR(dev, "/dev/watchdog3");
		CHECK_INT(lb_watchdog_pick(root, dev, 8), -ENAMETOOLONG);
		snprintf(p, sizeof(p), "rm -rf '%s'", root);
		CHECK_INT(system(p), 0);
		/* not armed: feeding and handing over do nothing */
		CHECK_INT(lb_watchdog_armed(), 0);
		lb_watchdog_feed(0);
		CHECK_INT(lb_watchdog_handover(0, stdout), 0);
	}

	TEST("menu: noise does not stop the countdown, keys do, idle bounds the prompt") {
		struct lb_entries l = LB_ENTRIES_INIT;
		struct lb_fsset set = { 0 };
		struct lb_entry *e = lb_entries_add(&l);

		if (!e) {
			CHECK(0);
			continue;
		}
		lb_setstr(&e->title, "one");
		lb_setstr(&e->kernel, "/k");
		static const struct menu_case c[] = {
			/* NUL (BREAK), XON/XOFF, a cursor position report, an OSC
			 * colour answer, 8-bit garbage: the countdown runs out */
			{ "\0\0\x11\x13\x1b[24;80R\x1b]11;rgb:0/0/0\x07\xff\xfe", 29, 1, 0, 0,
			  LB_MENU_AUTO, 0, 29, 900, 2500 },
			/* Enter boots the default at once; CR LF is one Enter */
			{ "\r\n", 2, 5, 0, 0, LB_MENU_AUTO, 0, 0, 0, 900 },
			/* a key holds the menu; then 1 s without input boots the default */
			{ " ", 1, 5, 0, 1, LB_MENU_AUTO, 1, 0, 900, 2500 },
			/* an arrow key holds it too (and is not used as input) */
			{ "\x1b[B", 3, 5, 0, 1, LB_MENU_AUTO, 1, 0, 900, 2500 },
			/* noise then a key: the key counts */
			{ "\0\x1b[0nr", 6, 5, 0, 0, LB_MENU_RESCAN, 0, 5, 0, 900 },
			/* no countdown: first_wait before any key */
			{ "", 0, -1, 1, 30, LB_MENU_AUTO, 1, 0, 900, 2500 },
			/* noise at the prompt does not reset the idle clock */
			{ "\0\0\0", 3, -1, 1, 30, LB_MENU_AUTO, 1, 3, 900, 2500 },
			/* a key at the prompt: idle from then on */
			{ "x", 1, -1, 30, 1, LB_MENU_AUTO, 1, 0, 900, 2500 },
			/* an edit left alone: idle cancels it, the default boots */
			{ "eab", 3, -1, 0, 1, LB_MENU_AUTO, 1, 0, 900, 2500 },
		};
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
			run_menu(&c[i], &l, &set);
		lb_entries_free(&l);
	}
	return t_done();
}
