#!/bin/bash
# lbootdxe's console port (mkrom --dxe-console): a ROM built with com2
# writes its "lbootdxe:" lines to QEMU's second serial port (I/O 0x2F8) and
# none to the first (COM1), where the kernel (console=ttyS0) and lboot
# still speak.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init rom-dxe-console
rom_build "$T/com2.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" \
	--cmdline "$ROM_CMDLINE_TEST" --dxe-console com2
grep -q '^lbootdxe console: I/O port 0x2F8$' "$T/com2.rom.log" && ok "mkrom reports the port" ||
	not_ok "mkrom reports the port"
rm -f "$T/com2.log"
E2E_FIRMWARE=$T/com2.rom E2E_VARS=$T/com2-vars.fd qemu_start -serial "file:$T/com2.log"
expect 'lboot [^ ]+ starting' 240 && ok "kernel and lboot up on COM1" || not_ok "kernel and lboot up on COM1"
tr -d '\r' <"$T/com2.log" | grep -q '^lbootdxe: driver loaded' && ok "lbootdxe: lines on COM2" ||
	not_ok "lbootdxe: lines on COM2"
tr -d '\r' <"$T/com2.log" | grep -q '^lbootdxe: command line: console=ttyS0' &&
	ok "COM2 has the whole report (command line)" || not_ok "COM2 has the whole report (command line)"
n=$(tr -d '\r' <"$T/com2.log" | grep -c '^lbootdxe:')
log "$n lbootdxe: lines on COM2"
expect_not 'lbootdxe:' && ok "no lbootdxe: line on COM1" || not_ok "no lbootdxe: line on COM1"
qemu_stop
e2e_done
