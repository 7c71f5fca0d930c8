#!/bin/bash
# `lboot net ntp` (src/net/ntp.c, src/net/sntp.c: the client the boot flow
# runs before TLS) against chrony (Debian's chronyd) on 127.0.0.1/::1 in a
# private network namespace (unshare -n). chronyd runs with -x: it never
# touches the clock, which the namespace shares with the host. The oracle
# for the time is the clock chronyd serves (this host's): lboot's answer
# must be within 1 s of `date` read around it. Then: a chronyd that is not
# synchronized (no `local` stratum: stratum 0, LI 3) refused with its
# reason, a closed port, a silent server (a socket that reads and never
# answers) ending within the bound, and a silent server followed by chrony.
# Prints ok/not ok/skip lines.
cd "$(dirname "$0")/../.." || exit 1
LBOOT=$PWD/out/lboot

. tests/host/netns-lib.sh
netns_enter ntp "$@"

command -v python3 >/dev/null 2>&1 || { echo "not ok ntp/deps: python3 not installed (scripts/deps.sh)"; exit 1; }
CHRONYD=$PWD/scripts/chronyd  # installed, or unpacked by scripts/deps.sh
"$CHRONYD" -v >/dev/null 2>&1 || { echo "not ok ntp/deps: no chronyd (make deps: scripts/deps.sh unpacks it)"; exit 1; }

netns_setup ntp


# chronyd NAME PORT [local]: a server on 127.0.0.1 and ::1, port PORT
chrony() {
	local name=$1 port=$2 loc=
	[ "${3:-}" = local ] && loc="local stratum 8"
	cat >"$T/$name.conf" <<EOC
port $port
bindaddress 127.0.0.1
bindaddress ::1
$loc
allow 127.0.0.1
allow ::1
cmdport 0
pidfile $T/$name.pid
driftfile $T/$name.drift
EOC
	"$CHRONYD" -d -x -u root -f "$T/$name.conf" >"$T/$name.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 1 50); do
		grep -q "Disabled control of system clock" "$T/$name.log" && return 0
		sleep 0.1
	done
	sed 's/^/# /' "$T/$name.log"
	return 1
}

chrony synced 11123 local || notok "ntp/chronyd" "chronyd did not start"
chrony unsynced 11124 || notok "ntp/chronyd-unsynced" "chronyd did not start"
sleep 0.3

# 1. the time from chrony, v4 and v6, against this host's clock
for srv in 127.0.0.1:11123 '[::1]:11123'; do
	before=$(date +%s.%N)
	out=$("$LBOOT" net ntp "$srv" 2>"$T/err")
	rc=$?
	after=$(date +%s.%N)
	t=$(sed -n 's/^ntp time .*(\([0-9.]*\)) from .*/\1/p' <<<"$out")
	if [ $rc = 0 ] && [ -n "$t" ] && grep -qF "from $srv, stratum 8" <<<"$out" &&
	   python3 -c "import sys; b,t,a=map(float,sys.argv[1:]); sys.exit(not (b-1<=t<=a+1))" \
		"$before" "$t" "$after"; then
		ok "ntp/chrony $srv: $(sed 's/ (.*) / /' <<<"$out")"
	else
		notok "ntp/chrony $srv" "rc=$rc out='$out' err='$(cat "$T/err")' host clock $before..$after"
	fi
done

# 2. chronyd without a time of its own: refused with the reason
out=$("$LBOOT" net ntp --timeout 2 127.0.0.1:11124 2>&1)
rc=$?
[ $rc = 1 ] && grep -q "127.0.0.1:11124: server not synchronized" <<<"$out" &&
	ok "ntp/unsynchronized chronyd refused ($out)" || notok "ntp/unsynchronized" "rc=$rc $out"

# 3. a closed port: ICMP port unreachable ends it at once
out=$("$LBOOT" net ntp 127.0.0.1:11125 2>&1)
rc=$?
[ $rc = 1 ] && grep -q "port unreachable" <<<"$out" && ok "ntp/closed port ($out)" ||
	notok "ntp/closed port" "rc=$rc $out"

# 4. a silent server (reads, never answers): two requests, then one line
python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 11126))
open(sys.argv[1], "w").close()
while True:
    d, a = s.recvfrom(2048)
    open(sys.argv[1], "a").write("%d\n" % len(d))
' "$T/silent.log" &
pids+=($!)
for _ in $(seq 1 50); do [ -e "$T/silent.log" ] && break; sleep 0.1; done
out=$("$LBOOT" net ntp --timeout 1 127.0.0.1:11126 2>&1)
rc=$?
[ $rc = 1 ] && grep -q "127.0.0.1:11126: no answer; 2 requests in" <<<"$out" &&
	[ "$(grep -c '^48$' "$T/silent.log")" = 2 ] &&
	ok "ntp/silent server: two 48-byte requests, one line ($out)" ||
	notok "ntp/silent server" "rc=$rc $out; requests: $(tr '\n' ' ' <"$T/silent.log")"

# 5. silent first, chrony second: the second answers within the bound
out=$("$LBOOT" net ntp --timeout 3 127.0.0.1:11126 127.0.0.1:11123 2>&1)
rc=$?
[ $rc = 0 ] && grep -q "from 127.0.0.1:11123, stratum 8" <<<"$out" &&
	ok "ntp/second server answers after a silent first" || notok "ntp/second server" "rc=$rc $out"

exit $fail
