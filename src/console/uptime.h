/* Seconds since the kernel started, from /proc/uptime ("?" if unknown):
 * lboot stamps its first line and its hand-over with it, so boot time is
 * measured inside the guest (bench/boot-time.sh). */
#ifndef LB_UPTIME_H
#define LB_UPTIME_H
#include <stddef.h>
const char *lb_uptime(char *buf, size_t n);
#endif
