/* The <string.h> BearSSL's sources include when they are built into the
 * freestanding DXE driver (mk/dxe.mk): the functions lbootdxe.c defines. */
#ifndef LBOOT_DXE_LIBC_STRING_H
#define LBOOT_DXE_LIBC_STRING_H
#include <stddef.h>
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
#endif
