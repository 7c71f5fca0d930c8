/*
 * UAPI version comparison. The rules, applied segment by segment from the
 * left until a difference is found:
 *  - characters other than [A-Za-z0-9~^.-] are ignored (skipped) where a
 *    segment starts;
 *  - '~' (pre-release) sorts before everything, even the end of the string:
 *    if exactly one side starts with '~' it is older; if both, skip it;
 *  - then if either string has ended, the longer one is newer;
 *  - '-' (version/release separator): the side starting with '-' is older;
 *  - '^' (post-release patch): the side starting with '^' is older than any
 *    other character but newer than the end of the string (handled above);
 *  - '.': the side starting with '.' is older (than letters/digits);
 *  - digits: numeric segments compare numerically (leading zeros ignored,
 *    arbitrary length) and are newer than alphabetic segments;
 *  - letters: compared with strcmp over the common prefix, then the longer
 *    run is newer.
 */
#include <string.h>

#include "vercmp.h"

static int valid(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '~' || c == '-' || c == '^' ||
	       c == '.';
}

static int digit(char c)
{
	return c >= '0' && c <= '9';
}

static int alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* One separator class: returns nonzero with *r set when it decides. */
static int sep(const char **a, const char **b, char s, int *r)
{
	int ia = **a == s, ib = **b == s;

	if (!ia && !ib)
		return 0;
	if (ia != ib) {
		*r = ia ? -1 : 1;
		return 1;
	}
	(*a)++;
	(*b)++;
	return 0;
}

int lb_vercmp(const char *a, const char *b)
{
	int r;

	if (!a || !b)
		return (a != NULL) - (b != NULL);
	for (;;) {
		const char *ea, *eb;

		while (*a && !valid(*a))
			a++;
		while (*b && !valid(*b))
			b++;
		if (sep(&a, &b, '~', &r))
			return r;
		if (!*a || !*b)
			return (*a != 0) - (*b != 0);
		if (sep(&a, &b, '-', &r) || sep(&a, &b, '^', &r) ||
		    sep(&a, &b, '.', &r))
			return r;
		if (digit(*a) || digit(*b)) {
			size_t la, lb;

			for (ea = a; digit(*ea); ea++)
				;
			for (eb = b; digit(*eb); eb++)
				;
			if ((ea == a) != (eb == b))
				return ea == a ? -1 : 1;
			while (a < ea && *a == '0')
				a++;
			while (b < eb && *b == '0')
				b++;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			r = la ? memcmp(a, b, la) : 0;
			if (r)
				return r < 0 ? -1 : 1;
		} else {
			size_t la, lb, m;

			for (ea = a; alpha(*ea); ea++)
				;
			for (eb = b; alpha(*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			m = la < lb ? la : lb;
			r = m ? memcmp(a, b, m) : 0;
			if (r)
				return r < 0 ? -1 : 1;
			if (la != lb)
				return la < lb ? -1 : 1;
		}
		a = ea;
		b = eb;
	}
}
