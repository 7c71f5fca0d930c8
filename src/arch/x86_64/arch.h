/*
 * x86-64: the numbers and names lboot's architecture-neutral code needs
 * (src/arch/arm64/arch.h has the same names). The build puts exactly one
 * src/arch/ARCH on the include path and links the *_ARCH.c files of that
 * architecture (Makefile: ARCH_SRC; docs/arm64.md).
 */
#ifndef LB_ARCH_H
#define LB_ARCH_H

#include <sys/syscall.h>

#define LB_ARCH "x86_64"

/* system call numbers libc may not name (arch/x86/entry/syscalls/syscall_64.tbl) */
#define LB_SYS_KEXEC_LOAD      246
#define LB_SYS_KEXEC_FILE_LOAD 320
#define LB_SYS_MEMFD_CREATE    319
#define LB_SYS_RENAMEAT2       316

/* the Boot Loader Specification's `architecture` value (UAPI.1) */
#define LB_BLS_ARCH "x64"
/* iPXE's ${buildarch} on this architecture */
#define LB_IPXE_BUILDARCH "x86_64"
/* DHCP client system architecture (RFC 4578 option 93, DHCPv6 option 61;
 * IANA "Processor Architecture Types"): x64 UEFI, x64 UEFI HTTP boot */
#define LB_DHCP_ARCH_PXE  7
#define LB_DHCP_ARCH_HTTP 16
/* option 60, the vendor class identifier with that architecture */
#define LB_DHCP_VC_PXE  "PXEClient:Arch:00007:UNDI:003016"
#define LB_DHCP_VC_HTTP "HTTPClient:Arch:00016:UNDI:003001"

/* when libc names them, they must agree */
#if defined(SYS_kexec_file_load) && SYS_kexec_file_load != LB_SYS_KEXEC_FILE_LOAD
#error "SYS_kexec_file_load disagrees with src/arch/x86_64/arch.h"
#endif
#if defined(SYS_kexec_load) && SYS_kexec_load != LB_SYS_KEXEC_LOAD
#error "SYS_kexec_load disagrees with src/arch/x86_64/arch.h"
#endif
#if defined(SYS_memfd_create) && SYS_memfd_create != LB_SYS_MEMFD_CREATE
#error "SYS_memfd_create disagrees with src/arch/x86_64/arch.h"
#endif
#if defined(SYS_renameat2) && SYS_renameat2 != LB_SYS_RENAMEAT2
#error "SYS_renameat2 disagrees with src/arch/x86_64/arch.h"
#endif

#endif
