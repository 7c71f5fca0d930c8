#!/bin/bash
# lboot update and lboot flash on a flash image file (the same code as on
# /dev/mtdN, without the erase ioctl): update images signed with Debian's
# minisign, every refusal (tampered, another key, a boot key, a revoked key,
# no signature, an older version, another flash size, another firmware,
# another layout) leaves the flash byte-identical; an accepted update writes
# only the erase blocks that differ and keeps the variable store; a write
# that fails half-way is finished by applying again.
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

for f in out/lboot out/lboot.rom out/lboot-vars.fd; do
	[ -f "$f" ] || { nok "update: $f missing (make all)"; exit 1; }
done
command -v minisign >/dev/null || { nok "update: minisign missing (scripts/deps.sh)"; exit 1; }
cd "$T" || exit 1

# the updatable flash: pflash unit 1 and unit 0 of the 16 MiB ROM as one
# 16 MiB image (docs/firmware-update.md)
cat "$ROOT/out/lboot-vars.fd" "$ROOT/out/lboot.rom" >v1.rom
check "update: the 16 MiB updatable image is 16 MiB" [ "$(stat -c %s v1.rom)" = 16777216 ]
# v2: the same firmware with other payload bytes (blocks 0x10000, 0x12000, 0x300000)
cp v1.rom v2.rom
printf 'lboot update test v2 %0500d' 0 | dd of=v2.rom bs=1 seek=$((0x10000)) conv=notrunc status=none
printf 'x' | dd of=v2.rom bs=1 seek=$((0x12345)) conv=notrunc status=none
printf 'y' | dd of=v2.rom bs=1 seek=$((0x300000)) conv=notrunc status=none
for k in upd other boot revoked; do
	minisign -G -W -p $k.pub -s $k.key >/dev/null || { nok "update: minisign -G"; exit 1; }
done
mkdir -p root/etc/lboot/update root/etc/lboot/trust root/etc/lboot/revoked
printf 'verify off\nfirmware-version 5\n' >root/etc/lboot/policy
cp upd.pub root/etc/lboot/update/upd.pub
cp revoked.pub root/etc/lboot/update/revoked.pub
cp revoked.pub root/etc/lboot/revoked/revoked.pub
cp boot.pub root/etc/lboot/trust/boot.pub
sign() { minisign -S -s "$2.key" -m "$1" -t "lboot update test" >/dev/null; }

"$L" update image --version 6 --label "lboot test v2" -o v2.lbu v2.rom 2>img.err
check "update: image writes the header and the ROM" [ "$(stat -c %s v2.lbu)" = $((4096 + 16777216)) ]
check "update: image says version and firmware" grep -q "version 6, 16777216 bytes of uefi firmware" img.err
sign v2.lbu upd

# the running flash, with variables the OS wrote since (in the store)
cp v1.rom flash.rom
printf 'live variables' | dd of=flash.rom bs=1 seek=$((0xC00000 + 0x2000)) conv=notrunc status=none
cp flash.rom flash.orig
refused() { # name file [sig] [root]: refused with the reason, flash unchanged
	local n=$1 f=$2 s=${3:-} r=${4:-root}
	"$L" update --flash flash.rom --root "$r" apply "$f" $s >out.txt 2>err.txt
	local rc=$?
	check "update: $n: refused (exit 1)" [ $rc = 1 ]
	check "update: $n: one line naming why" grep -q "refused: $5" err.txt
	[ "$(wc -l <err.txt)" = 1 ] || { sed 's/^/# /' err.txt; nok "update: $n: exactly one line"; }
	check "update: $n: the flash is byte-identical" cmp -s flash.rom flash.orig
}
# tampered after signing (one byte of the image)
cp v2.lbu bad.lbu; cp v2.lbu.minisig bad.lbu.minisig
printf 'Y' | dd of=bad.lbu bs=1 seek=$((4096 + 0x200000)) conv=notrunc status=none
refused "a tampered image" bad.lbu "" root "the signature (key [0-9A-F]*): bad signature"
# the header's version changed after signing
cp v2.lbu bad.lbu; printf '\x09' | dd of=bad.lbu bs=1 seek=16 conv=notrunc status=none
refused "a version changed after signing" bad.lbu "" root "the signature .*bad signature"
cp v2.lbu other.lbu; sign other.lbu other
refused "another key" other.lbu "" root "the signature (key [0-9A-F]*): .*"
cp v2.lbu boot.lbu; sign boot.lbu boot
refused "a boot key (trust/, not update/)" boot.lbu "" root "the signature .*"
cp v2.lbu rev.lbu; sign rev.lbu revoked
refused "a revoked key" rev.lbu "" root "the signature .*revoked"
cp v2.lbu nosig.lbu
refused "no signature" nosig.lbu "" root "no signature"
"$L" update image --version 4 -o old.lbu v2.rom 2>/dev/null; sign old.lbu upd
refused "an older version" old.lbu "" root "version 4 is older than the running firmware's 5 (no downgrade)"
head -c 8388608 v2.rom >small.rom
# an 8 MiB image has no UEFI volume ending at its end: cut from the top instead
tail -c 8388608 v2.rom >small.rom
"$L" update image --version 6 -o small.lbu small.rom 2>/dev/null; sign small.lbu upd
refused "another flash size" small.lbu "" root "an image for a flash of 8388608 bytes; this flash has 16777216"
# coreboot's ROM (built by make from its cached build: host tests run
# before the e2e scenarios build it)
CB=$ROOT/build/coreboot/q35.rom
if make -s -C "$ROOT" build/coreboot/q35.rom >cb.log 2>&1 && [ -f "$CB" ]; then
	"$L" update image --version 6 -o cb.lbu "$CB" 2>/dev/null; sign cb.lbu upd
	refused "coreboot firmware onto a UEFI flash" cb.lbu "" root "the image holds coreboot firmware, the flash uefi"
else
	sed 's/^/# /' cb.log | tail -5; nok "update: build/coreboot/q35.rom (make build/coreboot/q35.rom)"
fi
# another layout: the variable store one block lower
python3 - v2.rom moved.rom <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
s = 0xC00000
store = d[s:s + 0x84000]
d[s:s + 0x84000] = b'\xff' * 0x84000
d[s - 0x1000:s - 0x1000 + 0x84000] = store
open(sys.argv[2], 'wb').write(d)
EOF
"$L" update image --version 6 -o moved.lbu moved.rom 2>/dev/null; sign moved.lbu upd
refused "another layout (the store moved)" moved.lbu "" root "another layout: the variable store is at 0xbff000+0x84000 in the image, 0xc00000+0x84000 in the flash"
# a policy without update keys, and an invalid policy
mkdir -p nokeys/etc/lboot/trust; cp boot.pub nokeys/etc/lboot/trust/; printf 'firmware-version 1\n' >nokeys/etc/lboot/policy
refused "no update key in the policy" v2.lbu "" nokeys "the running firmware trusts no update key"
mkdir -p badpol/etc/lboot/update; cp upd.pub badpol/etc/lboot/update/; printf 'firmware-version x\n' >badpol/etc/lboot/policy
refused "an invalid policy" v2.lbu "" badpol "the firmware's policy is invalid: .*firmware-version 'x'"
printf 'not a key\n' >badpol2.pub
mkdir -p badpol2/etc/lboot/update; cp upd.pub badpol2/etc/lboot/update/; cp badpol2.pub badpol2/etc/lboot/update/
printf 'firmware-version 1\n' >badpol2/etc/lboot/policy
refused "a policy with a broken update key" v2.lbu "" badpol2 "the firmware's policy is invalid: .*not a minisign"

# check, then apply
"$L" update --flash flash.rom --root root check v2.lbu >out.txt 2>&1
check "update: check accepts the signed newer image" grep -q "version 6 (lboot test v2) may be written to flash.rom (running version 5)" out.txt
check "update: check wrote nothing" cmp -s flash.rom flash.orig
"$L" update --flash flash.rom --root root --json check v2.lbu >j.txt 2>&1
check "update: check --json" python3 -c 'import json,sys; j=json.load(open("j.txt")); sys.exit(0 if j["ok"] and j["version"]==6 and j["running"]==5 and len(j["sha256"])==64 else 1)'
# a write that fails at the second block written stops there with one line
LBOOT_TEST_FLASH_FAIL=2 "$L" update --flash flash.rom --root root apply v2.lbu >out.txt 2>err.txt
check "update: a failing block write: exit 1, the block named" grep -q "refused: flash.rom: writing the block at 0x12000: Input/output error" err.txt
# blocks that differ between v1 and v2 outside the store (python as the oracle)
want=$(python3 - flash.orig v2.rom <<'EOF'
import sys
a = open(sys.argv[1], 'rb').read(); b = open(sys.argv[2], 'rb').read()
print(sum(1 for o in range(0, len(a), 4096) if not (0xC00000 <= o < 0xC84000) and a[o:o+4096] != b[o:o+4096]))
EOF
)
"$L" update --flash flash.rom --root root apply v2.lbu >out.txt 2>err.txt
check "apply: a whole-flash update says what a power cut would do, before it writes" grep -q "warning: a whole-flash update rewrites SEC, PEI and DXE in place: a power cut" err.txt
check "update: applying again finishes the update" grep -q "version 6 (lboot test v2) written to flash.rom" out.txt
check "update: it wrote the $((want - 1)) blocks the failed run left ($want differ in all)" grep -q ": $((want - 1)) of 4096 erase blocks differed" out.txt
check "update: the oracle counts 3 differing blocks" [ "$want" = 3 ]
check "update: progress on stderr" grep -q "writing 100%" err.txt
python3 - flash.rom v2.rom flash.orig <<'EOF' && ok "update: the flash is the image outside the store, and the store kept" || nok "update: the flash is the image outside the store, and the store kept"
import sys
f = open(sys.argv[1], 'rb').read(); v = open(sys.argv[2], 'rb').read(); o = open(sys.argv[3], 'rb').read()
s, e = 0xC00000, 0xC84000
sys.exit(0 if f[:s] == v[:s] and f[e:] == v[e:] and f[s:e] == o[s:e] and b'live variables' in f[s:e] else 1)
EOF
cp flash.rom flash.orig
"$L" update --flash flash.rom --root root apply v2.lbu >out.txt 2>&1
check "update: the same image again: nothing differs, nothing written" grep -q ": 0 of 4096 erase blocks differed" out.txt
check "update: ... and the flash is unchanged" cmp -s flash.rom flash.orig

# lboot flash on the file
"$L" flash --flash flash.rom --json info >j.txt
check "flash: info --json" python3 -c 'import json,sys; j=json.load(open("j.txt")); sys.exit(0 if j["size"]==16777216 and j["erasesize"]==4096 and j["firmware"]=="uefi" and not j["mtd"] else 1)'
"$L" flash --flash "$CB" info 2>/dev/null | grep -q "coreboot firmware" &&
	ok "flash: info tells coreboot firmware" || nok "flash: info tells coreboot firmware"
"$L" flash --flash flash.rom read copy.rom
check "flash: read is the flash" cmp -s copy.rom flash.rom
"$L" flash --flash flash.rom verify copy.rom >/dev/null
check "flash: verify equal: exit 0" [ $? = 0 ]
"$L" flash --flash flash.rom verify v1.rom >out.txt
rc=$?
check "flash: verify different: exit 1 and the first offset" [ $rc = 1 ]
check "flash: verify names offset 0x10000" grep -q "from offset 0x10000" out.txt
"$L" flash --flash flash.rom --root root write v1.rom 2>err.txt
rc=$?
check "flash: raw write refused when the policy has update keys" [ $rc = 1 ]
check "flash: ... saying to use lboot update" grep -q "use \`lboot update apply\` with a signed image" err.txt
check "flash: ... and the flash is unchanged" cmp -s flash.rom flash.orig
mkdir -p dev/etc
"$L" flash --flash flash.rom --root dev write v1.rom >out.txt 2>&1
check "flash: raw write without update keys writes the differing blocks" grep -q "erase blocks differed and were written" out.txt
check "flash: ... and the flash is v1 now" cmp -s flash.rom v1.rom
"$L" flash --flash flash.rom verify small.rom >/dev/null 2>err.txt
check "flash: verify of another size: exit 1 with one line" grep -q "8388608 bytes, the flash flash.rom has 16777216" err.txt

# mkinitramfs writes the update policy
"$L" mkinitramfs -o i.cpio --compress none --update-key upd.pub --firmware-version 7 \
	--update-floor-nv 0x01500001 >/dev/null 2>&1
mkdir x && (cd x && cpio -id --quiet <../i.cpio)
check "mkinitramfs: --update-key as /etc/lboot/update/KEYID.pub" [ "$(ls x/etc/lboot/update | wc -l)" = 1 ]
check "mkinitramfs: firmware-version and update-floor-nv in the policy" \
	grep -qx "firmware-version 7" x/etc/lboot/policy
check "mkinitramfs: update-floor-nv line" grep -qx "update-floor-nv 0x01500001" x/etc/lboot/policy
check "mkinitramfs: update keys do not make boot verification enforce" grep -qx "verify off" x/etc/lboot/policy
"$L" mkinitramfs -o j.cpio --firmware-version -1 >/dev/null 2>err.txt
check "mkinitramfs: --firmware-version -1: usage error" [ $? = 2 ]
exit 0
