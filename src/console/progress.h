/*
 * Progress stamps: how PID 1 notices a boot process that hangs.
 *
 * The boot flow runs in a child of PID 1 (src/boot/init.c). At the start of
 * each phase the child stamps the phase, the device it is about to touch
 * and how long the phase may take into a page shared with PID 1
 * (lb_progress). PID 1 watches the page (lb_watch_check): a phase that
 * outlives its bound (a mount that never returns, a read from a dying disk,
 * a parser that loops) gets the child killed and a new one started that
 * leaves that device out (lb_progress_skip_add / lb_progress_skipped).
 * Waiting for the user (the menu, the shell) has no bound.
 *
 * Defaults: device wait lboot.wait + 30 s, probing, mounting and scanning
 * one device 30 s each, loading an entry 120 s. lboot.phase_timeout=SPEC
 * changes them: comma-separated items, each S (every bounded phase gets S
 * seconds; 0: no bound) or PHASE:S (that phase), applied in order, e.g.
 * `lboot.phase_timeout=10,load:60`.
 *
 * Fault injection (lboot.fault_hang=PHASE[:DEVICE]): a supervised child
 * that enters PHASE (on DEVICE, when given) stops there forever, as if the
 * device never answered. For tests of the watch; never in PID 1 itself.
 */
#ifndef LB_PROGRESS_H
#define LB_PROGRESS_H

#include <stdint.h>

enum lb_phase {
	LB_PHASE_NONE,     /* started, nothing stamped yet */
	LB_PHASE_DISCOVER, /* waiting for block devices */
	LB_PHASE_PROBE,    /* reading a device's partition table / superblock */
	LB_PHASE_MOUNT,    /* mounting a filesystem */
	LB_PHASE_SCAN,     /* reading the boot configs of a filesystem */
	LB_PHASE_MENU,     /* the menu / prompt waits for the user: no bound */
	LB_PHASE_LOAD,     /* reading and loading an entry's kernel and initrds */
	LB_PHASE_N
};

#define LB_PROGRESS_DEV 64

/* The page shared by PID 1 and its child. seq is odd while a stamp is
 * being written. */
struct lb_progress {
	volatile uint32_t seq;
	int32_t phase;
	int32_t bound_ms;    /* 0: no bound */
	int32_t interactive; /* the user has taken over (menu keys) */
	char dev[LB_PROGRESS_DEV];
};

/* "discover", "probe", "mount", "scan", "menu", "load" ("start" for NONE);
 * lb_phase_parse is the reverse (-1 when unknown). */
const char *lb_phase_name(int phase);
int lb_phase_parse(const char *name);

/*
 * Configuration, set in PID 1 before the child is forked.
 * phase_timeout_ms < 0: the defaults; 0: no bounds; else every bounded
 * phase gets it. fault: "PHASE[:DEVICE]" or NULL/"" (see above).
 * Returns 0, or -EINVAL for a fault naming no phase (ignored then).
 */
int lb_progress_configure(int phase_timeout_ms, const char *fault);
/* Parse a lboot.phase_timeout SPEC (above) over ms[] (ms per phase, -1:
 * the default). 0, or -EINVAL with ms[] unchanged. */
int lb_progress_parse_timeouts(const char *spec, int ms[LB_PHASE_N]);
/* Apply a SPEC over the current configuration (0 or -EINVAL). */
int lb_progress_timeouts(const char *spec);
/* The bound a phase gets by default under the current configuration. */
int lb_progress_default_ms(int phase);

/* --- the child ----------------------------------------------------------- */

/* Where stamps go (NULL: nowhere, as in `lboot boot` or tests). */
void lb_progress_attach(struct lb_progress *p);
/* Stamp phase and device (may be NULL) with the phase's default bound. */
void lb_progress(int phase, const char *dev);
/* The same with an explicit bound (0: none). */
void lb_progress_bound(int phase, const char *dev, int bound_ms);
/* Mark the user as in control: a new child after a hang shows the menu
 * instead of counting down. */
void lb_progress_interactive(void);

/* --- PID 1 ------------------------------------------------------------------ */

/* A zeroed page shared with children forked later (NULL on failure). */
struct lb_progress *lb_progress_new(void);
void lb_progress_free(struct lb_progress *p);

struct lb_watch {
	uint32_t seq;      /* last seq seen */
	long since_ms;     /* when it was first seen */
	int phase, bound_ms, interactive;
	char dev[LB_PROGRESS_DEV];
};

void lb_watch_init(struct lb_watch *w, long now_ms);
/* Look at the page at now_ms (a monotonic clock in ms). Returns 1 when the
 * current phase has run longer than its bound (w->phase, w->dev name it),
 * else 0; *wait_ms gets how long until the bound runs out (-1: none). */
int lb_watch_check(struct lb_watch *w, const struct lb_progress *p,
		   long now_ms, long *wait_ms);

/* Devices to leave out, kept by PID 1 and inherited by its children (at
 * most 32). lb_progress_skipped: 1 when dev was added. */
int lb_progress_skip_add(const char *dev);
int lb_progress_skipped(const char *dev);
void lb_progress_skip_clear(void);

/* CLOCK_MONOTONIC in ms. */
long lb_progress_now_ms(void);

#endif
