/* Firmware update images and the decision to write one (see update.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hash.h"
#include "io.h"
#include "le.h"
#include "update.h"

static const uint8_t nvram_guid[16] = { 0x8D, 0x2B, 0xF1, 0xFF, 0x96, 0x76, 0x8B, 0x4C,
	0xA9, 0x85, 0x27, 0x47, 0x07, 0x5B, 0x4F, 0x50 };

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int label_ok(const char *s, size_t max)
{
	size_t i = 0;

	for (; i < max && s[i]; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return 0;
	return i < max;
}

int lb_update_parse(const uint8_t *buf, size_t len, struct lb_update_hdr *h,
		    char *why, size_t whysz)
{
	memset(h, 0, sizeof(*h));
	if (len < LB_UPDATE_HDR || memcmp(buf, "LBOOTUPD", 8))
		return lb_whyf(why, whysz, -EINVAL, "not an lboot update image");
	if (le32(buf + 8) != 1)
		return lb_whyf(why, whysz, -EPROTONOSUPPORT, "update format %u (this firmware reads 1)",
			       le32(buf + 8));
	h->kind = le32(buf + 12);
	h->version = le64(buf + 16);
	h->img_off = le64(buf + 24);
	h->img_len = le64(buf + 32);
	memcpy(h->sha256, buf + 40, 32);
	if (h->kind != LB_UPDATE_KIND_FLASH && h->kind != LB_UPDATE_KIND_SLOT)
		return lb_whyf(why, whysz, -EPROTONOSUPPORT, "update kind %u (this firmware writes 1, the whole flash, "
			       "and 2, a payload slot)", h->kind);
	if (h->img_off != LB_UPDATE_HDR || h->img_len > LB_FLASH_MAX || !h->img_len ||
	    h->img_len != len - LB_UPDATE_HDR)
		return lb_whyf(why, whysz, -EINVAL, "the image's offset and length (%llu + %llu) do not match the file (%zu bytes)",
			       (unsigned long long)h->img_off, (unsigned long long)h->img_len, len);
	if (!label_ok((const char *)buf + 72, 64))
		return lb_whyf(why, whysz, -EINVAL, "the label is not printable text");
	memcpy(h->label, buf + 72, 64);
	h->label[64] = 0;
	for (size_t i = 136; i < LB_UPDATE_HDR; i++)
		if (buf[i])
			return lb_whyf(why, whysz, -EINVAL, "header byte %zu is not zero", i);
	return 0;
}

int lb_update_header(uint32_t kind, uint64_t version, const char *label, const uint8_t *img,
		     size_t len, uint8_t hdr[LB_UPDATE_HDR], char *why, size_t whysz)
{
	struct lb_digests d;

	if (!len || len > LB_FLASH_MAX)
		return lb_whyf(why, whysz, -EFBIG, "an image of %zu bytes (1 to %llu)", len, LB_FLASH_MAX);
	if (strlen(label) > 63 || !label_ok(label, 64))
		return lb_whyf(why, whysz, -EINVAL, "the label: printable ASCII, at most 63 characters");
	memset(hdr, 0, LB_UPDATE_HDR);
	memcpy(hdr, "LBOOTUPD", 8);
	put32(hdr + 8, 1);
	put32(hdr + 12, kind);
	put64(hdr + 16, version);
	put64(hdr + 24, LB_UPDATE_HDR);
	put64(hdr + 32, len);
	lb_hash_buf(LB_HASH_BIT(LB_SHA256), img, len, &d);
	memcpy(hdr + 40, d.d[LB_SHA256], 32);
	memcpy(hdr + 72, label, strlen(label));
	return 0;
}

int lb_update_store(const uint8_t *img, size_t len, struct lb_flash_range *r)
{
	for (size_t off = 0; off + 4096 <= len; off += 4096) {
		const uint8_t *p = img + off;
		uint64_t fl = le64(p + 32);

		if (le32(p + 40) == 0x4856465Fu && !memcmp(p + 16, nvram_guid, 16) &&
		    fl >= 4096 && !(fl & 4095) && fl <= len - off) {
			r->off = off;
			r->len = fl;
			return 0;
		}
	}
	return -ENOENT;
}

/* kind 2: a payload slot for the slot not running (update.h) */
static int check_slot(const uint8_t *img, struct lb_update_hdr *h, const struct lb_update_ctx *c,
		      const uint8_t *cur, size_t curlen, char *why, size_t whysz)
{
	struct lb_slot_table t;
	struct lb_slot_hdr rh;
	int run, rc;

	if (c->slot != 'A' && c->slot != 'B')
		return lb_whyf(why, whysz, -EINVAL, "a payload slot update, but the running firmware did not "
			       "start from a payload slot (no lboot.slot=: a ROM built without mkrom --slots)");
	if (strcmp(lb_flash_image_kind(cur, curlen), "uefi"))
		return lb_whyf(why, whysz, -EINVAL, "a payload slot update for a %s flash (UEFI only)",
			       lb_flash_image_kind(cur, curlen));
	if (h->img_len < LB_SLOT_HDR || lb_slot_table_parse(img + 128, LB_SLOT_TABLE_LEN, curlen, &t) ||
	    t.size != h->img_len)
		return lb_whyf(why, whysz, -EINVAL, "not a payload slot for this flash (%llu bytes; a slot "
			       "table that fits a flash of %zu bytes)", (unsigned long long)h->img_len, curlen);
	if ((rc = lb_slot_check(img, &t, &h->sh)))
		return lb_whyf(why, whysz, -EBADMSG, "the payload slot in the image: %s", lb_slot_why(rc));
	if (h->sh.version != h->version)
		return lb_whyf(why, whysz, -EINVAL, "the slot's version %llu is not the update's %llu",
			       (unsigned long long)h->sh.version, (unsigned long long)h->version);
	run = c->slot - 'A';
	if ((rc = lb_slot_parse(cur + curlen - t.below[run], &t, &rh)))
		return lb_whyf(why, whysz, -EINVAL, "another layout: slot %c, running, is not where the "
			       "image's slot table puts it (%s there)", c->slot, lb_slot_why(rc));
	h->slot = (char)('A' + !run);
	h->slot_off = curlen - t.below[!run];
	return 0;
}

int lb_update_check(const uint8_t *file, size_t len, const uint8_t *sig, size_t siglen,
		    const struct lb_update_ctx *c, const uint8_t *cur, size_t curlen,
		    struct lb_update_hdr *h, struct lb_flash_range *keep, size_t *nkeep,
		    char *why, size_t whysz)
{
	struct lb_sig s;
	struct lb_digests d;
	struct lb_flash_range ns, cs;
	const uint8_t *img;
	const char *nk, *ck;
	int rc;

	*nkeep = 0;
	memset(h, 0, sizeof(*h));
	if (!c->keys || !c->keys->n_trusted)
		return lb_whyf(why, whysz, -ENOKEY, "the running firmware trusts no update key (/etc/lboot/update)");
	if (len > LB_UPDATE_MAX)
		return lb_whyf(why, whysz, -EFBIG, "%zu bytes: larger than any flash this firmware writes", len);
	if (!sig)
		return lb_whyf(why, whysz, LB_SIG_NONE, "no signature (.minisig)");
	if ((rc = lb_sig_parse(sig, siglen, &s)))
		return lb_whyf(why, whysz, rc, "the signature: %s", lb_sig_reason(rc));
	if ((rc = lb_sig_verify(&s, c->keys, file, len, NULL, NULL))) {
		char id[17];

		lb_keyid_hex(s.keyid, id);
		return lb_whyf(why, whysz, rc, "the signature (key %s): %s", id, lb_sig_reason(rc));
	}
	if ((rc = lb_update_parse(file, len, h, why, whysz)))
		return rc;
	img = file + h->img_off;
	lb_hash_buf(LB_HASH_BIT(LB_SHA256), img, h->img_len, &d);
	if (memcmp(d.d[LB_SHA256], h->sha256, 32))
		return lb_whyf(why, whysz, -EBADMSG, "the image does not match the SHA-256 in its header");
	if (h->version < c->running)
		return lb_whyf(why, whysz, -ESTALE, "version %llu is older than the running firmware's %llu (no downgrade)",
			       (unsigned long long)h->version, (unsigned long long)c->running);
	if (c->floor_set && h->version < c->floor)
		return lb_whyf(why, whysz, -ESTALE, "version %llu is below the floor %llu in the TPM's NV counter",
			       (unsigned long long)h->version, (unsigned long long)c->floor);
	if (h->kind == LB_UPDATE_KIND_SLOT)
		return check_slot(img, h, c, cur, curlen, why, whysz);
	if (h->img_len != curlen)
		return lb_whyf(why, whysz, -EINVAL, "an image for a flash of %llu bytes; this flash has %zu",
			       (unsigned long long)h->img_len, curlen);
	nk = lb_flash_image_kind(img, h->img_len);
	ck = lb_flash_image_kind(cur, curlen);
	if (strcmp(nk, ck) || !strcmp(nk, "unknown"))
		return lb_whyf(why, whysz, -EINVAL, "the image holds %s firmware, the flash %s", nk, ck);
	if (!strcmp(ck, "uefi")) {
		int a = lb_update_store(cur, curlen, &cs), b = lb_update_store(img, h->img_len, &ns);

		if (a || b)
			return lb_whyf(why, whysz, -EINVAL, "no variable store in the %s", a ? "flash" : "image");
		if (cs.off != ns.off || cs.len != ns.len)
			return lb_whyf(why, whysz, -EINVAL, "another layout: the variable store is at 0x%llx+0x%llx in the image, 0x%llx+0x%llx in the flash",
				       (unsigned long long)ns.off, (unsigned long long)ns.len,
				       (unsigned long long)cs.off, (unsigned long long)cs.len);
		keep[0] = cs;
		*nkeep = 1;
	}
	return 0;
}
