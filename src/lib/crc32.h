/* The one CRC-32 of the tree (see crc32.c). */
#ifndef LB_CRC32_H
#define LB_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 as in zlib's crc32(), GPT and UEFI: lb_crc32(0, buf, len) for a
 * whole buffer; pass the previous result as crc to continue it. */
uint32_t lb_crc32(uint32_t crc, const void *buf, size_t len);

#endif
