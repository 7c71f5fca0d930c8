/* UAPI version format comparison (uapi-group.org "Version Format
 * Specification"; the semantics of systemd's strverscmp_improved()). */
#ifndef LB_VERCMP_H
#define LB_VERCMP_H

/* Compare two version strings: <0 if a is older than b, 0 if equal, >0 if
 * newer. NULL sorts before any string. */
int lb_vercmp(const char *a, const char *b);

#endif
