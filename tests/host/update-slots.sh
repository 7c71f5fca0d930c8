#!/bin/bash
# Payload slots (A/B; docs/firmware-update.md) on flash image files, with
# Debian's minisign: mkrom --slots lays out slot A (the payload) and slot B
# (erased); `lboot update image --slot` makes a payload update; applied with
# slot A running it writes slot B only (the rest of the flash byte for
# byte the same), with B running it writes A; a write that fails at any
# block (first, middle, the header written last) leaves the other slot
# untouched and the half-written slot not checking, so lbootdxe takes the
# old one; applying again finishes it. Refused with one line and the flash
# unchanged: no running slot, another layout, older, a slot that does not
# check. lbootdxe's own choice is tests/e2e/fw-slots.sh.
cd "$(dirname "$0")/../.." || exit 1
L=$PWD/out/lboot
ROOT=$PWD
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

ok() { echo "ok $1"; }
nok() { echo "not ok $1"; }
check() { # name cond-cmd...
	local n=$1; shift
	if "$@"; then ok "$n"; else nok "$n"; fi
}
for f in out/lboot out/bzImage out/initramfs.cpio.xz build/dxe/lbootdxe.efi; do
	[ -f "$f" ] || { nok "update-slots: $f missing (make all)"; exit 1; }
done
command -v minisign >/dev/null || { nok "update-slots: minisign missing (scripts/deps.sh)"; exit 1; }
cd "$T" || exit 1

rom() { # V INITRD OUT.img [mkrom args]: a 16 MiB slots flash image, payload version V
	local v=$1 i=$2 o=$3; shift 3
	"$L" mkrom --keep "$ROOT/rom/keep-ovmf.txt" --dxe "$ROOT/build/dxe/lbootdxe.efi" \
		--kernel "$ROOT/out/bzImage" --initrd "$i" --size 16M "$@" \
		--vars-out "r$v-vars.fd" -o "r$v.rom" >"mkrom-$v.log" 2>&1 || { sed 's/^/# /' "mkrom-$v.log"; return 1; }
	cat "r$v-vars.fd" "r$v.rom" >"$o"
}
cp "$ROOT/out/initramfs.cpio.xz" i1
{ cat i1; head -c 300000 /dev/urandom; } >i2 # another initramfs, longer
{ cat i1; head -c 1000 /dev/urandom; } >i3
rom 1 i1 v1.img --slots --payload-version 1 --payload-label "lboot test v1" &&
	rom 2 i2 v2.img --slots --payload-version 2 --payload-label "lboot test v2" &&
	rom 3 i3 v3.img --slots --payload-version 3 --payload-label "lboot test v3" &&
	rom 0 i3 v0.img --slots --payload-version 0 &&
	rom 9 i1 plain.img || { nok "update-slots: mkrom"; exit 1; }
check "mkrom --slots: the report names slot A's version, B erased" \
	grep -q "in slot A (version 1).*two slots of 6291456 bytes at 0x600000 (A) and 0x0 (B, erased)" mkrom-1.log
check "mkrom --slots: the ROM is 16 MiB" [ "$(stat -c %s v1.img)" = 16777216 ]
"$L" flash --flash v1.img info >info.txt
check "flash info: slot A version 1 checks" grep -q "payload slot A at 0x600000 (6291456 bytes): version 1 (lboot test v1), digest ok" info.txt
check "flash info: slot B empty" grep -q "payload slot B at 0x0 (6291456 bytes): empty" info.txt
"$L" flash --flash plain.img --json info >info.json
check "flash info --json: a ROM without slots: slots null" grep -q '"slots":null' info.json
"$L" mkrom --keep "$ROOT/rom/keep-ovmf.txt" --dxe "$ROOT/build/dxe/lbootdxe.efi" --kernel "$ROOT/out/bzImage" \
	--initrd i1 --size 8M --slots -o small.rom >small.log 2>&1
check "mkrom --slots: a payload larger than a slot is refused with one line" \
	grep -q "do not fit a payload slot of the 8 MiB flash (two slots of" small.log
check "mkrom --slots: ... and writes nothing" [ ! -e small.rom ]

minisign -G -W -p upd.pub -s upd.key >/dev/null && minisign -G -W -p other.pub -s other.key >/dev/null ||
	{ nok "update-slots: minisign -G"; exit 1; }
mkdir -p root/etc/lboot/update
printf 'verify off\nfirmware-version 1\n' >root/etc/lboot/policy
cp upd.pub root/etc/lboot/update/upd.pub
sign() { minisign -S -s "${2:-upd}.key" -m "$1" -t "lboot slot test" >/dev/null; }
for v in 0 2 3; do
	"$L" update image --slot --label "lboot test v$v" -o "v$v.lbu" "v$v.img" 2>"img-$v.err" && sign "v$v.lbu" ||
		{ sed 's/^/# /' "img-$v.err"; nok "update-slots: update image --slot v$v"; exit 1; }
done
check "update image --slot: header and one slot" [ "$(stat -c %s v2.lbu)" = $((4096 + 6291456)) ]
check "update image --slot: says the slot and version" grep -q "the payload slot at 0x600000 (version 2, lboot test v2" img-2.err
"$L" update image --slot --version 5 -o bad.lbu v2.img 2>err.txt
check "update image --slot --version other than the slot's: refused" grep -q "the slot's version is 2" err.txt
"$L" update image --slot -o bad.lbu plain.img 2>err.txt
check "update image --slot on a ROM without slots: refused" grep -q "no payload slot that checks" err.txt

# the running flash: v1 (slot A), with live variables in the store
cp v1.img flash.img
printf 'live variables' | dd of=flash.img bs=1 seek=$((0xC00000 + 0x2000)) conv=notrunc status=none
cp flash.img flash.orig
refused() { # name file reason-regex [args]
	local n=$1 f=$2 re=$3; shift 3
	"$L" update --flash flash.img --root root "$@" apply "$f" >out.txt 2>err.txt
	local rc=$?
	check "refused ($n): exit 1" [ $rc = 1 ]
	grep -qE "refused: $re" err.txt && ok "refused ($n): one line with the reason" ||
		{ sed "s/^/# /" err.txt; nok "refused ($n): one line with the reason"; }
	check "refused ($n): the flash is byte-identical" cmp -s flash.img flash.orig
}
refused "no running slot" v2.lbu "a payload slot update, but the running firmware did not start from a payload slot"
refused "older" v0.lbu "version 0 is older than the running firmware's 1" --slot A
cp flash.img keep.img; cp plain.img flash.img; cp plain.img flash.orig
refused "another layout" v2.lbu "another layout: slot A, running, is not where" --slot A
cp keep.img flash.img; cp keep.img flash.orig
cp v2.lbu other.lbu; sign other.lbu other
refused "another key" other.lbu "the signature \(key [0-9A-F]+\)" --slot A

"$L" update --flash flash.img --root root --slot A check v2.lbu >out.txt 2>&1
check "check: v2 may be written to slot B (A running)" grep -q "may be written to payload slot B of flash.img (running version 1 in slot A)" out.txt
"$L" update --flash flash.img --root root --slot A --json check v2.lbu >out.json
check "check --json: the slot" grep -q '"slot":"B"' out.json
"$L" update --flash flash.img --root root --slot A apply v2.lbu >out.txt 2>err.txt
check "apply: v2 written to slot B" grep -q "written to payload slot B of flash.img" out.txt
check "apply: progress over the slot" grep -q "lboot update: writing 100%" err.txt
written=$(sed -n 's/.*: \([0-9]*\) of 1536 erase blocks differed.*/\1/p' out.txt)
check "apply: only slot B's blocks (1536 compared, $written written)" [ -n "$written" ]
python3 - flash.img flash.orig v2.img <<'PY'
import sys
a, o, v = (open(p, 'rb').read() for p in sys.argv[1:])
S = 0x600000
# slot B (0..S) is v2's slot A; everything else as it was (store included)
sys.exit(0 if a[:S] == v[S:2 * S] and a[S:] == o[S:] else 1)
PY
check "apply: slot B is v2's slot, every other byte (slot A, store, code) unchanged" [ $? = 0 ]
"$L" flash --flash flash.img info >info.txt
check "flash info: A version 1 and B version 2 both check" \
	[ "$(grep -c 'digest ok' info.txt)" = 2 ]
"$L" update --flash flash.img --root root --slot A apply v2.lbu >out.txt 2>err.txt
check "apply again (A running): nothing differs" grep -q ": 0 of 1536 erase blocks differed" out.txt
# B running (after the restart): v3 goes to A
cp flash.img afterb.img
"$L" update --flash flash.img --root root --slot B apply v3.lbu >out.txt 2>err.txt
check "apply with B running: v3 written to slot A" grep -q "written to payload slot A of flash.img" out.txt
python3 - flash.img afterb.img v3.img <<'PY'
import sys
a, o, v = (open(p, 'rb').read() for p in sys.argv[1:])
S = 0x600000
sys.exit(0 if a[S:2 * S] == v[S:2 * S] and a[:S] == o[:S] and a[2 * S:] == o[2 * S:] else 1)
PY
check "apply with B running: slot B (running) and the rest unchanged" [ $? = 0 ]

# interrupted: the k-th block written fails (a power cut there); slot A
# (running) stays as it was, slot B does not check, lbootdxe takes A
n=$written # pass 1 writes all but the header (erased already: slot B was empty), pass 2 the header
for k in 1 2 $((n / 2)) $((n - 1)) $n; do
	cp flash.orig flash.img
	LBOOT_TEST_FLASH_FAIL=$k "$L" update --flash flash.img --root root --slot A apply v2.lbu >out.txt 2>err.txt
	rc=$?
	"$L" flash --flash flash.img --json info >info.json
	check "interrupted at block $k of $n: apply fails (exit 1)" [ $rc = 1 ]
	check "interrupted at block $k of $n: slot A checks, slot B does not" python3 -c '
import json, sys
s = json.load(open("info.json"))["slots"]
sys.exit(0 if s[0]["ok"] and not s[1]["ok"] else 1)'
	cmp -s <(dd if=flash.img bs=4096 skip=1536 status=none) <(dd if=flash.orig bs=4096 skip=1536 status=none)
	check "interrupted at block $k of $n: everything but slot B byte-identical" [ $? = 0 ]
done
"$L" update --flash flash.img --root root --slot A apply v2.lbu >out.txt 2>&1
"$L" flash --flash flash.img info >info.txt
check "interrupted, applied again: slot B version 2 checks" grep -q "payload slot B at 0x0 (6291456 bytes): version 2 (lboot test v2), digest ok" info.txt
exit 0
