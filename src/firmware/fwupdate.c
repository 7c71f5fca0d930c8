/* Applying a firmware update (see fwupdate.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fwupdate.h"
#include "io.h"
#include "policy.h"
#include "tpm2.h"
#include "tpmdev.h"

/* update-floor-nv: the counter's value, read from the TPM (fail closed) */
static int read_floor(uint32_t index, uint64_t *v, char *why, size_t whysz)
{
	struct lb_tpmdev dev;
	struct lb_tpm2 t;
	char e[160];
	int rc;

	if ((rc = lb_tpmdev_open(&dev, NULL, LB_TPMDEV_TIMEOUT_MS)))
		return lb_whyf(why, whysz, rc, "update-floor-nv 0x%08x: no TPM to read the floor from: %s",
			       index, strerror(-rc));
	lb_tpm2_init(&t, lb_tpmdev_xfer, &dev);
	rc = lb_policy_nv_counter(&t, index, v, e, sizeof(e));
	lb_tpmdev_close(&dev);
	if (rc)
		return lb_whyf(why, whysz, rc < 0 ? rc : -EIO, "update-floor-nv 0x%08x: %s", index, e);
	return 0;
}

/* progress over the slot being written, not the whole flash */
struct slot_progress {
	void (*cb)(void *arg, uint64_t done, uint64_t total);
	void *arg;
	uint64_t off, len;
};

static void slot_progress(void *arg, uint64_t done, uint64_t total)
{
	struct slot_progress *p = arg;

	(void)total;
	if (done <= p->off || done > p->off + p->len)
		return;
	p->cb(p->arg, done - p->off, p->len);
}

/* Write the slot (r->h) into the flash: the flash image with the slot
 * replaced, the rest kept; pass 1 with the slot's first erase block erased,
 * pass 2 writes that block. Compared afterwards. */
static int program_slot(struct lb_flash *f, const uint8_t *slot, const struct lb_fwupdate_opts *o,
			struct lb_fwupdate_result *r, char *why, size_t whysz)
{
	uint64_t off = r->h.slot_off, len = r->h.img_len, first, hb;
	struct lb_flash_range keep[2];
	struct lb_flash_stats st2;
	struct slot_progress sp = { o->progress, o->arg, off, len };
	size_t nkeep = 0;
	uint8_t *img = malloc(f->size);
	char e[512];
	int rc;

	if (!img)
		return -ENOMEM;
	if (off % f->erasesize || len % f->erasesize) {
		rc = lb_whyf(why, whysz, -EINVAL, "%s: slot %c (0x%llx+0x%llx) is not whole erase blocks of %u bytes",
			     f->path, r->h.slot, (unsigned long long)off, (unsigned long long)len, f->erasesize);
		goto out;
	}
	hb = f->erasesize > LB_SLOT_HDR ? f->erasesize : LB_SLOT_HDR;
	if (off)
		keep[nkeep++] = (struct lb_flash_range){ 0, off };
	if (off + len < f->size)
		keep[nkeep++] = (struct lb_flash_range){ off + len, f->size - off - len };
	memcpy(img, f->img, f->size);
	memcpy(img + off, slot, len);
	/* the header is erased first only when the rest of the slot changes
	 * (applying the same slot again writes nothing) */
	if (memcmp(f->img + off + hb, slot + hb, len - hb))
		memset(img + off, 0xFF, hb);
	rc = lb_flash_program(f, img, f->size, keep, nkeep, o->progress ? slot_progress : NULL, &sp,
			      &r->st, e, sizeof(e));
	if (!rc) {
		memcpy(img + off, slot, hb);
		rc = lb_flash_program(f, img, f->size, keep, nkeep, NULL, NULL, &st2, e, sizeof(e));
		r->st.differ += st2.differ;
	}
	r->st.blocks = len / f->erasesize;
	r->st.kept = 0;
	if (rc) {
		lb_whyf(why, whysz, rc, "%s: slot %c: %s", f->path, r->h.slot, e);
		goto out;
	}
	rc = lb_flash_compare(f, img, f->size, keep, nkeep, &first);
	if (rc)
		rc = lb_whyf(why, whysz, rc < 0 ? rc : -EIO, "%s: after writing slot %c, the flash differs from the image at 0x%llx",
			     f->path, r->h.slot, (unsigned long long)first);
out:
	free(img);
	return rc;
}

int lb_fwupdate(const uint8_t *file, size_t len, const uint8_t *sig, size_t siglen,
		const struct lb_fwupdate_opts *o, struct lb_fwupdate_result *r,
		char *why, size_t whysz)
{
	struct lb_policy *pol = calloc(1, sizeof(*pol));
	struct lb_flash f = { .fd = -1 };
	struct lb_update_ctx c = { 0 };
	struct lb_keyring keys;
	struct lb_flash_range keep[1];
	size_t nkeep = 0;
	char path[256], e[512];
	const char *dev = o->flash;
	uint64_t first;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!pol)
		return -ENOMEM;
	lb_policy_load(o->root ? o->root : "/", pol);
	if (pol->err[0]) {
		rc = lb_whyf(why, whysz, -EKEYREJECTED, "the firmware's policy is invalid: %s", pol->err);
		goto out;
	}
	keys = (struct lb_keyring){ pol->update_keys, pol->n_update_keys, pol->revoked, pol->n_revoked };
	c.keys = &keys;
	c.running = r->running = pol->fw_version;
	c.slot = o->slot;
	if (pol->update_floor_nv) {
		if ((rc = read_floor(pol->update_floor_nv, &c.floor, why, whysz)))
			goto out;
		c.floor_set = 1;
	}
	if (!dev) {
		if ((rc = lb_flash_locate("/sys/class/mtd", "/dev", o->want, path, sizeof(path), e, sizeof(e)))) {
			lb_whyf(why, whysz, rc, "%s", e);
			goto out;
		}
		dev = path;
	}
	if ((rc = lb_flash_open(dev, o->apply, &f, e, sizeof(e)))) {
		lb_whyf(why, whysz, rc, "%s", e);
		goto out;
	}
	f.failk = o->failk;
	snprintf(r->flash, sizeof(r->flash), "%s", f.path);
	snprintf(r->kind, sizeof(r->kind), "%s", f.kind);
	if (!f.img) {
		rc = lb_whyf(why, whysz, -EIO, "%s: could not read the flash", f.path);
		goto out;
	}
	if ((rc = lb_update_check(file, len, sig, siglen, &c, f.img, f.size, &r->h, keep, &nkeep,
				  why, whysz)))
		goto out;
	if (o->only_newer && r->h.version == c.running) {
		rc = 1;
		lb_whyf(why, whysz, 1, "version %llu is the running firmware's: nothing to do",
			(unsigned long long)c.running);
		goto out;
	}
	if (!o->apply)
		goto out;
	if (!f.writable) {
		rc = lb_whyf(why, whysz, -EROFS, "%s: the flash is not writable (write-protected)", f.path);
		goto out;
	}
	if (r->h.kind == LB_UPDATE_KIND_SLOT) {
		rc = program_slot(&f, file + r->h.img_off, o, r, why, whysz);
		goto out;
	}
	if ((rc = lb_flash_program(&f, file + r->h.img_off, (size_t)r->h.img_len, keep, nkeep,
				   o->progress, o->arg, &r->st, e, sizeof(e)))) {
		lb_whyf(why, whysz, rc, "%s: %s", f.path, e);
		goto out;
	}
	rc = lb_flash_compare(&f, file + r->h.img_off, (size_t)r->h.img_len, keep, nkeep, &first);
	if (rc)
		rc = lb_whyf(why, whysz, rc < 0 ? rc : -EIO, "%s: after writing, the flash differs from the image at 0x%llx",
			     f.path, (unsigned long long)first);
out:
	lb_flash_close(&f);
	lb_policy_free(pol);
	free(pol);
	return rc;
}
