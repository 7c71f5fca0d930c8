#!/bin/bash
# The LinuxBoot ROM (OVMF + lbootdxe + firmware kernel/initramfs from flash)
# boots under QEMU TCG from pflash and lboot starts the target OS from a
# virtio disk (ESP with a BLS entry).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init rom-virtio
rom_build "$T/lboot.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" \
	--cmdline "$ROM_CMDLINE_TEST"
ok "mkrom"
rom_demo_disk "$T/disk.img" virtio
E2E_FIRMWARE=$T/lboot.rom E2E_VARS=$T/lboot-vars.fd \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lbootdxe: driver loaded' 120 && ok "lbootdxe dispatched from flash" || not_ok "lbootdxe dispatched from flash"
expect 'lbootdxe: signalled ReadyToBoot' 120 && ok "BDS steps done" || not_ok "BDS steps done"
expect 'lbootdxe: kernel: [0-9]+ bytes from flash' 60 && ok "kernel read in place from the flash volume" ||
	not_ok "kernel read in place from the flash volume"
expect 'lbootdxe: initramfs: [0-9]+ bytes from flash' 60 && ok "initramfs found in flash" || not_ok "initramfs found in flash"
expect 'lbootdxe: starting the kernel' 60 && ok "kernel loaded from flash" || not_ok "kernel loaded from flash"
expect "Command line: $ROM_CMDLINE_TEST" 120 && ok "kernel got the ROM's command line" || not_ok "kernel got the ROM's command line"
expect 'ACPI: RSDP' 120 && ok "ACPI tables installed" || not_ok "ACPI tables installed"
expect 'lboot-target: TARGET-OS-UP' 300 && ok "target OS up from virtio ($(elapsed) s)" || not_ok "target OS up from virtio"
expect 'lboot-target: cmdline: .*rom.test=virtio' 30 && ok "target OS cmdline" || not_ok "target OS cmdline"
expect_not 'lbootdxe: FATAL' && ok "no FATAL" || not_ok "no FATAL"
qemu_stop
e2e_done
