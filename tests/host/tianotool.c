/*
 * Test-only driver for src/uefi/tiano.c (built with ASan into
 * build/tests/tianotool by mk/tiano.mk; used by tests/host/tiano.sh).
 *
 *   tianotool compress   efi|tiano IN OUT
 *   tianotool decompress efi|tiano|any IN OUT   ("any" prints the algorithm)
 *   tianotool info IN                             (prints "orig comp")
 * Exit: 0 ok, 1 failure, 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uefi/tiano.h"

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return -errno;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(b, cap);
			if (!nb) {
				free(b);
				fclose(f);
				return -ENOMEM;
			}
			b = nb;
		}
		size_t got = fread(b + n, 1, cap - n, f);
		if (!got)
			break;
		n += got;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(b);
		return -EIO;
	}
	*buf = b;
	*len = n;
	return 0;
}

static int write_file(const char *path, const uint8_t *buf, size_t len)
{
	char tmp[4096];
	struct stat st;
	FILE *f;

	/* Devices and pipes (e.g. /dev/null) are written in place: renaming a
	 * temporary file over them would replace the device node. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		f = fopen(path, "wb");
		if (!f)
			return -errno;
		if ((len && fwrite(buf, 1, len, f) != len) | (fclose(f) != 0))
			return -EIO;
		return 0;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "wb");
	if (!f)
		return -errno;
	if ((len && fwrite(buf, 1, len, f) != len) | (fclose(f) != 0)) {
		remove(tmp);
		return -EIO;
	}
	if (rename(tmp, path) < 0) {
		int e = -errno;
		remove(tmp);
		return e;
	}
	return 0;
}

static int parse_alg(const char *s, enum lb_tiano_alg *alg)
{
	if (!strcmp(s, "efi"))
		*alg = LB_ALG_EFI11;
	else if (!strcmp(s, "tiano"))
		*alg = LB_ALG_TIANO;
	else
		return -1;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tianotool compress efi|tiano IN OUT\n"
		"       tianotool decompress efi|tiano|any IN OUT\n"
		"       tianotool info IN\n");
	return 2;
}

int main(int argc, char **argv)
{
	enum lb_tiano_alg alg = LB_ALG_EFI11;
	uint8_t *in = NULL, *out = NULL;
	size_t in_len = 0, out_len = 0;
	int rc, any = 0;
	const char *what;

	if (argc == 3 && !strcmp(argv[1], "info")) {
		uint32_t orig, comp;
		rc = read_file(argv[2], &in, &in_len);
		if (rc) {
			fprintf(stderr, "tianotool: %s: cannot read: %s\n", argv[2], strerror(-rc));
			return 1;
		}
		rc = lb_tiano_info(in, in_len, &orig, &comp);
		free(in);
		if (rc) {
			fprintf(stderr, "tianotool: %s: bad header: %s\n", argv[2], strerror(-rc));
			return 1;
		}
		printf("%u %u\n", orig, comp);
		return 0;
	}
	if (argc != 5)
		return usage();
	if (!strcmp(argv[1], "decompress") && !strcmp(argv[2], "any"))
		any = 1;
	else if (parse_alg(argv[2], &alg))
		return usage();
	if (strcmp(argv[1], "compress") && strcmp(argv[1], "decompress"))
		return usage();
	rc = read_file(argv[3], &in, &in_len);
	if (rc) {
		fprintf(stderr, "tianotool: %s: cannot read: %s\n", argv[3], strerror(-rc));
		return 1;
	}
	if (!strcmp(argv[1], "compress")) {
		what = "compress";
		rc = lb_tiano_compress(alg, in, in_len, &out, &out_len);
	} else if (any) {
		what = "decompress";
		rc = lb_tiano_decompress_any(in, in_len, &out, &out_len, &alg);
		if (!rc)
			printf("%s\n", alg == LB_ALG_TIANO ? "tiano" : "efi");
	} else {
		what = "decompress";
		rc = lb_tiano_decompress(alg, in, in_len, &out, &out_len);
	}
	free(in);
	if (rc) {
		fprintf(stderr, "tianotool: %s: %s failed: %s\n", argv[3], what, strerror(-rc));
		return 1;
	}
	rc = write_file(argv[4], out, out_len);
	free(out);
	if (rc) {
		fprintf(stderr, "tianotool: %s: cannot write: %s\n", argv[4], strerror(-rc));
		return 1;
	}
	return 0;
}
