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
#include "t.h"

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

	TEST("authenticode/not-pe") {
		struct lb_digests d;
		uint8_t junk[512] = { 'M', 'Z' };
		CHECK_INT(lb_authenticode(junk, sizeof(junk), LB_HASH_ALL, &d), -EINVAL);
		CHECK_INT(lb_authenticode(junk, 0, LB_HASH_ALL, &d), -EINVAL);
	}
	if (glob("/boot/vmlinuz-*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			one_file(g.gl_pathv[i], 1);
		globfree(&g);
	} else {
		printf("skip authenticode/debian-kernel: no /boot/vmlinuz-* (linux-image-amd64)\n");
	}
	snprintf(pat, sizeof(pat), "%s/uki/*.efi", t_files());
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			one_file(g.gl_pathv[i], 0);
		globfree(&g);
	} else {
		printf("not ok authenticode/uki-fixtures: none in %s\n", pat);
	}
	return t_done();
}
