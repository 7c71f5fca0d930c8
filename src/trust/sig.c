/* minisign / signify keys and signatures (see sig.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium/crypto_generichash_blake2b.h>
#include <sodium/crypto_sign_ed25519.h>
#include <sodium/utils.h>

#include "sig.h"

#define UNTRUSTED "untrusted comment: "
#define TRUSTED   "trusted comment: "
#define MAX_LINES 4

struct line {
	const char *p;
	size_t len;
};

/*
 * Split a text file into at most `max` lines ("\n" ends a line, one "\r"
 * before it is dropped). After those only empty lines may follow. Returns
 * the number of lines, or a reason.
 */
static int split(const uint8_t *buf, size_t len, struct line *l, int max)
{
	size_t i = 0;
	int n = 0;

	if (!buf || !len)
		return LB_SIG_MALFORMED;
	if (len > LB_SIG_MAX_FILE)
		return LB_SIG_TOO_BIG;
	if (memchr(buf, 0, len))
		return LB_SIG_MALFORMED;
	while (i < len) {
		const uint8_t *e = memchr(buf + i, '\n', len - i);
		size_t end = e ? (size_t)(e - buf) : len, ll = end - i;

		if (ll && buf[end - 1] == '\r')
			ll--;
		if (n < max) {
			l[n].p = (const char *)buf + i;
			l[n].len = ll;
			n++;
		} else if (ll) {
			return LB_SIG_MALFORMED; /* content after the last line */
		}
		i = end + 1;
	}
	/* trailing empty lines are not lines */
	while (n && !l[n - 1].len)
		n--;
	return n;
}

static int prefixed(const struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l->len >= n && !memcmp(l->p, prefix, n);
}

/* strict base64 (with padding) of exactly `want` bytes */
static int b64(const struct line *l, uint8_t *out, size_t want)
{
	uint8_t tmp[128];
	size_t got = 0;

	if (!l->len)
		return LB_SIG_MALFORMED;
	/* longer than any of our objects: do not decode at all */
	if (l->len > 4 * ((sizeof(tmp) + 2) / 3))
		return LB_SIG_LENGTH;
	if (l->len % 4)
		return LB_SIG_BASE64;
	if (sodium_base642bin(tmp, sizeof(tmp), l->p, l->len, NULL, &got, NULL,
			      sodium_base64_VARIANT_ORIGINAL))
		return LB_SIG_BASE64;
	if (got != want)
		return LB_SIG_LENGTH;
	memcpy(out, tmp, want);
	return 0;
}

int lb_pubkey_parse(const uint8_t *buf, size_t len, struct lb_pubkey *out)
{
	struct line l[2];
	uint8_t raw[42];
	int n = split(buf, len, l, 2), rc;
	const struct line *k;

	if (n < 0)
		return n;
	if (n == 1 && !prefixed(&l[0], UNTRUSTED))
		k = &l[0]; /* the bare base64 form */
	else if (n == 2 && prefixed(&l[0], UNTRUSTED) &&
		 l[0].len - strlen(UNTRUSTED) <= LB_SIG_MAX_COMMENT)
		k = &l[1];
	else
		return LB_SIG_MALFORMED;
	if ((rc = b64(k, raw, sizeof(raw))))
		return rc;
	if (raw[0] != 'E' || raw[1] != 'd')
		return LB_SIG_ALGORITHM;
	memcpy(out->keyid, raw + 2, 8);
	memcpy(out->pk, raw + 10, 32);
	return 0;
}

int lb_sig_parse(const uint8_t *buf, size_t len, struct lb_sig *out)
{
	struct line l[MAX_LINES];
	uint8_t raw[74];
	int n = split(buf, len, l, MAX_LINES), rc;
	size_t tl;

	if (n < 0)
		return n;
	if (n != 2 && n != 4)
		return LB_SIG_MALFORMED;
	if (!prefixed(&l[0], UNTRUSTED) ||
	    l[0].len - strlen(UNTRUSTED) > LB_SIG_MAX_COMMENT)
		return LB_SIG_MALFORMED;
	if ((rc = b64(&l[1], raw, sizeof(raw))))
		return rc;
	memset(out, 0, sizeof(*out));
	if (raw[0] == 'E' && raw[1] == 'D')
		out->prehashed = 1;
	else if (raw[0] != 'E' || raw[1] != 'd')
		return LB_SIG_ALGORITHM;
	memcpy(out->keyid, raw + 2, 8);
	memcpy(out->sig, raw + 10, 64);
	if (n == 2) {
		/* signify: pure Ed25519, no trusted comment */
		if (out->prehashed)
			return LB_SIG_ALGORITHM;
		out->kind = LB_SIG_SIGNIFY;
		return 0;
	}
	if (!prefixed(&l[2], TRUSTED))
		return LB_SIG_MALFORMED;
	tl = l[2].len - strlen(TRUSTED);
	if (tl > LB_SIG_MAX_TRUSTED)
		return LB_SIG_TOO_BIG;
	memcpy(out->trusted, l[2].p + strlen(TRUSTED), tl);
	out->trusted[tl] = 0;
	out->trusted_len = tl;
	if ((rc = b64(&l[3], out->global, sizeof(out->global))))
		return rc;
	out->kind = LB_SIG_MINISIGN;
	return 0;
}

static const struct lb_pubkey *find(const struct lb_pubkey *k, size_t n,
				    const uint8_t keyid[8])
{
	for (size_t i = 0; i < n; i++)
		if (!memcmp(k[i].keyid, keyid, 8))
			return &k[i];
	return NULL;
}

int lb_sig_verify(const struct lb_sig *sig, const struct lb_keyring *keys,
		  const uint8_t *msg, size_t len, const uint8_t *blake2b,
		  const struct lb_pubkey **used)
{
	const struct lb_pubkey *k;
	uint8_t h[64], *g;
	int bad;

	if (!sig || !keys || (sig->kind != LB_SIG_MINISIGN &&
			      sig->kind != LB_SIG_SIGNIFY))
		return LB_SIG_MALFORMED;
	/* a revoked key id is refused even when a trusted key has it too */
	if (find(keys->revoked, keys->n_revoked, sig->keyid))
		return LB_SIG_REVOKED;
	if (!(k = find(keys->trusted, keys->n_trusted, sig->keyid)))
		return LB_SIG_UNKNOWN_KEY;
	if (sig->prehashed) {
		if (!blake2b) {
			if (!msg && len)
				return LB_SIG_NEED_DATA;
			crypto_generichash_blake2b(h, 64, msg, len, NULL, 0);
			blake2b = h;
		}
		bad = crypto_sign_ed25519_verify_detached(sig->sig, blake2b, 64,
							  k->pk);
	} else {
		if (!msg && len)
			return LB_SIG_NEED_DATA;
		if (!msg && blake2b)
			return LB_SIG_NEED_DATA;
		bad = crypto_sign_ed25519_verify_detached(
			sig->sig, msg ? msg : (const uint8_t *)"", len, k->pk);
	}
	if (bad)
		return LB_SIG_BAD;
	if (sig->kind == LB_SIG_MINISIGN) {
		if (sig->trusted_len > LB_SIG_MAX_TRUSTED)
			return LB_SIG_MALFORMED;
		if (!(g = malloc(64 + sig->trusted_len)))
			return -ENOMEM;
		memcpy(g, sig->sig, 64);
		memcpy(g + 64, sig->trusted, sig->trusted_len);
		bad = crypto_sign_ed25519_verify_detached(
			sig->global, g, 64 + sig->trusted_len, k->pk);
		free(g);
		if (bad)
			return LB_SIG_COMMENT;
	}
	if (used)
		*used = k;
	return 0;
}

const char *lb_sig_reason(int rc)
{
	switch (rc) {
	case 0: return "ok";
	case LB_SIG_NONE: return "no signature";
	case LB_SIG_UNKNOWN_KEY: return "unknown key";
	case LB_SIG_BAD: return "bad signature";
	case LB_SIG_COMMENT: return "trusted comment changed after signing";
	case LB_SIG_REVOKED: return "revoked key";
	case LB_SIG_MALFORMED: return "malformed";
	case LB_SIG_BASE64: return "malformed: bad base64";
	case LB_SIG_LENGTH: return "malformed: wrong length";
	case LB_SIG_ALGORITHM: return "unsupported algorithm";
	case LB_SIG_TOO_BIG: return "too large";
	case LB_SIG_NEED_DATA: return "legacy signature needs the file's bytes";
	case -ENOMEM: return "out of memory";
	default: return "error";
	}
}

void lb_keyid_hex(const uint8_t keyid[8], char *out)
{
	static const char x[] = "0123456789ABCDEF";

	for (int i = 0; i < 8; i++) {
		out[2 * i] = x[keyid[7 - i] >> 4];
		out[2 * i + 1] = x[keyid[7 - i] & 15];
	}
	out[16] = 0;
}
