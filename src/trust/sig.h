/*
 * minisign and signify public keys and detached signatures (Ed25519 from
 * libsodium), bit-compatible with Debian's minisign 0.11 and signify-openbsd:
 *
 *   public key (both tools):  "untrusted comment: ...\n" base64("Ed" keyid[8] pk[32])
 *                             (or that base64 line alone, as `minisign -P` takes it)
 *   minisign FILE.minisig:    "untrusted comment: ...\n" base64(alg[2] keyid[8] sig[64])
 *                             "trusted comment: TEXT\n"  base64(global_sig[64])
 *       alg "ED": sig = Ed25519(BLAKE2b-512(file)) (minisign's default)
 *       alg "Ed": sig = Ed25519(file) (legacy, minisign -l)
 *       global_sig = Ed25519(sig[64] || TEXT)
 *   signify FILE.sig:         "untrusted comment: ...\n" base64("Ed" keyid[8] sig[64])
 *
 * Parsers take untrusted bytes (capped, strict: base64 with padding, exact
 * lengths, nothing after the last line but empty lines). Results are
 * negative errno values with one meaning each, named by lb_sig_reason().
 */
#ifndef LB_SIG_H
#define LB_SIG_H

#include <stddef.h>
#include <stdint.h>

#define LB_SIG_MAX_FILE      16384 /* bytes of a key or signature file */
#define LB_SIG_MAX_COMMENT   1024  /* untrusted comment text */
#define LB_SIG_MAX_TRUSTED   8192  /* trusted comment text (minisign's cap) */

/* Reasons (negative errno), named by lb_sig_reason(): */
#define LB_SIG_NONE        (-ENOENT)          /* no signature */
#define LB_SIG_UNKNOWN_KEY (-ENOKEY)          /* key id of no trusted key */
#define LB_SIG_BAD         (-EKEYREJECTED)    /* signature does not verify */
#define LB_SIG_COMMENT     (-EBADMSG)         /* trusted comment changed after signing */
#define LB_SIG_REVOKED     (-EKEYREVOKED)     /* made by a revoked key */
#define LB_SIG_MALFORMED   (-EINVAL)          /* not a key / signature file */
#define LB_SIG_BASE64      (-EILSEQ)          /* bad base64 */
#define LB_SIG_LENGTH      (-EMSGSIZE)        /* decoded length wrong */
#define LB_SIG_ALGORITHM   (-EPROTONOSUPPORT) /* not Ed / ED */
#define LB_SIG_TOO_BIG     (-EFBIG)           /* over the caps */
#define LB_SIG_NEED_DATA   (-ENODATA)         /* legacy Ed needs the bytes, not a digest */

struct lb_pubkey {
	uint8_t keyid[8];
	uint8_t pk[32];
};

enum lb_sig_kind { LB_SIG_MINISIGN = 1, LB_SIG_SIGNIFY };

struct lb_sig {
	enum lb_sig_kind kind;
	int prehashed;              /* "ED": over BLAKE2b-512 of the message */
	uint8_t keyid[8];
	uint8_t sig[64];
	uint8_t global[64];         /* minisign only */
	size_t trusted_len;         /* minisign only */
	char trusted[LB_SIG_MAX_TRUSTED + 1];
};

/* The keys a verification accepts, and the ones it must refuse even if
 * they are also trusted. */
struct lb_keyring {
	const struct lb_pubkey *trusted;
	size_t n_trusted;
	const struct lb_pubkey *revoked;
	size_t n_revoked;
};

int lb_pubkey_parse(const uint8_t *buf, size_t len, struct lb_pubkey *out);
int lb_sig_parse(const uint8_t *buf, size_t len, struct lb_sig *out);

/*
 * Verify sig over a message given as its bytes (msg, len) and/or, for
 * prehashed "ED" signatures, its BLAKE2b-512 (blake2b, 64 bytes, e.g. from
 * a blob; then msg may be NULL). Checks, in order: the key id is not
 * revoked (REVOKED), a trusted key has it (UNKNOWN_KEY), the signature
 * (BAD), then minisign's global signature over the trusted comment
 * (COMMENT). *used (may be NULL) gets the key that verified.
 */
int lb_sig_verify(const struct lb_sig *sig, const struct lb_keyring *keys,
		  const uint8_t *msg, size_t len, const uint8_t *blake2b,
		  const struct lb_pubkey **used);

/* One phrase for a reason above ("bad signature"), or strerror-like text. */
const char *lb_sig_reason(int rc);

/* minisign's key id text: 16 upper-case hex digits of the little-endian
 * 64-bit number (as in "minisign public key 5F0E..."); out: 17 bytes. */
void lb_keyid_hex(const uint8_t keyid[8], char *out);

#endif
