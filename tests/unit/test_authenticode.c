/* Authenticode digest: equal to pesign's and to the digest inside a signed
 * kernel's PKCS#7 (osslsigncode's "Current message digest"), on Debian's
 * signed kernel and the UKI fixtures; the excluded fields really are. */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authenticode.h"
#include "io.h"
#include "pe.h"
#include "pkcs7.h"
#include "t.h"

#include <time.h>

#define DEBIAN_CA "/usr/share/shim/debian-uefi-ca.der"

/* PE signature checks of a distribution-signed kernel against Debian's CA
 * (shim-unsigned), plus the ways it must fail */
static void pe_sig(const char *f)
{
	const char *base = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
	char name[300], err[200];
	uint8_t *img, *ca, *der;
	size_t len, calen, dlen;
	int64_t now = time(NULL);

	if (lb_read_path(DEBIAN_CA, 1 << 20, &ca, &calen)) {
		printf("skip pkcs7/%s: no %s (shim-unsigned)\n", base, DEBIAN_CA);
		return;
	}
	if (lb_read_path(f, 512u << 20, &img, &len)) {
		printf("skip pkcs7/%s: cannot read\n", base);
		free(ca);
		return;
	}
	snprintf(name, sizeof(name), "pkcs7/debian-ca/%s", base);
	TEST(name) {
		struct lb_x509_ca c;
		CHECK_INT(lb_x509_load(ca, calen, &der, &dlen), 0);
		c.der = der;
		c.len = dlen;
		CHECK_INT(lb_pe_sig_verify(img, len, &c, 1, now, err, sizeof(err)), 0);
		/* a flipped byte in the first section's data */
		struct lb_pe *pe = malloc(sizeof(*pe));
		CHECK(pe && lb_pe_parse(img, len, len, pe) == 0);
		size_t at = pe->sec[0].raw_off + 100;
		img[at] ^= 1;
		CHECK_INT(lb_pe_sig_verify(img, len, &c, 1, now, err, sizeof(err)),
			  LB_PE_SIG_CHANGED);
		img[at] ^= 1;
		/* the Debian CA's key replaced: nothing is trusted */
		uint8_t *bad = malloc(dlen);
		memcpy(bad, der, dlen);
		bad[dlen - 40] ^= 1; /* in the CA's own signature: decodes, other key */
		struct lb_x509_ca none[1] = { { bad, dlen } };
		CHECK_INT(lb_pe_sig_verify(img, len, none, 0, now, err, sizeof(err)),
			  LB_PE_SIG_UNTRUSTED);
		/* the signer's validity period: not before 2022 */
		int64_t y2000 = 946684800;
		CHECK_INT(lb_pe_sig_verify(img, len, &c, 1, y2000, err, sizeof(err)),
			  LB_PE_SIG_UNTRUSTED);
		/* the certificate table cut short */
		uint32_t cs = pe->cert_size;
		img[pe->certdir_off + 4] = (uint8_t)(cs / 2);
		img[pe->certdir_off + 5] = (uint8_t)(cs / 2 >> 8);
		CHECK(lb_pe_sig_verify(img, len, &c, 1, now, err, sizeof(err)) < 0);
		img[pe->certdir_off + 4] = (uint8_t)cs;
		img[pe->certdir_off + 5] = (uint8_t)(cs >> 8);
		/* every byte of the PKCS#7 flipped: never accepted (the fields
		 * no signature covers, versions and digestAlgorithms, are
		 * checked strictly) */
		int accepted_bad = 0;
		size_t wl = (size_t)img[pe->cert_off] | (size_t)img[pe->cert_off + 1] << 8 |
			    (size_t)img[pe->cert_off + 2] << 16;
		CHECK(wl > 8 && wl <= pe->cert_size);
		for (size_t i = pe->cert_off + 8; i < pe->cert_off + wl && i < len; i++) {
			img[i] ^= 0x80;
			int r = lb_pe_sig_verify(img, len, &c, 1, now, err, sizeof(err));
			img[i] ^= 0x80;
			if (r == 0) {
				accepted_bad++;
				printf("# flip at PKCS#7 byte %zu still verifies\n", i - pe->cert_off - 8);
			}
		}
		CHECK_INT(accepted_bad, 0);
		CHECK_INT(lb_pe_sig_verify(img, len, &c, 1, now, err, sizeof(err)), 0);
		/* revocation (the policy's revoke-pe, revoke-x509): the image's
		 * Authenticode SHA-256, the CA; an unrelated digest changes nothing */
		{
			struct lb_digests ad, cd;
			uint8_t other[1][32] = { { 1 } };
			CHECK_INT(lb_authenticode(img, len, LB_HASH_BIT(LB_SHA256), &ad), 0);
			CHECK_INT(lb_hash_buf(LB_HASH_BIT(LB_SHA256), der, dlen, &cd), 0);
			struct lb_pe_revoked rv_img = { (const uint8_t (*)[32])ad.d[LB_SHA256], 1, NULL, 0 };
			struct lb_pe_revoked rv_ca = { NULL, 0, (const uint8_t (*)[32])cd.d[LB_SHA256], 1 };
			struct lb_pe_revoked rv_other = { (const uint8_t (*)[32])other, 1,
							  (const uint8_t (*)[32])other, 1 };
			CHECK_INT(lb_pe_sig_verify_rv(img, len, &c, 1, &rv_img, now, err, sizeof(err)),
				  LB_PE_SIG_REVOKED);
			CHECK(strstr(err, "revoke-pe") != NULL);
			CHECK_INT(lb_pe_sig_verify_rv(img, len, &c, 1, &rv_ca, now, err, sizeof(err)),
				  LB_PE_SIG_UNTRUSTED);
			CHECK_INT(lb_pe_sig_verify_rv(img, len, &c, 1, &rv_other, now, err, sizeof(err)), 0);
		}
		free(bad);
		free(pe);
		free(der);
	}
	free(img);
	free(ca);
}

/* run cmd, find `key` in its output, return the hex word after it
 * (lower-cased) in out; -1 when absent */
static int tool_word(const char *cmd, const char *key, char *out, size_t n)
{
	char line[1024];
	FILE *p = popen(cmd, "r");
	int rc = -1;

	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *k = strstr(line, key);
		size_t i = 0;

		if (!k || rc == 0)
			continue;
		k += strlen(key);
		while (*k == ' ' || *k == ':')
			k++;
		while (isxdigit((unsigned char)k[i]) && i + 1 < n) {
			out[i] = (char)tolower((unsigned char)k[i]);
			i++;
		}
		out[i] = 0;
		rc = i ? 0 : -1;
	}
	pclose(p);
	return rc;
}

static int have(const char *tool)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

static void one_file(const char *f, int is_signed)
{
	char name[300], cmd[4500], want[200], hex[129];
	const char *base = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
	uint8_t *data;
	size_t len;
	struct lb_digests d;

	if (lb_read_path(f, 512u << 20, &data, &len)) {
		printf("skip authenticode/%s: cannot read %s\n", base, f);
		return;
	}
	snprintf(name, sizeof(name), "authenticode/pesign/%s", base);
	if (!have("pesign")) {
		printf("skip %s: pesign not installed\n", name);
	} else TEST(name) {
		CHECK_INT(lb_authenticode(data, len, LB_HASH_ALL, &d), 0);
		snprintf(cmd, sizeof(cmd), "pesign -h -d sha256 -i '%s' 2>/dev/null", f);
		CHECK_INT(tool_word(cmd, "hash:", want, sizeof(want)), 0);
		lb_hex(d.d[LB_SHA256], 32, hex);
		CHECK_STR(hex, want);
		snprintf(cmd, sizeof(cmd), "pesign -h -d sha1 -i '%s' 2>/dev/null", f);
		CHECK_INT(tool_word(cmd, "hash:", want, sizeof(want)), 0);
		lb_hex(d.d[LB_SHA1], 20, hex);
		CHECK_STR(hex, want);
		/* one algorithm alone gives the same as all at once */
		struct lb_digests one;
		CHECK_INT(lb_authenticode(data, len, LB_HASH_BIT(LB_SHA384), &one), 0);
		CHECK(!memcmp(one.d[LB_SHA384], d.d[LB_SHA384], 48));
	}
	if (is_signed) {
		snprintf(name, sizeof(name), "authenticode/in-signature/%s", base);
		if (!have("osslsigncode")) {
			printf("skip %s: osslsigncode not installed\n", name);
		} else TEST(name) {
			CHECK_INT(lb_authenticode(data, len, LB_HASH_BIT(LB_SHA256), &d), 0);
			snprintf(cmd, sizeof(cmd), "osslsigncode verify -in '%s' 2>/dev/null", f);
			CHECK_INT(tool_word(cmd, "Current message digest", want, sizeof(want)), 0);
			lb_hex(d.d[LB_SHA256], 32, hex);
			CHECK_STR(hex, want);
			printf("# %s: %s\n", base, hex);
		}
	}
	snprintf(name, sizeof(name), "authenticode/excluded-fields/%s", base);
	TEST(name) {
		struct lb_pe *pe = malloc(sizeof(*pe));
		struct lb_digests a, b;
		CHECK(pe && lb_pe_parse(data, len, len, pe) == 0);
		CHECK_INT(lb_authenticode(data, len, LB_HASH_BIT(LB_SHA256), &a), 0);
		if (pe) {
			/* the checksum is not hashed */
			data[pe->checksum_off] ^= 0x5a;
			CHECK_INT(lb_authenticode(data, len, LB_HASH_BIT(LB_SHA256), &b), 0);
			CHECK(!memcmp(a.d[LB_SHA256], b.d[LB_SHA256], 32));
			data[pe->checksum_off] ^= 0x5a;
			/* nor the certificate table's contents */
			if (pe->cert_size > 16 && (uint64_t)pe->cert_off + pe->cert_size <= len) {
				data[pe->cert_off + pe->cert_size - 3] ^= 1;
				CHECK_INT(lb_authenticode(data, len, LB_HASH_BIT(LB_SHA256), &b), 0);
				CHECK(!memcmp(a.d[LB_SHA256], b.d[LB_SHA256], 32));
				data[pe->cert_off + pe->cert_size - 3] ^= 1;
			}
			/* but a byte of a section's data is */
			for (size_t i = 0; i < pe->n_sections; i++) {
				if (!pe->sec[i].raw_size)
					continue;
				size_t at = pe->sec[i].raw_off + pe->sec[i].raw_size / 2;
				data[at] ^= 1;
				CHECK_INT(lb_authenticode(data, len, LB_HASH_BIT(LB_SHA256), &b), 0);
				CHECK(memcmp(a.d[LB_SHA256], b.d[LB_SHA256], 32) != 0);
				data[at] ^= 1;
				break;
			}
			/* a truncated image is refused or digests differently */
			int r = lb_authenticode(data, len - 1, LB_HASH_BIT(LB_SHA256), &b);
			CHECK(r == -EINVAL || memcmp(a.d[LB_SHA256], b.d[LB_SHA256], 32) != 0);
		}
		free(pe);
	}
	free(data);
}

int main(void)
{
	glob_t g;
	char pat[4200];

	TEST("pkcs7/x509-load") {
		uint8_t *der;
		size_t n;
		CHECK_INT(lb_x509_load((const uint8_t *)"junk", 4, &der, &n), -EINVAL);
		CHECK_INT(lb_x509_load((const uint8_t *)"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
				       60, &der, &n), -EINVAL);
	}
	TEST("authenticode/not-pe") {
		struct lb_digests d;
		uint8_t junk[512] = { 'M', 'Z' };
		CHECK_INT(lb_authenticode(junk, sizeof(junk), LB_HASH_ALL, &d), -EINVAL);
		CHECK_INT(lb_authenticode(junk, 0, LB_HASH_ALL, &d), -EINVAL);
	}
	if (glob("/boot/vmlinuz-*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			one_file(g.gl_pathv[i], 1);
			pe_sig(g.gl_pathv[i]);
		}
		globfree(&g);
	} else {
		printf("skip authenticode/debian-kernel: no /boot/vmlinuz-* (linux-image-amd64)\n");
	}
	snprintf(pat, sizeof(pat), "%s/uki/*.efi", t_files());
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			one_file(g.gl_pathv[i], 0);
			uint8_t *img;
			size_t len;
			char err[200];
			TEST("pkcs7/unsigned-uki") {
				CHECK_INT(lb_read_path(g.gl_pathv[i], 1 << 26, &img, &len), 0);
				CHECK_INT(lb_pe_sig_verify(img, len, NULL, 0, 0, err, sizeof(err)),
					  LB_PE_SIG_UNSIGNED);
				free(img);
			}
		}
		globfree(&g);
	} else {
		printf("not ok authenticode/uki-fixtures: none in %s\n", pat);
	}
	return t_done();
}
