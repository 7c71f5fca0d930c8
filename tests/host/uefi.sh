#!/bin/bash
# lboot uefi vs UEFIExtract (Debian uefitool-cli) on Debian's OVMF images:
# same volumes, files (GUIDs, sizes, UI names), sections and free space;
# no-edit rewrite byte-identical; --remove/--keep/--insert/--insert-pe/
# --replace results parsed by UEFIExtract with the expected tree; error cases.
cd "$(dirname "$0")/../.." || exit 1
L=$PWD/out/lboot
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

ok() { echo "ok $1"; }
nok() { echo "not ok $1"; }
skip() { echo "skip $1: $2"; } # NAME REASON: could not run here, never a pass
check() { # name cond-cmd...
	local n=$1; shift
	if "$@"; then ok "$n"; else nok "$n"; fi
}

if ! [ -x "$L" ]; then nok "uefi: out/lboot missing"; exit 1; fi
if ! command -v UEFIExtract >/dev/null; then
	echo "# UEFIExtract missing (apt-get install uefitool-cli)"; nok "uefi: UEFIExtract"; exit 1
fi

cat >"$T/cmp.py" <<'EOF'
# usage: cmp.py LS.json UEFIEXTRACT_REPORT.txt  -> prints mismatches, exit 1 if any
import json, re, sys

def ours(path):
    root = json.load(open(path))
    out = []
    def walk(n, in_nvram):
        k = n["kind"]
        if k == "region":
            out.append(("region", n["type"], n["size"]))
        elif k == "volume":
            out.append(("volume", n["guid"], n["size"]))
        elif k == "file":
            if n["type"] == "PAD":
                out.append(("pad", None, n["size"]))
            else:
                out.append(("file", n["guid"], n["size"], n["name"] or ""))
        elif k == "section":
            out.append(("section", None, n["size"]))
        elif k == "free":
            out.append(("free", None, n["size"]))
        for c in n["children"]:
            walk(c, in_nvram or (k == "volume" and n["type"].startswith("NVRAM")))
    walk(root, False)
    return out

def theirs(path):
    out = []
    skip_depth = None
    lines = open(path, errors="replace").read().splitlines()[1:]
    for ln in lines:
        cols = [c.strip() for c in ln.split("|")]
        if len(cols) < 6:
            continue
        typ, sub, base, size, crc, name = cols[:6]
        ui = cols[6] if len(cols) > 6 else ""
        m = re.match(r"^(-*)\s*(.*)$", name)
        depth, text = len(m.group(1)), m.group(2)
        if skip_depth is not None:
            if depth > skip_depth:
                continue
            skip_depth = None
        size = int(size, 16)
        if typ == "Region":
            out.append(("region", sub.upper(), size))
        elif typ == "Volume":
            out.append(("volume", text.upper(), size))
            if sub == "NVRAM":
                skip_depth = depth
        elif typ == "File":
            if sub == "Pad":
                out.append(("pad", None, size))
            else:
                out.append(("file", text.upper(), size, ui))
        elif typ == "Section":
            out.append(("section", None, size))
        elif typ == "Free space" and text == "Volume free space":
            out.append(("free", None, size))
    return out

# names UEFIExtract gives well-known files that have no UI section
ALIASES = {"PEI apriori file", "DXE apriori file", "Volume Top File"}
a, b = ours(sys.argv[1]), theirs(sys.argv[2])
for i, (x, y) in enumerate(zip(a, b)):
    if x[0] == y[0] == "file" and x[3] == "" and y[3] in ALIASES:
        b[i] = y[:3] + ("",)
bad = 0
for i in range(max(len(a), len(b))):
    x = a[i] if i < len(a) else None
    y = b[i] if i < len(b) else None
    if x != y:
        print("# mismatch at item %d: lboot %s, UEFIExtract %s" % (i, x, y))
        bad += 1
        if bad > 10:
            break
kinds = lambda l, k: sum(1 for e in l if e[0] == k)
print("# %d volumes, %d files, %d pad files, %d sections, %d free (lboot); UEFIExtract %d/%d/%d/%d/%d"
      % tuple([kinds(a, k) for k in ("volume", "file", "pad", "section", "free")] +
              [kinds(b, k) for k in ("volume", "file", "pad", "section", "free")]))
sys.exit(1 if bad else 0)
EOF

# compare NAME IMAGE: lboot ls --json vs UEFIExtract report of a copy
compare() {
	local name=$1 img=$2 d
	d=$(mktemp -d "$T/cmp.XXXX")
	cp "$img" "$d/img.fd"
	if ! (cd "$d" && UEFIExtract img.fd report >ux.log 2>&1) || ! [ -s "$d/img.fd.report.txt" ]; then
		echo "# UEFIExtract failed on $img"; nok "$name"; return
	fi
	if ! "$L" uefi ls --json "$img" >"$d/ls.json" 2>"$d/ls.err"; then
		sed 's/^/# /' "$d/ls.err"; nok "$name"; return
	fi
	if python3 "$T/cmp.py" "$d/ls.json" "$d/img.fd.report.txt"; then ok "$name"; else nok "$name"; fi
}

# UEFIExtract's report of IMAGE into $T/last.report
ux_report() {
	local d
	d=$(mktemp -d "$T/ux.XXXX")
	cp "$1" "$d/img.fd"
	(cd "$d" && UEFIExtract img.fd report >ux.log 2>&1) || return 1
	cp "$d/img.fd.report.txt" "$T/last.report"
	cp "$d/ux.log" "$T/last.log"
}

CODE=/usr/share/OVMF/OVMF_CODE_4M.fd
IMGS=()
for f in "$CODE" /usr/share/ovmf/OVMF.fd /usr/share/OVMF/OVMF_VARS_4M.fd \
	 /usr/share/OVMF/OVMF_CODE_4M.secboot.fd /usr/share/OVMF/OVMF_CODE.fd; do
	if [ -f "$f" ]; then IMGS+=("$f"); else skip "uefi ls matches UEFIExtract: ${f##*/}" "$f not installed (apt-get install ovmf)"; fi
done
if ! [ -f "$CODE" ]; then
	echo "# $CODE missing (apt-get install ovmf)"; nok "uefi: OVMF images"; exit 1
fi

for f in "${IMGS[@]}"; do
	compare "uefi ls matches UEFIExtract: ${f##*/}" "$f"
done

sum0=$(sha256sum "$CODE" | cut -d' ' -f1)

# an Intel flash descriptor image: descriptor, GbE region, BIOS region = OVMF
python3 - "$CODE" "$T/desc.fd" <<'EOF'
import struct, sys
bios = open(sys.argv[1], "rb").read()
d = bytearray(b"\xff" * 0x1000)
struct.pack_into("<IIII", d, 0x10, 0x0FF0A55A, 0x00040003, 0x00100206, 0x20)
regs = {0: (0, 0xFFF), 1: (0x4000, 0x4000 + len(bios) - 1), 3: (0x1000, 0x3FFF)}
for i in range(8):
    b, l = regs.get(i, (0x7FFF000, 0))
    struct.pack_into("<I", d, 0x40 + 4 * i, (b >> 12) | ((l >> 12) << 16))
open(sys.argv[2], "wb").write(bytes(d) + bytes(range(256)) * 0x30 + bios)
EOF
compare "uefi ls matches UEFIExtract: flash descriptor image" "$T/desc.fd"
"$L" uefi edit "$T/desc.fd" --remove Shell -o "$T/desc-noshell.fd" >/dev/null 2>&1
check "uefi edit on a descriptor image keeps descriptor and GbE regions" \
	cmp -s <(head -c $((0x4000)) "$T/desc.fd") <(head -c $((0x4000)) "$T/desc-noshell.fd")
compare "uefi edit on a descriptor image: lboot ls matches UEFIExtract" "$T/desc-noshell.fd"
check "uefi edit on a descriptor image: file gone" bash -c "! '$L' uefi find '$T/desc-noshell.fd' Shell >/dev/null 2>&1"

# no-edit rewrite: byte-identical
for f in "${IMGS[@]}"; do
	rm -f "$T/same.fd"
	"$L" uefi edit "$f" -o "$T/same.fd" >/dev/null
	check "uefi edit without ops is byte-identical: ${f##*/}" cmp -s "$f" "$T/same.fd"
done

# find
check "uefi find Shell by name" bash -c "'$L' uefi find '$CODE' Shell | grep -q 7C04A583-9E3E-4F1C-AD65-E05268D0B4D1"
check "uefi find by GUID" bash -c "'$L' uefi find '$CODE' D6A2CB7F-6A18-4E2F-B43B-9920A733700A | grep -q DxeCore"
"$L" uefi find "$CODE" NoSuchDriverName >/dev/null 2>&1
check "uefi find: no match exits 1" test $? -eq 1

# extract everything: one file.ffs per FFS file of the tree, bytes as in the image
rm -rf "$T/tree"
"$L" uefi extract "$CODE" -o "$T/tree" >/dev/null 2>"$T/err.txt"
nf=$(find "$T/tree" -name file.ffs | wc -l)
nj=$("$L" uefi ls --json "$CODE" | python3 -c 'import json,sys
def c(n): return (n["kind"] == "file") + sum(c(x) for x in n["children"])
print(c(json.load(sys.stdin)))')
check "uefi extract: the whole tree ($nf of $nj files)" test "$nf" -eq "$nj" -a "$nf" -gt 100
sec=$(find "$T/tree" -maxdepth 2 -path '*763BED0D*' -name '*SecMain' | head -1)
check "uefi extract: SecMain bytes as in the image" \
	cmp -s "$sec/file.ffs" <(tail -c $((0x34000)) "$CODE" | head -c $((0x78 + $(stat -c %s "$sec/file.ffs"))) | tail -c +$((0x78 + 1)))

# --remove
SHELL_GUID=7C04A583-9E3E-4F1C-AD65-E05268D0B4D1
"$L" uefi edit "$CODE" --remove Shell -o "$T/noshell.fd" >"$T/out.txt" 2>&1
check "uefi edit --remove: reports the removal" grep -q "removed $SHELL_GUID Shell" "$T/out.txt"
if ux_report "$T/noshell.fd"; then
	check "uefi edit --remove: UEFIExtract no longer sees the file" bash -c "! grep -q $SHELL_GUID '$T/last.report'"
	check "uefi edit --remove: UEFIExtract parses the result cleanly" bash -c "! grep -qiE 'invalid|checksum|corrupt' '$T/last.report' '$T/last.log'"
	compare "uefi edit --remove: lboot ls matches UEFIExtract on the result" "$T/noshell.fd"
else
	nok "uefi edit --remove: UEFIExtract parses the result"
fi
check "uefi edit --remove: same size" test "$(stat -c %s "$T/noshell.fd")" -eq "$(stat -c %s "$CODE")"

# OVMF.fd (NVRAM store first): edit keeps the NVRAM volume byte for byte
if [ -f /usr/share/ovmf/OVMF.fd ]; then
	"$L" uefi edit /usr/share/ovmf/OVMF.fd --remove Shell -o "$T/ovmf-noshell.fd" >/dev/null 2>&1
	check "uefi edit OVMF.fd: NVRAM volume kept" \
		cmp -s <(head -c $((0x20000)) /usr/share/ovmf/OVMF.fd) <(head -c $((0x20000)) "$T/ovmf-noshell.fd")
	compare "uefi edit OVMF.fd: lboot ls matches UEFIExtract" "$T/ovmf-noshell.fd"
else
	skip "uefi edit OVMF.fd: NVRAM volume kept" "/usr/share/ovmf/OVMF.fd not installed (apt-get install ovmf)"
fi

# --keep: keep a small set of DXE drivers
cat >"$T/keep.txt" <<'EOF'
# the essentials of a LinuxBoot-style DXE phase
PcdDxe
D93CE3D8-A7EB-4730-8C8E-CC466A9ECC3C   # ReportStatusCodeRouterRuntimeDxe
RuntimeDxe
CpuDxe
EOF
"$L" uefi edit "$CODE" --keep "$T/keep.txt" -o "$T/keep.fd" >"$T/out.txt" 2>&1
check "uefi edit --keep: reports counts" grep -q "kept the 4 listed DXE files, removed" "$T/out.txt"
if ux_report "$T/keep.fd"; then
	check "uefi edit --keep: kept drivers remain" bash -c "grep -q '| PcdDxe' '$T/last.report' && grep -q '| CpuDxe' '$T/last.report' && grep -q D93CE3D8-A7EB-4730-8C8E-CC466A9ECC3C '$T/last.report'"
	check "uefi edit --keep: others are gone, DxeCore kept" bash -c "! grep -q '| Shell\$' '$T/last.report' && ! grep -q '| BdsDxe\$' '$T/last.report' && grep -q '| DxeCore' '$T/last.report'"
	compare "uefi edit --keep: lboot ls matches UEFIExtract on the result" "$T/keep.fd"
else
	nok "uefi edit --keep: UEFIExtract parses the result"
fi

# extract Shell; re-insert its FFS into the image without it; insert its PE under a new name
rm -rf "$T/x"
"$L" uefi extract "$CODE" Shell -o "$T/x" >/dev/null
check "uefi extract: FFS and PE32 body" bash -c "ls '$T/x/'*.ffs >/dev/null && ls '$T/x/'*PE32.efi >/dev/null && head -c2 '$T/x/'*PE32.efi | grep -q MZ"
FFS=$(ls "$T/x/"*.ffs | head -1)
PE=$(ls "$T/x/"*PE32.efi | head -1)
"$L" uefi edit "$T/noshell.fd" --insert "$FFS" -o "$T/reins.fd" >/dev/null 2>"$T/err.txt"
if ux_report "$T/reins.fd"; then
	check "uefi edit --insert: UEFIExtract sees the file again" grep -q "$SHELL_GUID | Shell" "$T/last.report"
	compare "uefi edit --insert: lboot ls matches UEFIExtract" "$T/reins.fd"
else
	sed 's/^/# /' "$T/err.txt"; nok "uefi edit --insert"
fi
rm -rf "$T/y"
"$L" uefi extract "$T/reins.fd" "$SHELL_GUID" -o "$T/y" >/dev/null
check "uefi edit --insert: file bytes round-trip" cmp -s "$FFS" "$(ls "$T/y/"*.ffs | head -1)"

NEWG=11111111-2222-4333-8444-555555555555
"$L" uefi edit "$CODE" --insert-pe "$PE" --name LbootTest --guid $NEWG --type application --depex TRUE \
	-o "$T/ins.fd" >"$T/out.txt" 2>&1
if ux_report "$T/ins.fd"; then
	check "uefi edit --insert-pe: UEFIExtract sees the new file" grep -q "$NEWG | LbootTest" "$T/last.report"
	compare "uefi edit --insert-pe: lboot ls matches UEFIExtract" "$T/ins.fd"
else
	sed 's/^/# /' "$T/out.txt"; nok "uefi edit --insert-pe"
fi
rm -rf "$T/z"
"$L" uefi extract "$T/ins.fd" LbootTest -o "$T/z" >/dev/null
check "uefi edit --insert-pe: PE32 body round-trips" cmp -s "$PE" "$(ls "$T/z/"*PE32.efi | head -1)"

# --replace: give UiApp the Shell's PE32
"$L" uefi edit "$CODE" --replace "UiApp=$PE" -o "$T/repl.fd" >/dev/null 2>&1
rm -rf "$T/r"
"$L" uefi extract "$T/repl.fd" UiApp -o "$T/r" >/dev/null
check "uefi edit --replace: new PE32 body" cmp -s "$PE" "$(ls "$T/r/"*PE32.efi | head -1)"
if ux_report "$T/repl.fd"; then
	compare "uefi edit --replace: lboot ls matches UEFIExtract" "$T/repl.fd"
else
	nok "uefi edit --replace: UEFIExtract parses the result"
fi

# LZMA-F86 (x86 BCJ + LZMA): decoding and re-encoding agree with UEFIExtract
F86=fuzz/corpus/uefi/synthetic-f86
if [ -f "$F86" ]; then
	mkdir -p "$T/f86" && cp "$F86" "$T/f86/in.bin"
	python3 -c 'import sys; sys.stdout.buffer.write(b"MZ" + bytes([0xE8, 0x40, 0, 0, 0, 0x90, 0xE9, 0xF0, 0xFF, 0xFF, 0xFF]) * 300)' >"$T/f86/new.efi"
	"$L" uefi edit "$T/f86/in.bin" --replace "F86=$T/f86/new.efi" -o "$T/f86/out.bin" >/dev/null 2>&1
	(cd "$T/f86" && UEFIExtract out.bin >/dev/null 2>&1)
	body=$(find "$T/f86/out.bin.dump" -path '*PE32 image section*' -name body.bin | head -1)
	check "uefi LZMA-F86 re-encoded: UEFIExtract decodes our PE32" cmp -s "$body" "$T/f86/new.efi"
	"$L" uefi extract "$T/f86/out.bin" F86 -o "$T/f86/x" >/dev/null 2>&1
	check "uefi LZMA-F86: lboot decodes the same" cmp -s "$(ls "$T/f86/x/"*PE32.efi | head -1)" "$T/f86/new.efi"
else
	nok "uefi LZMA-F86: $F86 missing from the tree"
fi

# errors: does not fit (random data does not compress)
head -c $((4 << 20)) /dev/urandom >"$T/big.efi"
"$L" uefi edit "$CODE" --insert-pe "$T/big.efi" --name Big --guid $NEWG -o "$T/big.fd" >/dev/null 2>"$T/err.txt"
rc=$?
check "uefi edit: huge insert fails with 'does not fit: N bytes over'" \
	bash -c "[ $rc -eq 1 ] && grep -qE 'does not fit: [0-9]+ bytes over' '$T/err.txt' && ! [ -e '$T/big.fd' ]"
head -c $((300 << 10)) /dev/urandom >"$T/mid.efi"
"$L" uefi edit "$CODE" --insert-pe "$T/mid.efi" --name Mid --guid $NEWG --into 763BED0D-DE9F-48F5-81F1-3E90E1B1A015 \
	-o "$T/mid.fd" >/dev/null 2>"$T/err.txt"
check "uefi edit: insert into the fixed SEC volume: does not fit" \
	bash -c "grep -qE '763BED0D-DE9F-48F5-81F1-3E90E1B1A015: does not fit: [0-9]+ bytes over' '$T/err.txt'"
"$L" uefi edit "$CODE" --remove PcdPeim -o "$T/pei.fd" >/dev/null 2>"$T/err.txt"
rc=$?
check "uefi edit: moving execute-in-place PEIMs is refused" \
	bash -c "[ $rc -eq 1 ] && grep -q 'execute-in-place file .* would move from' '$T/err.txt' && ! [ -e '$T/pei.fd' ]"
"$L" uefi edit "$CODE" --remove PcdPeim --allow-xip-move -o "$T/pei.fd" >/dev/null 2>&1
check "uefi edit --allow-xip-move: PEIM removed" bash -c "[ -s '$T/pei.fd' ] && ! '$L' uefi find '$T/pei.fd' PcdPeim >/dev/null 2>&1"
head -c 1000000 "$CODE" >"$T/trunc.fd"
"$L" uefi ls "$T/trunc.fd" >/dev/null 2>"$T/err.txt"
rc=$?
check "uefi ls: truncated image is an error" bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$T/err.txt') -eq 1 ] && grep -q 'trunc.fd: volume at 0x0: length 0x348000 exceeds' '$T/err.txt'"
sed 's/^/# /' "$T/err.txt"
cp "$CODE" "$T/corrupt.fd"
# flip a byte in the SecMain FFS header's name (SEC volume at the end, file at +0x78)
off=$(( $(stat -c %s "$CODE") - 0x34000 + 0x79 ))
printf '\x5a' | dd of="$T/corrupt.fd" bs=1 seek=$off conv=notrunc status=none
"$L" uefi ls "$T/corrupt.fd" >/dev/null 2>"$T/err.txt"
rc=$?
check "uefi ls: corrupt checksum is an error" bash -c "[ $rc -eq 1 ] && grep -q 'checksum mismatch' '$T/err.txt'"
sed 's/^/# /' "$T/err.txt"
"$L" uefi ls --lenient "$T/corrupt.fd" >/dev/null 2>&1
check "uefi ls --lenient accepts it" test $? -eq 0
cp "$CODE" "$T/in.fd"
"$L" uefi edit "$T/in.fd" --remove Shell -o "$T/in.fd" >/dev/null 2>&1
rc=$?
check "uefi edit refuses OUT == IMAGE" bash -c "[ $rc -eq 2 ] && cmp -s '$CODE' '$T/in.fd'"
"$L" uefi edit "$CODE" --remove NoSuchThing -o "$T/none.fd" >/dev/null 2>&1
check "uefi edit --remove of a missing file fails" bash -c "[ $? -ne 0 ] && ! [ -e '$T/none.fd' ]"
"$L" uefi >/dev/null 2>&1
check "uefi without arguments: usage, exit 2" test $? -eq 2
check "uefi never modified its input" test "$(sha256sum "$CODE" | cut -d' ' -f1)" = "$sum0"
exit 0
