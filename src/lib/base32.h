/* Base32 (RFC 4648 section 6, upper case), as otpauth:// URIs carry TOTP
 * secrets. Library code: libc only. */
#ifndef LB_BASE32_H
#define LB_BASE32_H

#include <stddef.h>
#include <stdint.h>

/* Encode len bytes into out (cap bytes, NUL-terminated). pad: '=' up to a
 * multiple of 8 characters (otpauth URIs leave it out). Returns the
 * length without the NUL, or -ENOSPC. */
long lb_base32_encode(const uint8_t *in, size_t len, int pad, char *out, size_t cap);

#endif
