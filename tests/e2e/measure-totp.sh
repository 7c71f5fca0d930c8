#!/bin/bash
# Issue 10, the owner's check: a TOTP secret sealed to PCRs in TPM NV, its
# code above the menu on every boot. QEMU with swtpm on tpm-tis (SeaBIOS
# measures PCR 0-7, -kernel boot), the swtpm state kept across the boots:
#  1. no TOTP provisioned: no line; at the console (the menu's shell) the
#     owner runs `lboot tpm seal-totp`; the menu shown again (rescan) has
#     the code above it;
#  2. the next boot shows the code oathtool gives for the secret at that
#     time (+-1 step), above the menu and before lboot measures the entry,
#     and boots the entry;
#  3. the same machine with another option ROM (an e1000 NIC: SeaBIOS
#     measures its ROM into PCR 2): "TOTP unseal failed: measurements
#     changed", and the entry still boots;
#  4. no TPM: no TOTP line, the entry boots.
. "$(dirname "$0")/lib.sh"
e2e_init measure-totp
for c in swtpm oathtool; do
	command -v $c >/dev/null || { not_ok "$c not installed (scripts/deps.sh)"; exit 1; }
done
[ -x /bin/busybox ] || { not_ok "no /bin/busybox (apt-get install busybox-static)"; exit 1; }
target_os
"$OUT/lboot" mkinitramfs -o "$T/initramfs-bb.cpio.xz" --init "$OUT/lboot-target" --busybox 2>/dev/null ||
	{ not_ok "mkinitramfs --busybox"; exit 1; }
R=$T/root
mkdir -p "$R/loader/entries" "$T/st"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
cat >"$R/loader/entries/t.conf" <<EOT
title   totp
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 quiet
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" TOTP
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
SWTPM=
swtpm_start() {
	rm -f "$T/sock"
	swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" --terminate \
		>>"$T/swtpm.log" 2>&1 &
	SWTPM=$!
	for i in $(seq 1 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
}
swtpm_stop() { [ -n "$SWTPM" ] && { kill $SWTPM 2>/dev/null; wait $SWTPM 2>/dev/null; }; SWTPM=; }
trap 'qemu_stop; swtpm_stop; e2e_dump_on_fail' EXIT
TPMARGS=(-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm
	-device tpm-tis,tpmdev=tpm0)
S=$T/serial.txt
serial() { tr -d '\r' <"$T/serial.log"; }

# ---- 1: provision at the console -------------------------------------------------
swtpm_start
E2E_INITRD=$T/initramfs-bb.cpio.xz E2E_APPEND="lboot.timeout=60" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio" "${TPMARGS[@]}"
expect 'press any key to stop' 180 && ok "boot 1: menu" || not_ok "boot 1: menu"
expect_not '^TOTP' && ok "boot 1: nothing provisioned, no TOTP line" || not_ok "boot 1: nothing provisioned, no TOTP line"
send ' '
expect 'lboot> ' 20 || not_ok "boot 1: prompt"
send 's'
expect 'lboot: starting /bin/sh' 20 && ok "boot 1: shell" || not_ok "boot 1: shell"
sleep 2
send 'lboot tpm seal-totp --ascii --issuer lboot-e2e --label owner; echo "seal-rc=$?"\r'
expect '^seal-rc=0' 60 && ok "boot 1: lboot tpm seal-totp in the guest" || not_ok "boot 1: lboot tpm seal-totp in the guest"
SECRET=$(serial | sed -n 's/^otpauth:\/\/totp\/lboot-e2e:owner?secret=\([A-Z2-7]*\)&issuer=lboot-e2e&algorithm=SHA1&digits=6&period=30$/\1/p' | head -n1)
[ ${#SECRET} = 32 ] && ok "boot 1: otpauth URI with a 160-bit base32 secret" ||
	not_ok "boot 1: otpauth URI with a 160-bit base32 secret (got '$SECRET')"
serial | grep -q '^TOTP sealed to sha256 PCRs 0,2,4,7,9 in NV 0x01500010' &&
	ok "boot 1: sealed to PCRs 0,2,4,7,9 in NV 0x01500010" || not_ok "boot 1: sealed to PCRs 0,2,4,7,9 in NV 0x01500010"
serial | grep -Eq '^ *(##)+ *$' && ok "boot 1: QR code drawn" || not_ok "boot 1: QR code drawn"
send 'exit\r'
expect 'lboot: shell exited, back to the menu' 20 || not_ok "boot 1: back to the menu"
sleep 1
send 'r'   # rescan: the menu is shown again, with the code above it
expect '^TOTP [0-9]{6} \(valid [0-9]+ s\)' 60 && ok "boot 1: the menu shown again has the code above it" ||
	not_ok "boot 1: the menu shown again has the code above it"
send 'p'
qemu_wait 60 || qemu_stop
qemu_stop
swtpm_stop
cp "$T/serial.log" "$T/serial-1.log"

# codes oathtool gives for host times t-30, t, t+30 (one step either side)
oath_codes() {
	local t=$1
	for d in -30 0 30; do oathtool --totp -b "$SECRET" -N "@$((t + d))"; done
}

# ---- 2: the next boot shows the code ---------------------------------------------------
swtpm_start
E2E_INITRD=$T/initramfs-bb.cpio.xz E2E_APPEND="lboot.timeout=3" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio" "${TPMARGS[@]}"
if expect '^TOTP [0-9]{6} \(valid [0-9]+ s\)' 180; then
	now=$(date +%s)
	code=$(serial | sed -n 's/^TOTP \([0-9]\{6\}\) (valid [0-9]* s)$/\1/p' | head -n1)
	ok "boot 2: TOTP line above the menu"
	if [ -n "$SECRET" ] && oath_codes "$now" | grep -qx "$code"; then
		ok "boot 2: the code is oathtool's for the secret at that time ($code)"
	else
		not_ok "boot 2: the code is oathtool's for the secret at that time ($code; oathtool: $(oath_codes "$now" | tr '\n' ' '))"
	fi
else
	not_ok "boot 2: TOTP line above the menu"
	not_ok "boot 2: the code is oathtool's for the secret at that time"
fi
expect "lboot: measured 'totp'" 120 && ok "boot 2: the entry is measured after the code was shown" ||
	not_ok "boot 2: the entry is measured after the code was shown"
serial | awk '/^TOTP [0-9]/ { t = NR } /^lboot: measured / { m = NR } END { exit !(t && m && t < m) }' &&
	ok "boot 2: TOTP line before lboot's own extends" || not_ok "boot 2: TOTP line before lboot's own extends"
expect 'lboot-target: powering off' 240 && ok "boot 2: target OS booted" || not_ok "boot 2: target OS booted"
qemu_stop
swtpm_stop
cp "$T/serial.log" "$T/serial-2.log"

# ---- 3: another option ROM in PCR 2 ----------------------------------------------------
swtpm_start
E2E_INITRD=$T/initramfs-bb.cpio.xz E2E_APPEND="lboot.timeout=3" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio" "${TPMARGS[@]}" -device e1000
expect '^TOTP unseal failed: measurements changed$' 180 &&
	ok "boot 3: another option ROM: 'TOTP unseal failed: measurements changed'" ||
	not_ok "boot 3: another option ROM: 'TOTP unseal failed: measurements changed'"
expect_not '^TOTP [0-9]{6}' && ok "boot 3: no code shown" || not_ok "boot 3: no code shown"
expect 'lboot-target: powering off' 240 && ok "boot 3: the entry still boots" || not_ok "boot 3: the entry still boots"
qemu_stop
swtpm_stop
cp "$T/serial.log" "$T/serial-3.log"

# ---- 4: no TPM ---------------------------------------------------------------------------
E2E_INITRD=$T/initramfs-bb.cpio.xz E2E_APPEND="lboot.timeout=3" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot-target: powering off' 240 && ok "boot 4: no TPM: the entry boots" || not_ok "boot 4: no TPM: the entry boots"
expect_not '^TOTP' && ok "boot 4: no TPM: no TOTP line" || not_ok "boot 4: no TPM: no TOTP line"
e2e_done
