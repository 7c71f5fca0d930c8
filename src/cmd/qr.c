/* lboot qr: a QR code of a text on the console, or as a PBM image. */
#include "lboot.h"

LB_APPLET(qr, LB_HOST|LB_TARGET,
"usage: lboot qr [--ecc L|M] [--mask 0-7] [--ascii] [--invert] [--pbm FILE [--scale N]] TEXT\n"
"Encode TEXT (byte mode, versions 1..10: up to 271 bytes at L, 213 at M;\n"
"default M) as a QR code and draw it with a quiet zone on stdout: Unicode\n"
"half blocks, light modules lit (light text on a dark console; --invert\n"
"for the other way round), --ascii: two '#' per module. --pbm: write a PBM\n"
"image instead (N pixels per module, default 4). --json: version, ECC\n"
"level and mask. Exit 0 ok, 1 on failure, 2 on bad usage.\n")
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "qr.h"

int qr_main(int argc, char **argv)
{
	static struct lb_qr q;
	static char text[64 * 1024];
	const char *in = NULL, *pbm = NULL;
	int ecc = LB_QR_ECC_M, mask = -1, ascii = 0, invert = 0, json = 0, scale = 4, rc;
	long n;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--ecc") && v && (!strcmp(v, "L") || !strcmp(v, "M"))) {
			ecc = v[0] == 'L' ? LB_QR_ECC_L : LB_QR_ECC_M;
			i++;
		} else if (!strcmp(a, "--mask") && v && v[0] >= '0' && v[0] <= '7' && !v[1]) {
			mask = v[0] - '0';
			i++;
		} else if (!strcmp(a, "--scale") && v && atoi(v) >= 1 && atoi(v) <= 16) {
			scale = atoi(v);
			i++;
		} else if (!strcmp(a, "--pbm") && v) {
			pbm = argv[++i];
		} else if (!strcmp(a, "--ascii")) {
			ascii = 1;
		} else if (!strcmp(a, "--invert")) {
			invert = 1;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!in && (a[0] != '-' || !a[1])) {
			in = a;
		} else {
			lb_usage("qr");
			return 2;
		}
	}
	if (!in) {
		lb_usage("qr");
		return 2;
	}
	rc = lb_qr_encode((const uint8_t *)in, strlen(in), ecc, mask, &q);
	if (rc) {
		lb_err("%s", rc == -EMSGSIZE ? "text too long for a version 10 symbol" : strerror(-rc));
		return 1;
	}
	if (json)
		printf("{\"version\":%d,\"size\":%d,\"ecc\":\"%c\",\"mask\":%d,\"penalty\":%ld}\n",
		       q.version, q.size, q.ecc == LB_QR_ECC_L ? 'L' : 'M', q.mask,
		       lb_qr_penalty(&q));
	if (pbm) {
		uint8_t *img;

		n = lb_qr_pbm(&q, LB_QR_QUIET, scale, NULL, 0);
		if (n < 0 || !(img = malloc((size_t)n))) {
			lb_err("%s: %s", pbm, strerror(ENOMEM));
			return 1;
		}
		lb_qr_pbm(&q, LB_QR_QUIET, scale, img, (size_t)n);
		rc = lb_write_atomic(pbm, img, (size_t)n, 0644);
		free(img);
		if (rc) {
			lb_err("%s: %s", pbm, strerror(-rc));
			return 1;
		}
		return 0;
	}
	if (json)
		return 0;
	n = lb_qr_text(&q, ascii ? LB_QR_TEXT_ASCII : LB_QR_TEXT_UTF8, LB_QR_QUIET, invert,
		       text, sizeof(text));
	if (n < 0 || (size_t)n >= sizeof(text)) {
		lb_err("does not fit the text buffer");
		return 1;
	}
	fputs(text, stdout);
	return 0;
}
