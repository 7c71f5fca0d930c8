/*
 * Every console of `console=` at once.
 *
 * /dev/console is only the last console= of the kernel command line; the
 * others (a second serial port, the VGA/framebuffer VT) would see the
 * kernel's messages but not lboot's menu, and their keys would go nowhere.
 * PID 1 opens every console the kernel lists as active
 * (/sys/class/tty/console/active, e.g. "tty0 ttyS0"; a missing node is
 * made from /sys/class/tty/NAME/dev). With more than one, fds 1 and 2 of
 * PID 1 and of everything it starts become a pipe that a thread of PID 1
 * copies to each console (a console that stops taking bytes, e.g. held
 * by flow control, loses them after a bound instead of stalling the
 * others); the menu reads keys from all of them (src/console/menu.c, one key
 * decoder and one termios state per console). A console that cannot be
 * opened is named once and left out; with none but /dev/console, nothing
 * changes.
 */
#ifndef LB_CONSOLE_H
#define LB_CONSOLE_H

#include <stddef.h>
#include <stdio.h>

#define LB_CONS_MAX 8
#define LB_CONS_NAME 32

/* The names in the text of /sys/class/tty/console/active (blank
 * separated): up to cap, each a plain device name ([A-Za-z0-9_], not
 * longer than LB_CONS_NAME - 1; others skipped). Returns how many. */
size_t lb_console_parse(const char *s, char names[][LB_CONS_NAME], size_t cap);

/* PID 1, after fds 0-2 are /dev/console: open the active consoles and
 * start the copy thread when there are two or more. Lines go to log. */
void lb_console_setup(FILE *log);

/* The consoles to read keys from (NULL and 0 with fewer than two: read
 * fd 0), and their names. */
const int *lb_console_fds(size_t *n);
const char *lb_console_name(size_t i);

/* PID 1, after the boot process ended: each console's terminal settings
 * as they were at lb_console_setup (the menu may have left raw mode on). */
void lb_console_restore(void);

/* Before a reboot or kexec: flush stdio and wait (bounded) until the copy
 * thread has written out everything written before the call. */
void lb_console_drain(void);

#endif
