#!/bin/bash
# lboot tpm against a real software TPM (swtpm socket --tpm2 on a 127.0.0.1
# high port, its state in a temporary directory) with the real tpm2-tools
# (TCTI swtpm) and openssl as independent checkers. Needs out/lboot, swtpm,
# tpm2-tools, openssl.
cd "$(dirname "$0")/../.." || exit 1
L=${LBOOT:-$PWD/out/lboot}
F=$PWD/tests/files/tpm
for c in "$L" swtpm tpm2_pcrread tpm2_eventlog openssl; do
	command -v "$c" >/dev/null || { echo "not ok tpm.sh: $c missing (scripts/deps.sh)"; exit 1; }
done
T=$(mktemp -d /tmp/lboot-tpm-sh.XXXXXX) || exit 1
spid=
cleanup() {
	if [ -n "$spid" ]; then
		kill -CONT "$spid" 2>/dev/null
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
		if [ -n "$VERBOSE" ]; then sed 's/^/#   /' "$T/check.log" | head -5; fi
	else
		echo "not ok $name"
		sed 's/^/# /' "$T/check.log" | head -20
	fi
}

# ---- a swtpm on a free port pair ---------------------------------------------
mkdir -p "$T/state"
for try in 1 2 3 4 5; do
	port=$(( 20000 + (RANDOM * 7 + $$) % 40000 ))
	swtpm socket --tpm2 --tpmstate dir="$T/state" \
		--server type=tcp,port=$port,bindaddr=127.0.0.1 \
		--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 \
		--flags not-need-init,startup-clear >"$T/swtpm.log" 2>&1 &
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
[ -n "$spid" ] || { echo "not ok tpm.sh: swtpm did not start"; cat "$T/swtpm.log"; exit 1; }
export TPM2TOOLS_TCTI=swtpm:host=127.0.0.1,port=$port
lt() { "$L" tpm --tcp 127.0.0.1:$port "$@"; }

# ---- info ------------------------------------------------------------------------
t_info() {
	lt --json info >"$T/info.json" || return 1
	cat "$T/info.json"
	grep -q '"manufacturer":"IBM"' "$T/info.json" &&
	grep -q '"banks":\["sha1","sha256","sha384","sha512"\]' "$T/info.json"
}
check "info names swtpm and its four active banks" t_info

# ---- pcrread -------------------------------------------------------------------
t_pcrread() {
	lt pcrread >"$T/mine" && tpm2_pcrread >"$T/theirs" && diff "$T/mine" "$T/theirs" &&
	lt pcrread sha1:0,17+sha512:23 >"$T/mine" &&
	tpm2_pcrread sha1:0,17+sha512:23 >"$T/theirs" && diff "$T/mine" "$T/theirs" || return 1
	lt pcrread sha3_256:0 2>"$T/err"
	[ $? -eq 1 ] && grep -q 'PCR bank sha3_256 is not active' "$T/err"
}
check "pcrread equals tpm2_pcrread" t_pcrread

# ---- extend: all banks in one command; expected values from openssl ----------
pcr_hex() { # bank N: the PCR as lowercase hex, from tpm2_pcrread
	tpm2_pcrread "$1:$2" | sed -n 's/^ *[0-9]* *: 0x//p' | tr A-F a-f
}
t_extend() {
	local args=() b d old new
	printf 'lboot measured this' >"$T/data"
	for b in sha1 sha256 sha384 sha512; do
		d=$(openssl dgst -$b -r "$T/data" | cut -d' ' -f1)
		args+=("$b:$d")
		old=$(pcr_hex $b 8)
		printf '%s%s' "$old" "$d" | xxd -r -p | openssl dgst -$b -r | cut -d' ' -f1 >"$T/want.$b"
	done
	lt extend 8 "${args[@]}" || return 1
	for b in sha1 sha256 sha384 sha512; do
		new=$(pcr_hex $b 8)
		echo "$b: $new"
		[ "$new" = "$(cat "$T/want.$b")" ] || { echo "$b: want $(cat "$T/want.$b")"; return 1; }
	done
}
check "extend: every active bank as tpm2_pcrread and openssl say" t_extend

t_extend_partial() {
	local before after
	before=$(tpm2_pcrread sha1:9+sha256:9)
	lt extend 9 "sha256:$(openssl dgst -sha256 -r "$T/data" | cut -d' ' -f1)" 2>"$T/err"
	[ $? -eq 2 ] || return 1
	cat "$T/err"
	grep -q 'no digest for the active bank sha1' "$T/err" || return 1
	after=$(tpm2_pcrread sha1:9+sha256:9)
	[ "$before" = "$after" ]
}
check "extend refuses to leave an active bank out (exit 2, PCR unchanged)" t_extend_partial

# ---- NV counter --------------------------------------------------------------------
t_counter() {
	local idx=0x01500017 v
	lt counter $idx define || return 1
	lt counter $idx read 2>"$T/err" && return 1 # never incremented
	for _ in 1 2 3; do lt counter $idx increment || return 1; done
	v=$(lt counter $idx read) || return 1
	[ "$v" = 3 ] || { echo "read $v"; return 1; }
	[ "$(tpm2_nvread -C o -s 8 $idx | xxd -p)" = 0000000000000003 ] || return 1
	lt counter $idx define 2>"$T/err" && return 1
	grep -q 'TPM_RC_NV_DEFINED' "$T/err" || return 1
	lt counter $idx undefine || return 1
	# gone: NV_ReadPublic's handle is refused, named
	lt counter $idx read 2>"$T/err" && return 1
	cat "$T/err"
	grep -q 'NV_ReadPublic: TPM_RC_HANDLE (handle 1)' "$T/err"
}
check "NV counter: defined, increments to 3 (tpm2_nvread agrees), undefined" t_counter

# ---- seal to a PCR policy, unseal, fail after an extend -------------------------
t_seal() {
	local d1 d2 d3 d5
	printf 'JBSWY3DPEHPK3PXP' >"$T/secret"
	lt seal sha256:0,7,11 "$T/secret" "$T/sealed" || return 1
	lt unseal sha256:0,7,11 "$T/sealed" >"$T/out" || return 1
	cmp "$T/secret" "$T/out" || return 1
	for b in sha1 sha256 sha384 sha512; do
		eval "d_$b=$(printf x | openssl dgst -$b -r | cut -d' ' -f1)"
	done
	lt extend 11 "sha1:$d_sha1" "sha256:$d_sha256" "sha384:$d_sha384" "sha512:$d_sha512" || return 1
	lt unseal sha256:0,7,11 "$T/sealed" >"$T/out" 2>"$T/err"
	[ $? -eq 1 ] || return 1
	cat "$T/err"
	[ ! -s "$T/out" ] && grep -q 'Unseal: TPM_RC_POLICY_FAIL (session 1)' "$T/err" || return 1
	# nothing left loaded in the TPM (no resource manager on swtpm's port)
	[ -z "$(tpm2_getcap handles-transient)" ] && [ -z "$(tpm2_getcap handles-loaded-session)" ]
}
check "seal to PCR policy, unseal, then TPM_RC_POLICY_FAIL after an extend" t_seal

t_seal_bad() {
	head -c 300 /dev/urandom >"$T/garbage"
	lt unseal sha256:0 "$T/garbage" 2>"$T/err"
	[ $? -eq 1 ] && grep -q 'not a sealed object' "$T/err"
}
check "unseal of a garbage file: one error line" t_seal_bad

# ---- event log -------------------------------------------------------------------
# tpm2_eventlog's "pcrs:" section as "bank N HEX" lines
their_pcrs() {
	tpm2_eventlog "$1" | sed -n '/^pcrs:/,$p' | awk '
		/^  [a-z0-9_]+:$/ { b = $1; sub(":", "", b); next }
		/^    [0-9]+ *:/ { sub("0x", "", $3); print b, $1, toupper($3) }'
}
my_pcrs() {
	lt eventlog "$1" --replay | awk '
		/^  [a-z0-9_]+:$/ { b = $1; sub(":", "", b); next }
		/^    [0-9]+ *:/ { n = $1; sub(":", "", n); v = $NF; sub("0x", "", v); print b, n, v }'
}
t_replay() {
	my_pcrs "$F/ovmf-eventlog.bin" >"$T/mine" || return 1
	their_pcrs "$F/ovmf-eventlog.bin" >"$T/theirs"
	[ "$(wc -l <"$T/mine")" -eq 36 ] || return 1 # 4 banks x 9 PCRs
	diff "$T/mine" "$T/theirs" || return 1
	# and the TPM's own values, read by the guest that made the log
	tr ':' ' ' <"$F/ovmf-pcrs.txt" | grep -v ' 8 ' | sort >"$T/tpm"
	sort "$T/mine" | diff - "$T/tpm"
}
check "eventlog --replay of a real OVMF log equals tpm2_eventlog and the TPM" t_replay

t_events() {
	local n m
	n=$(lt eventlog "$F/ovmf-eventlog.bin" | grep -c '^[0-9]*: PCR')
	m=$(tpm2_eventlog "$F/ovmf-eventlog.bin" | grep -c '^- EventNum:')
	echo "lboot $n, tpm2_eventlog $m"
	# tpm2_eventlog counts the Spec ID header event too
	[ "$n" -gt 20 ] && [ $((n + 1)) -eq "$m" ]
}
check "eventlog lists the events tpm2_eventlog lists" t_events

t_bad_log() {
	head -c 100 "$F/ovmf-eventlog.bin" >"$T/cut.bin"
	lt eventlog "$T/cut.bin" >/dev/null 2>"$T/err"
	[ $? -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'not a well-formed' "$T/err"
}
check "a cut event log: exit 1, one line" t_bad_log

# ---- random, platform hierarchy, faults ------------------------------------------
t_random() {
	local a b
	a=$(lt getrandom 100) && b=$(lt getrandom 100) || return 1
	[ ${#a} -eq 200 ] && [ "$a" != "$b" ] && [[ $a =~ ^[0-9a-f]+$ ]]
}
check "getrandom 100 (several GetRandom commands)" t_random

t_lock() {
	tpm2_changeauth -c platform first || return 1 # empty auth before: works
	tpm2_changeauth -c platform -p first || return 1  # back to empty
	lt lock-platform || return 1
	# now nobody knows the platform auth: an empty one is refused
	! tpm2_changeauth -c platform second 2>"$T/err"
}
check "lock-platform: the platform hierarchy auth is no longer empty" t_lock

t_refused() {
	local t0=$SECONDS
	"$L" tpm --tcp 127.0.0.1:1 info 2>"$T/err"
	[ $? -eq 1 ] && grep -q 'Connection refused' "$T/err" && [ $((SECONDS - t0)) -lt 5 ]
}
check "no TPM listening: one line, at once" t_refused

t_hang() {
	local t0 rc
	kill -STOP "$spid"
	t0=$(date +%s%N)
	lt --timeout 1500 getrandom 8 2>"$T/err"
	rc=$?
	kill -CONT "$spid"
	local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "rc $rc after $ms ms: $(cat "$T/err")"
	[ $rc -eq 1 ] && grep -q 'timed out' "$T/err" && [ $ms -ge 1400 ] && [ $ms -lt 5000 ]
}
check "a TPM that never answers: timed out after --timeout" t_hang

t_usage() {
	lt pcrread sha999:0 2>/dev/null; [ $? -eq 2 ] || return 1
	lt extend 30 00 2>/dev/null; [ $? -eq 2 ] || return 1
	lt extend 8 zz 2>/dev/null; [ $? -eq 2 ] || return 1
	lt getrandom 0 2>/dev/null; [ $? -eq 2 ] || return 1
	"$L" tpm --tcp 127.0.0.1:$port --device /dev/null info 2>/dev/null; [ $? -eq 2 ] || return 1
	"$L" tpm --help | grep -q 'usage: lboot tpm'
}
check "bad usage: exit 2" t_usage
exit 0
