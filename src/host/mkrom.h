/*
 * lboot mkrom: turn an OVMF (or any EDK2) firmware image into a LinuxBoot
 * ROM. Host only; built on the UEFI image library (src/lib/uefi/uefi.h).
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
 * Returns 0 or a negative errno; on failure err holds one line naming
 * what, where and why. Nothing is printed.
 */
#ifndef LB_MKROM_H
#define LB_MKROM_H

#include <stddef.h>
#include <stdint.h>

#define LB_MKROM_DEFAULT_BASE "/usr/share/OVMF/OVMF_CODE_4M.fd"
#define LB_MKROM_MAX_PAYLOAD  (64u << 20) /* kernel, initramfs, driver */
#define LB_MKROM_MAX_KEEP     4096        /* keep-list lines */

struct lb_mkrom_opts {
	const char *base;     /* firmware image (NULL: LB_MKROM_DEFAULT_BASE) */
	const char *keep;     /* keep-list file (NULL: remove only BdsDxe) */
	const char *dxe;      /* lbootdxe.efi (required) */
	const char *kernel;   /* bzImage with EFI stub (NULL: no kernel file) */
	const char *initrd;   /* initramfs (NULL: none) */
	const char *cmdline;  /* kernel command line (NULL: none stored; the
	                         driver then uses LBOOT_DEFAULT_CMDLINE) */
	const char *out;      /* the ROM to write (required) */
	const char *vars;     /* variable store template (NULL: the base's
	                         name with CODE -> VARS) */
	const char *vars_out; /* NULL: OUT without .rom + "-vars.fd" */
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
	uint64_t image_size;
	uint64_t comp_before, comp_after; /* compressed section holding the DXE volume */
	uint64_t free_before, free_after; /* free space of the flash volume holding it */
	char *vars_out;       /* variable store written, or NULL */
};

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
