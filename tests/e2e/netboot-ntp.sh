#!/bin/bash
# Issue 13: NTP before TLS. The guest's RTC is set to 2001 (-rtc base=), the
# firmware was built today (its time floor is today 00:00 UTC), and nginx's
# HTTPS certificate and its CA are made by this test, so they are valid
# only from now on: the RTC and the build-date floor both lie before
# notBefore, and only the time from NTP makes the handshake succeed.
# dnsmasq gives option 42 (NTP server) and an https:// iPXE script; chrony
# (chronyd -x: it never sets the clock, which the namespace shares with the
# host; `local stratum 8`) answers on the tap's address.
#   1. NTP offered: the clock is set from chrony (one line naming the
#      server and the time), then the iPXE script, kernel and initrd over
#      HTTPS, and the target boots.
#   2. lboot.ntp=off (option 42 still offered): no NTP request, the TLS
#      fetch fails with the certificate-not-yet-valid line (the test can
#      fail), and PID 1 goes on to "nothing to boot" and the menu.
#   3. no option 42: the same; with lboot.ntp=SERVER, booted as in 1.
#   3c. the RTC two years ahead, lboot.ntp=SERVER: chrony's (earlier) time
#      does not move the clock back (issue 23).
#   4. the NTP server silent (chrony stopped, a socket on port 123 that
#      reads and never answers): one line naming the server and the two
#      requests (all within lboot's 3 s bound), then the same as 2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-lib.sh"
e2e_init netboot-ntp
net_init
CHRONYD=$E2E_ROOT/scripts/chronyd  # installed, or unpacked by scripts/deps.sh
"$CHRONYD" -v >/dev/null 2>&1 || { not_ok "no chronyd (make deps: scripts/deps.sh unpacks it)"; exit 1; }
target_os
W=$T/www
mkdir -p "$W/boot"
net_pki          # CA and server certificate made now: notBefore = now
openssl x509 -in "$K/srv.pem" -noout -startdate | sed 's/^/# server certificate /'
cp "$TARGET_KERNEL" "$W/boot/vmlinuz"
cp "$TARGET_INITRD" "$W/boot/initrd.img"
cat >"$W/boot.ipxe" <<'EOS'
#!ipxe
kernel https://192.168.77.1/boot/vmlinuz console=ttyS0 lboot-test=ntp quiet
initrd https://192.168.77.1/boot/initrd.img
boot
EOS
net_nginx "$W" https
net_wait_http https://192.168.77.1/boot.ipxe
"$OUT/lboot" mkinitramfs -o "$T/fw-ca.cpio.xz" --init "$OUT/lboot-target" --ca "$K/ca.pem" 2>/dev/null ||
	{ not_ok "mkinitramfs --ca"; exit 1; }
export E2E_INITRD=$T/fw-ca.cpio.xz
RTC=(-rtc base=2001-01-01T00:00:00)

cat >"$T/chrony.conf" <<EOC
port 123
bindaddress $NET_IP
local stratum 8
allow 192.168.77.0/24
cmdport 0
pidfile $T/chronyd.pid
driftfile $T/chrony.drift
EOC
ip netns exec "$NS" "$CHRONYD" -d -x -u root -f "$T/chrony.conf" >"$T/chronyd.log" 2>&1 &
CHRONY=$!
for _ in $(seq 1 50); do grep -q "Disabled control of system clock" "$T/chronyd.log" && break; sleep 0.1; done
ip netns exec "$NS" "$OUT/lboot" net ntp "$NET_IP" >"$T/ntp-check" 2>&1 &&
	ok "chrony answers on $NET_IP:123 ($(cat "$T/ntp-check"))" ||
	{ not_ok "chrony answers on $NET_IP:123: $(cat "$T/ntp-check") $(cat "$T/chronyd.log")"; exit 1; }

dhcp() { # [--dhcp-option=...]
	net_dnsmasq dnsmasq --dhcp-range=192.168.77.50,192.168.77.99,255.255.255.0,1h \
		--dhcp-boot=https://192.168.77.1/boot.ipxe "$@"
}

# the TLS fetch refused at the floor's time (the RTC raised to the build date), then the menu
refused() { # TAG
	expect "lboot: network boot: https://$NET_IP(/boot.ipxe)?: certificate expired or not yet valid" 240 &&
		ok "$1: the HTTPS fetch fails: certificate not yet valid" ||
		not_ok "$1: the HTTPS fetch fails: certificate not yet valid"
	grep -a "lboot: network boot: https" "$T/serial.log" | tail -1 | tr -d '\r' | sed 's/^/# /'
	expect 'lboot: nothing to boot \(round 1\)' 60 && ok "$1: nothing to boot, PID 1 goes on" ||
		not_ok "$1: nothing to boot, PID 1 goes on"
	expect 'lboot> ' 30 && ok "$1: menu prompt" || not_ok "$1: menu prompt"
	expect_not 'Kernel panic|Attempted to kill init' && ok "$1: no panic" || not_ok "$1: no panic"
	expect_not 'lboot-target: TARGET-OS-UP' && ok "$1: nothing booted" || not_ok "$1: nothing booted"
	qemu_stop
}

# --- 1. NTP offered ---------------------------------------------------------------
dhcp --dhcp-option=option:ntp-server,$NET_IP
today=$(date -u +%Y-%m-%d)
qemu_start "${NIC[@]}" "${RTC[@]}"
expect "lboot: ntp: clock set to $today [0-9:]+ UTC from $NET_IP \(stratum 8" 240 &&
	ok "ntp: clock set from $NET_IP, today's date" || not_ok "ntp: clock set from $NET_IP, today's date"
grep -a "lboot: ntp:" "$T/serial.log" | tr -d '\r' | sed 's/^/# /'
# the RTC's 2001 is first raised to the floor (the build date: no EFI
# variable store here), and NTP moves it forward from there
grep -aEq "lboot: clock: 200[01]-[0-9: -]+ UTC is before the floor [0-9: -]+ UTC \(the build date\): raised to it" "$T/serial.log" &&
	ok "ntp: the RTC's 2001 raised to the floor first" || not_ok "ntp: the RTC's 2001 raised to the floor first"
grep -aEq "lboot: ntp: .*was 20[2-9][0-9]-" "$T/serial.log" && ok "ntp: the clock was the floor's before" ||
	not_ok "ntp: the clock was the floor's before"
expect 'lboot: net: iPXE script https://192.168.77.1/boot.ipxe' 120 && ok "ntp: iPXE script over HTTPS" ||
	not_ok "ntp: iPXE script over HTTPS"
expect "lboot: kexec 'vmlinuz' kernel=https://192.168.77.1/boot/vmlinuz initrd=https://192.168.77.1/boot/initrd.img" 300 &&
	ok "ntp: kernel and initrd over HTTPS" || not_ok "ntp: kernel and initrd over HTTPS"
expect 'lboot-target: cmdline: .*lboot-test=ntp' 240 && ok "ntp: the target booted" || not_ok "ntp: the target booted"
[ "$(grep -ac 'lboot: ntp:' "$T/serial.log")" = 1 ] && ok "ntp: asked once per boot" ||
	not_ok "ntp: asked once per boot ($(grep -ac 'lboot: ntp:' "$T/serial.log") lines)"
qemu_stop

# --- 2. lboot.ntp=off -------------------------------------------------------------
E2E_APPEND="lboot.timeout=0 lboot.ntp=off" qemu_start "${NIC[@]}" "${RTC[@]}"
refused ntp-off
grep -aq 'lboot: ntp:' "$T/serial.log" && not_ok "ntp-off: no NTP line" || ok "ntp-off: no NTP line"
net_dnsmasq_stop

# --- 3. no option 42 --------------------------------------------------------------
dhcp
qemu_start "${NIC[@]}" "${RTC[@]}"
refused no-option-42
grep -aq 'lboot: ntp:' "$T/serial.log" && not_ok "no-option-42: no NTP line" || ok "no-option-42: no NTP line"

# --- 3b. no option 42, lboot.ntp=SERVER names it -----------------------------------
E2E_APPEND="lboot.timeout=0 lboot.ntp=$NET_IP" qemu_start "${NIC[@]}" "${RTC[@]}"
expect "lboot: ntp: clock set to $today [0-9:]+ UTC from $NET_IP \(stratum 8" 240 &&
	ok "ntp-forced: lboot.ntp=$NET_IP sets the clock" || not_ok "ntp-forced: lboot.ntp=$NET_IP sets the clock"
expect 'lboot-target: cmdline: .*lboot-test=ntp' 240 && ok "ntp-forced: the target booted over HTTPS" ||
	not_ok "ntp-forced: the target booted over HTTPS"
qemu_stop

# --- 3c. the RTC two years ahead: NTP's (true, earlier) time is not taken ---------
# An unauthenticated answer never turns the clock back (issue 23: an
# attacker's NTP server would revive expired manifests and certificates).
future=$(( $(date -u +%Y) + 2 ))
E2E_APPEND="lboot.timeout=0 lboot.ntp=$NET_IP" qemu_start "${NIC[@]}" -rtc base=$future-01-01T00:00:00
expect "lboot: ntp: $NET_IP says $today [0-9:]+ UTC, not later than the clock $future-[0-9: -]+ UTC \(floor [0-9: -]+ UTC\): clock not moved back" 240 &&
	ok "rtc-ahead: NTP's earlier time does not move the clock back" ||
	not_ok "rtc-ahead: NTP's earlier time does not move the clock back"
grep -a "lboot: ntp:" "$T/serial.log" | tr -d '\r' | sed 's/^/# /'
expect_not "lboot: ntp: clock set to" && ok "rtc-ahead: the clock was not set" ||
	not_ok "rtc-ahead: the clock was not set"
qemu_stop
net_dnsmasq_stop

# --- 4. the NTP server silent -----------------------------------------------------
kill "$CHRONY"; wait "$CHRONY" 2>/dev/null
ip netns exec "$NS" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[2], 123))
open(sys.argv[1], "w").close()
while True:
    d, a = s.recvfrom(2048)
    open(sys.argv[1], "a").write("%d %s\n" % (len(d), a[0]))
' "$T/silent.log" "$NET_IP" &
SILENT=$!
for _ in $(seq 1 50); do [ -e "$T/silent.log" ] && break; sleep 0.1; done
dhcp --dhcp-option=option:ntp-server,$NET_IP
qemu_start "${NIC[@]}" "${RTC[@]}"
expect "lboot: ntp: $NET_IP: no answer; 2 requests in [0-9.]+ s; certificates checked at the clock's time" 240 &&
	ok "silent: one line names the server, two requests" || not_ok "silent: one line names the server, two requests"
grep -a "lboot: ntp:" "$T/serial.log" | tr -d '\r' | sed 's/^/# /'
refused silent
[ "$(grep -c '^48 192\.168\.77\.' "$T/silent.log")" = 2 ] && ok "silent: the server saw two 48-byte requests" ||
	not_ok "silent: the server saw two 48-byte requests ($(tr '\n' ' ' <"$T/silent.log"))"
kill "$SILENT" 2>/dev/null
e2e_done
