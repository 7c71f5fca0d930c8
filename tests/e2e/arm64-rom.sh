#!/bin/bash
# The arm64 LinuxBoot ROM (issue 27 step 3, docs/arm64.md): `lboot mkrom`
# turns Debian's AAVMF into a ROM (rom/keep-aavmf.txt, lbootdxe for AArch64
# instead of BdsDxe, the kernel and initramfs in a payload volume of pflash
# unit 0), QEMU virt (cortex-a57, TCG) boots it: AAVMF's SEC/PEI and pruned
# DXE phase, lbootdxe's BDS entry maps the flash past AAVMF's 2 MiB and reads
# the payload from it, lboot's arm64 firmware kernel (kernel/arm64.config;
# its EFI stub gets the initramfs through LoadFile2) starts, and
# build/arm64/lboot-target runs as PID 1: its start line, its menu on the
# PL011, and a power-off typed there.
. "$(dirname "$0")/lib.sh"
QEMU=qemu-system-aarch64
E2E_ARCH=arm64
e2e_init arm64-rom
# the 64 MiB ROM and unit 1 are not worth keeping after the run
trap 'qemu_stop; e2e_dump_on_fail; rm -f "$T"/*.rom "$T"/*.fd "$T"/*.cpio.xz' EXIT
AAVMF_CODE=/usr/share/AAVMF/AAVMF_CODE.fd
for t in qemu-system-aarch64 aarch64-linux-gnu-gcc aarch64-linux-gnu-objcopy apt-get dpkg-deb; do
	command -v "$t" >/dev/null || { skip "arm64 ROM boots to lboot" "$t not installed (scripts/deps.sh)"; exit 0; }
done
[ -f "$AAVMF_CODE" ] || { skip "arm64 ROM boots to lboot" "$AAVMF_CODE missing (qemu-efi-aarch64)"; exit 0; }

t0=$(date +%s.%N)
if (cd "$E2E_ROOT" && make -s build/arm64/lbootdxe.efi build/arm64/lboot-target build/arm64/Image) \
	>"$T/build.log" 2>&1; then
	ok "lbootdxe, lboot-target (arm64) and lboot's arm64 firmware kernel are at hand"
else
	sed 's/^/# /' "$T/build.log" | tail -20
	not_ok "lbootdxe, lboot-target (arm64) and lboot's arm64 firmware kernel are at hand"; e2e_done
fi
KERNEL=$E2E_ROOT/build/arm64/Image
"$OUT/lboot" mkinitramfs --init "$E2E_ROOT/build/arm64/lboot-target" -o "$T/initramfs.cpio.xz" \
	>"$T/initramfs.log" 2>&1 || { sed 's/^/# /' "$T/initramfs.log"; not_ok "mkinitramfs"; e2e_done; }
if "$OUT/lboot" mkrom --base "$AAVMF_CODE" --keep "$E2E_ROOT/rom/keep-aavmf.txt" \
	--dxe "$E2E_ROOT/build/arm64/lbootdxe.efi" --kernel "$KERNEL" --initrd "$T/initramfs.cpio.xz" \
	--cmdline "console=ttyAMA0,115200 panic=-1 lboot.timeout=0" \
	--vars-out "$T/rom-vars.fd" -o "$T/lboot-arm64.rom" >"$T/mkrom.log" 2>&1; then
	ok "lboot mkrom builds the arm64 ROM from AAVMF ($(echo "$(date +%s.%N) $t0" | awk '{printf "%.1f", $1 - $2}') s with the builds)"
else
	sed 's/^/# /' "$T/mkrom.log"; not_ok "lboot mkrom builds the arm64 ROM from AAVMF"; e2e_done
fi
grep -q '^architecture: arm64$' "$T/mkrom.log" && ok "mkrom took the base for arm64 (no --arch)" ||
	not_ok "mkrom took the base for arm64 (no --arch)"
sz=$(stat -c %s "$T/lboot-arm64.rom"); vsz=$(stat -c %s "$T/rom-vars.fd")
[ "$sz" = 67108864 ] && [ "$vsz" = 67108864 ] && ok "unit 0 and unit 1 are 64 MiB each" ||
	not_ok "unit 0 and unit 1 are 64 MiB each ($sz, $vsz)"

E2E_FIRMWARE=$T/lboot-arm64.rom E2E_VARS=$T/rom-vars.fd
qemu_start
ksz=$(stat -c %s "$KERNEL"); isz=$(stat -c %s "$T/initramfs.cpio.xz")
expect 'lbootdxe: BDS entry: all DXE drivers dispatched' 120 &&
	ok "AAVMF's DXE core calls lbootdxe's BDS entry ($(elapsed) s)" ||
	not_ok "AAVMF's DXE core calls lbootdxe's BDS entry"
expect 'lbootdxe: flash 0x00200000-0x04000000 mapped' 30 &&
	ok "lbootdxe maps pflash unit 0 past AAVMF's 2 MiB" || not_ok "lbootdxe maps pflash unit 0 past AAVMF's 2 MiB"
expect "lbootdxe: kernel: $ksz bytes from flash" 30 &&
	ok "the kernel ($ksz bytes) read in place from the flash" ||
	not_ok "the kernel ($ksz bytes) read in place from the flash"
expect "lbootdxe: initramfs: $isz bytes from flash, served by LoadFile2" 30 &&
	ok "the initramfs ($isz bytes) from the flash through LoadFile2" ||
	not_ok "the initramfs ($isz bytes) from the flash through LoadFile2"
expect 'lbootdxe: starting the kernel' 30 && ok "StartImage(kernel) ($(elapsed) s)" ||
	not_ok "StartImage(kernel)"
expect 'Linux version [^ ]*-lboot ' 60 && ok "lboot's arm64 firmware kernel runs ($(elapsed) s)" ||
	not_ok "lboot's arm64 firmware kernel runs"
expect 'Kernel command line: console=ttyAMA0,115200 panic=-1 lboot.timeout=0' 30 &&
	ok "the ROM's command line reached the kernel" || not_ok "the ROM's command line reached the kernel"
expect 'Run /init as init process' 120 && ok "the kernel runs /init from the ROM's initramfs" ||
	not_ok "the kernel runs /init from the ROM's initramfs"
expect 'lboot: lboot [^ ]+ starting' 60 && ok "lboot-target (arm64) runs as PID 1: start line ($(elapsed) s)" ||
	not_ok "lboot-target (arm64) runs as PID 1: start line"
expect 'lboot> ' 60 && ok "lboot's menu on the PL011 (nothing to boot: no disk)" ||
	not_ok "lboot's menu on the PL011"
send 'p'
qemu_wait 60 && ok "'p' at lboot's menu powers the machine off ($(elapsed) s)" ||
	not_ok "'p' at lboot's menu powers the machine off"
expect_not 'lbootdxe: FATAL|Kernel panic|Synchronous Exception' && ok "no FATAL, panic or exception" ||
	not_ok "no FATAL, panic or exception"
qemu_stop

# the console file's 8-byte form (mkrom --dxe-console none on arm64): the
# driver reads it and stays silent; the kernel still starts
cp "$T/serial.log" "$T/serial-first.log"
if "$OUT/lboot" mkrom --base "$AAVMF_CODE" --keep "$E2E_ROOT/rom/keep-aavmf.txt" \
	--dxe "$E2E_ROOT/build/arm64/lbootdxe.efi" --kernel "$KERNEL" --initrd "$T/initramfs.cpio.xz" \
	--cmdline "console=ttyAMA0,115200 panic=-1 lboot.timeout=0" --dxe-console none \
	--vars-out "$T/quiet-vars.fd" -o "$T/quiet.rom" >"$T/mkrom-quiet.log" 2>&1; then
	E2E_FIRMWARE=$T/quiet.rom E2E_VARS=$T/quiet-vars.fd
	qemu_start
	expect 'Linux version [^ ]*-lboot ' 120 && expect_not 'lbootdxe:' &&
		ok "--dxe-console none: the 8-byte console file read, no lbootdxe line, the kernel starts ($(elapsed) s)" ||
		not_ok "--dxe-console none: the 8-byte console file read, no lbootdxe line, the kernel starts"
	qemu_stop
else
	sed 's/^/# /' "$T/mkrom-quiet.log"; not_ok "mkrom --dxe-console none"
fi

# booting an OS from disks and the network, verified and measured, is in
# the arm64-* scenarios (tests/e2e/arm64-localboot-bls.sh and the others:
# the x86 scenarios with E2E_ARM64=1)
e2e_done
