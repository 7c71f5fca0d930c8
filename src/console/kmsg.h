/*
 * The kernel log (/dev/kmsg) as lboot writes and reads it, and the boot
 * log handed to the OS (docs/boot-state.md). Pure: no I/O here
 * (src/console/log.c does it).
 *
 * A message may start with a level marker, the kernel's own convention
 * (KERN_SOH, then a digit): LB_LOG_ERR "lboot: ...". Without one, a line
 * is LB_LEVEL_DEFAULT (info).
 */
#ifndef LB_KMSG_H
#define LB_KMSG_H

#include <stddef.h>
#include <stdint.h>

#define LB_LOG_SOH    "\001"
#define LB_LOG_ERR    LB_LOG_SOH "3"
#define LB_LOG_WARN   LB_LOG_SOH "4"
#define LB_LOG_NOTICE LB_LOG_SOH "5"
#define LB_LOG_INFO   LB_LOG_SOH "6"
#define LB_LOG_DEBUG  LB_LOG_SOH "7"
#define LB_LEVEL_DEFAULT 6

/* syslog facility of lboot's records: LOG_USER, as the kernel gives any
 * record written through /dev/kmsg without one (never 0, the kernel's) */
#define LB_KMSG_FACILITY 1
/* the longest text lboot writes as one record (the kernel takes up to
 * 1024 bytes with the prefix); longer lines are cut, ending in "[...]" */
#define LB_KMSG_TEXT_MAX 960
#define LB_KMSG_TAG "lboot: "

/* The level a line's marker gives (0..7), LB_LEVEL_DEFAULT without one;
 * *text: the line after the marker (markers stacked are all skipped). */
int lb_kmsg_level(const char *line, size_t len, const char **text, size_t *tlen);

/* The record to write to /dev/kmsg for one line of text (no newline in
 * it): "<FACILITY*8+LEVEL>lboot: TEXT" (the tag added unless TEXT starts
 * with it; a marker in TEXT, if any, is stripped). Into out (outsz >= 16):
 * the length; 0 for an empty line (nothing to log). */
size_t lb_kmsg_record(char *out, size_t outsz, const char *line, size_t len);

/* One record as read(2) from /dev/kmsg gives it:
 * "PRIO,SEQ,USEC,FLAGS[,...];TEXT\n" then dictionary lines " KEY=VALUE\n".
 * TEXT is as the kernel escaped it (\xNN for control bytes). */
struct lb_kmsg_rec {
	unsigned facility, level;
	uint64_t seq, usec;
	const char *text; /* inside the input, not NUL-terminated */
	size_t tlen;
};
/* 0, or -EINVAL for anything else than such a record. */
int lb_kmsg_parse(const char *buf, size_t len, struct lb_kmsg_rec *r);

/* Undo, in place, the kernel's \xNN escapes (devkmsg) of '\' and of
 * bytes above 0x7e but DEL, so UTF-8 and backslashes read as printed;
 * control bytes and DEL stay escaped. Returns the new length. */
size_t lb_kmsg_unescape(char *text, size_t tlen);

/* The boot log: whole lines "<L>TEXT\n" in buf (cap bytes), the newest
 * kept when it is full (the oldest whole lines dropped; a line longer than
 * the buffer keeps its start). *len: the bytes in use. */
void lb_bootlog_add(char *buf, size_t cap, size_t *len, unsigned level,
		    const char *text, size_t tlen);

#endif
