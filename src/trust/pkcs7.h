/*
 * Authenticode signatures of PE images (kernels with an EFI stub, UKIs):
 * the PKCS#7 SignedData in the certificate table, its SpcIndirectDataContent
 * digest against the image's Authenticode digest, the SignerInfo signature
 * over the authenticated attributes (RSA PKCS#1 v1.5 or ECDSA, BearSSL), and
 * the signer's certificate chain to a trusted X.509 CA (BearSSL's X.509
 * "minimal" engine). The DER walk is ours, every length checked against its
 * container; no recursion. Negative errno, one meaning each.
 */
#ifndef LB_PKCS7_H
#define LB_PKCS7_H

#include <stddef.h>
#include <stdint.h>

#define LB_PE_SIG_UNSIGNED    (-ENODATA)         /* no certificate table */
#define LB_PE_SIG_MALFORMED   (-EINVAL)          /* not a well-formed Authenticode signature */
#define LB_PE_SIG_CHANGED     (-EBADMSG)         /* image digest differs: changed after signing */
#define LB_PE_SIG_BAD         (-EKEYREJECTED)    /* signer's signature does not verify */
#define LB_PE_SIG_UNTRUSTED   (-ENOKEY)          /* no chain to a trusted CA */
#define LB_PE_SIG_ALGORITHM   (-EPROTONOSUPPORT) /* digest or key algorithm not handled */
#define LB_PE_SIG_USAGE       (-EPERM)           /* signer certificate not for code signing */
#define LB_PE_SIG_REVOKED     (-EKEYREVOKED)     /* image or certificate revoked by the policy */

#define LB_PE_SIG_MAX_CAS     16
#define LB_PE_SIG_MAX_CHAIN   8
#define LB_PE_SIG_MAX_CERTS   32

/* A trusted CA: its DER certificate (kept by the caller while in use). */
struct lb_x509_ca {
	const uint8_t *der;
	size_t len;
};

/*
 * Verify the PE image's Authenticode signatures (every WIN_CERTIFICATE of
 * type PKCS_SIGNED_DATA; one that verifies suffices, as for UEFI and shim)
 * against the CAs. `now` (seconds since 1970, UTC) is when certificate
 * validity is checked. On failure, the most telling reason (CHANGED and
 * BAD before UNTRUSTED before MALFORMED) and a line in err.
 */
int lb_pe_sig_verify(const uint8_t *img, size_t len,
		     const struct lb_x509_ca *cas, size_t n_cas, int64_t now,
		     char *err, size_t errsz);

/* What the owner revoked (dbx's role): Authenticode SHA-256 digests of
 * images, and SHA-256 digests of certificates (DER). */
struct lb_pe_revoked {
	const uint8_t (*images)[32];
	size_t n_images;
	const uint8_t (*certs)[32];
	size_t n_certs;
};

/* lb_pe_sig_verify, and LB_PE_SIG_REVOKED when the image's digest is
 * revoked, or any certificate of any of its signatures is (as UEFI's dbx:
 * one revoked signature refuses the image even if another verifies); a
 * revoked CA is not trusted. rv may be NULL. */
int lb_pe_sig_verify_rv(const uint8_t *img, size_t len,
			const struct lb_x509_ca *cas, size_t n_cas,
			const struct lb_pe_revoked *rv, int64_t now,
			char *err, size_t errsz);

/* PEM ("-----BEGIN CERTIFICATE-----") or DER in, DER out (malloc'd). */
int lb_x509_load(const uint8_t *buf, size_t len, uint8_t **der,
		 size_t *der_len);

const char *lb_pe_sig_reason(int rc);

#endif
