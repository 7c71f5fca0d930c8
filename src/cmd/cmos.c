/* lboot cmos: coreboot's CMOS options by name, as nvramtool (cmos.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmos.h"
#include "coreboot.h"
#include "json.h"
#include "lboot.h"
#include "io.h"
#ifndef LB_TARGET_BUILD
#include "cbfs/cbfs.h"
#endif

LB_APPLET(cmos, LB_HOST|LB_TARGET,
"usage: lboot cmos [--rom ROM | --layout BIN] [--file DUMP] [--json] [list]\n"
"       lboot cmos [--rom ROM | --layout BIN] [--file DUMP] get NAME\n"
"       lboot cmos [--rom ROM | --layout BIN] [--file DUMP] set NAME=VALUE...\n"
"coreboot's options in CMOS, by the names of its option table (the\n"
"board's cmos.layout), as nvramtool reads and writes them; lboot keeps\n"
"its boot state there under coreboot (lboot_oneshot, lboot_default,\n"
"lboot_last, lboot_timefloor: docs/coreboot.md).\n"
"  list     every option (not reserved ones): NAME = VALUE, as nvramtool -a;\n"
"           --json: with bits, type, and whether the checksum holds\n"
"  get      one value, as nvramtool -n -r\n"
"  set      NAME=VALUE (an enum's text, a number, a string); the checksum\n"
"           is set, then the bytes that changed are written and read back\n"
"  The layout is the running coreboot's (its table, through /dev/mem), or\n"
"  --rom ROM's cmos_layout.bin (host only), or --layout BIN (such a file,\n"
"  as nvramtool -L writes it); the CMOS is the hardware\n"
"  (/dev/port), or --file DUMP (a dump as nvramtool -b writes, replaced\n"
"  atomically by set), or with --rom and no --file the ROM's cmos.default\n"
"  (read only).\n"
"Exit: 0 ok, 1 failure (no such option, bad value, no coreboot), 2 usage.\n")

static struct lb_cmos g_c;

static int usage(void)
{
	lb_usage("cmos");
	return 2;
}

#ifndef LB_TARGET_BUILD
/* the layout (and cmos.default, when no dump is given) from a ROM's CBFS */
static int from_rom(const char *rom, int want_default)
{
	uint8_t *img, *d = NULL;
	size_t len, dl;
	struct lb_cbfs *cb;
	const struct lb_cbfs_area *a;
	const struct lb_cbfs_file *f;
	char why[256] = "";
	int rc = lb_read_path(rom, 256u << 20, &img, &len);

	if (rc) {
		lb_err("%s: %s", rom, strerror(-rc));
		return 1;
	}
	if ((rc = lb_cbfs_parse(img, len, &cb, why, sizeof(why)))) {
		lb_err("%s: %s", rom, why[0] ? why : strerror(-rc));
		free(img);
		return 1;
	}
	rc = 1;
	if (!(a = lb_cbfs_area(cb, NULL)) || !(f = lb_cbfs_find(a, "cmos_layout.bin"))) {
		lb_err("%s: no cmos_layout.bin (coreboot built without CONFIG_USE_OPTION_TABLE)", rom);
	} else if (lb_cbfs_file_data(f, 1u << 20, &d, &dl, why, sizeof(why))) {
		lb_err("%s: cmos_layout.bin: %s", rom, why);
	} else if (lb_cmos_layout_parse(d, dl, &g_c.lay, why, sizeof(why))) {
		lb_err("%s: cmos_layout.bin: %s", rom, why);
	} else {
		rc = 0;
	}
	free(d);
	d = NULL;
	if (!rc && want_default) {
		if (!(f = lb_cbfs_find(a, "cmos.default"))) {
			lb_err("%s: no cmos.default: give --file DUMP", rom);
			rc = 1;
		} else if (lb_cbfs_file_data(f, LB_CMOS_SIZE, &d, &dl, why, sizeof(why))) {
			lb_err("%s: cmos.default: %s", rom, why);
			rc = 1;
		} else {
			memcpy(g_c.img, d, dl);
			memcpy(g_c.was, d, dl);
		}
		free(d);
	}
	lb_cbfs_free(cb);
	free(img);
	return rc;
}
#endif

/* the value as nvramtool prints it: 0, or 1 when it is not a valid value
 * (an enum value without a text, a string with an unprintable byte) */
static int value(const struct lb_cmos_entry *e, char *out, size_t n)
{
	uint64_t v;
	const char *t;

	if (e->config == 's') {
		char s[LB_CMOS_SIZE + 1];

		lb_cmos_get_str(g_c.img, e, s);
		snprintf(out, n, "%s", s);
		for (const char *p = s; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
				return 1;
		return 0;
	}
	v = lb_cmos_get(g_c.img, e);
	if (e->config == 'e' && (t = lb_cmos_enum_text(&g_c.lay, e, v))) {
		snprintf(out, n, "%s", t);
		return 0;
	}
	snprintf(out, n, "0x%" PRIx64, v);
	return e->config == 'e';
}

/* one option as nvramtool -a (name) or -n -r (no name) shows it */
static void show(const struct lb_cmos_entry *e, int name)
{
	char val[LB_CMOS_SIZE + 1];
	int bad = value(e, val, sizeof(val));

	if (!bad)
		printf(name ? "%s = %s\n" : "%s%s\n", name ? e->name : "", val);
	else if (e->config == 's')
		printf(name ? "# Bad value -> %s\n" : "Bad value\n", name ? e->name : "");
	else if (name)
		printf("# Bad value -> %s = %s\n", e->name, val);
	else
		printf("Bad value -> %s\n", val);
}

/* listed: not reserved, not the checksum (as nvramtool -a) */
static int shown(const struct lb_cmos_entry *e)
{
	return e->config != 'r' && !(g_c.lay.has_cks && e->bit / 8 == g_c.lay.cks_loc);
}

static int set_one(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[LB_CMOS_NAME_MAX + 1];
	const struct lb_cmos_entry *e;
	const char *v;

	if (!eq || eq == arg || (size_t)(eq - arg) > LB_CMOS_NAME_MAX) {
		lb_err("set %s: not NAME=VALUE", arg);
		return 2;
	}
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = 0;
	v = eq + 1;
	if (!(e = lb_cmos_find(&g_c.lay, name)) || e->config == 'r') {
		lb_err("set %s: no such option", name);
		return 1;
	}
	if (e->config == 's') {
		for (const char *p = v; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				lb_err("set %s: a control character in the value", name);
				return 1;
			}
		if (lb_cmos_set_str(g_c.img, e, v)) {
			lb_err("set %s: '%s' is longer than its %u bytes", name, v, e->length / 8);
			return 1;
		}
		return 0;
	}
	if (e->config == 'e') {
		for (size_t i = 0; i < g_c.lay.n_enum; i++)
			if (g_c.lay.en[i].config_id == e->config_id && !strcmp(g_c.lay.en[i].text, v))
				return lb_cmos_set(g_c.img, e, g_c.lay.en[i].value) ? 1 : 0;
		lb_err("set %s: '%s' is not one of its values", name, v);
		return 1;
	}
	{
		char *end;
		unsigned long long u;

		errno = 0;
		u = strtoull(v, &end, 0);
		if (!*v || *end || errno || *v == '-' || lb_cmos_set(g_c.img, e, u)) {
			lb_err("set %s: '%s' is not a number of at most %u bits", name, v, e->length);
			return 1;
		}
	}
	return 0;
}

int cmos_main(int argc, char **argv)
{
	const char *rom = NULL, *file = NULL, *layout = NULL, *cmd = "list";
	char why[256] = "", val[LB_CMOS_SIZE + 1];
	int json = 0, i, rc;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--rom") && i + 1 < argc)
			rom = argv[++i];
		else if (!strcmp(argv[i], "--layout") && i + 1 < argc)
			layout = argv[++i];
		else if (!strcmp(argv[i], "--file") && i + 1 < argc)
			file = argv[++i];
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else
			return usage();
	}
	if (i < argc)
		cmd = argv[i++];
	if ((!strcmp(cmd, "list") && i != argc) || (!strcmp(cmd, "get") && i + 1 != argc) ||
	    (!strcmp(cmd, "set") && i == argc) ||
	    (strcmp(cmd, "list") && strcmp(cmd, "get") && strcmp(cmd, "set")))
		return usage();
	g_c.path = file;
	if (rom && layout)
		return usage();
	if (layout) {
		uint8_t *b;
		size_t bl;

		if ((rc = lb_read_path(layout, 1u << 20, &b, &bl))) {
			lb_err("%s: %s", layout, strerror(-rc));
			return 1;
		}
		rc = lb_cmos_layout_parse(b, bl, &g_c.lay, why, sizeof(why));
		free(b);
		if (rc) {
			lb_err("%s: %s", layout, why);
			return 1;
		}
		if ((rc = lb_cmos_load(&g_c, why, sizeof(why)))) { /* DUMP, or the hardware */
			lb_err("%s", why);
			return 1;
		}
	} else if (rom) {
#ifdef LB_TARGET_BUILD
		lb_err("--rom: reading a ROM's CBFS is in the host tool only");
		return 2;
#else
		if (from_rom(rom, !file))
			return 1;
		if (!file && !strcmp(cmd, "set")) {
			lb_err("set: the ROM's cmos.default is read only: give --file DUMP");
			return 1;
		}
		if (file && (rc = lb_cmos_load(&g_c, why, sizeof(why)))) {
			lb_err("%s", why);
			return 1;
		}
#endif
	} else if ((rc = lb_cmos_open(&g_c, lb_cb_read_mem, NULL, why, sizeof(why)))) {
		lb_err("%s", why);
		return 1;
	} else if (file && (g_c.path = file, rc = lb_cmos_load(&g_c, why, sizeof(why)))) {
		lb_err("%s", why);
		return 1;
	}
	if (!strcmp(cmd, "get")) {
		const struct lb_cmos_entry *e = lb_cmos_find(&g_c.lay, argv[i]);

		if (!e || e->config == 'r') {
			lb_err("get %s: no such option", argv[i]);
			return 1;
		}
		if (e->config != 's' && e->length > 64) {
			lb_err("get %s: %u bits: a number wider than 64 bits is not read", argv[i], e->length);
			return 1;
		}
		show(e, 0);
		return 0;
	}
	if (!strcmp(cmd, "set")) {
		for (; i < argc; i++)
			if ((rc = set_one(argv[i])))
				return rc;
		if ((rc = lb_cmos_commit(&g_c, why, sizeof(why)))) {
			lb_err("%s", why);
			return 1;
		}
		return 0;
	}
	if (json) {
		int first = 1, bad;

		printf("{\"checksum_ok\":%s,\"options\":[", lb_cmos_cks_ok(&g_c.lay, g_c.img) ? "true" : "false");
		for (size_t k = 0; k < g_c.lay.n; k++) {
			const struct lb_cmos_entry *e = &g_c.lay.e[k];

			if (!shown(e) || (e->config != 's' && e->length > 64))
				continue;
			bad = value(e, val, sizeof(val));
			printf("%s{\"name\":", first ? "" : ",");
			lb_json_str(stdout, e->name);
			printf(",\"bit\":%u,\"length\":%u,\"type\":\"%c\",\"value\":", e->bit, e->length,
			       e->config);
			if (bad && e->config == 's')
				printf("null");
			else
				lb_json_str(stdout, val);
			printf(",\"valid\":%s}", bad ? "false" : "true");
			first = 0;
		}
		printf("]}\n");
		return 0;
	}
	for (size_t k = 0; k < g_c.lay.n; k++) {
		const struct lb_cmos_entry *e = &g_c.lay.e[k];

		if (!shown(e))
			continue;
		if (e->config != 's' && e->length > 64) {
			lb_err("%s: %u bits: a number wider than 64 bits is not read", e->name, e->length);
			continue;
		}
		show(e, 1);
	}
	if (!lb_cmos_cks_ok(&g_c.lay, g_c.img))
		lb_err("warning: the CMOS checksum is wrong: computed 0x%x, stored 0x%x (coreboot puts its defaults back)",
		       lb_cmos_cks_compute(&g_c.lay, g_c.img),
		       g_c.img[g_c.lay.cks_loc] << 8 | g_c.img[g_c.lay.cks_loc + 1]);
	return 0;
}
