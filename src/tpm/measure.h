/*
 * Measured boot: what lboot boots, extended into the TPM's PCRs exactly as a
 * UEFI boot of the same files would be, each extend recorded as one event of
 * a TCG2 crypto-agile log that the next kernel finds (docs/measured-boot.md).
 *
 *   lb_measure_open(&m, NULL, err, sizeof(err));   -ENOENT: no TPM, go on
 *   lb_measure_config(&m, "/loader/entries/x.conf", bytes, n);     PCR 8
 *   lb_measure_kernel_pe(&m, kernel, klen, "/vmlinuz");            PCR 4
 *   lb_measure_cmdline(&m, cmdline);                               PCR 9
 *   lb_measure_initrd(&m, &initrd_blob.dig);                       PCR 9
 *   lb_measure_uki(&m, uki, ulen);                 (a UKI)         PCR 11
 *   lb_measure_separator(&m, LB_MEASURE_PCR_LBOOT);                PCR 8
 *   lb_measure_log_acpi(&m, NULL, err, sizeof(err));  log for the next kernel
 *   lb_measure_lock_platform(&m);
 *   lb_measure_close(&m);
 *
 * Every extend covers every active PCR bank (TPM2_GetCapability) in one
 * TPM2_PCR_Extend; an event enters the log only when its extend succeeded.
 * Every TPM reply is checked by tpm2.c and every wait bounded by tpmdev.c.
 * Negative errno; positive values are TPM response codes (tpm2.h); never
 * logs: err strings say what failed for the caller's one line.
 */
#ifndef LB_MEASURE_H
#define LB_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "tpm2.h"
#include "tpmdev.h"

/* PCRs (TCG PC Client PFP; UAPI "Linux TPM PCR Registry") */
#define LB_MEASURE_PCR_BOOTAPP 4   /* boot applications: the kernel's PE */
#define LB_MEASURE_PCR_LBOOT   8   /* lboot's own decisions (GRUB's command PCR) */
#define LB_MEASURE_PCR_STUB    9   /* the Linux EFI stub: initrd, LoadOptions */
#define LB_MEASURE_PCR_UKI     11  /* systemd-stub: UKI sections */

#define LB_MEASURE_MAX_EVENTS  128
#define LB_MEASURE_MAX_DATA    16384   /* event data bytes per event */
#define LB_MEASURE_VERDICT_MAX 1024    /* "verify: " + the verifier's evidence (PCR 8) */
#define LB_MEASURE_MAX_PATH    4096    /* bytes of a kernel path (PATH_MAX) */
#define LB_MEASURE_MAX_CMDLINE 4096    /* bytes of command line (UTF-8) */
#define LB_MEASURE_MAX_LAML    (16u << 20) /* largest ACPI log area we touch */
#define LB_MEASURE_MAX_ZEROS   (16u << 20) /* UKI section VirtualSize past its raw data */

struct lb_measure_event {
	uint32_t pcr, type;
	struct lb_digests d;    /* one digest per active bank (mask: m->mask) */
	size_t size;
	uint8_t *data;          /* event data (malloc'd), size bytes */
};

/* About 54 KB (the TPM buffers and the events): static or malloc'd. */
struct lb_measure {
	struct lb_tpmdev dev;
	struct lb_tpm2 t;
	int have_dev;           /* dev is ours to close */
	size_t n_banks;
	uint16_t bank_alg[LB_TPM2_MAX_BANKS];   /* active banks, TPM order */
	unsigned mask;          /* the same as a hash.h mask */
	size_t n_ev;
	struct lb_measure_event ev[LB_MEASURE_MAX_EVENTS];
	size_t n_logged;        /* events already in the ACPI log area */
	size_t n_fw;            /* ev[0 .. n_fw): the firmware's (lb_measure_firmware_event) */
	int staging;            /* lb_measure_stage_begin: queue, do not extend */
	size_t n_pending;       /* ev[n_ev .. n_ev + n_pending): queued */
};

/*
 * Open the TPM: dev NULL = /dev/tpmrm0 else /dev/tpm0, "tcp:HOST:PORT" =
 * swtpm's data port, else a device path. Reads the active PCR banks.
 * -ENOENT: no TPM (the caller goes on unmeasured, or refuses with
 * lboot.tpm=require); -ENOTSUP: an active bank lboot cannot hash (SM3,
 * SHA-3: named in err); a positive TPM_RC when GetCapability failed (a TPM
 * in failure mode); other negative errno. On failure nothing stays open.
 */
int lb_measure_open(struct lb_measure *m, const char *dev, char *err, size_t errsz);
/* The same over any transport (tests: a scripted TPM). */
int lb_measure_attach(struct lb_measure *m, lb_tpm2_xfer_fn xfer, void *ctx,
		      char *err, size_t errsz);
/* hash.h mask (LB_HASH_BIT(LB_SHA256)...) of the active banks: what digests
 * callers must supply (lb_measure_initrd, lb_measure_digest). */
unsigned lb_measure_banks(const struct lb_measure *m);
/* Close the TPM and free the events. Safe twice and after a failed open. */
void lb_measure_close(struct lb_measure *m);

/*
 * Extend one event: d holds at least every active bank's digest. data/size:
 * the event data logged (at most LB_MEASURE_MAX_DATA). -EINVAL for a
 * missing bank, -ENOSPC when LB_MEASURE_MAX_EVENTS are recorded.
 */
int lb_measure_digest(struct lb_measure *m, uint32_t pcr, uint32_t type,
		      const struct lb_digests *d, const void *data, size_t size);
/*
 * An event the firmware extended before lboot and logged nowhere the next
 * kernel reads (coreboot 4.x keeps its own TCPA log in CBMEM): recorded,
 * not extended, ahead of every lboot event, so that a new log lboot writes
 * starts with the firmware's events and replays to the PCRs. Only before
 * lboot's first event (-EBUSY after); d must hold every active bank.
 */
int lb_measure_firmware_event(struct lb_measure *m, uint32_t pcr, uint32_t type,
			      const struct lb_digests *d, const void *data, size_t size);
/* Hash bytes in every active bank and extend them as one event. */
int lb_measure_data(struct lb_measure *m, uint32_t pcr, uint32_t type,
		    const void *bytes, size_t len, const void *data, size_t size);

/*
 * All or nothing. After lb_measure_stage_begin every lb_measure_* call that
 * extends builds its event (every check, every digest) and queues it
 * instead; lb_measure_stage_commit then extends the queue in order (on the
 * first failing extend the rest is dropped and its error returned);
 * lb_measure_stage_drop forgets the queue. So an event that cannot be built
 * is found before anything is extended.
 */
void lb_measure_stage_begin(struct lb_measure *m);
int lb_measure_stage_commit(struct lb_measure *m);
void lb_measure_stage_drop(struct lb_measure *m);

/*
 * Cap PCRs (bit n = PCR n) after a measurement failed: an EV_SEPARATOR with
 * the TCG PC Client error value (event data 01 00 00 00, its digest) into
 * each, so they can never again be completed to an honest boot's values.
 * Logged when the event array has room, extended even when not. Drops any
 * queue first. 0 or the first error.
 */
#define LB_MEASURE_CAP_PCRS 0x3bffu /* 0-9 (firmware, boot loader), 11-13 */
int lb_measure_cap(struct lb_measure *m, uint32_t pcrs);

/* What one boot measures, from the staged bytes. */
struct lb_measure_boot {
	const uint8_t *img;             /* the kernel or UKI */
	size_t len;
	const char *path;               /* its path (NULL: none) */
	int is_uki;
	const char *cmdline;            /* NULL: "" */
	const struct lb_digests *initrd;/* NULL: no initrd */
	const char *verdict;            /* the verifier's evidence (PCR 8), NULL: none */
};
/*
 * The kernel (PCR 4), a UKI's sections (PCR 11), the command line and the
 * initrd (PCR 9), the verifier's verdict ("lboot: verify: ...", EV_IPL)
 * and a separator that closes PCR 8 (nothing after it can pass for this
 * boot's decisions), all built before the first extend (stage/commit above).
 * When any cannot be built or an extend fails: the PCRs in
 * LB_MEASURE_CAP_PCRS are capped, err says what failed, and the error is
 * returned (the caller refuses the entry, and locks the platform hierarchy
 * either way). *nsec: UKI sections measured.
 */
int lb_measure_boot(struct lb_measure *m, const struct lb_measure_boot *b, size_t *nsec,
		    char *err, size_t errsz);

/*
 * PCR 4, EV_EFI_BOOT_SERVICES_APPLICATION: the kernel's Authenticode digest
 * per bank, as UEFI's LoadImage (EDK2 DxeTpm2MeasureBootLib) measures it.
 * Event data UEFI_IMAGE_LOAD_EVENT: ImageLocationInMemory 0 (kexec places
 * it; no firmware address exists), ImageLengthInMemory = file size,
 * ImageLinkTimeAddress = the PE's ImageBase, DevicePath = one Media File
 * Path node holding path (UTF-16, '/' as '\') + End, or none when path is
 * NULL. -EILSEQ: path not UTF-8; -E2BIG: over LB_MEASURE_MAX_PATH bytes.
 * A file that is not PE: the plain file digest (returns 1, not 0).
 */
int lb_measure_kernel_pe(struct lb_measure *m, const uint8_t *pe, size_t len,
			 const char *path);
/*
 * PCR 9, EV_EVENT_TAG "Linux initrd" (tag 0x8F3B22EC): the digests of the
 * one initrd buffer the kernel receives (several initrds concatenated), as
 * the Linux EFI stub measures the LoadFile2 initrd. d: e.g. the initrd
 * blob's digests (must hold every active bank).
 */
int lb_measure_initrd(struct lb_measure *m, const struct lb_digests *d);
/*
 * PCR 9, EV_EVENT_TAG "LOADED_IMAGE::LoadOptions" (tag 0x8F3B22ED): the
 * command line as UCS-2 little-endian with its NUL terminator, the bytes
 * LoadOptions/LoadOptionsSize hold when systemd-boot or OVMF start the
 * stub. -EILSEQ for invalid UTF-8 or a character beyond the BMP.
 */
int lb_measure_cmdline(struct lb_measure *m, const char *cmdline);
/* The LoadOptions bytes lb_measure_cmdline hashes (tests, tools). */
int lb_measure_ucs2(const char *s, uint8_t *out, size_t cap, size_t *len);
/*
 * PCR 11, systemd-stub's recipe: for each section present, in systemd's
 * order (.linux .osrel .cmdline .initrd .ucode .splash .dtb .uname .sbat
 * .pcrpkey .profile .dtbauto .hwids .efifw; the stub's own .sdmagic saying a
 * version before 254: 252's .linux .osrel .cmdline .initrd .splash .dtb
 * .pcrpkey; a multi-profile UKI: profile 0's sections over the base's,
 * lb_pe_uki_section, the sections uki.c boots), an EV_IPL event
 * with the digest of the name with its NUL, then one with the digest of
 * its VirtualSize bytes (zeros past the raw data); event data: the name in
 * UTF-16 with NUL. Returns the number of sections measured via *n (may be
 * NULL). -EINVAL: not PE, or a section outside SizeOfImage or more than
 * LB_MEASURE_MAX_ZEROS past its raw data (all checked before the first
 * extend); -ENOENT: no .linux section.
 */
int lb_measure_uki(struct lb_measure *m, const uint8_t *pe, size_t len, size_t *n);
/* EV_SEPARATOR (4 zero bytes, their digest) into pcr: before kexec and
 * before a shell, nothing lboot does afterwards is measured there. */
int lb_measure_separator(struct lb_measure *m, uint32_t pcr);
/* PCR 8, EV_EVENT_TAG: a config file that chose the entry: the digest of
 * its bytes; event data TCG_PCClientTaggedEvent {LB_MEASURE_TAG_CONFIG,
 * size, path with NUL}. */
#define LB_MEASURE_TAG_CONFIG 0x4C42C0F1u
int lb_measure_config(struct lb_measure *m, const char *path, const uint8_t *data,
		      size_t len);
/* PCR 8, EV_IPL: a decision as text, GRUB's recipe for its commands (that
 * tpm2_eventlog verifies): the digest of s (no NUL), event data "lboot: "
 * s NUL. s: "menu edit: CMDLINE", "recovery shell", "policy warning: ...". */
int lb_measure_string(struct lb_measure *m, const char *s);

/*
 * Lock the platform hierarchy (a random auth nobody keeps, as EDK2's
 * Tcg2PlatformDxe and HEADS do): the next OS holds no platform authority.
 * 0 also when it was locked already (the empty auth is refused:
 * TPM_RC_BAD_AUTH/AUTH_FAIL, or the hierarchy is disabled: TPM_RC_HIERARCHY).
 */
int lb_measure_lock_platform(struct lb_measure *m);

/*
 * The log: a TCG2 crypto-agile log of base (a firmware log of blen bytes;
 * NULL or not a well-formed log: a new header with the active banks)
 * followed by events [from, n_ev) into a malloc'd *out. -ENOTSUP when
 * base's header names an algorithm that is not an active bank.
 */
int lb_measure_log_build(const struct lb_measure *m, const uint8_t *base, size_t blen,
			 size_t from, uint8_t **out, size_t *len);

/* The ACPI TPM2 table's log area (TCG ACPI spec: LAML at offset 64, LASA
 * at 68, table length >= 76). -EINVAL when it is not such a table. */
int lb_measure_acpi_tpm2(const uint8_t *tbl, size_t len, uint64_t *lasa,
			 uint32_t *laml);

struct lb_measure_paths {
	const char *tpm2_table;  /* NULL: /sys/firmware/acpi/tables/TPM2 */
	const char *mem;         /* NULL: /dev/mem (a file in tests) */
	const char *fw_log;      /* NULL: securityfs binary_bios_measurements */
};

/*
 * Put the log where the next kernel reads it first: the ACPI TPM2 log area
 * (Linux's tpm_read_log_acpi, before the EFI table), through /dev/mem.
 * When the area already holds a log (EDK2's Tcg2Dxe log on hardware, or
 * what an earlier call wrote), the events not yet written are appended in
 * place; else the firmware's log (securityfs) and every event are written
 * there, with zeros after. Needs CONFIG_DEVMEM without IO_STRICT_DEVMEM
 * and no lockdown. -ENOENT: no TPM2 table or log area; -ENOSPC: the area
 * is full (nothing written); -EPERM/-EACCES from /dev/mem. err: one line.
 */
int lb_measure_log_acpi(struct lb_measure *m, const struct lb_measure_paths *p,
			char *err, size_t errsz);

/* TPM algorithm (LB_TPM2_ALG_*) for a hash.h alg and back; 0 / -1 unknown. */
uint16_t lb_measure_tpm_alg(unsigned hash_alg);
int lb_measure_hash_alg(uint16_t tpm_alg);

#endif
