/* Every console at once: the list of active consoles, the selection keys
 * (Up/Down/Home/End/PgUp/PgDn), and the menu reading several consoles,
 * each with its own key decoder. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "console.h"
#include "keys.h"
#include "menu.h"
#include "t.h"

/* run the menu on three entries (default: the first) over two input pipes
 * with keys a / b written first; close_a: console a hangs up */
static int menu2t(const char *a, const char *b, int close_a, int close_b, int timeout,
		  struct lb_menu_result *res, char *shown, size_t cap)
{
	static const char *const titles[] = { "one", "two", "three" };
	struct lb_entries l = LB_ENTRIES_INIT;
	struct lb_fsset set = { 0 };
	int pa[2], pb[2], po[2], r = -1;
	ssize_t n;

	for (int i = 0; i < 3; i++) {
		struct lb_entry *e = lb_entries_add(&l);
		if (e) {
			lb_setstr(&e->title, titles[i]);
			lb_setstr(&e->kernel, "/k");
		}
	}
	lb_entries_set_default(&l, 0);
	if (pipe(pa) || pipe(pb) || pipe(po))
		return -1;
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(po[1], F_SETPIPE_SZ, 1 << 20);
	if (write(pa[1], a, strlen(a)) < 0 || write(pb[1], b, strlen(b)) < 0)
		goto out;
	if (close_a) {
		close(pa[1]);
		pa[1] = -1;
	}
	if (close_b) {
		close(pb[1]);
		pb[1] = -1;
	}
	int ins[2] = { pa[0], pb[0] };
	struct lb_menu m = { .in = -1, .out = po[1], .shell = "/nonexistent",
			     .ins = ins, .n_ins = 2 };
	r = lb_menu_run(&m, &l, &set, timeout, res);
	n = read(po[0], shown, cap - 1);
	shown[n > 0 ? n : 0] = 0;
out:
	if (pa[1] >= 0)
		close(pa[1]);
	if (pb[1] >= 0)
		close(pb[1]);
	close(pa[0]);
	close(pb[0]);
	close(po[0]);
	close(po[1]);
	lb_entries_free(&l);
	return r;
}

static int menu2(const char *a, const char *b, int close_a, int close_b,
		 struct lb_menu_result *res, char *shown, size_t cap)
{
	return menu2t(a, b, close_a, close_b, -1, res, shown, cap);
}

int main(void)
{
	TEST("console: the active list") {
		char n[LB_CONS_MAX][LB_CONS_NAME];

		CHECK_INT(lb_console_parse("tty0 ttyS0\n", n, LB_CONS_MAX), 2);
		CHECK_STR(n[0], "tty0");
		CHECK_STR(n[1], "ttyS0");
		CHECK_INT(lb_console_parse("ttyS1 ttyS0", n, LB_CONS_MAX), 2);
		CHECK_STR(n[0], "ttyS1");
		CHECK_INT(lb_console_parse("", n, LB_CONS_MAX), 0);
		CHECK_INT(lb_console_parse("\n", n, LB_CONS_MAX), 0);
		CHECK_INT(lb_console_parse("ttyS0", n, LB_CONS_MAX), 1);
		/* no path tricks, no overlong names, no duplicates */
		CHECK_INT(lb_console_parse("../sda ttyS0 a/b ttyS0", n, LB_CONS_MAX), 1);
		CHECK_STR(n[0], "ttyS0");
		CHECK_INT(lb_console_parse("ttyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA hvc0", n, LB_CONS_MAX), 1);
		CHECK_STR(n[0], "hvc0");
		CHECK_INT(lb_console_parse("a b c d e f g h i j", n, 3), 3);
		CHECK_STR(n[2], "c");
		CHECK_INT(lb_console_parse(NULL, n, 3), 0);
	}

	TEST("console: selection keys") {
		static const struct { size_t cur, k; int ks; size_t want; } c[] = {
			{ 0, 3, LB_KS_DOWN, 1 }, { 2, 3, LB_KS_DOWN, 2 }, { 1, 3, LB_KS_UP, 0 },
			{ 0, 3, LB_KS_UP, 0 }, { 1, 3, LB_KS_HOME, 0 }, { 0, 3, LB_KS_END, 2 },
			{ 0, 3, LB_KS_PGDN, 2 }, { 2, 3, LB_KS_PGUP, 0 },
			{ 0, 25, LB_KS_PGDN, 10 }, { 20, 25, LB_KS_PGDN, 24 },
			{ 15, 25, LB_KS_PGUP, 5 }, { 5, 25, LB_KS_PGUP, 0 },
			{ 1, 3, LB_KS_LEFT, 1 }, { 1, 3, LB_KS_FKEY, 1 },
			{ 9, 3, LB_KS_DOWN, 2 },  /* out of range: clamped */
			{ 0, 0, LB_KS_DOWN, 0 }, { 0, 1, LB_KS_END, 0 },
		};
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			size_t got = lb_menu_nav(c[i].cur, c[i].k, c[i].ks);
			if (got != c[i].want)
				printf("# case %zu: got %zu want %zu\n", i, got, c[i].want);
			CHECK(got == c[i].want);
		}
	}

	TEST("console: keys from either console, one decoder each") {
		static const struct {
			const char *a, *b;
			int close_a, close_b;
			enum lb_menu_action action;
			size_t index;
		} c[] = {
			{ "", "\x1b[B\r", 0, 0, LB_MENU_BOOT, 1 },        /* Down Enter on the 2nd */
			{ "\x1b[B\r", "", 0, 0, LB_MENU_BOOT, 1 },        /* ... or on the 1st */
			{ "", "\x1b[F\r", 0, 0, LB_MENU_BOOT, 2 },        /* End */
			{ "", "\x1b[4~\x1b[A\r", 0, 0, LB_MENU_BOOT, 1 }, /* End (VT) Up */
			{ "", "\x1bOF\x1b[1~\r", 0, 0, LB_MENU_BOOT, 0 }, /* End (SS3) Home (VT) */
			{ "", "\x1b[6~\r", 0, 0, LB_MENU_BOOT, 2 },       /* PgDn */
			{ "", "\x1b[6~\x1b[5~\r", 0, 0, LB_MENU_BOOT, 0 },/* PgDn PgUp */
			{ "", "3\x1b[A\r", 0, 0, LB_MENU_BOOT, 1 },       /* from the typed number */
			/* a half sequence on one console does not take bytes of the
			 * other: ESC on a, "[B" on b is no Down ('[', 'B' ignored) */
			{ "\x1b", "[B\r", 0, 0, LB_MENU_BOOT, 0 },
			{ "\x1b[", "B\r", 0, 0, LB_MENU_BOOT, 0 },
			/* one console hung up: the other still works */
			{ "", "\x1b[B\x1b[B\r", 1, 0, LB_MENU_BOOT, 2 },
			{ "", "", 1, 1, LB_MENU_EOF, 0 },                 /* both closed */
			{ "\x1b[B", "\x1b[B\r", 0, 0, LB_MENU_BOOT, 2 },  /* keys of both count */
		};
		char shown[16384];

		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			struct lb_menu_result res;
			int r = menu2(c[i].a, c[i].b, c[i].close_a, c[i].close_b, &res,
				      shown, sizeof(shown));
			CHECK_INT(r, 0);
			if (r)
				continue;
			if (res.action != c[i].action || res.index != c[i].index)
				printf("# case %zu: action %d index %zu\n", i, res.action, res.index);
			CHECK_INT(res.action, c[i].action);
			if (c[i].action == LB_MENU_BOOT)
				CHECK(res.index == c[i].index);
			free(res.cmdline);
		}
		/* the selection is shown, its number typed in */
		struct lb_menu_result res;
		if (menu2("", "\x1b[B\r", 0, 0, &res, shown, sizeof(shown)) == 0) {
			CHECK(strstr(shown, "lboot: selected 2) two\nlboot> 2") != NULL);
			free(res.cmdline);
		} else {
			CHECK(0);
		}
	}
	TEST("console: nobody at either console") {
		char shown[16384];
		struct lb_menu_result res;

		/* noise on both (a cut sequence on one, a cursor report and an
		 * XON on the other) does not stop the countdown */
		if (menu2t("\x1b[", "\x1b[24;80R\x11", 0, 0, 1, &res, shown, sizeof(shown)) == 0) {
			CHECK_INT(res.action, LB_MENU_AUTO);
			CHECK_INT(res.noise, 2 + 8 + 1);
			CHECK(strstr(shown, "11 bytes on the console ignored") != NULL);
		} else {
			CHECK(0);
		}
		/* a key on the second stops it; Down moves from the default */
		if (menu2t("\x13", "\x1b[B\r", 0, 0, 5, &res, shown, sizeof(shown)) == 0) {
			CHECK_INT(res.action, LB_MENU_BOOT);
			CHECK(res.index == 1);
			CHECK_INT(res.noise, 1);
			CHECK(res.last_key_ms > 0);
		} else {
			CHECK(0);
		}
		/* both closed during the countdown: as good as it expiring */
		if (menu2t("", "", 1, 1, 5, &res, shown, sizeof(shown)) == 0)
			CHECK_INT(res.action, LB_MENU_AUTO);
		else
			CHECK(0);
	}
	return t_done();
}
