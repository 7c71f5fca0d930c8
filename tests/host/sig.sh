#!/bin/bash
# Signatures and manifests with keys and signatures made at test time by
# Debian's minisign and signify-openbsd, checked by `lboot manifest` in both
# the host CLI (out/lboot) and the static target binary (out/lboot-target),
# and every refusal cross-checked: the tool that signed refuses it too.
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d /tmp/lboot-sig-sh.XXXXXX) || exit 1
trap '[ -n "$KEEP" ] || rm -rf "$T"' EXIT
for b in out/lboot out/lboot-target; do
	[ -x "$b" ] || { echo "not ok sig.sh: $b missing (make all)"; exit 1; }
done
for t in minisign signify-openbsd; do
	command -v $t >/dev/null || { echo "not ok sig.sh: $t missing (scripts/deps.sh)"; exit 1; }
done
BINS="$PWD/out/lboot $PWD/out/lboot-target"
SRC=$PWD
cd "$T" || exit 1

# expect NAME STATUS PATTERN cmd...: the command exits STATUS and its output
# matches PATTERN (grep -E), for both binaries (cmd's "L" is replaced)
expect() {
	local name=$1 want=$2 pat=$3; shift 3
	for L in $BINS; do
		local args=() a
		for a in "$@"; do [ "$a" = L ] && args+=("$L") || args+=("$a"); done
		"${args[@]}" >out.log 2>&1
		local rc=$?
		if [ $rc -ne "$want" ] || { [ -n "$pat" ] && ! grep -Eq -- "$pat" out.log; }; then
			echo "not ok $name (${L##*/}: exit $rc, want $want /$pat/)"
			sed 's/^/# /' out.log | head -5
			return
		fi
	done
	echo "ok $name"
}
# the real tool refuses it as well
tool_refuses() { # name cmd...
	if "${@:2}" >tool.log 2>&1; then
		echo "not ok $1 (the tool accepted it)"; sed 's/^/# /' tool.log | head -3
	else
		echo "ok $1"
	fi
}

minisign -G -W -p m.pub -s m.key >/dev/null || { echo "not ok sig/minisign-keygen"; exit 1; }
minisign -G -W -p o.pub -s o.key >/dev/null || { echo "not ok sig/minisign-keygen"; exit 1; }
signify-openbsd -G -n -p s.pub -s s.sec || { echo "not ok sig/signify-keygen"; exit 1; }
head -c 300000 /dev/urandom >file
cp file legacy; cp file plain
minisign -S -s m.key -m file -t "lboot test file" >/dev/null
minisign -S -l -s m.key -m legacy >/dev/null
signify-openbsd -S -s s.sec -m plain -x plain.sig
head -c 1000 /dev/urandom >unsigned

expect sig/minisign-ED-ok 0 'signature ok.*trusted comment: lboot test file' L manifest --verify file --trust m.pub
expect sig/minisign-legacy-ok 0 'signature ok' L manifest --verify legacy --trust m.pub
expect sig/signify-ok 0 'signature ok' L manifest --verify plain --trust s.pub
expect sig/two-keys-trusted 0 'signature ok' L manifest --verify file --trust o.pub --trust m.pub
expect sig/no-signature 1 'refused: no signature' L manifest --verify unsigned --trust m.pub
expect sig/unknown-key 1 'refused: unknown key' L manifest --verify file --trust o.pub
expect sig/signify-unknown-key 1 'refused: unknown key' L manifest --verify plain --trust m.pub
expect sig/revoked 1 'refused: revoked key' L manifest --verify file --trust m.pub --revoke m.pub

# a valid signature over another file
cp file other; printf x >>other; cp file.minisig other.minisig
expect sig/signature-of-another-file 1 'refused: bad signature' L manifest --verify other --trust m.pub
tool_refuses sig/signature-of-another-file-minisign minisign -Vq -p m.pub -m other
# the file changed after signing, in its middle
cp file changed; cp file.minisig changed.minisig
printf '\x00' | dd of=changed bs=1 seek=150000 conv=notrunc status=none
expect sig/file-changed 1 'refused: bad signature' L manifest --verify changed --trust m.pub
tool_refuses sig/file-changed-minisign minisign -Vq -p m.pub -m changed
cp plain plainc; cp plain.sig plainc.sig; printf y >>plainc
expect sig/signify-file-changed 1 'refused: bad signature' L manifest --verify plainc --trust s.pub
tool_refuses sig/signify-file-changed-signify signify-openbsd -V -q -p s.pub -m plainc -x plainc.sig
# the trusted comment edited after signing
cp file tc; sed 's/^trusted comment: .*/trusted comment: lboot test file, version 99/' file.minisig >tc.minisig
expect sig/trusted-comment-edited 1 'refused: trusted comment changed after signing' L manifest --verify tc --trust m.pub
tool_refuses sig/trusted-comment-edited-minisign minisign -Vq -p m.pub -m tc
# a public key with the signer's key id but another key
python3 - <<'PY'
import base64
m = base64.b64decode(open('m.pub').read().split('\n')[1])
o = base64.b64decode(open('o.pub').read().split('\n')[1])
open('fake.pub', 'w').write('untrusted comment: fake\n' + base64.b64encode(m[:10] + o[10:]).decode() + '\n')
PY
expect sig/key-id-matches-key-does-not 1 'refused: bad signature' L manifest --verify file --trust fake.pub
tool_refuses sig/key-id-matches-key-does-not-minisign minisign -Vq -p fake.pub -m file
# malformed signatures
cp file b64; awk 'NR==2{ $0 = substr($0,1,20) "*" substr($0,22) } {print}' file.minisig >b64.minisig
expect sig/bad-base64 1 'refused: malformed: bad base64' L manifest --verify b64 --trust m.pub
tool_refuses sig/bad-base64-minisign minisign -Vq -p m.pub -m b64
cp file short; awk 'NR==2{ $0 = substr($0,5) } {print}' file.minisig >short.minisig
expect sig/wrong-length 1 'refused: malformed: wrong length' L manifest --verify short --trust m.pub
tool_refuses sig/wrong-length-minisign minisign -Vq -p m.pub -m short
cp file alg; python3 - <<'PY'
import base64
l = open('file.minisig').read().split('\n')
raw = base64.b64decode(l[1]); l[1] = base64.b64encode(b'EX' + raw[2:]).decode()
open('alg.minisig', 'w').write('\n'.join(l))
PY
expect sig/wrong-algorithm 1 'refused: unsupported algorithm' L manifest --verify alg --trust m.pub
tool_refuses sig/wrong-algorithm-minisign minisign -Vq -p m.pub -m alg
cp file trunc; head -c 150 file.minisig >trunc.minisig
expect sig/truncated 1 'refused: malformed' L manifest --verify trunc --trust m.pub
tool_refuses sig/truncated-minisign minisign -Vq -p m.pub -m trunc
cp file big; { cat file.minisig; head -c 20000 /dev/zero | tr '\0' '\n'; } >big.minisig
expect sig/oversized 1 'refused: too large' L manifest --verify big --trust m.pub
head -c 100 /dev/urandom | base64 -w0 >badkey.pub
expect sig/malformed-key 1 'not a minisign/signify public key' L manifest --verify file --trust badkey.pub

# ---- the manifest -----------------------------------------------------------
K=$(ls /boot/vmlinuz-* 2>/dev/null | head -1)
[ -n "$K" ] || { head -c 100000 /dev/urandom >kernel; K=$PWD/kernel; }
head -c 50000 /dev/urandom >i1; head -c 70000 /dev/urandom >i2
CMD='root=UUID=0a1b ro quiet console=ttyS0,115200'
expect manifest/write 0 '' L manifest -o man --entry deb --kernel "$K" --initrd i1 --initrd i2 \
	--cmdline "$CMD" --version 5 --expires 2099-12-31
grep -q "^kernel sha256:$(sha256sum "$K" | cut -d' ' -f1)\$" man && grep -q "^initrd sha256:$(sha256sum i2 | cut -d' ' -f1)\$" man &&
	grep -qx "cmdline $CMD" man && echo "ok manifest/content-vs-sha256sum" || echo "not ok manifest/content-vs-sha256sum"
if [ "$K" != "$PWD/kernel" ] && command -v pesign >/dev/null; then
	grep -q "^kernel-authenticode sha256:$(pesign -h -i "$K" | awk '{print $2}')\$" man &&
		echo "ok manifest/authenticode-vs-pesign" || echo "not ok manifest/authenticode-vs-pesign"
fi
minisign -S -s m.key -m man -t "lboot manifest deb 5" >/dev/null
minisign -Vq -p m.pub -m man && echo "ok manifest/minisign-verifies-it" || echo "not ok manifest/minisign-verifies-it"
CHK=(manifest --check man --trust m.pub --entry deb --kernel "$K" --now 2030-01-01)
expect manifest/check-ok 0 'entry deb version 5 matches' L "${CHK[@]}" --initrd i1 --initrd i2 --cmdline "$CMD"
expect manifest/initrds-swapped 1 'initrd 1 changed after signing' L "${CHK[@]}" --initrd i2 --initrd i1 --cmdline "$CMD"
cp i2 i2x; printf z >>i2x
expect manifest/initrd-replaced 1 'initrd 2 changed after signing' L "${CHK[@]}" --initrd i1 --initrd i2x --cmdline "$CMD"
expect manifest/initrd-dropped 1 'initrds changed after signing' L "${CHK[@]}" --initrd i1 --cmdline "$CMD"
expect manifest/cmdline-edited 1 'cmdline changed after signing' L "${CHK[@]}" --initrd i1 --initrd i2 --cmdline "$CMD init=/bin/sh"
expect manifest/kernel-replaced 1 'kernel changed after signing' L manifest --check man --trust m.pub --entry deb \
	--kernel i1 --initrd i1 --initrd i2 --cmdline "$CMD" --now 2030-01-01
expect manifest/other-entry 1 "manifest is for entry 'deb'" L manifest --check man --trust m.pub --entry other \
	--kernel "$K" --initrd i1 --initrd i2 --cmdline "$CMD" --now 2030-01-01
expect manifest/expired 1 'refused: expired \(2099-12-31T00:00:00Z\)' L "${CHK[@]}" --initrd i1 --initrd i2 --cmdline "$CMD" --now 2100-01-01
expect manifest/version-floor-equal 0 'matches' L "${CHK[@]}" --initrd i1 --initrd i2 --cmdline "$CMD" --floor 5
expect manifest/version-below-floor 1 'version 5 below the floor 6' L "${CHK[@]}" --initrd i1 --initrd i2 --cmdline "$CMD" --floor 6
sed 's/^version 5$/version 9/' man >man9; cp man.minisig man9.minisig
expect manifest/edited-after-signing 1 'refused: bad signature' L manifest --check man9 --trust m.pub --entry deb \
	--kernel "$K" --initrd i1 --initrd i2 --cmdline "$CMD" --now 2030-01-01
expect manifest/unsigned 1 'refused: no signature' L manifest --check man9 --sig /nonexistent --trust m.pub --entry deb \
	--kernel "$K" --cmdline "$CMD"
expect manifest/untrusted-signer 1 'refused: unknown key' L manifest --check man --trust o.pub --entry deb \
	--kernel "$K" --initrd i1 --initrd i2 --cmdline "$CMD" --now 2030-01-01
# a signed file that is not a manifest, and one too large to be one
printf 'hello\n' >note; minisign -S -s m.key -m note >/dev/null
expect manifest/signed-non-manifest 1 'refused: malformed manifest: line 1' L manifest --check note --trust m.pub --entry deb \
	--kernel "$K" --cmdline "$CMD"
expect manifest/too-large 1 'file: too large' L manifest --check file --trust m.pub --entry deb \
	--kernel "$K" --cmdline "$CMD"
printf 'lboot-manifest 1\nentry deb\nentry deb\n' >dup; minisign -S -s m.key -m dup >/dev/null
expect manifest/duplicate-key 1 "duplicate key 'entry'" L manifest --check dup --trust m.pub --entry deb --kernel "$K" --cmdline "$CMD"
# signify-signed manifest
signify-openbsd -S -s s.sec -m man -x man.sig
expect manifest/signify-signed 0 'matches' L manifest --check man --sig man.sig --trust s.pub --entry deb --kernel "$K" \
	--initrd i1 --initrd i2 --cmdline "$CMD" --now 2030-01-01
# ---- PE (Authenticode) signatures against X.509 CAs ---------------------------
DEBCA=/usr/share/shim/debian-uefi-ca.der
if [ "$K" != "$PWD/kernel" ] && [ -f $DEBCA ] && command -v sbsign >/dev/null; then
	openssl x509 -inform der -in $DEBCA -out debca.pem
	expect pe/debian-kernel-debian-ca-der 0 'PE signature ok' L manifest --verify "$K" --trust-x509 $DEBCA
	expect pe/debian-kernel-debian-ca-pem 0 'PE signature ok' L manifest --verify "$K" --trust-x509 debca.pem
	sbverify --cert debca.pem "$K" >/dev/null 2>&1 && echo "ok pe/sbverify-agrees" || echo "not ok pe/sbverify-agrees"
	# a throwaway CA and a signer it certifies
	cat >ext.cnf <<'CNF'
[signer]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = codeSigning
authorityKeyIdentifier = keyid
CNF
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 3650 -subj "/CN=lboot test CA" \
		-addext basicConstraints=critical,CA:true -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -keyout signer.key -out signer.csr -subj "/CN=lboot test signer" 2>/dev/null
	openssl x509 -req -in signer.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out signer.pem \
		-days 365 -extfile ext.cnf -extensions signer 2>/dev/null
	cp "$K" kernel.unsigned && sbattach --remove kernel.unsigned >/dev/null 2>&1
	sbsign --key signer.key --cert signer.pem --output kernel.test kernel.unsigned >/dev/null 2>&1
	sbverify --cert ca.pem kernel.test >/dev/null 2>&1 && echo "ok pe/test-ca-sbverify" || echo "not ok pe/test-ca-sbverify"
	expect pe/test-ca-signed-verifies 0 'PE signature ok' L manifest --verify kernel.test --trust-x509 ca.pem
	expect pe/test-ca-signed-refused-with-debian-ca 1 'refused: not signed by a trusted CA' L manifest --verify kernel.test --trust-x509 $DEBCA
	expect pe/debian-kernel-refused-with-test-ca 1 'refused: not signed by a trusted CA' L manifest --verify "$K" --trust-x509 ca.pem
	expect pe/either-ca 0 'PE signature ok' L manifest --verify kernel.test --trust-x509 $DEBCA --trust-x509 ca.pem
	expect pe/unsigned 1 'refused: no signature' L manifest --verify kernel.unsigned --trust-x509 ca.pem
	cp kernel.test kernel.flip; printf '\x5a' | dd of=kernel.flip bs=1 seek=2000000 conv=notrunc status=none
	expect pe/flipped-byte 1 'refused: changed after signing' L manifest --verify kernel.flip --trust-x509 ca.pem
	tool_refuses pe/flipped-byte-sbverify sbverify --cert ca.pem kernel.flip
	# a signer certificate that is not yet valid at --now, and the signature itself damaged
	expect pe/before-validity 1 'refused: not signed by a trusted CA' L manifest --verify kernel.test --trust-x509 ca.pem --now 2001-01-01
	python3 - <<'PY'
import struct
b = bytearray(open('kernel.test', 'rb').read())
pe = struct.unpack_from('<I', b, 0x3c)[0]
opt = pe + 24
off, size = struct.unpack_from('<II', b, opt + 112 + 4 * 8)
# the RSA signature is the last 256 bytes of the PKCS#7 (no unsigned attributes)
wl = struct.unpack_from('<I', b, off)[0]
b[off + wl - 10] ^= 1
open('kernel.badsig', 'wb').write(b)
PY
	expect pe/bad-signer-signature 1 'refused: bad signature' L manifest --verify kernel.badsig --trust-x509 ca.pem
	# an ECDSA (P-256) signer under the same CA, on the UKI fixture
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ec.key -out ec.csr \
		-subj "/CN=lboot test ec signer" 2>/dev/null
	openssl x509 -req -in ec.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out ec.pem \
		-days 365 -extfile ext.cnf -extensions signer 2>/dev/null
	sbsign --key ec.key --cert ec.pem --output uki.signed "$SRC/tests/files/uki/debian.efi" >/dev/null 2>&1
	expect pe/ecdsa-signed-uki 0 'PE signature ok' L manifest --verify uki.signed --trust-x509 ca.pem
	expect pe/ecdsa-signed-uki-other-ca 1 'refused: not signed by a trusted CA' L manifest --verify uki.signed --trust-x509 $DEBCA
	# SBAT (issue 23): the UKI's systemd-stub .sbat says systemd generation 1;
	# a minimum of 2 refuses it although its signature verifies
	expect pe/sbat-below-minimum 1 'refused: SBAT: systemd generation 1 below the policy.s minimum 2' \
		L manifest --verify uki.signed --trust-x509 ca.pem --sbat grub,9 --sbat systemd,2
	expect pe/sbat-at-minimum 0 'PE signature ok' L manifest --verify uki.signed --trust-x509 ca.pem \
		--sbat systemd,1 --sbat systemd.debian,1 --sbat grub,9
	expect pe/sbat-no-section 0 'PE signature ok' L manifest --verify kernel.test --trust-x509 ca.pem --sbat systemd,9
	expect pe/sbat-bad-option 2 'want COMPONENT,GENERATION' L manifest --verify uki.signed --trust-x509 ca.pem --sbat systemd
	# a signed image whose .sbat does not parse: refused once any minimum is set
	cp "$SRC/tests/files/uki/debian.efi" uki.badsbat
	so=$(objdump -h uki.badsbat | awk '$2 == ".sbat" { print $6 }')
	printf ',' | dd of=uki.badsbat bs=1 seek=$((0x$so)) conv=notrunc 2>/dev/null
	sbsign --key ec.key --cert ec.pem --output uki.badsbat.signed uki.badsbat >/dev/null 2>&1
	expect pe/sbat-malformed-refused 1 'refused: SBAT: malformed .sbat' \
		L manifest --verify uki.badsbat.signed --trust-x509 ca.pem --sbat grub,1
	expect pe/sbat-malformed-no-minimum 0 'PE signature ok' L manifest --verify uki.badsbat.signed --trust-x509 ca.pem
	expect pe/not-a-certificate 1 'not a PEM or DER certificate' L manifest --verify kernel.test --trust-x509 m.pub
	# a certificate of the same CA that is not for code signing: a TLS server
	# certificate (extendedKeyUsage serverAuth only), and one whose keyUsage
	# allows key encipherment only; anyExtendedKeyUsage is allowed
	cat >>ext.cnf <<'CNF'
[tls]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
[keyx]
basicConstraints = critical, CA:false
keyUsage = critical, keyEncipherment
[any]
basicConstraints = critical, CA:false
extendedKeyUsage = anyExtendedKeyUsage
CNF
	for u in tls keyx any; do
		openssl x509 -req -in signer.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out $u.pem \
			-days 365 -extfile ext.cnf -extensions $u 2>/dev/null
		sbsign --key signer.key --cert $u.pem --output kernel.$u kernel.unsigned >/dev/null 2>&1
	done
	expect pe/eku-server-auth-refused 1 'refused: signer certificate not for code signing.*extendedKeyUsage without codeSigning' \
		L manifest --verify kernel.tls --trust-x509 ca.pem
	expect pe/key-usage-keyx-refused 1 'keyUsage without digitalSignature' L manifest --verify kernel.keyx --trust-x509 ca.pem
	expect pe/eku-any-verifies 0 'PE signature ok' L manifest --verify kernel.any --trust-x509 ca.pem
	# revocation (dbx's role, from the policy): the image's Authenticode
	# SHA-256, the signer's certificate, the CA; an unrelated entry changes nothing
	ah=$("${BINS%% *}" manifest --entry x --kernel kernel.test --cmdline x --version 1 --expires 2030-01-01 |
		sed -n 's/^kernel-authenticode sha256://p')
	expect pe/revoked-image 1 'refused: revoked.*revoke-pe' L manifest --verify kernel.test --trust-x509 ca.pem --revoke-pe "$ah"
	expect pe/revoked-signer 1 'refused: revoked.*revoke-x509' L manifest --verify kernel.test --trust-x509 ca.pem --revoke-x509 signer.pem
	expect pe/revoked-ca 1 'refused: not signed by a trusted CA' L manifest --verify kernel.test --trust-x509 ca.pem --revoke-x509 ca.pem
	expect pe/revoked-other 0 'PE signature ok' L manifest --verify kernel.test --trust-x509 ca.pem --revoke-x509 tls.pem \
		--revoke-pe "$(printf '%064d' 0)"
	expect pe/revoke-pe-bad 2 'want a SHA-256' L manifest --verify kernel.test --trust-x509 ca.pem --revoke-pe xyz
else
	echo "skip pe: needs /boot/vmlinuz-* (linux-image-amd64), $DEBCA (shim-unsigned) and sbsigntool"
fi
expect manifest/usage 2 'usage: lboot manifest' L manifest --bogus
expect manifest/help 0 'usage: lboot manifest' L manifest --help
exit 0
