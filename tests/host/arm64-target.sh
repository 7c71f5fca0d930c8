#!/bin/bash
# The static aarch64 lboot-target (mk/arm64.mk, docs/arm64.md): built from
# the same sources with Debian's cross gcc and arm64 musl, a static AArch64
# ELF; run under qemu-user (qemu-aarch64-static), its applets give the x86
# target's output byte for byte (stdout, stderr, exit code) on the fixture
# configs (GRUB, BLS, syslinux), iPXE scripts, signatures (libsodium,
# BearSSL), a TCG event log and a QR code; where the architecture is the
# point (BLS `architecture aa64`, DHCP's client architecture, iPXE's
# buildarch) the outputs differ exactly as they should.
cd "$(dirname "$0")/../.." || exit 1
X=out/lboot-target
A=build/arm64/lboot-target
F=tests/files
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ok() { echo "ok arm64-target/$1"; }
nok() { echo "not ok arm64-target/$1"; }
check() { local n=$1; shift; if "$@"; then ok "$n"; else nok "$n"; fi; }

[ -x "$X" ] || { nok "x86 target $X present (make all)"; exit 1; }
if make -s "$A" >"$T/build.log" 2>&1; then
	ok "builds"
else
	sed 's/^/# /' "$T/build.log" | tail -20
	nok "builds"; exit 1
fi
echo "# $A: $(stat -c %s "$A") bytes ($X: $(stat -c %s "$X"))"

# a static AArch64 executable: ELF64, machine AArch64, no interpreter, no
# dynamic section
readelf -h "$A" >"$T/h" 2>&1 && readelf -l "$A" >"$T/l" 2>&1 && readelf -d "$A" >"$T/d" 2>&1
check "ELF64 AArch64 executable" eval 'grep -q "Class:.*ELF64" "$T/h" && grep -q "Machine:.*AArch64" "$T/h" && grep -q "Type:.*EXEC" "$T/h"'
check "static: no interpreter, no dynamic section" eval '! grep -q INTERP "$T/l" && grep -q "no dynamic section" "$T/d"'
file "$A" >"$T/file"
check "file(1): ARM aarch64, statically linked" eval 'grep -q "ARM aarch64" "$T/file" && grep -q "statically linked" "$T/file"'

Q=
for q in qemu-aarch64-static qemu-aarch64; do
	command -v "$q" >/dev/null && { Q=$q; break; }
done
if [ -z "$Q" ]; then
	echo "skip arm64-target/runs under qemu-user: neither qemu-aarch64-static nor qemu-aarch64 (qemu-user-static)"
	exit 0
fi

# same NAME ARGS...: both targets on the same input, stdout, stderr and
# exit code compared byte for byte; $T/x.* and $T/a.* keep them
run2() {
	"$X" "$@" >"$T/x.out" 2>"$T/x.err"; echo $? >"$T/x.rc"
	"$Q" "$A" "$@" >"$T/a.out" 2>"$T/a.err"; echo $? >"$T/a.rc"
}
same() {
	local n=$1; shift
	run2 "$@"
	if cmp -s "$T/x.out" "$T/a.out" && cmp -s "$T/x.err" "$T/a.err" && cmp -s "$T/x.rc" "$T/a.rc"; then
		ok "$n"
	else
		nok "$n"
		echo "# exit x86 $(cat "$T/x.rc") arm64 $(cat "$T/a.rc")"
		diff "$T/x.out" "$T/a.out" | head -5 | sed 's/^/# out /'
		diff "$T/x.err" "$T/a.err" | head -5 | sed 's/^/# err /'
	fi
}

same "lboot --help" --help
applets=$("$X" --help 2>&1 | sed -n 's/^applets: //p')
check "the applet list is there" test -n "$applets"
for a in $applets; do
	[ "$a" = net ] && continue # the client architecture is in it: below
	same "$a --help" "$a" --help
done
# net --help names the PXE vendor class, with the client architecture:
# 00007 (x64 UEFI) on x86-64, 00011 (ARM 64-bit UEFI) on arm64; the rest
# is the same
run2 net --help
check "net --help: PXEClient:Arch:00011 on arm64, 00007 on x86, the rest the same" eval '
	grep -q "PXEClient:Arch:00011:" "$T/a.out" && grep -q "PXEClient:Arch:00007:" "$T/x.out" &&
	cmp -s <(sed "s/Arch:0001[1]/Arch:00007/" "$T/a.out") "$T/x.out" && cmp -s "$T/x.rc" "$T/a.rc"'

# boot entries of every fixture tree (and each of its folders: ESP, root,
# boot) but the one whose point is the architecture; how many found entries
# is printed and must not be zero (comparing only failures would prove little)
found=0 n=0
for d in "$F"/grub/*/ "$F"/grub/*/*/ "$F"/bls/*/ "$F"/syslinux/*/ "$F"/syslinux/*/*/; do
	d=${d%/}
	case $d in "$F/bls/arch-esp") continue ;; esac
	n=$((n + 1))
	same "entries --json ${d#$F/}" entries --json "$d"
	[ "$(cat "$T/x.rc")" = 0 ] && found=$((found + 1))
	same "entries (table) ${d#$F/}" entries "$d"
done
echo "# $found of $n fixture trees have entries"
check "some fixture trees have entries ($found of $n)" test "$found" -ge 5
# BLS `architecture aa64`: hidden on x86-64 (not x64), shown on arm64; every
# other entry and field the same
run2 entries --json "$F/bls/arch-esp"
check "entries: architecture aa64 hidden on x86, shown on arm64, the rest the same" python3 -c '
import json, sys
x = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2]))
xa = [e for e in x if e["id"] == "arch-arm"]; aa = [e for e in a if e["id"] == "arch-arm"]
ok = len(xa) == 1 and len(aa) == 1 and xa[0]["hidden"] is True and aa[0]["hidden"] is False
for e in xa + aa:
    e["hidden"] = None
ok = ok and x == a and len(x) >= 2
sys.exit(0 if ok else 1)' "$T/x.out" "$T/a.out"

# iPXE scripts; the netboot.xyz menu asks `cpuid --ext 29` (x86 long mode),
# which iPXE's arm64 build does not have: compared apart below
for s in "$F"/ipxe/*.ipxe; do
	case $s in */netbootxyz-menu.ipxe) continue ;; esac
	same "ipxe ${s#$F/}" ipxe --set mac=52:54:00:12:34:56 "$s"
done
printf '#!ipxe\necho ${buildarch}\nexit\n' >"$T/arch.ipxe"
run2 ipxe "$T/arch.ipxe"
check "ipxe: \${buildarch} is arm64 on arm64, x86_64 on x86" eval 'grep -qx arm64 "$T/a.out" && grep -qx x86_64 "$T/x.out"'
run2 ipxe "$F/ipxe/netbootxyz-menu.ipxe"
check "ipxe netbootxyz-menu: cpuid --ext 29 fails on arm64 only, the rest the same" eval '
	grep -qx "cpuid: feature ext 29 not known here" "$T/a.out" && ! grep -q cpuid "$T/x.out" &&
	cmp -s "$T/x.out" <(grep -vx "cpuid: feature ext 29 not known here" "$T/a.out") &&
	cmp -s "$T/x.err" "$T/a.err" && cmp -s "$T/x.rc" "$T/a.rc"'

# the crypto libraries (Debian's arm64 libsodium and BearSSL archives)
same "manifest --verify minisign (Ed25519, BLAKE2b: libsodium)" \
	manifest --verify "$F/sig/msg.txt" --trust "$F/sig/mkey.pub"
check "  ... and it says signature ok" grep -q "signature ok" "$T/a.out" "$T/a.err"
same "manifest --verify a tampered file" manifest --verify "$F/sig/other.txt" --sig "$F/sig/msg.txt.minisig" --trust "$F/sig/mkey.pub"
check "  ... and it is refused (exit 1)" grep -qx 1 "$T/a.rc"
same "manifest --verify Authenticode UKI (X.509, RSA, SHA-256: BearSSL)" \
	manifest --verify "$F/uki/uki-signed.bin" --trust-x509 "$F/uki/test-ca.der"
check "  ... and it is accepted (exit 0)" grep -qx 0 "$T/a.rc"
same "tpm eventlog (TCG2 crypto-agile log)" tpm eventlog "$F/tpm/ovmf-eventlog.bin"
same "qr" qr --ascii "lboot on arm64"
exit 0
