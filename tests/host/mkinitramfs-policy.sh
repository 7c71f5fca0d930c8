#!/bin/bash
# Issue 9/10/13: `lboot mkinitramfs` builds the verified-boot policy, keys,
# CAs and HTTPS trust anchors into the firmware initramfs, refuses what
# could not work, and never leaves its staging directory behind.
cd "$(dirname "$0")/../.." || exit 1
L=$PWD/out/lboot
T=$(mktemp -d /tmp/lboot-mkpol.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
ck() { if eval "$2"; then echo "ok mkpol/$1"; else echo "not ok mkpol/$1"; fi; }
cd "$T" || exit 1
minisign -G -W -p a.pub -s a.key >/dev/null && minisign -G -W -p b.pub -s b.key >/dev/null ||
	{ echo "not ok mkpol/keygen"; exit 1; }
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 30 -subj /CN=t 2>/dev/null
openssl x509 -in ca.pem -outform der -out ca.der
echo x >file
"$L" mkinitramfs -o i.cpio --compress none --trust a.pub --revoke b.pub --trust b.pub \
	--trust-x509 ca.pem --ca ca.der --allow-edit --manifest-floor 7 --tpm require --mtime 1767225600 file 2>err
ck build '[ $? = 0 ]'
"$L" cpio -t i.cpio >list
kid=$(sed -n 2p a.pub | base64 -d | tail -c +3 | head -c 8 | od -An -tx1 | tr -d ' \n' |
	sed 's/\(..\)/\1 /g' | awk '{for(i=NF;i>0;i--) printf "%s", toupper($i)}')
ck trust-by-keyid "grep -qx 'etc/lboot/trust/$kid.pub' list"
ck revoked "grep -q '^etc/lboot/revoked/.*\.pub$' list"
ck x509-der "grep -qx 'etc/lboot/trust-x509/00.der' list"
ck tls-anchor "grep -qx 'etc/lboot/tls/00-ca.der' list"
mkdir x && (cd x && cpio -id --quiet <../i.cpio)
ck policy-text "diff -u - x/etc/lboot/policy <<'P'
# lboot verified-boot policy (lboot mkinitramfs)
verify enforce
allow-edit yes
allow-shell no
manifest-floor 7
time-floor 2026-01-01T00:00:00Z
tpm require
P"
ck key-bytes "cmp -s a.pub x/etc/lboot/trust/$kid.pub"
ck ca-der "cmp -s ca.der x/etc/lboot/trust-x509/00.der"
ck staging-removed '[ -z "$(ls -A "$TMPDIR")" ]'
# refusals: exit 2 for a wrong option value, 1 for a bad file; nothing written
"$L" mkinitramfs -o j.cpio --verify enforce file 2>err; ck enforce-without-keys-2 '[ $? = 2 ] && grep -q "nothing could boot" err && [ ! -e j.cpio ]'
"$L" mkinitramfs -o j.cpio --verify sometimes --trust a.pub file 2>err; ck bad-mode-2 '[ $? = 2 ] && [ ! -e j.cpio ]'
"$L" mkinitramfs -o j.cpio --trust file file 2>err; ck bad-key-1 '[ $? = 1 ] && grep -q "not a minisign/signify public key" err && [ ! -e j.cpio ]'
"$L" mkinitramfs -o j.cpio --trust-x509 file file 2>err; ck bad-cert-1 '[ $? = 1 ] && grep -q "not a PEM or DER X.509" err'
"$L" mkinitramfs -o j.cpio --ca file file 2>err; ck bad-ca-1 '[ $? = 1 ] && grep -q -- "--ca file" err'
"$L" mkinitramfs -o j.cpio --tpm maybe file 2>err; ck bad-tpm-2 '[ $? = 2 ]'
ck staging-removed-after-errors '[ -z "$(ls -A "$TMPDIR")" ]'
"$L" mkinitramfs -o k.cpio --compress none --trust a.pub file 2>err
cpio -i --quiet --to-stdout etc/lboot/policy <k.cpio >pol 2>/dev/null
ck keys-default-to-enforce "grep -qx 'verify enforce' pol"
"$L" mkinitramfs -o k.cpio --compress none --trust a.pub --verify warn file 2>err
cpio -i --quiet --to-stdout etc/lboot/policy <k.cpio >pol 2>/dev/null
ck warn "grep -qx 'verify warn' pol"
# issue 23, finding 6: no require-manifest line without --require-manifest
ck no-require-manifest "! grep -q 'require-manifest' pol"
# revocation (issue 23): an image digest and a certificate's SHA-256 as policy lines
h=$(printf '%064d' 0 | tr 0 a)
"$L" mkinitramfs -o r.cpio --compress none --trust-x509 ca.pem --revoke-pe "$(echo $h | tr a A)" \
	--revoke-x509 ca.der file 2>err
ck revoke-build '[ $? = 0 ]'
cpio -i --quiet --to-stdout etc/lboot/policy <r.cpio >pol 2>/dev/null
ck revoke-pe-line "grep -qx 'revoke-pe $h' pol"
ck revoke-x509-line "grep -qx \"revoke-x509 \$(sha256sum ca.der | cut -c1-64)\" pol"
"$L" mkinitramfs -o m.cpio --compress none --trust a.pub --require-manifest file 2>err
cpio -i --quiet --to-stdout etc/lboot/policy <m.cpio >pol 2>/dev/null
ck require-manifest-line "grep -qx 'require-manifest yes' pol"
"$L" mkinitramfs -o s.cpio --revoke-pe abc file 2>err; ck revoke-pe-bad-2 '[ $? = 2 ] && grep -q "64 hex digits" err && [ ! -e s.cpio ]'
"$L" mkinitramfs -o s.cpio --revoke-x509 file file 2>err; ck revoke-x509-bad-1 '[ $? = 1 ] && [ ! -e s.cpio ]'
# SBAT minimum generations (issue 23): one policy line each
"$L" mkinitramfs -o b.cpio --compress none --trust-x509 ca.pem --sbat grub.debian,4 --sbat 'shim 4' file 2>err
ck sbat-build '[ $? = 0 ]'
cpio -i --quiet --to-stdout etc/lboot/policy <b.cpio >pol 2>/dev/null
ck sbat-lines "grep -qx 'sbat grub.debian 4' pol && grep -qx 'sbat shim 4' pol"
"$L" mkinitramfs -o s.cpio --sbat grub,x file 2>err; ck sbat-bad-2 '[ $? = 2 ] && grep -q "COMPONENT,GENERATION" err && [ ! -e s.cpio ]'
"$L" mkinitramfs -o s.cpio --sbat grub,1 --sbat grub,2 file 2>err; ck sbat-twice-2 '[ $? = 2 ] && [ ! -e s.cpio ]'
"$L" mkinitramfs --help | grep -q -- '--trust KEY.pub'; ck help '[ $? = 0 ]'
# built-in boot options (issue 11: mkinitramfs --order)
"$L" mkinitramfs -o o.cpio --compress none --order ata,nvme --option lboot.timeout=3 file 2>err
ck order-build '[ $? = 0 ]'
cpio -i --quiet --to-stdout etc/lboot/cmdline <o.cpio >cmd 2>/dev/null
ck order-cmdline "[ \"\$(cat cmd)\" = 'lboot.order=ata,nvme lboot.timeout=3' ]"
"$L" mkinitramfs -o p.cpio --order ata,floppy file 2>err; ck order-unknown-2 '[ $? = 2 ] && grep -q "unknown token" err && [ ! -e p.cpio ]'
"$L" mkinitramfs -o p.cpio --option timeout=3 file 2>err; ck option-not-lboot-2 '[ $? = 2 ] && [ ! -e p.cpio ]'
"$L" mkinitramfs -o p.cpio --option 'lboot.append=a b' file 2>err; ck option-blank-2 '[ $? = 2 ] && [ ! -e p.cpio ]'
ck staging-removed-after-options '[ -z "$(ls -A "$TMPDIR")" ]'
