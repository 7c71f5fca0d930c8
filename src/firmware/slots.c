/* Payload slots (A/B) in the boot flash: slots.h. Freestanding (lbootdxe). */
#include "slots.h"

#include <bearssl/bearssl_hash.h>

#include "../lib/le.h"

static const char table_magic[8] = { 'L', 'B', 'S', 'L', 'O', 'T', 'S', '1' };
static const char slot_magic[8] = { 'L', 'B', 'O', 'O', 'T', 'S', 'L', 'T' };

static int same(const unsigned char *a, const void *b, unsigned long long n)
{
	const unsigned char *c = b;
	unsigned char d = 0;
	for (unsigned long long i = 0; i < n; i++)
		d |= a[i] ^ c[i];
	return d == 0;
}

const char *lb_slot_why(int rc)
{
	switch (rc) {
	case LB_SLOT_OK:
		return "digest ok";
	case LB_SLOT_EMPTY:
		return "empty";
	case LB_SLOT_BADHDR:
		return "no valid slot header";
	case LB_SLOT_OTHERTAB:
		return "built for another slot layout";
	case LB_SLOT_DIGEST:
		return "digest mismatch (a write that did not finish?)";
	}
	return "unknown";
}

int lb_slot_table_parse(const unsigned char *b, unsigned long long n,
			unsigned long long max, struct lb_slot_table *t)
{
	unsigned long long s, a, bb;

	if (n < LB_SLOT_TABLE_LEN || !same(b, table_magic, 8) || le32(b + 8) != 2 ||
	    le32(b + 12) != 0)
		return -1;
	s = le64(b + 16);
	a = le64(b + 24);
	bb = le64(b + 32);
	/* each slot: aligned, a header and a volume header at least, within max
	 * below the end; the two apart */
	if (s < 2 * LB_SLOT_HDR || s % LB_SLOT_HDR || s > max || a % LB_SLOT_HDR ||
	    bb % LB_SLOT_HDR || a < s || bb < s || a > max || bb > max ||
	    (a > bb ? a - bb : bb - a) < s)
		return -1;
	t->size = s;
	t->below[0] = a;
	t->below[1] = bb;
	return 0;
}

void lb_slot_table_put(unsigned char b[LB_SLOT_TABLE_LEN], const struct lb_slot_table *t)
{
	for (unsigned i = 0; i < 8; i++)
		b[i] = (unsigned char)table_magic[i];
	put_le32(b + 8, 2);
	put_le32(b + 12, 0);
	put_le64(b + 16, t->size);
	put_le64(b + 24, t->below[0]);
	put_le64(b + 32, t->below[1]);
}

int lb_slot_parse(const unsigned char *slot, const struct lb_slot_table *t,
		  struct lb_slot_hdr *h)
{
	unsigned char tab[LB_SLOT_TABLE_LEN];
	unsigned i;
	int nul = 0;

	for (i = 0; i < LB_SLOT_HDR && slot[i] == 0xFF; i++)
		;
	if (i == LB_SLOT_HDR)
		return LB_SLOT_EMPTY;
	if (!same(slot, slot_magic, 8) || le32(slot + 8) != LB_SLOT_FORMAT || le32(slot + 12))
		return LB_SLOT_BADHDR;
	h->version = le64(slot + 16);
	h->vol_len = le64(slot + 24);
	if (h->vol_len < 0x48 || h->vol_len > t->size - LB_SLOT_HDR)
		return LB_SLOT_BADHDR;
	for (i = 0; i < 32; i++)
		h->sha256[i] = slot[32 + i];
	for (i = 0; i < LB_SLOT_LABEL; i++) {
		unsigned char c = slot[64 + i];
		if (!c)
			nul = 1;
		else if (nul || c < 0x20 || c > 0x7E)
			return LB_SLOT_BADHDR;
		h->label[i] = nul ? 0 : (char)c;
	}
	h->label[LB_SLOT_LABEL] = 0;
	if (!nul)
		return LB_SLOT_BADHDR;
	for (i = 128 + LB_SLOT_TABLE_LEN; i < LB_SLOT_HDR; i++)
		if (slot[i])
			return LB_SLOT_BADHDR;
	lb_slot_table_put(tab, t);
	if (!same(slot + 128, tab, LB_SLOT_TABLE_LEN))
		return LB_SLOT_OTHERTAB;
	h->table = *t;
	return LB_SLOT_OK;
}

static void sha256(const unsigned char *p, unsigned long long n, unsigned char out[32])
{
	br_sha256_context c;

	br_sha256_init(&c);
	br_sha256_update(&c, p, (size_t)n);
	br_sha256_out(&c, out);
}

int lb_slot_check(const unsigned char *slot, const struct lb_slot_table *t,
		  struct lb_slot_hdr *h)
{
	unsigned char d[32];
	int rc = lb_slot_parse(slot, t, h);

	if (rc)
		return rc;
	sha256(slot + LB_SLOT_HDR, h->vol_len, d);
	return same(d, h->sha256, 32) ? LB_SLOT_OK : LB_SLOT_DIGEST;
}

int lb_slot_pick(const unsigned char *top, const struct lb_slot_table *t,
		 struct lb_slot_hdr h[2], int rc[2])
{
	const unsigned char *s[2] = { top - t->below[0], top - t->below[1] };
	int first;

	rc[0] = lb_slot_parse(s[0], t, &h[0]);
	rc[1] = lb_slot_parse(s[1], t, &h[1]);
	/* the newer header first (A on a tie); hash it; if it fails, the other */
	first = (rc[1] == 0 && (rc[0] != 0 || h[1].version > h[0].version)) ? 1 : 0;
	for (int k = 0; k < 2; k++) {
		int i = k ? !first : first;

		if (rc[i])
			continue;
		rc[i] = lb_slot_check(s[i], t, &h[i]);
		if (rc[i] == 0)
			return i;
	}
	return -1;
}

void lb_slot_header_put(unsigned char hdr[LB_SLOT_HDR], unsigned long long version,
			const char *label, const unsigned char *vol,
			unsigned long long vol_len, const struct lb_slot_table *t)
{
	unsigned i;

	for (i = 0; i < LB_SLOT_HDR; i++)
		hdr[i] = 0;
	for (i = 0; i < 8; i++)
		hdr[i] = (unsigned char)slot_magic[i];
	put_le32(hdr + 8, LB_SLOT_FORMAT);
	put_le64(hdr + 16, version);
	put_le64(hdr + 24, vol_len);
	sha256(vol, vol_len, hdr + 32);
	for (i = 0; label && label[i] && i < LB_SLOT_LABEL - 1; i++)
		hdr[64 + i] = (unsigned char)(label[i] >= 0x20 && label[i] <= 0x7E ? label[i] : '?');
	lb_slot_table_put(hdr + 128, t);
}

int lb_slot_find(const unsigned char *img, unsigned long long len, unsigned long long *off,
		 struct lb_slot_table *t, struct lb_slot_hdr *h)
{
	int found = -1;

	for (unsigned long long o = 0; len >= LB_SLOT_HDR && o <= len - LB_SLOT_HDR; o += LB_SLOT_HDR) {
		struct lb_slot_table tt;
		struct lb_slot_hdr hh;

		if (!same(img + o, slot_magic, 8) ||
		    lb_slot_table_parse(img + o + 128, LB_SLOT_TABLE_LEN, len, &tt) ||
		    (len - tt.below[0] != o && len - tt.below[1] != o) ||
		    lb_slot_check(img + o, &tt, &hh) != LB_SLOT_OK)
			continue;
		if (found < 0 || hh.version > h->version) {
			*off = o;
			*t = tt;
			*h = hh;
			found = 0;
		}
	}
	return found;
}

int lb_slot_table_in(const unsigned char *img, unsigned long long len, struct lb_slot_table *t)
{
	for (unsigned long long o = 0; len >= LB_SLOT_HDR && o <= len - LB_SLOT_HDR; o += LB_SLOT_HDR) {
		struct lb_slot_hdr hh;

		if (same(img + o, slot_magic, 8) &&
		    !lb_slot_table_parse(img + o + 128, LB_SLOT_TABLE_LEN, len, t) &&
		    (len - t->below[0] == o || len - t->below[1] == o) &&
		    lb_slot_parse(img + o, t, &hh) == LB_SLOT_OK)
			return 0;
	}
	return -1;
}
