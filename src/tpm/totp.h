/*
 * TOTP (RFC 6238) over HOTP (RFC 4226): HMAC-SHA-1 from BearSSL, dynamic
 * truncation, 6..8 decimal digits. No logging; negative errno.
 */
#ifndef LB_TOTP_H
#define LB_TOTP_H

#include <stddef.h>
#include <stdint.h>

#define LB_TOTP_STEP      30  /* seconds (RFC 6238 default, what phones use) */
#define LB_TOTP_DIGITS    6
#define LB_TOTP_KEY_MAX   64  /* HMAC-SHA-1 block size: longer keys are refused */

/* HOTP value of counter c (RFC 4226 5.3), digits 6..8 into *code.
 * -EINVAL for an empty or too long key or bad digits. */
int lb_hotp(const uint8_t *key, size_t klen, uint64_t c, unsigned digits,
	    uint32_t *code);
/* TOTP at Unix time t (seconds): HOTP of floor(t / step). step > 0. */
int lb_totp(const uint8_t *key, size_t klen, uint64_t t, unsigned step,
	    unsigned digits, uint32_t *code);

#endif
