/*
 * The hardware watchdog (lboot.watchdog=S, lboot.watchdog.handover=S).
 *
 * PID 1 arms it as it starts and feeds it from its supervisor loop, so the
 * machine resets when PID 1 or the kernel stops (a boot process that hangs
 * is PID 1's business: progress.h). The boot process inherits the open
 * file: before kexec it sets the timeout the OS gets to take over and
 * leaves the watchdog running (handover S > 0), or stops it (handover 0:
 * WDIOS_DISABLECARD and the magic close 'V'); after a failed kexec it puts
 * lboot's own timeout back.
 *
 * Which device: the lowest /sys/class/watchdog/watchdogN (drivers on the
 * watchdog core, bound to hardware that was found: i6300esb, iTCO, ...),
 * else /dev/watchdog (a legacy driver such as ib700, which cannot tell
 * whether its hardware exists). The ioctl numbers are defined here (no
 * <linux/watchdog.h>; tests/unit/test_watchdog.c compares them).
 *
 * At kexec the kernel itself may stop the watchdog: drivers that ask for it
 * (i6300esb and most core drivers) do unless the firmware kernel runs with
 * watchdog.stop_on_reboot=0; legacy drivers with a shutdown hook (ib700)
 * always do. lboot says which applies when it hands over.
 */
#ifndef LB_WATCHDOG_H
#define LB_WATCHDOG_H

#include <stdint.h>
#include <stdio.h>

#define LB_WDIOC_GETSUPPORT 0x80285700u /* _IOR('W', 0, struct watchdog_info) */
#define LB_WDIOC_SETOPTIONS 0x80045704u /* _IOR('W', 4, int) */
#define LB_WDIOC_KEEPALIVE  0x80045705u /* _IOR('W', 5, int) */
#define LB_WDIOC_SETTIMEOUT 0xc0045706u /* _IOWR('W', 6, int) */
#define LB_WDIOC_GETTIMEOUT 0x80045707u /* _IOR('W', 7, int) */
#define LB_WDIOS_DISABLECARD 0x0001
#define LB_WDIOS_ENABLECARD  0x0002

struct lb_watchdog_info { /* struct watchdog_info */
	uint32_t options;
	uint32_t firmware_version;
	uint8_t identity[32];
};

/* The device to open under root ("" or "/" for the real one): "/dev/watchdogN"
 * for the lowest watchdog core device, else "/dev/watchdog" when it exists
 * (legacy). 1 for a core device, 0 for legacy, -ENOENT for none. */
int lb_watchdog_pick(const char *root, char *dev, size_t devsz);

/* PID 1: open the watchdog and set S seconds; one line to log either way.
 * 0 or negative errno. */
int lb_watchdog_arm(int secs, FILE *log);
/* 1 when armed in this process tree. */
int lb_watchdog_armed(void);
/* PID 1's loop: a keepalive when due (a few times per timeout). */
void lb_watchdog_feed(long now_ms);
/* Before kexec (the boot process): secs > 0: that timeout, one keepalive,
 * left running; 0: stopped. One line to log. 0 or negative errno. */
int lb_watchdog_handover(int secs, FILE *log);
/* After a failed kexec: lboot's timeout again, running. */
void lb_watchdog_resume(FILE *log);

#endif
