/* Boot counting in BLS file names, and entry ids as systemd-boot matches
 * them (bootcount.h). */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bootcount.h"

/* digits at *p as an int (at most INT_MAX): advances *p; -ERANGE, -EINVAL */
static int number(const char **p, int *v)
{
	const char *s = *p;
	long long x = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	while (*s >= '0' && *s <= '9') {
		x = x * 10 + (*s - '0');
		if (x > INT_MAX)
			return -ERANGE;
		s++;
	}
	*p = s;
	*v = (int)x;
	return 0;
}

int lb_bootcount_parse(const char *fname, const char *suffix, struct lb_bootcount *bc)
{
	const char *plus = strrchr(fname, '+'), *p;
	int left, done = 0;

	if (!plus)
		return -ENOENT;
	p = plus + 1;
	if (number(&p, &left))
		return -ENOENT;
	if (*p == '-') {
		p++;
		if (number(&p, &done))
			return -ENOENT;
	}
	if (strcasecmp(p, suffix))
		return -ENOENT; /* a counter in the middle of the name */
	bc->prefix = (size_t)(plus - fname);
	bc->left = left;
	bc->done = done;
	return 0;
}

int lb_bootcount_next(const char *fname, const char *suffix, char *out, size_t outsz)
{
	struct lb_bootcount bc;
	int n;

	if (lb_bootcount_parse(fname, suffix, &bc))
		return -ENOENT;
	n = snprintf(out, outsz, "%.*s+%d-%d%s", (int)bc.prefix, fname,
		     bc.left > 0 ? bc.left - 1 : 0, bc.done < INT_MAX ? bc.done + 1 : INT_MAX,
		     suffix);
	if (n < 0 || (size_t)n >= outsz)
		return -ENOSPC;
	return 0;
}

int lb_bootcount_sdboot_id(const char *fname, char *out, size_t outsz)
{
	size_t n = strlen(fname);

	if (n >= outsz)
		return -ENOSPC;
	for (size_t i = 0; i <= n; i++)
		out[i] = (char)tolower((unsigned char)fname[i]);
	return 0;
}

int lb_bootcount_id_match(const char *pattern, const char *fname, const char *suffix,
			  const char *id)
{
	char buf[512];
	struct lb_bootcount bc;

	if (!pattern || !*pattern)
		return 0;
	if (fname) {
		if (!fnmatch(pattern, fname, FNM_CASEFOLD))
			return 1;
		if (suffix && !lb_bootcount_parse(fname, suffix, &bc) &&
		    (size_t)snprintf(buf, sizeof(buf), "%.*s%s", (int)bc.prefix, fname, suffix) <
			    sizeof(buf) &&
		    !fnmatch(pattern, buf, FNM_CASEFOLD))
			return 1;
	}
	return id && !fnmatch(pattern, id, FNM_CASEFOLD);
}
