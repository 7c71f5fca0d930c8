#!/bin/bash
# Issue 26 item 5: after a firmware update the owner reseals the TOTP from
# the menu ('t', docs/measured-boot.md "After a firmware update"). Two
# --tpm ROMs (OVMF measures PCRs 0-7, the firmware kernel's EFI stub its
# command line and initramfs into PCR 9) that differ only in the payload:
# the initramfs of firmware version 1 and of version 2, i.e. the flash
# after a payload update. QEMU q35, tpm-crb, one swtpm state over the boots:
#  1. v1: `lboot tpm seal-totp` in the menu's shell; the menu shown again
#     has oathtool's code above it and offers "t: reseal TOTP";
#  2. v2: "TOTP unseal failed: measurements changed" (PCR 9 differs, PCRs 0
#     and 4 do not: the payload is outside the volume PCR 0 measures and
#     the kernel is the same); 't' says what it trusts and asks; 'n':
#     "not resealed", and the NV record is byte-identical afterwards (read
#     on the host with tpm2_nvread);
#  3. v2: 't', 'y': a new secret (not the old one), its otpauth:// URI, QR
#     code and the code oathtool gives for it; the NV record changed;
#  4. v2 again: the code above the menu is oathtool's for the new secret;
#  5. v3, whose ROM command line differs too (a file in the DXE volume,
#     the part a whole-flash update changes): PCR 0 differs from v2's,
#     "measurements changed"; `lboot tpm --json reseal-totp` in the menu's
#     shell reseals it, and the menu shown again has that secret's code.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init totp-reseal
for c in swtpm swtpm_setup oathtool tpm2_nvread python3; do
	command -v $c >/dev/null || { not_ok "$c not installed (scripts/deps.sh)"; exit 1; }
done
[ -x /bin/busybox ] || { not_ok "no /bin/busybox (apt-get install busybox-static)"; exit 1; }
rom_v() { # V [CMDLINE-EXTRA]: ROM v$V, its payload's initramfs says firmware version V
	"$OUT/lboot" mkinitramfs -o "$T/initramfs-v$1.cpio.xz" --init "$OUT/lboot-target" --busybox \
		--firmware-version "$1" >"$T/mkinitramfs-v$1.log" 2>&1 ||
		{ sed 's/^/# /' "$T/mkinitramfs-v$1.log"; not_ok "mkinitramfs v$1"; exit 1; }
	rom_build "$T/v$1.rom" --tpm --kernel "$OUT/bzImage" --initrd "$T/initramfs-v$1.cpio.xz" \
		--cmdline "console=ttyS0,115200 panic=-1 lboot.timeout=120${2:+ $2}"
}
rom_v 1
rom_v 2
rom_v 3 rom.v=3   # v3: another ROM command line too, in the DXE volume
rom_demo_disk "$T/disk.img" totp-reseal
mkdir -p "$T/st"
swtpm_setup --tpm2 --tpmstate "$T/st" --pcr-banks sha1,sha256 --overwrite >"$T/swtpm_setup.log" 2>&1 ||
	{ not_ok "swtpm_setup"; sed 's/^/# /' "$T/swtpm_setup.log"; exit 1; }
SWTPM=
swtpm_start() {
	rm -f "$T/sock"
	swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" --terminate \
		>>"$T/swtpm.log" 2>&1 &
	SWTPM=$!
	for _ in $(seq 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
}
swtpm_stop() { [ -n "$SWTPM" ] && { kill $SWTPM 2>/dev/null; wait $SWTPM 2>/dev/null; }; SWTPM=; }
trap 'qemu_stop; swtpm_stop; e2e_dump_on_fail' EXIT
# nv_read OUT: the TOTP record, read on the host from the swtpm state
nv_read() {
	local port try
	rm -f "$1"
	for try in 1 2 3 4 5; do
		port=$(( 20000 + (RANDOM * 7 + $$) % 40000 ))
		swtpm socket --tpm2 --tpmstate dir="$T/st" --server type=tcp,port=$port,bindaddr=127.0.0.1 \
			--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 --flags not-need-init,startup-clear \
			>>"$T/swtpm-host.log" 2>&1 &
		SWTPM=$!
		for _ in $(seq 50); do
			kill -0 $SWTPM 2>/dev/null || break
			TPM2TOOLS_TCTI=swtpm:host=127.0.0.1,port=$port \
				tpm2_nvread 0x01500010 -C 0x01500010 -o "$1" >/dev/null 2>&1 && break
			sleep 0.1
		done
		swtpm_stop
		[ -s "$1" ] && return 0
	done
	return 1
}
boot() { # V APPEND-NOTHING: ROM v$V with the swtpm state
	swtpm_start
	E2E_FIRMWARE=$T/v$1.rom E2E_VARS=$T/v$1-vars.fd qemu_start \
		-drive "file=$T/disk.img,format=raw,if=virtio" \
		-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
		-device tpm-crb,tpmdev=tpm0
}
halt() { # N
	qemu_stop
	swtpm_stop
	cp "$T/serial.log" "$T/serial-$1.log"
}
serial() { tr -d '\r' <"$T/serial.log"; }
# the PCRs the guest's shell printed with prefix P in any boot: "P N : 0xHEX"
pcrs() { cat "$T"/serial-*.log "$T/serial.log" 2>/dev/null | tr -d '\r' | sed -n "s/^$1 *\\([0-9]*\\) *: 0x\\([0-9A-Fa-f]*\\)\$/\\1=\\2/p"; }
pcr() { pcrs "$1" | sed -n "s/^$2=//p" | head -n1; }
# codes oathtool gives for host times t-30, t, t+30 (one step either side)
oath_codes() { for d in -30 0 30; do oathtool --totp -b "$1" -N "@$(($2 + d))"; done; }
secret_of() { sed -n 's/^otpauth:\/\/totp\/[^?]*?secret=\([A-Z2-7]*\)&.*/\1/p' | tail -n1; }
last_code() { serial | sed -n 's/^TOTP \([0-9]\{6\}\) (valid [0-9]* s)$/\1/p' | tail -n1; }
code_is() { # SECRET NAME
	local now code
	now=$(date +%s) code=$(last_code)
	if [ -n "$1" ] && [ -n "$code" ] && oath_codes "$1" "$now" | grep -qx "$code"; then
		ok "$2 ($code)"
	else
		not_ok "$2 ($code; oathtool: $(oath_codes "$1" "$now" | tr '\n' ' '))"
	fi
}
shell_run() { # COMMAND MARKER: in the menu's shell, then back to the menu
	send 's'
	expect 'lboot: starting /bin/sh' 20 || not_ok "shell"
	sleep 2
	send '%s; echo "%s=$?"\r' "$1" "$2"
	expect "^$2=0" 60
	local rc=$?
	send 'exit\r'
	expect 'lboot: shell exited, back to the menu' 20 || not_ok "back to the menu"
	sleep 1
	return $rc
}

# ---- 1: v1, the owner seals the TOTP ------------------------------------------------
boot 1
expect 'lbootdxe: starting the kernel' 120 || not_ok "boot 1: lbootdxe starts the kernel"
expect 'press any key to stop' 240 && ok "boot 1 (v1): menu" || not_ok "boot 1 (v1): menu"
expect_not 't: reseal TOTP' && ok "boot 1: no TOTP yet: no 't' key" || not_ok "boot 1: no TOTP yet: no 't' key"
send ' '
expect 'lboot> ' 20 || not_ok "boot 1: prompt"
shell_run 'lboot tpm seal-totp --ascii && lboot tpm pcrread sha256:0,4,9 | sed "s/^ */V1PCR /"' sealed &&
	ok "boot 1: lboot tpm seal-totp in the menu's shell" || not_ok "boot 1: lboot tpm seal-totp in the menu's shell"
SECRET1=$(serial | secret_of)
[ ${#SECRET1} = 32 ] && ok "boot 1: a 160-bit secret" || not_ok "boot 1: a 160-bit secret (got '$SECRET1')"
send 'r'   # the menu shown again: the code above it, and the 't' key
expect '^TOTP [0-9]{6} \(valid [0-9]+ s\)' 120 && code_is "$SECRET1" "boot 1: the code is oathtool's" ||
	not_ok "boot 1: the code above the menu"
expect 't: reseal TOTP, ' 30 && ok "boot 1: the menu offers t: reseal TOTP" || not_ok "boot 1: the menu offers t: reseal TOTP"
send 'p'
qemu_wait 60 || true
halt 1
nv_read "$T/nv-1.bin" && ok "host: the TOTP record in NV 0x01500010 ($(stat -c %s "$T/nv-1.bin") bytes)" ||
	not_ok "host: the TOTP record in NV 0x01500010"

# ---- 2: v2 (a payload update): measurements changed; 'n' keeps the record ----------------
boot 2
expect 'press any key to stop' 240 && ok "boot 2 (v2): menu" || not_ok "boot 2 (v2): menu"
serial | grep -q '^TOTP unseal failed: measurements changed$' &&
	ok "boot 2: v2's payload: 'TOTP unseal failed: measurements changed'" ||
	not_ok "boot 2: v2's payload: 'TOTP unseal failed: measurements changed'"
send 't'
expect 'lboot: reseal the TOTP to the measurements of this boot \(sha256 PCRs 0,2,4,7,9 in NV 0x01500010\)' 20 &&
	expect 'lboot: this trusts the firmware running now' 5 && expect 'reseal the TOTP\? \(y/N\)> ' 5 &&
	ok "boot 2: t says what it trusts and asks" || not_ok "boot 2: t says what it trusts and asks"
send 'n\r'
expect 'lboot: TOTP not resealed \(the sealed secret is unchanged\)' 20 && ok "boot 2: n: not resealed" ||
	not_ok "boot 2: n: not resealed"
expect_n() { # REGEX N TIMEOUT
	local i
	for ((i = 0; i < ${3:-60} * 5; i++)); do
		[ "$(serial | grep -cE -- "$1")" -ge "$2" ] && return 0
		sleep 0.2
	done
	return 1
}
expect_n 'lboot> ' 2 20
shell_run 'lboot tpm pcrread sha256:0,4,9 | sed "s/^ */V2PCR /"' pcrs || not_ok "boot 2: pcrread"
for n in 0 4 9; do
	a=$(pcr V1PCR $n) b=$(pcr V2PCR $n)
	if [ -z "$a" ] || [ -z "$b" ]; then
		not_ok "PCR $n read in both boots"
	elif [ $n = 9 ]; then
		[ "$a" != "$b" ] && ok "the payload update changed PCR 9 (the firmware kernel's initramfs)" ||
			not_ok "the payload update changed PCR 9 ($a)"
	else
		[ "$a" = "$b" ] && ok "the payload update left PCR $n as it was" ||
			not_ok "the payload update left PCR $n as it was ($a / $b)"
	fi
done
send 'p'
qemu_wait 60 || true
halt 2
nv_read "$T/nv-2.bin" && cmp -s "$T/nv-1.bin" "$T/nv-2.bin" &&
	ok "host: after n the NV record is byte-identical" || not_ok "host: after n the NV record is byte-identical"

# ---- 3: v2: 't', 'y': a new secret sealed to v2's measurements -----------------------------
boot 2
expect 'press any key to stop' 240 && ok "boot 3 (v2): menu" || not_ok "boot 3 (v2): menu"
send 't'
expect 'reseal the TOTP\? \(y/N\)> ' 20 || not_ok "boot 3: t asks"
send 'y\r'
expect 'lboot: TOTP resealed to sha256 PCRs 0,2,4,7,9 in NV 0x01500010; add the new secret to the authenticator app:' 60 &&
	ok "boot 3: y: resealed to PCRs 0,2,4,7,9" || not_ok "boot 3: y: resealed to PCRs 0,2,4,7,9"
expect '^TOTP [0-9]{6} \(valid [0-9]+ s\)' 30
SECRET2=$(serial | secret_of)
[ ${#SECRET2} = 32 ] && [ "$SECRET2" != "$SECRET1" ] && ok "boot 3: a new 160-bit secret in the otpauth:// URI" ||
	not_ok "boot 3: a new 160-bit secret in the otpauth:// URI (got '$SECRET2')"
serial | grep -q '█' && ok "boot 3: the QR code drawn" || not_ok "boot 3: the QR code drawn"
code_is "$SECRET2" "boot 3: the code shown after resealing is oathtool's for the new secret"
expect 'lboot> ' 20
send 'p'
qemu_wait 60 || true
halt 3
nv_read "$T/nv-3.bin" && ! cmp -s "$T/nv-1.bin" "$T/nv-3.bin" &&
	[ "$(stat -c %s "$T/nv-3.bin")" = "$(stat -c %s "$T/nv-1.bin")" ] &&
	ok "host: y rewrote the NV record (same size)" || not_ok "host: y rewrote the NV record (same size)"

# ---- 4: the next boot of v2: the new secret's code --------------------------------------------
boot 2
if expect '^TOTP [0-9]{6} \(valid [0-9]+ s\)' 240; then
	code_is "$SECRET2" "boot 4 (v2): the code above the menu is the new secret's"
else
	not_ok "boot 4 (v2): the code above the menu"
fi
expect_not 'TOTP unseal failed' && ok "boot 4: no unseal failure" || not_ok "boot 4: no unseal failure"
halt 4

# ---- 5: v3 (another DXE volume): PCR 0 changes; the command in the menu's shell ------------
boot 3
expect 'press any key to stop' 240 && ok "boot 5 (v3): menu" || not_ok "boot 5 (v3): menu"
serial | grep -q '^TOTP unseal failed: measurements changed$' &&
	ok "boot 5: v3: 'TOTP unseal failed: measurements changed'" ||
	not_ok "boot 5: v3: 'TOTP unseal failed: measurements changed'"
send ' '
expect 'lboot> ' 20 || not_ok "boot 5: prompt"
shell_run 'lboot tpm --json reseal-totp && lboot tpm pcrread sha256:0,4,9 | sed "s/^ */V3PCR /"' resealed &&
	ok "boot 5: lboot tpm --json reseal-totp in the menu's shell" || not_ok "boot 5: lboot tpm --json reseal-totp in the menu's shell"
SECRET3=$(serial | sed -n 's/^{"index":"0x01500010","resealed":true,"pcrs":\[0,2,4,7,9\],"uri":"otpauth:\/\/totp\/lboot:owner?secret=\([A-Z2-7]*\)&.*"}$/\1/p' | tail -n1)
[ ${#SECRET3} = 32 ] && [ "$SECRET3" != "$SECRET2" ] && ok "boot 5: --json: resealed, PCRs 0,2,4,7,9 kept, a new secret" ||
	not_ok "boot 5: --json: resealed, PCRs 0,2,4,7,9 kept, a new secret (got '$SECRET3')"
a=$(pcr V2PCR 0) b=$(pcr V3PCR 0)
[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && ok "another ROM command line (the DXE volume) changed PCR 0" ||
	not_ok "another ROM command line (the DXE volume) changed PCR 0 ($a / $b)"
send 'r'
expect '^TOTP [0-9]{6} \(valid [0-9]+ s\)' 120 && code_is "$SECRET3" "boot 5: the menu shown again has the resealed secret's code" ||
	not_ok "boot 5: the menu shown again has the resealed secret's code"
halt 5
e2e_done
