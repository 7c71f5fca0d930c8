/*
 * Minimal table-friendly test harness. Each CHECK prints nothing on success;
 * a failure prints "not ok" with file and line. Each TEST(name) block ends
 * with one "ok NAME" / "not ok NAME" line; tests/check.sh counts them.
 *
 *   int main(void) { TEST(foo) { CHECK(1 + 1 == 2); } return t_done(); }
 */
#ifndef T_H
#define T_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_failed_total, t_failed_now, t_passed_total;
static const char *t_name;

static inline int t_begin(const char *name)
{
	t_name = name;
	t_failed_now = 0;
	return 1;
}

static inline int t_end(void)
{
	if (t_failed_now) {
		printf("not ok %s\n", t_name);
		t_failed_total++;
	} else {
		printf("ok %s\n", t_name);
		t_passed_total++;
	}
	fflush(stdout);
	return 0;
}

#define TEST(name) for (int t_once_ = t_begin(name); t_once_; t_once_ = t_end())

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
