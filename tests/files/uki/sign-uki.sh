#!/bin/sh
# Regenerate uki-signed.bin (not *.efi: test_authenticode takes those as
# unsigned): a UKI from make-uki.sh whose .linux is the
# smallest bzImage header kexec's dry run takes (systemd-stub's .sbat says
# systemd,1 and systemd.debian,1), signed with sbsign by a P-256
# code-signing certificate of test-ca.der (a throwaway CA, valid 100 years;
# its keys are not kept). tests/unit/test_verify.c boots it on the PE route.
set -e
cd "$(dirname "$0")"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cat >"$t/ext.cnf" <<'X'
[ca]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
[signer]
basicConstraints = CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = codeSigning
X
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$t/ca.key" \
	-out "$t/ca.pem" -days 36500 -subj "/CN=lboot test UKI CA" -config /dev/null \
	-extensions ca -config "$t/ext.cnf" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$t/s.key" \
	-out "$t/s.csr" -subj "/CN=lboot test UKI signer" -config /dev/null 2>/dev/null
openssl x509 -req -in "$t/s.csr" -CA "$t/ca.pem" -CAkey "$t/ca.key" -CAcreateserial \
	-out "$t/s.pem" -days 36500 -extfile "$t/ext.cnf" -extensions signer 2>/dev/null
python3 -c 'import sys; b = bytearray(0x400); b[0x1fe:0x200] = b"\x55\xaa"; b[0x202:0x206] = b"HdrS"; sys.stdout.buffer.write(b)' >"$t/bz"
LBOOT_UKI_LINUX="$t/bz" ./make-uki.sh "$t/uki.efi"
sbsign --key "$t/s.key" --cert "$t/s.pem" --output uki-signed.bin "$t/uki.efi"
openssl x509 -in "$t/ca.pem" -outform der -out test-ca.der
sbverify --cert "$t/ca.pem" uki-signed.bin
