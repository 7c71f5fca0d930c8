#!/bin/bash
# The owner's TOTP against a real software TPM (swtpm socket --tpm2 on a
# 127.0.0.1 high port) with independent checkers: oathtool (the code),
# zbarimg (the QR codes: the URI, and lboot qr for several lengths, both
# levels and every mask), tpm2-tools (the NV index, the PCR policy digest
# the sealed object carries, PCR extends). Needs out/lboot, swtpm,
# tpm2-tools, oathtool, zbarimg (zbar-tools).
cd "$(dirname "$0")/../.." || exit 1
L=${LBOOT:-$PWD/out/lboot}
for c in "$L" swtpm tpm2_pcrextend tpm2_policypcr oathtool zbarimg; do
	command -v "$c" >/dev/null || { echo "not ok totp.sh: $c missing (scripts/deps.sh)"; exit 1; }
done
T=$(mktemp -d /tmp/lboot-totp-sh.XXXXXX) || exit 1
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

res() { # name status
	if [ "$2" = 0 ]; then echo "ok $1"; else echo "not ok $1"; sed 's/^/# /' "$T/out" 2>/dev/null | head -10; fi
}

mkdir -p "$T/state"
for try in 1 2 3 4 5; do
	port=$(( 20000 + (RANDOM * 7 + $$) % 40000 ))
	swtpm socket --tpm2 --tpmstate dir="$T/state" \
		--server type=tcp,port=$port,bindaddr=127.0.0.1 \
		--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 \
		--flags not-need-init,startup-clear --log file="$T/io.log",level=20 >"$T/swtpm.log" 2>&1 &
	spid=$!
	up=
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
[ -n "$spid" ] || { echo "not ok totp.sh: swtpm did not start"; cat "$T/swtpm.log"; exit 1; }
export TPM2TOOLS_TCTI=swtpm:host=127.0.0.1,port=$port
lt() { "$L" tpm --tcp 127.0.0.1:$port "$@"; }
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
# the command codes the TPM received since mark_io (swtpm's level-20 log:
# each command's first bytes after "SWTPM_IO_Read"), as NAME lines
mark_io() { IO_MARK=$(wc -l <"$T/io.log"); }
cmds_since() {
	tail -n +$((IO_MARK + 1)) "$T/io.log" | python3 -c '
import sys
names = {0x122: "NV_UndefineSpace", 0x12A: "NV_DefineSpace", 0x137: "NV_Write",
         0x153: "Create", 0x131: "CreatePrimary", 0x17B: "GetRandom"}
lines = sys.stdin.read().splitlines()
for i, l in enumerate(lines):
    if "SWTPM_IO_Read" in l and i + 1 < len(lines):
        b = bytes.fromhex("".join(lines[i + 1].split()))
        if len(b) >= 10:
            cc = int.from_bytes(b[6:10], "big")
            print(names.get(cc, hex(cc)))
'
}
secret_of() { sed -n 's/.*[?&]secret=\([A-Z2-7]*\)&.*/\1/p' <<<"$1"; }

# ---- no TOTP yet ------------------------------------------------------------------
lt totp >"$T/out" 2>&1; rc=$?
[ $rc = 1 ] && grep -q 'no TOTP provisioned in NV 0x01500010' "$T/out"
res "totp: nothing provisioned: exit 1, one line" $?

# ---- seal ---------------------------------------------------------------------------
lt --json seal-totp --issuer 'ACME Corp' --label 'root@box' --pbm "$T/uri.pbm" >"$T/seal.json" 2>"$T/out"
res "seal-totp (default PCRs 0,2,4,7,9, NV 0x01500010)" $?
URI=$(json "$T/seal.json" uri 2>/dev/null)
SECRET=$(secret_of "$URI")
[ ${#SECRET} = 32 ] && [[ $URI == otpauth://totp/ACME%20Corp:root%40box\?secret=$SECRET\&issuer=ACME%20Corp\&algorithm=SHA1\&digits=6\&period=30 ]]
res "otpauth URI: issuer, label, 32 base32 characters (160 bits)" $?
zbarimg -q --raw "$T/uri.pbm" 2>/dev/null >"$T/zbar.txt"
[ "$(cat "$T/zbar.txt")" = "$URI" ]
res "zbarimg decodes the URI's QR code" $?
tpm2_nvreadpublic 0x01500010 >"$T/out" 2>&1 &&
	grep -q 'ownerwrite' "$T/out" && grep -q 'authread' "$T/out" && grep -q 'written' "$T/out"
res "tpm2_nvreadpublic: NV 0x01500010 owner-written, auth-readable, written" $?

# the sealed object's authPolicy equals tpm2_policypcr's digest of the PCRs now
tpm2_nvread 0x01500010 -C 0x01500010 -o "$T/rec.bin" 2>/dev/null
tpm2_startauthsession -S "$T/s.ctx" 2>/dev/null &&
	tpm2_policypcr -S "$T/s.ctx" -l sha256:0,2,4,7,9 -L "$T/pol.bin" >/dev/null 2>&1
tpm2_flushcontext "$T/s.ctx" 2>/dev/null
python3 - "$T/rec.bin" "$T/pol.bin" >"$T/out" 2>&1 <<'PY'
import sys
r = open(sys.argv[1], 'rb').read(); pol = open(sys.argv[2], 'rb').read()
assert r[:4] == b'LBT1' and r[4:6] == b'\x00\x0b' and r[6:10] == bytes.fromhex('00000295'), r[:12].hex()
n = int.from_bytes(r[12:14], 'big'); off = 14 + n
m = int.from_bytes(r[off:off + 2], 'big'); pub = r[off + 2:off + 2 + m]
assert off + 2 + m == len(r)
# TPMT_PUBLIC: type, nameAlg, objectAttributes, authPolicy (TPM2B)
assert pub[:2] == b'\x00\x08', 'keyedhash'
pl = int.from_bytes(pub[8:10], 'big')
assert pub[10:10 + pl] == pol, (pub[10:10 + pl].hex(), pol.hex())
print('policy', pol.hex())
PY
res "sealed object's policy = tpm2_policypcr sha256:0,2,4,7,9" $?

# ---- the code -----------------------------------------------------------------------
for i in 1 2; do
	lt --json totp >"$T/totp.json" 2>"$T/out"
	rc=$?
	line=$(json "$T/totp.json" line 2>/dev/null) t=$(json "$T/totp.json" time 2>/dev/null)
	code=$(sed -n 's/^TOTP \([0-9]\{6\}\) (valid \([0-9]*\) s)$/\1/p' <<<"$line")
	valid=$(sed -n 's/^TOTP [0-9]\{6\} (valid \([0-9]*\) s)$/\1/p' <<<"$line")
	want=$(oathtool --totp -b "$SECRET" -N "@$t" 2>/dev/null)
	[ $rc = 0 ] && [ -n "$code" ] && [ "$code" = "$want" ] && [ "$valid" = $((30 - t % 30)) ]
	echo "$line (oathtool at $t: $want)" >"$T/out"
	res "totp $i: the code oathtool gives at that second, valid until the step ends" $?
	[ $i = 1 ] && sleep $(( 31 - $(date +%s) % 30 ))   # the next step
done
lt totp >"$T/out" 2>&1 && grep -Eq '^TOTP [0-9]{6} \(valid [0-9]+ s\)$' "$T/out"
res "totp: the line the menu shows" $?
tpm2_getcap handles-transient >"$T/out" 2>&1; tpm2_getcap handles-loaded-session >>"$T/out" 2>&1
! grep -q '0x' "$T/out"
res "no transient objects or sessions left in the TPM" $?

# ---- a changed PCR ------------------------------------------------------------------
tpm2_pcrextend 9:sha256=$(printf '%064x' 1) >/dev/null 2>&1
lt totp >"$T/out" 2>&1; rc=$?
[ $rc = 1 ] && grep -q 'TOTP unseal failed: measurements changed$' "$T/out"
res "PCR 9 extended: 'TOTP unseal failed: measurements changed', exit 1" $?
# a PCR outside the set does not matter
lt seal-totp --pcrs 0,2,4,7,9 >/dev/null 2>"$T/out"
tpm2_pcrextend 10:sha256=$(printf '%064x' 2) >/dev/null 2>&1
lt totp >"$T/out" 2>&1
res "re-sealed: PCR 10 (not in the set) extended, still unseals" $?

# ---- re-seal: idempotent, replaces the record ------------------------------------------
lt --json seal-totp --pcrs 16,23 >"$T/seal2.json" 2>"$T/out"
res "re-seal to PCRs 16,23 over the old record" $?
S2=$(secret_of "$(json "$T/seal2.json" uri 2>/dev/null)")
t=$(date +%s)
lt --json totp >"$T/totp.json" 2>"$T/out"
code=$(json "$T/totp.json" line | sed -n 's/^TOTP \([0-9]\{6\}\).*/\1/p')
t=$(json "$T/totp.json" time)
[ -n "$S2" ] && [ "$S2" != "$SECRET" ] && [ "$code" = "$(oathtool --totp -b "$S2" -N "@$t")" ]
res "the new secret's code (a new secret each seal)" $?
[ "$(tpm2_getcap handles-nv-index 2>/dev/null | grep -ci '0x0*1500010')" = 1 ]
res "one NV index 0x01500010" $?
tpm2_pcrextend 23:sha256=$(printf '%064x' 3) >/dev/null 2>&1
lt totp >"$T/out" 2>&1; [ $? = 1 ] && grep -q 'measurements changed' "$T/out"
res "--pcrs 16,23: PCR 23 extended: unseal fails" $?
lt seal-totp --pcrs 16 --index 0x01500011 >/dev/null 2>&1 && lt totp --index 0x01500011 >"$T/out" 2>&1
res "--index 0x01500011: seal and unseal there" $?

# ---- reseal-totp: after an update, a new secret to the same PCRs ---------------------------
# (NV 0x01500010 is sealed to PCRs 16,23 and PCR 23 was extended above)
tpm2_nvread 0x01500010 -C 0x01500010 -o "$T/rec-r0.bin" 2>/dev/null
lt reseal-totp --pcrs 0 >"$T/out" 2>&1; [ $? = 2 ]
res "reseal-totp --pcrs: usage error (it keeps the record's PCRs)" $?
lt reseal-totp --index 0x01500012 >"$T/out" 2>&1; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/out")" = 1 ] && grep -q 'no TOTP in NV 0x01500012' "$T/out"
res "reseal-totp where there is no TOTP: exit 1, one line" $?
# a TPM error (owner auth set, so CreatePrimary fails): one line, the record unchanged
tpm2_changeauth -c o ownerpw >/dev/null 2>&1
mark_io
lt reseal-totp >"$T/out" 2>&1; rc=$?
cmds_since >"$T/cmds-fail"
tpm2_nvread 0x01500010 -C 0x01500010 -o "$T/rec-r1.bin" 2>/dev/null
tpm2_changeauth -c o -p ownerpw >/dev/null 2>&1
[ $rc = 1 ] && [ "$(wc -l <"$T/out")" = 1 ] && grep -q 'reseal TOTP: CreatePrimary: TPM_RC_.*; the old sealed secret is unchanged$' "$T/out" &&
	cmp -s "$T/rec-r0.bin" "$T/rec-r1.bin"
res "reseal-totp with a TPM error: exit 1, one line naming it, the NV record byte-identical" $?
grep -q CreatePrimary "$T/cmds-fail" && ! grep -Eq '^NV_(Write|UndefineSpace|DefineSpace)$' "$T/cmds-fail"
res "reseal-totp with a TPM error: no NV command sent after it (swtpm's log: $(tr '\n' ' ' <"$T/cmds-fail" | head -c 200))" $?
lt totp >"$T/out" 2>&1; [ $? = 1 ] && grep -q 'measurements changed' "$T/out"
res "reseal-totp failed: the old record still says 'measurements changed'" $?
mark_io
lt --json reseal-totp >"$T/reseal.json" 2>"$T/out"
res "reseal-totp after PCR 23 changed" $?
cmds_since >"$T/cmds-ok"
[ "$(grep -c '^NV_Write$' "$T/cmds-ok")" = 1 ] && ! grep -Eq '^NV_(UndefineSpace|DefineSpace)$' "$T/cmds-ok" &&
	[ "$(grep -n '^Create$' "$T/cmds-ok" | cut -d: -f1)" -lt "$(grep -n '^NV_Write$' "$T/cmds-ok" | cut -d: -f1)" ]
res "reseal-totp: Create first, then one NV_Write over the record, no undefine (swtpm's log)" $?
S3=$(secret_of "$(json "$T/reseal.json" uri 2>/dev/null)")
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["resealed"] is True and d["pcrs"] == [16, 23] and d["index"] == "0x01500010", d' "$T/reseal.json" >"$T/out" 2>&1
res "reseal-totp --json: resealed, the record's PCRs 16,23 kept, NV 0x01500010" $?
lt --json totp >"$T/totp.json" 2>"$T/out"
code=$(json "$T/totp.json" line | sed -n 's/^TOTP \([0-9]\{6\}\).*/\1/p')
t=$(json "$T/totp.json" time)
[ ${#S3} = 32 ] && [ "$S3" != "$S2" ] && [ "$code" = "$(oathtool --totp -b "$S3" -N "@$t")" ]
res "resealed: a new secret, and the code is oathtool's for it" $?
tpm2_nvread 0x01500010 -C 0x01500010 -o "$T/rec-r2.bin" 2>/dev/null
[ "$(stat -c %s "$T/rec-r2.bin")" = "$(stat -c %s "$T/rec-r0.bin")" ] && ! cmp -s "$T/rec-r0.bin" "$T/rec-r2.bin" &&
	[ "$(tpm2_getcap handles-nv-index 2>/dev/null | grep -ci '0x0*1500010')" = 1 ]
res "resealed: a new record of the same size in the one NV index" $?
lt reseal-totp --ascii >"$T/out" 2>&1 && grep -q '^TOTP resealed to sha256 PCRs 16,23 in NV 0x01500010' "$T/out" &&
	grep -Eq '^ *(##)+ *$' "$T/out"
res "reseal-totp: the line and the QR code" $?
# an index of the record's size but other attributes (no NO_DA): undefined
# and defined again with lboot's
tpm2_nvread 0x01500010 -C 0x01500010 -o "$T/rec-r3.bin" 2>/dev/null
tpm2_nvdefine 0x01500013 -C o -s "$(stat -c %s "$T/rec-r3.bin")" -a 'ownerwrite|ownerread|authread' >/dev/null 2>&1 &&
	tpm2_nvwrite 0x01500013 -C o -i "$T/rec-r3.bin" >/dev/null 2>&1
mark_io
lt reseal-totp --index 0x01500013 >"$T/out" 2>&1 && cmds_since >"$T/cmds-def" &&
	grep -q '^NV_UndefineSpace$' "$T/cmds-def" && grep -q '^NV_DefineSpace$' "$T/cmds-def" &&
	tpm2_nvreadpublic 0x01500013 2>/dev/null | grep -q no_da && lt totp --index 0x01500013 >>"$T/out" 2>&1
res "reseal-totp over an index with other attributes: undefined, defined with lboot's, unseals" $?

# ---- a bad record ---------------------------------------------------------------------
tpm2_nvundefine 0x01500010 >/dev/null 2>&1
tpm2_nvdefine 0x01500010 -C o -s 32 -a 'ownerwrite|ownerread|authread' >/dev/null 2>&1 &&
	head -c 32 /dev/urandom >"$T/junk" && tpm2_nvwrite 0x01500010 -C o -i "$T/junk" >/dev/null 2>&1
lt totp >"$T/out" 2>&1; [ $? = 1 ] && grep -q 'NV 0x01500010 holds no TOTP record' "$T/out"
res "an NV index with garbage: 'holds no TOTP record'" $?
lt reseal-totp >"$T/out" 2>&1; rc=$?
tpm2_nvread 0x01500010 -C 0x01500010 -o "$T/junk2" 2>/dev/null
[ $rc = 1 ] && grep -q 'NV 0x01500010 holds no TOTP record; nothing changed' "$T/out" && cmp -s "$T/junk" "$T/junk2"
res "reseal-totp over garbage: refused, the index unchanged" $?
# the record of one TPM on another TPM: the blobs do not load (another owner seed)
cp "$T/rec.bin" "$T/rec-old.bin"
lt seal-totp >/dev/null 2>&1
tpm2_nvread 0x01500010 -C 0x01500010 -o "$T/rec.bin" 2>/dev/null
python3 - "$T/rec.bin" "$T/rec-bad.bin" <<'PY'
import sys
r = bytearray(open(sys.argv[1], 'rb').read())
r[20] ^= 1   # inside the private area: integrity check fails
open(sys.argv[2], 'wb').write(r)
PY
tpm2_nvwrite 0x01500010 -C o -i "$T/rec-bad.bin" >/dev/null 2>&1
lt totp >"$T/out" 2>&1; [ $? = 1 ] && grep -Eq 'TOTP unseal failed: Load: TPM_RC_' "$T/out"
res "a corrupted private area: the failing command and RC named ($(head -c 80 "$T/out"))" $?

# ---- QR codes of several lengths, both levels, every mask: zbarimg reads them back -------
n=0 bad=0
for len in 1 14 15 40 77 106 134 180 213 271; do
	text=$(python3 -c "import sys; s='otpauth://totp/x?secret=ABCDEFGHIJKLMNOPQRSTUVWXYZ234567&issuer=lboot%20e2e&'*8; print(s[:$len])")
	for ecc in L M; do
		[ $ecc = M ] && [ $len -gt 213 ] && continue
		for mask in auto 0 1 2 3 4 5 6 7; do
			[ $mask != auto ] && [ $len != 77 ] && [ $len != 213 ] && continue
			m=(); [ $mask != auto ] && m=(--mask $mask)
			n=$((n + 1))
			"$L" qr --ecc $ecc "${m[@]}" --pbm "$T/q.pbm" "$text" 2>>"$T/out" &&
				[ "$(zbarimg -q --raw "$T/q.pbm" 2>/dev/null)" = "$text" ] ||
				{ bad=$((bad + 1)); echo "len $len ecc $ecc mask $mask" >>"$T/qrbad"; }
		done
	done
done
[ $bad = 0 ] && [ $n -gt 30 ]
res "zbarimg decodes lboot qr: $n symbols (versions 1..10, L and M, masks 0..7)" $?
[ -f "$T/qrbad" ] && sed 's/^/# /' "$T/qrbad"
"$L" qr "$(head -c 214 /dev/zero | tr '\0' x)" >"$T/out" 2>&1; [ $? = 1 ]
res "lboot qr: 214 bytes at M: too long, exit 1" $?
"$L" qr --json --ecc L "$(head -c 271 /dev/zero | tr '\0' x)" 2>&1 | grep -q '"version":10,"size":57,"ecc":"L"'
res "lboot qr --json: 271 bytes at L is version 10" $?
exit 0
