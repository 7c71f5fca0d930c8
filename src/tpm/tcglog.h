/*
 * The TCG2 crypto-agile event log (TCG PC Client Platform Firmware Profile,
 * 10.2): a TCG_PCR_EVENT (SHA-1 layout) holding the "Spec ID Event03"
 * header with the algorithms and their digest sizes, then TCG_PCR_EVENT2
 * records. Little-endian. Parse (every length checked, caps on algorithms,
 * events and event sizes), replay to per-bank PCR values with a hash
 * callback, and build records to append. Library code: libc only, negative
 * errno (-EBADMSG for a malformed log), never logs.
 */
#ifndef LB_TCGLOG_H
#define LB_TCGLOG_H

#include <stddef.h>
#include <stdint.h>

#include "tpm2.h"

#define LB_TCGLOG_MAX_ALGS       8
#define LB_TCGLOG_MAX_EVENTS     16384
#define LB_TCGLOG_MAX_EVENT_SIZE (1u << 20)
#define LB_TCGLOG_MAX_SIZE       (16u << 20)

#define LB_EV_PREBOOT_CERT   0x00000000u
#define LB_EV_POST_CODE      0x00000001u
#define LB_EV_NO_ACTION      0x00000003u
#define LB_EV_SEPARATOR      0x00000004u
#define LB_EV_ACTION         0x00000005u
#define LB_EV_EVENT_TAG      0x00000006u
#define LB_EV_S_CRTM_CONTENTS 0x00000007u
#define LB_EV_S_CRTM_VERSION 0x00000008u
#define LB_EV_CPU_MICROCODE  0x00000009u
#define LB_EV_PLATFORM_CONFIG_FLAGS 0x0000000Au
#define LB_EV_TABLE_OF_DEVICES 0x0000000Bu
#define LB_EV_COMPACT_HASH   0x0000000Cu
#define LB_EV_IPL            0x0000000Du
#define LB_EV_IPL_PARTITION_DATA 0x0000000Eu
#define LB_EV_NONHOST_CODE   0x0000000Fu
#define LB_EV_NONHOST_CONFIG 0x00000010u
#define LB_EV_NONHOST_INFO   0x00000011u
#define LB_EV_OMIT_BOOT_DEVICE_EVENTS 0x00000012u
#define LB_EV_EFI_VARIABLE_DRIVER_CONFIG 0x80000001u
#define LB_EV_EFI_VARIABLE_BOOT 0x80000002u
#define LB_EV_EFI_BOOT_SERVICES_APPLICATION 0x80000003u
#define LB_EV_EFI_BOOT_SERVICES_DRIVER 0x80000004u
#define LB_EV_EFI_RUNTIME_SERVICES_DRIVER 0x80000005u
#define LB_EV_EFI_GPT_EVENT  0x80000006u
#define LB_EV_EFI_ACTION     0x80000007u
#define LB_EV_EFI_PLATFORM_FIRMWARE_BLOB 0x80000008u
#define LB_EV_EFI_HANDOFF_TABLES 0x80000009u
#define LB_EV_EFI_PLATFORM_FIRMWARE_BLOB2 0x8000000Au
#define LB_EV_EFI_HANDOFF_TABLES2 0x8000000Bu
#define LB_EV_EFI_VARIABLE_BOOT2 0x8000000Cu
#define LB_EV_EFI_HCRTM_EVENT 0x80000010u
#define LB_EV_EFI_VARIABLE_AUTHORITY 0x800000E0u
#define LB_EV_EFI_SPDM_FIRMWARE_BLOB 0x800000E1u
#define LB_EV_EFI_SPDM_FIRMWARE_CONFIG 0x800000E2u

/* The Linux EFI stub's tagged events (PCR 9, EV_EVENT_TAG). */
#define LB_TAG_LINUX_INITRD       0x8F3B22ECu /* "Linux initrd" */
#define LB_TAG_LINUX_LOAD_OPTIONS 0x8F3B22EDu /* "LOADED_IMAGE::LoadOptions" */

struct lb_tcglog_alg {
	uint16_t id, size;
};

struct lb_tcglog {
	const uint8_t *buf;
	size_t len;           /* the buffer (a file, or a whole log area) */
	size_t first;         /* offset of the first TCG_PCR_EVENT2 */
	size_t end;           /* offset after the last event: where to append */
	size_t n_events;      /* TCG_PCR_EVENT2 records, header not counted */
	uint32_t platform_class;
	uint8_t spec_minor, spec_major, errata, uintn_size;
	size_t n_alg;
	struct lb_tcglog_alg alg[LB_TCGLOG_MAX_ALGS];
};

struct lb_tcglog_event {
	size_t off, len;       /* the record in the log */
	uint32_t pcr, type;
	size_t n_dig;
	struct {
		uint16_t alg, size;
		const uint8_t *d;
	} dig[LB_TCGLOG_MAX_ALGS];
	uint32_t size;         /* event data */
	const uint8_t *data;
};

/*
 * Check the header and walk every event (each checked): fills log. The log
 * ends at the end of the buffer or where free space begins (a record with
 * PCR index and type both 0, or both 0xFFFFFFFF: zeroed or erased area).
 * -EBADMSG when malformed, -E2BIG when over a cap.
 */
int lb_tcglog_open(struct lb_tcglog *log, const uint8_t *buf, size_t len);
/* The event at *off (start with log->first): 1 and *off advanced, 0 at the
 * end of the log, negative on a malformed record. */
int lb_tcglog_next(const struct lb_tcglog *log, size_t *off,
		   struct lb_tcglog_event *ev);

/* Digest of `len` bytes with a TPM algorithm (LB_TPM2_ALG_*) into out; 0 or
 * negative errno (-ENOTSUP for an algorithm it does not have). */
typedef int (*lb_tcglog_hash_fn)(void *ctx, uint16_t alg, const uint8_t *data,
				 size_t len, uint8_t *out);

struct lb_tcglog_bank {
	uint16_t alg, size;
	uint32_t mask; /* PCRs that events extended */
	int unsupported; /* the hash callback said -ENOTSUP: not replayed */
	uint8_t pcr[LB_TPM2_NUM_PCRS][LB_TPM2_MAX_DIGEST];
};

struct lb_tcglog_pcrs {
	size_t n_bank;
	struct lb_tcglog_bank bank[LB_TCGLOG_MAX_ALGS];
};

/*
 * Replay the log: for each bank of the header, every event that is not
 * EV_NO_ACTION extends PCR[i] = H(PCR[i] || digest). PCRs start at zero;
 * a "StartupLocality" EV_NO_ACTION event sets PCR 0's start to its locality
 * (as TCG PFP 10.4.5.3 says). PCR indexes above 23 are malformed. A bank
 * whose algorithm the callback does not have (-ENOTSUP) is left out
 * (unsupported set, mask 0); any other callback error ends the replay.
 */
int lb_tcglog_replay(const struct lb_tcglog *log, lb_tcglog_hash_fn hash,
		     void *ctx, struct lb_tcglog_pcrs *out);

/* The name of an event type ("EV_EFI_ACTION") or NULL. */
const char *lb_tcglog_type_name(uint32_t type);

/*
 * Build one TCG_PCR_EVENT2 record into out (cap bytes) for a log whose
 * header is `log`: one digest for each of its algorithms, in its order,
 * taken from d[] (any order; each bank must be there, with its size).
 * -ENOSPC when it does not fit, -EINVAL when a digest is missing.
 */
int lb_tcglog_build(const struct lb_tcglog *log, uint32_t pcr, uint32_t type,
		    const struct lb_tpm2_digest *d, size_t nd, const void *data,
		    size_t size, uint8_t *out, size_t cap, size_t *len);

/* Event data: the Linux EFI stub's tagged event (TCG_PCClientTaggedEvent:
 * id, size, data "Linux initrd\0" or "LOADED_IMAGE::LoadOptions\0"). */
int lb_tcglog_tagged_event(uint32_t tag, uint8_t *out, size_t cap, size_t *len);
/* Event data: UEFI_IMAGE_LOAD_EVENT (addr, length, link-time address,
 * device path of dplen bytes). */
int lb_tcglog_image_load_event(uint64_t addr, uint64_t length, uint64_t link_addr,
			       const void *devpath, size_t dplen, uint8_t *out,
			       size_t cap, size_t *len);

/*
 * Append a built record to a log area of cap bytes holding a log that ends
 * at *used (lb_tcglog_open's end): -ENOSPC when the area is full (nothing
 * written), else copied and *used advanced.
 */
int lb_tcglog_append(uint8_t *area, size_t cap, size_t *used, const uint8_t *rec,
		     size_t len);

/* A log header ("Spec ID Event03", platform class 0 = client, spec 2.0
 * errata 0, uintnSize 2 = UINT64) for the given algorithms, e.g. to start
 * a log where there is none. */
int lb_tcglog_header(const uint16_t *algs, size_t n, uint8_t *out, size_t cap,
		     size_t *len);

#endif
