/*
 * Minimal table-friendly test harness. Each CHECK prints nothing on success;
 * a failure prints a "#" line with file and line. Each TEST(name) block ends
 * with one line that tests/check.sh counts: "ok NAME", "not ok NAME", or
 * "skip NAME: reason" when the block called SKIP() and no CHECK failed.
 * A skip is never a pass; a failed CHECK before or after SKIP still fails.
 *
 *   int main(void) { TEST(foo) { CHECK(1 + 1 == 2); } return t_done(); }
 *   TEST(bar) { if (!have_x) { SKIP("%s not installed", x); continue; } ... }
 *
 * `continue` (or break) inside a TEST block (not inside a nested loop) ends
 * the block; the result line is still printed.
 */
#ifndef T_H
#define T_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_failed_total, t_failed_now, t_passed_total, t_skipped_total;
static const char *t_name;
static char t_skip_why[256];

static inline int t_begin(const char *name)
{
	t_name = name;
	t_failed_now = 0;
	t_skip_why[0] = 0;
	return 1;
}

static inline int t_end(void)
{
	if (t_failed_now) {
		printf("not ok %s\n", t_name);
		t_failed_total++;
	} else if (t_skip_why[0]) {
		printf("skip %s: %s\n", t_name, t_skip_why);
		t_skipped_total++;
	} else {
		printf("ok %s\n", t_name);
		t_passed_total++;
	}
	fflush(stdout);
	return 0;
}

/* Marks the current TEST as skipped, with the reason (printf format). */
__attribute__((format(printf, 1, 2)))
static inline void t_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t_skip_why, sizeof(t_skip_why), fmt, ap);
	va_end(ap);
	if (!t_skip_why[0])
		snprintf(t_skip_why, sizeof(t_skip_why), "no reason given");
	/* the reason is one line: check.sh reads "skip NAME: reason" */
	for (char *c = t_skip_why; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
}

#define TEST(name) for (int t_once_ = t_begin(name); t_once_; t_once_ = t_end())

#define SKIP(...) t_skip(__VA_ARGS__)

#define CHECK(cond) do { if (!(cond)) { \
	printf("# %s:%d: %s: CHECK(%s) failed\n", __FILE__, __LINE__, t_name, #cond); \
	t_failed_now++; } } while (0)

#define CHECK_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) { printf("# %s:%d: %s: %s == %lld, expected %s == %lld\n", \
	__FILE__, __LINE__, t_name, #a, a_, #b, b_); t_failed_now++; } } while (0)

#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_)) { printf("# %s:%d: %s: %s is \"%s\", expected \"%s\"\n", \
	__FILE__, __LINE__, t_name, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); t_failed_now++; } } while (0)

static inline int t_done(void)
{
	return t_failed_total ? 1 : 0;
}

/* Directory of the source tree's tests/files, for fixtures. */
static inline const char *t_files(void)
{
	const char *d = getenv("LBOOT_TEST_FILES");
	return d ? d : "tests/files";
}

#endif
