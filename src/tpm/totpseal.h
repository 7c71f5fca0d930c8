/*
 * The owner's check (HEADS' TOTP without bash and GPG): a random TOTP
 * secret from the TPM, sealed to a PCR policy (sha256 bank, the PCRs' values
 * when sealed), its sealed object kept in a TPM NV index (src/tpm/totprec.h
 * layout); every boot unseals it and shows the current code above the menu.
 * Used by `lboot tpm seal-totp` / `totp` and by src/boot/init.c.
 * Negative errno, or a positive TPM_RC (tpm2.h); never logs.
 */
#ifndef LB_TOTPSEAL_H
#define LB_TOTPSEAL_H

#include <stddef.h>
#include <stdint.h>

#include "totprec.h"
#include "tpm2.h"

#define LB_TOTPSEAL_NV_DEFAULT 0x01500010u   /* owner-hierarchy NV index */
/* PCRs 0, 2, 4, 7 and 9: firmware code, option ROMs, boot manager code,
 * Secure Boot policy, the EFI stub's initrd and command line */
#define LB_TOTPSEAL_PCRS_DEFAULT 0x00000295u
#define LB_TOTPSEAL_SECRET 20   /* bytes: 160 bits, RFC 4226's recommendation */

/*
 * A new secret (GetRandom) sealed to the current values of the PCRs in mask
 * (sha256 bank), written to NV index `index`. Nothing in NV changes until
 * the new sealed object exists; then a record already there is replaced:
 * written over in one NV_Write when the index has lboot's attributes and
 * the record's size (always so for a record sealed on this TPM), else
 * undefined and defined again.
 * secret: LB_TOTPSEAL_SECRET bytes out, for the otpauth:// URI.
 * -ENOTSUP: no active sha256 bank; -EINVAL: bad index or mask.
 */
int lb_totpseal_seal(struct lb_tpm2 *t, uint32_t index, uint32_t mask,
		     uint8_t *secret);

/*
 * Reseal after a firmware update (HEADS' "generate new TOTP secret"): the
 * old secret cannot be unsealed once the PCRs changed, so a new one is
 * sealed as lb_totpseal_seal does, to the PCRs the record in `index`
 * names (*mask: those PCRs). -ENOENT: no record there (nothing to reseal);
 * -EILSEQ: the index holds no well-formed record (left as it is).
 */
int lb_totpseal_reseal(struct lb_tpm2 *t, uint32_t index, uint8_t *secret,
		       uint32_t *mask);

/* 0: NV index `index` holds a TOTP record, sealed to the PCRs *mask;
 * -ENOENT: no such index; -EILSEQ: not a record; > 0: a TPM_RC. */
int lb_totpseal_info(struct lb_tpm2 *t, uint32_t index, uint32_t *mask);

/*
 * Read the record from NV index `index` and unseal the secret (into
 * secret, at most cap bytes; *len its length; rec: the record, may be
 * NULL). -ENOENT: no such index (no TOTP provisioned); -EILSEQ: the index
 * holds no well-formed record; > 0: a TPM_RC (lb_totpseal_changed() tells
 * the policy failures that mean "measurements changed").
 */
int lb_totpseal_unseal(struct lb_tpm2 *t, uint32_t index, uint8_t *secret,
		       size_t cap, size_t *len, struct lb_totprec *rec);

/* TPM_RC_POLICY_FAIL (any session) or TPM_RC_PCR_CHANGED. */
int lb_totpseal_changed(int rc);

/*
 * The line shown above the menu, for Unix time now:
 *   "TOTP 123456 (valid 17 s)"
 *   "TOTP unseal failed: measurements changed"
 *   "TOTP unseal failed: Load: TPM_RC_INTEGRITY (parameter 1)" (any other RC)
 * Returns 0 with the line in buf, -ENOENT when no TOTP is provisioned (no
 * line), or another negative errno with a line that names it.
 */
int lb_totpseal_line(struct lb_tpm2 *t, uint32_t index, int64_t now,
		     char *buf, size_t n);

/* otpauth://totp/ISSUER:LABEL?secret=BASE32&issuer=ISSUER&algorithm=SHA1&
 * digits=6&period=30 with ISSUER and LABEL percent-encoded. -ENOSPC. */
int lb_totpseal_uri(const uint8_t *secret, size_t len, const char *issuer,
		    const char *label, char *out, size_t cap);

#endif
