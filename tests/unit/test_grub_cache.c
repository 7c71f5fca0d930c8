/* lb_grub_fuzz_cache: files that `source`/`configfile` read, parsed once
 * per process and kept. Every run must report exactly what it reports
 * without the cache (entries, default, timeout, messages, in order), the
 * first time (the file is parsed) and later (its kept tree runs), and a
 * file whose bytes changed at the same path is parsed again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry.h"
#include "fs.h"
#include "grub.h"
#include "t.h"

static struct lb_fsset S;
static char dir[64];

static int put(const char *name, const char *text)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (!(f = fopen(p, "w")))
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Everything a run reports, as one string (malloc'd). */
static char *run(const char *cfg)
{
	struct lb_entries l = LB_ENTRIES_INIT;
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	int r;

	if (!f)
		abort();
	r = lb_grub_parse_buf(&S, &S.v[0], "t.cfg", cfg, strlen(cfg), &l);
	fprintf(f, "rc=%d n=%zu timeout=%d default=%ld\n", r, l.n, l.timeout,
		lb_entries_default(&l));
	for (size_t i = 0; i < l.n; i++)
		fprintf(f, "%s|%s|%s|%s|%s|%d\n", l.v[i].title, l.v[i].id, l.v[i].kernel,
			l.v[i].cmdline ? l.v[i].cmdline : "", l.v[i].source,
			l.v[i].is_default);
	for (size_t i = 0; i < l.n_msgs; i++)
		fprintf(f, "msg %s\n", l.msgs[i]);
	fclose(f);
	lb_entries_free(&l);
	return out;
}

/* Runs cfg without the cache, then twice with it: 1 when all three
 * report the same; the report without the cache in *want (malloc'd). */
static int same(const char *cfg, char **want)
{
	char *a, *b, *c;
	int ok;

	lb_grub_fuzz_cache(0);
	a = run(cfg);
	lb_grub_fuzz_cache(1);
	b = run(cfg);
	c = run(cfg);
	lb_grub_fuzz_cache(0);
	ok = !strcmp(a, b) && !strcmp(a, c);
	if (!ok)
		printf("# without:\n%s# first:\n%s# second:\n%s", a, b, c);
	free(b);
	free(c);
	if (want)
		*want = a;
	else
		free(a);
	return ok;
}

int main(void)
{
	struct lb_fs f = { 0 };
	char *out = NULL;

	snprintf(dir, sizeof(dir), "/tmp/lboot-grubcache.XXXXXX");
	if (!mkdtemp(dir) || put("vmlinuz", "k") ||
	    /* syntax errors before, between and after commands; a function and
	     * entries defined in the file; a `return` outside a function */
	    put("a.cfg", "fi\nset x=1\nfunction g { echo $1; }\nif true; then\n"
		"menuentry \"A $x\" { linux /vmlinuz a=$x $1 }\n  }\nfi\n"
		"return\nmenuentry 'B' --id b { g hi; linux /vmlinuz b }\n"
		"set default=b\nset timeout=3\ndone\n") ||
	    put("loop.cfg", "set n=\"$n x\"\nsource /loop.cfg\n") ||
	    put("stop.cfg", "for a in 1 2 3 4 5 6; do for b in 1 2 3 4 5 6; do "
		"for c in 1 2 3 4 5 6; do true; done; done; done\nset late=1\n}\n"))
		return 1;
	f.dir = strdup(dir);
	f.name = strdup("t");
	f.uuid = strdup("1234-ABCD");
	f.grub = strdup("hd0,gpt1");
	if (!f.dir || !f.name || !f.uuid || !f.grub || lb_fsset_add(&S, &f))
		return 1;

	TEST("grub cache: a sourced file with syntax errors, functions, entries: same report") {
		CHECK(same("source /a.cfg\n", &out));
		CHECK(out && strstr(out, "n=2 ") && strstr(out, "A 1|") &&
		      strstr(out, "a.cfg:1: unexpected reserved word"));
		free(out);
		out = NULL;
	}
	TEST("grub cache: the same file sourced again, in a loop, by configfile: same report") {
		CHECK(same("for i in 1 2 3; do source /a.cfg; done\nset x=2\n"
			   "configfile /a.cfg\n", NULL));
	}
	TEST("grub cache: source nesting cap reached through the kept tree: same report") {
		CHECK(same("source /loop.cfg\nmenuentry e { linux /vmlinuz $n }\n", &out));
		CHECK(out && strstr(out, "nesting too deep"));
		free(out);
		out = NULL;
	}
	TEST("grub cache: evaluation stopped by the budget inside the file: same report") {
		lb_grub_fuzz_steps(100);
		CHECK(same("source /stop.cfg\nsource /stop.cfg\n", &out));
		CHECK(out && strstr(out, "evaluation stopped after 100 commands") &&
		      !strstr(out, "stop.cfg:3"));
		lb_grub_fuzz_steps(0);
		free(out);
		out = NULL;
	}
	TEST("grub cache: new bytes at the same path are parsed again") {
		char *a, *b;

		lb_grub_fuzz_cache(1);
		a = run("source /a.cfg\n");
		CHECK(!put("a.cfg", "menuentry 'C' { linux /vmlinuz c }\n"));
		b = run("source /a.cfg\n");
		lb_grub_fuzz_cache(0);
		CHECK(a && b && strstr(a, "A 1|") && !strstr(b, "A 1|") &&
		      strstr(b, "n=1 ") && strstr(b, "C|"));
		CHECK(same("source /a.cfg\n", NULL));
		free(a);
		free(b);
	}
	{
		char p[128];

		for (const char *const *n = (const char *const[]){ "vmlinuz", "a.cfg",
			"loop.cfg", "stop.cfg", NULL }; *n; n++) {
			snprintf(p, sizeof(p), "%s/%s", dir, *n);
			unlink(p);
		}
		rmdir(dir);
	}
	lb_fsset_free(&S);
	return t_done();
}
