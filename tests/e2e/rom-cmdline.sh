#!/bin/bash
# The command line lbootdxe hands to the kernel: the built-in default when
# the ROM has no command line file, and a UTF-8 one stored by mkrom
# (converted to UCS-2 LoadOptions; the EFI stub converts it back).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init rom-cmdline
rom_build "$T/default.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz"
E2E_FIRMWARE=$T/default.rom E2E_VARS=$T/default-vars.fd qemu_start
expect 'lbootdxe: no command line file: using the built-in default' 120 &&
	ok "no cmdline file: default used" || not_ok "no cmdline file: default used"
expect 'Command line: console=ttyS0,115200 panic=10$' 120 &&
	ok "kernel got the default command line" || not_ok "kernel got the default command line"
qemu_stop

utf="console=ttyS0,115200 panic=-1 lboot.timeout=0 rom.name=Grüße→ok"
rom_build "$T/utf.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" --cmdline "$utf  "
E2E_FIRMWARE=$T/utf.rom E2E_VARS=$T/utf-vars.fd qemu_start
expect "Command line: $utf\$" 120 &&
	ok "UTF-8 command line arrives intact (trailing blanks dropped)" ||
	not_ok "UTF-8 command line arrives intact (trailing blanks dropped)"
qemu_stop
e2e_done
