/* libFuzzer harness: the GRUB config interpreter on arbitrary scripts.
 * The first byte picks the environment: even = no filesystem at all, odd =
 * the ubuntu2204 fixture disk (ESP, /boot, root with GRUB device names) so
 * search, load_env, source/configfile, test -f and blscfg touch real files.
 * Invariants checked: at most one default, entries have a kernel, strings
 * are NUL terminated within bounds (ASan), no leaks.
 *
 * Speed: an execution
 * costs in proportion to the bytes it lexes and the edges it covers, and a
 * script that loops costs up to the interpreter's step budget (lowered to
 * FUZZ_STEPS for libFuzzer runs, with the caps that scale with it, see
 * LLVMFuzzerInitialize). Inputs are
 * cut to FUZZ_MAX_INPUT bytes: the first KiB of every seed reaches the
 * same coverage as the whole seed (libFuzzer -max_len=1024 on this corpus:
 * same edges at start-up), and without -max_len libFuzzer would mutate
 * seeds of 10 KiB. LLVMFuzzerInitialize passes -max_len unless given. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena.h"
#include "entry.h"
#include "fs.h"
#include "grub.h"

#define FUZZ_MAX_INPUT 1024
/* commands per phase, 20x fewer than PID 1 allows; lb_grub_fuzz_steps
 * lowers the loop, menu entry, expansion and variable caps with it (50
 * iterations, 51 entries, 512 KiB, 128 variables), so every cap of the
 * interpreter stays reachable within the budget (tests/unit/
 * test_grub_budget.c) and a script that runs into one costs a twentieth */
#define FUZZ_STEPS 1000
/* the arena chunks kept between executions (PID 1 keeps 256 KiB): what a
 * script that runs to the expansion budget holds at once, so that it
 * takes no chunk from malloc (ASan fills each, and its quarantine hands
 * out fresh pages: page faults were a third of such a script's time) */
#define FUZZ_POOL (8u << 20)
#define LB_FUZZ_STR_(x) #x
#define LB_FUZZ_STR(x) LB_FUZZ_STR_(x)

static struct lb_fsset S;
static int have_fs;

static void setup(void)
{
	static const char *const sub[] = { "esp", "boot", "root" };
	static const char *const uuid[] = {
		"2B4C-6D8E", "c6a1d2e3-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
		"9f1e2d3c-4b5a-4697-8877-665544332211"
	};
	static const char *const grub[] = { "hd0,gpt1", "hd0,gpt2", "hd0,gpt3" };
	const char *files = getenv("LBOOT_TEST_FILES");
	char dir[4096];

	for (int i = 0; i < 3; i++) {
		struct lb_fs f = { 0 };

		snprintf(dir, sizeof(dir), "%s/grub/ubuntu2204/%s",
			 files ? files : "tests/files", sub[i]);
		f.dir = strdup(dir);
		f.name = strdup(sub[i]);
		f.uuid = strdup(uuid[i]);
		f.grub = strdup(grub[i]);
		if (!f.dir || !f.name || !f.uuid || !f.grub || lb_fsset_add(&S, &f)) {
			lb_fs_free(&f);
			return;
		}
	}
	have_fs = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_entries l = LB_ENTRIES_INIT;
	static int init;
	int with_fs;
	long d;
	int n_def = 0;

	if (size < 1)
		return 0;
	if (size > FUZZ_MAX_INPUT)
		size = FUZZ_MAX_INPUT; /* replays of longer seeds: their first KiB */
	if (!init) {
		init = 1;
		setup();
	}
	with_fs = (data[0] & 1) && have_fs;
	if (lb_grub_parse_buf(with_fs ? &S : NULL, with_fs ? &S.v[1] : NULL,
			      "fuzz.cfg", (const char *)data + 1, size - 1, &l) == 0) {
		for (size_t i = 0; i < l.n; i++) {
			n_def += l.v[i].is_default != 0;
			if (!l.v[i].kernel || !l.v[i].title || !l.v[i].id ||
			    l.v[i].n_initrd > LB_MAX_INITRDS)
				abort();
			(void)strlen(l.v[i].kernel);
		}
		d = lb_entries_default(&l);
		if (n_def > 1 || (l.n && d < 0) || l.n > 1024)
			abort();
	}
	lb_entries_free(&l);
	return 0;
}

/* Real libFuzzer runs: the interpreter's command budget lowered to
 * FUZZ_STEPS (and its caps with it), the fixture's files parsed once per
 * process (odd first bytes source them in most runs; lb_grub_fuzz_cache)
 * and looked up once (lb_fs_memo: the fixture never changes, and the
 * system calls of its lookups were a quarter of the time of a script that
 * sources its grub.cfg), arena chunks kept between runs (FUZZ_POOL), and
 * these options
 * unless given on the command line:
 *  -max_len=FUZZ_MAX_INPUT (see the top of this file);
 *  -entropic_feature_frequency_threshold=16: libFuzzer's entropic schedule
 *   keeps every feature seen fewer than 255 times as "rare" and looks each
 *   feature of every execution up in that list (linear search): with the
 *   thousands of features this interpreter has, that bookkeeping was half
 *   of a run's time (perf: UpdateFeatureFrequency, AddRareFeature). At 16
 *   the list stays short; side by side the same binary reached as many or
 *   more edges in 60 s (docs/fuzzing.md).
 * The replay in make check does not call this: it runs the corpus with
 * the budget PID 1 has. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char maxlen[] = "-max_len=" LB_FUZZ_STR(FUZZ_MAX_INPUT);
	static char rare[] = "-entropic_feature_frequency_threshold=16";
	static char *const def[] = { maxlen, rare };
	static char *nv[256];
	int n = *argc, k = n;

	lb_grub_fuzz_steps(FUZZ_STEPS);
	lb_grub_fuzz_cache(1);
	lb_arena_pool_max(FUZZ_POOL);
	lb_fs_memo(1);
	if (n + 3 > (int)(sizeof(nv) / sizeof(nv[0])))
		return 0;
	memcpy(nv, *argv, (size_t)n * sizeof(char *));
	for (size_t d = 0; d < sizeof(def) / sizeof(def[0]); d++) {
		size_t eq = strchr(def[d], '=') - def[d] + 1;
		int given = 0;

		for (int i = 1; i < n; i++)
			given |= !strncmp((*argv)[i], def[d], eq);
		if (!given)
			nv[k++] = def[d];
	}
	nv[k] = NULL;
	*argc = k;
	*argv = nv;
	return 0;
}
