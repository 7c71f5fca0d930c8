/* The GRUB harness's view of inputs, printed: for each input file, what
 * lb_grub_parse_buf returns when fuzz_grub.c calls it (same filesystem
 * set, same first-KiB cut, same first-byte choice), every field of every
 * entry, the default, the timeout and every message. Two builds of the
 * interpreter must print byte-identical output for a corpus when a change
 * is meant to keep behaviour (docs/fuzzing.md, the GRUB harness).
 * usage: dump_grub [-s STEPS] [-c] FILE...   (-s: the fuzz command budget,
 * as LLVMFuzzerInitialize sets it; default: the interpreter's own; -c: the
 * parsed-file cache, the lookup memo and the chunk pool on, as
 * LLVMFuzzerInitialize sets them) */
#include "fuzz_grub.c"

static void str(const char *k, const char *v)
{
	printf(" %s=", k);
	if (!v) {
		printf("(null)");
		return;
	}
	putchar('"');
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == '"' || *v == '\\' ||
		    (unsigned char)*v >= 0x7f)
			printf("\\x%02x", (unsigned char)*v);
		else
			putchar(*v);
	putchar('"');
}

static void dump(const char *path)
{
	struct lb_entries l = LB_ENTRIES_INIT;
	FILE *f = fopen(path, "rb");
	static uint8_t data[FUZZ_MAX_INPUT + 1];
	size_t size;
	int with_fs, r;

	printf("== %s\n", path);
	if (!f) {
		printf("cannot open\n");
		return;
	}
	size = fread(data, 1, sizeof(data), f);
	fclose(f);
	if (size < 1)
		return;
	if (size > FUZZ_MAX_INPUT)
		size = FUZZ_MAX_INPUT;
	with_fs = (data[0] & 1) && have_fs;
	r = lb_grub_parse_buf(with_fs ? &S : NULL, with_fs ? &S.v[1] : NULL,
			      "fuzz.cfg", (const char *)data + 1, size - 1, &l);
	printf("rc=%d n=%zu timeout=%d default=%ld msgs=%zu\n", r, l.n, l.timeout,
	       lb_entries_default(&l), l.n_msgs);
	for (size_t i = 0; i < l.n; i++) {
		struct lb_entry *e = &l.v[i];

		printf("entry %zu type=%d def=%d hidden=%d sysappend=%u", i, e->type,
		       e->is_default, e->hidden, e->sysappend);
		str("title", e->title);
		str("id", e->id);
		str("version", e->version);
		str("sort_key", e->sort_key);
		str("machine_id", e->machine_id);
		str("kernel", e->kernel);
		str("cmdline", e->cmdline);
		str("devicetree", e->devicetree);
		str("fs", e->fs);
		str("source", e->source);
		for (size_t k = 0; k < e->n_initrd; k++)
			str("initrd", e->initrd[k]);
		putchar('\n');
	}
	for (size_t i = 0; i < l.n_msgs; i++) {
		printf("msg");
		str("", l.msgs[i]);
		putchar('\n');
	}
	lb_entries_free(&l);
}

int main(int argc, char **argv)
{
	int i = 1;

	if (argc > i + 1 && !strcmp(argv[i], "-s")) {
		lb_grub_fuzz_steps(atol(argv[i + 1]));
		i += 2;
	}
	if (argc > i && !strcmp(argv[i], "-c")) {
		lb_grub_fuzz_cache(1);
		lb_fs_memo(1);
		lb_arena_pool_max(FUZZ_POOL);
		i++;
	}
	setup();
	for (; i < argc; i++)
		dump(argv[i]);
	return 0;
}
