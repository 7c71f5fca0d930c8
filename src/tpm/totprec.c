/* The TOTP NV record: see totprec.h. */
#include <errno.h>
#include <string.h>

#include "totprec.h"

static int valid(const struct lb_totprec *r)
{
	return lb_tpm2_alg_size(r->alg) && r->mask && !(r->mask >> LB_TPM2_NUM_PCRS) &&
	       r->digits >= 6 && r->digits <= 8 && r->period &&
	       r->priv.len && r->priv.len <= LB_TPM2_BLOB_MAX &&
	       r->pub.len && r->pub.len <= LB_TPM2_BLOB_MAX;
}

int lb_totprec_parse(const uint8_t *b, size_t len, struct lb_totprec *r)
{
	struct lb_totprec t;
	size_t off, n;

	if (len < 16 || memcmp(b, "LBT1", 4))
		return -EBADMSG;
	t.alg = (uint16_t)(b[4] << 8 | b[5]);
	t.mask = (uint32_t)b[6] << 24 | (uint32_t)b[7] << 16 | (uint32_t)b[8] << 8 | b[9];
	t.digits = b[10];
	t.period = b[11];
	n = (size_t)b[12] << 8 | b[13];
	if (n > LB_TPM2_BLOB_MAX || n > len - 14)
		return -EBADMSG;
	t.priv.len = n;
	memcpy(t.priv.b, b + 14, n);
	off = 14 + n;
	if (len - off < 2)
		return -EBADMSG;
	n = (size_t)b[off] << 8 | b[off + 1];
	off += 2;
	if (n > LB_TPM2_BLOB_MAX || n != len - off)
		return -EBADMSG;
	t.pub.len = n;
	memcpy(t.pub.b, b + off, n);
	if (!valid(&t))
		return -EBADMSG;
	*r = t;
	return 0;
}

int lb_totprec_build(const struct lb_totprec *r, uint8_t *out, size_t cap, size_t *len)
{
	size_t n, k = 0;

	if (!valid(r))
		return -EINVAL;
	n = 16 + r->priv.len + r->pub.len;
	if (n > cap)
		return -ENOSPC;
	memcpy(out, "LBT1", 4);
	k = 4;
	out[k++] = r->alg >> 8;
	out[k++] = (uint8_t)r->alg;
	for (int s = 24; s >= 0; s -= 8)
		out[k++] = (uint8_t)(r->mask >> s);
	out[k++] = r->digits;
	out[k++] = r->period;
	out[k++] = (uint8_t)(r->priv.len >> 8);
	out[k++] = (uint8_t)r->priv.len;
	memcpy(out + k, r->priv.b, r->priv.len);
	k += r->priv.len;
	out[k++] = (uint8_t)(r->pub.len >> 8);
	out[k++] = (uint8_t)r->pub.len;
	memcpy(out + k, r->pub.b, r->pub.len);
	k += r->pub.len;
	*len = k;
	return 0;
}
