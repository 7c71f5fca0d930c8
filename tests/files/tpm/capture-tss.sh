#!/bin/bash
# Print the command and response bytes that Debian's tpm2-tools (5.4, tss
# 3.2) exchange with a fresh swtpm for a few commands, from the TSS's own
# trace (TSS2_LOG=tcti+debug), as "TOOL CMDHEX RSPHEX" lines. These are the
# byte layouts tests/unit/test_tpm2.c checks our marshalling against, and
# the responses seed fuzz/corpus/tpm2. Made with:
#   tests/files/tpm/capture-tss.sh > tests/files/tpm/tss-capture.txt
set -eu
T=$(mktemp -d /tmp/lboot-tss.XXXXXX)
spid=
cleanup() { [ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
port=$(( 20000 + RANDOM % 20000 ))
swtpm socket --tpm2 --tpmstate dir="$T" --server type=tcp,port=$port,bindaddr=127.0.0.1 \
	--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 --flags not-need-init,startup-clear &
spid=$!
export TPM2TOOLS_TCTI=swtpm:host=127.0.0.1,port=$port
for _ in $(seq 50); do tpm2_getrandom 1 >/dev/null 2>&1 && break; sleep 0.1; done
# the hex dumps that follow a "Writing" (command) or "Response received" line
pairs() { # name cmd...
	local name=$1; shift
	TSS2_LOG=tcti+debug "$@" 2>"$T/trace" >/dev/null || true
	awk -v name="$name" '
		/socket_xmit_buf\(\) Writing/ { mode = "c"; cur = ""; next }
		/Response received/ { mode = "r"; cur = ""; next }
		mode != "" && /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]: / { cur = cur $2; next }
		mode != "" {
			if (mode == "c") cmd = cur; else print name, cmd, cur
			mode = ""
		}
		END { if (mode == "r") print name, cmd, cur }' "$T/trace"
}
pairs startup tpm2_startup -c
pairs getcap-pcrs tpm2_getcap pcrs
pairs getcap-props tpm2_getcap properties-fixed
pairs getrandom tpm2_getrandom 8
pairs pcrread tpm2_pcrread sha1:0,4+sha256:0,4
pairs pcrextend tpm2_pcrextend 8:sha1=0000000000000000000000000000000000000001,sha256=0000000000000000000000000000000000000000000000000000000000000002
pairs nvdefine tpm2_nvdefine 0x01500020 -C o -s 8 -a "nt=counter|ownerwrite|ownerread|authwrite|authread|no_da"
pairs nvincrement tpm2_nvincrement -C o 0x01500020
pairs nvreadpublic tpm2_nvreadpublic 0x01500020
pairs nvread tpm2_nvread -C o -s 8 0x01500020
pairs nvundefine tpm2_nvundefine -C o 0x01500020
pairs hash tpm2_hash -g sha256 --hex <(printf abc)
pairs changeauth tpm2_changeauth -c platform 0123456789abcdef
pairs flush tpm2_flushcontext 0x80000000
