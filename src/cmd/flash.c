/* lboot flash: the boot flash through MTD (flash.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootflash.h"
#include "io.h"
#include "json.h"
#include "lboot.h"
#include "policy.h"
#include "slots.h"

LB_APPLET(flash, LB_HOST|LB_TARGET,
"usage: lboot flash [--flash DEV|FILE] [--json] info\n"
"       lboot flash [--flash DEV|FILE] read OUT\n"
"       lboot flash [--flash DEV|FILE] verify IMAGE\n"
"       lboot flash [--flash DEV|FILE] [--root DIR] write IMAGE\n"
"The boot flash through Linux's MTD interface (docs/firmware-update.md).\n"
"Without --flash: the NOR MTD that holds an x86 boot ROM (a jump at the\n"
"reset vector), or the one lboot.flash=NAME|mtdN names; --flash also takes\n"
"a flash image file (host tools, tests).\n"
"  info     name, size, erase block, writable, the firmware in it (uefi,\n"
"           coreboot), the payload slots (version, label, whether each\n"
"           checks); --json for scripts\n"
"  read     the whole flash into OUT (written atomically)\n"
"  verify   compare the flash with IMAGE: exit 0 equal, 1 differ (the first\n"
"           differing offset is printed)\n"
"  write    program IMAGE unsigned, erase block by erase block, only the\n"
"           blocks that differ, each read back; refused when the firmware's\n"
"           policy (--root DIR, default /) has update keys: then only\n"
"           `lboot update apply` writes, and only signed images\n"
"Exit: 0 ok, 1 failure (or verify: differ), 2 usage.\n")

static int usage(void)
{
	lb_usage("flash");
	return 2;
}


/* The flash to use: --flash, else lboot.flash= (environment from init),
 * else the one found. */
int lb_flash_pick(const char *given, int write, struct lb_flash *f);
int lb_flash_pick(const char *given, int write, struct lb_flash *f)
{
	char path[256], why[512];

	if (!given) {
		if (lb_flash_locate("/sys/class/mtd", "/dev", getenv("LBOOT_FLASH"), path,
				  sizeof(path), why, sizeof(why))) {
			lb_err("%s", why);
			return -ENODEV;
		}
		given = path;
	}
	if (lb_flash_open(given, write, f, why, sizeof(why))) {
		lb_err("%s", why);
		return -EIO;
	}
	return 0;
}

int flash_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "flash", required_argument, NULL, 'f' },
		{ "root", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *dev = NULL, *root = "/", *cmd, *arg = NULL;
	struct lb_flash f = { .fd = -1 };
	uint8_t *img = NULL;
	size_t len = 0;
	char why[512];
	int c, json = 0, ret = 1, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': dev = optarg; break;
		case 'r': root = optarg; break;
		case 'j': json = 1; break;
		case 'h': lb_usage("flash"); return 0;
		default: return usage();
		}
	}
	if (optind >= argc)
		return usage();
	cmd = argv[optind++];
	if (strcmp(cmd, "info")) {
		if (optind != argc - 1)
			return usage();
		arg = argv[optind];
	} else if (optind != argc) {
		return usage();
	}
	if (strcmp(cmd, "info") && strcmp(cmd, "read") && strcmp(cmd, "verify") && strcmp(cmd, "write"))
		return usage();
	if (!strcmp(cmd, "write")) {
		struct lb_policy pol;

		lb_policy_load(root, &pol);
		if (pol.n_update_keys || pol.err[0]) {
			lb_err("write: refused, the firmware's policy %s: use `lboot update apply` with a signed image",
			       pol.err[0] ? "is invalid" : "has update keys");
			lb_policy_free(&pol);
			return 1;
		}
		lb_policy_free(&pol);
	}
	if (lb_flash_pick(dev, !strcmp(cmd, "write"), &f))
		return 1;
	if (!strcmp(cmd, "info")) {
		struct lb_slot_table t;
		struct lb_slot_hdr sh[2];
		int src[2], slots = f.img && !lb_slot_table_in(f.img, f.size, &t);

		for (int i = 0; slots && i < 2; i++)
			src[i] = lb_slot_check(f.img + f.size - t.below[i], &t, &sh[i]);
		if (json) {
			printf("{\"path\":");
			lb_json_str(stdout, f.path);
			printf(",\"name\":");
			lb_json_str(stdout, f.name);
			printf(",\"mtd\":%s,\"size\":%llu,\"erasesize\":%u,\"firmware\":\"%s\",\"slots\":",
			       f.is_mtd ? "true" : "false", (unsigned long long)f.size,
			       f.erasesize, f.kind);
			if (!slots)
				printf("null");
			for (int i = 0; slots && i < 2; i++) {
				printf("%s{\"slot\":\"%c\",\"offset\":%llu,\"size\":%llu,\"ok\":%s,\"state\":",
				       i ? "," : "[", 'A' + i, (unsigned long long)(f.size - t.below[i]),
				       (unsigned long long)t.size, src[i] ? "false" : "true");
				lb_json_str(stdout, lb_slot_why(src[i]));
				if (src[i] == LB_SLOT_OK || src[i] == LB_SLOT_DIGEST) {
					printf(",\"version\":%llu,\"label\":", sh[i].version);
					lb_json_str(stdout, sh[i].label);
				}
				printf("}%s", i ? "]" : "");
			}
			printf("}\n");
		} else {
			printf("%s: %s, %llu bytes (%llu KiB), erase block %u, %s firmware\n", f.path,
			       f.name, (unsigned long long)f.size, (unsigned long long)(f.size >> 10),
			       f.erasesize, f.kind);
			for (int i = 0; slots && i < 2; i++) {
				printf("payload slot %c at 0x%llx (%llu bytes): ", 'A' + i,
				       (unsigned long long)(f.size - t.below[i]), (unsigned long long)t.size);
				if (src[i] == LB_SLOT_OK || src[i] == LB_SLOT_DIGEST)
					printf("version %llu%s%s%s, ", sh[i].version, sh[i].label[0] ? " (" : "",
					       sh[i].label, sh[i].label[0] ? ")" : "");
				printf("%s\n", lb_slot_why(src[i]));
			}
		}
		ret = 0;
		goto out;
	}
	if (!strcmp(cmd, "read")) {
		if (!f.img) {
			lb_err("%s: could not read the flash", f.path);
			goto out;
		}
		if (lb_same_file(arg, f.path)) {
			lb_err("%s: the output is the flash itself", arg);
			goto out;
		}
		if ((rc = lb_write_atomic(arg, f.img, f.size, 0644))) {
			lb_err("%s: %s", arg, strerror(-rc));
			goto out;
		}
		ret = 0;
		goto out;
	}
	if ((rc = lb_read_path(arg, LB_FLASH_MAX, &img, &len))) {
		lb_err("%s: %s", arg, rc == -EFBIG ? "larger than any flash" : strerror(-rc));
		goto out;
	}
	if (len != f.size) {
		lb_err("%s: %zu bytes, the flash %s has %llu", arg, len, f.path, (unsigned long long)f.size);
		goto out;
	}
	if (!strcmp(cmd, "verify")) {
		uint64_t first = 0;

		rc = lb_flash_compare(&f, img, len, NULL, 0, &first);
		if (rc < 0)
			lb_err("%s: %s", f.path, strerror(-rc));
		else if (rc)
			printf("%s: differs from %s from offset 0x%llx\n", f.path, arg, (unsigned long long)first);
		else
			printf("%s: equal to %s\n", f.path, arg);
		ret = rc ? 1 : 0;
	} else {
		struct lb_flash_stats st;
		struct lb_flash_progress pr = { "lboot flash", 0 };

		rc = lb_flash_program(&f, img, len, NULL, 0, lb_flash_progress_stderr, &pr,
				      &st, why, sizeof(why));
		if (rc) {
			lb_err("%s: %s", f.path, why);
			goto out;
		}
		printf("%s: %llu of %llu erase blocks differed and were written, each read back\n",
		       f.path, (unsigned long long)st.differ, (unsigned long long)st.blocks);
		ret = 0;
	}
out:
	free(img);
	lb_flash_close(&f);
	return ret;
}
