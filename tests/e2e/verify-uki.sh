#!/bin/bash
# Issue 9: a UKI's own signature, checked by lboot (the kernel's KEXEC_SIG
# would check only .linux, never the .initrd and .cmdline beside it). Two
# UKIs on an ESP, signed with sbsign by a test CA; the firmware trusts that
# CA (--trust-x509): the signed UKI boots with its .cmdline covered by its
# signature; the same UKI with one byte of its .cmdline changed after
# signing is refused, and so is an unsigned one.
. "$(dirname "$0")/lib.sh"
e2e_init verify-uki
stub=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
[ -f "$stub" ] || { not_ok "no $stub (systemd-boot-efi)"; exit 1; }
command -v sbsign >/dev/null || { not_ok "no sbsign (sbsigntool)"; exit 1; }
target_os
R=$T/root K=$T/keys
mkdir -p "$R/EFI/Linux" "$K"
cat >"$K/ext.cnf" <<'CNF'
[signer]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = codeSigning
authorityKeyIdentifier = keyid
CNF
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$K/ca.key" -out "$K/ca.pem" -days 3650 \
	-subj "/CN=lboot e2e UKI CA" -addext basicConstraints=critical,CA:true \
	-addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null &&
openssl req -newkey rsa:2048 -nodes -keyout "$K/s.key" -out "$K/s.csr" -subj "/CN=lboot e2e UKI signer" 2>/dev/null &&
openssl x509 -req -in "$K/s.csr" -CA "$K/ca.pem" -CAkey "$K/ca.key" -CAcreateserial -out "$K/s.pem" \
	-days 365 -extfile "$K/ext.cnf" -extensions signer 2>/dev/null || { not_ok "test CA"; exit 1; }
uki() { # OUT SORT-TITLE CMDLINE
	printf 'NAME="Target OS"\nPRETTY_NAME="%s"\nID=target\nVERSION_ID="1"\n' "$2" >"$T/osrel"
	printf '%s\n' "$3" >"$T/cmdline"
	objcopy \
		--add-section .osrel="$T/osrel" --change-section-vma .osrel=0x20000 \
		--add-section .cmdline="$T/cmdline" --change-section-vma .cmdline=0x30000 \
		--add-section .initrd="$TARGET_INITRD" --change-section-vma .initrd=0x1000000 \
		--add-section .linux="$TARGET_KERNEL" --change-section-vma .linux=0x5000000 \
		"$stub" "$1" || { not_ok "objcopy UKI"; exit 1; }
}
uki "$T/a.efi" "C tampered" "console=ttyS0 lboot-test=uki-signed quiet"
sbsign --key "$K/s.key" --cert "$K/s.pem" --output "$R/EFI/Linux/c-tampered.efi" "$T/a.efi" >/dev/null 2>&1 ||
	{ not_ok "sbsign"; exit 1; }
# one byte of the signed .cmdline changed: "signed" -> "signeD"
python3 - "$R/EFI/Linux/c-tampered.efi" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read())
i = b.find(b'lboot-test=uki-signed'); b[i + 20] = ord('D'); open(p, 'wb').write(b)
PY
uki "$R/EFI/Linux/b-unsigned.efi" "B unsigned" "console=ttyS0 lboot-test=uki-unsigned quiet"
uki "$T/c.efi" "A signed" "console=ttyS0 lboot-test=uki-signed quiet"
sbsign --key "$K/s.key" --cert "$K/s.pem" --output "$R/EFI/Linux/a-signed.efi" "$T/c.efi" >/dev/null 2>&1 ||
	{ not_ok "sbsign"; exit 1; }
sbverify --cert "$K/ca.pem" "$R/EFI/Linux/a-signed.efi" >/dev/null 2>&1 && ok "sbverify accepts the signed UKI" ||
	not_ok "sbverify accepts the signed UKI"
sbverify --cert "$K/ca.pem" "$R/EFI/Linux/c-tampered.efi" >/dev/null 2>&1 && not_ok "sbverify refuses the tampered UKI" ||
	ok "sbverify refuses the tampered UKI"
"$OUT/lboot" mkinitramfs -o "$T/fw.cpio.xz" --init "$OUT/lboot-target" --trust-x509 "$K/ca.pem" 2>/dev/null ||
	{ not_ok "mkinitramfs --trust-x509"; exit 1; }
mkpart_vfat "$T/esp.img" 60 "$R" ESP
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp"
E2E_INITRD=$T/fw.cpio.xz E2E_APPEND="lboot.timeout=0 lboot.default=c-tampered" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: refused: '[^']*C tampered[^']*' \\(/dev/vda1\\): /EFI/Linux/c-tampered.efi: PE signature: image digest differs" 180 &&
	ok "a UKI whose .cmdline changed after signing is refused" || not_ok "a UKI whose .cmdline changed after signing is refused"
expect "lboot: refused: '[^']*B unsigned[^']*' \\(/dev/vda1\\): /EFI/Linux/b-unsigned.efi: no signature" 180 &&
	ok "an unsigned UKI is refused" || not_ok "an unsigned UKI is refused"
expect "lboot: verified '[^']*A signed[^']*': kernel, 0 initrds and command line by signatures \\(kernel: PE signature\\)" 180 &&
	ok "the signed UKI is verified, its .cmdline with it" || not_ok "the signed UKI is verified, its .cmdline with it"
expect 'lboot-target: cmdline: .*lboot-test=uki-signed' 180 && ok "target OS booted from the signed UKI" ||
	not_ok "target OS booted from the signed UKI"
expect_not 'lboot-test=uki-signeD' && ok "the tampered command line never reached a kernel" ||
	not_ok "the tampered command line never reached a kernel"
e2e_done
