/* lboot cbfs: read and edit coreboot ROM images (ls, layout, extract, add,
 * remove, add-payload). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbfs/cbfs.h"
#include "io.h"
#include "json.h"
#include "lboot.h"

LB_APPLET(cbfs, LB_HOST,
"usage: lboot cbfs ls [--json] [-r REGION] ROM\n"
"       lboot cbfs layout [--json] ROM\n"
"       lboot cbfs extract [-r REGION] [--raw] ROM NAME -o FILE\n"
"       lboot cbfs add [-r REGION] [-t TYPE] [-c none|lzma|lz4] ROM FILE NAME -o OUT\n"
"       lboot cbfs remove [-r REGION] ROM NAME -o OUT\n"
"       lboot cbfs add-payload [-r REGION] [-c none|lzma|lz4] [-n NAME] [-I INITRD]\n"
"                              [-C CMDLINE] [--replace] ROM BZIMAGE -o OUT\n"
"Read coreboot's file system (CBFS) in a coreboot ROM: FMAP areas, the\n"
"master header of older images, files and their attributes, payload\n"
"segments, LZMA and LZ4 data.\n"
"  ls       the files of a CBFS region (default COREBOOT), as cbfstool\n"
"           print lists them; --json: every CBFS region, with attributes\n"
"           and payload segments\n"
"  layout   the FMAP areas (offset, size, name, which hold a CBFS)\n"
"  extract  a file's data, decompressed as its compression attribute says\n"
"           (--raw: as stored); FILE is written atomically\n"
"  add      FILE as NAME into the first free space that holds it (TYPE raw\n"
"           (default), or a number; -c lzma, -c lz4: compressed, with the\n"
"           attribute coreboot reads; LZ4 as cbfstool writes it, stored if\n"
"           it does not shrink); one line with the room left if it does not fit\n"
"  remove   NAME; its space becomes free (merged with free space next to it)\n"
"  add-payload  an x86 Linux kernel (bzImage), its initrd and command line\n"
"           as coreboot's Linux payload NAME (default fallback/payload), in\n"
"           the layout cbfstool add-payload writes, with lboot's trampoline\n"
"           (coreboot's memory map -> e820 -> the kernel's 32-bit entry);\n"
"           -c lzma, -c lz4: each segment compressed unless that does not\n"
"           shrink it;\n"
"           --replace: remove an old NAME in the same edit\n"
"           edits write OUT atomically, after it is parsed again and the\n"
"           file read back; the ROM is never modified\n"
"  -r REGION  the FMAP area (COREBOOT, FW_MAIN_A, ...)\n"
"Exit: 0 ok, 1 failure (no such file, corrupt image), 2 usage.\n")

static uint8_t *g_buf;

static struct lb_cbfs *load(const char *path)
{
	struct lb_cbfs *c;
	char why[LB_CBFS_ERRLEN];
	size_t len;
	int rc = lb_read_path(path, LB_CBFS_MAX_IMAGE, &g_buf, &len);

	if (rc) {
		lb_err("%s: %s", path, rc == -EFBIG ? "larger than the 256 MiB cap" : strerror(-rc));
		return NULL;
	}
	if ((rc = lb_cbfs_parse(g_buf, len, &c, why, sizeof(why)))) {
		lb_err("%s: %s", path, why[0] ? why : strerror(-rc));
		free(g_buf);
		return NULL;
	}
	return c;
}

static const char *type_name(uint32_t t, char *tmp, size_t n)
{
	const char *s = lb_cbfs_type_name(t);

	if (s)
		return s;
	snprintf(tmp, n, "0x%x", t);
	return tmp;
}

/* the columns of cbfstool's print (cbfs_print_entry_info) */
static void ls_text(const struct lb_cbfs_area *a)
{
	printf("FMAP REGION: %s\n", a->name);
	printf("%-30s %-10s %-12s   Size   Comp\n", "Name", "Offset", "Type");
	for (size_t i = 0; i < a->n; i++) {
		const struct lb_cbfs_file *f = &a->v[i];
		uint32_t comp = f->has_comp ? f->comp : 0;
		const char *cn = lb_cbfs_comp_name(comp);
		char t[16];

		printf("%-30s 0x%-8x %-12s %8u %-4s", f->name[0] ? f->name : "(empty)", f->off,
		       type_name(f->type, t, sizeof(t)), f->len, cn ? cn : "????");
		if (comp)
			printf(" (%u decompressed)", f->dsize);
		putchar('\n');
	}
	if (a->err[0])
		fprintf(stderr, "lboot cbfs: region %s: %s\n", a->name, a->err);
}

static void json_file(const struct lb_cbfs_file *f)
{
	char t[16];
	const char *cn = lb_cbfs_comp_name(f->has_comp ? f->comp : 0);

	printf("{\"name\":");
	lb_json_str(stdout, f->name);
	printf(",\"offset\":%u,\"header_size\":%u,\"size\":%u,\"type\":%u,\"type_name\":", f->off,
	       f->hdr_len, f->len, f->type);
	lb_json_str(stdout, type_name(f->type, t, sizeof(t)));
	printf(",\"compression\":");
	lb_json_str(stdout, cn ? cn : "unknown");
	printf(",\"decompressed_size\":%u", f->dsize);
	if (f->has_pos)
		printf(",\"position\":%u", f->pos);
	if (f->has_align)
		printf(",\"alignment\":%u", f->align);
	if (f->has_hash) {
		printf(",\"hash\":{\"algorithm\":%u,\"digest\":\"", f->hash_algo);
		for (uint32_t i = 0; i < f->hash_len; i++)
			printf("%02x", f->hash[i]);
		printf("\"}");
	}
	if (f->type == LB_CBFS_TYPE_SELF || f->type == LB_CBFS_TYPE_FIT) {
		struct lb_cbfs_seg s[LB_CBFS_MAX_SEGS];
		char why[LB_CBFS_ERRLEN];
		size_t n;

		if (lb_cbfs_payload_segs(f, s, LB_CBFS_MAX_SEGS, &n, why, sizeof(why))) {
			printf(",\"segments_error\":");
			lb_json_str(stdout, why);
		} else {
			printf(",\"segments\":[");
			for (size_t i = 0; i < n; i++) {
				char ty[5] = { (char)(s[i].type >> 24), (char)(s[i].type >> 16),
					       (char)(s[i].type >> 8), (char)s[i].type, 0 };
				const char *c = lb_cbfs_comp_name(s[i].comp);

				printf("%s{\"type\":", i ? "," : "");
				lb_json_str(stdout, ty);
				printf(",\"compression\":");
				lb_json_str(stdout, c ? c : "unknown");
				printf(",\"offset\":%u,\"load\":%" PRIu64 ",\"size\":%u,\"memsize\":%u}",
				       s[i].off, s[i].load, s[i].len, s[i].memlen);
			}
			printf("]");
		}
	}
	printf("}");
}

static void json_area(const struct lb_cbfs_area *a, int files)
{
	printf("{\"name\":");
	lb_json_str(stdout, a->name);
	printf(",\"offset\":%u,\"size\":%u,\"flags\":%u,\"cbfs\":%s", a->off, a->size, a->flags,
	       a->is_cbfs ? "true" : "false");
	if (a->is_cbfs && files) {
		printf(",\"files\":[");
		for (size_t i = 0; i < a->n; i++) {
			if (i)
				putchar(',');
			json_file(&a->v[i]);
		}
		putchar(']');
		if (a->err[0]) {
			printf(",\"error\":");
			lb_json_str(stdout, a->err);
		}
	}
	putchar('}');
}

static void json_image(const struct lb_cbfs *c, const char *region, int files)
{
	printf("{\"size\":%zu,\"fmap\":", c->len);
	if (c->has_fmap) {
		printf("{\"offset\":%u,\"name\":", c->fmap_off);
		lb_json_str(stdout, c->fmap_name);
		putchar('}');
	} else {
		printf("null");
	}
	if (c->has_master)
		printf(",\"master_header\":{\"offset\":%u,\"architecture\":%u,\"alignment\":%u,"
		       "\"bootblock_size\":%u}", c->master_off, c->arch, c->align, c->bootblock);
	printf(",\"areas\":[");
	for (size_t i = 0, k = 0; i < c->n; i++) {
		if (region && strcmp(c->a[i].name, region))
			continue;
		if (k++)
			putchar(',');
		json_area(&c->a[i], files);
	}
	printf("]}\n");
}

static int extract(const struct lb_cbfs_area *a, const char *rom, const char *name,
		   const char *out, int raw)
{
	const struct lb_cbfs_file *f = lb_cbfs_find(a, name);
	char why[LB_CBFS_ERRLEN];
	uint8_t *d;
	size_t n;
	int rc;

	if (!f) {
		lb_err("%s: region %s: no file '%s'", rom, a->name, name);
		return 1;
	}
	if (lb_same_file(rom, out)) {
		lb_err("%s: is the ROM itself: refused (the input is never overwritten)", out);
		return 1;
	}
	if (raw)
		rc = lb_cbfs_decompress(0, f->data, f->len, LB_CBFS_MAX_DECOMP, &d, &n);
	else
		rc = lb_cbfs_file_data(f, LB_CBFS_MAX_DECOMP, &d, &n, why, sizeof(why));
	if (rc) {
		lb_err("%s: region %s: %s", rom, a->name, raw ? strerror(-rc) : why);
		return 1;
	}
	rc = lb_write_atomic(out, d, n, 0644);
	free(d);
	if (rc) {
		lb_err("%s: %s", out, strerror(-rc));
		return 1;
	}
	return 0;
}

/* What an edit does: remove `name`, or add `data` as `name` (after
 * removing an old `name` when replace is set). */
struct edit {
	int add, replace;
	const char *name;
	uint32_t type, comp;
	const uint8_t *data;
	size_t dlen;
};

/* the edit on a copy of the ROM; the copy is parsed (only the copy), edited,
 * parsed again and read back, then written atomically to out, never over
 * the ROM */
static int edit(const struct edit *e, const struct lb_cbfs *c, const char *region, const char *rom,
		const char *out)
{
	char why[LB_CBFS_ERRLEN];
	uint8_t *copy = NULL;
	struct lb_cbfs *c2 = NULL, *c3 = NULL;
	const struct lb_cbfs_area *a;
	int rc = 1, r = 0;

	if (lb_same_file(rom, out) || !strcmp(rom, out)) {
		lb_err("%s: is the ROM itself: refused (write the result to a new file)", out);
		return 1;
	}
	if (!(copy = malloc(c->len ? c->len : 1))) {
		lb_err("out of memory");
		return 1;
	}
	memcpy(copy, c->img, c->len);
	if ((r = lb_cbfs_parse(copy, c->len, &c2, why, sizeof(why))) ||
	    !(a = lb_cbfs_area(c2, region))) {
		lb_err("%s: %s", rom, r ? why : "no such CBFS region");
		goto out;
	}
	if (!e->add || (e->replace && lb_cbfs_find(a, e->name))) {
		if ((r = lb_cbfs_remove(copy, a, e->name, why, sizeof(why)))) {
			lb_err("%s: %s", rom, why);
			goto out;
		}
		if (e->add) { /* the space freed is where the new file may go */
			lb_cbfs_free(c2);
			c2 = NULL;
			if ((r = lb_cbfs_parse(copy, c->len, &c2, why, sizeof(why))) ||
			    !(a = lb_cbfs_area(c2, region))) {
				lb_err("%s: after removing '%s': %s", rom, e->name, r ? why : "no region");
				goto out;
			}
		}
	}
	if (e->add && (r = lb_cbfs_add(copy, a, e->name, e->type, e->comp, e->data, e->dlen, why,
				       sizeof(why)))) {
		lb_err("%s: %s", rom, why);
		goto out;
	}
	/* what is written must read back: the file there (or gone), all else as before */
	if ((r = lb_cbfs_parse(copy, c->len, &c3, why, sizeof(why))) ||
	    !(a = lb_cbfs_area(c3, region)) || !lb_cbfs_find(a, e->name) != !e->add) {
		lb_err("%s: the edited image does not read back (%s): not written", rom,
		       r ? why : "the file is not where it was put");
		goto out;
	}
	if (e->add) {
		uint8_t *back = NULL;
		size_t blen = 0;

		r = lb_cbfs_file_data(lb_cbfs_find(a, e->name), LB_CBFS_MAX_DECOMP, &back, &blen, why,
				      sizeof(why));
		if (r || blen != e->dlen || (blen && memcmp(back, e->data, blen))) {
			free(back);
			lb_err("%s: '%s' does not read back as the bytes put there: not written", rom,
			       e->name);
			goto out;
		}
		free(back);
	}
	if ((r = lb_write_atomic(out, copy, c->len, 0644))) {
		lb_err("%s: %s", out, strerror(-r));
		goto out;
	}
	rc = 0;
out:
	lb_cbfs_free(c2);
	lb_cbfs_free(c3);
	free(copy);
	return rc;
}

static int read_input(const char *path, uint8_t **d, size_t *n)
{
	int r = lb_read_path(path, LB_CBFS_MAX_IMAGE, d, n);

	if (r)
		lb_err("%s: %s", path, r == -EFBIG ? "larger than the 256 MiB cap" : strerror(-r));
	return r ? 1 : 0;
}

/* add-payload: the Linux payload built from KERNEL (+ initrd, command line) */
static int add_payload(struct edit *e, const struct lb_cbfs *c, const char *region, const char *rom,
		       const char *kernel, const char *initrd, const char *cmdline, const char *out)
{
	struct lb_cbfs_linux in = { .cmdline = cmdline, .comp = e->comp };
	uint8_t *k = NULL, *i = NULL, *pl = NULL;
	char why[LB_CBFS_ERRLEN];
	size_t plen = 0;
	int rc = 1, r;

	if (read_input(kernel, &k, &in.klen) || (initrd && read_input(initrd, &i, &in.ilen)))
		goto out;
	in.kernel = k;
	in.initrd = i;
	if ((r = lb_cbfs_linux_payload(&in, &pl, &plen, why, sizeof(why)))) {
		lb_err("%s: %s", kernel, why);
		goto out;
	}
	e->type = LB_CBFS_TYPE_SELF;
	e->comp = LB_CBFS_COMP_NONE; /* the segments are compressed, not the file */
	e->data = pl;
	e->dlen = plen;
	rc = edit(e, c, region, rom, out);
out:
	free(k);
	free(i);
	free(pl);
	return rc;
}

int cbfs_main(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL, *region = NULL, *out = NULL;
	const char *pos[3] = { 0 };
	int npos = 0, json = 0, raw = 0, rc = 1, want;
	uint32_t type = LB_CBFS_TYPE_RAW, comp = LB_CBFS_COMP_NONE;
	const char *initrd = NULL, *cmdline = NULL, *name = "fallback/payload";
	int payload = sub && !strcmp(sub, "add-payload"), replace = 0;
	int editing = sub && (!strcmp(sub, "add") || !strcmp(sub, "remove") || payload);
	struct lb_cbfs *c;

	if (!sub || (strcmp(sub, "ls") && strcmp(sub, "layout") && strcmp(sub, "extract") &&
		     !editing)) {
		if (sub)
			lb_err("unknown subcommand '%s'", sub);
		lb_usage("cbfs");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && (!strcmp(sub, "ls") || !strcmp(sub, "layout"))) {
			json = 1;
		} else if (!strcmp(argv[i], "--raw") && !strcmp(sub, "extract")) {
			raw = 1;
		} else if (!strcmp(argv[i], "-r") && strcmp(sub, "layout") && i + 1 < argc) {
			region = argv[++i];
		} else if (!strcmp(argv[i], "-o") && (!strcmp(sub, "extract") || editing) &&
			   i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "-t") && !strcmp(sub, "add") && i + 1 < argc) {
			char *end;
			const char *t = argv[++i];
			unsigned long v = strtoul(t, &end, 0);

			if (!strcmp(t, "raw")) {
				type = LB_CBFS_TYPE_RAW;
			} else if (*t && !*end && v <= 0xffffffffUL) {
				type = (uint32_t)v;
			} else {
				lb_err("-t %s: raw or a number", t);
				return 2;
			}
		} else if (!strcmp(argv[i], "-I") && payload && i + 1 < argc) {
			initrd = argv[++i];
		} else if (!strcmp(argv[i], "-C") && payload && i + 1 < argc) {
			cmdline = argv[++i];
		} else if (!strcmp(argv[i], "-n") && payload && i + 1 < argc) {
			name = argv[++i];
		} else if (!strcmp(argv[i], "--replace") && payload) {
			replace = 1;
		} else if (!strcmp(argv[i], "-c") && (!strcmp(sub, "add") || payload) && i + 1 < argc) {
			const char *t = argv[++i];

			if (!strcmp(t, "none")) {
				comp = LB_CBFS_COMP_NONE;
			} else if (!strcmp(t, "lzma")) {
				comp = LB_CBFS_COMP_LZMA;
			} else if (!strcmp(t, "lz4")) {
				comp = LB_CBFS_COMP_LZ4;
			} else {
				lb_err("-c %s: none, lzma or lz4", t);
				return 2;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			lb_err("unknown option %s", argv[i]);
			lb_usage("cbfs");
			return 2;
		} else if (npos < 3) {
			pos[npos++] = argv[i];
		} else {
			lb_usage("cbfs");
			return 2;
		}
	}
	want = !strcmp(sub, "add") ? 3 : !strcmp(sub, "extract") || !strcmp(sub, "remove") || payload ? 2 : 1;
	if (npos != want || ((!strcmp(sub, "extract") || editing) && !out)) {
		lb_usage("cbfs");
		return 2;
	}
	if (!(c = load(pos[0])))
		return 1;
	if (!strcmp(sub, "layout")) {
		if (json) {
			json_image(c, NULL, 0);
		} else {
			if (c->has_fmap)
				printf("FMAP '%s' at 0x%x\n", c->fmap_name, c->fmap_off);
			for (size_t i = 0; i < c->n; i++)
				printf("0x%08x 0x%08x %-24s%s\n", c->a[i].off, c->a[i].size, c->a[i].name,
				       c->a[i].is_cbfs ? " CBFS" : "");
		}
		rc = 0;
		goto out;
	}
	const struct lb_cbfs_area *a = lb_cbfs_area(c, region);

	if (!a || !a->is_cbfs) {
		lb_err("%s: no CBFS region '%s'", pos[0], region ? region : "COREBOOT");
		goto out;
	}
	if (payload) {
		struct edit e = { .add = 1, .replace = replace, .name = name, .comp = comp };

		rc = add_payload(&e, c, region, pos[0], pos[1], initrd, cmdline, out);
	} else if (!strcmp(sub, "add")) {
		struct edit e = { .add = 1, .name = pos[2], .type = type, .comp = comp };
		uint8_t *d = NULL;

		if (!(rc = read_input(pos[1], &d, &e.dlen))) {
			e.data = d;
			rc = edit(&e, c, region, pos[0], out);
		}
		free(d);
	} else if (editing) {
		struct edit e = { .name = pos[1] };

		rc = edit(&e, c, region, pos[0], out);
	} else if (!strcmp(sub, "ls")) {
		if (json)
			json_image(c, region, 1);
		else
			ls_text(a);
		rc = 0;
	} else {
		rc = extract(a, pos[0], pos[1], out, raw);
	}
out:
	lb_cbfs_free(c);
	free(g_buf);
	return rc;
}
