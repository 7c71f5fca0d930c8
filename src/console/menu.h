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
	unsigned noise;    /* bytes read that were not keys (src/console/keys.h) */
};

/* 'u': update the firmware from a file (docs/firmware-update.md). The
 * menu lists what find returns, checks the file picked (run with write
 * 0) and shows the one-line result, and writes (run with write 1) only
 * after the user typed y; a write that worked ends the menu with
 * LB_MENU_REBOOT (the machine restarts into it). */
#define LB_MENU_UPD_MAX 16
#define LB_MENU_UPD_NAME 320
struct lb_menu_update {
	/* the update files there are now, up to max names the user reads
	 * ("DEVICE:PATH", a URL); returns how many */
	size_t (*find)(void *arg, char (*names)[LB_MENU_UPD_NAME], size_t max);
	/* check (write 0) or write (1) file i of the last find: 0 it may be
	 * / was written, 1 nothing to do, negative errno refused; the
	 * outcome in line (one line, no newline) */
	int (*run)(void *arg, size_t i, int write, char *line, size_t linesz);
	void *arg;
	const char *looked;   /* where find looks, said when it finds nothing */
};

/* 't': reseal the owner's TOTP to this boot's measurements after a
 * firmware update (docs/measured-boot.md). The menu says what resealing
 * trusts and asks y/N; only after y it calls run, which seals a new
 * secret and puts what the owner needs (the otpauth:// URI, its QR code,
 * the new code) in text, lines ending in '\n'; on failure one line
 * (negative errno). */
#define LB_MENU_RESEAL_TEXT (24 * 1024)
struct lb_menu_reseal {
	const char *what;   /* "sha256 PCRs 0,2,4,7,9 in NV 0x01500010" */
	int (*run)(void *arg, char *text, size_t cap);
	void *arg;
};

struct lb_menu {
	int in, out;            /* console fds (0, 1) */
	/* n_ins > 0: read keys from each of these instead of `in` (every
	 * console of console=, src/console/console.h), each with its own raw
	 * mode and key decoder; the shell runs on the one 's' came from */
	const int *ins;
	size_t n_ins;
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
	/* NULL: no 'u' key */
	const struct lb_menu_update *update;
	/* NULL: no 't' key */
	const struct lb_menu_reseal *reseal;
};

/*
 * Show the entries (numbered from 1, title and device, the default marked)
 * and wait for a choice. timeout > 0: count down and return LB_MENU_AUTO
 * when it expires or on Enter; any other key stops it, bytes that are not
 * keys (keys.h: NUL/BREAK, XON/XOFF, terminal answers, bytes >= 0x80) do
 * not. timeout < 0: no countdown; the prompt waits as long as
 * first_wait / idle allow.
 * The caller handles timeout 0 (boot at once, no input read). Keys:
 * digits+Enter boot that entry; Enter boots the default; Up/Down,
 * Home/End, PgUp/PgDn (LB_MENU_PAGE entries) move the selection from the
 * default (or the typed number) and type its number in, for Enter / 'e'; 'e' (optionally
 * after digits) edits that entry's command line for one boot; 's' runs a
 * shell and returns to the menu; 'u' updates the firmware from a file
 * (m->update, above); 't' reseals the TOTP (m->reseal); 'r' rescan; 'b' reboot; 'p' power off.
 * The terminal is put in raw mode while reading, restored before a shell
 * and on return. Returns 0 or negative errno.
 */
int lb_menu_run(const struct lb_menu *m, const struct lb_entries *l,
		const struct lb_fsset *set, int timeout,
		struct lb_menu_result *res);

/* The selection (0 .. k-1) after one of the keys LB_KS_UP, LB_KS_DOWN,
 * LB_KS_HOME, LB_KS_END, LB_KS_PGUP, LB_KS_PGDN (src/console/keys.h),
 * clamped at both ends; other keys leave it. */
#define LB_MENU_PAGE 10
size_t lb_menu_nav(size_t cur, size_t k, int keysym);

#endif
