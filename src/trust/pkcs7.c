/* Authenticode (PKCS#7 SignedData) verification of PE images (pkcs7.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bearssl/bearssl_ec.h>
#include <bearssl/bearssl_pem.h>
#include <bearssl/bearssl_rsa.h>
#include <bearssl/bearssl_x509.h>

#include "io.h"
#include "authenticode.h"
#include "hash.h"
#include "pe.h"
#include "der.h"
#include "pkcs7.h"


/* one TLV off the front of d: its tag, value and whole encoding */


static int eq(const struct lb_der *a, const uint8_t *b, size_t n)
{
	return a->n == n && !memcmp(a->p, b, n);
}

static int same(const struct lb_der *a, const struct lb_der *b)
{
	return a->n == b->n && !memcmp(a->p, b->p, a->n);
}

#define OID(name, ...) static const uint8_t name[] = { __VA_ARGS__ }
OID(oid_signed_data, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02);
OID(oid_spc_indirect, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x01, 0x04);
OID(oid_content_type, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x03);
OID(oid_message_digest, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x04);
OID(oid_sha1, 0x2b, 0x0e, 0x03, 0x02, 0x1a);
OID(oid_sha256, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01);
OID(oid_sha384, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02);
OID(oid_sha512, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03);
/* 1.2.840.113549.1.1.x (PKCS#1) and 1.2.840.10045.4.x (ECDSA) prefixes */
OID(oid_ext_key_usage, 0x55, 0x1d, 0x25);
OID(oid_any_eku, 0x55, 0x1d, 0x25, 0x00);
OID(oid_code_signing, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x03);
OID(oid_pkcs1, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01);
OID(oid_ecdsa, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04);

/* AlgorithmIdentifier contents { OID, optional NULL } -> our hash alg, or
 * -1 (strict: nothing unsigned is allowed to vary) */
static int hash_alg(struct lb_der alg)
{
	struct lb_der oid, nul;

	if (lb_der_want(&alg, 0x06, &oid, NULL))
		return -1;
	if (alg.n && (lb_der_want(&alg, 0x05, &nul, NULL) || nul.n))
		return -1;
	if (alg.n)
		return -1;
	if (eq(&oid, oid_sha1, sizeof(oid_sha1)))
		return LB_SHA1;
	if (eq(&oid, oid_sha256, sizeof(oid_sha256)))
		return LB_SHA256;
	if (eq(&oid, oid_sha384, sizeof(oid_sha384)))
		return LB_SHA384;
	if (eq(&oid, oid_sha512, sizeof(oid_sha512)))
		return LB_SHA512;
	return -1;
}

/* digestEncryptionAlgorithm contents, strictly: 1 for RSA PKCS#1 v1.5
 * (rsaEncryption, sha{1,256,384,512}WithRSAEncryption), 2 for ECDSA
 * (ecdsa-with-SHA256/384/512), -1 otherwise */
static int sig_alg(struct lb_der alg)
{
	static const uint8_t rsa_last[] = { 1, 5, 11, 12, 13 }, ec_last[] = { 2, 3, 4 };
	struct lb_der oid, nul;

	if (lb_der_want(&alg, 0x06, &oid, NULL))
		return -1;
	if (alg.n && (lb_der_want(&alg, 0x05, &nul, NULL) || nul.n))
		return -1;
	if (alg.n)
		return -1;
	if (oid.n == sizeof(oid_pkcs1) + 1 && !memcmp(oid.p, oid_pkcs1, sizeof(oid_pkcs1)) &&
	    memchr(rsa_last, oid.p[oid.n - 1], sizeof(rsa_last)))
		return 1;
	if (oid.n == sizeof(oid_ecdsa) + 2 && !memcmp(oid.p, oid_ecdsa, sizeof(oid_ecdsa)) &&
	    oid.p[oid.n - 2] == 3 && memchr(ec_last, oid.p[oid.n - 1], sizeof(ec_last)))
		return 2;
	return -1;
}

static const unsigned char *rsa_hash_oid(int alg)
{
	switch (alg) {
	case LB_SHA1: return BR_HASH_OID_SHA1;
	case LB_SHA256: return BR_HASH_OID_SHA256;
	case LB_SHA384: return BR_HASH_OID_SHA384;
	case LB_SHA512: return BR_HASH_OID_SHA512;
	}
	return NULL;
}

struct cert {
	struct lb_der all, issuer, serial, subject;
};

/* Certificate -> the TBS fields we match on */
static int cert_parse(struct lb_der all, struct cert *c)
{
	struct lb_der d = all, cv, tbs, x, alg_in, alg_out;
	uint8_t t;

	c->all = all;
	if (lb_der_want(&d, 0x30, &cv, NULL) || d.n || lb_der_want(&cv, 0x30, &tbs, NULL) ||
	    lb_der_want(&cv, 0x30, NULL, &alg_out))
		return -1;
	if (tbs.n && tbs.p[0] == 0xa0 && lb_der_tlv(&tbs, &t, NULL, NULL))
		return -1;
	/* the signature algorithm outside the signed part must be the one
	 * inside it (RFC 5280 4.1.1.2), so it cannot vary unsigned */
	if (lb_der_want(&tbs, 0x02, &c->serial, NULL) || lb_der_want(&tbs, 0x30, NULL, &alg_in) ||
	    !same(&alg_in, &alg_out))
		return -1;
	if (lb_der_want(&tbs, 0x30, NULL, &c->issuer) || lb_der_want(&tbs, 0x30, &x, NULL) ||
	    lb_der_want(&tbs, 0x30, NULL, &c->subject))
		return -1;
	return 0;
}

/* The signer certificate's extendedKeyUsage (RFC 5280 4.2.1.12): when it
 * has one, it must name codeSigning or anyExtendedKeyUsage (a TLS server
 * certificate from the same CA does not sign kernels). A certificate
 * without the extension is not restricted, as in Linux's verify_pefile and
 * sbverify. 0, LB_PE_SIG_USAGE or LB_PE_SIG_MALFORMED. */
static int signer_eku(const struct cert *c, char *err, size_t errsz)
{
	struct lb_der d = c->all, cv, tbs, x, exts;
	uint8_t t;
	int seen = 0;

	if (lb_der_want(&d, 0x30, &cv, NULL) || lb_der_want(&cv, 0x30, &tbs, NULL))
		return LB_PE_SIG_MALFORMED;
	if (tbs.n && tbs.p[0] == 0xa0 && lb_der_tlv(&tbs, &t, NULL, NULL))
		return LB_PE_SIG_MALFORMED;
	/* serial, signature, issuer, validity, subject, subjectPublicKeyInfo */
	for (int i = 0; i < 6; i++)
		if (lb_der_tlv(&tbs, &t, NULL, NULL))
			return LB_PE_SIG_MALFORMED;
	/* issuerUniqueID [1], subjectUniqueID [2] */
	while (tbs.n && (tbs.p[0] == 0x81 || tbs.p[0] == 0x82 ||
			 tbs.p[0] == 0xa1 || tbs.p[0] == 0xa2))
		if (lb_der_tlv(&tbs, &t, NULL, NULL))
			return LB_PE_SIG_MALFORMED;
	if (!tbs.n)
		return 0; /* no extensions */
	if (lb_der_want(&tbs, 0xa3, &x, NULL) || lb_der_want(&x, 0x30, &exts, NULL) ||
	    x.n || tbs.n)
		return LB_PE_SIG_MALFORMED;
	while (exts.n) {
		struct lb_der ext, oid, val, seq, purpose;
		int code = 0;

		if (lb_der_want(&exts, 0x30, &ext, NULL) || lb_der_want(&ext, 0x06, &oid, NULL) ||
		    (ext.n && ext.p[0] == 0x01 && lb_der_tlv(&ext, &t, NULL, NULL)) ||
		    lb_der_want(&ext, 0x04, &val, NULL) || ext.n)
			return LB_PE_SIG_MALFORMED;
		if (!eq(&oid, oid_ext_key_usage, sizeof(oid_ext_key_usage)))
			continue;
		if (seen++ || lb_der_want(&val, 0x30, &seq, NULL) || val.n || !seq.n)
			return LB_PE_SIG_MALFORMED;
		while (seq.n) {
			if (lb_der_want(&seq, 0x06, &purpose, NULL))
				return LB_PE_SIG_MALFORMED;
			code |= eq(&purpose, oid_code_signing, sizeof(oid_code_signing)) ||
				eq(&purpose, oid_any_eku, sizeof(oid_any_eku));
		}
		if (!code) {
			lb_seterr(err, errsz, "the signer's certificate is not for code signing "
				  "(extendedKeyUsage without codeSigning)");
			return LB_PE_SIG_USAGE;
		}
	}
	return 0;
}

/* Is the SHA-256 of these bytes in list[0..n)? */
static int listed(const uint8_t *p, size_t len, const uint8_t (*list)[32], size_t n)
{
	struct lb_digests d;

	if (!n || lb_hash_buf(LB_HASH_BIT(LB_SHA256), p, len, &d))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!memcmp(list[i], d.d[LB_SHA256], 32))
			return 1;
	return 0;
}

struct ta_store {
	br_x509_decoder_context dc;
	uint8_t dn[2048];
	size_t dn_len;
	int overflow;
};

static void dn_append(void *ctx, const void *buf, size_t len)
{
	struct ta_store *s = ctx;

	if (len > sizeof(s->dn) - s->dn_len) {
		s->overflow = 1;
		return;
	}
	memcpy(s->dn + s->dn_len, buf, len);
	s->dn_len += len;
}

/* The chain engine over chain[0..n) (signer first); the signer's key on
 * success. */
static int check_chain(const struct cert *chain, size_t n,
		       const br_x509_trust_anchor *tas, size_t n_tas,
		       int64_t now, br_x509_minimal_context *xc,
		       const br_x509_pkey **pk, unsigned *usages)
{
	const br_x509_class **vt = &xc->vtable;
	unsigned err;

	br_x509_minimal_init(xc, &br_sha256_vtable, tas, n_tas);
	br_x509_minimal_set_hash(xc, br_sha1_ID, &br_sha1_vtable);
	br_x509_minimal_set_hash(xc, br_sha224_ID, &br_sha224_vtable);
	br_x509_minimal_set_hash(xc, br_sha256_ID, &br_sha256_vtable);
	br_x509_minimal_set_hash(xc, br_sha384_ID, &br_sha384_vtable);
	br_x509_minimal_set_hash(xc, br_sha512_ID, &br_sha512_vtable);
	br_x509_minimal_set_rsa(xc, br_rsa_pkcs1_vrfy_get_default());
	br_x509_minimal_set_ecdsa(xc, br_ec_get_default(),
				  br_ecdsa_vrfy_asn1_get_default());
	if (now < 0)
		now = 0;
	br_x509_minimal_set_time(xc, (uint32_t)(now / 86400 + 719528),
				 (uint32_t)(now % 86400));
	(*vt)->start_chain(vt, NULL);
	for (size_t i = 0; i < n; i++) {
		(*vt)->start_cert(vt, (uint32_t)chain[i].all.n);
		(*vt)->append(vt, chain[i].all.p, chain[i].all.n);
		(*vt)->end_cert(vt);
	}
	err = (*vt)->end_chain(vt);
	if (err)
		return (int)err;
	*pk = (*vt)->get_pkey(vt, usages);
	return *pk ? 0 : -1;
}

/* One PKCS#7 SignedData blob. */
static int verify_one(const uint8_t *img, size_t len, struct lb_der p7,
		      const br_x509_trust_anchor *tas, size_t n_tas,
		      const struct lb_pe_revoked *rv, int64_t now, char *err, size_t errsz)
{
	struct lb_der ci, oid, sd, x, spc_all, spc, spc2, dinfo, dalg, dig;
	struct lb_der certs = { 0 }, sis, si, ias, siss, sser, sdalg, aa_all = { 0 };
	struct lb_der aa, encalg, encdig, md = { 0 }, algs;
	struct cert *cs = NULL, chain[LB_PE_SIG_MAX_CHAIN];
	size_t n_certs = 0, n_chain = 0;
	br_x509_minimal_context *xc = NULL;
	const br_x509_pkey *pk;
	struct lb_digests d;
	struct lb_hash *h = NULL;
	uint8_t tag, hbuf[64];
	int img_alg, si_alg, rc = LB_PE_SIG_MALFORMED, ok;
	int have_md = 0, have_ct = 0;
	unsigned usages = 0;

	/* ContentInfo { signedData, [0] SignedData } */
	if (lb_der_want(&p7, 0x30, &ci, NULL) || lb_der_want(&ci, 0x06, &oid, NULL) ||
	    !eq(&oid, oid_signed_data, sizeof(oid_signed_data)) ||
	    lb_der_want(&ci, 0xa0, &x, NULL) || lb_der_want(&x, 0x30, &sd, NULL)) {
		lb_seterr(err, errsz, "not a PKCS#7 SignedData");
		goto out;
	}
	/* version 1, digestAlgorithms, contentInfo */
	if (lb_der_want(&sd, 0x02, &x, NULL) || !eq(&x, (const uint8_t *)"\x01", 1) ||
	    lb_der_want(&sd, 0x31, &algs, NULL) ||
	    lb_der_want(&sd, 0x30, &ci, NULL) || lb_der_want(&ci, 0x06, &oid, NULL) ||
	    !eq(&oid, oid_spc_indirect, sizeof(oid_spc_indirect)) ||
	    lb_der_want(&ci, 0xa0, &x, NULL) || lb_der_want(&x, 0x30, &spc, &spc_all)) {
		lb_seterr(err, errsz, "no SpcIndirectDataContent");
		goto out;
	}
	/* SpcIndirectDataContent { data, DigestInfo { alg, digest } } */
	spc2 = spc;
	if (lb_der_want(&spc2, 0x30, &x, NULL) || lb_der_want(&spc2, 0x30, &dinfo, NULL) ||
	    lb_der_want(&dinfo, 0x30, &dalg, NULL) || lb_der_want(&dinfo, 0x04, &dig, NULL)) {
		lb_seterr(err, errsz, "bad SpcIndirectDataContent");
		goto out;
	}
	if ((img_alg = hash_alg(dalg)) < 0) {
		lb_seterr(err, errsz, "image digest algorithm not supported");
		rc = LB_PE_SIG_ALGORITHM;
		goto out;
	}
	if (dig.n != lb_hash_len((unsigned)img_alg)) {
		lb_seterr(err, errsz, "image digest of the wrong length");
		goto out;
	}
	/* [0] certificates, [1] crls (skipped), signerInfos */
	if (sd.n && sd.p[0] == 0xa0 && lb_der_want(&sd, 0xa0, &certs, NULL))
		goto out;
	if (sd.n && sd.p[0] == 0xa1 && lb_der_tlv(&sd, &tag, NULL, NULL))
		goto out;
	if (lb_der_want(&sd, 0x31, &sis, NULL) || lb_der_want(&sis, 0x30, &si, NULL)) {
		lb_seterr(err, errsz, "no SignerInfo");
		goto out;
	}
	/* SignerInfo { version, issuerAndSerialNumber, digestAlgorithm,
	 * [0] authenticatedAttributes, digestEncryptionAlgorithm,
	 * encryptedDigest, ... } */
	if (lb_der_want(&si, 0x02, &x, NULL) || !eq(&x, (const uint8_t *)"\x01", 1) ||
	    lb_der_want(&si, 0x30, &ias, NULL) ||
	    lb_der_want(&ias, 0x30, NULL, &siss) || lb_der_want(&ias, 0x02, &sser, NULL) ||
	    lb_der_want(&si, 0x30, &sdalg, NULL) ||
	    lb_der_want(&si, 0xa0, &aa, &aa_all) || lb_der_want(&si, 0x30, &encalg, NULL) ||
	    lb_der_want(&si, 0x04, &encdig, NULL)) {
		lb_seterr(err, errsz, "bad SignerInfo (authenticated attributes are required)");
		goto out;
	}
	if ((si_alg = hash_alg(sdalg)) < 0) {
		lb_seterr(err, errsz, "signer digest algorithm not supported");
		rc = LB_PE_SIG_ALGORITHM;
		goto out;
	}
	/* digestAlgorithms: known ones only, the signer's among them; one
	 * signer, nothing after the signer infos */
	{
		int found = 0;
		while (algs.n) {
			struct lb_der a;
			int h2;

			if (lb_der_want(&algs, 0x30, &a, NULL) || (h2 = hash_alg(a)) < 0) {
				lb_seterr(err, errsz, "bad digestAlgorithms");
				goto out;
			}
			found |= h2 == si_alg;
		}
		if (!found || sis.n || sd.n) {
			lb_seterr(err, errsz, "digestAlgorithms or signerInfos not as signed");
			goto out;
		}
	}
	/* the authenticated attributes: contentType and messageDigest, once */
	while (aa.n) {
		struct lb_der attr, aoid, vals, v;

		if (lb_der_want(&aa, 0x30, &attr, NULL) || lb_der_want(&attr, 0x06, &aoid, NULL) ||
		    lb_der_want(&attr, 0x31, &vals, NULL))
			goto bad_attrs;
		if (eq(&aoid, oid_message_digest, sizeof(oid_message_digest))) {
			if (have_md++ || lb_der_want(&vals, 0x04, &md, NULL))
				goto bad_attrs;
		} else if (eq(&aoid, oid_content_type, sizeof(oid_content_type))) {
			if (have_ct++ || lb_der_want(&vals, 0x06, &v, NULL) ||
			    !eq(&v, oid_spc_indirect, sizeof(oid_spc_indirect)))
				goto bad_attrs;
		}
	}
	if (!have_md || !have_ct) {
bad_attrs:
		lb_seterr(err, errsz, "bad authenticated attributes");
		goto out;
	}
	/* the certificates; the signer's by issuer and serial number */
	if (!(cs = calloc(LB_PE_SIG_MAX_CERTS, sizeof(*cs)))) {
		rc = -ENOMEM;
		goto out;
	}
	while (certs.n) {
		struct lb_der c;

		if (n_certs == LB_PE_SIG_MAX_CERTS || lb_der_want(&certs, 0x30, NULL, &c) ||
		    cert_parse(c, &cs[n_certs])) {
			lb_seterr(err, errsz, "bad or too many certificates");
			rc = LB_PE_SIG_MALFORMED;
			goto out;
		}
		n_certs++;
	}
	for (size_t i = 0; i < n_certs && !n_chain; i++)
		if (same(&cs[i].issuer, &siss) && same(&cs[i].serial, &sser))
			chain[n_chain++] = cs[i];
	if (!n_chain) {
		lb_seterr(err, errsz, "the signer's certificate is not in the signature");
		rc = LB_PE_SIG_UNTRUSTED;
		goto out;
	}
	/* a revoked certificate anywhere in the signature refuses it */
	for (size_t i = 0; rv && i < n_certs; i++)
		if (listed(cs[i].all.p, cs[i].all.n, rv->certs, rv->n_certs)) {
			lb_seterr(err, errsz, "certificate %zu of the signature is revoked by the policy "
				  "(revoke-x509)", i);
			rc = LB_PE_SIG_REVOKED;
			goto out;
		}
	/* up the issuers found in the signature (the engine stops at a CA) */
	while (n_chain < LB_PE_SIG_MAX_CHAIN) {
		const struct cert *cur = &chain[n_chain - 1], *next = NULL;

		if (same(&cur->issuer, &cur->subject))
			break;
		for (size_t i = 0; i < n_certs && !next; i++) {
			int used = 0;
			for (size_t j = 0; j < n_chain; j++)
				used |= cs[i].all.p == chain[j].all.p;
			if (!used && same(&cs[i].subject, &cur->issuer))
				next = &cs[i];
		}
		if (!next)
			break;
		chain[n_chain++] = *next;
	}
	if (!(xc = malloc(sizeof(*xc)))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((ok = check_chain(chain, n_chain, tas, n_tas, now, xc, &pk, &usages))) {
		lb_seterr(err, errsz, "certificate chain not trusted (BearSSL error %d)", ok);
		rc = LB_PE_SIG_UNTRUSTED;
		goto out;
	}
	/* what the signer's certificate may do: keyUsage (BearSSL reads it:
	 * without the extension every use) must allow signatures, and an
	 * extendedKeyUsage must allow code signing */
	if (!(usages & BR_KEYTYPE_SIGN)) {
		lb_seterr(err, errsz, "the signer's certificate is not for signing "
			  "(keyUsage without digitalSignature)");
		rc = LB_PE_SIG_USAGE;
		goto out;
	}
	if ((rc = signer_eku(&chain[0], err, errsz)))
		goto out;
	rc = LB_PE_SIG_MALFORMED;
	if (!(h = malloc(sizeof(*h)))) {
		rc = -ENOMEM;
		goto out;
	}
	/* messageDigest attribute = hash(SpcIndirectDataContent's contents) */
	lb_hash_init(h, LB_HASH_BIT((unsigned)si_alg));
	lb_hash_update(h, spc.p, spc.n);
	lb_hash_final(h, &d);
	if (md.n != lb_hash_len((unsigned)si_alg) || memcmp(md.p, d.d[si_alg], md.n)) {
		lb_seterr(err, errsz, "message digest attribute does not match the signed content");
		rc = LB_PE_SIG_BAD;
		goto out;
	}
	/* the signature over the authenticated attributes, as a SET */
	lb_hash_init(h, LB_HASH_BIT((unsigned)si_alg));
	lb_hash_update(h, "\x31", 1);
	lb_hash_update(h, aa_all.p + 1, aa_all.n - 1);
	lb_hash_final(h, &d);
	ok = 0;
	if (pk->key_type == BR_KEYTYPE_RSA && sig_alg(encalg) == 1) {
		ok = br_rsa_pkcs1_vrfy_get_default()(encdig.p, encdig.n,
			rsa_hash_oid(si_alg), lb_hash_len((unsigned)si_alg),
			&pk->key.rsa, hbuf) &&
		     !memcmp(hbuf, d.d[si_alg], lb_hash_len((unsigned)si_alg));
	} else if (pk->key_type == BR_KEYTYPE_EC && sig_alg(encalg) == 2) {
		ok = br_ecdsa_vrfy_asn1_get_default()(br_ec_get_default(),
			d.d[si_alg], lb_hash_len((unsigned)si_alg), &pk->key.ec,
			encdig.p, encdig.n);
	} else {
		lb_seterr(err, errsz, "signature algorithm not supported");
		rc = LB_PE_SIG_ALGORITHM;
		goto out;
	}
	if (!ok) {
		lb_seterr(err, errsz, "the signer's signature does not verify");
		rc = LB_PE_SIG_BAD;
		goto out;
	}
	/* last, the image itself: what was signed by a trusted signer */
	if ((rc = lb_authenticode(img, len, LB_HASH_BIT((unsigned)img_alg), &d))) {
		lb_seterr(err, errsz, "not a PE image");
		goto out;
	}
	if (memcmp(d.d[img_alg], dig.p, dig.n)) {
		lb_seterr(err, errsz, "image digest differs from the signed one");
		rc = LB_PE_SIG_CHANGED;
		goto out;
	}
	rc = 0;
out:
	free(xc);
	free(cs);
	free(h);
	return rc;
}

/* rank of a failure: the most telling one is reported */
static int rank(int rc)
{
	switch (rc) {
	case LB_PE_SIG_REVOKED: return 8;
	case LB_PE_SIG_CHANGED: return 6;
	case LB_PE_SIG_BAD: return 5;
	case LB_PE_SIG_USAGE: return 4;
	case LB_PE_SIG_UNTRUSTED: return 3;
	case LB_PE_SIG_ALGORITHM: return 2;
	case LB_PE_SIG_MALFORMED: return 1;
	}
	return 7; /* ENOMEM etc. */
}

int lb_pe_sig_verify(const uint8_t *img, size_t len,
		     const struct lb_x509_ca *cas, size_t n_cas, int64_t now,
		     char *err, size_t errsz)
{
	return lb_pe_sig_verify_rv(img, len, cas, n_cas, NULL, now, err, errsz);
}

int lb_pe_sig_verify_rv(const uint8_t *img, size_t len,
			const struct lb_x509_ca *cas, size_t n_cas,
			const struct lb_pe_revoked *rv, int64_t now,
			char *err, size_t errsz)
{
	struct lb_pe *pe = malloc(sizeof(*pe));
	struct ta_store *st = NULL;
	br_x509_trust_anchor *tas = NULL;
	size_t n_tas = 0, off, end;
	int rc = LB_PE_SIG_MALFORMED, best = 0, n_sigs = 0, ok_sigs = 0;
	char e1[160];

	lb_seterr(err, errsz, "not a PE image");
	if (!pe)
		return -ENOMEM;
	if (lb_pe_parse(img, len, len, pe))
		goto out;
	if (!pe->cert_off || !pe->cert_size) {
		lb_seterr(err, errsz, "not signed (no certificate table)");
		rc = LB_PE_SIG_UNSIGNED;
		goto out;
	}
	if ((uint64_t)pe->cert_off + pe->cert_size > len) {
		lb_seterr(err, errsz, "certificate table outside the file");
		goto out;
	}
	/* a revoked image is refused whoever signed it */
	if (rv && rv->n_images) {
		struct lb_digests d;

		if ((rc = lb_authenticode(img, len, LB_HASH_BIT(LB_SHA256), &d)))
			goto out;
		for (size_t i = 0; i < rv->n_images; i++)
			if (!memcmp(rv->images[i], d.d[LB_SHA256], 32)) {
				lb_seterr(err, errsz, "the image's Authenticode SHA-256 is revoked "
					  "by the policy (revoke-pe)");
				rc = LB_PE_SIG_REVOKED;
				goto out;
			}
		rc = LB_PE_SIG_MALFORMED;
	}
	if (n_cas > LB_PE_SIG_MAX_CAS)
		n_cas = LB_PE_SIG_MAX_CAS;
	st = calloc(n_cas ? n_cas : 1, sizeof(*st));
	tas = calloc(n_cas ? n_cas : 1, sizeof(*tas));
	if (!st || !tas) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n_cas; i++) {
		const br_x509_pkey *k;

		if (rv && listed(cas[i].der, cas[i].len, rv->certs, rv->n_certs))
			continue; /* a revoked CA is not trusted */
		br_x509_decoder_init(&st[i].dc, dn_append, &st[i]);
		br_x509_decoder_push(&st[i].dc, cas[i].der, cas[i].len);
		k = br_x509_decoder_get_pkey(&st[i].dc);
		if (!k || st[i].overflow)
			continue; /* not a usable certificate: never trusted */
		tas[n_tas].dn.data = st[i].dn;
		tas[n_tas].dn.len = st[i].dn_len;
		tas[n_tas].flags = BR_X509_TA_CA;
		tas[n_tas].pkey = *k;
		n_tas++;
	}
	/* WIN_CERTIFICATE { u32 length, u16 revision, u16 type, data }, each
	 * 8-byte aligned */
	off = pe->cert_off;
	end = (size_t)pe->cert_off + pe->cert_size;
	while (end - off >= 8) {
		uint32_t l = (uint32_t)img[off] | (uint32_t)img[off + 1] << 8 |
			     (uint32_t)img[off + 2] << 16 | (uint32_t)img[off + 3] << 24;
		uint16_t type = (uint16_t)(img[off + 6] | img[off + 7] << 8);

		if (l < 8 || l > end - off)
			break;
		if (type == 2) {
			struct lb_der p7 = { img + off + 8, l - 8 };
			int r = verify_one(img, len, p7, tas, n_tas, rv, now, e1, sizeof(e1));

			n_sigs++;
			/* with revoked certificates every signature is looked
			 * at: one revoked signature refuses the image */
			if (!r && !(rv && rv->n_certs)) {
				lb_seterr(err, errsz, "ok");
				rc = 0;
				goto out;
			}
			ok_sigs += !r;
			if (r && (!best || rank(r) > rank(best))) {
				best = r;
				lb_seterr(err, errsz, "%s", e1);
			}
		}
		l = (l + 7) & ~7u;
		if (!l || l > end - off)
			break;
		off += l;
	}
	if (!n_sigs) {
		lb_seterr(err, errsz, "not signed (no PKCS#7 signature in the certificate table)");
		rc = LB_PE_SIG_UNSIGNED;
	} else if (ok_sigs && best != LB_PE_SIG_REVOKED) {
		lb_seterr(err, errsz, "ok");
		rc = 0;
	} else {
		rc = best;
	}
out:
	free(tas);
	free(st);
	free(pe);
	return rc;
}

struct pem_out {
	uint8_t *buf;
	size_t len, cap;
	int overflow;
};

static void pem_append(void *ctx, const void *data, size_t len)
{
	struct pem_out *o = ctx;

	if (len > o->cap - o->len) {
		o->overflow = 1;
		return;
	}
	memcpy(o->buf + o->len, data, len);
	o->len += len;
}

int lb_x509_load(const uint8_t *buf, size_t len, uint8_t **der, size_t *der_len)
{
	br_pem_decoder_context *pc;
	struct pem_out o = { 0 };
	int in_cert = 0, done = 0;

	if (!buf || !len || len > (1u << 20))
		return -EINVAL;
	if (buf[0] == 0x30) { /* DER */
		if (!(*der = malloc(len)))
			return -ENOMEM;
		memcpy(*der, buf, len);
		*der_len = len;
		return 0;
	}
	o.cap = len;
	if (!(o.buf = malloc(len)) || !(pc = malloc(sizeof(*pc)))) {
		free(o.buf);
		return -ENOMEM;
	}
	br_pem_decoder_init(pc);
	while (len && !done) {
		size_t k = br_pem_decoder_push(pc, buf, len);

		buf += k;
		len -= k;
		switch (br_pem_decoder_event(pc)) {
		case BR_PEM_BEGIN_OBJ:
			in_cert = !strcmp(br_pem_decoder_name(pc), "CERTIFICATE") ||
				  !strcmp(br_pem_decoder_name(pc), "X509 CERTIFICATE");
			br_pem_decoder_setdest(pc, in_cert ? pem_append : NULL, &o);
			break;
		case BR_PEM_END_OBJ:
			done = in_cert && o.len && !o.overflow;
			break;
		case BR_PEM_ERROR:
			len = 0;
			break;
		}
	}
	free(pc);
	if (!done) {
		free(o.buf);
		return -EINVAL;
	}
	*der = o.buf;
	*der_len = o.len;
	return 0;
}

const char *lb_pe_sig_reason(int rc)
{
	switch (rc) {
	case 0: return "ok";
	case LB_PE_SIG_UNSIGNED: return "no signature";
	case LB_PE_SIG_MALFORMED: return "malformed signature";
	case LB_PE_SIG_CHANGED: return "changed after signing";
	case LB_PE_SIG_BAD: return "bad signature";
	case LB_PE_SIG_UNTRUSTED: return "not signed by a trusted CA";
	case LB_PE_SIG_ALGORITHM: return "unsupported algorithm";
	case LB_PE_SIG_USAGE: return "signer certificate not for code signing";
	case LB_PE_SIG_REVOKED: return "revoked";
	case -ENOMEM: return "out of memory";
	default: return "error";
	}
}
