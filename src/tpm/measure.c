/*
 * Measured boot (see measure.h and docs/measured-boot.md): the events a UEFI
 * boot of the same files produces (EDK2 LoadImage, the Linux EFI stub,
 * systemd-stub), extended in every active bank and kept for the log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "authenticode.h"
#include "io.h"
#include "measure.h"
#include "pe.h"
#include "tcglog.h"

#define FW_LOG_PATH "/sys/kernel/security/tpm0/binary_bios_measurements"
#define TPM2_TABLE_PATH "/sys/firmware/acpi/tables/TPM2"

static const struct {
	unsigned h;
	uint16_t t;
} algmap[] = {
	{ LB_SHA1, LB_TPM2_ALG_SHA1 },
	{ LB_SHA256, LB_TPM2_ALG_SHA256 },
	{ LB_SHA384, LB_TPM2_ALG_SHA384 },
	{ LB_SHA512, LB_TPM2_ALG_SHA512 },
};

uint16_t lb_measure_tpm_alg(unsigned hash_alg)
{
	for (size_t i = 0; i < sizeof(algmap) / sizeof(algmap[0]); i++)
		if (algmap[i].h == hash_alg)
			return algmap[i].t;
	return 0;
}

int lb_measure_hash_alg(uint16_t tpm_alg)
{
	for (size_t i = 0; i < sizeof(algmap) / sizeof(algmap[0]); i++)
		if (algmap[i].t == tpm_alg)
			return (int)algmap[i].h;
	return -1;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* --- open / close ----------------------------------------------------------- */

int lb_measure_attach(struct lb_measure *m, lb_tpm2_xfer_fn xfer, void *ctx,
		      char *err, size_t errsz)
{
	struct lb_tpm2_pcrsel banks[LB_TPM2_MAX_BANKS];
	char rcs[96];
	size_t nb;
	int rc;

	lb_tpm2_init(&m->t, xfer, ctx);
	m->n_banks = 0;
	m->mask = 0;
	m->n_ev = m->n_logged = m->n_pending = m->n_fw = 0;
	m->staging = 0;
	rc = lb_tpm2_get_banks(&m->t, banks, LB_TPM2_MAX_BANKS, &nb);
	if (rc) {
		if (rc > 0)
			lb_seterr(err, errsz, "GetCapability(PCRS): %s",
				  lb_tpm2_rc_str(rc, rcs, sizeof(rcs)));
		else
			lb_seterr(err, errsz, "GetCapability(PCRS): %s", rc == -EBADMSG ?
				  "malformed response from the TPM" : strerror(-rc));
		return rc;
	}
	if (!nb) {
		lb_seterr(err, errsz, "the TPM has no active PCR bank");
		return -ENOTSUP;
	}
	for (size_t i = 0; i < nb; i++) {
		int h = lb_measure_hash_alg(banks[i].alg);
		const char *name = lb_tpm2_alg_name(banks[i].alg);

		if (h < 0) {
			if (name)
				lb_seterr(err, errsz, "active PCR bank %s: lboot cannot hash it", name);
			else
				lb_seterr(err, errsz, "active PCR bank 0x%04x: lboot cannot hash it",
					  banks[i].alg);
			return -ENOTSUP;
		}
		if (m->mask & LB_HASH_BIT(h)) {
			lb_seterr(err, errsz, "GetCapability(PCRS): bank listed twice");
			return -EBADMSG;
		}
		m->bank_alg[i] = banks[i].alg;
		m->mask |= LB_HASH_BIT(h);
	}
	m->n_banks = nb;
	return 0;
}

int lb_measure_open(struct lb_measure *m, const char *dev, char *err, size_t errsz)
{
	int rc;

	memset(m, 0, sizeof(*m));
	m->dev.fd = -1;
	if (dev && !strncmp(dev, "tcp:", 4))
		rc = lb_tpmdev_open_tcp(&m->dev, dev + 4, 0);
	else
		rc = lb_tpmdev_open(&m->dev, dev, 0);
	if (rc) {
		if (rc == -ENOENT && !dev)
			lb_seterr(err, errsz, "no TPM (/dev/tpmrm0, /dev/tpm0)");
		else
			lb_seterr(err, errsz, "%s: %s", dev, strerror(-rc));
		return rc;
	}
	m->have_dev = 1;
	rc = lb_measure_attach(m, lb_tpmdev_xfer, &m->dev, err, errsz);
	if (rc)
		lb_measure_close(m);
	return rc;
}

unsigned lb_measure_banks(const struct lb_measure *m)
{
	return m->mask;
}

void lb_measure_close(struct lb_measure *m)
{
	lb_measure_stage_drop(m);
	for (size_t i = 0; i < m->n_ev; i++) {
		free(m->ev[i].data);
		m->ev[i].data = NULL;
	}
	m->n_ev = m->n_logged = m->n_fw = 0;
	if (m->have_dev)
		lb_tpmdev_close(&m->dev);
	m->have_dev = 0;
}

/* --- extends ------------------------------------------------------------------ */

/* One TPM2_PCR_Extend of d into pcr, every active bank. */
static int extend(struct lb_measure *m, uint32_t pcr, const struct lb_digests *d)
{
	struct lb_tpm2_digest td[LB_TPM2_MAX_BANKS];

	for (size_t i = 0; i < m->n_banks; i++) {
		unsigned h = (unsigned)lb_measure_hash_alg(m->bank_alg[i]);

		td[i].alg = m->bank_alg[i];
		td[i].size = lb_hash_len(h);
		memcpy(td[i].d, d->d[h], td[i].size);
	}
	return lb_tpm2_pcr_extend(&m->t, pcr, td, m->n_banks);
}

/* an event's fields: the active banks' digests, a copy of the data */
static void fill(const struct lb_measure *m, struct lb_measure_event *ev, uint32_t pcr,
		 uint32_t type, const struct lb_digests *d, const void *data, size_t size,
		 uint8_t *copy)
{
	ev->pcr = pcr;
	ev->type = type;
	memset(&ev->d, 0, sizeof(ev->d));
	ev->d.mask = m->mask;
	for (unsigned h = 0; h < LB_HASH_N; h++)
		if (m->mask & LB_HASH_BIT(h))
			memcpy(ev->d.d[h], d->d[h], lb_hash_len(h));
	if (size)
		memcpy(copy, data, size);
	ev->size = size;
	ev->data = copy;
}

int lb_measure_digest(struct lb_measure *m, uint32_t pcr, uint32_t type,
		      const struct lb_digests *d, const void *data, size_t size)
{
	struct lb_measure_event *ev;
	uint8_t *copy = NULL;
	int rc;

	if (!m->n_banks || pcr >= LB_TPM2_NUM_PCRS || size > LB_MEASURE_MAX_DATA ||
	    (size && !data) || (d->mask & m->mask) != m->mask)
		return -EINVAL;
	if (m->n_ev + m->n_pending >= LB_MEASURE_MAX_EVENTS)
		return -ENOSPC;
	if (size && !(copy = malloc(size)))
		return -ENOMEM;
	if (m->staging) {
		/* built, checked and queued: lb_measure_stage_commit extends */
		ev = &m->ev[m->n_ev + m->n_pending++];
	} else {
		rc = extend(m, pcr, d);
		if (rc) {
			free(copy);
			return rc;
		}
		ev = &m->ev[m->n_ev++];
	}
	fill(m, ev, pcr, type, d, data, size, copy);
	return 0;
}

int lb_measure_firmware_event(struct lb_measure *m, uint32_t pcr, uint32_t type,
			      const struct lb_digests *d, const void *data, size_t size)
{
	struct lb_measure_event *ev;
	uint8_t *copy = NULL;

	if (!m->n_banks || pcr >= LB_TPM2_NUM_PCRS || size > LB_MEASURE_MAX_DATA ||
	    (size && !data) || (d->mask & m->mask) != m->mask)
		return -EINVAL;
	if (m->n_ev != m->n_fw || m->n_pending || m->staging || m->n_logged)
		return -EBUSY;
	if (m->n_ev >= LB_MEASURE_MAX_EVENTS / 2)
		return -ENOSPC; /* half stays lboot's */
	if (size && !(copy = malloc(size)))
		return -ENOMEM;
	ev = &m->ev[m->n_ev++];
	m->n_fw++;
	fill(m, ev, pcr, type, d, data, size, copy);
	return 0;
}

void lb_measure_stage_begin(struct lb_measure *m)
{
	lb_measure_stage_drop(m);
	m->staging = 1;
}

void lb_measure_stage_drop(struct lb_measure *m)
{
	for (size_t i = m->n_ev; i < m->n_ev + m->n_pending; i++) {
		free(m->ev[i].data);
		m->ev[i].data = NULL;
	}
	m->n_pending = 0;
	m->staging = 0;
}

int lb_measure_stage_commit(struct lb_measure *m)
{
	m->staging = 0;
	while (m->n_pending) {
		struct lb_measure_event *ev = &m->ev[m->n_ev];
		int rc = extend(m, ev->pcr, &ev->d);

		if (rc) {
			lb_measure_stage_drop(m);
			return rc;
		}
		m->n_ev++;
		m->n_pending--;
	}
	return 0;
}

int lb_measure_cap(struct lb_measure *m, uint32_t pcrs)
{
	static const uint8_t one[4] = { 1, 0, 0, 0 };
	struct lb_digests d;
	int rc, first = 0;

	lb_measure_stage_drop(m);
	if (!m->mask)
		return -EINVAL;
	rc = lb_hash_buf(m->mask, one, sizeof(one), &d);
	if (rc)
		return rc;
	for (uint32_t pcr = 0; pcr < LB_TPM2_NUM_PCRS && pcr < 32; pcr++) {
		if (!(pcrs & (UINT32_C(1) << pcr)))
			continue;
		rc = lb_measure_digest(m, pcr, LB_EV_SEPARATOR, &d, one, sizeof(one));
		if (rc == -ENOSPC || rc == -ENOMEM)
			/* no room in the log: the PCR is capped all the same */
			rc = extend(m, pcr, &d);
		if (rc && !first)
			first = rc;
	}
	return first;
}

int lb_measure_data(struct lb_measure *m, uint32_t pcr, uint32_t type,
		    const void *bytes, size_t len, const void *data, size_t size)
{
	struct lb_digests d;
	int rc;

	if (!m->mask)
		return -EINVAL;
	rc = lb_hash_buf(m->mask, bytes, len, &d);
	if (rc)
		return rc;
	return lb_measure_digest(m, pcr, type, &d, data, size);
}

/* UTF-8 to UTF-16 LE with a NUL character at the end: characters beyond
 * the BMP as surrogate pairs (one-to-one, so two command lines never give
 * the same bytes); anything that is not UTF-8 is refused. */
int lb_measure_ucs2(const char *s, uint8_t *out, size_t cap, size_t *len)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = 0;

	while (*p) {
		uint32_t c;
		int more;

		if (*p < 0x80) {
			c = *p;
			more = 0;
		} else if ((*p & 0xe0) == 0xc0) {
			c = *p & 0x1f;
			more = 1;
		} else if ((*p & 0xf0) == 0xe0) {
			c = *p & 0x0f;
			more = 2;
		} else if ((*p & 0xf8) == 0xf0) {
			c = *p & 0x07;
			more = 3;
		} else {
			return -EILSEQ;
		}
		p++;
		for (int i = 0; i < more; i++, p++) {
			if ((*p & 0xc0) != 0x80)
				return -EILSEQ;
			c = c << 6 | (*p & 0x3f);
		}
		/* overlong forms, surrogates and beyond U+10FFFF are not
		 * characters */
		if ((more == 1 && c < 0x80) || (more == 2 && c < 0x800) ||
		    (more == 3 && (c < 0x10000 || c > 0x10ffff)) ||
		    (c >= 0xd800 && c <= 0xdfff))
			return -EILSEQ;
		if (n > cap || cap - n < (c > 0xffff ? 4u : 2u))
			return -ENOSPC;
		if (c > 0xffff) {
			c -= 0x10000;
			put16(out + n, (uint16_t)(0xd800 | c >> 10));
			put16(out + n + 2, (uint16_t)(0xdc00 | (c & 0x3ff)));
			n += 4;
		} else {
			put16(out + n, (uint16_t)c);
			n += 2;
		}
	}
	if (cap < 2 || cap - n < 2)
		return -ENOSPC;
	put16(out + n, 0);
	*len = n + 2;
	return 0;
}

int lb_measure_cmdline(struct lb_measure *m, const char *cmdline)
{
	uint8_t ev[64], *u;
	size_t cap, ulen, elen;
	int rc;

	if (strlen(cmdline) > LB_MEASURE_MAX_CMDLINE)
		return -E2BIG;
	cap = 2 * strlen(cmdline) + 2;
	if (!(u = malloc(cap)))
		return -ENOMEM;
	rc = lb_measure_ucs2(cmdline, u, cap, &ulen);
	if (!rc)
		rc = lb_tcglog_tagged_event(LB_TAG_LINUX_LOAD_OPTIONS, ev, sizeof(ev), &elen);
	if (!rc)
		rc = lb_measure_data(m, LB_MEASURE_PCR_STUB, LB_EV_EVENT_TAG, u, ulen, ev, elen);
	free(u);
	return rc;
}

int lb_measure_initrd(struct lb_measure *m, const struct lb_digests *d)
{
	uint8_t ev[64];
	size_t elen;
	int rc = lb_tcglog_tagged_event(LB_TAG_LINUX_INITRD, ev, sizeof(ev), &elen);

	if (rc)
		return rc;
	return lb_measure_digest(m, LB_MEASURE_PCR_STUB, LB_EV_EVENT_TAG, d, ev, elen);
}

/* A device path of one Media File Path node (type 4, subtype 4: UTF-16 path
 * with NUL, '/' written '\') and the End node (7F FF 04 00). */
static int file_devpath(const char *path, uint8_t *out, size_t cap, size_t *len)
{
	size_t ulen;
	int rc;

	if (cap < 8)
		return -ENOSPC;
	rc = lb_measure_ucs2(path, out + 4, cap - 8, &ulen);
	if (rc)
		return rc;
	if (4 + ulen > 0xffff)
		return -E2BIG;
	for (size_t i = 0; i < ulen; i += 2)
		if (out[4 + i] == '/' && out[5 + i] == 0)
			out[4 + i] = '\\';
	out[0] = 4;
	out[1] = 4;
	put16(out + 2, (uint16_t)(4 + ulen));
	out[4 + ulen] = 0x7f;
	out[5 + ulen] = 0xff;
	put16(out + 6 + ulen, 4);
	*len = 4 + ulen + 4;
	return 0;
}

int lb_measure_kernel_pe(struct lb_measure *m, const uint8_t *pe, size_t len,
			 const char *path)
{
	struct lb_pe *hdr;
	struct lb_digests d;
	uint8_t *ev = NULL, *dp = NULL;
	size_t dplen = 0, elen;
	uint64_t base = 0;
	int rc, plain = 0;

	if (!m->mask)
		return -EINVAL;
	if (path && strlen(path) > LB_MEASURE_MAX_PATH)
		return -E2BIG;
	/* UTF-16 takes at most two bytes per byte of UTF-8, plus the NUL and
	 * the two nodes' headers */
	if (path && !(dp = malloc(2 * strlen(path) + 2 + 8)))
		return -ENOMEM;
	if (path && (rc = file_devpath(path, dp, 2 * strlen(path) + 2 + 8, &dplen))) {
		free(dp);
		return rc;
	}
	if (!(hdr = malloc(sizeof(*hdr)))) {
		free(dp);
		return -ENOMEM;
	}
	rc = lb_authenticode(pe, len, m->mask, &d);
	if (rc == -EINVAL) {
		/* not PE (or not a well-formed one): the file's own digest */
		plain = 1;
		rc = lb_hash_buf(m->mask, pe, len, &d);
	} else if (!rc && !lb_pe_parse(pe, len, len, hdr)) {
		base = hdr->image_base;
	}
	if (rc)
		goto out;
	if (!(ev = malloc(32 + dplen))) {
		rc = -ENOMEM;
		goto out;
	}
	rc = lb_tcglog_image_load_event(0, len, base, dp, dplen, ev, 32 + dplen, &elen);
	if (!rc)
		rc = lb_measure_digest(m, LB_MEASURE_PCR_BOOTAPP,
				       LB_EV_EFI_BOOT_SERVICES_APPLICATION, &d, ev, elen);
out:
	free(ev);
	free(dp);
	free(hdr);
	return rc ? rc : plain;
}

/* systemd-stub's section order (src/fundamental/uki.h): .pcrsig is never
 * measured. Stubs before 254 (Debian 12 has 252) know only the first list;
 * later ones added .uname and .sbat, 256 .ucode, 257 .profile (measured
 * when profile 0 has one) and after. */
static const char *const uki_sections_252[] = {
	".linux", ".osrel", ".cmdline", ".initrd", ".splash", ".dtb", ".pcrpkey",
};
static const char *const uki_sections[] = {
	".linux", ".osrel", ".cmdline", ".initrd", ".ucode", ".splash", ".dtb",
	".uname", ".sbat", ".pcrpkey", ".profile", ".dtbauto", ".hwids", ".efifw",
};

/* The stub's major version from .sdmagic ("#### LoaderInfo: systemd-stub
 * 252.39-1~deb12u2 ####"), 0 when it does not say. */
static unsigned stub_version(const struct lb_pe *pe, const uint8_t *img)
{
	static const char key[] = "systemd-stub ";
	const struct lb_pe_section *s = lb_pe_find(pe, ".sdmagic");
	size_t n, k = sizeof(key) - 1;
	const uint8_t *p;
	unsigned v = 0;

	if (!s)
		return 0;
	p = img + s->raw_off;
	n = s->raw_size < 256 ? s->raw_size : 256;
	for (size_t i = 0; i + k < n; i++) {
		if (memcmp(p + i, key, k))
			continue;
		for (i += k; i < n && p[i] >= '0' && p[i] <= '9' && v < 100000; i++)
			v = v * 10 + (p[i] - '0');
		return v;
	}
	return 0;
}

/* UTF-16 LE of an ASCII name with NUL. */
static size_t utf16_name(const char *s, uint8_t *out)
{
	size_t n = 0;

	for (; *s; s++, n += 2)
		put16(out + n, (uint8_t)*s);
	put16(out + n, 0);
	return n + 2;
}

int lb_measure_uki(struct lb_measure *m, const uint8_t *img, size_t len, size_t *nmeas)
{
	struct lb_pe *pe;
	const char *const *list;
	size_t count = 0, nlist;
	unsigned v;
	int rc = 0;

	if (!m->mask)
		return -EINVAL;
	if (!(pe = malloc(sizeof(*pe))))
		return -ENOMEM;
	if (lb_pe_parse(img, len, len, pe)) {
		rc = -EINVAL;
		goto out;
	}
	/* a multi-profile UKI: profile 0 over the base profile, the sections
	 * that boot (lb_pe_uki_section, as uki.c) */
	v = stub_version(pe, img);
	list = v && v < 254 ? uki_sections_252 : uki_sections;
	nlist = v && v < 254 ? sizeof(uki_sections_252) / sizeof(uki_sections_252[0]) :
		sizeof(uki_sections) / sizeof(uki_sections[0]);
	if (!lb_pe_uki_section(pe, ".linux")) {
		rc = -ENOENT;
		goto out;
	}
	/* Check every section before extending anything. What the stub hashes
	 * is the section in the loaded image: VirtualSize bytes inside
	 * SizeOfImage, the raw data then zeros; the zeros are capped (a
	 * hostile VirtualSize is not hashed for minutes). lb_pe_parse checked
	 * raw_off + raw_size <= len. */
	for (size_t k = 0; k < nlist; k++) {
		const struct lb_pe_section *s = lb_pe_uki_section(pe, list[k]);
		size_t vs, raw;

		if (!s)
			continue;
		vs = s->vsize ? s->vsize : s->raw_size;
		raw = s->raw_size < vs ? s->raw_size : vs;
		if ((uint64_t)s->vaddr + vs > pe->size_of_image || vs - raw > LB_MEASURE_MAX_ZEROS) {
			rc = -EINVAL;
			goto out;
		}
	}
	for (size_t k = 0; k < nlist; k++) {
		const struct lb_pe_section *s = lb_pe_uki_section(pe, list[k]);
		struct lb_hash *h;
		struct lb_digests d;
		uint8_t name16[32];
		size_t nlen, raw, vs;

		if (!s)
			continue;
		nlen = utf16_name(list[k], name16);
		rc = lb_measure_data(m, LB_MEASURE_PCR_UKI, LB_EV_IPL, list[k],
				     strlen(list[k]) + 1, name16, nlen);
		if (rc)
			goto out;
		vs = s->vsize ? s->vsize : s->raw_size;
		raw = s->raw_size < vs ? s->raw_size : vs;
		if (!(h = malloc(sizeof(*h)))) {
			rc = -ENOMEM;
			goto out;
		}
		rc = lb_hash_init(h, m->mask);
		if (!rc) {
			static const uint8_t zeros[4096];

			lb_hash_update(h, img + s->raw_off, raw);
			for (size_t left = vs - raw; left;) {
				size_t c = left < sizeof(zeros) ? left : sizeof(zeros);

				lb_hash_update(h, zeros, c);
				left -= c;
			}
			lb_hash_final(h, &d);
		}
		free(h);
		if (!rc)
			rc = lb_measure_digest(m, LB_MEASURE_PCR_UKI, LB_EV_IPL, &d, name16, nlen);
		if (rc)
			goto out;
		count++;
	}
	if (nmeas)
		*nmeas = count;
out:
	free(pe);
	return rc;
}

int lb_measure_separator(struct lb_measure *m, uint32_t pcr)
{
	static const uint8_t zero[4];

	return lb_measure_data(m, pcr, LB_EV_SEPARATOR, zero, 4, zero, 4);
}

int lb_measure_config(struct lb_measure *m, const char *path, const uint8_t *data,
		      size_t len)
{
	uint8_t ev[8 + 1024];
	size_t n = strlen(path) + 1;

	if (n > sizeof(ev) - 8)
		return -E2BIG;
	ev[0] = (uint8_t)LB_MEASURE_TAG_CONFIG;
	ev[1] = (uint8_t)(LB_MEASURE_TAG_CONFIG >> 8);
	ev[2] = (uint8_t)(LB_MEASURE_TAG_CONFIG >> 16);
	ev[3] = (uint8_t)(LB_MEASURE_TAG_CONFIG >> 24);
	ev[4] = (uint8_t)n;
	ev[5] = (uint8_t)(n >> 8);
	ev[6] = ev[7] = 0;
	memcpy(ev + 8, path, n);
	return lb_measure_data(m, LB_MEASURE_PCR_LBOOT, LB_EV_EVENT_TAG, data, len, ev, 8 + n);
}

int lb_measure_string(struct lb_measure *m, const char *s)
{
	static const char prefix[] = "lboot: ";
	size_t n = strlen(s), p = sizeof(prefix) - 1;
	char *ev;
	int rc;

	if (!n || p + n + 1 > LB_MEASURE_MAX_DATA)
		return n ? -E2BIG : -EINVAL;
	if (!(ev = malloc(p + n + 1)))
		return -ENOMEM;
	memcpy(ev, prefix, p);
	memcpy(ev + p, s, n + 1);
	rc = lb_measure_data(m, LB_MEASURE_PCR_LBOOT, LB_EV_IPL, s, n, ev, p + n + 1);
	free(ev);
	return rc;
}

int lb_measure_lock_platform(struct lb_measure *m)
{
	uint8_t a[32];
	int rc = lb_tpm2_get_random(&m->t, a, sizeof(a));

	if (!rc)
		rc = lb_tpm2_hierarchy_change_auth(&m->t, LB_TPM2_RH_PLATFORM, NULL, a, sizeof(a));
	memset(a, 0, sizeof(a));
	/* format-1 codes without the parameter bit: BAD_AUTH, AUTH_FAIL,
	 * HIERARCHY: somebody set an auth already, or disabled it */
	if (rc > 0 && (rc & 0x80) && ((rc & 0xbf) == 0xa2 || (rc & 0xbf) == 0x8e ||
				      (rc & 0xbf) == 0x85))
		rc = 0;
	return rc;
}

/* --- one boot, all or nothing ------------------------------------------------- */

int lb_measure_boot(struct lb_measure *m, const struct lb_measure_boot *b, size_t *nsec,
		    char *err, size_t errsz)
{
	const char *what = "the kernel";
	int rc, cap;

	if (nsec)
		*nsec = 0;
	lb_measure_stage_begin(m);
	rc = lb_measure_kernel_pe(m, b->img, b->len, b->path);
	if (rc > 0)
		rc = 0; /* not PE: its plain digest */
	if (!rc && b->is_uki) {
		what = "the UKI's sections";
		rc = lb_measure_uki(m, b->img, b->len, nsec);
	}
	if (!rc) {
		what = "the command line";
		rc = lb_measure_cmdline(m, b->cmdline ? b->cmdline : "");
	}
	if (!rc && b->initrd) {
		what = "the initrd";
		rc = lb_measure_initrd(m, b->initrd);
	}
	if (!rc && b->verdict) {
		char v[LB_MEASURE_VERDICT_MAX];

		what = "the verdict";
		snprintf(v, sizeof(v), "verify: %s", b->verdict);
		if (!(rc = lb_measure_string(m, v)))
			rc = lb_measure_separator(m, LB_MEASURE_PCR_LBOOT);
	}
	if (!rc) {
		what = "extending";
		rc = lb_measure_stage_commit(m);
	} else {
		lb_measure_stage_drop(m);
	}
	if (!rc)
		return 0;
	cap = lb_measure_cap(m, LB_MEASURE_CAP_PCRS);
	if (rc == -EILSEQ)
		lb_seterr(err, errsz, "%s: not valid UTF-8", what);
	else if (rc < 0)
		lb_seterr(err, errsz, "%s: %s", what, strerror(-rc));
	else
		lb_seterr(err, errsz, "%s: TPM error 0x%x", what, (unsigned)rc);
	if (err && errsz) {
		size_t l = strlen(err);

		snprintf(err + l, errsz - l, cap ? "; capping the PCRs failed too" :
			 "; PCRs 0-9, 11-13 capped (EV_SEPARATOR 1)");
	}
	return rc;
}

/* --- the log ----------------------------------------------------------------------- */

int lb_measure_log_build(const struct lb_measure *m, const uint8_t *base, size_t blen,
			 size_t from, uint8_t **out, size_t *len)
{
	struct lb_tcglog log;
	uint8_t hdr[128];
	const uint8_t *start;
	size_t hlen, cap, n;
	uint8_t *b;
	int rc;

	if (from > m->n_ev)
		return -EINVAL;
	if (base && lb_tcglog_open(&log, base, blen) == 0) {
		start = base;
		hlen = log.end;
	} else {
		rc = lb_tcglog_header(m->bank_alg, m->n_banks, hdr, sizeof(hdr), &hlen);
		if (rc)
			return rc;
		rc = lb_tcglog_open(&log, hdr, hlen);
		if (rc)
			return rc;
		start = hdr;
	}
	for (size_t i = 0; i < log.n_alg; i++) {
		int h = lb_measure_hash_alg(log.alg[i].id);

		if (h < 0 || !(m->mask & LB_HASH_BIT(h)))
			return -ENOTSUP;
	}
	cap = hlen;
	for (size_t i = from; i < m->n_ev; i++) {
		size_t rec = 16 + m->ev[i].size;

		for (size_t a = 0; a < log.n_alg; a++)
			rec += 2 + log.alg[a].size;
		if (rec > LB_TCGLOG_MAX_SIZE - cap)
			return -E2BIG;
		cap += rec;
	}
	if (!(b = malloc(cap ? cap : 1)))
		return -ENOMEM;
	memcpy(b, start, hlen);
	n = hlen;
	for (size_t i = from; i < m->n_ev; i++) {
		const struct lb_measure_event *ev = &m->ev[i];
		struct lb_tpm2_digest td[LB_TCGLOG_MAX_ALGS];
		size_t rlen;

		for (size_t a = 0; a < log.n_alg; a++) {
			unsigned h = (unsigned)lb_measure_hash_alg(log.alg[a].id);

			td[a].alg = log.alg[a].id;
			td[a].size = log.alg[a].size;
			memcpy(td[a].d, ev->d.d[h], td[a].size);
		}
		rc = lb_tcglog_build(&log, ev->pcr, ev->type, td, log.n_alg, ev->data,
				     ev->size, b + n, cap - n, &rlen);
		if (rc) {
			free(b);
			return rc;
		}
		n += rlen;
	}
	*out = b;
	*len = n;
	return 0;
}

int lb_measure_acpi_tpm2(const uint8_t *tbl, size_t len, uint64_t *lasa, uint32_t *laml)
{
	uint32_t tlen;

	/* header (36), platform class, reserved, control area, start method
	 * (16), start method parameters (12), LAML (4), LASA (8) */
	if (len < 76 || memcmp(tbl, "TPM2", 4))
		return -EINVAL;
	tlen = get32(tbl + 4);
	if (tlen < 76 || tlen > len)
		return -EINVAL;
	*laml = get32(tbl + 64);
	*lasa = (uint64_t)get32(tbl + 68) | (uint64_t)get32(tbl + 72) << 32;
	return 0;
}


int lb_measure_log_acpi(struct lb_measure *m, const struct lb_measure_paths *p,
			char *err, size_t errsz)
{
	static const struct lb_measure_paths none;
	const char *tp, *mp, *fp;
	uint8_t *tbl = NULL, *area = NULL, *fw = NULL, *log = NULL;
	size_t tlen, flen = 0, llen = 0, got, from = 0;
	struct lb_tcglog fwl, al;
	int fd = -1, rc, fw_ok = 0, area_ok;
	uint64_t lasa;
	uint32_t laml;
	struct stat mst;
	uint8_t *mapped = NULL, *marea = NULL;
	size_t mlen = 0;

	if (!p)
		p = &none;
	tp = p->tpm2_table ? p->tpm2_table : TPM2_TABLE_PATH;
	mp = p->mem ? p->mem : "/dev/mem";
	fp = p->fw_log ? p->fw_log : FW_LOG_PATH;
	rc = lb_read_path(tp, 4096, &tbl, &tlen);
	if (rc) {
		lb_seterr(err, errsz, "%s: %s", tp, strerror(-rc));
		return rc;
	}
	rc = lb_measure_acpi_tpm2(tbl, tlen, &lasa, &laml);
	free(tbl);
	if (rc) {
		lb_seterr(err, errsz, "%s: not an ACPI TPM2 table with a log area", tp);
		return -ENOENT;
	}
	if (!laml || !lasa) {
		lb_seterr(err, errsz, "ACPI TPM2 table: no log area (LAML %u, LASA 0x%llx)",
			  laml, (unsigned long long)lasa);
		return -ENOENT;
	}
	if (laml > LB_MEASURE_MAX_LAML || lasa > (uint64_t)INT64_MAX - laml) {
		lb_seterr(err, errsz, "ACPI TPM2 log area of %u bytes at 0x%llx: refused",
			  laml, (unsigned long long)lasa);
		return -E2BIG;
	}
	if (!(area = malloc(laml))) {
		rc = -ENOMEM;
		goto out;
	}
	fd = open(mp, O_RDWR | O_CLOEXEC | O_SYNC);
	if (fd < 0) {
		rc = -errno;
		lb_seterr(err, errsz, "%s: %s", mp, strerror(-rc));
		goto out;
	}
	/* /dev/mem: read(2) and write(2) stop at the end of the kernel's
	 * direct map (valid_phys_addr_range), and firmware puts the log area
	 * above it (SeaBIOS: top of low RAM, reserved); mmap has no such limit */
	if (!fstat(fd, &mst) && S_ISCHR(mst.st_mode)) {
		long pg = sysconf(_SC_PAGESIZE);
		uint64_t base = lasa & ~(uint64_t)(pg - 1);

		mlen = (size_t)(lasa - base) + laml;
		mapped = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)base);
		if (mapped == MAP_FAILED) {
			mapped = NULL;
			rc = -errno;
		} else {
			marea = mapped + (lasa - base);
			memcpy(area, marea, laml);
			rc = 0;
			got = laml;
		}
	} else {
		rc = lb_pread_full(fd, area, laml, lasa, &got);
	}
	if (!rc && got != laml)
		rc = -EIO;
	if (rc) {
		lb_seterr(err, errsz, "%s: reading the log area at 0x%llx: %s", mp,
			  (unsigned long long)lasa, strerror(-rc));
		goto out;
	}
	area_ok = lb_tcglog_open(&al, area, laml) == 0;
	if (lb_read_stream(fp, LB_TCGLOG_MAX_SIZE, &fw, &flen) == 0 &&
	    lb_tcglog_open(&fwl, fw, flen) == 0)
		fw_ok = 1;
	if (fw_ok && area_ok && !(al.end >= fwl.end && !memcmp(area, fw, fwl.end))) {
		/* a log that is not the one the firmware handed over */
		lb_seterr(err, errsz, "ACPI TPM2 log area at 0x%llx holds a log that is not "
			  "the firmware's", (unsigned long long)lasa);
		rc = -EEXIST;
		goto out;
	}
	if (fw_ok) {
		/* firmware log + every lboot event (what an earlier call wrote
		 * after it is the same prefix of our events); events taken from
		 * elsewhere (n_fw) are not added to a log the firmware kept */
		rc = lb_measure_log_build(m, fw, fwl.end, m->n_fw, &log, &llen);
	} else if (area_ok) {
		/* no firmware log to read: append in place what is not there */
		rc = lb_measure_log_build(m, area, al.end, m->n_logged, &log, &llen);
	} else {
		rc = lb_measure_log_build(m, NULL, 0, 0, &log, &llen);
	}
	if (rc) {
		lb_seterr(err, errsz, "building the event log: %s", rc == -ENOTSUP ?
			  "the firmware log's banks are not the TPM's active banks" :
			  strerror(-rc));
		goto out;
	}
	/* Linux stops before an event that ends exactly at the area's end:
	 * keep one byte free, and zeros after the log */
	if (llen >= laml) {
		lb_seterr(err, errsz, "ACPI TPM2 log area full: %zu bytes of log, %u of room",
			  llen, laml);
		rc = -ENOSPC;
		goto out;
	}
	memcpy(area, log, llen);
	memset(area + llen, 0, laml - llen);
	if (marea) {
		memcpy(marea, area, laml);
		msync(mapped, mlen, MS_SYNC);
		from = laml;
	} else {
		from = 0;
	}
	while (from < laml) {
		ssize_t k = pwrite(fd, area + from, laml - from, (off_t)(lasa + from));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rc = k < 0 ? -errno : -EIO;
			lb_seterr(err, errsz, "%s: writing the log area at 0x%llx: %s", mp,
				  (unsigned long long)lasa, strerror(-rc));
			goto out;
		}
		from += (size_t)k;
	}
	m->n_logged = m->n_ev;
	rc = 0;
out:
	if (mapped)
		munmap(mapped, mlen);
	if (fd >= 0)
		close(fd);
	free(log);
	free(fw);
	free(area);
	return rc;
}
