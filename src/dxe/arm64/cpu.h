/* lbootdxe on arm64 (AArch64): the calling convention, the console and the
 * CPU's halt (x86_64/cpu.h has the same names; docs/arm64.md). No x86
 * instruction here: the console is a PL011 by MMIO. Plain C types only:
 * efi.h includes this first. */
#ifndef LB_DXE_CPU_H
#define LB_DXE_CPU_H

#include "../uart_pl011.h"

/* AAPCS64 is the UEFI calling convention on AArch64 */
#define EFIAPI

/* the console: a PL011 by MMIO (QEMU virt: 0x09000000); the ROM's console
 * file (guids.h) holds the base as 8 little-endian bytes (`lboot mkrom
 * --arch arm64 --dxe-console` writes them) */
#define LB_DXE_CONSOLE_DEFAULT 0x09000000ull
#define LB_DXE_CONSOLE_DEFAULT_NAME "PL011 (0x09000000)"
#define LB_DXE_CONSOLE_FILE_BYTES 8
#define LB_DXE_DEFAULT_CMDLINE "console=ttyAMA0,115200 panic=10"

/* the flash: QEMU virt's pflash unit 0 at address 0, 64 MiB; `lboot mkrom`
 * puts the payload volume right after AAVMF's 2 MiB of firmware, ending
 * at the unit's end. AAVMF maps only its own firmware volume (0-2 MiB,
 * PcdFvBaseAddress/PcdFvSize): lbootdxe adds the rest of unit 0 to the GCD
 * as MMIO and maps it write-through (normal memory: LoadImage's copy may be
 * unaligned) before it reads the payload in place. */
#define LB_DXE_FLASH_TOP      0x4000000ull
#define LB_DXE_FLASH_SCAN     0x4000000ull
#define LB_DXE_FLASH_MAP_BASE 0x200000ull
#define LB_DXE_FLASH_MAP_LEN  (0x4000000ull - 0x200000ull)
/* not yet on arm64: the flash as runtime MMIO for the OS serves firmware
 * updates through the MTD driver, an x86-only path so far; our mapping
 * above is boot-time, write-through, and AAVMF's VirtNorFlashDxe already
 * describes unit 1 (the variable store) as runtime MMIO */
#define LB_DXE_FLASH_RUNTIME  0

static inline void lb_dxe_console_init(unsigned long long c)
{
	lb_pl011_init(c);
}

static inline void lb_dxe_console_puts(unsigned long long c, const char *s)
{
	lb_pl011_puts(c, s);
}

/* byte loops (built with -fno-tree-loop-distribute-patterns: gcc must not
 * turn them back into calls of memcpy/memset, which they implement);
 * -mstrict-align: no unaligned access before the MMU maps memory normal */
static inline void lb_dxe_copy(void *d, const void *s, unsigned long long n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	while (n--)
		*dp++ = *sp++;
}

static inline void lb_dxe_fill(void *d, int c, unsigned long long n)
{
	unsigned char *dp = d;

	while (n--)
		*dp++ = (unsigned char)c;
}

__attribute__((noreturn)) static inline void lb_dxe_halt(void)
{
	__asm__ volatile("msr daifset, #0xf"); /* interrupts masked */
	for (;;)
		__asm__ volatile("wfi");
}

#endif
