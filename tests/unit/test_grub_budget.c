/* lb_grub_fuzz_steps: the command budget a fuzzer may lower (never raise),
 * and with it the loop, menu entry and expansion caps,
 * and expansions in the interpreter's arena across nested calls. */
#include <stdio.h>
#include <string.h>

#include "entry.h"
#include "grub.h"
#include "t.h"

/* Runs cfg; 1 when a message contains want. */
static int run_has(const char *cfg, const char *want, size_t *n_entries)
{
	struct lb_entries l = LB_ENTRIES_INIT;
	int found = 0;

	if (lb_grub_parse_buf(NULL, NULL, "t.cfg", cfg, strlen(cfg), &l))
		return -1;
	for (size_t i = 0; i < l.n_msgs; i++)
		found |= strstr(l.msgs[i], want) != NULL;
	if (n_entries)
		*n_entries = l.n;
	lb_entries_free(&l);
	return found;
}

int main(void)
{
	static const char loop[] = "while true; do true; done\n";
	static const char nested[] =
		"for a in 1 2 3 4 5 6; do for b in 1 2 3 4 5 6; do "
		"for c in 1 2 3 4 5 6; do true; done; done; done\n";
	static const char menus[] =
		"for a in 1 2 3 4 5 6 7 8 9 10 11 12; do for b in 1 2 3 4 5 6 7 8 9 10 11 12; do "
		"menuentry \"e$a.$b\" { linux /vmlinuz; }; done; done\n";
	/* a 32 KiB value expanded 1000 times: 32 MiB */
	static const char grow[] =
		"x=0123456789abcdef0123456789abcdef\n"
		"for i in 1 2 3 4 5 6 7 8 9 10; do x=$x$x; done\n"
		"for i in 1 2 3 4 5 6 7 8 9 10; do for j in 1 2 3 4 5 6 7 8 9 10; do "
		"for k in 1 2 3 4 5 6 7 8 9 10; do true $x; done; done; done\n";
	/* the same without loops: 11 doublings to 64 KiB, then 192 KiB a command */
	static const char grow2[] =
		"x=0123456789abcdef0123456789abcdef\n"
		"x=$x$x\nx=$x$x\nx=$x$x\nx=$x$x\nx=$x$x\nx=$x$x\n"
		"x=$x$x\nx=$x$x\nx=$x$x\nx=$x$x\nx=$x$x\n"
		"true $x $x $x\ntrue $x $x $x\ntrue $x $x $x\ntrue $x $x $x\n";
	static const char rec[] =
		"function f { if [ $# -gt 0 ]; then shift; f $@; fi; }\n"
		"f a b c d e f g h\n"
		"menuentry \"x\" { linux /vmlinuz $@ }\n";

	TEST("grub budget: the default stops nothing a 1000-iteration loop needs") {
		lb_grub_fuzz_steps(0);
		CHECK(run_has(loop, "loop stopped after 1000 iterations", NULL) == 1);
		CHECK(run_has(loop, "evaluation stopped", NULL) == 0);
	}
	TEST("grub budget: lowered to 2500, the loop cap is lowered with it (125) and reached") {
		lb_grub_fuzz_steps(2500);
		CHECK(run_has(loop, "loop stopped after 125 iterations", NULL) == 1);
		CHECK(run_has(loop, "evaluation stopped", NULL) == 0);
		CHECK(run_has(loop, "loop stopped after 1000 iterations", NULL) == 0);
	}
	TEST("grub budget: lowered to 2500, the menu entry cap is lowered (128) and reached") {
		size_t n = 0;

		lb_grub_fuzz_steps(2500);
		CHECK(run_has(menus, "too many menu entries", &n) == 1);
		CHECK(n == 128);
		CHECK(run_has(menus, "evaluation stopped", NULL) == 0);
		lb_grub_fuzz_steps(0);
		CHECK(run_has(menus, "too many menu entries", &n) == 0);
		CHECK(n == 144);
	}
	TEST("grub budget: lowered to 2500, the expansion budget is 1 MiB") {
		lb_grub_fuzz_steps(2500);
		CHECK(run_has(grow, "evaluation stopped after 1 MiB of expansions", NULL) == 1);
		lb_grub_fuzz_steps(0);
		CHECK(run_has(grow, "evaluation stopped after 8 MiB of expansions", NULL) == 1);
	}
	TEST("grub budget: lowered to 1000, 128 variables at most") {
		static const char vars[] =
			"x=no\n"
			"for a in 1 2 3 4 5 6 7 8 9 10 11 12; do for b in 1 2 3 4 5 6 7 8 9 10 11 12; do "
			"if set v${a}_$b=1; then true; else x=capped; fi; done; done\n"
			"menuentry \"$x\" { linux /vmlinuz; }\n";
		struct lb_entries l = LB_ENTRIES_INIT;

		lb_grub_fuzz_steps(1000);
		CHECK(!lb_grub_parse_buf(NULL, NULL, "t.cfg", vars, strlen(vars), &l));
		CHECK(l.n == 1 && !strcmp(l.v[0].title, "capped"));
		lb_entries_free(&l);
		lb_grub_fuzz_steps(0);
		CHECK(!lb_grub_parse_buf(NULL, NULL, "t.cfg", vars, strlen(vars), &l));
		CHECK(l.n == 1 && !strcmp(l.v[0].title, "no"));
		lb_entries_free(&l);
	}
	TEST("grub budget: lowered to 100, evaluation stops at 100 commands") {
		lb_grub_fuzz_steps(100);
		CHECK(run_has(nested, "evaluation stopped after 100 commands", NULL) == 1);
		CHECK(run_has(loop, "loop stopped after 5 iterations", NULL) == 1);
		/* the expansion budget never below 512 KiB */
		CHECK(run_has(grow2, "evaluation stopped after 512 KiB of expansions", NULL) == 1);
		lb_grub_fuzz_steps(0);
		CHECK(run_has(grow2, "evaluation stopped", NULL) == 0);
	}
	TEST("grub budget: never raised above 20000") {
		lb_grub_fuzz_steps(1000000);
		CHECK(run_has("while true; do true; true; true; true; true; true; true; "
			      "true; true; true; true; true; true; true; true; true; true; "
			      "true; true; true; true; true; true; done\n",
			      "evaluation stopped after 20000 commands", NULL) == 1);
		lb_grub_fuzz_steps(0);
	}
	TEST("grub arena: recursion with shift, then an entry: one entry, no message") {
		size_t n = 0;

		CHECK(run_has(rec, ":", &n) == 0);
		CHECK(n == 1);
	}
	return t_done();
}
