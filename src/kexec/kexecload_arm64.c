/*
 * arm64: lboot's own kexec_load path (kexecload_x86_64.c builds x86's
 * boot_params, e820 map and trampoline) does not exist here yet, so
 * lb_kexec_load_segments fails with -ENOSYS and a reason, and lb_kexec_load
 * in `auto` mode goes on to kexec_file_load, which arm64 kernels have
 * (KEXEC_FILE: Image and, from 6.1, EFI zboot). `lboot.kexec=load` fails
 * with this reason. What an arm64 kexec_load would need (a device tree with
 * /chosen initrd and EFI properties, the purgatory's checks) is in
 * docs/arm64.md.
 */
#include <errno.h>
#include <stdio.h>

#include "kexec.h"
#include "kexecload.h"

int lb_kexec_load_segments(const struct lb_stage *st, char *why, size_t whysz)
{
	(void)st;
	snprintf(why, whysz, "kexec_load: lboot's own segment layout is x86-64 only; "
		 "arm64 boots with kexec_file_load (ENOSYS)");
	return -ENOSYS;
}
