#!/bin/bash
# lbootdxe.efi is a valid PE32+ boot-service driver with base relocations;
# `lboot mkrom` output checked by a peer (UEFIExtract: files, names, section
# bodies byte for byte), reproducible, atomic, and its errors.
cd "$(dirname "$0")/../.." || exit 1
N=host/mkrom
ok() { echo "ok $N: $*"; }
not_ok() { echo "not ok $N: $*"; }
skip() { echo "skip $N: $1: $2"; } # NAME REASON: could not run here, never a pass
check() { # NAME CMD...
	local name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

LBOOT=out/lboot
DXE=build/dxe/lbootdxe.efi
BASE=/usr/share/OVMF/OVMF_CODE_4M.fd
VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
[ -x "$LBOOT" ] || { not_ok "missing $LBOOT (run make)"; exit 1; }
[ -f "$DXE" ] || make -s "$DXE" >/dev/null || { not_ok "build $DXE"; exit 1; }
[ -f "$BASE" ] || { not_ok "missing $BASE (apt-get install ovmf)"; exit 1; }
T=build/test-mkrom
rm -rf "$T"; mkdir -p "$T"

# --- the driver's PE ----------------------------------------------------------
objdump -p "$DXE" >"$T/pe.txt" 2>&1
check "lbootdxe.efi is PE32+" grep -q 'Magic.*020b.*(PE32+)' "$T/pe.txt"
check "lbootdxe.efi is an EFI boot service driver" grep -q 'Subsystem.*0000000b' "$T/pe.txt"
nrel=$(grep -c 'DIR64' "$T/pe.txt")
check "lbootdxe.efi has DIR64 base relocations ($nrel)" [ "$nrel" -gt 0 ]
chars=$(awk '/^Characteristics/{print $2}' "$T/pe.txt")
check "lbootdxe.efi relocations not stripped (characteristics $chars)" \
	[ $(( chars & 1 )) -eq 0 ]
check "lbootdxe.efi has an entry point" \
	grep -Eq 'AddressOfEntryPoint[[:space:]]+0*[1-9a-f]' "$T/pe.txt"
check "lbootdxe.efi has no timestamp (reproducible)" grep -q 'Time/Date.*1970' "$T/pe.txt"

# --- inputs: a small fake kernel (any PE) and an initramfs ------------------------
cp "$DXE" "$T/kernel"
head -c 150000 /dev/urandom >"$T/initrd"
cmdline='console=ttyS0,115200 lboot.test="a b" panic=-1'
mk() { # OUT [args...]
	local o=$1; shift
	"$LBOOT" mkrom --keep rom/keep-ovmf.txt --dxe "$DXE" -o "$o" "$@"
}

mk "$T/a.rom" --kernel "$T/kernel" --initrd "$T/initrd" --cmdline "$cmdline" >"$T/a.out" 2>&1
rc=$?
check "mkrom exits 0" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/# /' "$T/a.out"
check "ROM has the base's size" [ "$(stat -c %s "$T/a.rom")" -eq "$(stat -c %s "$BASE")" ]
check "report names removed drivers" grep -Eq '^removed [0-9]+ DXE files .* BdsDxe .*UiApp.* Shell' "$T/a.out"
check "report names kept drivers" grep -Eq '^kept 30 DXE files .* ConSplitterDxe' "$T/a.out"
check "report names the removed TPM PEIMs" grep -Eq '^removed 5 other files: TpmMmioSevDecryptPei Tcg2ConfigPei TcgPei Tcg2Pei Tcg2PlatformPei$' "$T/a.out"
check "report gives free space" grep -Eq '^flash volume free space: [0-9]+ bytes in the base, [0-9]+ bytes left' "$T/a.out"
check "vars copy written" cmp -s "$T/a-vars.fd" "$VARS"
check "no temporary files left" [ -z "$(ls "$T" | grep '\.tmp\.')" ]

# layout: kernel and initramfs stored uncompressed in the top-level flash
# volume (an absolute offset in `uefi ls`), lbootdxe and the command line
# inside the compressed DXE volume (no offset: "-")
"$LBOOT" uefi ls "$T/a.rom" >"$T/a.ls" 2>&1
check "kernel file in the flash volume (uncompressed)" \
	grep -Eq '^    file +APPLICATION +0x[0-9a-f]+ .*1FD530C2-B6CD-4F9F-9C7E-75A6A43EFE2B' "$T/a.ls"
check "initramfs file in the flash volume (uncompressed)" \
	grep -Eq '^    file +FREEFORM +0x[0-9a-f]+ .*2FF050F8-93A9-411A-A4BE-DF58B51B4A18' "$T/a.ls"
check "lbootdxe and command line inside the compressed DXE volume" \
	bash -c "grep -Eq 'file +DRIVER +- .*052E9DF6-9113-49CC-A446-F9803E058444' '$T/a.ls' &&
		 grep -Eq 'file +FREEFORM +- .*3BD30B26-F965-4B9A-BFDB-600888F3B8F8' '$T/a.ls'"

# reproducible: same inputs, same bytes
mk "$T/b.rom" --kernel "$T/kernel" --initrd "$T/initrd" --cmdline "$cmdline" >/dev/null 2>&1
check "two builds are byte-identical" cmp -s "$T/a.rom" "$T/b.rom"

# --dxe-console: the port lands in the console file of the DXE volume (2
# bytes, little-endian); without the option no file (the driver's COM1)
CONS=7C0A4E51-3D2B-4F6A-9E8C-51B0D4A2C6E3
check "no --dxe-console: no console file" bash -c "! grep -q '$CONS' '$T/a.ls'"
check "no --dxe-console: report says COM1" grep -q '^lbootdxe console: COM1 (0x3F8, the default)$' "$T/a.out"
for spec in com2:f802 none:0000 0x3E8:e803 COM1:f803; do
	v=${spec%%:*} want=${spec#*:}
	mk "$T/c-$v.rom" --kernel "$T/kernel" --dxe-console "$v" >"$T/c-$v.out" 2>&1
	check "--dxe-console $v builds" [ $? -eq 0 ]
	rm -rf "$T/cx-$v"
	"$LBOOT" uefi extract "$T/c-$v.rom" "$CONS" -o "$T/cx-$v" >/dev/null 2>&1
	body=$(find "$T/cx-$v" -type f ! -name '*.ffs' -size -3c 2>/dev/null | head -1)
	got=$( [ -n "$body" ] && od -An -tx1 "$body" | tr -d ' \n')
	check "--dxe-console $v: console file holds $want (got ${got:-nothing})" [ "$got" = "$want" ]
done
check "--dxe-console com2: report names the port" grep -q '^lbootdxe console: I/O port 0x2F8$' "$T/c-com2.out"
check "--dxe-console none: report says none" grep -q "^lbootdxe console: none" "$T/c-none.out"
for bad in com5 0x0 0xFFFF 0x 1016 ""; do
	mk "$T/bad.rom" --kernel "$T/kernel" --dxe-console "$bad" >"$T/bad.out" 2>&1
	rc=$?
	check "--dxe-console '$bad' refused (exit 2, one line, got $rc)" \
		bash -c "[ $rc -eq 2 ] && grep -q 'lboot mkrom: --dxe-console' '$T/bad.out' && [ ! -e '$T/bad.rom' ]"
done

# --- peer: UEFIExtract -------------------------------------------------------------
if command -v UEFIExtract >/dev/null; then
	mkdir -p "$T/ux" && cp "$T/a.rom" "$T/ux/rom"
	(cd "$T/ux" && UEFIExtract rom report >/dev/null 2>&1)
	r=$T/ux/rom.report.txt
	check "UEFIExtract: LbootDxe is a DXE driver" grep -Eq 'DXE driver .*052E9DF6-9113-49CC-A446-F9803E058444 \| LbootDxe' "$r"
	check "UEFIExtract: kernel is an application" grep -Eq 'Application .*1FD530C2-B6CD-4F9F-9C7E-75A6A43EFE2B \| LbootKernel' "$r"
	check "UEFIExtract: no BdsDxe, UiApp, Shell" bash -c "! grep -Eq '\| (BdsDxe|UiApp|Shell)\$' '$r'"
	ndrv=$(grep -c ' File .*| DXE driver ' "$r")
	check "UEFIExtract: 31 DXE drivers (30 kept + lbootdxe), got $ndrv" [ "$ndrv" -eq 31 ]
	(cd "$T/ux" &&
	 UEFIExtract rom 2FF050F8-93A9-411A-A4BE-DF58B51B4A18 -o ird -m body -t 19 >/dev/null 2>&1
	 UEFIExtract rom 3BD30B26-F965-4B9A-BFDB-600888F3B8F8 -o cmd -m body -t 19 >/dev/null 2>&1
	 UEFIExtract rom 1FD530C2-B6CD-4F9F-9C7E-75A6A43EFE2B -o krn -m body -t 10 >/dev/null 2>&1
	 UEFIExtract rom 052E9DF6-9113-49CC-A446-F9803E058444 -o drv -m body -t 13 >/dev/null 2>&1)
	check "UEFIExtract: initramfs RAW section byte-identical" cmp -s "$T/ux/ird/body.bin" "$T/initrd"
	check "UEFIExtract: kernel PE32 section byte-identical" cmp -s "$T/ux/krn/body.bin" "$T/kernel"
	check "UEFIExtract: command line RAW section" [ "$(cat "$T/ux/cmd/body.bin" 2>/dev/null)" = "$cmdline" ]
	check "UEFIExtract: driver depex is TRUE END" [ "$(od -An -tx1 "$T/ux/drv/body.bin" 2>/dev/null | tr -d ' \n')" = 0608 ]
else
	for c in "LbootDxe is a DXE driver" "kernel is an application" "no BdsDxe, UiApp, Shell" \
		 "31 DXE drivers" "initramfs RAW section byte-identical" "kernel PE32 section byte-identical" \
		 "command line RAW section" "driver depex is TRUE END"; do
		skip "UEFIExtract: $c" "UEFIExtract not installed (apt-get install uefitool-cli)"
	done
fi

# --- our own parser reads it back --------------------------------------------------
"$LBOOT" uefi ls "$T/a.rom" >"$T/ls.txt" 2>&1
check "lboot uefi ls exits 0 on the ROM" [ $? -eq 0 ]
check "lboot uefi ls lists LbootKernel" grep -q LbootKernel "$T/ls.txt"

# --- combined image (NVRAM inside): no vars file --------------------------------
if [ -f /usr/share/ovmf/OVMF.fd ]; then
	mk "$T/c.rom" --base /usr/share/ovmf/OVMF.fd --kernel "$T/kernel" >"$T/c.out" 2>&1
	check "combined OVMF.fd base builds" [ $? -eq 0 ]
	check "combined base: no vars file" [ ! -e "$T/c-vars.fd" ]
else
	skip "combined OVMF.fd base builds" "/usr/share/ovmf/OVMF.fd not installed (apt-get install ovmf)"
fi

# --- the larger flash: payload volume at the bottom of unit 1 -----------------------
CODE=$(stat -c %s "$BASE")
# 3.5 MB: more than the 4 MiB layout's ~3 MB of room, less than 8 MiB's 4 MiB
{ printf 'MZ'; head -c 3500000 /dev/urandom; } >"$T/big"
mk "$T/small4.rom" --size 4M --kernel "$T/big" --initrd "$T/initrd" >"$T/small4.out" 2>&1
rc=$?
check "--size 4M, 3.5 MB kernel: exit 1" [ $rc -eq 1 ]
check "--size 4M: 'does not fit: N bytes over'" \
	grep -Eq 'does not fit: [0-9]+ bytes over .*--size 8M or 16M' "$T/small4.out"
check "--size 4M: nothing written" bash -c "[ ! -e '$T/small4.rom' ] && [ ! -e '$T/small4-vars.fd' ]"
mk "$T/g.rom" --kernel "$T/big" --initrd "$T/initrd" --cmdline "$cmdline" >"$T/g.out" 2>&1
rc=$?
check "auto: exit 0" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/# /' "$T/g.out"
check "auto: says it grew to 8 MiB and why" \
	grep -Eq '^layout: .* do not fit the 4194304-byte layout \([0-9]+ bytes over\): flash grown to 8 MiB' "$T/g.out"
check "auto: unit 0 keeps the base's size" [ "$(stat -c %s "$T/g.rom")" -eq "$CODE" ]
check "auto: unit 0 + unit 1 = 8 MiB" [ $(( $(stat -c %s "$T/g.rom") + $(stat -c %s "$T/g-vars.fd") )) -eq $((8 << 20)) ]
vsz=$(stat -c %s "$VARS")
check "unit 1 ends with the variable store template" \
	cmp -s <(tail -c "$vsz" "$T/g-vars.fd") "$VARS"
"$LBOOT" uefi ls "$T/g-vars.fd" >"$T/g1.ls" 2>&1
check "unit 1: payload volume with the kernel and initramfs, then the store" \
	bash -c "grep -Eq 'file +APPLICATION +0x[0-9a-f]+ .*1FD530C2-B6CD-4F9F-9C7E-75A6A43EFE2B' '$T/g1.ls' &&
		 grep -Eq 'file +FREEFORM +0x[0-9a-f]+ .*2FF050F8-93A9-411A-A4BE-DF58B51B4A18' '$T/g1.ls' &&
		 grep -q NVRAM '$T/g1.ls'"
"$LBOOT" uefi ls "$T/g.rom" >"$T/g0.ls" 2>&1
check "unit 0: no payload files, lbootdxe still there" \
	bash -c "! grep -q 1FD530C2-B6CD-4F9F-9C7E-75A6A43EFE2B '$T/g0.ls' && grep -q 052E9DF6-9113-49CC-A446-F9803E058444 '$T/g0.ls'"
if command -v UEFIExtract >/dev/null; then
	mkdir -p "$T/ux1" && cp "$T/g-vars.fd" "$T/ux1/u1"
	(cd "$T/ux1" &&
	 UEFIExtract u1 1FD530C2-B6CD-4F9F-9C7E-75A6A43EFE2B -o krn -m body -t 10 >/dev/null 2>&1
	 UEFIExtract u1 2FF050F8-93A9-411A-A4BE-DF58B51B4A18 -o ird -m body -t 19 >/dev/null 2>&1)
	check "UEFIExtract: unit 1 kernel PE32 section byte-identical" cmp -s "$T/ux1/krn/body.bin" "$T/big"
	check "UEFIExtract: unit 1 initramfs RAW section byte-identical" cmp -s "$T/ux1/ird/body.bin" "$T/initrd"
fi
mk "$T/g16.rom" --size 16M --kernel "$T/big" --initrd "$T/initrd" >"$T/g16.out" 2>&1
check "--size 16M: unit 0 + unit 1 = 16 MiB" \
	[ $(( $(stat -c %s "$T/g16.rom") + $(stat -c %s "$T/g16-vars.fd" 2>/dev/null || echo 0) )) -eq $((16 << 20)) ]
check "--size 16M: report names QEMU's max-fw-size" grep -q 'max-fw-size=16M' "$T/g16.out"
mk "$T/b16.rom" --size 16M --kernel "$T/big" --initrd "$T/initrd" >/dev/null 2>&1
check "--size 16M: reproducible (both units)" \
	bash -c "cmp -s '$T/g16.rom' '$T/b16.rom' && cmp -s '$T/g16-vars.fd' '$T/b16-vars.fd'"
mk "$T/s4.rom" --size 4M --kernel "$T/kernel" --initrd "$T/initrd" --cmdline "$cmdline" >/dev/null 2>&1
check "--size 4M with a small payload: the 4 MiB layout (same bytes as auto)" \
	bash -c "cmp -s '$T/s4.rom' '$T/a.rom' && cmp -s '$T/s4-vars.fd' '$VARS'"

# --- errors --------------------------------------------------------------------------
# payload too large for the largest flash
{ printf 'MZ'; head -c $((13 << 20)) /dev/urandom; } >"$T/huge"
mk "$T/huge.rom" --kernel "$T/huge" >"$T/huge.out" 2>&1
rc=$?
check "too large: exit 1" [ $rc -eq 1 ]
check "too large: 'does not fit: N bytes over' the 16 MiB flash" \
	grep -Eq 'does not fit: [0-9]+ bytes over the payload volume of the 16 MiB flash' "$T/huge.out"
check "too large: no output" bash -c "[ ! -e '$T/huge.rom' ] && [ ! -e '$T/huge-vars.fd' ]"
for bad in 17M 3.5M 0 4K auto16; do
	"$LBOOT" mkrom --dxe "$DXE" --size $bad -o "$T/x.rom" >"$T/x.out" 2>&1
	check "--size $bad: exit 2" [ $? -eq 2 ]
done
mk "$T/x.rom" --size 2M --kernel "$T/kernel" >"$T/x.out" 2>&1
check "--size 2M (below the base): exit 1 saying so" bash -c "[ $? -eq 1 ] && grep -q 'smaller than' '$T/x.out'"
if [ -f /usr/share/ovmf/OVMF.fd ]; then
	mk "$T/x.rom" --base /usr/share/ovmf/OVMF.fd --size 8M --kernel "$T/kernel" >"$T/x.out" 2>&1
	check "combined OVMF.fd with --size 8M: exit 1 naming the variable store" \
		bash -c "[ $? -eq 1 ] && grep -q 'carries its own variable store' '$T/x.out'"
fi

printf '# BdsDxe must go\n6D33944A-EC75-4855-A54D-809C75241F6C # BdsDxe\n' >"$T/keep-bds"
"$LBOOT" mkrom --keep "$T/keep-bds" --dxe "$DXE" -o "$T/x.rom" >"$T/x.out" 2>&1
rc=$?
check "keep list with BdsDxe: exit 1 naming it" bash -c "[ $rc -eq 1 ] && grep -q BdsDxe '$T/x.out'"
printf '80CF7257-87AB-47F9-A3FE-D50B76D89541\nnot-a-guid\n' >"$T/keep-bad"
"$LBOOT" mkrom --keep "$T/keep-bad" --dxe "$DXE" -o "$T/x.rom" >"$T/x.out" 2>&1
rc=$?
check "bad keep list: exit 1 naming line 2" bash -c "[ $rc -eq 1 ] && grep -q 'line 2' '$T/x.out'"
"$LBOOT" mkrom --dxe "$T/initrd" -o "$T/x.rom" >"$T/x.out" 2>&1
check "non-PE driver: exit 1" [ $? -eq 1 ]
"$LBOOT" mkrom --base "$T/initrd" --dxe "$DXE" -o "$T/x.rom" >"$T/x.out" 2>&1
check "non-UEFI base: exit 1" [ $? -eq 1 ]
cp "$BASE" "$T/base.fd"
sum=$(sha256sum <"$T/base.fd")
"$LBOOT" mkrom --base "$T/base.fd" --vars "$VARS" --dxe "$DXE" -o "$T/base.fd" >"$T/x.out" 2>&1
rc=$?
check "output = input: exit 1" [ $rc -eq 1 ]
check "output = input: input untouched" [ "$(sha256sum <"$T/base.fd")" = "$sum" ]
check "missing -o: exit 2" bash -c "'$LBOOT' mkrom --dxe '$DXE' >/dev/null 2>&1; [ \$? -eq 2 ]"
check "unknown option: exit 2" bash -c "'$LBOOT' mkrom --bogus -o x >/dev/null 2>&1; [ \$? -eq 2 ]"
check "--help: exit 0 with usage" bash -c "'$LBOOT' mkrom --help | grep -q '^usage: lboot mkrom'"
check "no stray x.rom" [ ! -e "$T/x.rom" ]
