#!/bin/bash
# `lboot mkrom` for AAVMF (arm64, QEMU virt; src/host/mkrom_arm64.c): the
# architecture from the base, rom/keep-aavmf.txt applied (checked by names
# with lboot's own parser and by a peer, UEFIExtract), the payload volume in
# pflash unit 0 after AAVMF's 2 MiB, the 8-byte PL011 console file,
# reproducible bytes, atomic output, inputs never overwritten, and the
# refusals (a driver or --arch of the other architecture, --pei, --size, a
# payload too large). The boot itself: tests/e2e/arm64-rom.sh.
cd "$(dirname "$0")/../.." || exit 1
N=host/mkrom-arm64
ok() { echo "ok $N: $*"; }
not_ok() { echo "not ok $N: $*"; }
skip() { echo "skip $N: $1: $2"; }
check() { # NAME CMD...
	local name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

LBOOT=out/lboot
DXE=build/arm64/lbootdxe.efi
BASE=/usr/share/AAVMF/AAVMF_CODE.fd
VARS=/usr/share/AAVMF/AAVMF_VARS.fd
[ -x "$LBOOT" ] || { not_ok "missing $LBOOT (run make)"; exit 1; }
[ -f "$BASE" ] && [ -f "$VARS" ] || { skip "AAVMF ROM" "$BASE missing (qemu-efi-aarch64)"; exit 0; }
command -v aarch64-linux-gnu-gcc >/dev/null ||
	{ skip "AAVMF ROM" "aarch64-linux-gnu-gcc missing (scripts/deps.sh)"; exit 0; }
make -s "$DXE" >/dev/null 2>&1 || { not_ok "build $DXE"; exit 1; }
T=build/test-mkrom-arm64
rm -rf "$T"; mkdir -p "$T"
trap 'rm -rf "$T"' EXIT

# inputs: a small fake kernel (any PE) and an initramfs
cp "$DXE" "$T/kernel"
head -c 150000 /dev/urandom >"$T/initrd"
cmdline='console=ttyAMA0,115200 lboot.test="a b" panic=-1'
mk() { # OUT [args...]
	local o=$1; shift
	"$LBOOT" mkrom --base "$BASE" --keep rom/keep-aavmf.txt --dxe "$DXE" -o "$o" "$@"
}
KEPT="PcdDxe FdtClientDxe HighMemDxe ArmCpuDxe ArmGicDxe
ArmTimerDxe RuntimeDxe SecurityStubDxe MetronomeDxe RealTimeClock ResetSystemRuntimeDxe
WatchdogTimer MonotonicCounterRuntimeDxe CapsuleRuntimeDxe VariableRuntimeDxe
FaultTolerantWriteDxe VirtNorFlashDxe PlatformHasAcpiDtDxe AcpiTableDxe QemuFwCfgAcpiPlatform
SmbiosDxe SmbiosPlatformDxe ConSplitterDxe DevicePathDxe"
GONE="BdsDxe ReportStatusCodeRouterRuntimeDxe PciBusDxe PciHostBridgeDxe UiApp Shell TerminalDxe VirtioBlkDxe VirtioNetDxe UefiPxeBcDxe HttpBootDxe Tcg2Dxe"

mk "$T/a.rom" --kernel "$T/kernel" --initrd "$T/initrd" --cmdline "$cmdline" >"$T/a.out" 2>&1
rc=$?
check "mkrom on AAVMF exits 0" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/# /' "$T/a.out"
check "architecture arm64 from the base's DXE core (no --arch)" grep -q '^architecture: arm64$' "$T/a.out"
check "unit 0 is 64 MiB" [ "$(stat -c %s "$T/a.rom" 2>/dev/null)" = 67108864 ]
check "unit 1 is AAVMF_VARS.fd, byte for byte" cmp -s "$T/a-vars.fd" "$VARS"
check "report: kept 24 DXE files" grep -Eq '^kept 24 DXE files ' "$T/a.out"
check "report: removed BdsDxe, UiApp, Shell" grep -Eq '^removed [0-9]+ DXE files .* BdsDxe .*UiApp' "$T/a.out"
check "report: no keep-list GUID missing from the base" bash -c "! grep -q '^note: keep-list GUID' '$T/a.out'"
check "report: the payload volume at 0x200000 of unit 0" \
	grep -Eq '^payload: kernel \+ initramfs = [0-9]+ bytes .* payload volume of 65011712 bytes at 0x200000 of pflash unit 0' "$T/a.out"
check "report: PL011 console by default" grep -q '^lbootdxe console: PL011 (0x09000000, the default)$' "$T/a.out"
check "no temporary files left" [ -z "$(ls "$T" | grep '\.tmp')" ]

# the names, by lboot's own parser
"$LBOOT" uefi ls "$T/a.rom" >"$T/a.ls" 2>&1
check "lboot uefi ls reads the ROM" [ $? -eq 0 ]
miss=""
for n in $KEPT LbootDxe; do grep -Eq "file +DRIVER .* $n\$" "$T/a.ls" || miss="$miss $n"; done
check "every kept driver and LbootDxe in the DXE volume${miss:+ (missing:$miss)}" [ -z "$miss" ]
extra=""
for n in $GONE; do grep -Eq "file +[A-Z_]+ .* $n\$" "$T/a.ls" && extra="$extra $n"; done
check "none of the removed ones left${extra:+ (left:$extra)}" [ -z "$extra" ]
ndrv=$(grep -Ec '^ +file +DRIVER ' "$T/a.ls")
check "25 DXE drivers (24 kept + lbootdxe), got $ndrv" [ "$ndrv" -eq 25 ]
check "the payload volume: a top-level volume at 0x200000 of 0x3e00000 bytes" \
	grep -Eq '^  volume +FFS2 +0x00200000 0x03e00000 ' "$T/a.ls"
check "kernel and initramfs files in it, uncompressed (flash offsets)" \
	bash -c "grep -Eq '^    file +APPLICATION +0x002[0-9a-f]{5} .*1FD530C2-B6CD-4F9F-9C7E-75A6A43EFE2B' '$T/a.ls' &&
		 grep -Eq '^    file +FREEFORM +0x0[0-9a-f]{7} .*2FF050F8-93A9-411A-A4BE-DF58B51B4A18' '$T/a.ls'"
check "SEC/PEI volume still at 0x1000, 0x1ff000 bytes" grep -Eq '^  volume +FFS2 +0x00001000 0x001ff000 ' "$T/a.ls"
check "the first 4 KiB are the base's" cmp -s -n 4096 "$T/a.rom" "$BASE"

# reproducible
mk "$T/b.rom" --kernel "$T/kernel" --initrd "$T/initrd" --cmdline "$cmdline" >/dev/null 2>&1
check "two builds are byte-identical (both units)" \
	bash -c "cmp -s '$T/a.rom' '$T/b.rom' && cmp -s '$T/a-vars.fd' '$T/b-vars.fd'"
"$LBOOT" mkrom --arch arm64 --keep rom/keep-aavmf.txt --dxe "$DXE" --kernel "$T/kernel" \
	--initrd "$T/initrd" --cmdline "$cmdline" -o "$T/c.rom" >/dev/null 2>&1
check "--arch arm64 without --base takes AAVMF_CODE.fd: same bytes" cmp -s "$T/a.rom" "$T/c.rom"

# --dxe-console: 8 bytes, the PL011's base
CONS=$(sed -n 's/.*LBOOT_GUID_CONSOLE_STR[^"]*"\([0-9A-Fa-f-]*\)".*/\1/p' src/dxe/guids.h | head -n1)
for spec in pl011:0000000900000000 0x9040000:0000040900000000 none:0000000000000000; do
	v=${spec%%:*} want=${spec#*:}
	mk "$T/c-$v.rom" --kernel "$T/kernel" --dxe-console "$v" >"$T/c-$v.out" 2>&1
	check "--dxe-console $v builds" [ $? -eq 0 ]
	rm -rf "$T/cx-$v"
	"$LBOOT" uefi extract "$T/c-$v.rom" "$CONS" -o "$T/cx-$v" >/dev/null 2>&1
	body=$(find "$T/cx-$v" -type f ! -name '*.ffs' -size -9c 2>/dev/null | head -1)
	got=$( [ -n "$body" ] && od -An -tx1 "$body" | tr -d ' \n')
	check "--dxe-console $v: console file holds $want (got ${got:-nothing})" [ "$got" = "$want" ]
	rm -f "$T/c-$v.rom" "$T/c-$v-vars.fd"
done
grep -q '^lbootdxe console: PL011 at 0x9040000$' "$T/c-0x9040000.out" &&
	ok "--dxe-console 0x9040000: report names the PL011" || not_ok "--dxe-console 0x9040000: report names the PL011"
mk "$T/bad.rom" --kernel "$T/kernel" --dxe-console com1 >"$T/bad.out" 2>&1
check "--dxe-console com1 on arm64: exit 1 naming arm64, nothing written" \
	bash -c "[ $? -eq 1 ] && grep -q 'not a console of arm64' '$T/bad.out' && [ ! -e '$T/bad.rom' ]"
for bad in 0x9000001 0x0 pl012; do
	mk "$T/bad.rom" --kernel "$T/kernel" --dxe-console "$bad" >"$T/bad.out" 2>&1
	check "--dxe-console '$bad' refused (exit 2)" bash -c "[ $? -eq 2 ] && [ ! -e '$T/bad.rom' ]"
done

# refusals: nothing written, inputs untouched
refuse() { # NAME PATTERN ARGS...: exit 1, PATTERN in the message, no output
	local name=$1 pat=$2; shift 2
	"$LBOOT" mkrom "$@" -o "$T/r.rom" >"$T/r.out" 2>&1
	local rc=$?
	check "$name: exit 1, says why, nothing written" \
		bash -c "[ $rc -eq 1 ] && grep -q -- '$pat' '$T/r.out' && [ ! -e '$T/r.rom' ] && [ ! -e '$T/r-vars.fd' ]"
	[ $rc -eq 1 ] || sed 's/^/# /' "$T/r.out"
}
if [ -f build/dxe/lbootdxe.efi ] || make -s build/dxe/lbootdxe.efi >/dev/null 2>&1; then
	refuse "the X64 lbootdxe into AAVMF" "not an arm64 driver" --base "$BASE" --dxe build/dxe/lbootdxe.efi --kernel "$T/kernel"
else
	not_ok "build build/dxe/lbootdxe.efi (for the X64-driver refusal)"
fi
refuse "--arch x86_64 with AAVMF" "an arm64 image, not x86_64" --arch x86_64 --base "$BASE" --dxe "$DXE" --kernel "$T/kernel"
if [ -f /usr/share/OVMF/OVMF_CODE_4M.fd ]; then
	refuse "--arch arm64 with OVMF" "an x86_64 image, not arm64" --arch arm64 --base /usr/share/OVMF/OVMF_CODE_4M.fd --dxe "$DXE" --kernel "$T/kernel"
else
	skip "--arch arm64 with OVMF" "/usr/share/OVMF/OVMF_CODE_4M.fd missing (ovmf)"
fi
refuse "--tpm --pei on arm64" "--pei is not for arm64" --base "$BASE" --dxe "$DXE" --tpm --pei "$DXE" --kernel "$T/kernel"
refuse "--size on arm64" "--size is not for arm64" --base "$BASE" --dxe "$DXE" --size 16M --kernel "$T/kernel"
{ printf 'MZ'; head -c $(( (62 << 20) - 2 )) /dev/zero; } >"$T/huge"
refuse "a 62 MiB kernel" "does not fit: [0-9]* bytes over the payload volume of pflash unit 0" \
	--base "$BASE" --dxe "$DXE" --kernel "$T/huge"
rm -f "$T/huge"

# the output is never an input
cp "$BASE" "$T/base.fd"; cp "$VARS" "$T/base-vars.fd"
"$LBOOT" mkrom --base "$T/base.fd" --vars "$T/base-vars.fd" --dxe "$DXE" --kernel "$T/kernel" \
	-o "$T/base.fd" >"$T/in.out" 2>&1
rc=$?
check "-o the base: exit 1, the base unchanged" bash -c "[ $rc -eq 1 ] && cmp -s '$T/base.fd' '$BASE'"
"$LBOOT" mkrom --base "$T/base.fd" --vars "$T/base-vars.fd" --dxe "$DXE" --kernel "$T/kernel" \
	--vars-out "$T/base-vars.fd" -o "$T/o.rom" >"$T/in.out" 2>&1
rc=$?
check "--vars-out the vars template: exit 1, it is unchanged, no ROM" \
	bash -c "[ $rc -eq 1 ] && cmp -s '$T/base-vars.fd' '$VARS' && [ ! -e '$T/o.rom' ]"
"$LBOOT" mkrom --base "$T/base.fd" --vars "$T/base-vars.fd" --dxe "$DXE" --kernel "$T/kernel" \
	-o "$T/kernel" >"$T/in.out" 2>&1
rc=$?
check "-o the kernel: exit 1, the kernel unchanged" bash -c "[ $rc -eq 1 ] && cmp -s '$T/kernel' '$DXE'"
rm -f "$T/base.fd" "$T/base-vars.fd"

# the peer: UEFIExtract
if command -v UEFIExtract >/dev/null; then
	mkdir -p "$T/ux" && cp "$T/a.rom" "$T/ux/rom"
	(cd "$T/ux" && UEFIExtract rom report >/dev/null 2>&1)
	r=$T/ux/rom.report.txt
	miss=""
	for n in $KEPT LbootDxe; do grep -Eq "DXE driver .*\| $n\$" "$r" || miss="$miss $n"; done
	check "UEFIExtract: every kept driver and LbootDxe${miss:+ (missing:$miss)}" [ -z "$miss" ]
	extra=""
	for n in $GONE; do grep -Eq "\| $n\$" "$r" && extra="$extra $n"; done
	check "UEFIExtract: none of the removed ones${extra:+ (left:$extra)}" [ -z "$extra" ]
	ndrv=$(grep -c ' File .*| DXE driver ' "$r")
	check "UEFIExtract: 25 DXE drivers, got $ndrv" [ "$ndrv" -eq 25 ]
	check "UEFIExtract: kernel is an application" grep -Eq 'Application .*1FD530C2-B6CD-4F9F-9C7E-75A6A43EFE2B \| LbootKernel' "$r"
	(cd "$T/ux" &&
	 UEFIExtract rom 2FF050F8-93A9-411A-A4BE-DF58B51B4A18 -o ird -m body -t 19 >/dev/null 2>&1
	 UEFIExtract rom 1FD530C2-B6CD-4F9F-9C7E-75A6A43EFE2B -o krn -m body -t 10 >/dev/null 2>&1)
	check "UEFIExtract: initramfs RAW section byte-identical" cmp -s "$T/ux/ird/body.bin" "$T/initrd"
	check "UEFIExtract: kernel PE32 section byte-identical" cmp -s "$T/ux/krn/body.bin" "$T/kernel"
else
	for c in "every kept driver and LbootDxe" "none of the removed ones" "25 DXE drivers" \
		 "kernel is an application" "initramfs RAW section byte-identical" "kernel PE32 section byte-identical"; do
		skip "UEFIExtract: $c" "UEFIExtract not installed (apt-get install uefitool-cli)"
	done
fi
