/* lboot mkinitramfs: build the firmware initramfs (newc cpio, xz/gzip). */
#include "lboot.h"

LB_APPLET(mkinitramfs, LB_HOST,
"usage: lboot mkinitramfs -o OUT [--init BINARY] [--busybox[=PATH]]\n"
"         [--compress xz|gzip|none] [--mtime EPOCH] [--file SRC[:DST]]... [SRC[:DST]...]\n"
"Write a reproducible initramfs (newc cpio, compressed) to OUT, atomically.\n"
"Always: /dev /proc /sys /run /tmp /mnt /etc /bin /sbin, /dev/console (c 5 1),\n"
"/dev/null (c 1 3).\n"
"  -o, --output OUT    the image to write (never one of the inputs)\n"
"  --init BINARY       BINARY as /init (0755), /bin/lboot -> ../init\n"
"  --busybox[=PATH]    add PATH (default /bin/busybox, a static busybox) as\n"
"                      /bin/busybox and /bin/APPLET -> busybox for each applet\n"
"                      `PATH --list` prints, except names already taken\n"
"  --compress C        xz (default; CRC32 check, as the kernel needs), gzip, none\n"
"  --mtime EPOCH       mtime of every member (default $SOURCE_DATE_EPOCH or 0)\n"
"  --file SRC[:DST], SRC[:DST]\n"
"                      add a host file or directory (recursively; symlinks kept)\n"
"                      at DST (default /basename(SRC)); DST ending in / puts it\n"
"                      under DST; a directory with DST / merges into the root;\n"
"                      the last ':' splits SRC from DST\n"
"Members are sorted by path, owned by 0:0, inodes numbered in order: the same\n"
"inputs give the same bytes. Prints a summary line to stderr.\n"
"Exit: 0 ok, 1 failure, 2 usage.\n")

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpio.h"
#include "io.h"
#include "compress.h"
#include "mkinitramfs.h"

static int parse_epoch(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int add_spec(struct lb_initramfs_file **v, size_t *n, char *spec)
{
	struct lb_initramfs_file *nv = realloc(*v, (*n + 1) * sizeof(**v));
	char *colon = strrchr(spec, ':');

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n].src = spec;
	nv[*n].dst = NULL;
	if (colon) {
		*colon = 0;
		nv[*n].dst = colon + 1;
		if (!spec[0] || !colon[1])
			return -EINVAL;
	}
	if (!spec[0])
		return -EINVAL;
	(*n)++;
	return 0;
}

int mkinitramfs_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "init", required_argument, NULL, 'i' },
		{ "busybox", optional_argument, NULL, 'b' },
		{ "compress", required_argument, NULL, 'c' },
		{ "mtime", required_argument, NULL, 'm' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct lb_initramfs_opts o = { 0 };
	struct lb_initramfs_file *files = NULL;
	struct lb_initramfs *img = NULL;
	struct lb_cpio_buf cpio = { .max = (size_t)3 << 30 };
	struct lb_cpio_writer w;
	enum lb_comp comp = LB_COMP_XZ;
	const char *out = NULL, *sde;
	uint8_t *z = NULL;
	size_t n_files = 0, zlen = 0;
	char err[512] = "";
	struct stat st;
	int c, rc, ret = 1;

	if ((sde = getenv("SOURCE_DATE_EPOCH")) && *sde &&
	    parse_epoch(sde, &o.mtime) < 0) {
		lb_err("SOURCE_DATE_EPOCH '%s': not a 32-bit epoch", sde);
		return 2;
	}
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'i':
			o.init = optarg;
			break;
		case 'b':
			o.busybox = optarg ? optarg : "/bin/busybox";
			break;
		case 'c':
			if (lb_comp_parse(optarg, &comp) < 0) {
				lb_err("--compress %s: use xz, gzip or none", optarg);
				goto usage;
			}
			break;
		case 'm':
			if (parse_epoch(optarg, &o.mtime) < 0) {
				lb_err("--mtime %s: not a 32-bit epoch", optarg);
				goto usage;
			}
			break;
		case 'f':
			if (add_spec(&files, &n_files, optarg) < 0) {
				lb_err("--file %s: want SRC or SRC:DST", optarg);
				goto usage;
			}
			break;
		case 'h':
			fputs(lb_applet_mkinitramfs.usage, stdout);
			free(files);
			return 0;
		default:
			goto usage;
		}
	}
	for (int i = optind; i < argc; i++)
		if (add_spec(&files, &n_files, argv[i]) < 0) {
			lb_err("%s: want SRC or SRC:DST", argv[i]);
			goto usage;
		}
	if (!out) {
		lb_err("missing -o OUT");
		goto usage;
	}
	if (stat(out, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			lb_err("%s: is a directory", out);
			goto out;
		}
		o.avoid.set = 1;
		o.avoid.dev = st.st_dev;
		o.avoid.ino = st.st_ino;
	}
	o.files = files;
	o.n_files = n_files;
	if ((rc = lb_initramfs_build(&o, &img, err, sizeof(err))) < 0) {
		lb_err("%s", err);
		if (rc == -EEXIST && strstr(err, "is the output file"))
			lb_err("%s: refusing to overwrite an input", out);
		goto out;
	}
	lb_cpio_writer_init(&w, lb_cpio_buf_write, &cpio);
	if ((rc = lb_initramfs_write(img, &w)) < 0) {
		lb_err("%s: cannot build the archive: %s", out, strerror(-rc));
		goto out;
	}
	if ((rc = lb_compress(comp, cpio.p, cpio.len, &z, &zlen)) < 0) {
		lb_err("%s: %s compression failed: %s", out, lb_comp_name(comp),
		       strerror(-rc));
		goto out;
	}
	if ((rc = lb_write_atomic(out, z, zlen, 0644)) < 0) {
		lb_err("%s: cannot write: %s", out, strerror(-rc));
		goto out;
	}
	fprintf(stderr, "lboot mkinitramfs: %s: %zu entries, %zu bytes cpio, %zu bytes %s\n",
		out, lb_initramfs_count(img), cpio.len, zlen, lb_comp_name(comp));
	ret = 0;
out:
	free(z);
	lb_cpio_buf_free(&cpio);
	lb_initramfs_free(img);
	free(files);
	return ret;
usage:
	lb_usage("mkinitramfs");
	free(files);
	return 2;
}
