/*
 * Nobody at the console: the bounds that keep lboot from waiting forever.
 *
 *   lboot.idle=S       after a key stopped the countdown, S seconds without
 *                      input at the menu boot the default (default 60;
 *                      0: wait forever)
 *   lboot.giveup=S     nothing bootable (no entry, or every entry failed):
 *                      rescan with backoff (2, 4, 8, 16, 32, 60, 60 ... s),
 *                      and after S seconds without input reboot
 *                      (default 300; 0: never)
 *   lboot.watchdog=S   arm the hardware watchdog with S seconds from PID 1's
 *                      start (default 0: leave it alone); see watchdog.h
 *   lboot.watchdog.handover=S   the timeout left for the OS at kexec
 *                      (default 120; 0: stop the watchdog before kexec)
 */
#ifndef LB_UNATTENDED_H
#define LB_UNATTENDED_H

#define LB_DEFAULT_IDLE 60
#define LB_DEFAULT_GIVEUP 300
#define LB_DEFAULT_HANDOVER 120
#define LB_RESCAN_MIN 2
#define LB_RESCAN_MAX 60

struct lb_unattended_opts {
	int idle;       /* s, 0: forever */
	int giveup;     /* s, 0: never */
	int watchdog;   /* s, 0: off */
	int handover;   /* s, 0: stop before kexec */
};

void lb_unattended_init(struct lb_unattended_opts *u);
/* One kernel command line word: 1 when it was one of the options above
 * with a valid value (stored), 0 when it is not one of them, -EINVAL when
 * it is one with a malformed value (the default stays). Seconds are
 * 0-86400; lboot.watchdog and its handover at most 3600 (drivers cap
 * lower and say so when armed). */
int lb_unattended_parse(const char *word, struct lb_unattended_opts *u);

/* The wait before rescan round `round` (0, 1, ...): 2, 4, 8 ... capped at
 * LB_RESCAN_MAX seconds. */
int lb_rescan_delay(unsigned round);

/* Whether to give up at now_ms: giveup > 0 and at least giveup seconds
 * since since_ms (the start, or the last key). */
int lb_giveup_due(int giveup, long since_ms, long now_ms);

#endif
