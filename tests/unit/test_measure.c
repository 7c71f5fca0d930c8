/*
 * Measured boot (src/tpm/measure.c) against a scripted TPM that keeps real
 * PCRs: the events' byte layouts (tagged events, UEFI_IMAGE_LOAD_EVENT,
 * device path, UCS-2 command line, separators, systemd-stub section events),
 * the command line digest and event data against the real OVMF + swtpm log
 * (tests/files/tpm/ovmf-eventlog.bin: LoadOptions "console=ttyS0 quiet
 * panic=-1 initrd=initrd"), the log built on that firmware log replaying to
 * the TPM's PCRs, and the ACPI TPM2 log area written through a file that
 * stands in for /dev/mem. The real-TPM tests are tests/host/measure.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <unistd.h>

#include "t.h"
#include "uki_fixture.h"
#include "hash.h"
#include "measure.h"
#include "pe.h"
#include "tcglog.h"
#include "uki.h"

/* --- a scripted TPM -------------------------------------------------------- */

struct fake {
	uint16_t banks[8];
	size_t nb;
	uint32_t fail_cc;      /* answer this command with rc */
	uint32_t rc;
	int garbage;           /* answer GetCapability with a cut reply */
	size_t fail_extend_at; /* 1-based: that PCR_Extend answers rc (once) */
	size_t extends;
	uint8_t pcr[8][24][64];
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void wbe32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static int hash_alg(uint16_t tpm)
{
	return lb_measure_hash_alg(tpm);
}

static int fake_xfer(void *ctx, const uint8_t *cmd, size_t clen, uint8_t *rsp,
		     size_t rcap, size_t *rlen)
{
	struct fake *f = ctx;
	uint32_t cc = be32(cmd + 6);
	size_t n = 10;

	if (clen < 10 || rcap < 256)
		return -EINVAL;
	rsp[0] = 0x80;
	rsp[1] = 0x01;
	if (f->fail_cc == cc) {
		wbe32(rsp + 2, 10);
		wbe32(rsp + 6, f->rc);
		*rlen = 10;
		return 0;
	}
	wbe32(rsp + 6, 0);
	if (cc == LB_TPM2_CC_GetCapability) {
		rsp[n++] = 0;            /* moreData */
		wbe32(rsp + n, LB_TPM2_CAP_PCRS);
		n += 4;
		wbe32(rsp + n, f->nb);
		n += 4;
		for (size_t i = 0; i < f->nb; i++) {
			rsp[n++] = f->banks[i] >> 8;
			rsp[n++] = f->banks[i];
			rsp[n++] = 3;
			rsp[n++] = 0xff;
			rsp[n++] = 0xff;
			rsp[n++] = 0xff;
		}
		if (f->garbage)
			n -= 3;
	} else if (cc == LB_TPM2_CC_PCR_Extend && f->fail_extend_at &&
		   f->extends + 1 == f->fail_extend_at) {
		f->fail_extend_at = 0;
		wbe32(rsp + 6, LB_TPM2_RC_FAILURE);
	} else if (cc == LB_TPM2_CC_PCR_Extend) {
		/* handle, auth area (size + 9 bytes), count, {alg, digest} */
		uint32_t pcr = be32(cmd + 10), cnt;
		size_t o = 14 + 4 + be32(cmd + 14);

		cnt = be32(cmd + o);
		o += 4;
		for (uint32_t i = 0; i < cnt; i++) {
			uint16_t alg = (uint16_t)(cmd[o] << 8 | cmd[o + 1]);
			int h = hash_alg(alg);
			size_t b, sz = lb_hash_len(h);
			uint8_t buf[128];
			struct lb_digests d;

			for (b = 0; b < f->nb && f->banks[b] != alg; b++)
				;
			o += 2;
			memcpy(buf, f->pcr[b][pcr], sz);
			memcpy(buf + sz, cmd + o, sz);
			lb_hash_buf(LB_HASH_BIT(h), buf, 2 * sz, &d);
			memcpy(f->pcr[b][pcr], d.d[h], sz);
			o += sz;
		}
		f->extends++;
		wbe32(rsp + n, 0);     /* parameterSize */
		n += 4;
		rsp[n++] = 0;          /* auth response: nonce, attrs, hmac */
		rsp[n++] = 0;
		rsp[n++] = 1;
		rsp[n++] = 0;
		rsp[n++] = 0;
		rsp[0] = 0x80;
		rsp[1] = 0x02;
	} else if (cc == LB_TPM2_CC_GetRandom) {
		uint16_t want = (uint16_t)(cmd[10] << 8 | cmd[11]);

		rsp[n++] = want >> 8;
		rsp[n++] = want;
		memset(rsp + n, 0x5a, want);
		n += want;
	} else if (cc == LB_TPM2_CC_HierarchyChangeAuth) {
		wbe32(rsp + n, 0);
		n += 4;
		rsp[n++] = 0;
		rsp[n++] = 0;
		rsp[n++] = 1;
		rsp[n++] = 0;
		rsp[n++] = 0;
		rsp[0] = 0x80;
		rsp[1] = 0x02;
	} else {
		wbe32(rsp + 6, 0x143); /* TPM_RC_COMMAND_CODE */
	}
	wbe32(rsp + 2, n);
	*rlen = n;
	return 0;
}

static void fake4(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->banks[0] = LB_TPM2_ALG_SHA1;
	f->banks[1] = LB_TPM2_ALG_SHA256;
	f->banks[2] = LB_TPM2_ALG_SHA384;
	f->banks[3] = LB_TPM2_ALG_SHA512;
	f->nb = 4;
}

static int replay_hash(void *ctx, uint16_t alg, const uint8_t *data, size_t len,
		       uint8_t *out)
{
	int h = lb_measure_hash_alg(alg);
	struct lb_digests d;

	if (h < 0)
		return -ENOTSUP;
	lb_hash_buf(LB_HASH_BIT(h), data, len, &d);
	memcpy(out, d.d[h], lb_hash_len(h));
	return 0;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long sz;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	b = malloc(sz > 0 ? (size_t)sz : 1);
	if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*n = (size_t)sz;
	return b;
}

static int unhex(const char *s, uint8_t *out)
{
	size_t n = strlen(s) / 2;

	return lb_unhex(s, strlen(s), out, n);
}

/* the last event of m */
static const struct lb_measure_event *last(const struct lb_measure *m)
{
	return m->n_ev ? &m->ev[m->n_ev - 1] : NULL;
}

static struct lb_measure m;

static int write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ok = fd >= 0 && write(fd, p, n) == (ssize_t)n;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* An ACPI TPM2 table (revision 4, 76 bytes) with a log area. */
static void tpm2_table(uint8_t *t, uint32_t laml, uint64_t lasa)
{
	memset(t, 0, 76);
	memcpy(t, "TPM2", 4);
	t[4] = 76;
	t[8] = 4;
	t[64] = laml;
	t[65] = laml >> 8;
	t[66] = laml >> 16;
	t[67] = laml >> 24;
	for (int i = 0; i < 8; i++)
		t[68 + i] = (uint8_t)(lasa >> (8 * i));
}


/* a copy of img with section `name`'s header changed: its name's last
 * byte to `rename` (when nonzero), or its VirtualSize to vsize */
static uint8_t *mutate(const uint8_t *img, size_t n, const char *name, char rename,
		       uint32_t vsize)
{
	uint8_t *c = malloc(n);
	size_t k = strlen(name);

	if (!c)
		return NULL;
	memcpy(c, img, n);
	for (size_t i = 0; i + 12 < n && i < 4096; i++) {
		if (memcmp(c + i, name, k) || c[i + k] != 0)
			continue;
		if (rename)
			c[i + k - 1] = (uint8_t)rename;
		else
			memcpy(c + i + 8, &vsize, 4); /* little-endian host */
		return c;
	}
	free(c);
	return NULL;
}

/* an EV_SEPARATOR with the error value 1 in pcr among m's events */
static int capped(const struct lb_measure *mm, uint32_t pcr)
{
	for (size_t i = 0; i < mm->n_ev; i++)
		if (mm->ev[i].pcr == pcr && mm->ev[i].type == LB_EV_SEPARATOR &&
		    mm->ev[i].size == 4 && !memcmp(mm->ev[i].data, "\1\0\0\0", 4))
			return 1;
	return 0;
}

int main(void)
{
	static struct fake f;
	char err[256], path[PATH_MAX];
	uint8_t buf[8192];
	size_t len;
	uint8_t *ovmf;
	size_t ovmf_len = 0;

	snprintf(path, sizeof(path), "%s/tpm/ovmf-eventlog.bin", t_files());
	ovmf = slurp(path, &ovmf_len);

	TEST("ucs2: ASCII, 2- and 3-byte UTF-8, NUL terminator") {
		CHECK_INT(lb_measure_ucs2("ab", buf, sizeof(buf), &len), 0);
		CHECK_INT(len, 6);
		CHECK(!memcmp(buf, "a\0b\0\0\0", 6));
		CHECK_INT(lb_measure_ucs2("", buf, sizeof(buf), &len), 0);
		CHECK_INT(len, 2);
		CHECK_INT(lb_measure_ucs2("\xc3\xa9\xe2\x82\xac", buf, sizeof(buf), &len), 0);
		CHECK_INT(len, 6);
		CHECK(!memcmp(buf, "\xe9\x00\xac\x20\0\0", 6));
	}
	TEST("utf16: 4-byte UTF-8 as a surrogate pair, as UTF-16 firmware holds it") {
		CHECK_INT(lb_measure_ucs2("a\xf0\x9f\x98\x80", buf, sizeof(buf), &len), 0);
		CHECK_INT(len, 8);
		CHECK(!memcmp(buf, "a\0\x3d\xd8\x00\xde\0\0", 8));
		CHECK_INT(lb_measure_ucs2("\xf4\x8f\xbf\xbf", buf, sizeof(buf), &len), 0);
		CHECK(!memcmp(buf, "\xff\xdb\xff\xdf\0\0", 6));
		/* beyond U+10FFFF, overlong, 5-byte forms: not characters */
		CHECK_INT(lb_measure_ucs2("\xf4\x90\x80\x80", buf, sizeof(buf), &len), -EILSEQ);
		CHECK_INT(lb_measure_ucs2("\xf0\x8f\xbf\xbf", buf, sizeof(buf), &len), -EILSEQ);
		CHECK_INT(lb_measure_ucs2("\xf8\x88\x80\x80\x80", buf, sizeof(buf), &len), -EILSEQ);
		CHECK_INT(lb_measure_ucs2("\xf0\x9f\x98", buf, sizeof(buf), &len), -EILSEQ);
		CHECK_INT(lb_measure_ucs2("\xf0\x9f\x98\x80", buf, 5, &len), -ENOSPC);
		CHECK_INT(lb_measure_ucs2("\xf0\x9f\x98\x80", buf, 6, &len), 0);
	}
	TEST("ucs2: refuses what is not UTF-8") {
		CHECK_INT(lb_measure_ucs2("\xc0\xaf", buf, sizeof(buf), &len), -EILSEQ);
		CHECK_INT(lb_measure_ucs2("\xed\xa0\x80", buf, sizeof(buf), &len), -EILSEQ);
		CHECK_INT(lb_measure_ucs2("\xc3", buf, sizeof(buf), &len), -EILSEQ);
		CHECK_INT(lb_measure_ucs2("\xe2\x82", buf, sizeof(buf), &len), -EILSEQ);
		CHECK_INT(lb_measure_ucs2("\x80", buf, sizeof(buf), &len), -EILSEQ);
		CHECK_INT(lb_measure_ucs2("abc", buf, 7, &len), -ENOSPC);
		CHECK_INT(lb_measure_ucs2("abc", buf, 8, &len), 0);
		CHECK_INT(lb_measure_ucs2("", buf, 1, &len), -ENOSPC);
	}
	TEST("open: four active banks from GetCapability") {
		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		CHECK_INT(lb_measure_banks(&m), LB_HASH_BIT(LB_SHA1) | LB_HASH_BIT(LB_SHA256) |
			  LB_HASH_BIT(LB_SHA384) | LB_HASH_BIT(LB_SHA512));
		CHECK_INT(m.n_banks, 4);
		lb_measure_close(&m);
	}
	TEST("open: an active bank lboot cannot hash, no bank, failure mode, garbage") {
		fake4(&f);
		f.banks[1] = LB_TPM2_ALG_SM3_256;
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), -ENOTSUP);
		CHECK_STR(err, "active PCR bank sm3_256: lboot cannot hash it");
		f.nb = 0;
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), -ENOTSUP);
		CHECK_STR(err, "the TPM has no active PCR bank");
		fake4(&f);
		f.fail_cc = LB_TPM2_CC_GetCapability;
		f.rc = LB_TPM2_RC_FAILURE;
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), LB_TPM2_RC_FAILURE);
		CHECK(strstr(err, "GetCapability(PCRS): TPM_RC_FAILURE") == err);
		fake4(&f);
		f.garbage = 1;
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), -EBADMSG);
		CHECK_STR(err, "GetCapability(PCRS): malformed response from the TPM");
		lb_measure_close(&m);
	}
	TEST("no TPM device: -ENOENT and one line") {
		CHECK_INT(lb_measure_open(&m, "/nonexistent/tpm", err, sizeof(err)), -ENOENT);
		CHECK_STR(err, "/nonexistent/tpm: No such file or directory");
		lb_measure_close(&m);
		lb_measure_close(&m); /* twice is safe */
	}
	TEST("cmdline: UCS-2 with NUL, EV_EVENT_TAG LoadOptions, digests as OVMF's log") {
		struct lb_tcglog log;
		struct lb_tcglog_event ev;
		size_t off;
		int found = 0;
		const struct lb_measure_event *e;

		if (!ovmf) {
			CHECK(ovmf != NULL);
			continue;
		}
		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		CHECK_INT(lb_measure_cmdline(&m, "console=ttyS0 quiet panic=-1 initrd=initrd"), 0);
		e = last(&m);
		CHECK(e && e->pcr == 9 && e->type == LB_EV_EVENT_TAG);
		CHECK_INT(lb_tcglog_open(&log, ovmf, ovmf_len), 0);
		off = log.first;
		while (e && lb_tcglog_next(&log, &off, &ev) == 1) {
			if (ev.pcr != 9 || ev.size < 8 || memcmp(ev.data, "\xed\x22\x3b\x8f", 4))
				continue;
			found = 1;
			CHECK_INT(ev.size, e->size);
			CHECK(!memcmp(ev.data, e->data, e->size));
			CHECK_INT(ev.n_dig, 4);
			for (size_t i = 0; i < ev.n_dig; i++) {
				int h = lb_measure_hash_alg(ev.dig[i].alg);

				CHECK(h >= 0 && !memcmp(ev.dig[i].d, e->d.d[h], ev.dig[i].size));
			}
		}
		CHECK(found);
		/* a command line that is not UTF-8 extends nothing */
		len = f.extends;
		CHECK_INT(lb_measure_cmdline(&m, "x=\xff"), -EILSEQ);
		CHECK_INT(f.extends, len);
		lb_measure_close(&m);
	}
	TEST("initrd: EV_EVENT_TAG \"Linux initrd\" as in OVMF's log, the caller's digests") {
		struct lb_digests d;
		struct lb_tcglog log;
		struct lb_tcglog_event ev;
		size_t off;
		int found = 0;
		const struct lb_measure_event *e;

		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		CHECK_INT(lb_hash_buf(LB_HASH_BIT(LB_SHA256), "x", 1, &d), 0);
		CHECK_INT(lb_measure_initrd(&m, &d), -EINVAL); /* sha1/384/512 missing */
		CHECK_INT(m.n_ev, 0);
		CHECK_INT(f.extends, 0);
		CHECK_INT(lb_hash_buf(LB_HASH_ALL, "x", 1, &d), 0);
		CHECK_INT(lb_measure_initrd(&m, &d), 0);
		e = last(&m);
		CHECK(e && e->pcr == 9 && e->type == LB_EV_EVENT_TAG && e->size == 21);
		CHECK(e && !memcmp(e->data, "\xec\x22\x3b\x8f\x0d\0\0\0Linux initrd\0", 21));
		CHECK(e && !memcmp(e->d.d[LB_SHA512], d.d[LB_SHA512], 64));
		if (ovmf && lb_tcglog_open(&log, ovmf, ovmf_len) == 0) {
			off = log.first;
			while (e && lb_tcglog_next(&log, &off, &ev) == 1)
				if (ev.pcr == 9 && ev.size == e->size &&
				    !memcmp(ev.data, e->data, e->size))
					found = 1;
		}
		CHECK(found);
		lb_measure_close(&m);
	}
	TEST("kernel: PCR 4 EV_EFI_BOOT_SERVICES_APPLICATION, UEFI_IMAGE_LOAD_EVENT, file path") {
		static const uint8_t dp[] = {
			4, 4, 32, 0, '\\', 0, 'b', 0, 'o', 0, 'o', 0, 't', 0, '\\', 0,
			'v', 0, 'm', 0, 'l', 0, 'i', 0, 'n', 0, 'u', 0, 'z', 0, 0, 0,
			0x7f, 0xff, 4, 0,
		};
		struct lb_pe pe;
		struct lb_digests d;
		uint8_t *img;
		size_t n;
		const struct lb_measure_event *e;

		snprintf(path, sizeof(path), "%s/uki/debian.efi", t_files());
		img = slurp(path, &n);
		CHECK(img != NULL);
		if (!img)
			continue;
		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		CHECK_INT(lb_measure_kernel_pe(&m, img, n, "/boot/vmlinuz"), 0);
		e = last(&m);
		CHECK_INT(lb_pe_parse(img, n, n, &pe), 0);
		CHECK(e && e->pcr == 4 && e->type == LB_EV_EFI_BOOT_SERVICES_APPLICATION);
		CHECK(e && e->size == 32 + sizeof(dp));
		if (e && e->size == 32 + sizeof(dp)) {
			uint64_t v[4];

			memcpy(v, e->data, 32); /* little-endian host */
			CHECK_INT(v[0], 0);
			CHECK_INT(v[1], n);
			CHECK_INT(v[2], pe.image_base);
			CHECK_INT(v[3], sizeof(dp));
			CHECK(!memcmp(e->data + 32, dp, sizeof(dp)));
		}
		/* no path: no device path */
		CHECK_INT(lb_measure_kernel_pe(&m, img, n, NULL), 0);
		e = last(&m);
		CHECK(e && e->size == 32);
		/* not PE: the plain file digest, returns 1 */
		CHECK_INT(lb_measure_kernel_pe(&m, (const uint8_t *)"not a kernel", 12, "/k"), 1);
		e = last(&m);
		CHECK_INT(lb_hash_buf(LB_HASH_ALL, "not a kernel", 12, &d), 0);
		CHECK(e && !memcmp(e->d.d[LB_SHA256], d.d[LB_SHA256], 32));
		free(img);
		lb_measure_close(&m);
	}
	TEST("uki: systemd-stub 252 recipe, name then contents, UTF-16 names") {
		uint8_t *img;
		size_t n, ns = 0;
		struct lb_pe pe;
		struct lb_digests d;
		static const char *const want[] = { ".linux", ".osrel", ".cmdline", ".initrd" };

		snprintf(path, sizeof(path), "%s/uki/debian.efi", t_files());
		img = slurp(path, &n);
		if (!img || lb_pe_parse(img, n, n, &pe)) {
			CHECK(0);
			free(img);
			continue;
		}
		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		CHECK_INT(lb_measure_uki(&m, img, n, &ns), 0);
		/* the fixture's stub is 252: .uname and .sbat are not measured */
		CHECK_INT(ns, 4);
		CHECK_INT(m.n_ev, 8);
		for (size_t i = 0; i < 4 && m.n_ev == 8; i++) {
			const struct lb_measure_event *nm = &m.ev[2 * i], *ct = &m.ev[2 * i + 1];
			const struct lb_pe_section *s = lb_pe_find(&pe, want[i]);
			uint8_t u16[32];
			size_t k = 0;

			for (const char *c = want[i]; *c; c++) {
				u16[k++] = *c;
				u16[k++] = 0;
			}
			u16[k++] = 0;
			u16[k++] = 0;
			CHECK(nm->pcr == 11 && nm->type == LB_EV_IPL && ct->type == LB_EV_IPL);
			CHECK(nm->size == k && !memcmp(nm->data, u16, k));
			CHECK(ct->size == k && !memcmp(ct->data, u16, k));
			lb_hash_buf(LB_HASH_BIT(LB_SHA256), want[i], strlen(want[i]) + 1, &d);
			CHECK(!memcmp(nm->d.d[LB_SHA256], d.d[LB_SHA256], 32));
			/* VirtualSize bytes (objcopy: the payload's size) */
			CHECK(s && s->vsize <= s->raw_size);
			if (s) {
				lb_hash_buf(LB_HASH_BIT(LB_SHA256), img + s->raw_off, s->vsize, &d);
				CHECK(!memcmp(ct->d.d[LB_SHA256], d.d[LB_SHA256], 32));
			}
		}
		CHECK_INT(lb_measure_uki(&m, (const uint8_t *)"not PE", 6, NULL), -EINVAL);
		/* a hostile VirtualSize (4 GiB past the raw data): refused before
		 * any extend, at once */
		{
			const struct lb_pe_section *s = lb_pe_find(&pe, ".osrel");
			size_t before = f.extends, hdr = 0;

			for (size_t i = 0; s && i + 8 < 4096 && !hdr; i++)
				if (!memcmp(img + i, ".osrel\0", 7))
					hdr = i;
			CHECK(hdr != 0);
			if (hdr) {
				memset(img + hdr + 8, 0xff, 4); /* VirtualSize */
				CHECK_INT(lb_measure_uki(&m, img, n, NULL), -EINVAL);
				CHECK_INT(f.extends, before);
			}
		}
		free(img);
		lb_measure_close(&m);
	}
	TEST("uki multi-profile: profile 0 over the base measured, exactly the sections that boot") {
		static const char *const want[] = { ".linux", ".cmdline", ".profile" };
		uint8_t *img, *c;
		size_t n, ns = 0;
		struct lb_uki u;
		struct lb_pe pe;

		snprintf(path, sizeof(path), "%s/uki/debian.efi", t_files());
		img = slurp(path, &n);
		c = img ? multi_profile(img, n) : NULL;
		CHECK(c != NULL);
		if (!c || lb_pe_parse(c, n, n, &pe) || lb_uki_split(c, n, &u)) {
			CHECK(0);
			free(img);
			free(c);
			continue;
		}
		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		/* no .sdmagic left: the 257+ list, .profile included */
		CHECK_INT(lb_measure_uki(&m, c, n, &ns), 0);
		CHECK_INT(ns, 3);
		CHECK_INT(m.n_ev, 6);
		for (size_t i = 0; i < 3 && m.n_ev == 6; i++) {
			struct lb_digests d;

			lb_hash_buf(LB_HASH_BIT(LB_SHA256), want[i], strlen(want[i]) + 1, &d);
			CHECK(!memcmp(m.ev[2 * i].d.d[LB_SHA256], d.d[LB_SHA256], 32));
		}
		if (m.n_ev == 6) {
			struct lb_digests d;

			/* the bytes that boot (uki.c's spans) are the bytes measured */
			lb_hash_buf(LB_HASH_BIT(LB_SHA256), c + u.linux_.off, u.linux_.len, &d);
			CHECK(!memcmp(m.ev[1].d.d[LB_SHA256], d.d[LB_SHA256], 32));
			lb_hash_buf(LB_HASH_BIT(LB_SHA256), c + u.cmdline.off, u.cmdline.len, &d);
			CHECK(!memcmp(m.ev[3].d.d[LB_SHA256], d.d[LB_SHA256], 32));
			CHECK_INT(u.cmdline.off, pe.sec[9].raw_off); /* profile 0's */
			CHECK_INT(u.initrd.len, 0);                  /* profile 1's is not */
		}
		/* a .linux only in profile 0: measured (it boots) */
		{
			size_t t = 0, before;

			for (size_t i = 0; i + 8 < n && i < 4096 && !t; i++)
				if (!memcmp(c + i, ".text\0\0\0", 8))
					t = i;
			memcpy(c + t + 40 * 6, ".linuX", 6);
			memcpy(c + t + 40 * 9, ".linux\0\0", 8);
			before = m.n_ev;
			CHECK_INT(lb_uki_split(c, n, &u), 0);
			CHECK_INT(lb_measure_uki(&m, c, n, &ns), 0);
			CHECK_INT(m.n_ev, before + 6); /* .linux .cmdline(base) .profile */
			/* neither base nor profile 0 holds one: neither boots nor measures */
			memcpy(c + t + 40 * 9, ".linuY\0\0", 8);
			CHECK_INT(lb_uki_split(c, n, &u), -ENOENT);
			CHECK_INT(lb_measure_uki(&m, c, n, &ns), -ENOENT);
		}
		lb_measure_close(&m);
		free(c);
		free(img);
	}
	TEST("separator, config, string: layouts") {
		uint8_t sep[32];
		const struct lb_measure_event *e;

		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		CHECK_INT(lb_measure_separator(&m, 8), 0);
		e = last(&m);
		unhex("df3f619804a92fdb4057192dc43dd748ea778adc52bc498ce80524c014b81119", sep);
		CHECK(e && e->pcr == 8 && e->type == LB_EV_SEPARATOR && e->size == 4);
		CHECK(e && !memcmp(e->data, "\0\0\0\0", 4) && !memcmp(e->d.d[LB_SHA256], sep, 32));
		CHECK_INT(lb_measure_config(&m, "/loader/loader.conf", (const uint8_t *)"timeout 3\n", 10), 0);
		e = last(&m);
		CHECK(e && e->pcr == 8 && e->type == LB_EV_EVENT_TAG && e->size == 8 + 20);
		CHECK(e && !memcmp(e->data, "\xf1\xc0\x42\x4c\x14\0\0\0/loader/loader.conf", 28));
		CHECK_INT(lb_measure_string(&m, "recovery shell"), 0);
		e = last(&m);
		CHECK(e && e->type == LB_EV_IPL && e->size == 22 &&
		      !memcmp(e->data, "lboot: recovery shell", 22));
		{
			struct lb_digests d;

			lb_hash_buf(LB_HASH_BIT(LB_SHA256), "recovery shell", 14, &d);
			CHECK(e && !memcmp(e->d.d[LB_SHA256], d.d[LB_SHA256], 32));
		}
		CHECK_INT(lb_measure_string(&m, ""), -EINVAL);
		CHECK_INT(lb_measure_separator(&m, 24), -EINVAL);
		lb_measure_close(&m);
	}
	TEST("a failed extend is not logged; the event cap") {
		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		f.fail_cc = LB_TPM2_CC_PCR_Extend;
		f.rc = 0x984; /* TPM_RC_VALUE, parameter... */
		CHECK_INT(lb_measure_separator(&m, 8), 0x984);
		CHECK_INT(m.n_ev, 0);
		f.fail_cc = 0;
		for (size_t i = 0; i < LB_MEASURE_MAX_EVENTS; i++)
			CHECK_INT(lb_measure_separator(&m, 8), 0);
		CHECK_INT(lb_measure_separator(&m, 8), -ENOSPC);
		CHECK_INT(f.extends, LB_MEASURE_MAX_EVENTS);
		lb_measure_close(&m);
	}
	TEST("boot: an attacker-chosen failure caps the PCRs; the honest digests cannot complete them") {
		static struct fake h;
		static struct lb_measure mh;
		static char longpath[LB_MEASURE_MAX_PATH + 2];
		static const char *const why[] = {
			"kernel path not UTF-8", "command line not UTF-8",
			"kernel path too long", "UKI without .linux",
			"UKI section VirtualSize 4 GiB", "TPM fails the third extend",
		};
		struct lb_measure_boot hb, b;
		struct lb_digests ird;
		uint8_t *img;
		size_t n;

		snprintf(path, sizeof(path), "%s/uki/debian.efi", t_files());
		img = slurp(path, &n);
		CHECK(img != NULL);
		if (!img)
			continue;
		lb_hash_buf(LB_HASH_ALL, "initrd", 6, &ird);
		hb = (struct lb_measure_boot){ img, n, "/EFI/Linux/debian.efi", 1,
					       "root=/dev/sda ro", &ird,
					       "verified 'debian': kernel, 0 initrds and command line by PE signature" };
		fake4(&h);
		CHECK_INT(lb_measure_attach(&mh, fake_xfer, &h, err, sizeof(err)), 0);
		CHECK_INT(lb_measure_boot(&mh, &hb, NULL, err, sizeof(err)), 0);
		/* kernel, 4 UKI sections x 2, cmdline, initrd, the verdict and
		 * PCR 8's separator */
		CHECK_INT(mh.n_ev, 13);
		CHECK_INT(h.extends, 13);
		{
			static const char want[] = "lboot: verify: verified 'debian': kernel, 0 initrds "
						   "and command line by PE signature";
			const struct lb_measure_event *v = &mh.ev[11], *sp = &mh.ev[12];
			struct lb_digests dd;

			CHECK(v->pcr == 8 && v->type == LB_EV_IPL);
			CHECK(v->size == sizeof(want) && !memcmp(v->data, want, sizeof(want)));
			/* the digest is over the string without "lboot: " (GRUB's way) */
			lb_hash_buf(LB_HASH_BIT(LB_SHA256), want + 7, sizeof(want) - 8, &dd);
			CHECK(!memcmp(v->d.d[LB_SHA256], dd.d[LB_SHA256], 32));
			CHECK(sp->pcr == 8 && sp->type == LB_EV_SEPARATOR && sp->size == 4 &&
			      !memcmp(sp->data, "\0\0\0\0", 4));
		}
		memset(longpath, 'a', sizeof(longpath) - 1);
		longpath[0] = '/';
		for (int k = 0; k < 6; k++) {
			uint8_t *bad = NULL;
			int rc;

			b = hb;
			fake4(&f);
			if (k == 0)
				b.path = "/EFI/Linux/\xff.efi";
			else if (k == 1)
				b.cmdline = "root=/dev/sda ro init=/bin/sh \xc0\xaf";
			else if (k == 2)
				b.path = longpath;
			else if (k == 3)
				bad = mutate(img, n, ".linux", 'y', 0);
			else if (k == 4)
				bad = mutate(img, n, ".osrel", 0, 0xffffffffu);
			else
				f.fail_extend_at = 3;
			if (k == 3 || k == 4) {
				CHECK(bad != NULL);
				if (!bad)
					continue;
				b.img = bad;
			}
			CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
			rc = lb_measure_boot(&m, &b, NULL, err, sizeof(err));
			if (!rc || !strstr(err, "capped"))
				printf("# %s: rc %d, %s\n", why[k], rc, err);
			CHECK(rc != 0);
			CHECK(strstr(err, "capped (EV_SEPARATOR 1)") != NULL);
			/* built before any extend: only the caps went in */
			CHECK_INT(f.extends, (k == 5 ? 2 : 0) + 13);
			for (uint32_t p = 0; p < 14; p++)
				CHECK(capped(&m, p) == (p != 10));
			/* the booted code extends exactly an honest boot's events */
			for (size_t i = 0; i < mh.n_ev; i++)
				CHECK_INT(lb_measure_digest(&m, mh.ev[i].pcr, mh.ev[i].type,
							    &mh.ev[i].d, NULL, 0), 0);
			for (size_t bk = 0; bk < 4; bk++) {
				CHECK(memcmp(f.pcr[bk][4], h.pcr[bk][4], 64) != 0);
				CHECK(memcmp(f.pcr[bk][9], h.pcr[bk][9], 64) != 0);
				CHECK(memcmp(f.pcr[bk][11], h.pcr[bk][11], 64) != 0);
				CHECK(memcmp(f.pcr[bk][8], h.pcr[bk][8], 64) != 0);
			}
			lb_measure_close(&m);
			free(bad);
		}
		/* what an honest boot may hold measures: a character beyond the
		 * BMP, a path of 600 bytes */
		b = hb;
		b.cmdline = "root=/dev/sda ro x=\xf0\x9f\x98\x80";
		longpath[600] = 0;
		b.path = longpath;
		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		CHECK_INT(lb_measure_boot(&m, &b, NULL, err, sizeof(err)), 0);
		CHECK_INT(f.extends, 13);
		CHECK(!capped(&m, 4) && !capped(&m, 9));
		CHECK(m.ev[0].size == 32 + 4 + 1202 + 4);
		lb_measure_close(&m);
		lb_measure_close(&mh);
		free(img);
	}
	TEST("lock platform: new auth; already locked counts as locked") {
		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		CHECK_INT(lb_measure_lock_platform(&m), 0);
		f.fail_cc = LB_TPM2_CC_HierarchyChangeAuth;
		f.rc = 0x9a2; /* TPM_RC_BAD_AUTH, session 1 */
		CHECK_INT(lb_measure_lock_platform(&m), 0);
		f.rc = 0x98e; /* TPM_RC_AUTH_FAIL, session 1 */
		CHECK_INT(lb_measure_lock_platform(&m), 0);
		f.rc = 0x101; /* TPM_RC_FAILURE */
		CHECK_INT(lb_measure_lock_platform(&m), 0x101);
		lb_measure_close(&m);
	}
	TEST("log: new log replays to the TPM's PCRs in every bank") {
		static struct lb_tcglog_pcrs pcrs;
		struct lb_tcglog log;
		struct lb_digests d;
		uint8_t *out = NULL;
		size_t olen = 0;

		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		lb_hash_buf(LB_HASH_ALL, "initrd", 6, &d);
		CHECK_INT(lb_measure_string(&m, "menu edit: quiet"), 0);
		CHECK_INT(lb_measure_cmdline(&m, "quiet"), 0);
		CHECK_INT(lb_measure_initrd(&m, &d), 0);
		CHECK_INT(lb_measure_separator(&m, 8), 0);
		CHECK_INT(lb_measure_log_build(&m, NULL, 0, 0, &out, &olen), 0);
		CHECK_INT(lb_tcglog_open(&log, out, olen), 0);
		CHECK_INT(log.n_events, 4);
		CHECK_INT(log.n_alg, 4);
		CHECK_INT(lb_tcglog_replay(&log, replay_hash, NULL, &pcrs), 0);
		for (size_t b = 0; b < 4; b++) {
			CHECK_INT(pcrs.bank[b].mask, (1u << 8) | (1u << 9));
			CHECK(!memcmp(pcrs.bank[b].pcr[8], f.pcr[b][8], pcrs.bank[b].size));
			CHECK(!memcmp(pcrs.bank[b].pcr[9], f.pcr[b][9], pcrs.bank[b].size));
		}
		free(out);
		/* from: only the later events, after a base */
		CHECK_INT(lb_measure_log_build(&m, NULL, 0, 3, &out, &olen), 0);
		CHECK_INT(lb_tcglog_open(&log, out, olen), 0);
		CHECK_INT(log.n_events, 1);
		free(out);
		CHECK_INT(lb_measure_log_build(&m, NULL, 0, 5, &out, &olen), -EINVAL);
		lb_measure_close(&m);
	}
	TEST("log: firmware events (coreboot's) first in a new log, not extended, not added to a firmware log") {
		struct lb_tcglog log;
		struct lb_tcglog_event e;
		struct lb_digests d;
		uint8_t *out = NULL;
		size_t olen = 0, off;

		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		lb_hash_buf(LB_HASH_ALL, "bootblock", 9, &d);
		CHECK_INT(lb_measure_firmware_event(&m, 2, LB_EV_ACTION, &d, "FMAP: FMAP", 11), 0);
		CHECK_INT(lb_measure_firmware_event(&m, 2, LB_EV_ACTION, &d, "bootblock", 10), 0);
		CHECK_INT(f.extends, 0);
		d.mask = LB_HASH_BIT(LB_SHA256); /* a bank missing */
		CHECK_INT(lb_measure_firmware_event(&m, 2, LB_EV_ACTION, &d, "x", 2), -EINVAL);
		CHECK_INT(lb_measure_string(&m, "menu edit: quiet"), 0);
		CHECK_INT(f.extends, 1);
		lb_hash_buf(LB_HASH_ALL, "late", 4, &d);
		CHECK_INT(lb_measure_firmware_event(&m, 2, LB_EV_ACTION, &d, "late", 5), -EBUSY);
		CHECK_INT(lb_measure_log_build(&m, NULL, 0, 0, &out, &olen), 0);
		CHECK_INT(lb_tcglog_open(&log, out, olen), 0);
		CHECK_INT(log.n_events, 3);
		off = log.first;
		CHECK_INT(lb_tcglog_next(&log, &off, &e), 1);
		CHECK_INT(e.pcr, 2);
		CHECK_INT(e.type, LB_EV_ACTION);
		CHECK(e.size == 11 && !memcmp(e.data, "FMAP: FMAP", 11));
		CHECK_INT(e.n_dig, 4);
		CHECK_INT(lb_tcglog_next(&log, &off, &e), 1);
		CHECK_INT(lb_tcglog_next(&log, &off, &e), 1);
		CHECK_INT(e.pcr, 8);
		free(out);
		/* after a firmware's own log (lb_measure_log_acpi's fw_ok): lboot's only */
		CHECK_INT(lb_measure_log_build(&m, NULL, 0, m.n_fw, &out, &olen), 0);
		CHECK_INT(lb_tcglog_open(&log, out, olen), 0);
		CHECK_INT(log.n_events, 1);
		free(out);
		lb_measure_close(&m);
		CHECK_INT(m.n_fw, 0);
	}
	TEST("log: appended to OVMF's log, firmware events kept byte for byte") {
		struct lb_tcglog log, base;
		static struct lb_tcglog_pcrs pcrs;
		uint8_t *out = NULL;
		size_t olen = 0;

		if (!ovmf || lb_tcglog_open(&base, ovmf, ovmf_len)) {
			CHECK(0);
			continue;
		}
		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		CHECK_INT(lb_measure_string(&m, "policy warning: unsigned"), 0);
		CHECK_INT(lb_measure_separator(&m, 8), 0);
		CHECK_INT(lb_measure_log_build(&m, ovmf, ovmf_len, 0, &out, &olen), 0);
		CHECK(olen > base.end && !memcmp(out, ovmf, base.end));
		CHECK_INT(lb_tcglog_open(&log, out, olen), 0);
		CHECK_INT(log.n_events, base.n_events + 2);
		CHECK_INT(lb_tcglog_replay(&log, replay_hash, NULL, &pcrs), 0);
		for (size_t b = 0; b < 4; b++)
			CHECK(!memcmp(pcrs.bank[b].pcr[8], f.pcr[b][8], pcrs.bank[b].size));
		free(out);
		lb_measure_close(&m);
		/* a base whose header names a bank that is not active */
		fake4(&f);
		f.nb = 2;
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		CHECK_INT(lb_measure_separator(&m, 8), 0);
		CHECK_INT(lb_measure_log_build(&m, ovmf, ovmf_len, 0, &out, &olen), -ENOTSUP);
		lb_measure_close(&m);
	}
	TEST("acpi TPM2 table: LAML and LASA; short, foreign, lying tables refused") {
		uint8_t t[80];
		uint64_t lasa;
		uint32_t laml;

		tpm2_table(t, 65536, 0x7ffd0000ull);
		CHECK_INT(lb_measure_acpi_tpm2(t, 76, &lasa, &laml), 0);
		CHECK_INT(laml, 65536);
		CHECK_INT(lasa, 0x7ffd0000ull);
		CHECK_INT(lb_measure_acpi_tpm2(t, 75, &lasa, &laml), -EINVAL);
		t[4] = 52; /* revision 3: no log area fields */
		CHECK_INT(lb_measure_acpi_tpm2(t, 76, &lasa, &laml), -EINVAL);
		t[4] = 80; /* says more than there is */
		CHECK_INT(lb_measure_acpi_tpm2(t, 76, &lasa, &laml), -EINVAL);
		tpm2_table(t, 1, 2);
		t[0] = 'X';
		CHECK_INT(lb_measure_acpi_tpm2(t, 76, &lasa, &laml), -EINVAL);
	}
	TEST("acpi log area through a stand-in for /dev/mem") {
		char dir[] = "/tmp/lboot-test-measure.XXXXXX", tp[80], mp[80], fp[80];
		struct lb_measure_paths p;
		struct lb_tcglog log, base;
		static struct lb_tcglog_pcrs pcrs;
		uint8_t t[76], *area;
		const uint64_t lasa = 12288;
		const uint32_t laml = 65536;
		size_t n;

		if (!ovmf || !mkdtemp(dir) || lb_tcglog_open(&base, ovmf, ovmf_len)) {
			CHECK(0);
			continue;
		}
		snprintf(tp, sizeof(tp), "%s/TPM2", dir);
		snprintf(mp, sizeof(mp), "%s/mem", dir);
		snprintf(fp, sizeof(fp), "%s/fwlog", dir);
		p = (struct lb_measure_paths){ tp, mp, fp };
		tpm2_table(t, laml, lasa);
		area = calloc(1, lasa + laml + 4096);
		memset(area + lasa, 0xff, laml); /* garbage where the log goes */
		CHECK_INT(write_file(tp, t, sizeof(t)), 0);
		CHECK_INT(write_file(mp, area, lasa + laml + 4096), 0);
		CHECK_INT(write_file(fp, ovmf, ovmf_len), 0);
		fake4(&f);
		CHECK_INT(lb_measure_attach(&m, fake_xfer, &f, err, sizeof(err)), 0);
		CHECK_INT(lb_measure_string(&m, "first"), 0);
		CHECK_INT(lb_measure_log_acpi(&m, &p, err, sizeof(err)), 0);
		CHECK_INT(m.n_logged, 1);
		CHECK_INT(lb_measure_separator(&m, 8), 0);
		/* a second call: the area now holds firmware log + 1 event */
		CHECK_INT(lb_measure_log_acpi(&m, &p, err, sizeof(err)), 0);
		free(area);
		area = slurp(mp, &n);
		CHECK(area && n == lasa + laml + 4096);
		if (area) {
			CHECK_INT(lb_tcglog_open(&log, area + lasa, laml), 0);
			CHECK(!memcmp(area + lasa, ovmf, base.end));
			CHECK_INT(log.n_events, base.n_events + 2);
			CHECK_INT(lb_tcglog_replay(&log, replay_hash, NULL, &pcrs), 0);
			for (size_t b = 0; b < 4; b++)
				CHECK(!memcmp(pcrs.bank[b].pcr[8], f.pcr[b][8], pcrs.bank[b].size));
			/* zeros after the log, the bytes around the area untouched */
			for (size_t i = log.end; i < laml; i++)
				if (area[lasa + i]) {
					CHECK(!"zero after the log");
					break;
				}
			for (size_t i = 0; i < lasa; i++)
				if (area[i]) {
					CHECK(!"before the area");
					break;
				}
		}
		/* no firmware log to read: appended in place after what is there */
		unlink(fp);
		CHECK_INT(lb_measure_string(&m, "third"), 0);
		CHECK_INT(lb_measure_log_acpi(&m, &p, err, sizeof(err)), 0);
		free(area);
		area = slurp(mp, &n);
		CHECK(area && lb_tcglog_open(&log, area + lasa, laml) == 0 &&
		      log.n_events == base.n_events + 3);
		/* a log in the area that is not the firmware's: refused */
		{
			uint8_t *cut = malloc(ovmf_len);

			memcpy(cut, ovmf, ovmf_len);
			cut[base.first + 40] ^= 1; /* in the first event's digest */
			CHECK_INT(write_file(fp, cut, ovmf_len), 0);
			free(cut);
		}
		CHECK_INT(lb_measure_log_acpi(&m, &p, err, sizeof(err)), -EEXIST);
		CHECK(strstr(err, "holds a log that is not the firmware's") != NULL);
		/* a full area: nothing written */
		CHECK_INT(write_file(fp, ovmf, ovmf_len), 0);
		tpm2_table(t, (uint32_t)base.end + 10, lasa);
		CHECK_INT(write_file(tp, t, sizeof(t)), 0);
		{
			uint8_t *before = slurp(mp, &n), *after;
			size_t n2;

			CHECK_INT(lb_measure_log_acpi(&m, &p, err, sizeof(err)), -ENOSPC);
			CHECK(strstr(err, "ACPI TPM2 log area full") == err);
			after = slurp(mp, &n2);
			CHECK(before && after && n == n2 && !memcmp(before, after, n));
			free(before);
			free(after);
		}
		/* no table, no log area */
		tpm2_table(t, 0, 0);
		CHECK_INT(write_file(tp, t, sizeof(t)), 0);
		CHECK_INT(lb_measure_log_acpi(&m, &p, err, sizeof(err)), -ENOENT);
		unlink(tp);
		CHECK_INT(lb_measure_log_acpi(&m, &p, err, sizeof(err)), -ENOENT);
		free(area);
		unlink(mp);
		unlink(fp);
		rmdir(dir);
		lb_measure_close(&m);
	}
	free(ovmf);
	return t_done();
}
