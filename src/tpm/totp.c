/* TOTP (RFC 6238) with BearSSL's HMAC-SHA-1: see totp.h. */
#include <errno.h>
#include <string.h>

#include <bearssl/bearssl_hash.h>
#include <bearssl/bearssl_hmac.h>

#include "totp.h"

int lb_hotp(const uint8_t *key, size_t klen, uint64_t c, unsigned digits,
	    uint32_t *code)
{
	static const uint32_t pow10[] = { 1000000, 10000000, 100000000 };
	br_hmac_key_context kc;
	br_hmac_context hc;
	uint8_t msg[8], mac[20];
	unsigned off;
	uint32_t bin;

	if (!key || !klen || klen > LB_TOTP_KEY_MAX || digits < 6 || digits > 8 || !code)
		return -EINVAL;
	for (int i = 7; i >= 0; i--, c >>= 8)
		msg[i] = (uint8_t)c;
	br_hmac_key_init(&kc, &br_sha1_vtable, key, klen);
	br_hmac_init(&hc, &kc, 0);
	br_hmac_update(&hc, msg, sizeof(msg));
	br_hmac_out(&hc, mac);
	off = mac[19] & 0x0f;
	bin = (uint32_t)(mac[off] & 0x7f) << 24 | (uint32_t)mac[off + 1] << 16 |
	      (uint32_t)mac[off + 2] << 8 | mac[off + 3];
	*code = bin % pow10[digits - 6];
	memset(&kc, 0, sizeof(kc));
	memset(&hc, 0, sizeof(hc));
	memset(mac, 0, sizeof(mac));
	return 0;
}

int lb_totp(const uint8_t *key, size_t klen, uint64_t t, unsigned step,
	    unsigned digits, uint32_t *code)
{
	if (!step)
		return -EINVAL;
	return lb_hotp(key, klen, t / step, digits, code);
}
