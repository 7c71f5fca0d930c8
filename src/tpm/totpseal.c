/* The owner's TOTP sealed to PCRs in TPM NV: see totpseal.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base32.h"
#include "totp.h"
#include "totpseal.h"

#define NV_ATTRS (LB_TPM2_NV_OWNERWRITE | LB_TPM2_NV_OWNERREAD | LB_TPM2_NV_AUTHREAD | \
		  LB_TPM2_NV_NO_DA)

/* format-one RC with error number e (any handle/session/parameter) */
static int rc_is(int rc, unsigned e)
{
	return rc > 0 && (rc & 0x80) && (unsigned)(rc & 0x3f) == e;
}

int lb_totpseal_changed(int rc)
{
	return rc_is(rc, 0x1d) /* POLICY_FAIL */ || rc == 0x128 /* PCR_CHANGED */;
}

/* TPM_RC_RETRY, TPM_RC_YIELDED, TPM_RC_TESTING: "try again" (Part 2
 * 6.6.3); swtpm answers the first NV_Read after tpm2_nvwrite with RETRY */
static int again(int rc)
{
	return rc == 0x922 || rc == 0x908 || rc == 0x90a;
}
#define RETRY(call) ({ int r_ = (call); for (int i_ = 0; i_ < 3 && again(r_); i_++) r_ = (call); r_; })

static int check_args(uint32_t index, uint32_t mask)
{
	if ((index >> 24) != 0x01 || !mask || (mask >> LB_TPM2_NUM_PCRS))
		return -EINVAL;
	return 0;
}

static int sha256_active(struct lb_tpm2 *t)
{
	struct lb_tpm2_pcrsel banks[LB_TPM2_MAX_BANKS];
	size_t nb;
	int rc = lb_tpm2_get_banks(t, banks, LB_TPM2_MAX_BANKS, &nb);

	if (rc)
		return rc;
	for (size_t i = 0; i < nb; i++)
		if (banks[i].alg == LB_TPM2_ALG_SHA256)
			return 0;
	return -ENOTSUP;
}

/* a policy (or trial) session with PolicyPCR(sha256: mask) */
static int pcr_session(struct lb_tpm2 *t, uint8_t type, uint32_t mask, uint32_t *session)
{
	struct lb_tpm2_pcrsel sel = { LB_TPM2_ALG_SHA256, mask };
	uint8_t nonce[16];
	int rc = lb_tpm2_get_random(t, nonce, sizeof(nonce));

	if (!rc)
		rc = lb_tpm2_start_session(t, type, nonce, sizeof(nonce), session);
	if (rc)
		return rc;
	rc = lb_tpm2_policy_pcr(t, *session, &sel, 1);
	if (rc) {
		lb_tpm2_flush(t, *session);
		*session = 0;
	}
	return rc;
}

/* The record in NV: written over the old one in one NV_Write when the
 * index is ours and of the record's size (a TOTP sealed on this TPM always
 * is: the same secret size, policy and storage key), so there is no moment
 * without a record; else the index is undefined and defined again. */
static int nv_replace(struct lb_tpm2 *t, uint32_t index, const uint8_t *buf, size_t len)
{
	struct lb_tpm2_nvpub pub;
	int rc = RETRY(lb_tpm2_nv_read_public(t, index, &pub));

	if (!rc && pub.size == len && (pub.attrs & ~LB_TPM2_NV_WRITTEN) == NV_ATTRS)
		return lb_tpm2_nv_write(t, LB_TPM2_RH_OWNER, NULL, index, 0, buf, len);
	if (!rc)
		rc = lb_tpm2_nv_undefine(t, LB_TPM2_RH_OWNER, NULL, index);
	else if (rc_is(rc, 0x0b)) /* TPM_RC_HANDLE: not defined */
		rc = 0;
	if (rc)
		return rc;
	rc = lb_tpm2_nv_define(t, LB_TPM2_RH_OWNER, NULL, index, NV_ATTRS, (uint16_t)len, NULL, 0);
	if (!rc)
		rc = lb_tpm2_nv_write(t, LB_TPM2_RH_OWNER, NULL, index, 0, buf, len);
	return rc;
}

int lb_totpseal_seal(struct lb_tpm2 *t, uint32_t index, uint32_t mask, uint8_t *secret)
{
	static struct lb_totprec rec;
	static uint8_t buf[LB_TOTPREC_MAX];
	uint8_t policy[LB_TPM2_MAX_DIGEST];
	uint32_t srk = 0, session = 0;
	size_t plen, len;
	int rc;

	if ((rc = check_args(index, mask)))
		return rc;
	if ((rc = sha256_active(t)))
		return rc;
	rc = lb_tpm2_get_random(t, secret, LB_TOTPSEAL_SECRET);
	memset(t->rsp, 0, sizeof(t->rsp)); /* the secret was in the reply */
	if (rc)
		return rc;
	memset(&rec, 0, sizeof(rec));
	rec.alg = LB_TPM2_ALG_SHA256;
	rec.mask = mask;
	rec.digits = LB_TOTP_DIGITS;
	rec.period = LB_TOTP_STEP;
	if ((rc = pcr_session(t, LB_TPM2_SE_TRIAL, mask, &session)))
		goto out;
	rc = lb_tpm2_policy_get_digest(t, session, policy, sizeof(policy), &plen);
	lb_tpm2_flush(t, session);
	session = 0;
	if (rc)
		goto out;
	if ((rc = lb_tpm2_create_primary(t, LB_TPM2_RH_OWNER, NULL, &srk))) {
		srk = 0;
		goto out;
	}
	rc = lb_tpm2_create_sealed(t, srk, NULL, policy, plen, secret, LB_TOTPSEAL_SECRET,
				   &rec.priv, &rec.pub);
	memset(t->cmd, 0, sizeof(t->cmd)); /* the secret was in the command */
	lb_tpm2_flush(t, srk);
	if (rc)
		goto out;
	if ((rc = lb_totprec_build(&rec, buf, sizeof(buf), &len)))
		goto out;
	if (len > LB_TOTPREC_NV_MAX) {
		rc = -EMSGSIZE;
		goto out;
	}
	/* nothing in NV changed before this point: replace what is there
	 * (re-seal after an update) */
	rc = nv_replace(t, index, buf, len);
out:
	if (rc)
		memset(secret, 0, LB_TOTPSEAL_SECRET);
	return rc;
}

/* the record in NV index `index`: -ENOENT none, -EILSEQ not a record */
static int read_rec(struct lb_tpm2 *t, uint32_t index, struct lb_totprec *rec)
{
	static uint8_t buf[LB_TOTPREC_NV_MAX];
	struct lb_tpm2_nvpub pub;
	int rc;

	if ((index >> 24) != 0x01)
		return -EINVAL;
	rc = RETRY(lb_tpm2_nv_read_public(t, index, &pub));
	if (rc_is(rc, 0x0b))
		return -ENOENT;
	if (rc)
		return rc;
	if (!(pub.attrs & LB_TPM2_NV_WRITTEN) || ((pub.attrs >> 4) & 0xf) != 0 ||
	    pub.size > sizeof(buf) || pub.size < 16)
		return -EILSEQ;
	if ((rc = RETRY(lb_tpm2_nv_read(t, index, NULL, index, 0, buf, pub.size))))
		return rc;
	if (lb_totprec_parse(buf, pub.size, rec) || rec->alg != LB_TPM2_ALG_SHA256)
		return -EILSEQ;
	return 0;
}

int lb_totpseal_reseal(struct lb_tpm2 *t, uint32_t index, uint8_t *secret, uint32_t *mask)
{
	static struct lb_totprec rec;
	int rc = read_rec(t, index, &rec);

	if (rc)
		return rc;
	if (check_args(index, rec.mask))
		return -EILSEQ;
	*mask = rec.mask;
	return lb_totpseal_seal(t, index, rec.mask, secret);
}

int lb_totpseal_info(struct lb_tpm2 *t, uint32_t index, uint32_t *mask)
{
	static struct lb_totprec rec;
	int rc = read_rec(t, index, &rec);

	if (!rc && check_args(index, rec.mask))
		rc = -EILSEQ;
	if (!rc)
		*mask = rec.mask;
	return rc;
}

int lb_totpseal_unseal(struct lb_tpm2 *t, uint32_t index, uint8_t *secret,
		       size_t cap, size_t *len, struct lb_totprec *out)
{
	static struct lb_totprec rec;
	struct lb_tpm2_auth auth;
	uint32_t srk = 0, item = 0, session = 0, cc;
	int rc;

	if ((rc = read_rec(t, index, &rec)))
		return rc;
	if ((rc = RETRY(lb_tpm2_create_primary(t, LB_TPM2_RH_OWNER, NULL, &srk))))
		return rc;
	rc = lb_tpm2_load(t, srk, NULL, &rec.priv, &rec.pub, &item);
	cc = t->last_cc;
	lb_tpm2_flush(t, srk);
	t->last_cc = cc; /* messages name the command that failed */
	if (rc)
		return rc;
	if ((rc = pcr_session(t, LB_TPM2_SE_POLICY, rec.mask, &session)))
		goto out;
	auth = (struct lb_tpm2_auth){ session, 0, 0, NULL };
	rc = lb_tpm2_unseal(t, item, &auth, secret, cap, len);
	memset(t->rsp, 0, sizeof(t->rsp)); /* and in the reply */
	/* continueSession clear: the TPM flushed the session on success;
	 * on failure it stays loaded */
	if (!rc)
		session = 0;
	if (!rc && (!*len || *len > LB_TOTP_KEY_MAX))
		rc = -EILSEQ;
	if (!rc && out)
		*out = rec;
out:
	cc = t->last_cc;
	if (session)
		lb_tpm2_flush(t, session);
	lb_tpm2_flush(t, item);
	t->last_cc = cc;
	return rc;
}

int lb_totpseal_line(struct lb_tpm2 *t, uint32_t index, int64_t now, char *buf, size_t n)
{
	uint8_t secret[LB_TOTP_KEY_MAX];
	struct lb_totprec rec;
	size_t len = 0;
	uint32_t code;
	char rcs[96];
	int rc = lb_totpseal_unseal(t, index, secret, sizeof(secret), &len, &rec);

	if (rc == -ENOENT)
		return rc;
	if (!rc && now < 0)
		rc = -ERANGE;
	if (!rc)
		rc = lb_totp(secret, len, (uint64_t)now, rec.period, rec.digits, &code);
	memset(secret, 0, sizeof(secret));
	if (!rc) {
		snprintf(buf, n, "TOTP %0*u (valid %u s)", rec.digits, code,
			 (unsigned)(rec.period - (uint64_t)now % rec.period));
		return 0;
	}
	if (lb_totpseal_changed(rc)) {
		snprintf(buf, n, "TOTP unseal failed: measurements changed");
	} else if (rc > 0) {
		const char *cc = lb_tpm2_cc_name(t->last_cc);

		snprintf(buf, n, "TOTP unseal failed: %s: %s", cc ? cc : "?",
			 lb_tpm2_rc_str((uint32_t)rc, rcs, sizeof(rcs)));
	} else if (rc == -EILSEQ) {
		snprintf(buf, n, "TOTP unseal failed: NV 0x%08x holds no TOTP record", index);
	} else if (rc == -EBADMSG) {
		snprintf(buf, n, "TOTP unseal failed: malformed response from the TPM");
	} else if (rc == -ERANGE) {
		snprintf(buf, n, "TOTP unseal failed: the clock is before 1970");
	} else {
		snprintf(buf, n, "TOTP unseal failed: %s", strerror(-rc));
	}
	return rc > 0 ? -EIO : rc;
}

/* RFC 3986 unreserved characters stay, everything else %XX */
static int pct(const char *s, char *out, size_t cap, size_t *k)
{
	static const char hx[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			   (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';

		if (*k + (keep ? 1 : 3) >= cap)
			return -ENOSPC;
		if (keep) {
			out[(*k)++] = (char)c;
		} else {
			out[(*k)++] = '%';
			out[(*k)++] = hx[c >> 4];
			out[(*k)++] = hx[c & 15];
		}
	}
	out[*k] = 0;
	return 0;
}

int lb_totpseal_uri(const uint8_t *secret, size_t len, const char *issuer,
		    const char *label, char *out, size_t cap)
{
	char b32[2 * LB_TOTP_KEY_MAX];
	size_t k;
	int rc;

	if (lb_base32_encode(secret, len, 0, b32, sizeof(b32)) < 0)
		return -ENOSPC;
	k = (size_t)snprintf(out, cap, "otpauth://totp/");
	if (k >= cap)
		return -ENOSPC;
	if ((rc = pct(issuer, out, cap, &k)))
		return rc;
	if (k + 1 >= cap)
		return -ENOSPC;
	out[k++] = ':';
	out[k] = 0;
	if ((rc = pct(label, out, cap, &k)))
		return rc;
	rc = snprintf(out + k, cap - k, "?secret=%s&issuer=", b32);
	if (rc < 0 || (size_t)rc >= cap - k)
		return -ENOSPC;
	k += (size_t)rc;
	if ((rc = pct(issuer, out, cap, &k)))
		return rc;
	rc = snprintf(out + k, cap - k, "&algorithm=SHA1&digits=%d&period=%d", LB_TOTP_DIGITS,
		      LB_TOTP_STEP);
	memset(b32, 0, sizeof(b32));
	return rc < 0 || (size_t)rc >= cap - k ? -ENOSPC : 0;
}
