/*
 * The verified-boot policy built into the firmware initramfs by
 * `lboot mkinitramfs --verify/--trust/...` (docs/verified-boot.md):
 *
 *   /etc/lboot/policy            "KEY VALUE" lines (below)
 *   /etc/lboot/trust/NAME.pub    minisign / signify public keys
 *   /etc/lboot/revoked/NAME.pub  keys refused even when trusted
 *   /etc/lboot/trust-x509/NAME.der CAs for PE (Authenticode) signatures
 *   /etc/lboot/update/NAME.pub   keys that sign firmware updates (never boot
 *                                entries; trust/ keys never sign updates)
 *
 * policy lines: `verify off|warn|enforce`, `allow-edit yes|no`,
 * `allow-shell yes|no`, `require-manifest yes|no` (disk entries boot only
 * through a signed manifest: no per-file fallback), `manifest-floor N`, `manifest-floor-nv 0x01xxxxxx`
 * (the floor is also that TPM NV counter's value, read at boot: see
 * lb_policy_floor_nv), `time-floor YYYY-MM-DDTHH:MM:SSZ`, `tpm require|auto`,
 * `firmware-version N` (this firmware build's version: an update must not
 * go below it), `update-floor-nv 0x01xxxxxx` (and not below that TPM NV
 * counter's value: lb_policy_update_floor_nv; docs/firmware-update.md),
 * `revoke-pe SHA256HEX` (a PE image's Authenticode digest) and
 * `revoke-x509 SHA256HEX` (a certificate's DER), each as often as needed,
 * `sbat COMPONENT GENERATION` (a PE image whose .sbat names COMPONENT with
 * a lower generation is refused: sbat.h; once per component);
 * `#` comments. Unknown keys or values make the whole file invalid, and an
 * invalid policy is enforced with no keys (fail closed): nothing boots and
 * the reason is printed.
 */
#ifndef LB_POLICY_H
#define LB_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "pkcs7.h"
#include "sbat.h"
#include "sig.h"
#include "tpm2.h"

enum lb_verify_mode { LB_VERIFY_OFF = 0, LB_VERIFY_WARN, LB_VERIFY_ENFORCE };

#define LB_POLICY_MAX_KEYS 32
#define LB_POLICY_MAX_CAS  LB_PE_SIG_MAX_CAS
#define LB_POLICY_MAX_REVOKE 256 /* of each revoke-pe, revoke-x509 */
#define LB_POLICY_MAX_SBAT 64    /* sbat lines */

struct lb_policy {
	enum lb_verify_mode mode;
	int allow_edit, allow_shell;
	int require_manifest;       /* `require-manifest yes`: disk entries need a manifest */
	int tpm_require;            /* `tpm require`: nothing boots unmeasured */
	uint64_t manifest_floor;
	uint32_t manifest_floor_nv; /* NV counter index (0x01xxxxxx), 0: none */
	uint64_t floor_nv_value;    /* what it held at boot (lb_policy_floor_nv) */
	int floor_nv_read;          /* 1: floor_nv_value was read */
	int64_t time_floor;         /* seconds since 1970; the clock never goes below */
	struct lb_pubkey trusted[LB_POLICY_MAX_KEYS];
	size_t n_trusted;
	struct lb_pubkey revoked[LB_POLICY_MAX_KEYS];
	size_t n_revoked;
	struct lb_pubkey update_keys[LB_POLICY_MAX_KEYS]; /* sign firmware updates */
	size_t n_update_keys;
	uint64_t fw_version;        /* `firmware-version N`: this build's version */
	uint32_t update_floor_nv;   /* NV counter index (0x01xxxxxx), 0: none */
	struct lb_x509_ca cas[LB_POLICY_MAX_CAS]; /* der malloc'd */
	size_t n_cas;
	uint8_t revoke_pe[LB_POLICY_MAX_REVOKE][32];   /* dbx's role for PE images */
	size_t n_revoke_pe;
	uint8_t revoke_x509[LB_POLICY_MAX_REVOKE][32]; /* and for certificates */
	size_t n_revoke_x509;
	struct lb_sbat_rule sbat[LB_POLICY_MAX_SBAT]; /* SbatLevel's role */
	size_t n_sbat;
	char err[640];              /* why the policy is invalid ("" when valid) */
};

/* Load the policy under root ("/" on the target; a directory in tests).
 * Never fails: a missing /etc/lboot/policy is mode off; anything wrong
 * is enforce with p->err set (a key that does not parse, a bad line). */
void lb_policy_load(const char *root, struct lb_policy *p);
void lb_policy_free(struct lb_policy *p);

/* "off", "warn", "enforce"; lb_verify_mode_parse: -EINVAL if none. */
const char *lb_verify_mode_name(enum lb_verify_mode m);
int lb_verify_mode_parse(const char *s, enum lb_verify_mode *m);

/* Apply lboot.verify=VALUE from the kernel command line: only stricter.
 * Returns 1 when it raised the mode, 0 when it kept it (weaker or equal),
 * -EINVAL for an unknown value. */
int lb_policy_raise(struct lb_policy *p, const char *value);

/*
 * `manifest-floor-nv INDEX`: read the NV counter through t (NULL: no
 * usable TPM) and raise manifest_floor to its value. The counter must be
 * a written TPM_NT_COUNTER index. Any failure makes the policy invalid
 * (fail closed: enforce, nothing boots, p->err names why) and returns
 * negative errno or the TPM_RC. No-op (0) without the policy line.
 */
int lb_policy_floor_nv(struct lb_policy *p, struct lb_tpm2 *t);

/* The value of the written TPM_NT_COUNTER NV index through t (NULL: no
 * TPM): 0, or negative errno / TPM_RC with why set (manifest-floor-nv and
 * update-floor-nv share it). */
int lb_policy_nv_counter(struct lb_tpm2 *t, uint32_t index, uint64_t *v, char *why, size_t whysz);

/* max(clock, time floor) */
int64_t lb_policy_now(const struct lb_policy *p);

#endif
