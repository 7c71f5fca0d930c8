/*
 * Replays a fuzz corpus through a libFuzzer-style harness without libFuzzer,
 * so `make check` runs every corpus file under ASan and UBSan with gcc.
 * usage: fuzz_X DIR_OR_FILE...   prints one "ok" line with the count.
 * A crash aborts the process (ASan/UBSan report names the input).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t n_inputs;

static int one(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		printf("not ok %s (cannot open)\n", path);
		return 1;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		if (!got)
			break;
		n += got;
	}
	fclose(f);
	/* exact-size copy so ASan catches reads past the end */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact)
		abort();
	memcpy(exact, buf, n);
	free(buf);
	fprintf(stderr, "replay %s\n", path);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	n_inputs++;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int fail = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			printf("not ok %s (missing)\n", argv[i]);
			fail = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			fail |= one(argv[i]);
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		char **names = NULL;
		size_t n = 0;
		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			names = realloc(names, (n + 1) * sizeof(*names));
			if (!names)
				abort();
			if (asprintf(&names[n++], "%s/%s", argv[i], e->d_name) < 0)
				abort();
		}
		if (d)
			closedir(d);
		if (n)
			qsort(names, n, sizeof(*names), cmp);
		for (size_t k = 0; k < n; k++) {
			fail |= one(names[k]);
			free(names[k]);
		}
		free(names);
	}
	if (!fail && n_inputs)
		printf("ok %s: %zu inputs replayed\n", argv[0], n_inputs);
	else
		printf("not ok %s: %zu inputs replayed\n", argv[0], n_inputs);
	return fail || !n_inputs;
}
