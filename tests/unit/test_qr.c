/* QR encoder invariants (ISO/IEC 18004): capacities, function patterns,
 * format and version information readable back with their BCH codes, the
 * chosen mask has the lowest penalty, rendering sizes. The data itself is
 * decoded by zbarimg in tests/host/totp.sh. */
#include <errno.h>

#include "t.h"
#include "qr.h"

static struct lb_qr q;
static uint8_t data[300];

/* 15-bit format word from the copy around the top-left finder */
static unsigned format_a(const struct lb_qr *x)
{
	unsigned b = 0;
	for (int i = 0; i <= 5; i++)
		b |= (unsigned)lb_qr_get(x, 8, i) << i;
	b |= (unsigned)lb_qr_get(x, 8, 7) << 6;
	b |= (unsigned)lb_qr_get(x, 8, 8) << 7;
	b |= (unsigned)lb_qr_get(x, 7, 8) << 8;
	for (int i = 9; i < 15; i++)
		b |= (unsigned)lb_qr_get(x, 14 - i, 8) << i;
	return b;
}

static unsigned format_b(const struct lb_qr *x)
{
	unsigned b = 0;
	int n = x->size;
	for (int i = 0; i < 8; i++)
		b |= (unsigned)lb_qr_get(x, n - 1 - i, 8) << i;
	for (int i = 8; i < 15; i++)
		b |= (unsigned)lb_qr_get(x, 8, n - 15 + i) << i;
	return b;
}

/* remainder of v * x^k modulo the generator g of degree k (GF(2)) */
static unsigned bch_rem(unsigned v, unsigned g, int k, int bits)
{
	for (int i = bits + k - 1; i >= k; i--)
		if (v & (1u << i))
			v ^= g << (i - k);
	return v;
}

static int finder_ok(const struct lb_qr *x, int cx, int cy)
{
	for (int dy = -4; dy <= 4; dy++)
		for (int dx = -4; dx <= 4; dx++) {
			int d = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
			int xx = cx + dx, yy = cy + dy;
			if (xx < 0 || yy < 0 || xx >= x->size || yy >= x->size)
				continue;
			if (lb_qr_get(x, xx, yy) != (d != 2 && d != 4))
				return 0;
		}
	return 1;
}

int main(void)
{
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 37 + 11);

	TEST("qr_capacity") {
		/* byte capacities of Table 7: version 1 L 17, M 14; 6 L 134;
		 * 7 L 154; 9 M 180;
		 * 10 L 271, M 213 (16-bit count from version 10) */
		static const struct { int ecc; size_t len; int version; } v[] = {
			{ LB_QR_ECC_L, 0, 1 }, { LB_QR_ECC_L, 17, 1 }, { LB_QR_ECC_L, 18, 2 },
			{ LB_QR_ECC_M, 14, 1 }, { LB_QR_ECC_M, 15, 2 }, { LB_QR_ECC_M, 180, 9 },
			{ LB_QR_ECC_M, 181, 10 }, { LB_QR_ECC_M, 213, 10 }, { LB_QR_ECC_L, 271, 10 },
			{ LB_QR_ECC_M, 62, 4 }, { LB_QR_ECC_M, 63, 5 }, { LB_QR_ECC_L, 134, 6 },
			{ LB_QR_ECC_L, 135, 7 }, { LB_QR_ECC_L, 154, 7 }, { LB_QR_ECC_L, 155, 8 },
		};
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			CHECK_INT(lb_qr_encode(data, v[i].len, v[i].ecc, -1, &q), 0);
			CHECK_INT(q.version, v[i].version);
			CHECK_INT(q.size, 17 + 4 * v[i].version);
		}
		CHECK_INT(lb_qr_encode(data, 214, LB_QR_ECC_M, -1, &q), -EMSGSIZE);
		CHECK_INT(lb_qr_encode(data, 272, LB_QR_ECC_L, -1, &q), -EMSGSIZE);
		CHECK_INT(lb_qr_encode(data, 3, 2, -1, &q), -EINVAL);
		CHECK_INT(lb_qr_encode(data, 3, LB_QR_ECC_M, 8, &q), -EINVAL);
	}
	TEST("qr_function_patterns") {
		for (size_t len = 1; len <= 271; len += 9) {
			for (int ecc = 0; ecc < 2; ecc++) {
				int n;
				if (lb_qr_encode(data, len, ecc, -1, &q))
					continue;
				n = q.size;
				CHECK(finder_ok(&q, 3, 3));
				CHECK(finder_ok(&q, n - 4, 3));
				CHECK(finder_ok(&q, 3, n - 4));
				for (int i = 8; i < n - 8; i++) {
					CHECK_INT(lb_qr_get(&q, i, 6), i % 2 == 0);
					CHECK_INT(lb_qr_get(&q, 6, i), i % 2 == 0);
				}
				CHECK_INT(lb_qr_get(&q, 8, n - 8), 1); /* the dark module */
				CHECK_INT(lb_qr_get(&q, -1, 0), 0);
				CHECK_INT(lb_qr_get(&q, n, n), 0);
			}
		}
	}
	TEST("qr_format_and_version_info") {
		for (size_t len = 0; len <= 271; len += 7)
			for (int ecc = 0; ecc < 2; ecc++)
				for (int mask = -1; mask < 8; mask++) {
					unsigned a, d;
					if (lb_qr_encode(data, len, ecc, mask, &q))
						continue;
					a = format_a(&q);
					CHECK_INT(a, format_b(&q));
					a ^= 0x5412;
					d = a >> 10;
					/* BCH(15,5), generator 0x537 */
					CHECK_INT(bch_rem(d << 10, 0x537, 10, 5), a & 0x3ff);
					CHECK_INT(d >> 3, ecc == LB_QR_ECC_L ? 1 : 0);
					CHECK_INT(d & 7, q.mask);
					if (mask >= 0)
						CHECK_INT(q.mask, mask);
					if (q.version >= 7) {
						unsigned v1 = 0, v2 = 0;
						for (int i = 0; i < 18; i++) {
							v1 |= (unsigned)lb_qr_get(&q, q.size - 11 + i % 3, i / 3) << i;
							v2 |= (unsigned)lb_qr_get(&q, i / 3, q.size - 11 + i % 3) << i;
						}
						CHECK_INT(v1, v2);
						CHECK_INT(v1 >> 12, q.version);
						/* BCH(18,6), generator 0x1F25 */
						CHECK_INT(bch_rem((v1 >> 12) << 12, 0x1F25, 12, 6), v1 & 0xfff);
					}
				}
	}
	TEST("qr_mask_lowest_penalty") {
		for (size_t len = 5; len <= 200; len += 39) {
			long best, p;
			CHECK_INT(lb_qr_encode(data, len, LB_QR_ECC_M, -1, &q), 0);
			best = lb_qr_penalty(&q);
			for (int m = 0; m < 8; m++) {
				static struct lb_qr f;
				CHECK_INT(lb_qr_encode(data, len, LB_QR_ECC_M, m, &f), 0);
				p = lb_qr_penalty(&f);
				CHECK(best <= p);
				if (m == q.mask)
					CHECK(!memcmp(&f, &q, sizeof(q)));
			}
		}
	}
	TEST("qr_render_sizes") {
		static char txt[65536];
		static uint8_t pbm[65536];
		long n, w;
		CHECK_INT(lb_qr_encode((const uint8_t *)"hello", 5, LB_QR_ECC_M, -1, &q), 0);
		w = q.size + 2 * LB_QR_QUIET;
		n = lb_qr_text(&q, LB_QR_TEXT_ASCII, LB_QR_QUIET, 0, txt, sizeof(txt));
		CHECK_INT(n, w * (2 * w + 1));
		CHECK_INT(strlen(txt), n);
		/* a short buffer: the needed length, a NUL-terminated prefix */
		CHECK_INT(lb_qr_text(&q, LB_QR_TEXT_ASCII, LB_QR_QUIET, 0, txt, 10), n);
		CHECK_INT(strlen(txt), 9);
		/* quiet zone lit on a dark console, the top-left finder's corner blank */
		n = lb_qr_text(&q, LB_QR_TEXT_ASCII, LB_QR_QUIET, 0, txt, sizeof(txt));
		CHECK(!strncmp(txt, "########", 8));
		CHECK(!strncmp(txt + LB_QR_QUIET * (2 * w + 1) + 2 * LB_QR_QUIET, "              ##", 16));
		/* UTF-8: (w + 1) / 2 lines of w 3-byte cells */
		n = lb_qr_text(&q, LB_QR_TEXT_UTF8, LB_QR_QUIET, 0, txt, sizeof(txt));
		CHECK(n > 0);
		{
			long lines = 0;
			for (long i = 0; i < n; i++)
				lines += txt[i] == '\n';
			CHECK_INT(lines, (w + 1) / 2);
		}
		n = lb_qr_pbm(&q, LB_QR_QUIET, 2, NULL, 0);
		CHECK_INT(n, (long)strlen("P4\n58 58\n") + 8 * 58);
		CHECK_INT(lb_qr_pbm(&q, LB_QR_QUIET, 2, pbm, sizeof(pbm)), n);
		CHECK(!memcmp(pbm, "P4\n58 58\n", 9));
		/* pixel (8, 8): module (0, 0), dark */
		CHECK(pbm[9 + 8 * 8 + 1] & 0x80);
		CHECK(!(pbm[9] & 0x80));
		CHECK_INT(lb_qr_pbm(&q, LB_QR_QUIET, 0, pbm, sizeof(pbm)), -EINVAL);
		CHECK_INT(lb_qr_text(&q, 7, LB_QR_QUIET, 0, txt, sizeof(txt)), -EINVAL);
	}
	return t_done();
}
