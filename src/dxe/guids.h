/*
 * lboot's own FFS file GUIDs, shared by the DXE driver (src/dxe) and
 * `lboot mkrom` (src/host/mkrom.c). Plain C, no other includes.
 *
 *   LBOOT_GUID_DXE     the lbootdxe driver (EFI_FV_FILETYPE_DRIVER:
 *                      PE32 + DXE_DEPEX "TRUE" + UI "LbootDxe")
 *   LBOOT_GUID_KERNEL  the Linux kernel (EFI_FV_FILETYPE_APPLICATION:
 *                      PE32 section holding the bzImage, UI "LbootKernel")
 *   LBOOT_GUID_INITRD  the initramfs (EFI_FV_FILETYPE_FREEFORM: RAW section)
 *   LBOOT_GUID_CMDLINE the kernel command line (FREEFORM: RAW section,
 *                      UTF-8/ASCII, no NUL needed, at most 4095 bytes)
 *   LBOOT_GUID_CONSOLE lbootdxe's console (FREEFORM: RAW section, 2 bytes:
 *                      the 16550's I/O port, little-endian; 0: no output).
 *                      No file: COM1 (0x3F8). `mkrom --dxe-console`.
 *                      On arm64 8 bytes: the PL011's MMIO base
 *                      (src/dxe/arm64/cpu.h; no file: 0x09000000)
 *   LBOOT_GUID_SLOTS   the payload slot table (FREEFORM: RAW section, 40
 *                      bytes, src/firmware/slots.h); `mkrom --slots`
 */
#ifndef LBOOT_DXE_GUIDS_H
#define LBOOT_DXE_GUIDS_H

#define LBOOT_GUID_DXE_STR     "052E9DF6-9113-49CC-A446-F9803E058444"
#define LBOOT_GUID_KERNEL_STR  "1FD530C2-B6CD-4F9F-9C7E-75A6A43EFE2B"
#define LBOOT_GUID_INITRD_STR  "2FF050F8-93A9-411A-A4BE-DF58B51B4A18"
#define LBOOT_GUID_CMDLINE_STR "3BD30B26-F965-4B9A-BFDB-600888F3B8F8"
#define LBOOT_GUID_CONSOLE_STR "7C0A4E51-3D2B-4F6A-9E8C-51B0D4A2C6E3"
#define LBOOT_GUID_SLOTS_STR   "9A3C5E71-2B84-4D0F-8E6A-C1F2D3B4A596"
/* lbootpei (src/pei): the --tpm ROM's PEIM in the PEI volume */
#define LBOOT_GUID_PEI_STR     "6B1E52F0-3C2D-4A77-9E0B-5D1C8A4F2E61"

/* The same as { Data1, Data2, Data3, { Data4[8] } } initializers. */
#define LBOOT_GUID_DXE_INIT \
	{ 0x052E9DF6, 0x9113, 0x49CC, { 0xA4, 0x46, 0xF9, 0x80, 0x3E, 0x05, 0x84, 0x44 } }
#define LBOOT_GUID_KERNEL_INIT \
	{ 0x1FD530C2, 0xB6CD, 0x4F9F, { 0x9C, 0x7E, 0x75, 0xA6, 0xA4, 0x3E, 0xFE, 0x2B } }
#define LBOOT_GUID_INITRD_INIT \
	{ 0x2FF050F8, 0x93A9, 0x411A, { 0xA4, 0xBE, 0xDF, 0x58, 0xB5, 0x1B, 0x4A, 0x18 } }
#define LBOOT_GUID_CMDLINE_INIT \
	{ 0x3BD30B26, 0xF965, 0x4B9A, { 0xBF, 0xDB, 0x60, 0x08, 0x88, 0xF3, 0xB8, 0xF8 } }

#define LBOOT_GUID_SLOTS_INIT \
	{ 0x9A3C5E71, 0x2B84, 0x4D0F, { 0x8E, 0x6A, 0xC1, 0xF2, 0xD3, 0xB4, 0xA5, 0x96 } }

#define LBOOT_GUID_CONSOLE_INIT \
	{ 0x7C0A4E51, 0x3D2B, 0x4F6A, { 0x9E, 0x8C, 0x51, 0xB0, 0xD4, 0xA2, 0xC6, 0xE3 } }

/* lbootdxe's UART when the ROM has no console file, and the command line
 * when it has no cmdline file: per architecture, src/dxe/ARCH/cpu.h
 * (LB_DXE_CONSOLE_DEFAULT, LB_DXE_DEFAULT_CMDLINE) */

#define LBOOT_CMDLINE_MAX 4095

#endif
