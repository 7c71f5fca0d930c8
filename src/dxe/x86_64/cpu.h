/* lbootdxe on x86-64 (X64): the calling convention, the console and the
 * few CPU instructions it needs (arm64/cpu.h has the same names; the build
 * puts one of the two folders on the include path: mk/dxe.mk, mk/arm64.mk).
 * Plain C types only: efi.h includes this first. */
#ifndef LB_DXE_CPU_H
#define LB_DXE_CPU_H

#include "../uart.h"

#define EFIAPI __attribute__((ms_abi))

/* the console: a 16550 at an I/O port; the ROM's console file (guids.h)
 * holds the port as 2 little-endian bytes */
#define LB_DXE_CONSOLE_DEFAULT 0x3F8ull
#define LB_DXE_CONSOLE_DEFAULT_NAME "COM1 (0x3F8)"
#define LB_DXE_CONSOLE_FILE_BYTES 2
#define LB_DXE_DEFAULT_CMDLINE "console=ttyS0,115200 panic=10"

/* the flash: mapped below 4 GiB (q35: at most 16 MiB); OVMF maps all of it,
 * lbootdxe maps nothing (MAP_LEN 0) */
#define LB_DXE_FLASH_TOP      0x100000000ull
#define LB_DXE_FLASH_SCAN     (16ull << 20)
#define LB_DXE_FLASH_MAP_BASE 0ull
#define LB_DXE_FLASH_MAP_LEN  0ull
/* the whole flash described as runtime MMIO for the OS (lbootdxe.c
 * mark_flash_runtime: the MTD driver of firmware updates claims it) */
#define LB_DXE_FLASH_RUNTIME  1

static inline void lb_dxe_console_init(unsigned long long c)
{
	lb_uart_init((unsigned short)c);
}

static inline void lb_dxe_console_puts(unsigned long long c, const char *s)
{
	lb_uart_puts((unsigned short)c, s);
}

static inline void lb_dxe_copy(void *d, const void *s, unsigned long long n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static inline void lb_dxe_fill(void *d, int c, unsigned long long n)
{
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
}

__attribute__((noreturn)) static inline void lb_dxe_halt(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

#endif
