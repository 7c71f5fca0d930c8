/* The boot flow (discover -> scan -> menu/countdown -> kexec, with
 * fallbacks) and lboot as PID 1 around it. */
#ifndef LB_INIT_H
#define LB_INIT_H

#include "entry.h"
#include "fs.h"
#include "unattended.h"

#include "version.h"

#define LB_DEFAULT_TIMEOUT 5 /* seconds, when neither lboot.timeout nor the config set one */
#define LB_DEFAULT_WAIT 5    /* seconds to wait for block devices (lboot.wait) */

struct lb_boot_opts {
	int timeout;         /* lboot.timeout: -1 = the config's, else 5 s */
	int wait;            /* lboot.wait seconds */
	int settle_ms;       /* lboot.settle: quiet time before scanning (ms), 0 = auto */
	char default_sel[128]; /* lboot.default: entry id, title, or 0-based index */
	int debug;           /* lboot.debug: list every entry */
	int dry_run;         /* print what would be kexec'd, load nothing */
	int pid1;            /* never return; EOF on the console waits */
	int recovery;        /* start at the prompt without scanning */
	const char *mnt;     /* mount root (default /run/lboot/mnt) */
	int interactive;     /* scan, then the menu without a countdown */
	char phase_timeout[64]; /* lboot.phase_timeout=SPEC (progress.h), "" defaults */
	char fault_hang[80]; /* lboot.fault_hang=PHASE[:DEV] (fault injection) */
	int fault_dropcaches; /* lboot.fault_dropcaches=1: drop the page cache
			       * between the check and the load (fault injection) */
	char verify[16];     /* lboot.verify=: only stricter than the built-in policy */
	char slot[4];        /* lboot.slot=A|B: the payload slot lbootdxe started (slots.h) */
	char update[256];    /* lboot.update=fs:/PATH: a signed firmware update (fwupdate.h) */
	char flash[64];      /* lboot.flash=NAME|mtdN: the boot flash, when more than one */
	char net[8];         /* lboot.net=auto (when no disk has entries), on, off */
	char order[256];     /* lboot.order=TOKEN,... (order.h) */
	char netboot[256];   /* lboot.netboot=URL: what to boot over the network */
	unsigned vlan;       /* lboot.vlan=ID (1..4094): DHCP and boot on that VLAN */
	char net_iface[32];  /* lboot.net.iface=PATTERN */
	int net_timeout;     /* lboot.net.timeout=S (DHCP), 0: 30 */
	char ntp[64];        /* lboot.ntp=off|SERVER ("": the lease's servers) */
	char tpm[16];        /* lboot.tpm=require|best-effort: refuse to boot without a TPM / boot what failed to measure */
	char measure[8];     /* lboot.measure=0|1: off / say when no TPM ("": when one exists) */
	char totp[16];       /* lboot.totp=off|0x01xxxxxx: the TOTP NV index ("": the default) */
	const char *policy_root; /* where etc/lboot/policy is looked for ("/") */
	struct lb_unattended_opts unattended; /* lboot.idle/giveup/watchdog (unattended.h) */
	long start_ms;       /* giving up counts from here (CLOCK_MONOTONIC ms; 0: run start) */
	int kexec_mode;      /* lboot.kexec=file|load|auto (kexecload.h), 0 auto */
};

/* Defaults: timeout -1, wait LB_DEFAULT_WAIT. */
void lb_boot_opts_init(struct lb_boot_opts *o);

/* Parse the lboot.* options of a kernel command line into o (others are
 * ignored; malformed values keep the default). Returns how many were
 * recognised. */
int lb_boot_parse_cmdline(const char *cmdline, struct lb_boot_opts *o);

/*
 * The boot flow on the console (fds 0/1). Returns only when not PID 1:
 * 0 after a dry run found a bootable entry, 1 when nothing could be booted
 * or the input closed.
 */
int lb_boot_run(const struct lb_boot_opts *o);

/* How a supervised boot process ended. */
struct lb_child_end {
	int hung;          /* 1: killed after its phase outlived its bound */
	int status;        /* wait status when it exited by itself */
	int phase;         /* hung: the phase (enum lb_phase) */
	int secs;          /* hung: how long the phase had run */
	int interactive;   /* the user had taken over */
	int stuck;         /* hung: it had not died 2 s after SIGKILL */
	char dev[64];      /* hung: the device of the phase ("" if none) */
};

/*
 * Fork a child running run(o) with progress stamps attached, reap
 * children, and watch the stamps: a phase that outlives its bound gets the
 * child SIGKILLed (PID 1 waits at most 2 s for it, then goes on; it is
 * reaped later). Returns 0 with *end filled, or negative errno when the
 * fork failed. Used by PID 1; exposed for the unit tests.
 */
int lb_supervise_once(const struct lb_boot_opts *o,
		      int (*run)(const struct lb_boot_opts *o),
		      struct lb_child_end *end);

/* The order in which entries are tried (indexes into l, at most l->n,
 * returns how many): the default, then the other shown entries of its
 * disk (GRUB's disk, else the device), then every other shown entry, in
 * list order. */
int lb_boot_fallback_order(const struct lb_fsset *set, const struct lb_entries *l,
			   size_t *order);

/* PID 1: mount /proc /sys /dev /run, take /dev/console, print the banner,
 * read /proc/cmdline and supervise lb_boot_run in a child forever. */
void lb_init_main(void) __attribute__((noreturn));

#endif
