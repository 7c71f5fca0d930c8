/* TOTP/HOTP against RFC 6238 Appendix B and RFC 4226 Appendix D, base32
 * against RFC 4648 section 10, the TOTP NV record, the otpauth URI and the
 * menu line's failure mapping. */
#include <errno.h>

#include "t.h"
#include "base32.h"
#include "totp.h"
#include "totprec.h"
#include "totpseal.h"

int main(void)
{
	const uint8_t *k20 = (const uint8_t *)"12345678901234567890";

	TEST("totp_rfc6238_sha1") {
		/* Appendix B, SHA-1 column (8 digits) */
		static const struct { uint64_t t; uint32_t code; } v[] = {
			{ 59, 94287082 }, { 1111111109, 7081804 }, { 1111111111, 14050471 },
			{ 1234567890, 89005924 }, { 2000000000, 69279037 },
			{ 20000000000ULL, 65353130 },
		};
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			uint32_t c = 0;
			CHECK_INT(lb_totp(k20, 20, v[i].t, 30, 8, &c), 0);
			CHECK_INT(c, v[i].code);
		}
	}
	TEST("hotp_rfc4226") {
		static const uint32_t v[] = { 755224, 287082, 359152, 969429, 338314,
					      254676, 287922, 162583, 399871, 520489 };
		for (unsigned i = 0; i < 10; i++) {
			uint32_t c = 0;
			CHECK_INT(lb_hotp(k20, 20, i, 6, &c), 0);
			CHECK_INT(c, v[i]);
		}
		/* the 6-digit TOTP is the 8-digit one mod 10^6 */
		uint32_t c6 = 0;
		CHECK_INT(lb_totp(k20, 20, 1234567890, 30, 6, &c6), 0);
		CHECK_INT(c6, 5924);
	}
	TEST("totp_bad_args") {
		uint32_t c = 12345;
		uint8_t big[LB_TOTP_KEY_MAX + 1] = { 0 };
		CHECK_INT(lb_hotp(k20, 0, 1, 6, &c), -EINVAL);
		CHECK_INT(lb_hotp(big, sizeof(big), 1, 6, &c), -EINVAL);
		CHECK_INT(lb_hotp(k20, 20, 1, 5, &c), -EINVAL);
		CHECK_INT(lb_hotp(k20, 20, 1, 9, &c), -EINVAL);
		CHECK_INT(lb_totp(k20, 20, 1, 0, 6, &c), -EINVAL);
		CHECK_INT(c, 12345);
		CHECK_INT(lb_hotp(big, LB_TOTP_KEY_MAX, 1, 6, &c), 0);
	}
	TEST("base32_rfc4648") {
		static const char *in[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
		static const char *pad[] = { "", "MY======", "MZXQ====", "MZXW6===", "MZXW6YQ=",
					     "MZXW6YTB", "MZXW6YTBOI======" };
		static const char *nopad[] = { "", "MY", "MZXQ", "MZXW6", "MZXW6YQ", "MZXW6YTB",
					       "MZXW6YTBOI" };
		char out[40];
		for (int i = 0; i < 7; i++) {
			size_t l = strlen(in[i]);
			CHECK_INT(lb_base32_encode((const uint8_t *)in[i], l, 1, out, sizeof(out)),
				  strlen(pad[i]));
			CHECK_STR(out, pad[i]);
			CHECK_INT(lb_base32_encode((const uint8_t *)in[i], l, 0, out, sizeof(out)),
				  strlen(nopad[i]));
			CHECK_STR(out, nopad[i]);
		}
		/* 20 bytes: 32 characters, no padding either way; a short buffer */
		CHECK_INT(lb_base32_encode(k20, 20, 1, out, 33), 32);
		CHECK_STR(out, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
		CHECK_INT(lb_base32_encode(k20, 20, 1, out, 32), -ENOSPC);
	}
	TEST("totprec_roundtrip") {
		static struct lb_totprec r, p;
		static uint8_t buf[LB_TOTPREC_MAX];
		size_t len = 0;

		memset(&r, 0, sizeof(r));
		r.alg = LB_TPM2_ALG_SHA256;
		r.mask = LB_TOTPSEAL_PCRS_DEFAULT;
		r.digits = 6;
		r.period = 30;
		r.priv.len = 3;
		memcpy(r.priv.b, "abc", 3);
		r.pub.len = 2;
		memcpy(r.pub.b, "xy", 2);
		CHECK_INT(lb_totprec_build(&r, buf, sizeof(buf), &len), 0);
		CHECK_INT(len, 16 + 3 + 2);
		CHECK(!memcmp(buf, "LBT1\x00\x0b\x00\x00\x02\x95\x06\x1e\x00\x03" "abc\x00\x02xy", len));
		CHECK_INT(lb_totprec_parse(buf, len, &p), 0);
		CHECK_INT(p.mask, r.mask);
		CHECK_INT(p.priv.len, 3);
		CHECK_INT(p.pub.len, 2);
		CHECK(!memcmp(p.pub.b, "xy", 2));
		/* every truncation and one byte more are refused */
		for (size_t i = 0; i < len; i++)
			CHECK_INT(lb_totprec_parse(buf, i, &p), -EBADMSG);
		CHECK_INT(lb_totprec_parse(buf, len + 1, &p), -EBADMSG);
		/* bad fields */
		buf[0] = 'X';
		CHECK_INT(lb_totprec_parse(buf, len, &p), -EBADMSG);
		buf[0] = 'L';
		buf[10] = 9; /* digits */
		CHECK_INT(lb_totprec_parse(buf, len, &p), -EBADMSG);
		buf[10] = 6;
		buf[6] = 1; /* PCR 24 */
		CHECK_INT(lb_totprec_parse(buf, len, &p), -EBADMSG);
		buf[6] = 0;
		buf[13] = 0xff; /* private size past the end */
		CHECK_INT(lb_totprec_parse(buf, len, &p), -EBADMSG);
		buf[13] = 3;
		CHECK_INT(lb_totprec_parse(buf, len, &p), 0);
		CHECK_INT(lb_totprec_build(&r, buf, len - 1, &len), -ENOSPC);
		r.priv.len = 0;
		CHECK_INT(lb_totprec_build(&r, buf, sizeof(buf), &len), -EINVAL);
	}
	TEST("totpseal_uri") {
		char uri[256];
		const uint8_t s[20] = { 0 };
		CHECK_INT(lb_totpseal_uri(s, 20, "lboot", "me@host x", uri, sizeof(uri)), 0);
		CHECK_STR(uri, "otpauth://totp/lboot:me%40host%20x?secret=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
			  "&issuer=lboot&algorithm=SHA1&digits=6&period=30");
		for (size_t n = 0; n < strlen(uri) + 1; n++)
			CHECK_INT(lb_totpseal_uri(s, 20, "lboot", "me@host x", uri, n), -ENOSPC);
	}
	TEST("totpseal_changed") {
		CHECK(lb_totpseal_changed(0x99d));  /* POLICY_FAIL, session 1 */
		CHECK(lb_totpseal_changed(0x09d));
		CHECK(lb_totpseal_changed(0x128));  /* PCR_CHANGED */
		CHECK(!lb_totpseal_changed(0x98e)); /* AUTH_FAIL */
		CHECK(!lb_totpseal_changed(0x18b)); /* HANDLE */
		CHECK(!lb_totpseal_changed(-EBADMSG));
		CHECK(!lb_totpseal_changed(0));
	}
	return t_done();
}
