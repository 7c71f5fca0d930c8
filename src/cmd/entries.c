/* lboot entries: scan filesystems for boot entries and print them. */
#include "lboot.h"

LB_APPLET(entries, LB_HOST|LB_TARGET,
"usage: lboot entries [--json] ROOT...\n"
"List the boot entries the bootloader configs on the given filesystems\n"
"offer (systemd-boot/BLS, UKIs, GRUB, syslinux/extlinux/isolinux), in menu\n"
"order, the default marked '*'.\n"
"  ROOT     DIR or DIR@key=val,... with keys uuid, label, name, grub\n"
"           (GRUB device, e.g. hd0,gpt2), type, partuuid\n"
"  --json   print a JSON list of objects: title id kernel initrd cmdline fs\n"
"           default source type hidden [version sort_key]\n"
"Diagnostics go to stderr. Exit 0 when entries were found, 1 when none or\n"
"on error, 2 on bad usage.\n")
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "entry.h"
#include "fs.h"
#include "scan.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp, min;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* A JSON string: quotes, backslash and control characters escaped; bytes
 * that are not valid UTF-8 become \u00XX (the byte as a code point). */
static void json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n = strlen((const char *)s);

	fputc('"', f);
	while (n) {
		size_t k = utf8_len(s, n);

		if (k == 1 && *s >= 0x20 && *s != 0x7f) {
			if (*s == '"' || *s == '\\')
				fputc('\\', f);
			fputc(*s, f);
		} else if (k == 1 && *s == '\n') {
			fputs("\\n", f);
		} else if (k == 1 && *s == '\t') {
			fputs("\\t", f);
		} else if (k == 1 && *s == '\r') {
			fputs("\\r", f);
		} else if (k > 1) {
			fwrite(s, 1, k, f);
		} else {
			fprintf(f, "\\u%04x", *s);
			k = 1;
		}
		s += k;
		n -= k;
	}
	fputc('"', f);
}

/* Table text: control characters shown as '?'. */
static void text(FILE *f, const char *s, int width)
{
	int n = 0;

	for (; s && *s; s++, n++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
	for (; n < width; n++)
		fputc(' ', f);
}

static void print_json(const struct lb_entries *l)
{
	FILE *f = stdout;

	fputs("[", f);
	for (size_t i = 0; i < l->n; i++) {
		const struct lb_entry *e = &l->v[i];

		fputs(i ? ",\n {" : "\n {", f);
		fputs("\"title\": ", f);
		json_str(f, e->title);
		fputs(", \"id\": ", f);
		json_str(f, e->id);
		fputs(", \"type\": ", f);
		json_str(f, e->type == LB_ENTRY_UKI ? "uki" : "linux");
		fputs(", \"kernel\": ", f);
		json_str(f, e->kernel);
		fputs(", \"initrd\": [", f);
		for (size_t j = 0; j < e->n_initrd; j++) {
			if (j)
				fputs(", ", f);
			json_str(f, e->initrd[j]);
		}
		fputs("], \"cmdline\": ", f);
		json_str(f, e->cmdline);
		fputs(", \"fs\": ", f);
		json_str(f, e->fs);
		fprintf(f, ", \"default\": %s, \"hidden\": %s",
			e->is_default ? "true" : "false",
			e->hidden ? "true" : "false");
		fputs(", \"source\": ", f);
		json_str(f, e->source);
		if (e->version) {
			fputs(", \"version\": ", f);
			json_str(f, e->version);
		}
		if (e->sort_key) {
			fputs(", \"sort_key\": ", f);
			json_str(f, e->sort_key);
		}
		if (e->devicetree) {
			fputs(", \"devicetree\": ", f);
			json_str(f, e->devicetree);
		}
		fputs("}", f);
	}
	fputs(l->n ? "\n]\n" : "]\n", f);
}

static void print_table(const struct lb_entries *l)
{
	printf("%3s %-1s %-44s %-20s %s\n", "#", "", "TITLE", "FS", "KERNEL");
	for (size_t i = 0; i < l->n; i++) {
		const struct lb_entry *e = &l->v[i];

		printf("%3zu %c ", i, e->is_default ? '*' : e->hidden ? 'h' : ' ');
		text(stdout, e->title, 44);
		fputc(' ', stdout);
		text(stdout, e->fs, 20);
		fputc(' ', stdout);
		text(stdout, e->kernel, 0);
		fputc('\n', stdout);
	}
	if (l->timeout >= 0)
		printf("timeout: %d s\n", l->timeout);
}

int entries_main(int argc, char **argv)
{
	struct lb_fsset set = { 0 };
	struct lb_entries l = LB_ENTRIES_INIT;
	int json = 0, i, r, rc = 1, opts = 1;

	for (i = 1; i < argc; i++) {
		struct lb_fs fs;
		struct stat st;

		if (opts && !strcmp(argv[i], "--json")) {
			json = 1;
			continue;
		}
		if (opts && !strcmp(argv[i], "--")) {
			opts = 0;
			continue;
		}
		if (opts && argv[i][0] == '-' && argv[i][1]) {
			lb_err("unknown option '%s'", argv[i]);
			lb_usage("entries");
			rc = 2;
			goto out;
		}
		r = lb_fs_parse_spec(argv[i], &fs);
		if (r) {
			lb_err("%s: %s", argv[i], r == -EINVAL ?
			       "bad ROOT (DIR or DIR@uuid=..,label=..,grub=..)" :
			       strerror(-r));
			rc = 2;
			goto out;
		}
		if (stat(fs.dir, &st) || !S_ISDIR(st.st_mode)) {
			lb_err("%s: not a directory", fs.dir);
			lb_fs_free(&fs);
			rc = 1;
			goto out;
		}
		if ((r = lb_fsset_add(&set, &fs))) {
			lb_err("%s: %s", argv[i], strerror(-r));
			lb_fs_free(&fs);
			goto out;
		}
	}
	if (!set.n) {
		lb_err("no ROOT given");
		lb_usage("entries");
		rc = 2;
		goto out;
	}
	r = lb_scan(&set, &l);
	for (size_t k = 0; k < l.n_msgs; k++)
		fprintf(stderr, "lboot entries: %s\n", l.msgs[k]);
	if (r) {
		lb_err("scan: %s", strerror(-r));
		goto out;
	}
	if (json)
		print_json(&l);
	else
		print_table(&l);
	if (!l.n)
		lb_err("no boot entries found");
	rc = l.n ? 0 : 1;
out:
	lb_entries_free(&l);
	lb_fsset_free(&set);
	return rc;
}
