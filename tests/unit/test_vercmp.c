/* UAPI version comparison: the spec's and systemd's examples. */
#include "t.h"
#include "vercmp.h"

static int sgn(int x)
{
	return (x > 0) - (x < 0);
}

int main(void)
{
	/* strictly increasing (systemd's test list for strverscmp_improved) */
	static const char *const order[] = {
		"~1", "", "ab", "abb", "abc", "0001", "002", "12", "122",
		"122.9", "123~rc1", "123", "123-a", "123-a.1", "123-a1",
		"123-a1.1", "123-3", "123-3.1", "123^patch1", "123^1",
		"123.a-1", "123.1-1", "123a-1", "124",
	};
	static const struct { const char *a, *b; int r; } pairs[] = {
		/* uapi-group.org version format specification examples */
		{ "11", "11", 0 },
		{ "systemd-123", "systemd-123", 0 },
		{ "bar-123", "foo-123", -1 },
		{ "123a", "123", 1 },
		{ "123.a", "123", 1 },
		{ "123.a", "123.b", -1 },
		{ "123a", "123.a", 1 },
		{ "11\xce\xb1", "11\xce\xb2", 0 }, /* non-ASCII is ignored */
		{ "A", "a", -1 },
		{ "", "0", -1 },
		{ "0.", "0", 1 },
		{ "0.0", "0", 1 },
		{ "0", "~", 1 },
		{ "", "~", 1 },
		{ "1_", "1", 0 },
		{ "_1", "1", 0 },
		{ "1.0", "1_0", -1 }, /* "_" is skipped, "." is a separator */
		{ "00123", "123", 0 },
		{ "6.10.0-0.rc1.fc41.x86_64", "6.8.10-100.fc39.x86_64", 1 },
		{ "6.1.0-18-amd64", "6.1.0-13-amd64", 1 },
		{ "5.10.0", "5.10.0~rc5", 1 },
		{ "99999999999999999999999", "99999999999999999999998", 1 },
		{ "1.0^post1", "1.0", 1 },
		{ "1.0^post1", "1.0.1", -1 },
		{ NULL, "", -1 },
		{ NULL, NULL, 0 },
	};
	size_t n = sizeof(order) / sizeof(order[0]);

	TEST("vercmp order table") {
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++) {
				int want = i < j ? -1 : i > j ? 1 : 0;
				int got = sgn(lb_vercmp(order[i], order[j]));
				if (got != want)
					printf("# '%s' vs '%s': %d, want %d\n",
					       order[i], order[j], got, want);
				CHECK(got == want);
			}
	}
	TEST("vercmp spec examples") {
		for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
			int got = sgn(lb_vercmp(pairs[i].a, pairs[i].b));
			int rev = sgn(lb_vercmp(pairs[i].b, pairs[i].a));
			if (got != pairs[i].r)
				printf("# '%s' vs '%s': %d, want %d\n",
				       pairs[i].a ? pairs[i].a : "(null)",
				       pairs[i].b ? pairs[i].b : "(null)", got,
				       pairs[i].r);
			CHECK(got == pairs[i].r);
			CHECK(rev == -pairs[i].r);
		}
	}
	return t_done();
}
