#!/bin/bash
# `lboot tpm measure` (src/tpm/measure.c) against a real software TPM
# (swtpm socket --tpm2, four active banks) with independent checkers:
# tpm2_pcrread and tpm2_eventlog (tpm2-tools) read the PCRs and replay the
# log lboot wrote; pesign computes the kernel's Authenticode digest, iconv +
# openssl the UCS-2 command line, sha256sum & co. the initrd concatenation,
# and systemd's own systemd-measure the UKI's PCR 11. Needs out/lboot,
# swtpm, tpm2-tools, pesign, openssl, iconv, objcopy, systemd-boot-efi
# (the stub) and systemd (systemd-measure); a Debian kernel in /boot.
cd "$(dirname "$0")/../.." || exit 1
L=${LBOOT:-$PWD/out/lboot}
F=$PWD/tests/files/tpm
STUB=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
MEASURE=$(command -v systemd-measure || echo /usr/lib/systemd/systemd-measure)
for c in "$L" swtpm tpm2_pcrread tpm2_eventlog tpm2_changeauth pesign openssl iconv objcopy xxd; do
	command -v "$c" >/dev/null || { echo "not ok measure.sh: $c missing (scripts/deps.sh)"; exit 1; }
done
K=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n1)
[ -f "$K" ] || { echo "not ok measure.sh: no kernel in /boot (linux-image-amd64)"; exit 1; }
T=$(mktemp -d /tmp/lboot-measure-sh.XXXXXX) || exit 1
spid=
cleanup() {
	if [ -n "$spid" ]; then
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
	fi
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

check() { # name cmd...: ok/not ok by the command's status
	local name=$1; shift
	if "$@" >"$T/check.log" 2>&1; then
		echo "ok $name"
		if [ -n "$VERBOSE" ]; then sed 's/^/#   /' "$T/check.log" | head -10; fi
	else
		echo "not ok $name"
		sed 's/^/# /' "$T/check.log" | head -30
	fi
}

# ---- a fresh swtpm on a free port pair (PCRs 0-15 start at zero) ------------
start_tpm() {
	rm -rf "$T/state"; mkdir -p "$T/state"
	for try in 1 2 3 4 5; do
		port=$(( 20000 + (RANDOM * 7 + $$) % 40000 ))
		swtpm socket --tpm2 --tpmstate dir="$T/state" \
			--server type=tcp,port=$port,bindaddr=127.0.0.1 \
			--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 \
			--flags not-need-init,startup-clear >"$T/swtpm.log" 2>&1 &
		spid=$!
		local up=
		for _ in $(seq 50); do
			kill -0 "$spid" 2>/dev/null || break
			if "$L" tpm --tcp 127.0.0.1:$port --timeout 2000 getrandom 1 >/dev/null 2>&1; then
				up=1; break
			fi
			sleep 0.1
		done
		[ -n "$up" ] && break
		kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; spid=
	done
	[ -n "$spid" ] || { echo "not ok measure.sh: swtpm did not start"; cat "$T/swtpm.log"; exit 1; }
	export TPM2TOOLS_TCTI=swtpm:host=127.0.0.1,port=$port
}
stop_tpm() { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; spid=; }
lt() { "$L" tpm --tcp 127.0.0.1:$port "$@"; }

BANKS="sha1 sha256 sha384 sha512"
zero() { # bank: the all-zero PCR value in hex
	case $1 in sha1) printf '%040d' 0 ;; sha256) printf '%064d' 0 ;;
	sha384) printf '%096d' 0 ;; sha512) printf '%0128d' 0 ;; esac
}
ext() { # bank OLDHEX DIGESTHEX: the extended value (openssl)
	printf '%s%s' "$2" "$3" | xxd -r -p | openssl dgst -"$1" -r | cut -d' ' -f1
}
dg() { # bank FILE...: digest of the files' concatenation
	cat "${@:2}" | openssl dgst -"$1" -r | cut -d' ' -f1
}
pcr() { # bank N: the TPM's PCR as lowercase hex (tpm2_pcrread)
	tpm2_pcrread "$1:$2" | sed -n 's/^ *[0-9]* *: 0x//p' | tr A-F a-f
}
# tpm2_eventlog's "pcrs:" section as "bank N hex" lines
their_pcrs() {
	tpm2_eventlog "$1" 2>"$T/eventlog.err" | sed -n '/^pcrs:/,$p' | awk '
		/^  [a-z0-9_]+:$/ { b = $1; sub(":", "", b); next }
		/^    [0-9]+ *:/ { sub("0x", "", $3); print b, $1, tolower($3) }'
}

# ---- the files of one boot entry ------------------------------------------------
head -c 1001 /dev/urandom >"$T/initrd1"   # sizes not multiples of 4
head -c 2002 /dev/urandom >"$T/initrd2"
CMDLINE='root=LABEL=racine console=ttyS0 quiet lboot.x=é€'
printf 'title test\nlinux /vmlinuz\n' >"$T/entry.conf"
printf 'ID=debian\nVERSION_ID="12"\n' >"$T/osrel"
printf 'root=/dev/vda1 quiet\n' >"$T/uki-cmdline"
objcopy \
	--add-section .osrel="$T/osrel" --change-section-vma .osrel=0x20000 \
	--add-section .cmdline="$T/uki-cmdline" --change-section-vma .cmdline=0x21000 \
	--add-section .initrd="$T/initrd1" --change-section-vma .initrd=0x22000 \
	--add-section .linux="$K" --change-section-vma .linux=0x2000000 \
	"$STUB" "$T/uki.efi" 2>"$T/objcopy.err" || { cat "$T/objcopy.err"; exit 1; }

start_tpm
t_measure() {
	lt --json measure --config "$T/entry.conf" --note "menu edit: $CMDLINE" \
		--kernel "$K" --path /boot/vmlinuz --uki "$T/uki.efi" --cmdline "$CMDLINE" \
		--initrd "$T/initrd1" --initrd "$T/initrd2" --separator \
		--log-out "$T/log.bin" >"$T/events.json" || return 1
	head -c 600 "$T/events.json"; echo
	# configs, note, kernel, 4 UKI sections x 2, cmdline, initrd, separator
	[ "$(grep -o '"pcr":' "$T/events.json" | wc -l)" -eq 14 ]
}
check "measure: one boot entry, 14 events, exit 0" t_measure

t_pcr4() {
	local b want got
	for b in sha1 sha256; do
		want=$(ext $b "$(zero $b)" "$(pesign -h -d $b -i "$K" | sed -n 's/^hash: //p')")
		got=$(pcr $b 4)
		echo "$b: pcr 4 $got, pesign-based $want"
		[ -n "$want" ] && [ "$got" = "$want" ] || return 1
	done
}
check "PCR 4 = extend(0, Authenticode digest from pesign) in sha1 and sha256" t_pcr4

t_pcr9() {
	local b want got u16=$T/cmdline.u16
	printf '%s\0' "$CMDLINE" | iconv -f UTF-8 -t UTF-16LE >"$u16" || return 1
	for b in $BANKS; do
		want=$(ext $b "$(zero $b)" "$(dg $b "$u16")")
		want=$(ext $b "$want" "$(dg $b "$T/initrd1" "$T/initrd2")")
		got=$(pcr $b 9)
		echo "$b: $got"
		[ "$got" = "$want" ] || { echo "want $want"; return 1; }
	done
}
check "PCR 9 = LoadOptions (iconv UTF-16LE + NUL) then the initrds concatenated, 4 banks" t_pcr9

t_pcr8() {
	local b want got
	printf 'menu edit: %s' "$CMDLINE" >"$T/note"
	printf '\0\0\0\0' >"$T/sep"
	for b in $BANKS; do
		want=$(ext $b "$(zero $b)" "$(dg $b "$T/entry.conf")")
		want=$(ext $b "$want" "$(dg $b "$T/note")")
		want=$(ext $b "$want" "$(dg $b "$T/sep")")
		got=$(pcr $b 8)
		[ "$got" = "$want" ] || { echo "$b: $got, want $want"; return 1; }
	done
}
check "PCR 8 = config file, menu edit note, separator (openssl), 4 banks" t_pcr8

t_pcr11() {
	local b want got
	[ -x "$MEASURE" ] || { echo "no systemd-measure"; return 1; }
	for b in $BANKS; do
		want=$("$MEASURE" calculate --linux="$K" --osrel="$T/osrel" --cmdline="$T/uki-cmdline" \
			--initrd="$T/initrd1" --bank=$b --phase=: --json=short |
			sed -n 's/.*"hash":"\([0-9a-f]*\)".*/\1/p')
		got=$(pcr $b 11)
		echo "$b: $got (systemd-measure $want)"
		[ -n "$want" ] && [ "$got" = "$want" ] || return 1
	done
}
check "PCR 11 of the UKI = systemd-measure calculate --phase=:, 4 banks" t_pcr11

t_replay() {
	local b n
	their_pcrs "$T/log.bin" | sort >"$T/replay"
	: >"$T/tpm"
	for b in $BANKS; do
		for n in 4 8 9 11; do echo "$b $n $(pcr $b $n)" >>"$T/tpm"; done
	done
	sort "$T/tpm" >"$T/tpm.s"
	cat "$T/replay"
	[ "$(wc -l <"$T/replay")" -eq 16 ] && diff "$T/replay" "$T/tpm.s" || return 1
	# tpm2-tools checks the digests it can (separator, "lboot: " strings):
	# no mismatch; its only complaint is EV_IPL outside PCRs 8, 9, 12, 14,
	# which it says of systemd-stub's own PCR 11 events (4-11 here) too
	cat "$T/eventlog.err"
	! grep -v 'WARN: Event \([4-9]\|1[01]\) is unexectedly not extending either PCR 8, 9, 12 or 14' \
		"$T/eventlog.err"
}
check "tpm2_eventlog replays lboot's log to the TPM's PCRs 4, 8, 9, 11 in 4 banks, digests verified" t_replay

t_own_replay() {
	lt eventlog "$T/log.bin" --replay | awk '
		/^  [a-z0-9_]+:$/ { b = $1; sub(":", "", b); next }
		/^    [0-9]+ *:/ { n = $1; sub(":", "", n); v = $NF; sub("0x", "", v); print b, n, tolower(v) }' |
		sort >"$T/mine"
	diff "$T/mine" "$T/replay"
}
check "lboot tpm eventlog --replay of the log agrees with tpm2_eventlog" t_own_replay

t_events() {
	tpm2_eventlog "$T/log.bin" >"$T/log.yaml" 2>&1 || return 1
	grep -q 'EventType: EV_EFI_BOOT_SERVICES_APPLICATION' "$T/log.yaml" &&
	grep -q "DevicePath: '0404200"'05c0062006f006f0074005c0076006d006c0069006e0075007a0000007fff0400' "$T/log.yaml" &&
	grep -q '"lboot: menu edit: ' "$T/log.yaml" &&
	[ "$(grep -c 'EventType: EV_EVENT_TAG' "$T/log.yaml")" -eq 3 ] &&
	[ "$(grep -c 'EventType: EV_IPL' "$T/log.yaml")" -eq 9 ] &&
	[ "$(grep -c 'EventType: EV_SEPARATOR' "$T/log.yaml")" -eq 1 ]
}
check "the log's events as tpm2_eventlog reads them (types, device path, strings)" t_events

t_base() {
	lt measure --separator --log-out "$T/log2.bin" --log-base "$F/ovmf-eventlog.bin" >/dev/null || return 1
	local n0 n1
	n0=$(tpm2_eventlog "$F/ovmf-eventlog.bin" | grep -c '^- EventNum')
	n1=$(tpm2_eventlog "$T/log2.bin" | grep -c '^- EventNum')
	echo "firmware $n0 events, with lboot's $n1"
	[ $((n0 + 1)) -eq "$n1" ] && cmp -n "$(stat -c %s "$F/ovmf-eventlog.bin")" "$F/ovmf-eventlog.bin" "$T/log2.bin"
}
check "--log-base: the firmware log byte for byte, then lboot's events" t_base

t_initrd_changes() {
	local a b
	lt --json measure --initrd "$T/initrd1" --initrd "$T/initrd2" >"$T/a.json" || return 1
	lt --json measure --initrd "$T/initrd2" --initrd "$T/initrd1" >"$T/b.json" || return 1
	a=$(grep -o '"sha256":"[0-9a-f]*"' "$T/a.json"); b=$(grep -o '"sha256":"[0-9a-f]*"' "$T/b.json")
	echo "$a / $b"
	[ "$a" = "\"sha256\":\"$(dg sha256 "$T/initrd1" "$T/initrd2")\"" ] && [ "$a" != "$b" ]
}
check "initrd digest is the one buffer: order matters, sha256sum of the concatenation" t_initrd_changes

t_not_pe() {
	head -c 5000 /dev/urandom >"$T/notpe"
	lt --json measure --kernel "$T/notpe" >"$T/np.json" || return 1
	grep -q "\"sha256\":\"$(sha256sum "$T/notpe" | cut -c1-64)\"" "$T/np.json" &&
	lt measure --kernel "$T/notpe" | grep -q 'not a PE image: measured its plain digest'
}
check "a kernel that is not PE: its plain file digest, said so" t_not_pe

# ACPI TPM2 log area, with files standing in for the table, /dev/mem and
# securityfs; a fresh TPM, so that PCR 8 holds this run's events only
stop_tpm
start_tpm
t_acpi() {
	local lasa=8192 laml=65536
	python3 - "$T/TPM2" $laml $lasa <<'EOF' || return 1
import struct, sys
t = bytearray(76); t[0:4] = b'TPM2'; struct.pack_into('<I', t, 4, 76)
struct.pack_into('<I', t, 64, int(sys.argv[2])); struct.pack_into('<Q', t, 68, int(sys.argv[3]))
open(sys.argv[1], 'wb').write(t)
EOF
	head -c $((lasa + laml + 512)) /dev/zero >"$T/mem"
	lt measure --note "acpi" --separator --acpi --acpi-table "$T/TPM2" --mem "$T/mem" \
		--fw-log "$F/ovmf-eventlog.bin" --log-out "$T/acpi.bin" \
		--log-base "$F/ovmf-eventlog.bin" || return 1
	local n; n=$(stat -c %s "$T/acpi.bin")
	# the area: that log, then zeros (Linux stops there); nothing outside it
	dd if="$T/mem" of="$T/area" bs=1 skip=$lasa count=$laml status=none
	cmp -n "$n" "$T/area" "$T/acpi.bin" || { echo prefix; return 1; }
	cmp -s <(tail -c +$((n + 1)) "$T/area") <(head -c $((laml - n)) /dev/zero) || { echo zeros; return 1; }
	cmp -s <(head -c $lasa "$T/mem") <(head -c $lasa /dev/zero) || return 1
	tpm2_eventlog "$T/acpi.bin" >"$T/area.yaml" 2>&1 || return 1
	grep -q '"lboot: acpi' "$T/area.yaml" &&
	[ "$(their_pcrs "$T/acpi.bin" | grep -c '^sha256 ')" -eq 10 ] &&
	[ "$(their_pcrs "$T/acpi.bin" | grep '^sha256 8 ' | cut -d' ' -f3)" = "$(pcr sha256 8)" ]
}
check "--acpi: firmware log + events in the log area, tpm2_eventlog replays PCR 8 to the TPM" t_acpi

t_acpi_full() {
	python3 - "$T/TPM2" 3000 8192 <<'EOF' || return 1
import struct, sys
t = bytearray(76); t[0:4] = b'TPM2'; struct.pack_into('<I', t, 4, 76)
struct.pack_into('<I', t, 64, int(sys.argv[2])); struct.pack_into('<Q', t, 68, int(sys.argv[3]))
open(sys.argv[1], 'wb').write(t)
EOF
	head -c 20000 /dev/zero >"$T/mem"
	lt measure --separator --acpi --acpi-table "$T/TPM2" --mem "$T/mem" \
		--fw-log "$F/ovmf-eventlog.bin" 2>"$T/err"
	[ $? -eq 1 ] && cat "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ] &&
	grep -q 'ACPI TPM2 log area full' "$T/err" && cmp -s "$T/mem" <(head -c 20000 /dev/zero)
}
check "--acpi with a full log area: one line, exit 1, nothing written" t_acpi_full

t_lock() {
	lt measure --lock-platform >/dev/null || return 1
	! tpm2_changeauth -c platform x 2>/dev/null || return 1
	lt measure --lock-platform >/dev/null # locked already: still fine
}
check "--lock-platform: the empty platform auth no longer works; twice is fine" t_lock

stop_tpm
t_no_tpm() {
	"$L" tpm --tcp 127.0.0.1:1 measure --separator 2>"$T/err"
	[ $? -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && cat "$T/err" && grep -q 'Connection refused' "$T/err"
}
check "no TPM: one line, exit 1" t_no_tpm

t_usage() {
	"$L" tpm measure --path /x 2>/dev/null; [ $? -eq 2 ] || return 1
	"$L" tpm measure --bogus 2>/dev/null; [ $? -eq 2 ] || return 1
	"$L" tpm measure --mem /dev/null 2>/dev/null; [ $? -eq 2 ] || return 1
	"$L" tpm --help | grep -q 'measure \[--config F\]'
}
check "measure: bad usage exits 2" t_usage
exit 0
