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
#include "json.h"
#include "fs.h"
#include "scan.h"

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
		lb_json_str(f, e->title);
		fputs(", \"id\": ", f);
		lb_json_str(f, e->id);
		fputs(", \"type\": ", f);
		lb_json_str(f, e->type == LB_ENTRY_UKI ? "uki" : "linux");
		fputs(", \"kernel\": ", f);
		lb_json_str(f, e->kernel);
		fputs(", \"initrd\": [", f);
		for (size_t j = 0; j < e->n_initrd; j++) {
			if (j)
				fputs(", ", f);
			lb_json_str(f, e->initrd[j]);
		}
		fputs("], \"cmdline\": ", f);
		lb_json_str(f, e->cmdline);
		fputs(", \"fs\": ", f);
		lb_json_str(f, e->fs);
		fprintf(f, ", \"default\": %s, \"hidden\": %s",
			e->is_default ? "true" : "false",
			e->hidden ? "true" : "false");
		fputs(", \"source\": ", f);
		lb_json_str(f, e->source);
		if (e->version) {
			fputs(", \"version\": ", f);
			lb_json_str(f, e->version);
		}
		if (e->sort_key) {
			fputs(", \"sort_key\": ", f);
			lb_json_str(f, e->sort_key);
		}
		if (e->devicetree) {
			fputs(", \"devicetree\": ", f);
			lb_json_str(f, e->devicetree);
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
