/* A DER reader for the X.509 and PKCS#7 walks (pkcs7.c, tls.c): one
 * tag-length-value at a time, every length checked against its container,
 * short-form tags only, lengths up to 4 bytes. */
#ifndef LB_DER_H
#define LB_DER_H

#include <stddef.h>
#include <stdint.h>

struct lb_der {
	const uint8_t *p;
	size_t n;
};

/* Take the next TLV off d: its tag, its value (val) and the whole TLV
 * (all); either may be NULL. 0, or -1 when d does not start with one. */
static inline int lb_der_tlv(struct lb_der *d, uint8_t *tag, struct lb_der *val,
			     struct lb_der *all)
{
	size_t l, hl = 2;

	if (d->n < 2 || (d->p[0] & 0x1f) == 0x1f)
		return -1;
	l = d->p[1];
	if (l & 0x80) {
		size_t k = l & 0x7f;

		if (!k || k > 4 || d->n < 2 + k)
			return -1;
		l = 0;
		for (size_t i = 0; i < k; i++)
			l = l << 8 | d->p[2 + i];
		hl = 2 + k;
	}
	if (l > d->n - hl)
		return -1;
	*tag = d->p[0];
	if (val) {
		val->p = d->p + hl;
		val->n = l;
	}
	if (all) {
		all->p = d->p;
		all->n = hl + l;
	}
	d->p += hl + l;
	d->n -= hl + l;
	return 0;
}

/* The next TLV must have this tag. */
static inline int lb_der_want(struct lb_der *d, uint8_t tag, struct lb_der *val,
			      struct lb_der *all)
{
	uint8_t t;

	if (lb_der_tlv(d, &t, val, all) || t != tag)
		return -1;
	return 0;
}

#endif
