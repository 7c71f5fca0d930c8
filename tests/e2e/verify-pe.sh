#!/bin/bash
# Issue 9: the stock Debian kernel, signed by Debian (Authenticode), boots
# with Debian's CA (shim-unsigned's debian-uefi-ca.der) built in and no local
# signing of the kernel: the initrd and the command line are covered by a
# signed manifest. The same kernel re-signed by a test CA (sbsign) is
# refused without that CA; a flipped byte in the Debian kernel is refused.
. "$(dirname "$0")/lib.sh"
e2e_init verify-pe
DEBCA=/usr/share/shim/debian-uefi-ca.der
[ -f $DEBCA ] || { not_ok "no $DEBCA (shim-unsigned, scripts/deps.sh)"; exit 1; }
command -v sbsign >/dev/null || { not_ok "no sbsign (sbsigntool)"; exit 1; }
target_os
K=$T/keys R=$T/root
mkdir -p "$K" "$R/loader/entries"
cd "$K" || exit 1
minisign -G -W -p trusted.pub -s trusted.key >/dev/null || { not_ok "minisign -G"; exit 1; }
openssl x509 -inform der -in $DEBCA -out debca.pem
sbverify --cert debca.pem "$TARGET_KERNEL" >/dev/null 2>&1 || { not_ok "$TARGET_KERNEL: not Debian-signed (sbverify)"; exit 1; }
cat >ext.cnf <<'CNF'
[signer]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = codeSigning
authorityKeyIdentifier = keyid
CNF
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 3650 -subj "/CN=lboot e2e test CA" \
	-addext basicConstraints=critical,CA:true -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null &&
openssl req -newkey rsa:2048 -nodes -keyout signer.key -out signer.csr -subj "/CN=lboot e2e signer" 2>/dev/null &&
openssl x509 -req -in signer.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out signer.pem \
	-days 365 -extfile ext.cnf -extensions signer 2>/dev/null || { not_ok "test CA"; exit 1; }
cd - >/dev/null
cp "$TARGET_KERNEL" "$R/vmlinuz-debian"
cp "$TARGET_KERNEL" "$K/k.unsigned" && sbattach --remove "$K/k.unsigned" >/dev/null 2>&1 &&
	sbsign --key "$K/signer.key" --cert "$K/signer.pem" --output "$R/vmlinuz-testca" "$K/k.unsigned" >/dev/null 2>&1 ||
	{ not_ok "sbsign with the test CA"; exit 1; }
cp "$TARGET_KERNEL" "$R/vmlinuz-flipped"
printf '\x5a' | dd of="$R/vmlinuz-flipped" bs=1 seek=2000000 conv=notrunc status=none
cp "$TARGET_INITRD" "$R/initrd.img"
minisign -S -s "$K/trusted.key" -m "$R/initrd.img" >/dev/null || { not_ok "sign initrd"; exit 1; }
entry() { # ID SORT KERNEL
	cat >"$R/loader/entries/$1.conf" <<EOT
title   $1
sort-key $2
linux   /$3
initrd  /initrd.img
options console=ttyS0 lboot-test=$1 quiet
EOT
	minisign -S -s "$K/trusted.key" -m "$R/loader/entries/$1.conf" >/dev/null || { not_ok "sign $1.conf"; exit 1; }
}
entry test-ca a1 vmlinuz-testca
entry flipped a2 vmlinuz-flipped
entry debian-signed a3 vmlinuz-debian
# the Debian kernel's entry also gets a manifest, with the kernel's Authenticode digest
"$OUT/lboot" manifest -o "$R/loader/entries/debian-manifest.manifest" --entry debian-manifest \
	--kernel "$R/vmlinuz-debian" --initrd "$R/initrd.img" --cmdline "initrd=\\initrd.img console=ttyS0 lboot-test=debian-manifest quiet" \
	--version 1 --expires 2099-01-01 &&
	grep -q '^kernel-authenticode sha256:' "$R/loader/entries/debian-manifest.manifest" &&
	minisign -S -s "$K/trusted.key" -m "$R/loader/entries/debian-manifest.manifest" >/dev/null ||
	{ not_ok "manifest"; exit 1; }
cat >"$R/loader/entries/debian-manifest.conf" <<EOT
title   debian-manifest
sort-key a4
linux   /vmlinuz-debian
initrd  /initrd.img
options console=ttyS0 lboot-test=debian-manifest quiet
EOT
printf 'default test-ca.conf\n' >"$R/loader/loader.conf"
mkpart_ext4 "$T/p1.img" 64 "$R" PESIGNED
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
"$OUT/lboot" mkinitramfs -o "$T/fw.cpio.xz" --init "$OUT/lboot-target" \
	--trust "$K/trusted.pub" --trust-x509 $DEBCA 2>/dev/null || { not_ok "mkinitramfs --trust-x509"; exit 1; }

E2E_INITRD=$T/fw.cpio.xz E2E_APPEND="lboot.timeout=0" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot: verified boot: enforce, 1 trusted key, 0 revoked, 1 CA' 120 && ok "policy with Debian's CA" ||
	not_ok "policy with Debian's CA"
expect "lboot: refused: 'test-ca' \(/dev/vda1\): /vmlinuz-testca: PE signature: .*" 180 &&
	ok "kernel re-signed by a test CA refused without that CA" ||
	not_ok "kernel re-signed by a test CA refused without that CA"
expect "lboot: refused: 'flipped' \(/dev/vda1\): /vmlinuz-flipped: PE signature: .*" 180 &&
	ok "Debian kernel with a flipped byte refused" || not_ok "Debian kernel with a flipped byte refused"
expect "lboot: verified 'debian-signed': kernel, 1 initrd and command line by signatures \(kernel: PE signature; command line: /loader/entries/debian-signed.conf on /dev/vda1\)" 180 &&
	ok "stock Debian-signed kernel verified by Debian's CA, no local kernel signing" ||
	not_ok "stock Debian-signed kernel verified by Debian's CA, no local kernel signing"
expect 'lboot-target: cmdline: .*lboot-test=debian-signed' 180 && ok "target OS booted" || not_ok "target OS booted"
qemu_stop
# the manifest route for the same kernel: its Authenticode digest
E2E_INITRD=$T/fw.cpio.xz E2E_APPEND="lboot.timeout=0 lboot.default=debian-manifest" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: verified 'debian-manifest': kernel, 1 initrd and command line by manifest /loader/entries/debian-manifest.manifest" 240 &&
	ok "Debian kernel with a manifest (Authenticode digest) verified" ||
	not_ok "Debian kernel with a manifest (Authenticode digest) verified"
expect 'lboot-target: cmdline: .*lboot-test=debian-manifest' 180 && ok "target OS booted by the manifest" ||
	not_ok "target OS booted by the manifest"
e2e_done
