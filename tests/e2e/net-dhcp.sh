#!/bin/bash
# Issue 13 (links and DHCP): in the firmware kernel, `lboot net up` from the
# shell brings up a virtio-net and an e1000 NIC (the e1000 has its cable
# pulled: `set_link n1 off` on a QEMU monitor socket), gets QEMU's own DHCP answer (slirp: 10.0.2.15/24,
# router 10.0.2.2, DNS 10.0.2.3, bootfile= and tftp= given), applies it
# and fetches the boot file over TFTP through it; the link without carrier
# is skipped. Needs BusyBox in the initramfs for the shell.
. "$(dirname "$0")/lib.sh"
e2e_init net-dhcp
[ -x /bin/busybox ] || { not_ok "no /bin/busybox (apt-get install busybox-static)"; exit 1; }
"$OUT/lboot" mkinitramfs -o "$T/initramfs-bb.cpio.xz" --init "$OUT/lboot-target" --busybox 2>/dev/null ||
	{ not_ok "mkinitramfs --busybox"; exit 1; }
mkdir -p "$T/tftp"
head -c 200000 /dev/urandom >"$T/tftp/pxelinux.0"
sum=$(sha256sum <"$T/tftp/pxelinux.0" | cut -c1-64)
E2E_INITRD=$T/initramfs-bb.cpio.xz E2E_APPEND="lboot.timeout=60" \
	qemu_start -netdev "user,id=n0,tftp=$T/tftp,bootfile=pxelinux.0" \
	-device virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56 \
	-netdev user,id=n1 -device e1000,netdev=n1,mac=52:54:00:12:34:57 \
	-monitor "unix:$T/mon,server=on,wait=off"
# the cable of the e1000, pulled before the guest brings it up
for i in $(seq 50); do [ -S "$T/mon" ] && break; sleep 0.1; done
python3 - "$T/mon" <<'EOP' && ok "cable pulled (set_link)" || not_ok "cable pulled (set_link)"
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"set_link n1 off\n")
time.sleep(0.5)
s.sendall(b"info network\n")
time.sleep(0.5)
out = s.recv(65536).decode(errors="replace")
sys.exit(0 if "link status: down" in out or "e1000" in out else 1)
EOP
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot> ' 120 && ok "prompt" || not_ok "prompt"
sleep 1
send 's'
expect 'lboot: starting /bin/sh' 20 && ok "shell started" || not_ok "shell started"
sleep 2
send 'lboot net links; lboot net up --carrier-timeout 2 --timeout 30 --json > /tmp/l.json; echo "rc=$?"; cat /tmp/l.json\r'
expect '^rc=[0-9]' 90 && ok "net up finished" || not_ok "net up finished"
expect '^rc=0' 1 && ok "net up exit 0" || not_ok "net up exit 0"
expect 'lboot: net eth[01]: DHCP lease 10\.0\.2\.15/24 from 10\.0\.2\.2, boot file pxelinux\.0 on 10\.0\.2\.2' 5 &&
	ok "lease line" || not_ok "lease line"
expect '"mac": "52:54:00:12:34:56", "address": "10\.0\.2\.15", "prefix": 24' 5 && ok "virtio NIC won" ||
	not_ok "virtio NIC won"
expect '"router": "10\.0\.2\.2"' 5 && expect '"dns": \["10\.0\.2\.3"\]' 1 && ok "router and dns" ||
	not_ok "router and dns"
send 'lboot fetch -q tftp://10.0.2.2/pxelinux.0 -o /tmp/pxe && sha256sum /tmp/pxe; ip route; echo "done=$?"\r'
expect '^done=' 60 && ok "fetch ran" || not_ok "fetch ran"
expect "^$sum " 1 && ok "boot file over TFTP through the lease" || not_ok "boot file over TFTP through the lease"
expect '^default via 10\.0\.2\.2 dev eth[01]' 1 && ok "default route applied" || not_ok "default route applied"
# the NIC without cable alone: skipped after the carrier bound, one line
send 'lboot net up --iface eth1 --carrier-timeout 2 --timeout 10; echo "nc=$?"\r'
expect '^nc=' 30 && ok "no-carrier run finished" || not_ok "no-carrier run finished"
expect 'lboot: net eth1: no carrier after 2\.0 s, skipped' 1 && expect '^nc=1' 1 &&
	expect 'lboot net: no carrier on eth1 within 2\.0 s' 1 && ok "cable pulled: skipped, clear line" ||
	not_ok "cable pulled: skipped, clear line"
expect_not 'Kernel panic' && ok "no panic" || not_ok "no panic"
e2e_done
