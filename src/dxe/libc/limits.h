/* <limits.h> for BearSSL's sources in the freestanding DXE driver, from
 * the compiler's predefined macros (no C library here). */
#ifndef LBOOT_DXE_LIBC_LIMITS_H
#define LBOOT_DXE_LIBC_LIMITS_H
#define CHAR_BIT  __CHAR_BIT__
#define INT_MAX   __INT_MAX__
#define UINT_MAX  (__INT_MAX__ * 2u + 1u)
#define LONG_MAX  __LONG_MAX__
#define ULONG_MAX (__LONG_MAX__ * 2ul + 1ul)
#define SIZE_MAX  __SIZE_MAX__
#endif
