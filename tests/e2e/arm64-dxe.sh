#!/bin/bash
# lbootdxe for AArch64 (mk/arm64.mk, docs/arm64.md) under Debian's AAVMF in
# QEMU virt (cortex-a57, TCG): the UEFI shell loads the driver from a FAT
# disk (startup.nsh), AAVMF puts it at an address far from its link base 0,
# and the driver prints its banner on the PL011 with its status name, which
# it reads through a table of pointers that only the PE's .reloc (made by
# `lboot pereloc`) fixes; the driver also checks a relocated pointer
# itself. The control: the same PE without its .reloc must not run normally
# (AAVMF refuses it, or the driver's check stops it: FATAL).
# Not tested here (needs an arm64 ROM: mkrom for AAVMF, issue 27): the BDS
# entry, the kernel from flash, the initrd.
. "$(dirname "$0")/lib.sh"
e2e_init arm64-dxe
QEMU=qemu-system-aarch64
E2E_ARCH=arm64
AAVMF_CODE=/usr/share/AAVMF/AAVMF_CODE.fd
AAVMF_VARS=/usr/share/AAVMF/AAVMF_VARS.fd
for t in qemu-system-aarch64 aarch64-linux-gnu-gcc aarch64-linux-gnu-objcopy mkfs.vfat mcopy; do
	command -v "$t" >/dev/null || { skip "AAVMF runs lbootdxe" "$t not installed (scripts/deps.sh)"; exit 0; }
done
for f in "$AAVMF_CODE" "$AAVMF_VARS"; do
	[ -f "$f" ] || { skip "AAVMF runs lbootdxe" "$f missing (qemu-efi-aarch64)"; exit 0; }
done
# unit 0 is 64 MiB on virt: Debian ships it padded; pad a copy if not
if [ "$(stat -c %s "$AAVMF_CODE")" != 67108864 ]; then
	cp "$AAVMF_CODE" "$T/code.fd" && truncate -s 64M "$T/code.fd" && AAVMF_CODE=$T/code.fd
fi
E2E_FIRMWARE=$AAVMF_CODE E2E_VARS=$AAVMF_VARS

DXE=$E2E_ROOT/build/arm64/lbootdxe.efi
if (cd "$E2E_ROOT" && make -s build/arm64/lbootdxe.efi) >"$T/build.log" 2>&1; then
	ok "lbootdxe.efi for AArch64 builds"
else
	sed 's/^/# /' "$T/build.log" | tail -20
	not_ok "lbootdxe.efi for AArch64 builds"; e2e_done
fi
# the PE header: machine 0xAA64, PE32+, boot service driver, a .reloc
hdr=$(python3 - "$DXE" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
o = struct.unpack_from('<I', b, 0x3c)[0]
machine, = struct.unpack_from('<H', b, o + 4)
chars, = struct.unpack_from('<H', b, o + 22)
magic, = struct.unpack_from('<H', b, o + 24)
sub, = struct.unpack_from('<H', b, o + 24 + 68)
rva, size = struct.unpack_from('<II', b, o + 24 + 112 + 5 * 8)
print('%04x %04x %x %d %d' % (machine, magic, sub, chars & 1, size))
PY
)
log "PE: machine magic subsystem relocs-stripped .reloc-size = $hdr"
[[ $hdr =~ ^aa64\ 020b\ b\ 0\ [1-9][0-9]*$ ]] && ok "PE32+ AArch64 boot service driver with a .reloc" ||
	not_ok "PE32+ AArch64 boot service driver with a .reloc ($hdr)"

# run_shell NAME FILE: a FAT disk with FILE as \lbootdxe.efi and a
# startup.nsh that loads it, then powers off (reset -s)
run_shell() {
	local name=$1 file=$2
	rm -rf "$T/fat-$name"; mkdir -p "$T/fat-$name"
	cp "$file" "$T/fat-$name/lbootdxe.efi"
	printf 'echo lboot-test: loading\r\nload fs0:\\lbootdxe.efi\r\necho lboot-test: load status %%lasterror%%\r\nreset -s\r\n' \
		>"$T/fat-$name/startup.nsh"
	mkpart_vfat "$T/$name.img" 8 "$T/fat-$name" LBOOT
	qemu_start -drive "if=none,id=d0,format=raw,file=$T/$name.img" -device virtio-blk-device,drive=d0
}

run_shell good "$DXE"
if expect 'lboot-test: load status' 240; then
	ok "the UEFI shell ran startup.nsh ($(elapsed) s)"
else
	not_ok "the UEFI shell ran startup.nsh"
fi
expect 'lbootdxe: driver loaded, BDS architectural protocol installed: EFI_SUCCESS \(0x0+\)' 5 &&
	ok "banner on the PL011, the status name read through relocated pointers" ||
	not_ok "banner on the PL011, the status name read through relocated pointers"
at=$(tr -d '\r' <"$T/serial.log" | sed -n "s/.*Image 'FS0:\\\\lbootdxe.efi' loaded at \([0-9A-Fa-f]*\) .*/\1/p" | head -n1)
log "AAVMF loaded it at 0x$at"
[ -n "$at" ] && [ $((16#$at)) -ne 0 ] && ok "loaded away from its link base 0 (0x$at)" ||
	not_ok "loaded away from its link base 0 (${at:-no address printed})"
expect 'lboot-test: load status 0x0$' 5 && ok "the shell's load succeeded" || not_ok "the shell's load succeeded"
expect_not 'lbootdxe: FATAL' && ok "no FATAL" || not_ok "no FATAL"
qemu_wait 60 && ok "powered off (reset -s)" || not_ok "powered off (reset -s)"
qemu_stop
cp "$T/serial.log" "$T/serial-good.log"

# the control: the same image without its base relocations
aarch64-linux-gnu-objcopy -R .reloc "$DXE" "$T/noreloc.efi" || { not_ok "control image"; e2e_done; }
run_shell control "$T/noreloc.efi"
if expect 'lbootdxe: FATAL: base relocations not applied|lboot-test: load status 0x[1-9A-Fa-f]' 240; then
	ok "without .reloc it does not run normally (refused, or stopped by its own check)"
else
	not_ok "without .reloc it does not run normally"
fi
expect_not 'driver loaded, BDS architectural protocol installed: EFI_SUCCESS' &&
	ok "control: no banner with a good status" || not_ok "control: no banner with a good status"
qemu_stop
e2e_done
