/* lb_grub_fuzz_steps: the command budget a fuzzer may lower (never raise),
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
	static const char rec[] =
		"function f { if [ $# -gt 0 ]; then shift; f $@; fi; }\n"
		"f a b c d e f g h\n"
		"menuentry \"x\" { linux /vmlinuz $@ }\n";

	TEST("grub budget: the default stops nothing a 1000-iteration loop needs") {
		lb_grub_fuzz_steps(0);
		CHECK(run_has(loop, "loop stopped after 1000 iterations", NULL) == 1);
		CHECK(run_has(loop, "evaluation stopped", NULL) == 0);
	}
	TEST("grub budget: lowered to 2500, the loop cap is still reached") {
		lb_grub_fuzz_steps(2500);
		CHECK(run_has(loop, "loop stopped after 1000 iterations", NULL) == 1);
		CHECK(run_has(loop, "evaluation stopped", NULL) == 0);
	}
	TEST("grub budget: lowered to 100, evaluation stops at 100 commands") {
		lb_grub_fuzz_steps(100);
		CHECK(run_has(loop, "evaluation stopped after 100 commands", NULL) == 1);
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
