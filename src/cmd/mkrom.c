/* lboot mkrom: build the LinuxBoot ROM (OVMF minus BdsDxe & co + lbootdxe + Linux). */
#include "lboot.h"

LB_APPLET(mkrom, LB_HOST,
"usage: lboot mkrom [--arch auto|x86_64|arm64] [--base IMAGE] [--keep FILE]\n"
"         [--dxe lbootdxe.efi]\n"
"         [--kernel bzImage] [--initrd INITRAMFS] [--cmdline STR]\n"
"         [--dxe-console com1|com2|com3|com4|0xPORT|none]\n"
"         [--vars VARS.fd] [--vars-out FILE] [--size auto|4M|8M|16M]\n"
"         [--tpm [--pei lbootpei.efi | --no-pei]]\n"
"         [--slots [--payload-version N] [--payload-label TEXT]]\n"
"         [-q] -o OUT.rom\n"
"Build a LinuxBoot ROM from an EDK2/OVMF image: remove every DXE driver and\n"
"application of the DXE volume not in the keep list (and always BdsDxe), add\n"
"lbootdxe (the BDS replacement that starts Linux from flash), the kernel, the\n"
"initramfs and the command line, recompress, and write OUT atomically. The same\n"
"inputs give the same bytes. Prints what was removed and kept and the sizes.\n"
"  --arch ARCH      x86_64 (OVMF, q35) or arm64 (AAVMF, QEMU virt); default:\n"
"                   the base's (its DXE core's PE machine). arm64: unit 0 is\n"
"                   64 MiB, the kernel and initramfs in a payload volume\n"
"                   after the firmware's 2 MiB; unit 1 = AAVMF_VARS.fd\n"
"  --base IMAGE     firmware image (default /usr/share/OVMF/OVMF_CODE_4M.fd;\n"
"                   with --arch arm64 /usr/share/AAVMF/AAVMF_CODE.fd)\n"
"  --keep FILE      keep list: one FFS GUID per line, '#' comments\n"
"                   (default: keep everything but BdsDxe); 'remove GUID'\n"
"                   lines remove that file wherever it is (PEIMs too)\n"
"  --dxe FILE       the lbootdxe driver (default build/dxe/lbootdxe.efi; arm64:\n"
"                   build/arm64/lbootdxe.efi); its machine must be the base's\n"
"  --kernel FILE    bzImage with the EFI stub (without it the ROM halts with\n"
"                   'lbootdxe: FATAL')\n"
"  --initrd FILE    initramfs, served to the kernel through LoadFile2\n"
"  --cmdline STR    kernel command line (default: none stored, lbootdxe uses\n"
"                   'console=ttyS0,115200 panic=10')\n"
"  --dxe-console C  the 16550 lbootdxe writes its 'lbootdxe:' lines to: com1\n"
"                   (0x3F8, the default), com2 (0x2F8), com3, com4, an I/O\n"
"                   port 0xPORT, or none. arm64: the PL011: pl011\n"
"                   (0x09000000, the default), a base 0xADDR, or none\n"
"  --vars FILE      variable store template of a split CODE image (default: the\n"
"                   base's name with CODE -> VARS)\n"
"  --vars-out FILE  where to copy it for pflash unit 1 (default OUT minus .rom\n"
"                   plus -vars.fd); only written for images without NVRAM.\n"
"                   With a payload volume it holds that volume, then the store\n"
"  --size SIZE      the whole flash, pflash unit 0 + unit 1 (default auto).\n"
"                   The base's own size (4M for OVMF_CODE_4M.fd) keeps kernel\n"
"                   and initramfs in the code image; a larger one (whole MiB,\n"
"                   at most 16M: QEMU's -machine q35,max-fw-size=16M) puts them\n"
"                   in a payload volume at the bottom of unit 1, below the\n"
"                   variable store. auto: the base's size if they fit, else\n"
"                   8M or 16M, said in the report\n"
"  --tpm            keep the firmware's TPM 2.0 measured boot: the TPM PEIMs\n"
"                   (despite 'remove' lines) and Tcg2Dxe, Tcg2PlatformDxe,\n"
"                   HiiDatabase, so PCRs 0-7 and the event log come from the\n"
"                   firmware and its LoadImage measures the kernel into PCR 4.\n"
"                   Costs ~1.5 s of probing when no TPM is attached. arm64\n"
"                   (AAVMF): Tcg2Dxe and HiiDatabase join the keep list\n"
"  --pei FILE       x86, with --tpm: the lbootpei PEIM (default build/pei/lbootpei.efi),\n"
"                   listed first in the PEI apriori file: Tcg2Pei then measures\n"
"                   the compressed FVMAIN_COMPACT file from flash into PCR 0\n"
"                   instead of hashing the 12 MiB DXE volume (docs/rom.md)\n"
"  --no-pei         with --tpm: leave the measuring to Tcg2Pei as OVMF does\n"
"  --slots          x86, 8M or 16M: two payload slots (A/B) instead of one\n"
"                   payload volume, for payload updates that survive being\n"
"                   interrupted (docs/firmware-update.md): the kernel and\n"
"                   initramfs in slot A, slot B erased, the slot table in the\n"
"                   DXE volume; lbootdxe boots the newest slot that checks\n"
"  --payload-version N  with --slots: slot A's version (default 1): the\n"
"                   firmware-version of the initramfs's policy\n"
"  --payload-label TEXT with --slots: slot A's label (63 printable bytes)\n"
"  -q, --quiet      no report\n"
"  -o, --output OUT the ROM to write (never one of the inputs)\n"
"Exit: 0 ok, 1 failure, 2 usage.\n")

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkrom.h"

static void report(const struct lb_mkrom_opts *o, const struct lb_mkrom_report *r)
{
	uint64_t removed_bytes = 0, kept_bytes = 0;

	for (size_t i = 0; i < r->n_removed; i++)
		removed_bytes += r->removed[i].size;
	for (size_t i = 0; i < r->n_kept; i++)
		kept_bytes += r->kept[i].size;
	printf("removed %zu DXE files (%llu bytes):", r->n_removed,
	       (unsigned long long)removed_bytes);
	for (size_t i = 0; i < r->n_removed; i++)
		printf(" %s", r->removed[i].name[0] ? r->removed[i].name : r->removed[i].guid);
	printf("\nkept %zu DXE files (%llu bytes):", r->n_kept,
	       (unsigned long long)kept_bytes);
	for (size_t i = 0; i < r->n_kept; i++)
		printf(" %s", r->kept[i].name[0] ? r->kept[i].name : r->kept[i].guid);
	printf("\n");
	if (r->n_removed_other) {
		printf("removed %zu other files:", r->n_removed_other);
		for (size_t i = 0; i < r->n_removed_other; i++)
			printf(" %s", r->removed_other[i].name[0] ? r->removed_other[i].name :
			       r->removed_other[i].guid);
		printf("\n");
	}
	if (o->tpm) {
		printf("TPM (--tpm): kept %zu files:", r->n_tpm);
		for (size_t i = 0; i < r->n_tpm; i++)
			printf(" %s", r->tpm[i].name[0] ? r->tpm[i].name : r->tpm[i].guid);
		printf("; %zu 'remove' lines skipped\n", r->n_tpm_unremoved);
		if (r->pei_size)
			printf("TPM (--tpm): added lbootpei (%zu bytes), first in the PEI apriori "
			       "file: PCR 0 gets the first file of the volume at 0x%llx "
			       "(FVMAIN_COMPACT), not the DXE volume\n", r->pei_size,
			       (unsigned long long)r->pei_measured_at);
		else if (r->arch == LB_MKROM_ARCH_ARM64)
			printf("TPM (--tpm): Tcg2Pei measures AAVMF's own firmware volume "
			       "into PCR 0; the payload volume is measured when loaded (the "
			       "kernel into PCR 4, the initramfs into PCR 9)\n");
		else
			printf("TPM (--tpm): no lbootpei (--no-pei): Tcg2Pei hashes the whole "
			       "DXE volume\n");
	}
	for (size_t i = 0; i < r->n_remove_missing; i++)
		printf("note: 'remove' GUID %s is not in the base\n", r->remove_missing[i]);
	for (size_t i = 0; i < r->n_keep_missing; i++)
		printf("note: keep-list GUID %s is not in the base\n", r->keep_missing[i]);
	printf("added: lbootdxe %zu bytes, kernel %zu bytes%s, initramfs %zu bytes%s, "
	       "command line %zu bytes%s\n", r->dxe_size, r->kernel_size,
	       o->kernel ? "" : " (none: the ROM will halt)", r->initrd_size,
	       o->initrd ? "" : " (none)", r->cmdline_len,
	       o->cmdline ? "" : " (none: driver default)");
	printf("architecture: %s\n", lb_mkrom_arch_name(r->arch));
	if (!o->dxe_console_set)
		printf("lbootdxe console: %s\n", r->arch == LB_MKROM_ARCH_ARM64 ?
		       "PL011 (0x09000000, the default)" : "COM1 (0x3F8, the default)");
	else if (!r->console)
		printf("lbootdxe console: none (no 'lbootdxe:' lines)\n");
	else if (r->arch == LB_MKROM_ARCH_ARM64)
		printf("lbootdxe console: PL011 at 0x%llX\n", (unsigned long long)r->console);
	else
		printf("lbootdxe console: I/O port 0x%X\n", (unsigned)r->console);
	printf("compressed DXE volume section: %llu bytes in the base, %llu bytes now\n",
	       (unsigned long long)r->comp_before, (unsigned long long)r->comp_after);
	printf("flash volume free space: %llu bytes in the base, %llu bytes left\n",
	       (unsigned long long)r->free_before, (unsigned long long)r->free_after);
	if (r->grown_over)
		printf("layout: kernel + initramfs (%llu bytes) do not fit the %llu-byte layout "
		       "(%llu bytes over): flash grown to %llu MiB\n",
		       (unsigned long long)r->payload_bytes,
		       (unsigned long long)(r->image_size + (r->unit1_size - r->payload_vol)),
		       (unsigned long long)r->grown_over,
		       (unsigned long long)(r->flash_size >> 20));
	if (r->arch == LB_MKROM_ARCH_ARM64)
		printf("payload: kernel + initramfs = %llu bytes (uncompressed) in a payload "
		       "volume of %llu bytes at 0x%llx of pflash unit 0, %llu bytes left "
		       "(QEMU: -M virt, units 0 and 1 of 64 MiB)\n",
		       (unsigned long long)r->payload_bytes, (unsigned long long)r->payload_vol,
		       (unsigned long long)r->payload_at, (unsigned long long)r->payload_free);
	else if (r->slot_size)
		printf("payload: kernel + initramfs = %llu bytes (uncompressed) in slot A (version "
		       "%llu): a payload volume of %llu bytes after the slot header, %llu bytes "
		       "left; two slots of %llu bytes at 0x%llx (A) and 0x%llx (B, erased) of "
		       "pflash unit 1; flash %llu MiB = unit 0 %llu + unit 1 %llu bytes%s\n",
		       (unsigned long long)r->payload_bytes, (unsigned long long)o->payload_version,
		       (unsigned long long)r->slot_vol, (unsigned long long)r->payload_free,
		       (unsigned long long)r->slot_size, (unsigned long long)r->slot_off[0],
		       (unsigned long long)r->slot_off[1], (unsigned long long)(r->flash_size >> 20),
		       (unsigned long long)r->image_size, (unsigned long long)r->unit1_size,
		       r->flash_size > (8u << 20) ? " (QEMU: -machine q35,max-fw-size=16M)" : "");
	else if (r->payload_unit1)
		printf("payload: kernel + initramfs = %llu bytes (uncompressed) in a payload "
		       "volume of %llu bytes at the bottom of pflash unit 1, %llu bytes left; "
		       "flash %llu MiB = unit 0 %llu + unit 1 %llu bytes%s\n",
		       (unsigned long long)r->payload_bytes, (unsigned long long)r->payload_vol,
		       (unsigned long long)r->payload_free, (unsigned long long)(r->flash_size >> 20),
		       (unsigned long long)r->image_size, (unsigned long long)r->unit1_size,
		       r->flash_size > (8u << 20) ? " (QEMU: -machine q35,max-fw-size=16M)" : "");
	else
		printf("payload: kernel + initramfs = %zu bytes (uncompressed, in the flash volume); "
		       "room for it after pruning: about %llu bytes (payload + what is left)\n",
		       r->kernel_size + r->initrd_size,
		       (unsigned long long)(r->kernel_size + r->initrd_size + r->free_after));
	printf("wrote %s (%llu bytes)", o->out, (unsigned long long)r->image_size);
	if (r->vars_out)
		printf(" and %s (%s for pflash unit 1)", r->vars_out,
		       r->slot_size ? "payload slots + variable store" : r->payload_unit1 ? "payload volume + variable store" : "variable store");
	printf("\n");
}

int mkrom_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "arch", required_argument, NULL, 'A' },
		{ "keep", required_argument, NULL, 'k' },
		{ "dxe", required_argument, NULL, 'd' },
		{ "kernel", required_argument, NULL, 'K' },
		{ "initrd", required_argument, NULL, 'i' },
		{ "cmdline", required_argument, NULL, 'c' },
		{ "vars", required_argument, NULL, 'v' },
		{ "vars-out", required_argument, NULL, 'V' },
		{ "size", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "tpm", no_argument, NULL, 'T' },
		{ "dxe-console", required_argument, NULL, 'C' },
		{ "pei", required_argument, NULL, 'P' },
		{ "no-pei", no_argument, NULL, 'N' },
		{ "slots", no_argument, NULL, 'S' },
		{ "payload-version", required_argument, NULL, 'Y' },
		{ "payload-label", required_argument, NULL, 'L' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lb_mkrom_opts o = { .dxe = NULL, .pei = "build/pei/lbootpei.efi",
				   .payload_version = 1 };
	struct lb_mkrom_report r;
	char err[512];
	int c, quiet = 0, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'b': o.base = optarg; break;
		case 'A':
			if (lb_mkrom_parse_arch(optarg, &o.arch)) {
				lb_err("--arch %s: want auto, x86_64 or arm64", optarg);
				return 2;
			}
			break;
		case 'k': o.keep = optarg; break;
		case 'd': o.dxe = optarg; break;
		case 'K': o.kernel = optarg; break;
		case 'i': o.initrd = optarg; break;
		case 'c': o.cmdline = optarg; break;
		case 'v': o.vars = optarg; break;
		case 'V': o.vars_out = optarg; break;
		case 's':
			if (lb_mkrom_parse_size(optarg, &o.flash_size)) {
				lb_err("--size %s: want auto or whole MiB up to 16M (4M, 8M, 16M)",
				       optarg);
				return 2;
			}
			break;
		case 'T': o.tpm = 1; break;
		case 'C': {
			uint64_t mmio;

			/* checked for the base's architecture by the build */
			if (lb_mkrom_parse_console(optarg, &o.dxe_console) &&
			    lb_mkrom_parse_console_arm64(optarg, &mmio)) {
				lb_err("--dxe-console %s: want com1, com2, com3, com4, none "
				       "or an I/O port 0x1-0xFFF8 (arm64: pl011, none or a "
				       "4 KiB-aligned PL011 base 0xADDR)", optarg);
				return 2;
			}
			o.dxe_console_arg = optarg;
			o.dxe_console_set = 1;
			break;
		}
		case 'P': o.pei = optarg; o.pei_given = 1; break;
		case 'N': o.pei = NULL; break;
		case 'S': o.slots = 1; break;
		case 'Y': {
			char *e;

			errno = 0;
			o.payload_version = strtoull(optarg, &e, 10);
			if (errno || e == optarg || *e || optarg[0] == '-') {
				lb_err("--payload-version %s: want a decimal number", optarg);
				return 2;
			}
			break;
		}
		case 'L':
			if (strlen(optarg) >= LB_SLOT_LABEL) {
				lb_err("--payload-label: at most %u bytes", LB_SLOT_LABEL - 1);
				return 2;
			}
			for (const char *p = optarg; *p; p++)
				if (*p < 0x20 || *p > 0x7E) {
					lb_err("--payload-label: printable ASCII only");
					return 2;
				}
			o.payload_label = optarg;
			break;
		case 'o': o.out = optarg; break;
		case 'q': quiet = 1; break;
		case 'h':
			lb_usage("mkrom");
			return 0;
		default:
			lb_usage("mkrom");
			return 2;
		}
	}
	if (optind != argc || !o.out || !o.out[0]) {
		lb_err(optind != argc ? "unexpected argument '%s'" : "missing -o OUT%s",
		       optind != argc ? argv[optind] : "");
		lb_usage("mkrom");
		return 2;
	}
	rc = lb_mkrom_build(&o, &r, err, sizeof(err));
	if (rc) {
		lb_err("%s", err);
		return 1;
	}
	if (!quiet)
		report(&o, &r);
	lb_mkrom_report_free(&r);
	return 0;
}
