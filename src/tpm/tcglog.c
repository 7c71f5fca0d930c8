/*
 * TCG2 crypto-agile event log: parse, replay, build. Layouts from the TCG PC
 * Client Platform Firmware Profile (TCG_PCR_EVENT, TCG_EfiSpecIDEventStruct,
 * TCG_PCR_EVENT2, TCG_PCClientTaggedEvent, UEFI_IMAGE_LOAD_EVENT).
 */
#include <errno.h>
#include <string.h>

#include "tcglog.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static const char spec_id[16] = "Spec ID Event03";

/* The header event: TCG_PCR_EVENT {PCRIndex, EventType, Digest[20],
 * EventSize, Event} holding TCG_EfiSpecIDEventStruct. */
static int parse_header(struct lb_tcglog *log)
{
	const uint8_t *p = log->buf;
	size_t len = log->len, esz, n, need;
	const uint8_t *e;

	if (len < 32)
		return -EBADMSG;
	if (le32(p) != 0 || le32(p + 4) != LB_EV_NO_ACTION)
		return -EBADMSG;
	for (int i = 0; i < 20; i++)
		if (p[8 + i])
			return -EBADMSG;
	esz = le32(p + 28);
	if (esz > len - 32)
		return -EBADMSG;
	e = p + 32;
	/* signature 16, platformClass 4, minor, major, errata, uintnSize,
	 * numberOfAlgorithms 4 */
	if (esz < 28 || memcmp(e, spec_id, 16))
		return -EBADMSG;
	log->platform_class = le32(e + 16);
	log->spec_minor = e[20];
	log->spec_major = e[21];
	log->errata = e[22];
	log->uintn_size = e[23];
	n = le32(e + 24);
	if (!n || n > LB_TCGLOG_MAX_ALGS)
		return n ? -E2BIG : -EBADMSG;
	need = 28 + 4 * n + 1;
	if (esz < need)
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		uint16_t id = le16(e + 28 + 4 * i), sz = le16(e + 30 + 4 * i);
		size_t known = lb_tpm2_alg_size(id);

		/* an unknown algorithm's size is taken from the header (the
		 * spec's point), but not beyond our digest buffers */
		if (!sz || sz > LB_TPM2_MAX_DIGEST || (known && known != sz))
			return -EBADMSG;
		for (size_t j = 0; j < i; j++)
			if (log->alg[j].id == id)
				return -EBADMSG;
		log->alg[i].id = id;
		log->alg[i].size = sz;
	}
	log->n_alg = n;
	/* vendorInfoSize, vendorInfo: the rest of the event exactly */
	if (need + e[need - 1] != esz)
		return -EBADMSG;
	if (log->spec_major != 2 || log->uintn_size != 2)
		return -EBADMSG;
	log->first = 32 + esz;
	return 0;
}

int lb_tcglog_next(const struct lb_tcglog *log, size_t *off,
		   struct lb_tcglog_event *ev)
{
	const uint8_t *p = log->buf;
	size_t o = *off, len = log->len, cnt;
	uint32_t pcr, type, size;

	if (o > len)
		return -EBADMSG;
	if (len - o < 8) {
		/* the end: nothing left, or a few bytes of free space */
		for (size_t i = o; i < len; i++)
			if (p[i] != 0 && p[i] != 0xff)
				return -EBADMSG;
		return 0;
	}
	pcr = le32(p + o);
	type = le32(p + o + 4);
	if ((pcr == 0 && type == 0) || (pcr == 0xffffffffu && type == 0xffffffffu))
		return 0; /* free space */
	if (pcr >= LB_TPM2_NUM_PCRS)
		return -EBADMSG;
	ev->off = o;
	ev->pcr = pcr;
	ev->type = type;
	o += 8;
	if (len - o < 4)
		return -EBADMSG;
	cnt = le32(p + o);
	o += 4;
	if (cnt > log->n_alg)
		return -EBADMSG;
	ev->n_dig = cnt;
	for (size_t i = 0; i < cnt; i++) {
		uint16_t id;
		size_t k;

		if (len - o < 2)
			return -EBADMSG;
		id = le16(p + o);
		o += 2;
		for (k = 0; k < log->n_alg && log->alg[k].id != id; k++)
			;
		if (k == log->n_alg)
			return -EBADMSG; /* not in the header: its size is unknown */
		for (size_t j = 0; j < i; j++)
			if (ev->dig[j].alg == id)
				return -EBADMSG;
		if (len - o < log->alg[k].size)
			return -EBADMSG;
		ev->dig[i].alg = id;
		ev->dig[i].size = log->alg[k].size;
		ev->dig[i].d = p + o;
		o += log->alg[k].size;
	}
	if (len - o < 4)
		return -EBADMSG;
	size = le32(p + o);
	o += 4;
	if (size > LB_TCGLOG_MAX_EVENT_SIZE)
		return -E2BIG;
	if (len - o < size)
		return -EBADMSG;
	ev->size = size;
	ev->data = p + o;
	o += size;
	ev->len = o - ev->off;
	*off = o;
	return 1;
}

int lb_tcglog_open(struct lb_tcglog *log, const uint8_t *buf, size_t len)
{
	struct lb_tcglog l;
	struct lb_tcglog_event ev;
	size_t off;
	int rc;

	memset(&l, 0, sizeof(l));
	if (len > LB_TCGLOG_MAX_SIZE)
		return -E2BIG;
	l.buf = buf;
	l.len = len;
	rc = parse_header(&l);
	if (rc)
		return rc;
	off = l.first;
	while ((rc = lb_tcglog_next(&l, &off, &ev)) == 1) {
		if (++l.n_events > LB_TCGLOG_MAX_EVENTS)
			return -E2BIG;
	}
	if (rc < 0)
		return rc;
	l.end = off;
	*log = l;
	return 0;
}

int lb_tcglog_replay(const struct lb_tcglog *log, lb_tcglog_hash_fn hash,
		     void *ctx, struct lb_tcglog_pcrs *out)
{
	struct lb_tcglog_event ev;
	size_t off = log->first;
	uint8_t buf[2 * LB_TPM2_MAX_DIGEST];
	int rc;

	memset(out, 0, sizeof(*out));
	out->n_bank = log->n_alg;
	for (size_t b = 0; b < log->n_alg; b++) {
		out->bank[b].alg = log->alg[b].id;
		out->bank[b].size = log->alg[b].size;
	}
	while ((rc = lb_tcglog_next(log, &off, &ev)) == 1) {
		if (ev.type == LB_EV_NO_ACTION) {
			/* "StartupLocality\0" + locality: PCR 0's initial value */
			if (ev.pcr == 0 && ev.size == 17 &&
			    !memcmp(ev.data, "StartupLocality", 16)) {
				for (size_t b = 0; b < out->n_bank; b++)
					out->bank[b].pcr[0][out->bank[b].size - 1] = ev.data[16];
			}
			continue;
		}
		for (size_t i = 0; i < ev.n_dig; i++) {
			struct lb_tcglog_bank *bk = NULL;

			for (size_t b = 0; b < out->n_bank; b++)
				if (out->bank[b].alg == ev.dig[i].alg)
					bk = &out->bank[b];
			if (!bk)
				return -EBADMSG;
			if (bk->unsupported)
				continue;
			memcpy(buf, bk->pcr[ev.pcr], bk->size);
			memcpy(buf + bk->size, ev.dig[i].d, bk->size);
			rc = hash(ctx, bk->alg, buf, 2u * bk->size, bk->pcr[ev.pcr]);
			if (rc == -ENOTSUP) {
				/* a bank we cannot hash: left out, not a failure */
				bk->unsupported = 1;
				bk->mask = 0;
				memset(bk->pcr, 0, sizeof(bk->pcr));
				continue;
			}
			if (rc)
				return rc < 0 ? rc : -EIO;
			bk->mask |= 1u << ev.pcr;
		}
	}
	return rc < 0 ? rc : 0;
}

static const struct {
	uint32_t type;
	const char *name;
} types[] = {
	{ LB_EV_PREBOOT_CERT, "EV_PREBOOT_CERT" },
	{ LB_EV_POST_CODE, "EV_POST_CODE" },
	{ LB_EV_NO_ACTION, "EV_NO_ACTION" },
	{ LB_EV_SEPARATOR, "EV_SEPARATOR" },
	{ LB_EV_ACTION, "EV_ACTION" },
	{ LB_EV_EVENT_TAG, "EV_EVENT_TAG" },
	{ LB_EV_S_CRTM_CONTENTS, "EV_S_CRTM_CONTENTS" },
	{ LB_EV_S_CRTM_VERSION, "EV_S_CRTM_VERSION" },
	{ LB_EV_CPU_MICROCODE, "EV_CPU_MICROCODE" },
	{ LB_EV_PLATFORM_CONFIG_FLAGS, "EV_PLATFORM_CONFIG_FLAGS" },
	{ LB_EV_TABLE_OF_DEVICES, "EV_TABLE_OF_DEVICES" },
	{ LB_EV_COMPACT_HASH, "EV_COMPACT_HASH" },
	{ LB_EV_IPL, "EV_IPL" },
	{ LB_EV_IPL_PARTITION_DATA, "EV_IPL_PARTITION_DATA" },
	{ LB_EV_NONHOST_CODE, "EV_NONHOST_CODE" },
	{ LB_EV_NONHOST_CONFIG, "EV_NONHOST_CONFIG" },
	{ LB_EV_NONHOST_INFO, "EV_NONHOST_INFO" },
	{ LB_EV_OMIT_BOOT_DEVICE_EVENTS, "EV_OMIT_BOOT_DEVICE_EVENTS" },
	{ LB_EV_EFI_VARIABLE_DRIVER_CONFIG, "EV_EFI_VARIABLE_DRIVER_CONFIG" },
	{ LB_EV_EFI_VARIABLE_BOOT, "EV_EFI_VARIABLE_BOOT" },
	{ LB_EV_EFI_BOOT_SERVICES_APPLICATION, "EV_EFI_BOOT_SERVICES_APPLICATION" },
	{ LB_EV_EFI_BOOT_SERVICES_DRIVER, "EV_EFI_BOOT_SERVICES_DRIVER" },
	{ LB_EV_EFI_RUNTIME_SERVICES_DRIVER, "EV_EFI_RUNTIME_SERVICES_DRIVER" },
	{ LB_EV_EFI_GPT_EVENT, "EV_EFI_GPT_EVENT" },
	{ LB_EV_EFI_ACTION, "EV_EFI_ACTION" },
	{ LB_EV_EFI_PLATFORM_FIRMWARE_BLOB, "EV_EFI_PLATFORM_FIRMWARE_BLOB" },
	{ LB_EV_EFI_HANDOFF_TABLES, "EV_EFI_HANDOFF_TABLES" },
	{ LB_EV_EFI_PLATFORM_FIRMWARE_BLOB2, "EV_EFI_PLATFORM_FIRMWARE_BLOB2" },
	{ LB_EV_EFI_HANDOFF_TABLES2, "EV_EFI_HANDOFF_TABLES2" },
	{ LB_EV_EFI_VARIABLE_BOOT2, "EV_EFI_VARIABLE_BOOT2" },
	{ LB_EV_EFI_HCRTM_EVENT, "EV_EFI_HCRTM_EVENT" },
	{ LB_EV_EFI_VARIABLE_AUTHORITY, "EV_EFI_VARIABLE_AUTHORITY" },
	{ LB_EV_EFI_SPDM_FIRMWARE_BLOB, "EV_EFI_SPDM_FIRMWARE_BLOB" },
	{ LB_EV_EFI_SPDM_FIRMWARE_CONFIG, "EV_EFI_SPDM_FIRMWARE_CONFIG" },
};

const char *lb_tcglog_type_name(uint32_t type)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == type)
			return types[i].name;
	return NULL;
}

int lb_tcglog_build(const struct lb_tcglog *log, uint32_t pcr, uint32_t type,
		    const struct lb_tpm2_digest *d, size_t nd, const void *data,
		    size_t size, uint8_t *out, size_t cap, size_t *len)
{
	size_t need = 12 + 4, o;

	if (pcr >= LB_TPM2_NUM_PCRS || size > LB_TCGLOG_MAX_EVENT_SIZE ||
	    (pcr == 0 && type == 0))
		return -EINVAL;
	for (size_t i = 0; i < log->n_alg; i++)
		need += 2 + log->alg[i].size;
	need += size;
	if (need > cap)
		return -ENOSPC;
	put32(out, pcr);
	put32(out + 4, type);
	put32(out + 8, log->n_alg);
	o = 12;
	for (size_t i = 0; i < log->n_alg; i++) {
		const struct lb_tpm2_digest *g = NULL;

		for (size_t j = 0; j < nd; j++)
			if (d[j].alg == log->alg[i].id)
				g = &d[j];
		if (!g || g->size != log->alg[i].size)
			return -EINVAL;
		out[o] = g->alg;
		out[o + 1] = g->alg >> 8;
		memcpy(out + o + 2, g->d, g->size);
		o += 2 + g->size;
	}
	put32(out + o, size);
	o += 4;
	if (size)
		memcpy(out + o, data, size);
	*len = o + size;
	return 0;
}

int lb_tcglog_tagged_event(uint32_t tag, uint8_t *out, size_t cap, size_t *len)
{
	const char *s;
	size_t n;

	if (tag == LB_TAG_LINUX_INITRD)
		s = "Linux initrd";
	else if (tag == LB_TAG_LINUX_LOAD_OPTIONS)
		s = "LOADED_IMAGE::LoadOptions";
	else
		return -EINVAL;
	n = strlen(s) + 1; /* the stub measures sizeof(), the NUL included */
	if (cap < 8 + n)
		return -ENOSPC;
	put32(out, tag);
	put32(out + 4, n);
	memcpy(out + 8, s, n);
	*len = 8 + n;
	return 0;
}

int lb_tcglog_image_load_event(uint64_t addr, uint64_t length, uint64_t link_addr,
			       const void *devpath, size_t dplen, uint8_t *out,
			       size_t cap, size_t *len)
{
	if (dplen > cap || cap - dplen < 32)
		return -ENOSPC;
	put64(out, addr);
	put64(out + 8, length);
	put64(out + 16, link_addr);
	put64(out + 24, dplen);
	if (dplen)
		memcpy(out + 32, devpath, dplen);
	*len = 32 + dplen;
	return 0;
}

int lb_tcglog_append(uint8_t *area, size_t cap, size_t *used, const uint8_t *rec,
		     size_t len)
{
	if (*used > cap || len > cap - *used)
		return -ENOSPC;
	memcpy(area + *used, rec, len);
	*used += len;
	return 0;
}

int lb_tcglog_header(const uint16_t *algs, size_t n, uint8_t *out, size_t cap,
		     size_t *len)
{
	size_t esz = 28 + 4 * n + 1;

	if (!n || n > LB_TCGLOG_MAX_ALGS)
		return -EINVAL;
	if (cap < 32 + esz)
		return -ENOSPC;
	memset(out, 0, 32 + esz);
	put32(out + 4, LB_EV_NO_ACTION);
	put32(out + 28, esz);
	memcpy(out + 32, spec_id, 16);
	out[32 + 21] = 2;  /* specVersionMajor */
	out[32 + 23] = 2;  /* uintnSize: UINT64 */
	put32(out + 32 + 24, n);
	for (size_t i = 0; i < n; i++) {
		size_t sz = lb_tpm2_alg_size(algs[i]);

		if (!sz)
			return -EINVAL;
		for (size_t j = 0; j < i; j++)
			if (algs[j] == algs[i])
				return -EINVAL;
		out[32 + 28 + 4 * i] = algs[i];
		out[32 + 29 + 4 * i] = algs[i] >> 8;
		out[32 + 30 + 4 * i] = sz;
		out[32 + 31 + 4 * i] = 0;
	}
	*len = 32 + esz;
	return 0;
}
