/* Streaming multi-digest: BearSSL SHA-1/2, libsodium BLAKE2b-512. */
#include <errno.h>
#include <string.h>

#include "hash.h"

static const struct {
	const char *name;
	size_t len;
} algs[LB_HASH_N] = {
	[LB_SHA1] = { "sha1", 20 },
	[LB_SHA256] = { "sha256", 32 },
	[LB_SHA384] = { "sha384", 48 },
	[LB_SHA512] = { "sha512", 64 },
	[LB_BLAKE2B] = { "blake2b", 64 },
};

size_t lb_hash_len(unsigned alg)
{
	return alg < LB_HASH_N ? algs[alg].len : 0;
}

const char *lb_hash_name(unsigned alg)
{
	return alg < LB_HASH_N ? algs[alg].name : NULL;
}

int lb_hash_by_name(const char *name)
{
	for (unsigned a = 0; a < LB_HASH_N; a++)
		if (!strcmp(name, algs[a].name))
			return (int)a;
	return -EINVAL;
}

static crypto_generichash_blake2b_state *b2(struct lb_hash *h)
{
	uintptr_t p = (uintptr_t)h->b2raw;

	return (crypto_generichash_blake2b_state *)((p + 63) & ~(uintptr_t)63);
}

int lb_hash_init(struct lb_hash *h, unsigned mask)
{
	if (!mask || (mask & ~LB_HASH_ALL))
		return -EINVAL;
	h->mask = mask;
	if (mask & LB_HASH_BIT(LB_SHA1))
		br_sha1_init(&h->sha1);
	if (mask & LB_HASH_BIT(LB_SHA256))
		br_sha256_init(&h->sha256);
	if (mask & LB_HASH_BIT(LB_SHA384))
		br_sha384_init(&h->sha384);
	if (mask & LB_HASH_BIT(LB_SHA512))
		br_sha512_init(&h->sha512);
	if ((mask & LB_HASH_BIT(LB_BLAKE2B)) &&
	    crypto_generichash_blake2b_init(b2(h), NULL, 0, 64))
		return -EINVAL;
	return 0;
}

void lb_hash_update(struct lb_hash *h, const void *p, size_t len)
{
	if (!len)
		return;
	if (h->mask & LB_HASH_BIT(LB_SHA1))
		br_sha1_update(&h->sha1, p, len);
	if (h->mask & LB_HASH_BIT(LB_SHA256))
		br_sha256_update(&h->sha256, p, len);
	if (h->mask & LB_HASH_BIT(LB_SHA384))
		br_sha384_update(&h->sha384, p, len);
	if (h->mask & LB_HASH_BIT(LB_SHA512))
		br_sha512_update(&h->sha512, p, len);
	if (h->mask & LB_HASH_BIT(LB_BLAKE2B))
		crypto_generichash_blake2b_update(b2(h), p, len);
}

void lb_hash_final(struct lb_hash *h, struct lb_digests *out)
{
	memset(out, 0, sizeof(*out));
	out->mask = h->mask;
	if (h->mask & LB_HASH_BIT(LB_SHA1))
		br_sha1_out(&h->sha1, out->d[LB_SHA1]);
	if (h->mask & LB_HASH_BIT(LB_SHA256))
		br_sha256_out(&h->sha256, out->d[LB_SHA256]);
	if (h->mask & LB_HASH_BIT(LB_SHA384))
		br_sha384_out(&h->sha384, out->d[LB_SHA384]);
	if (h->mask & LB_HASH_BIT(LB_SHA512))
		br_sha512_out(&h->sha512, out->d[LB_SHA512]);
	if (h->mask & LB_HASH_BIT(LB_BLAKE2B))
		crypto_generichash_blake2b_final(b2(h), out->d[LB_BLAKE2B], 64);
}

int lb_hash_buf(unsigned mask, const void *p, size_t len,
		struct lb_digests *out)
{
	struct lb_hash h;
	int rc = lb_hash_init(&h, mask);

	if (rc)
		return rc;
	lb_hash_update(&h, p, len);
	lb_hash_final(&h, out);
	return 0;
}

void lb_hex(const uint8_t *d, size_t len, char *out)
{
	static const char x[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = x[d[i] >> 4];
		out[2 * i + 1] = x[d[i] & 15];
	}
	out[2 * len] = 0;
}

static int nib(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int lb_unhex(const char *s, size_t slen, uint8_t *d, size_t len)
{
	if (slen != 2 * len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		int hi = nib(s[2 * i]), lo = nib(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		d[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
