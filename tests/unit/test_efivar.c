/* efivarfs payloads, UCS-2 <-> UTF-8 (glibc's iconv as the oracle), and
 * variables read, written and deleted in a directory standing in for
 * efivarfs. */
#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "efivar.h"
#include "efivars.h"
#include "t.h"

/* UTF-8 -> UTF-16LE by iconv (plus the NUL systemd-boot writes) */
static int oracle(const char *s, uint8_t *out, size_t cap, size_t *n)
{
	iconv_t cd = iconv_open("UTF-16LE", "UTF-8");
	char *in = (char *)s, *o = (char *)out;
	size_t il = strlen(s), ol = cap;

	if (cd == (iconv_t)-1)
		return -1;
	if (iconv(cd, &in, &il, &o, &ol) == (size_t)-1) {
		iconv_close(cd);
		return -1;
	}
	iconv_close(cd);
	*n = cap - ol;
	if (*n + 2 > cap)
		return -1;
	out[(*n)++] = 0;
	out[(*n)++] = 0;
	return 0;
}

int main(void)
{
	TEST("efivar_payload") {
		uint8_t out[16], big[4 + LB_EFIVAR_MAX + 1];
		const uint8_t *v;
		size_t n, vl;
		uint32_t a;

		CHECK_INT(lb_efivar_build(7, "ab", 2, out, sizeof(out), &n), 0);
		CHECK_INT(n, 6);
		CHECK(!memcmp(out, "\x07\x00\x00\x00" "ab", 6));
		CHECK_INT(lb_efivar_parse(out, n, &a, &v, &vl), 0);
		CHECK_INT(a, 7);
		CHECK_INT(vl, 2);
		CHECK(v == out + 4);
		CHECK_INT(lb_efivar_parse(out, 3, &a, &v, &vl), -EINVAL);
		CHECK_INT(lb_efivar_parse(out, 4, &a, &v, &vl), 0);
		CHECK_INT(vl, 0);
		CHECK_INT(lb_efivar_build(7, "ab", 2, out, 5, &n), -ENOSPC);
		CHECK_INT(lb_efivar_build(7, big, LB_EFIVAR_MAX + 1, big, sizeof(big), &n), -EFBIG);
		memset(big, 0, sizeof(big));
		CHECK_INT(lb_efivar_parse(big, sizeof(big), &a, &v, &vl), -EFBIG);
		CHECK_INT(lb_efivar_parse(big, sizeof(big) - 1, &a, &v, &vl), 0);
		out[0] = 0x06; out[1] = 0x01; out[2] = 0x02; out[3] = 0x80;
		CHECK_INT(lb_efivar_parse(out, 4, &a, &v, &vl), 0);
		CHECK_INT(a, 0x80020106u);
	}
	TEST("efivar_ucs2_vs_iconv") {
		static const char *const s[] = {
			"", "lboot 0.1", "fedora-6.5.conf", "Grüße ümlaut", "日本語 entry",
			"\xe2\x82\xac 100", "a+3-0.conf", "C12A7328-F81F-11D2-BA4B-00A0C93EC93B",
		};
		for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
			uint8_t mine[256], ref[256];
			size_t mn, rn;
			char back[256];

			CHECK_INT(lb_utf8_to_ucs2(s[i], mine, sizeof(mine), &mn), 0);
			if (oracle(s[i], ref, sizeof(ref), &rn)) {
				CHECK(!"iconv failed");
				continue;
			}
			CHECK_INT(mn, rn);
			CHECK(mn == rn && !memcmp(mine, ref, mn));
			CHECK_INT(lb_ucs2_to_utf8(mine, mn, back, sizeof(back)), 0);
			CHECK_STR(back, s[i]);
		}
	}
	TEST("efivar_ucs2_errors") {
		uint8_t u[64];
		size_t n;
		char o[64];
		/* U+1F600 needs a surrogate pair: not UCS-2 */
		CHECK_INT(lb_utf8_to_ucs2("\xf0\x9f\x98\x80", u, sizeof(u), &n), -EILSEQ);
		CHECK_INT(lb_utf8_to_ucs2("\xc0\xaf", u, sizeof(u), &n), -EILSEQ); /* overlong */
		CHECK_INT(lb_utf8_to_ucs2("\xed\xa0\x80", u, sizeof(u), &n), -EILSEQ); /* surrogate */
		CHECK_INT(lb_utf8_to_ucs2("a\xe2\x82", u, sizeof(u), &n), -EILSEQ); /* truncated */
		CHECK_INT(lb_utf8_to_ucs2("\xff", u, sizeof(u), &n), -EILSEQ);
		CHECK_INT(lb_utf8_to_ucs2("abc", u, 7, &n), -ENOSPC);
		CHECK_INT(lb_utf8_to_ucs2("abc", u, 8, &n), 0);
		CHECK_INT(n, 8);
		/* decoding: odd length, lone surrogates, pairs, no NUL, NUL early */
		CHECK_INT(lb_ucs2_to_utf8((const uint8_t *)"a\0b", 3, o, sizeof(o)), -EILSEQ);
		CHECK_INT(lb_ucs2_to_utf8((const uint8_t *)"\x00\xdc", 2, o, sizeof(o)), -EILSEQ);
		CHECK_INT(lb_ucs2_to_utf8((const uint8_t *)"\x3d\xd8" "a\0", 4, o, sizeof(o)), -EILSEQ);
		CHECK_INT(lb_ucs2_to_utf8((const uint8_t *)"\x3d\xd8", 2, o, sizeof(o)), -EILSEQ);
		CHECK_INT(lb_ucs2_to_utf8((const uint8_t *)"\x3d\xd8\x00\xde", 4, o, sizeof(o)), 0);
		CHECK_STR(o, "\xf0\x9f\x98\x80");
		CHECK_INT(lb_ucs2_to_utf8((const uint8_t *)"a\0b\0", 4, o, sizeof(o)), 0);
		CHECK_STR(o, "ab");
		CHECK_INT(lb_ucs2_to_utf8((const uint8_t *)"a\0\0\0b\0", 6, o, sizeof(o)), 0);
		CHECK_STR(o, "a");
		CHECK_INT(lb_ucs2_to_utf8((const uint8_t *)"a\0b\0", 4, o, 2), -ENOSPC);
		CHECK_INT(lb_ucs2_to_utf8((const uint8_t *)"a\0b\0", 4, o, 3), 0);
		CHECK_INT(lb_ucs2_to_utf8((const uint8_t *)"\xac\x20", 2, o, 3), -ENOSPC);
		CHECK_INT(lb_ucs2_to_utf8((const uint8_t *)"", 0, o, 1), 0);
		CHECK_STR(o, "");
	}
	TEST("efivar_filename") {
		char f[128];
		CHECK_INT(lb_efivar_filename(f, sizeof(f), "LoaderInfo", LB_EFIVAR_GUID_LOADER), 0);
		CHECK_STR(f, "LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f");
		CHECK_INT(lb_efivar_filename(f, sizeof(f), "a/b", LB_EFIVAR_GUID_LOADER), -EINVAL);
		CHECK_INT(lb_efivar_filename(f, sizeof(f), "", LB_EFIVAR_GUID_LOADER), -EINVAL);
		CHECK_INT(lb_efivar_filename(f, sizeof(f), "X", "4a67b082-0a4c-41cf-b6c7-440b29bb8c4"), -EINVAL);
		CHECK_INT(lb_efivar_filename(f, sizeof(f), "X", "4a67b082x0a4c-41cf-b6c7-440b29bb8c4f"), -EINVAL);
		CHECK_INT(lb_efivar_filename(f, sizeof(f), "X", "4a67b082-0a4c-41cf-b6c7-440b29bb8c4g"), -EINVAL);
		CHECK_INT(lb_efivar_filename(f, 20, "LoaderInfo", LB_EFIVAR_GUID_LOADER), -ENOSPC);
	}
	TEST("efivars_dir_roundtrip") {
		char d[] = "/tmp/lb-efivars-XXXXXX", s[64], p[256];
		uint8_t v[16];
		size_t n;
		uint32_t a;
		struct stat st;

		if (!mkdtemp(d)) {
			CHECK(!"mkdtemp");
			continue;
		}
		lb_efivars_set_dir(d);
		CHECK_INT(lb_efivars_open(), 0);
		CHECK_INT(lb_efivar_get_str("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), -ENOENT);
		CHECK_INT(lb_efivar_set_str("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, 7, "longer-name.conf"), 0);
		CHECK_INT(lb_efivar_set_str("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, 7, "b.conf"), 0);
		CHECK_INT(lb_efivar_get_str("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), 0);
		CHECK_STR(s, "b.conf");
		/* the file is what `printf '\x07\x00\x00\x00b\x00...'` writes */
		snprintf(p, sizeof(p), "%s/LoaderEntryOneShot-" LB_EFIVAR_GUID_LOADER, d);
		CHECK(!stat(p, &st) && st.st_size == 4 + 14);
		CHECK_INT(lb_efivar_get("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, &a, v, 13, &n), -EFBIG);
		CHECK_INT(lb_efivar_get("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, &a, v, 14, &n), 0);
		CHECK_INT(a, 7);
		CHECK_INT(n, 14);
		CHECK_INT(lb_efivar_del("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER), 0);
		CHECK_INT(lb_efivar_del("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER), 0);
		CHECK(stat(p, &st) && errno == ENOENT);
		/* a 3-byte file: no attributes word */
		{
			FILE *f = fopen(p, "w");
			if (f) {
				fwrite("\x07\x00\x00", 1, 3, f);
				fclose(f);
			}
		}
		CHECK_INT(lb_efivar_get_str("LoaderEntryOneShot", LB_EFIVAR_GUID_LOADER, s, sizeof(s)), -EINVAL);
		unlink(p);
		lb_efivars_set_dir(NULL);
		rmdir(d);
	}
	return t_done();
}
