/* The console boot menu: works on a serial line, character by character. */
#ifndef LB_MENU_H
#define LB_MENU_H

#include <stddef.h>

#include "entry.h"
#include "fs.h"

enum lb_menu_action {
	LB_MENU_BOOT = 0,  /* boot entry `index` (with `cmdline` when set) */
	LB_MENU_AUTO,      /* the countdown expired (or Enter during it), or no
			    * input for the idle bound: boot the default, fall back */
	LB_MENU_RESCAN,
	LB_MENU_REBOOT,
	LB_MENU_POWEROFF,
	LB_MENU_EOF,       /* input closed */
};

struct lb_menu_result {
	enum lb_menu_action action;
	size_t index;      /* LB_MENU_BOOT: index into the entry list */
	char *cmdline;     /* edited command line (malloc'd) or NULL */
	long last_key_ms;  /* CLOCK_MONOTONIC ms of the last key read, 0: none */
	int idle;          /* LB_MENU_AUTO because nobody typed for a bound */
	unsigned noise;    /* bytes read that were not keys (src/lib/keys.h) */
};

struct lb_menu {
	int in, out;            /* console fds (0, 1) */
	const char *shell;      /* "/bin/sh", offered when executable */
	/* Verified boot: when set, 'e' / 's' are refused with this reason. */
	const char *no_edit, *no_shell;
	/* refused[i] (when set and i < n_refused): why entry i was refused
	 * this round; the menu shows it under the entry. */
	char *const *refused;
	size_t n_refused;
	/* Bounds on waiting at the prompt (seconds, 0: none): first_wait
	 * until the first key of this call (when set), then idle after each
	 * key. Expiry returns LB_MENU_AUTO with idle = 1. */
	int first_wait, idle;
};

/*
 * Show the entries (numbered from 1, title and device, the default marked)
 * and wait for a choice. timeout > 0: count down and return LB_MENU_AUTO
 * when it expires or on Enter; any other key stops it, bytes that are not
 * keys (keys.h: NUL/BREAK, XON/XOFF, terminal answers, bytes >= 0x80) do
 * not. timeout < 0: no countdown; the prompt waits as long as
 * first_wait / idle allow.
 * The caller handles timeout 0 (boot at once, no input read). Keys:
 * digits+Enter boot that entry; Enter boots the default; 'e' (optionally
 * after digits) edits that entry's command line for one boot; 's' runs a
 * shell and returns to the menu; 'r' rescan; 'b' reboot; 'p' power off.
 * The terminal is put in raw mode while reading, restored before a shell
 * and on return. Returns 0 or negative errno.
 */
int lb_menu_run(const struct lb_menu *m, const struct lb_entries *l,
		const struct lb_fsset *set, int timeout,
		struct lb_menu_result *res);

#endif
