/*
 * lboot's messages: each line to the console and, in PID 1's boot flow,
 * to the kernel log (/dev/kmsg) with its level (kmsg.h markers), printed
 * once on the console (docs/boot-state.md "The boot log"); and the boot
 * log handed to the OS in an EFI variable.
 */
#ifndef LB_LOG_H
#define LB_LOG_H

#include <stdio.h>

#include "kmsg.h"

/* lboot's boot log for the OS: LbootLog-<lboot's vendor GUID>, UTF-8
 * lines "<LEVEL>TEXT\n", the last LB_BOOTLOG_MAX bytes */
#define LB_BOOTLOG_VAR "LbootLog"
#define LB_BOOTLOG_MAX 4096u

/* A line-buffered stream: each line to fd 1 (its level marker stripped)
 * and, with kmsg, to /dev/kmsg (kmsg_path, NULL: /dev/kmsg), where the
 * kernel prints it on the console itself when the console's level lets it
 * through (then lboot does not: each line once). NULL on failure. */
FILE *lb_log_open(int kmsg, const char *kmsg_path);

/* Tests: the files read for the console's level (/proc/sys/kernel/printk)
 * and printk.ignore_loglevel. */
void lb_log_set_printk(const char *printk, const char *ignore);

/* lboot's records in the kernel log (facility LB_KMSG_FACILITY, text
 * starting with the tag), as the boot log into buf (cap bytes): *len. */
int lb_bootlog_collect(const char *kmsg_path, char *buf, size_t cap, size_t *len);

/* Just before kexec: the boot log into the EFI variable, written only when
 * it differs from what is there; one line says what was done, or why the
 * log was not handed over. */
void lb_bootlog_handover(FILE *log);

/* fprintf to log and flush it; nothing when log is NULL (discovery's
 * messages go to the console or nowhere in tests). */
void lb_logf(FILE *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
