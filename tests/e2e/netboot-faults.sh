#!/bin/bash
# Issue 13, proof 6: network boot faults, each with no disk, real servers
# (dnsmasq, nginx) on a tap device in a network namespace. Each ends in one
# clear line, then "nothing to boot" and the menu prompt, with PID 1 up:
#   1. no DHCP answer on the wire
#   2. the TFTP server killed in the middle of a 40 MB initrd
#   3. HTTP 404 for the kernel an iPXE script names
#   4. HTTPS with a certificate from another CA than the one built in
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-lib.sh"
e2e_init netboot-faults
net_init
target_os
W=$T/www F=$T/tftp
mkdir -p "$W/boot" "$F/pxelinux.cfg"

# after the clear line: nothing to boot, the menu prompt, and PID 1 answers it
after_fault() { # TAG
	expect 'lboot: nothing to boot \(round 1\)' 60 && ok "$1: nothing to boot, rescan announced" ||
		not_ok "$1: nothing to boot, rescan announced"
	expect 'lboot> ' 30 && ok "$1: menu prompt" || not_ok "$1: menu prompt"
	# 'h' redraws the menu: one more prompt proves lboot reads the console
	local n0 i
	send ' '
	sleep 1
	n0=$(grep -ao 'lboot> ' "$T/serial.log" | wc -l)
	send 'h'
	for i in $(seq 100); do
		[ "$(grep -ao 'lboot> ' "$T/serial.log" | wc -l)" -gt "$n0" ] && break
		sleep 0.2
	done
	[ "$(grep -ao 'lboot> ' "$T/serial.log" | wc -l)" -gt "$n0" ] && ok "$1: PID 1 answers at the prompt" ||
		not_ok "$1: PID 1 answers at the prompt"
	expect_not 'Kernel panic|Attempted to kill init' && ok "$1: no panic" || not_ok "$1: no panic"
	expect_not 'lboot-target: TARGET-OS-UP' && ok "$1: nothing booted" || not_ok "$1: nothing booted"
	qemu_stop
}

# --- 1. no DHCP answer ----------------------------------------------------------
E2E_APPEND="lboot.timeout=0 lboot.net.timeout=6" qemu_start "${NIC[@]}"
expect 'lboot: network boot: bringing links up \(DHCP, up to 6 s\)' 120 && ok "no-dhcp: network boot started" ||
	not_ok "no-dhcp: network boot started"
expect 'lboot: network boot: .*(no DHCP|no answer|DISCOVER)' 60 && ok "no-dhcp: one clear line" ||
	not_ok "no-dhcp: one clear line"
grep -a 'lboot: network boot: ' "$T/serial.log" | tail -1 | tr -d '\r' | sed 's/^/# /'
after_fault no-dhcp

# --- 2. TFTP server gone mid-file ------------------------------------------------
cp "$TARGET_KERNEL" "$F/vmlinuz"
head -c 40000000 /dev/urandom >"$F/big.img"
: >"$F/pxelinux.0"
cat >"$F/pxelinux.cfg/default" <<'EOP'
DEFAULT big
LABEL big
  KERNEL vmlinuz
  INITRD big.img
  APPEND console=ttyS0 lboot-test=tftp-gone
EOP
chmod -R a+rX "$T"
# DHCP and TFTP from two dnsmasq processes: only the TFTP one is killed
net_dnsmasq dhcp --dhcp-range=192.168.77.50,192.168.77.99,255.255.255.0,1h --dhcp-boot=pxelinux.0,,$NET_IP
net_dnsmasq tftp --enable-tftp --tftp-root="$F" --tftp-no-fail
TFTP_PID=${DNSMASQ_PIDS[1]}
qemu_start "${NIC[@]}"
expect 'lboot: net eth0: DHCP lease 192\.168\.77\.[0-9]+/24 from 192\.168\.77\.1' 120 && ok "tftp-gone: lease" ||
	not_ok "tftp-gone: lease"
expect 'lboot: fetched [1-9][0-9]{3,} of 39062 KiB' 240 && ok "tftp-gone: the initrd transfer is under way (progress shown)" ||
	not_ok "tftp-gone: the initrd transfer is under way (progress shown)"
kill "$TFTP_PID"; wait "$TFTP_PID" 2>/dev/null
log "TFTP server killed at $(elapsed) s"
# on its own line (not after the open progress line), the URL named once
expect "^lboot: boot failed: big \\(network\\): tftp://$NET_IP/big.img: [^/]+\$" 120 && ok "tftp-gone: one clear line naming the file" ||
	not_ok "tftp-gone: one clear line naming the file"
grep -a "tftp://$NET_IP/big.img: " "$T/serial.log" | tail -1 | tr -d '\r' | sed 's/^/# /'
after_fault tftp-gone
net_dnsmasq_stop

# --- 3. HTTP 404 for the kernel --------------------------------------------------
net_pki
net_pki other
cp "$TARGET_INITRD" "$W/boot/initrd.img"
cp "$TARGET_KERNEL" "$W/boot/vmlinuz"
cat >"$W/missing.ipxe" <<EOS
#!ipxe
kernel http://$NET_IP/boot/no-such-vmlinuz console=ttyS0 lboot-test=404
initrd http://$NET_IP/boot/initrd.img
boot
EOS
cat >"$W/tls.ipxe" <<EOS
#!ipxe
kernel https://$NET_IP/boot/vmlinuz console=ttyS0 lboot-test=wrong-ca
initrd https://$NET_IP/boot/initrd.img
boot
EOS
net_nginx "$W" https
net_wait_http "http://$NET_IP/missing.ipxe" && ok "nginx up" || not_ok "nginx up"
net_dnsmasq dhcp --dhcp-range=192.168.77.50,192.168.77.99,255.255.255.0,1h \
	--dhcp-boot=http://$NET_IP/missing.ipxe
qemu_start "${NIC[@]}"
expect "lboot: net: iPXE script http://$NET_IP/missing.ipxe" 180 && ok "404: script fetched" || not_ok "404: script fetched"
# iPXE's kernel command fetches when it runs (|| would see it): the 404 is
# one line naming the URL and the status, then the script's failure
expect "^lboot: net: http://$NET_IP/boot/no-such-vmlinuz: HTTP 404 Not Found\$" 120 && ok "404: one clear line with the status" ||
	not_ok "404: one clear line with the status"
expect "^lboot: network boot: iPXE script .*no-such-vmlinuz" 30 && ok "404: the script fails at its kernel command" ||
	not_ok "404: the script fails at its kernel command"
grep -a "no-such-vmlinuz.*404" "$T/serial.log" | tail -1 | tr -d '\r' | sed 's/^/# /'
after_fault 404
grep -q 'GET /boot/no-such-vmlinuz HTTP/1.1" 404' "$T/nginx/access.log" && ok "404: nginx answered 404" ||
	not_ok "404: nginx answered 404"
net_dnsmasq_stop

# --- 4. HTTPS, a certificate from another CA -------------------------------------
"$OUT/lboot" mkinitramfs -o "$T/fw-other.cpio.xz" --init "$OUT/lboot-target" --ca "$K/other.pem" 2>/dev/null ||
	{ not_ok "mkinitramfs --ca other.pem"; exit 1; }
ip netns exec "$NS" curl -sf --cacert "$K/ca.pem" -o /dev/null "https://$NET_IP/tls.ipxe" &&
	ok "wrong-ca: nginx's certificate checks against its own CA (curl)" ||
	not_ok "wrong-ca: nginx's certificate checks against its own CA (curl)"
net_dnsmasq dhcp --dhcp-range=192.168.77.50,192.168.77.99,255.255.255.0,1h \
	--dhcp-boot=https://$NET_IP/tls.ipxe
n0=$(grep -c 'GET /tls.ipxe' "$T/nginx/access.log")
E2E_INITRD=$T/fw-other.cpio.xz qemu_start "${NIC[@]}"
expect "lboot: network boot: https://$NET_IP(/tls.ipxe)?: certificate not trusted" 240 &&
	ok "wrong-ca: one clear line, the certificate is not trusted" ||
	not_ok "wrong-ca: one clear line, the certificate is not trusted"
grep -a "lboot: network boot: " "$T/serial.log" | tail -1 | tr -d '\r' | sed 's/^/# /'
after_fault wrong-ca
n=$(grep -c 'GET /tls.ipxe' "$T/nginx/access.log")
[ "$n" = "$n0" ] && ok "wrong-ca: no request was sent over the untrusted connection" ||
	not_ok "wrong-ca: no request was sent over the untrusted connection ($n0 before, $n after)"
e2e_done
