/*
 * lboot mkrom: turn an OVMF (or any EDK2) firmware image into a LinuxBoot
 * ROM. Host only; built on the UEFI image library (src/uefi/uefi.h).
 *
 *   1. parse the base image, find the DXE volume (the one with DXE_CORE);
 *   2. remove every DXE driver/application not in the keep list, and always
 *      BdsDxe (lbootdxe replaces it; a keep list naming it is refused), and
 *      the files named by the keep list's "remove GUID" lines (PEIMs);
 *   3. insert lbootdxe (DRIVER: DXE_DEPEX TRUE + PE32 + UI) and the command
 *      line (FREEFORM: RAW) into the DXE volume, and the kernel (APPLICATION:
 *      PE32 + UI) and the initramfs (FREEFORM: RAW) into the top-level flash
 *      volume that holds the DXE volume's compressed section, uncompressed
 *      (lbootdxe reads them from the memory-mapped flash: nothing to
 *      LZMA-decode at boot); GUIDs in src/dxe/guids.h;
 *   4. serialize (compressed sections recompressed; the image keeps its
 *      size), parse the result again to check it and measure it, and write
 *      it atomically. Same inputs, same bytes.
 *   5. a split CODE image (no NVRAM volume inside) gets a copy of its
 *      variable store template written next to the ROM (for pflash unit 1).
 *
 * Flash size (opts.flash_size, `--size`): the whole flash QEMU maps below
 * 4 GiB, pflash unit 0 (the code image, read-only) plus unit 1 (the
 * variable store). The base's own size (4 MiB for OVMF_CODE_4M.fd +
 * OVMF_VARS_4M.fd) keeps the payload in the code image (step 3). A larger
 * size puts the kernel and the initramfs in a payload volume of their own
 * (FFS2, FREEFORM/APPLICATION files as above) at the bottom of unit 1,
 * directly below the variable store, which stays where OVMF looks for it:
 * unit 1 = payload volume (size - code - store) + store. lbootdxe walks
 * the volumes down from 4 GiB across the store into it (src/dxe/flash.c).
 * 0 (auto): the base's size when the payload fits there, else the
 * smallest of 8 and 16 MiB that holds it (QEMU q35 maps at most 16 MiB,
 * `-machine q35,max-fw-size=16M`). docs/rom.md says why this layout.
 *
 * TPM (opts.tpm, `--tpm`): keep what OVMF needs to measure the boot into a
 * TPM 2.0 (PCRs 0-7 and the TCG2 event log; mkrom.c tpm_files): the PEIMs
 * TpmMmioSevDecryptPei, Tcg2ConfigPei, TcgPei, Tcg2Pei, Tcg2PlatformPei
 * ('remove' lines naming them are skipped) and the DXE drivers Tcg2Dxe,
 * Tcg2PlatformDxe and HiiDatabase (Tcg2Dxe's depex asks for the HII
 * string, database and config-routing protocols; its other dependencies,
 * variables, PCD, device path utilities and the IOMMU, are in the keep list
 * anyway, and SecurityStubDxe carries DxeTpm2MeasureBootLib, which
 * measures lbootdxe's LoadImage of the kernel into PCR 4). A base without
 * Tcg2Pei or Tcg2Dxe is refused. The cost: with no TPM attached,
 * Tcg2ConfigPei's probe waits out ~1.5 s of timeouts (docs/rom.md).
 *
 * Returns 0 or a negative errno; on failure err holds one line naming
 * what, where and why. Nothing is printed.
 */
#ifndef LB_MKROM_H
#define LB_MKROM_H

#include <stddef.h>
#include <stdint.h>

#include "../firmware/slots.h"

#define LB_MKROM_DEFAULT_BASE "/usr/share/OVMF/OVMF_CODE_4M.fd"
#define LB_MKROM_MAX_PAYLOAD  (64u << 20) /* kernel, initramfs, driver */
#define LB_MKROM_MAX_KEEP     4096        /* keep-list lines */
#define LB_MKROM_MAX_FLASH    (16u << 20) /* QEMU's max-fw-size; lbootdxe's scan */
#define LB_MKROM_MIB          (1u << 20)
#define LB_MKROM_PAYLOAD_FV_HDR 0x48u     /* payload volume header (two-entry block map) */

/* architectures (--arch; AUTO: the base's DXE core's PE machine) */
#define LB_MKROM_ARCH_AUTO    0
#define LB_MKROM_ARCH_X86_64  1
#define LB_MKROM_ARCH_ARM64   2
/* arm64 (AAVMF on QEMU virt, mkrom_arm64.c): pflash unit 0 at address 0,
 * 64 MiB; the payload volume from 2 MiB (after AAVMF's firmware, which is
 * all AAVMF maps: src/dxe/arm64/cpu.h LB_DXE_FLASH_MAP_BASE) to its end */
#define LB_MKROM_ARM64_BASE   "/usr/share/AAVMF/AAVMF_CODE.fd"
#define LB_MKROM_ARM64_DXE    "build/arm64/lbootdxe.efi"
#define LB_MKROM_ARM64_UNIT   (64ull << 20)
#define LB_MKROM_ARM64_PAYLOAD_AT 0x200000ull
#define LB_MKROM_ARM64_PL011  0x09000000ull

struct lb_mkrom_opts {
	const char *base;     /* firmware image (NULL: LB_MKROM_DEFAULT_BASE) */
	const char *keep;     /* keep-list file (NULL: remove only BdsDxe) */
	const char *dxe;      /* lbootdxe.efi (NULL: build/dxe/lbootdxe.efi, or
	                         LB_MKROM_ARM64_DXE for arm64); its PE machine
	                         must be the base's */
	int arch;             /* LB_MKROM_ARCH_*: AUTO detects it from the base */
	const char *kernel;   /* bzImage with EFI stub (NULL: no kernel file) */
	const char *initrd;   /* initramfs (NULL: none) */
	const char *cmdline;  /* kernel command line (NULL: none stored; the
	                         driver then uses LB_DXE_DEFAULT_CMDLINE) */
	const char *out;      /* the ROM to write (required) */
	const char *vars;     /* variable store template (NULL: the base's
	                         name with CODE -> VARS) */
	const char *vars_out; /* NULL: OUT without .rom + "-vars.fd" */
	uint64_t flash_size;  /* unit 0 + unit 1 bytes; 0: automatic (see above) */
	int tpm;              /* keep the firmware's TPM 2.0 modules (see below) */
	int dxe_console_set;  /* store dxe_console in the console file
	                         (LBOOT_GUID_CONSOLE); 0: none stored, the
	                         driver uses COM1 */
	int dxe_console;      /* lbootdxe's UART I/O port (0: no output) */
	const char *dxe_console_arg; /* the --dxe-console text: parsed for the
	                         base's architecture (x86: dxe_console as
	                         parsed; arm64: the PL011's base, 8 bytes) */
	const char *pei;      /* with tpm: lbootpei.efi (NULL: not added; Tcg2Pei
	                         then hashes the 12 MiB DXE volume) */
	int pei_given;        /* --pei named on the command line (arm64 refuses
	                         it; the default is for x86 only) */
	int slots;            /* x86, 8M/16M: the payload area as two slots
	                         (src/firmware/slots.h): the payload in slot A,
	                         slot B erased, the slot table in the DXE volume */
	uint64_t payload_version; /* slots: slot A's version */
	const char *payload_label; /* slots: slot A's label (NULL: none) */
};

struct lb_mkrom_file {
	char guid[37];
	char *name;           /* UI name, "" when none */
	const char *type;     /* "DRIVER", "APPLICATION", ... */
	uint64_t size;
};

struct lb_mkrom_report {
	struct lb_mkrom_file *removed, *kept; /* DXE drivers/applications */
	size_t n_removed, n_kept;
	char **keep_missing;  /* keep-list GUIDs the base does not have */
	size_t n_keep_missing;
	struct lb_mkrom_file *removed_other; /* by 'remove GUID' lines (PEIMs...) */
	size_t n_removed_other;
	char **remove_missing; /* 'remove' GUIDs the base does not have */
	size_t n_remove_missing;
	size_t dxe_size, kernel_size, initrd_size, cmdline_len;
	int console_stored;   /* the console file was written */
	int arch;             /* LB_MKROM_ARCH_X86_64 or _ARM64 */
	uint64_t console;     /* the stored console: port or PL011 base */
	uint64_t payload_at;  /* arm64: unit 0 offset of the payload volume */
	uint64_t image_size;
	uint64_t comp_before, comp_after; /* compressed section holding the DXE volume */
	uint64_t free_before, free_after; /* free space of the flash volume holding it */
	char *vars_out;       /* variable store written, or NULL */
	/* layout */
	uint64_t flash_size;  /* unit 0 + unit 1 (0 for an image with its own NVRAM) */
	int payload_unit1;    /* 1: kernel and initramfs in unit 1's payload volume */
	uint64_t payload_bytes;   /* their FFS files, as laid out */
	uint64_t payload_vol;     /* payload volume size (unit 1), 0 when none */
	uint64_t payload_free;    /* what is left in it */
	uint64_t unit1_size;      /* bytes written to vars_out */
	uint64_t grown_over;      /* auto: bytes over the base's layout (why it grew) */
	/* opts.tpm: the TPM modules, as found in the written code image */
	struct lb_mkrom_file *tpm;
	size_t n_tpm;
	size_t n_tpm_unremoved;   /* 'remove' lines skipped because of opts.tpm */
	size_t pei_size;          /* lbootpei added (0: not) */
	uint64_t pei_measured_at; /* flash address of the volume whose first file it measures */
	uint64_t slot_size;       /* opts.slots: each slot's bytes */
	uint64_t slot_off[2];     /* A, B: offsets in unit 1 */
	uint64_t slot_vol;        /* slot A's payload volume */
};

/* A payload slot of t->size bytes (src/firmware/slots.h): the header, then a
 * payload volume (attributes attrs) holding the kernel and initramfs FFS
 * files, rounded up to 4 KiB, then erased bytes. -ENOSPC when they do not
 * fit. */
int lb_mkrom_slot(uint32_t attrs, const struct lb_slot_table *t, uint64_t version,
		  const char *label, const uint8_t *kf, size_t kfl, const uint8_t *inf,
		  size_t ifl, uint8_t **out, uint64_t *vol_len);

/* "4M", "16M", "8388608", "auto" (0) -> bytes; -EINVAL otherwise. Sizes
 * are whole MiB, at most LB_MKROM_MAX_FLASH. */
int lb_mkrom_parse_size(const char *s, uint64_t *out);

/* --dxe-console: "com1" (0x3F8), "com2" (0x2F8), "com3" (0x3E8), "com4"
 * (0x2E8), "none" (0), or "0xPORT" (hex, 0x1-0xFFF8: the UART's 8 ports
 * fit below 64 Ki) -> the port; -EINVAL otherwise. */
int lb_mkrom_parse_console(const char *s, int *port);

/* --arch: "auto", "x86_64" (x64, amd64), "arm64" (aarch64, aa64). */
int lb_mkrom_parse_arch(const char *s, int *arch);
const char *lb_mkrom_arch_name(int arch);
/* LB_MKROM_ARCH_* of a PE image by its machine (AUTO: neither, not PE) */
int lb_mkrom_arch_of_pe(const uint8_t *b, size_t n);
/* --dxe-console on arm64: "pl011" (0x09000000), "none" (0), "0xADDR" */
int lb_mkrom_parse_console_arm64(const char *s, uint64_t *base);

/* A payload volume of vol bytes (FFS2, erase polarity 1, 4 KiB blocks,
 * at most max bytes) holding the kernel and initramfs FFS files, then
 * vars_len bytes of vars. malloc'd. */
int lb_mkrom_payload_volume(uint32_t attrs, uint64_t vol, uint64_t max, const uint8_t *kf,
			    size_t kfl, const uint8_t *inf, size_t ifl, const uint8_t *vars,
			    size_t vars_len, uint8_t **out, size_t *len);
/* arm64 (mkrom_arm64.c): unit 0 = the code image + the payload volume. */
int lb_mkrom_arm64_layout(uint8_t **rom, size_t *rom_len, uint32_t attrs,
			  const uint8_t *kf, size_t kfl, const uint8_t *inf, size_t ifl,
			  struct lb_mkrom_report *r, char *err, size_t errsz);

int lb_mkrom_build(const struct lb_mkrom_opts *o, struct lb_mkrom_report *r,
		   char *err, size_t errsz);
void lb_mkrom_report_free(struct lb_mkrom_report *r);

/* Parse a keep list: one GUID per line, '#' comments, blank lines. GUIDs
 * come back in canonical upper case. err names the line on failure.
 * lb_mkrom_parse_list also takes "remove GUID" lines: files removed from
 * wherever they are in the image (PEI modules too; never a SEC/PEI/DXE core
 * or a volume image); lb_mkrom_parse_keep refuses them. */
int lb_mkrom_parse_list(const char *text, size_t len, char ***keep, size_t *n_keep,
			char ***remove, size_t *n_remove, char *err, size_t errsz);
int lb_mkrom_parse_keep(const char *text, size_t len, char ***guids, size_t *n,
			char *err, size_t errsz);
void lb_mkrom_strv_free(char **v, size_t n);

#endif
