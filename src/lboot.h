/* lboot: common definitions for applets. */
#ifndef LBOOT_H
#define LBOOT_H

#include <stddef.h>

#define LB_HOST   1  /* built into out/lboot, the host CLI */
#define LB_TARGET 2  /* built into the static target binary (initramfs /init) */

struct lb_applet {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *usage;
	int where;
};

/*
 * One applet per file in src/cmd/, declared at the top of the file:
 *
 *   LB_APPLET(name, LB_HOST|LB_TARGET,
 *   "usage: lboot name [OPTIONS] ARGS\n"
 *   "...\n")
 *
 * The name and the where flags must be on the LB_APPLET line itself: the
 * Makefile greps for them to build the sorted applet table. The usage text
 * is the single source of `lboot name --help`. The applet then defines
 * `int name_main(int argc, char **argv)` (argv[0] is the applet name).
 */
#define LB_APPLET(n, w, u) \
	int n##_main(int argc, char **argv); \
	const struct lb_applet lb_applet_##n = { #n, n##_main, u, w };

/* Print the usage of the named applet to stderr (for bad arguments). */
void lb_usage(const char *name);
/* Host applets: print "lboot NAME: message" to stderr. */
void lb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The name of the applet running now, for messages. */
extern const char *lb_prog;

#endif
