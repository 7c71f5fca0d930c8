/*
 * arm64 (AArch64): the numbers and names lboot's architecture-neutral code
 * needs (src/arch/x86_64/arch.h has the same names; docs/arm64.md).
 */
#ifndef LB_ARCH_H
#define LB_ARCH_H

#include <sys/syscall.h>

#define LB_ARCH "arm64"

/* system call numbers (include/uapi/asm-generic/unistd.h, which arm64 uses) */
#define LB_SYS_KEXEC_LOAD      104
#define LB_SYS_KEXEC_FILE_LOAD 294
#define LB_SYS_MEMFD_CREATE    279
#define LB_SYS_RENAMEAT2       276

/* the Boot Loader Specification's `architecture` value (UAPI.1) */
#define LB_BLS_ARCH "aa64"
/* iPXE's ${buildarch} on this architecture */
#define LB_IPXE_BUILDARCH "arm64"
/* DHCP client system architecture (RFC 4578 option 93, DHCPv6 option 61;
 * IANA "Processor Architecture Types"): ARM 64-bit UEFI (0x000b), arm64
 * UEFI HTTP boot (0x0013), as AAVMF sends them */
#define LB_DHCP_ARCH_PXE  11
#define LB_DHCP_ARCH_HTTP 19
/* option 60, the vendor class identifier with that architecture */
#define LB_DHCP_VC_PXE  "PXEClient:Arch:00011:UNDI:003016"
#define LB_DHCP_VC_HTTP "HTTPClient:Arch:00019:UNDI:003001"

/* when libc names them, they must agree */
#if defined(SYS_kexec_file_load) && SYS_kexec_file_load != LB_SYS_KEXEC_FILE_LOAD
#error "SYS_kexec_file_load disagrees with src/arch/arm64/arch.h"
#endif
#if defined(SYS_kexec_load) && SYS_kexec_load != LB_SYS_KEXEC_LOAD
#error "SYS_kexec_load disagrees with src/arch/arm64/arch.h"
#endif
#if defined(SYS_memfd_create) && SYS_memfd_create != LB_SYS_MEMFD_CREATE
#error "SYS_memfd_create disagrees with src/arch/arm64/arch.h"
#endif
#if defined(SYS_renameat2) && SYS_renameat2 != LB_SYS_RENAMEAT2
#error "SYS_renameat2 disagrees with src/arch/arm64/arch.h"
#endif

#endif
