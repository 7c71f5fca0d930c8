/*
 * QR Code encoder (ISO/IEC 18004:2015): one byte-mode segment, error
 * correction level L or M, versions 1..10 (up to 271 bytes at L, 213 at
 * M), the mask with the lowest penalty (section 7.8.3) unless one is
 * forced. For showing an otpauth:// URI on the console; not a parser.
 * Library code: libc only, never logs, negative errno.
 */
#ifndef LB_QR_H
#define LB_QR_H

#include <stddef.h>
#include <stdint.h>

#define LB_QR_MAX_VERSION 10
#define LB_QR_MAX_SIZE    (17 + 4 * LB_QR_MAX_VERSION)
#define LB_QR_QUIET       4   /* the quiet zone the standard asks for, modules */

enum { LB_QR_ECC_L = 0, LB_QR_ECC_M = 1 };

struct lb_qr {
	int version;    /* 1..10 */
	int size;       /* modules per side: 17 + 4 * version */
	int ecc;        /* LB_QR_ECC_L or _M */
	int mask;       /* 0..7 */
	uint8_t m[LB_QR_MAX_SIZE][LB_QR_MAX_SIZE]; /* [y][x]: 1 = dark */
};

/*
 * Encode len bytes in the smallest version that holds them at level ecc.
 * mask: 0..7 to force one (tests), -1 to choose by penalty.
 * -EMSGSIZE: does not fit version 10; -EINVAL: bad ecc or mask.
 */
int lb_qr_encode(const uint8_t *data, size_t len, int ecc, int mask, struct lb_qr *q);

/* Module (x, y): 1 dark, 0 light; outside the symbol (the quiet zone) 0. */
int lb_qr_get(const struct lb_qr *q, int x, int y);

/* The penalty score of the symbol as it is (section 7.8.3.1, N1..N4). */
long lb_qr_penalty(const struct lb_qr *q);

enum {
	LB_QR_TEXT_UTF8,   /* two rows per line with U+2580/U+2584/U+2588 */
	LB_QR_TEXT_ASCII,  /* one row per line, two characters per module */
};
/*
 * The symbol with a quiet zone of `quiet` modules as text lines ending in
 * '\n', for a console with light characters on a dark background: light
 * modules are drawn, dark ones are blank (invert: the other way round).
 * Writes at most cap bytes including a NUL; returns the length the whole
 * text needs (without the NUL), so a short buffer is detected as with
 * snprintf; -EINVAL for a bad style or quiet zone.
 */
long lb_qr_text(const struct lb_qr *q, int style, int quiet, int invert,
		char *out, size_t cap);

/*
 * A binary PBM (P4) image: `scale` pixels per module (1..16), quiet zone
 * `quiet` modules, dark = 1 (black). Same return convention as lb_qr_text
 * (out may be NULL with cap 0 to ask for the size).
 */
long lb_qr_pbm(const struct lb_qr *q, int quiet, int scale, uint8_t *out, size_t cap);

#endif
