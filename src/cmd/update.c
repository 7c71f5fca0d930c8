/* lboot update: signed firmware update images (update.h, fwupdate.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

#include "fwupdate.h"
#include "hash.h"
#include "io.h"
#include "json.h"
#include "lboot.h"

LB_APPLET(update, LB_HOST|LB_TARGET,
"usage: lboot update image --version N [--label TEXT] -o OUT ROM\n"
"       lboot update image --slot [--version N] [--label TEXT] -o OUT ROM\n"
"       lboot update [--flash DEV|FILE] [--root DIR] [--slot A|B] [--json] check FILE [SIG]\n"
"       lboot update [--flash DEV|FILE] [--root DIR] [--slot A|B] [--reboot] apply FILE [SIG]\n"
"Firmware updates (docs/firmware-update.md).\n"
"  image    write OUT: a header (version N, the label, the ROM's SHA-256)\n"
"           and ROM, the whole flash image (e.g. the 16 MiB updatable ROM);\n"
"           sign it with Debian's minisign: `minisign -S -s KEY -m OUT`.\n"
"           --slot: a payload update instead: the newest payload slot of\n"
"           ROM (a flash image built with mkrom --slots), its version\n"
"           (--version, when given, must be the slot's)\n"
"  check    may FILE be written to this flash? Its signature SIG (default\n"
"           FILE.minisig) by a key in the firmware's /etc/lboot/update, the\n"
"           image's digest, its version against the running firmware's\n"
"           (firmware-version) and the TPM NV floor (update-floor-nv), the\n"
"           flash's size, firmware kind and variable store; exit 0 if so\n"
"  apply    check, then program the erase blocks that differ (the variable\n"
"           store is kept), read each back, compare the whole flash;\n"
"           --reboot then restarts the machine into the new firmware\n"
"  --root DIR  the policy's root (default /: the running firmware's)\n"
"  --flash     a device or a flash image file instead of the boot flash\n"
"  --slot S    the payload slot running (default: lboot.slot= of\n"
"              /proc/cmdline, set by lbootdxe); a payload update writes\n"
"              the other one\n"
"Nothing is written unless every check passed. Exit: 0 ok, 1 refused or\n"
"failed (one line says why), 2 usage.\n")

/* lboot.slot= on the running kernel's command line (lbootdxe adds it) */
static char running_slot(void)
{
	uint8_t *b = NULL;
	size_t n = 0;
	char s = 0;

	if (lb_read_path("/proc/cmdline", 65536, &b, &n))
		return 0;
	for (size_t i = 0; i + 12 <= n; i++)
		if ((i == 0 || b[i - 1] == ' ') && !memcmp(b + i, "lboot.slot=", 11) &&
		    (b[i + 11] == 'A' || b[i + 11] == 'B') &&
		    (i + 12 == n || b[i + 12] == ' ' || b[i + 12] == '\n'))
			s = (char)b[i + 11];
	free(b);
	return s;
}

static int usage(void)
{
	lb_usage("update");
	return 2;
}


static int image_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "version", required_argument, NULL, 'v' },
		{ "label", required_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "slot", no_argument, NULL, 's' },
		{ 0 }
	};
	const char *ver = NULL, *label = "lboot firmware", *out = NULL;
	uint8_t *rom = NULL, *buf = NULL;
	const uint8_t *img;
	unsigned long long v = 0;
	size_t len;
	char why[256], *end;
	int c, rc, ret = 1, slot = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'v': ver = optarg; break;
		case 'l': label = optarg; break;
		case 'o': out = optarg; break;
		case 's': slot = 1; break;
		default: return usage();
		}
	}
	if ((!ver && !slot) || !out || optind != argc - 1)
		return usage();
	errno = 0;
	if (ver)
		v = strtoull(ver, &end, 10);
	if (ver && (errno || *end || !*ver || *ver == '-')) {
		lb_err("--version %s: not a number", ver);
		return 2;
	}
	if (lb_same_file(out, argv[optind])) {
		lb_err("%s: the output is the input", out);
		return 1;
	}
	if ((rc = lb_read_path(argv[optind], LB_FLASH_MAX, &rom, &len))) {
		lb_err("%s: %s", argv[optind], rc == -EFBIG ? "larger than any flash" : strerror(-rc));
		return 1;
	}
	if (strcmp(lb_flash_image_kind(rom, len), "uefi") && strcmp(lb_flash_image_kind(rom, len), "coreboot")) {
		lb_err("%s: not a whole-flash image (no UEFI volume or CBFS at its end)", argv[optind]);
		goto out;
	}
	img = rom;
	if (slot) {
		unsigned long long off;
		struct lb_slot_table t;
		struct lb_slot_hdr h;

		if (lb_slot_find(rom, len, &off, &t, &h)) {
			lb_err("%s: no payload slot that checks (a flash image built with mkrom --slots)",
			       argv[optind]);
			goto out;
		}
		if (ver && v != h.version) {
			lb_err("--version %llu: the slot's version is %llu", v, h.version);
			goto out;
		}
		v = h.version;
		img = rom + off;
		len = (size_t)t.size;
		fprintf(stderr, "lboot update: %s: the payload slot at 0x%llx (version %llu%s%s%s, %llu bytes of payload volume)\n",
			argv[optind], off, v, h.label[0] ? ", " : "", h.label, h.label[0] ? "" : "",
			h.vol_len);
	}
	if (!(buf = malloc(LB_UPDATE_HDR + len)))
		goto out;
	if (lb_update_header(slot ? LB_UPDATE_KIND_SLOT : LB_UPDATE_KIND_FLASH, v, label, img, len,
			     buf, why, sizeof(why))) {
		lb_err("%s", why);
		goto out;
	}
	memcpy(buf + LB_UPDATE_HDR, img, len);
	if ((rc = lb_write_atomic(out, buf, LB_UPDATE_HDR + len, 0644))) {
		lb_err("%s: %s", out, strerror(-rc));
		goto out;
	}
	if (slot)
		fprintf(stderr, "lboot update: %s: version %llu, a payload slot of %zu bytes\n", out, v, len);
	else
		fprintf(stderr, "lboot update: %s: version %llu, %zu bytes of %s firmware\n", out, v, len,
			lb_flash_image_kind(rom, len));
	ret = 0;
out:
	free(rom);
	free(buf);
	return ret;
}

int update_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "flash", required_argument, NULL, 'f' },
		{ "root", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "reboot", no_argument, NULL, 'b' },
		{ "slot", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct lb_fwupdate_opts o = { .root = "/" };
	struct lb_fwupdate_result r;
	const char *cmd, *file, *sigp;
	uint8_t *buf = NULL, *sig = NULL;
	size_t len = 0, siglen = 0;
	char sigbuf[512], why[768], sha[65];
	struct lb_flash_progress pr = { "lboot update", 0 };
	int c, json = 0, reboot_after = 0, rc;

	if (argc >= 2 && !strcmp(argv[1], "image"))
		return image_main(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': o.flash = optarg; break;
		case 'r': o.root = optarg; break;
		case 'j': json = 1; break;
		case 'b': reboot_after = 1; break;
		case 's':
			if ((optarg[0] != 'A' && optarg[0] != 'B') || optarg[1]) {
				lb_err("--slot %s: want A or B", optarg);
				return 2;
			}
			o.slot = optarg[0];
			break;
		case 'h': lb_usage("update"); return 0;
		default: return usage();
		}
	}
	if (optind + 2 > argc || optind + 3 < argc)
		return usage();
	cmd = argv[optind];
	file = argv[optind + 1];
	if (strcmp(cmd, "check") && strcmp(cmd, "apply"))
		return usage();
	if (optind + 3 == argc) {
		sigp = argv[optind + 2];
	} else {
		snprintf(sigbuf, sizeof(sigbuf), "%s.minisig", file);
		sigp = sigbuf;
	}
	o.apply = !strcmp(cmd, "apply");
	if (!o.slot)
		o.slot = running_slot();
	o.want = getenv("LBOOT_FLASH");
	o.progress = lb_flash_progress_stderr;
	o.arg = &pr;
	if (getenv("LBOOT_TEST_FLASH_FAIL"))
		o.failk = (unsigned)atoi(getenv("LBOOT_TEST_FLASH_FAIL"));
	if ((rc = lb_read_path(file, LB_UPDATE_MAX, &buf, &len))) {
		lb_err("%s: %s", file, rc == -EFBIG ? "larger than any update image" : strerror(-rc));
		return 1;
	}
	if ((rc = lb_read_path(sigp, LB_SIG_MAX_FILE, &sig, &siglen)) && rc != -ENOENT) {
		lb_err("%s: %s", sigp, strerror(-rc));
		free(buf);
		return 1;
	}
	rc = lb_fwupdate(buf, len, sig, siglen, &o, &r, why, sizeof(why));
	lb_hex(r.h.sha256, 32, sha);
	if (json) {
		printf("{\"file\":");
		lb_json_str(stdout, file);
		printf(",\"ok\":%s,\"nothing_to_do\":%s,\"reason\":", rc < 0 ? "false" : "true",
		       rc == 1 ? "true" : "false");
		lb_json_str(stdout, rc ? why : "");
		printf(",\"version\":%llu,\"running\":%llu,\"label\":", (unsigned long long)r.h.version,
		       (unsigned long long)r.running);
		lb_json_str(stdout, r.h.label);
		printf(",\"sha256\":\"%s\",\"flash\":", rc < 0 ? "" : sha);
		lb_json_str(stdout, r.flash);
		printf(",\"blocks\":%llu,\"written\":%llu,\"slot\":", (unsigned long long)r.st.blocks,
		       (unsigned long long)r.st.differ);
		if (r.h.slot)
			printf("\"%c\"}\n", r.h.slot);
		else
			printf("null}\n");
	}
	free(buf);
	free(sig);
	if (rc < 0) {
		lb_err("%s: refused: %s", file, why);
		return 1;
	}
	if (rc == 1) {
		if (!json)
			printf("%s: %s\n", file, why);
		return 0;
	}
	if (!json) {
		if (o.apply && r.h.slot)
			printf("%s: version %llu (%s) written to payload slot %c of %s: %llu of %llu erase blocks differed, each read back; the slot equals the image (the rest of the flash kept)\n",
			       file, (unsigned long long)r.h.version, r.h.label, r.h.slot, r.flash,
			       (unsigned long long)r.st.differ, (unsigned long long)r.st.blocks);
		else if (r.h.slot)
			printf("%s: version %llu (%s) may be written to payload slot %c of %s (running version %llu in slot %c)\n",
			       file, (unsigned long long)r.h.version, r.h.label, r.h.slot, r.flash,
			       (unsigned long long)r.running, o.slot);
		else if (o.apply)
			printf("%s: version %llu (%s) written to %s: %llu of %llu erase blocks differed, each read back; the flash equals the image (variable store kept)\n",
			       file, (unsigned long long)r.h.version, r.h.label, r.flash,
			       (unsigned long long)r.st.differ, (unsigned long long)r.st.blocks);
		else
			printf("%s: version %llu (%s) may be written to %s (running version %llu)\n",
			       file, (unsigned long long)r.h.version, r.h.label, r.flash,
			       (unsigned long long)r.running);
	}
	if (o.apply && reboot_after) {
		fflush(stdout);
		sync();
		reboot(RB_AUTOBOOT);
		lb_err("reboot: %s", strerror(errno));
		return 1;
	}
	return 0;
}
