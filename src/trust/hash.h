/*
 * One streaming context computing several digests of the same bytes at once:
 * SHA-1, SHA-256, SHA-384, SHA-512 (BearSSL) and BLAKE2b-512 (libsodium),
 * selected by a mask. Used for the TPM PCR banks, minisign `ED` signatures
 * and manifests. Not copyable while in use (the BLAKE2b state is aligned
 * inside the struct): keep it in place between init and final.
 */
#ifndef LB_HASH_H
#define LB_HASH_H

#include <stddef.h>
#include <stdint.h>

#include <bearssl/bearssl_hash.h>
#include <sodium/crypto_generichash_blake2b.h>

enum lb_hash_alg {
	LB_SHA1 = 0,
	LB_SHA256,
	LB_SHA384,
	LB_SHA512,
	LB_BLAKE2B, /* BLAKE2b-512, unkeyed */
	LB_HASH_N
};

#define LB_HASH_BIT(a)  (1u << (a))
#define LB_HASH_ALL     ((1u << LB_HASH_N) - 1)
#define LB_HASH_MAXLEN  64

struct lb_digests {
	unsigned mask;                          /* which d[] are valid */
	uint8_t d[LB_HASH_N][LB_HASH_MAXLEN];
};

struct lb_hash {
	unsigned mask;
	br_sha1_context sha1;
	br_sha256_context sha256;
	br_sha384_context sha384;
	br_sha512_context sha512;
	unsigned char b2raw[sizeof(crypto_generichash_blake2b_state) + 64];
};

/* Digest length in bytes / lower-case name ("sha256", "blake2b") of alg;
 * 0 / NULL for an unknown alg. */
size_t lb_hash_len(unsigned alg);
const char *lb_hash_name(unsigned alg);
/* alg for a name, or -EINVAL */
int lb_hash_by_name(const char *name);

/* -EINVAL when mask is 0 or names unknown algorithms. */
int lb_hash_init(struct lb_hash *h, unsigned mask);
void lb_hash_update(struct lb_hash *h, const void *p, size_t len);
/* Writes every selected digest to *out; h must be re-initialised to reuse. */
void lb_hash_final(struct lb_hash *h, struct lb_digests *out);
/* One-shot. */
int lb_hash_buf(unsigned mask, const void *p, size_t len,
		struct lb_digests *out);

/* Lower-case hex of a digest into out (2 * len + 1 bytes). */
void lb_hex(const uint8_t *d, size_t len, char *out);
/* Parse exactly 2 * len hex digits (either case); -EINVAL otherwise. */
int lb_unhex(const char *s, size_t slen, uint8_t *d, size_t len);

#endif
