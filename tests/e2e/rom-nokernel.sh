#!/bin/bash
# A ROM without the kernel file: lbootdxe must say so (FATAL) on the serial
# console within the timeout, not hang silently, and then reset the machine
# (QEMU runs with -no-reboot, so the reset ends QEMU) instead of halting.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init rom-nokernel
rom_build "$T/lboot.rom" --initrd "$OUT/initramfs.cpio.xz"
ok "mkrom without --kernel"
E2E_FIRMWARE=$T/lboot.rom E2E_VARS=$T/lboot-vars.fd qemu_start
expect 'lbootdxe: FATAL: kernel file 1FD530C2-B6CD-4F9F-9C7E-75A6A43EFE2B .*not found.*EFI_NOT_FOUND' 150 &&
	ok "FATAL message names the missing kernel file ($(elapsed) s)" || not_ok "FATAL message names the missing kernel file"
expect 'lbootdxe: resetting the machine in 10 s' 30 && ok "reset announced" || not_ok "reset announced"
t0=$(date +%s)
if qemu_wait 90; then
	ok "the machine reset after the pause ($(( $(date +%s) - t0 )) s after the message; QEMU -no-reboot exited)"
else
	not_ok "the machine reset after the pause (still running 90 s later)"
fi
expect_not 'lbootdxe: reset failed' && ok "ResetSystem did not return" || not_ok "ResetSystem did not return"
expect_not 'lbootdxe: starting the kernel' && ok "no kernel started" || not_ok "no kernel started"
qemu_stop
e2e_done
