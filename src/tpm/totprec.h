/*
 * The TOTP record lboot keeps in a TPM NV index (docs/measured-boot.md,
 * "Provisioning TOTP"): the sealed secret's TPM2B private and public
 * areas and what unsealing needs (the PCR bank and selection of the
 * policy). Big-endian, exactly:
 *
 *   "LBT1"  magic
 *   u16     PCR bank (TPM_ALG_ID, sha256 = 0x000B)
 *   u32     PCR mask (bit n = PCR n, 0..23)
 *   u8      digits (6..8)   u8 period (seconds, 1..255)
 *   u16 N   private area size, N bytes
 *   u16 M   public area size, M bytes
 *
 * and nothing after it (the NV index is defined with this exact size).
 * The blobs are not secret: only the TPM that made them can load them
 * (under the owner's storage key) and unseal them (PCR policy).
 * Library code: libc only; the parser reads untrusted bytes (fuzzed).
 */
#ifndef LB_TOTPREC_H
#define LB_TOTPREC_H

#include <stddef.h>
#include <stdint.h>

#include "tpm2.h"

#define LB_TOTPREC_MAX (4 + 2 + 4 + 2 + 2 + LB_TPM2_BLOB_MAX + 2 + LB_TPM2_BLOB_MAX)
#define LB_TOTPREC_NV_MAX 2048 /* what we define at most (MAX_NV_INDEX_SIZE of common TPMs) */

struct lb_totprec {
	uint16_t alg;
	uint32_t mask;
	uint8_t digits, period;
	struct lb_tpm2_blob priv, pub;
};

/* -EBADMSG for anything but one whole well-formed record. */
int lb_totprec_parse(const uint8_t *buf, size_t len, struct lb_totprec *r);
/* -EINVAL for bad fields, -ENOSPC when cap is short. */
int lb_totprec_build(const struct lb_totprec *r, uint8_t *out, size_t cap, size_t *len);

#endif
