/* lboot uefi: read and edit UEFI firmware images (ls, find, extract, edit). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "json.h"
#include "lboot.h"
#include "io.h"
#include "uefi/uefi.h"

LB_APPLET(uefi, LB_HOST,
"usage: lboot uefi ls [--json] [--lenient] IMAGE\n"
"       lboot uefi find [--lenient] IMAGE GUID|NAME\n"
"       lboot uefi extract [--lenient] IMAGE [GUID|NAME] -o DIR\n"
"       lboot uefi edit IMAGE OPS... -o OUT\n"
"Read and edit UEFI firmware images (flash descriptor images, bare BIOS\n"
"images, firmware volumes): volumes, FFS files, sections, through LZMA,\n"
"EFI 1.1/Tiano compressed and nested volumes.\n"
"  ls       print the tree (kind, type, offset, size, GUID, UI name);\n"
"           --json: a tree of {kind,type,guid,name,offset,size,children}\n"
"  find     print offset, kind, GUID, name and path of each match; exit 1 if none\n"
"  extract  with a selector: the first matching file as FILE.ffs plus the\n"
"           body of each of its sections; without: the whole tree as directories\n"
"  edit     apply OPS in order and write OUT (IMAGE is never modified):\n"
"    --remove GUID|NAME          remove every file matching\n"
"    --keep KEEPFILE             remove every DXE driver/application of the DXE\n"
"                                volume not listed (one GUID or UI name per line,\n"
"                                '#' comments) (utk remove_dxes_except)\n"
"    --insert FILE.ffs           insert an FFS file\n"
"    --insert-pe FILE.efi --name NAME --guid GUID [--type TYPE] [--depex TRUE|FILE]\n"
"                                build an FFS file (PE32 + UI (+ depex)) and insert it;\n"
"                                TYPE: driver (default), application, peim, dxe_core,\n"
"                                combined, mm, freeform, raw or a number\n"
"    --into GUID|NAME            volume for the preceding insert (FvName GUID, or a\n"
"                                file holding the volume); default: the DXE volume\n"
"    --replace GUID|NAME=FILE.efi  replace the PE32/TE body of a file\n"
"    --allow-xip-move            let SEC/PEI core/PEIM files move (they are linked\n"
"                                at their address: refused by default)\n"
"  --lenient   accept bad checksums (ls, find, extract)\n"
"Exit: 0 ok, 1 failure (or no match), 2 usage.\n")


#include "uefi/uefi.h"

static struct lb_uefi_image *load(const char *path, unsigned flags)
{
	struct lb_uefi_image *img = NULL;
	char why[LB_UEFI_ERRLEN];
	uint8_t *buf;
	size_t len;
	int rc = lb_read_path(path, LB_UEFI_MAX_IMAGE, &buf, &len);

	if (rc) {
		lb_err("%s: %s", path, rc == -EFBIG ? "larger than the 256 MiB cap" : strerror(-rc));
		return NULL;
	}
	rc = lb_uefi_parse(buf, len, flags, &img, why, sizeof(why));
	free(buf);
	if (rc) {
		lb_err("%s: %s", path, why[0] ? why : strerror(-rc));
		return NULL;
	}
	return img;
}

/* ---- ls ----------------------------------------------------------------------------- */

static const char *comp_name(enum lb_uefi_comp c)
{
	static const char *const n[] = { "", "none", "efi11", "tiano", "lzma", "lzma-f86", "crc32", "plain" };

	return (unsigned)c < sizeof(n) / sizeof(n[0]) ? n[c] : "";
}

static void ls_json(FILE *f, const struct lb_uefi_node *n, int depth)
{
	char g[37];

	fprintf(f, "%*s{\"kind\": \"%s\", \"type\": ", depth * 2, "", lb_uefi_kind_name(n->kind));
	lb_json_str(f, lb_uefi_type_name(n));
	if (n->has_guid) {
		lb_guid_str(n->guid, g);
		fprintf(f, ", \"guid\": \"%s\"", g);
	} else {
		fputs(", \"guid\": null", f);
	}
	fputs(", \"name\": ", f);
	if (n->name)
		lb_json_str(f, n->name);
	else
		fputs("null", f);
	if (n->offset == LB_UEFI_NO_OFFSET)
		fputs(", \"offset\": null", f);
	else
		fprintf(f, ", \"offset\": %llu", (unsigned long long)n->offset);
	fprintf(f, ", \"size\": %llu", (unsigned long long)n->size);
	if (n->kind == LB_UEFI_VOLUME) {
		lb_guid_str(n->fs_guid, g);
		fprintf(f, ", \"fs\": \"%s\"", g);
	}
	if (n->comp != LB_COMP_NONE)
		fprintf(f, ", \"compression\": \"%s\"", comp_name(n->comp));
	fputs(", \"children\": [", f);
	for (size_t i = 0; i < n->n_child; i++) {
		fputs(i ? ",\n" : "\n", f);
		ls_json(f, n->child[i], depth + 1);
	}
	fprintf(f, "%s]}", n->n_child ? "\n" : "");
	if (n->n_child)
		fprintf(f, "%*s", 0, "");
}

static void ls_text(FILE *f, const struct lb_uefi_node *n, int depth)
{
	char g[37] = "-", off[24] = "-";

	if (n->has_guid)
		lb_guid_str(n->guid, g);
	if (n->offset != LB_UEFI_NO_OFFSET)
		snprintf(off, sizeof(off), "0x%08llx", (unsigned long long)n->offset);
	fprintf(f, "%*s%-7s %-21s %10s 0x%08llx %s%s%s%s%s\n", depth * 2, "", lb_uefi_kind_name(n->kind),
		lb_uefi_type_name(n), off, (unsigned long long)n->size, g,
		n->name ? " " : "", n->name ? n->name : "",
		n->comp > LB_COMP_STORED && n->comp != LB_COMP_PLAIN ? " compression=" : "",
		n->comp > LB_COMP_STORED && n->comp != LB_COMP_PLAIN ? comp_name(n->comp) : "");
	for (size_t i = 0; i < n->n_child; i++)
		ls_text(f, n->child[i], depth + 1);
}

/* ---- find ------------------------------------------------------------------------ */

static void path_of(const struct lb_uefi_node *n, char *buf, size_t len)
{
	const struct lb_uefi_node *chain[LB_UEFI_MAX_DEPTH + 8];
	size_t k = 0, o = 0;
	char g[37];

	for (; n && k < sizeof(chain) / sizeof(chain[0]); n = n->parent)
		chain[k++] = n;
	buf[0] = 0;
	while (k-- > 0 && o < len) {
		const struct lb_uefi_node *c = chain[k];
		if (c->kind == LB_UEFI_IMAGE)
			continue;
		if (c->has_guid && c->kind != LB_UEFI_SECTION)
			lb_guid_str(c->guid, g);
		else
			snprintf(g, sizeof(g), "%s", lb_uefi_type_name(c));
		o += (size_t)snprintf(buf + o, len - o, "/%s:%s", lb_uefi_kind_name(c->kind), g);
	}
}

static void print_match(const struct lb_uefi_node *n)
{
	char g[37] = "-", path[2048];

	if (n->has_guid)
		lb_guid_str(n->guid, g);
	path_of(n, path, sizeof(path));
	if (n->offset != LB_UEFI_NO_OFFSET)
		printf("0x%08llx", (unsigned long long)n->offset);
	else
		printf("%-10s", "-");
	printf(" %s %s %s %s %s\n", lb_uefi_kind_name(n->kind), lb_uefi_type_name(n), g,
	       n->name ? n->name : "-", path);
}

/* ---- extract --------------------------------------------------------------------------- */

static void sanitize(char *s)
{
	for (; *s; s++)
		if (*s == '/' || (unsigned char)*s < 0x20 || *s == '\\' || *s == 0x7F)
			*s = '_';
}

static int dump(struct lb_uefi_image *img, struct lb_uefi_node *n, int body, const char *path)
{
	uint8_t *b;
	size_t l;
	int rc = lb_uefi_node_bytes(img, n, body, &b, &l);

	if (rc) {
		lb_err("%s: %s", path, img->err[0] ? img->err : strerror(-rc));
		return rc;
	}
	rc = lb_write_atomic(path, b, l, 0644);
	free(b);
	if (rc)
		lb_err("%s: %s", path, strerror(-rc));
	return rc;
}

static const char *sec_ext(const struct lb_uefi_node *s)
{
	switch (s->type) {
	case 0x10: return "efi";
	case 0x12: return "te";
	case 0x13: case 0x1B: case 0x1C: return "depex";
	case 0x15: case 0x14: return "txt";
	default: return "bin";
	}
}

static int extract_sections(struct lb_uefi_image *img, struct lb_uefi_node *n, const char *dir,
			    const char *stem, int *idx)
{
	char path[PATH_MAX];
	int rc;

	for (size_t i = 0; i < n->n_child; i++) {
		struct lb_uefi_node *c = n->child[i];
		if (c->kind != LB_UEFI_SECTION)
			continue;
		if (c->n_child && c->type != LB_SECTION_FIRMWARE_VOLUME_IMAGE) {
			if ((rc = extract_sections(img, c, dir, stem, idx)))
				return rc;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s.%d.%s.%s", dir, stem, (*idx)++,
			 lb_uefi_type_name(c), sec_ext(c));
		if ((rc = dump(img, c, 1, path)))
			return rc;
		printf("%s\n", path);
	}
	return 0;
}

static int extract_tree(struct lb_uefi_image *img, struct lb_uefi_node *n, const char *dir)
{
	char path[PATH_MAX], g[37];
	int rc;

	for (size_t i = 0; i < n->n_child; i++) {
		struct lb_uefi_node *c = n->child[i];
		char name[200];
		if (c->has_guid)
			lb_guid_str(c->guid, g);
		else
			snprintf(g, sizeof(g), "%s", lb_uefi_type_name(c));
		snprintf(name, sizeof(name), "%03zu_%s_%s%s%s", i, lb_uefi_kind_name(c->kind), g,
			 c->name ? "_" : "", c->name ? c->name : "");
		sanitize(name);
		if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		if (mkdir(path, 0755) && errno != EEXIST) {
			lb_err("%s: %s", path, strerror(errno));
			return -errno;
		}
		char f[PATH_MAX + 16];
		const char *what = NULL;
		int body = 0;
		if (c->kind == LB_UEFI_FILE)
			what = "file.ffs";
		else if (c->kind == LB_UEFI_VOLUME && c->n_child)
			what = NULL;
		else if (c->kind == LB_UEFI_SECTION && !c->n_child)
			what = "body.bin", body = 1;
		else if (!c->n_child)
			what = "raw.bin";
		if (c->kind == LB_UEFI_VOLUME) {
			uint8_t *b;
			size_t l;
			if (!lb_uefi_node_bytes(img, c, 0, &b, &l)) {
				snprintf(f, sizeof(f), "%s/header.bin", path);
				rc = lb_write_atomic(f, b, l < c->hdr_len ? l : c->hdr_len, 0644);
				free(b);
				if (rc)
					return rc;
			}
		}
		if (what) {
			snprintf(f, sizeof(f), "%s/%s", path, what);
			if ((rc = dump(img, c, body, f)))
				return rc;
		}
		if ((rc = extract_tree(img, c, path)))
			return rc;
	}
	return 0;
}

/* ---- edit -------------------------------------------------------------------------------- */

enum op_kind { OP_REMOVE, OP_KEEP, OP_INSERT, OP_INSERT_PE, OP_REPLACE };

struct op {
	enum op_kind k;
	const char *arg;   /* selector / file */
	const char *into;
	const char *name, *guid, *type, *depex;
};

static int parse_type(const char *s)
{
	static const struct { const char *n; int t; } tab[] = {
		{ "driver", 7 }, { "application", 9 }, { "app", 9 }, { "peim", 6 },
		{ "dxe_core", 5 }, { "pei_core", 4 }, { "combined", 8 }, { "mm", 10 },
		{ "freeform", 2 }, { "raw", 1 }, { "security_core", 3 }, { "mm_standalone", 14 },
		{ "combined_mm_dxe", 12 }, { "mm_core", 13 },
	};
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcasecmp(s, tab[i].n))
			return tab[i].t;
	v = strtol(s, &end, 0);
	if (*s && !*end && v > 0 && v < 0xF0)
		return (int)v;
	return -1;
}

static int read_keep(const char *path, char ***list, size_t *n)
{
	uint8_t *b;
	size_t len, cnt = 0;
	char **v = NULL, *s, *save = NULL;
	int rc = lb_read_path(path, 1u << 20, &b, &len);

	if (rc)
		return rc;
	s = realloc(b, len + 1);
	if (!s) {
		free(b);
		return -ENOMEM;
	}
	s[len] = 0;
	for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *h = strchr(line, '#'), *e;
		if (h)
			*h = 0;
		while (*line == ' ' || *line == '\t' || *line == '\r')
			line++;
		e = line + strlen(line);
		while (e > line && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			*--e = 0;
		if (!*line)
			continue;
		char **nv = realloc(v, (cnt + 1) * sizeof(*v));
		if (!nv || !(nv[cnt] = strdup(line))) {
			v = nv ? nv : v;
			for (size_t i = 0; i < cnt; i++)
				free(v[i]);
			free(v);
			free(s);
			return -ENOMEM;
		}
		v = nv;
		cnt++;
	}
	free(s);
	*list = v;
	*n = cnt;
	return 0;
}

static const char *fname(const struct lb_uefi_node *f, char g[37])
{
	lb_guid_str(f->guid, g);
	return f->name ? f->name : "";
}

static int apply(struct lb_uefi_image *img, struct op *o)
{
	char g[37], vg[37];
	uint8_t *buf = NULL;
	size_t len;
	int rc = 0;

	switch (o->k) {
	case OP_REMOVE: {
		struct lb_uefi_node *m[256];
		size_t n = lb_uefi_find(img, o->arg, 1u << LB_UEFI_FILE, m, 256);
		if (!n) {
			lb_err("--remove %s: no such file", o->arg);
			return -ENOENT;
		}
		if (n > 256)
			n = 256;
		for (size_t i = 0; i < n; i++) {
			const char *nm = fname(m[i], g);
			char gg[37];
			snprintf(gg, sizeof(gg), "%s", g);
			char nmc[128];
			snprintf(nmc, sizeof(nmc), "%s", nm);
			if ((rc = lb_uefi_remove(img, m[i]))) {
				lb_err("--remove %s: %s", o->arg, img->err[0] ? img->err : strerror(-rc));
				return rc;
			}
			printf("removed %s %s\n", gg, nmc);
		}
		return 0;
	}
	case OP_KEEP: {
		char **list = NULL;
		size_t n = 0, removed = 0;
		if ((rc = read_keep(o->arg, &list, &n))) {
			lb_err("--keep %s: %s", o->arg, strerror(-rc));
			return rc;
		}
		rc = lb_uefi_keep_only(img, (const char *const *)list, n, &removed);
		for (size_t i = 0; i < n; i++)
			free(list[i]);
		free(list);
		if (rc) {
			lb_err("--keep %s: %s", o->arg, img->err[0] ? img->err : strerror(-rc));
			return rc;
		}
		printf("kept the %zu listed DXE files, removed %zu others\n", n, removed);
		return 0;
	}
	case OP_INSERT:
	case OP_INSERT_PE: {
		struct lb_uefi_node *v = o->into ? lb_uefi_find_volume(img, o->into) : lb_uefi_dxe_volume(img);
		struct lb_uefi_node *f = NULL;
		const char *what = o->k == OP_INSERT ? "--insert" : "--insert-pe";
		if (!v) {
			lb_err("%s %s: %s", what, o->arg,
			       o->into ? "no such volume (--into)" : "no volume holds a DXE core");
			return -ENOENT;
		}
		if ((rc = lb_read_path(o->arg, 64u << 20, &buf, &len))) {
			lb_err("%s %s: %s", what, o->arg, strerror(-rc));
			return rc;
		}
		if (o->k == OP_INSERT_PE) {
			struct lb_uefi_ffs_spec sp = { 0 };
			uint8_t *dep = NULL, *ffs = NULL;
			size_t dlen = 0, flen;
			int t = parse_type(o->type ? o->type : "driver");
			if (!o->name || !o->guid || lb_guid_parse(o->guid, sp.guid) || t < 0) {
				lb_err("--insert-pe %s: needs --name and a valid --guid (and --type)", o->arg);
				free(buf);
				return -EINVAL;
			}
			if (o->depex && strcasecmp(o->depex, "TRUE")) {
				if ((rc = lb_read_path(o->depex, 1u << 20, &dep, &dlen))) {
					lb_err("--depex %s: %s", o->depex, strerror(-rc));
					free(buf);
					return rc;
				}
				sp.depex = dep;
				sp.depex_len = dlen;
			} else if (o->depex) {
				sp.depex = lb_uefi_depex_true;
				sp.depex_len = sizeof(lb_uefi_depex_true);
			}
			sp.type = (uint8_t)t;
			sp.name = o->name;
			if (t == 1 || t == 2) {
				sp.raw = buf;
				sp.raw_len = len;
				if (t == 1)
					sp.name = NULL;
			} else {
				sp.pe32 = buf;
				sp.pe32_len = len;
			}
			rc = lb_uefi_ffs_build(&sp, &ffs, &flen);
			free(dep);
			if (rc) {
				lb_err("--insert-pe %s: cannot build the FFS file: %s", o->arg, strerror(-rc));
				free(buf);
				return rc;
			}
			free(buf);
			buf = ffs;
			len = flen;
		}
		rc = lb_uefi_insert(img, v, buf, len, &f);
		free(buf);
		if (rc) {
			lb_err("%s %s: %s", what, o->arg, img->err[0] ? img->err : strerror(-rc));
			return rc;
		}
		lb_guid_str(v->guid, vg);
		{
			const char *nm = fname(f, g);
			printf("inserted %s %s into volume %s\n", g, nm, vg);
		}
		return 0;
	}
	case OP_REPLACE: {
		char sel[256];
		const char *eq = strrchr(o->arg, '=');
		struct lb_uefi_node *f;
		if (!eq || eq == o->arg || (size_t)(eq - o->arg) >= sizeof(sel)) {
			lb_err("--replace %s: expected GUID|NAME=FILE.efi", o->arg);
			return -EINVAL;
		}
		memcpy(sel, o->arg, (size_t)(eq - o->arg));
		sel[eq - o->arg] = 0;
		if (!(f = lb_uefi_find_file(img, sel))) {
			lb_err("--replace %s: no such file", sel);
			return -ENOENT;
		}
		if ((rc = lb_read_path(eq + 1, 64u << 20, &buf, &len))) {
			lb_err("--replace %s: %s", eq + 1, strerror(-rc));
			return rc;
		}
		rc = lb_uefi_replace_pe32(img, f, buf, len);
		free(buf);
		if (rc) {
			lb_err("--replace %s: %s", sel, img->err[0] ? img->err : strerror(-rc));
			return rc;
		}
		printf("replaced the PE32 of %s %s with %s (%zu bytes)\n", (lb_guid_str(f->guid, g), g),
		       f->name ? f->name : "", eq + 1, len);
		return 0;
	}
	}
	return -EINVAL;
}

static int cmd_edit(int argc, char **argv)
{
	struct op *ops = calloc((size_t)argc + 1, sizeof(*ops));
	size_t nops = 0;
	const char *image = NULL, *out = NULL;
	struct lb_uefi_image *img = NULL;
	uint8_t *res = NULL;
	size_t rlen;
	int rc = 2, xip = 0;

	if (!ops) {
		lb_err("out of memory");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		struct op *last = nops ? &ops[nops - 1] : NULL;
		int needs = a[0] == '-' && a[1];
		if (!strcmp(a, "--allow-xip-move")) {
			xip = 1;
			continue;
		}
		if (needs && !v) {
			lb_err("%s needs an argument", a);
			goto usage;
		}
		if (!strcmp(a, "-o")) {
			out = v;
		} else if (!strcmp(a, "--remove")) {
			ops[nops++] = (struct op){ .k = OP_REMOVE, .arg = v };
		} else if (!strcmp(a, "--keep")) {
			ops[nops++] = (struct op){ .k = OP_KEEP, .arg = v };
		} else if (!strcmp(a, "--insert")) {
			ops[nops++] = (struct op){ .k = OP_INSERT, .arg = v };
		} else if (!strcmp(a, "--insert-pe")) {
			ops[nops++] = (struct op){ .k = OP_INSERT_PE, .arg = v };
		} else if (!strcmp(a, "--replace")) {
			ops[nops++] = (struct op){ .k = OP_REPLACE, .arg = v };
		} else if (!strcmp(a, "--into")) {
			if (!last || (last->k != OP_INSERT && last->k != OP_INSERT_PE)) {
				lb_err("--into must follow --insert or --insert-pe");
				goto usage;
			}
			last->into = v;
		} else if (!strcmp(a, "--name") || !strcmp(a, "--guid") || !strcmp(a, "--type") ||
			   !strcmp(a, "--depex")) {
			if (!last || last->k != OP_INSERT_PE) {
				lb_err("%s must follow --insert-pe", a);
				goto usage;
			}
			if (a[2] == 'n')
				last->name = v;
			else if (a[2] == 'g')
				last->guid = v;
			else if (a[2] == 't')
				last->type = v;
			else
				last->depex = v;
		} else if (a[0] == '-' && a[1]) {
			lb_err("unknown option %s", a);
			goto usage;
		} else if (!image) {
			image = a;
			continue;
		} else {
			lb_err("unexpected argument %s", a);
			goto usage;
		}
		i++;
	}
	if (!image || !out) {
		lb_err("edit needs IMAGE and -o OUT");
		goto usage;
	}
	if (!strcmp(image, out) || lb_same_file(image, out)) {
		lb_err("%s: refusing to overwrite the input image", out);
		goto usage;
	}
	rc = 1;
	if (!(img = load(image, xip ? LB_UEFI_MOVE_XIP : 0)))
		goto done;
	for (size_t i = 0; i < nops; i++)
		if (apply(img, &ops[i]))
			goto done;
	{
		int r = lb_uefi_serialize(img, &res, &rlen);
		if (r) {
			lb_err("%s: %s", out, img->err[0] ? img->err : strerror(-r));
			goto done;
		}
	}
	{
		int r = lb_write_atomic(out, res, rlen, 0644);
		if (r) {
			lb_err("%s: %s", out, strerror(-r));
			goto done;
		}
	}
	printf("wrote %s (%zu bytes)\n", out, rlen);
	rc = 0;
done:
	free(res);
	lb_uefi_free(img);
	free(ops);
	return rc;
usage:
	free(ops);
	lb_usage("uefi");
	return 2;
}

int uefi_main(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	const char *pos[3] = { 0 }, *out = NULL;
	int npos = 0, json = 0, rc = 1;
	unsigned flags = 0;
	struct lb_uefi_image *img;

	if (!sub) {
		lb_usage("uefi");
		return 2;
	}
	if (!strcmp(sub, "edit"))
		return cmd_edit(argc - 1, argv + 1);
	if (strcmp(sub, "ls") && strcmp(sub, "find") && strcmp(sub, "extract")) {
		lb_err("unknown subcommand '%s'", sub);
		lb_usage("uefi");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && !strcmp(sub, "ls")) {
			json = 1;
		} else if (!strcmp(argv[i], "--lenient")) {
			flags |= LB_UEFI_LENIENT;
		} else if (!strcmp(argv[i], "-o") && !strcmp(sub, "extract") && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			lb_err("unknown option %s", argv[i]);
			lb_usage("uefi");
			return 2;
		} else if (npos < 3) {
			pos[npos++] = argv[i];
		} else {
			lb_usage("uefi");
			return 2;
		}
	}
	if ((!strcmp(sub, "ls") && npos != 1) || (!strcmp(sub, "find") && npos != 2) ||
	    (!strcmp(sub, "extract") && (npos < 1 || npos > 2 || !out))) {
		lb_usage("uefi");
		return 2;
	}
	if (!(img = load(pos[0], flags)))
		return 1;
	if (!strcmp(sub, "ls")) {
		if (json) {
			ls_json(stdout, img->root, 0);
			fputc('\n', stdout);
		} else {
			ls_text(stdout, img->root, 0);
		}
		rc = 0;
	} else if (!strcmp(sub, "find")) {
		struct lb_uefi_node *m[4096];
		size_t n = lb_uefi_find(img, pos[1], 0, m, 4096);
		for (size_t i = 0; i < n && i < 4096; i++)
			print_match(m[i]);
		rc = n ? 0 : 1;
		if (!n)
			lb_err("%s: no match for %s", pos[0], pos[1]);
	} else {
		if (mkdir(out, 0755) && errno != EEXIST) {
			lb_err("%s: %s", out, strerror(errno));
			lb_uefi_free(img);
			return 1;
		}
		if (npos == 2) {
			struct lb_uefi_node *f = lb_uefi_find_file(img, pos[1]);
			char stem[128], path[PATH_MAX], g[37];
			int idx = 0;
			if (!f) {
				lb_err("%s: no file matches %s", pos[0], pos[1]);
				lb_uefi_free(img);
				return 1;
			}
			lb_guid_str(f->guid, g);
			snprintf(stem, sizeof(stem), "%s%s%s", g, f->name ? "_" : "", f->name ? f->name : "");
			sanitize(stem);
			snprintf(path, sizeof(path), "%s/%s.ffs", out, stem);
			rc = dump(img, f, 0, path);
			if (!rc) {
				printf("%s\n", path);
				rc = extract_sections(img, f, out, stem, &idx);
			}
		} else {
			rc = extract_tree(img, img->root, out);
		}
		rc = rc ? 1 : 0;
	}
	lb_uefi_free(img);
	return rc;
}
