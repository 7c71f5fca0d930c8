/* Multi-call dispatch: `lboot APPLET ARGS` or an applet name as argv[0]. */
#include <stdio.h>
#include <string.h>

#include "lboot.h"

#define X(n) extern const struct lb_applet lb_applet_##n;
#include "applets.h"
#undef X

static const struct lb_applet *const applets[] = {
#define X(n) &lb_applet_##n,
#include "applets.h"
#undef X
};
#define N_APPLETS (sizeof(applets) / sizeof(applets[0]))


static const struct lb_applet *find(const char *name)
{
	size_t lo = 0, hi = N_APPLETS;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, applets[mid]->name);
		if (!c)
			return applets[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

void lb_usage(const char *name)
{
	const struct lb_applet *a = find(name);

	if (a)
		fputs(a->usage, stderr);
}

static void list(FILE *f)
{
	fputs("usage: lboot APPLET [ARGS...]   (or run as APPLET through a link)\n"
	      "       lboot APPLET --help\n\napplets:", f);
	for (size_t i = 0; i < N_APPLETS; i++)
		fprintf(f, " %s", applets[i]->name);
	fputc('\n', f);
}

static int run(const struct lb_applet *a, int argc, char **argv)
{
	lb_prog = a->name;
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(a->usage, stdout);
		return 0;
	}
	return a->main(argc, argv);
}

int main(int argc, char **argv)
{
	const char *base = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;
	const struct lb_applet *a;

	base = base ? base + 1 : (argc > 0 && argv[0] ? argv[0] : "lboot");
	if ((a = find(base)))
		return run(a, argc, argv);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		list(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!(a = find(argv[1]))) {
		fprintf(stderr, "lboot: unknown applet '%s'\n", argv[1]);
		list(stderr);
		return 2;
	}
	return run(a, argc - 1, argv + 1);
}
