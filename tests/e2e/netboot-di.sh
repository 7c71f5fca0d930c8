#!/bin/bash
# Issue 13, proof 4: the real Debian installer netboot tree
# (debian-installer-12-netboot-amd64), no disk, booted by lboot as PID 1
# to the installer's first screen:
#   1. over TFTP: dnsmasq (DHCP + TFTP in a network namespace on a tap)
#      hands out pxelinux.0; lboot probes pxelinux.cfg/ as pxelinux does,
#      parses d-i's own menu (default -> boot-screens/*.cfg includes),
#      and fetches linux and the 40.8 MB initrd.gz over TFTP (more than
#      65535 blocks of 512 bytes: blksize negotiated). d-i's menu has no
#      serial console, so the entry's line is edited at lboot's menu
#      (console=ttyS0), as a person at the serial console would.
#   2. over HTTP: nginx serves the same tree, an iPXE script names the d-i
#      kernel and initrd.
# The marker: the d-i kernel's command line and the installer's first
# question ("Select a language") on the serial console.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-lib.sh"
e2e_init netboot-di
DI=/usr/lib/debian-installer/images/12/amd64/text
[ -f "$DI/debian-installer/amd64/initrd.gz" ] ||
	{ not_ok "no $DI (apt-get install debian-installer-12-netboot-amd64; scripts/deps.sh)"; exit 1; }
net_init
INITRD_SIZE=$(stat -L -c %s "$DI/debian-installer/amd64/initrd.gz")
[ "$INITRD_SIZE" -gt $((65535 * 512)) ] && ok "d-i initrd.gz is $INITRD_SIZE bytes: more than 65535 blocks of 512" ||
	not_ok "d-i initrd.gz is $INITRD_SIZE bytes: more than 65535 blocks of 512"
export E2E_MEM=1536
LINE='vga=788 --- console=ttyS0,115200n8'

type_line() { # STRING, one character at a time as a person would
	local s=$1 i
	for ((i = 0; i < ${#s}; i++)); do
		send '%s' "${s:i:1}"
		sleep 0.02
	done
}

di_screen() { # TAG
	expect "Command line: .*console=ttyS0,115200n8" 240 && ok "$1: the d-i kernel runs with the line" ||
		not_ok "$1: the d-i kernel runs with the line"
	expect 'Select a language|Choose the language' 300 && ok "$1: the installer's first screen" ||
		not_ok "$1: the installer's first screen"
	expect_not 'Kernel panic' && ok "$1: no panic" || not_ok "$1: no panic"
}

# --- 1. TFTP, d-i's own pxelinux menu ----------------------------------------------
net_dnsmasq di --dhcp-range=192.168.77.50,192.168.77.99,255.255.255.0,1h --dhcp-boot=pxelinux.0 \
	--enable-tftp --tftp-root="$DI"
E2E_APPEND="lboot.timeout=120" qemu_start "${NIC[@]}"
expect 'lboot: net eth0: DHCP lease 192\.168\.77\.[0-9]+/24 from 192\.168\.77\.1, boot file pxelinux\.0' 180 &&
	ok "tftp: lease names pxelinux.0" || not_ok "tftp: lease names pxelinux.0"
expect "lboot: net: pxelinux config tftp://$NET_IP/pxelinux.cfg/01-52-54-00-77-00-01: not there" 60 &&
	ok "tftp: probes by MAC first" || not_ok "tftp: probes by MAC first"
expect "lboot: net: pxelinux config tftp://$NET_IP/pxelinux.cfg/default \\(" 60 &&
	ok "tftp: d-i's pxelinux.cfg/default" || not_ok "tftp: d-i's pxelinux.cfg/default"
expect 'press any key to stop' 60 && ok "tftp: menu countdown" || not_ok "tftp: menu countdown"
expect ' [0-9]+\) Install' 5 && ok "tftp: d-i's Install entry in lboot's menu" ||
	not_ok "tftp: d-i's Install entry in lboot's menu"
n=$(tr -d '\r' <"$T/serial.log" | sed -n 's/^ *\([0-9]*\)) Install .*/\1/p' | head -1)
log "menu: $(tr -d '\r' <"$T/serial.log" | grep -aE '^ *[0-9]+\) ' | tr '\n' '|')"
send ' '
expect 'lboot> ' 20 && ok "tftp: countdown stopped" || not_ok "tftp: countdown stopped"
sleep 0.5
send '%s' "${n:-1}"
sleep 0.5
send 'e'
expect 'current: BOOT_IMAGE=debian-installer/amd64/linux vga=788 initrd=debian-installer/amd64/initrd\.gz --- quiet' 20 &&
	ok "tftp: d-i's append line as pxelinux's loader builds it" ||
	not_ok "tftp: d-i's append line as pxelinux's loader builds it"
expect 'new \(empty keeps it' 5 || true
type_line "$LINE"
send '\r'
expect "lboot: kexec 'Install' kernel=tftp://$NET_IP/debian-installer/amd64/linux initrd=tftp://$NET_IP/debian-installer/amd64/initrd.gz cmdline=$LINE" 400 &&
	ok "tftp: d-i kernel and 40 MB initrd over TFTP, loaded" ||
	not_ok "tftp: d-i kernel and 40 MB initrd over TFTP, loaded"
prog=$(tr -d '\r' <"$T/serial.log" | grep -aoE 'lboot: fetched [0-9]+ of 39853 KiB \([0-9]+ KiB/s\)' | tail -1)
[ -n "$prog" ] && ok "tftp: download progress (bytes, rate) for the initrd: $prog" ||
	not_ok "tftp: download progress (bytes, rate) for the initrd"
log "TFTP: kexec at $(elapsed) s"
grep -aq "sent $DI/debian-installer/amd64/initrd.gz" "$T/di.log" && ok "tftp: dnsmasq sent initrd.gz" ||
	not_ok "tftp: dnsmasq sent initrd.gz"
di_screen tftp
qemu_stop
net_dnsmasq_stop

# --- 2. HTTP: an iPXE script names d-i's kernel and initrd -----------------------
mkdir -p "$T/www"
ln -s "$DI/debian-installer" "$T/www/debian-installer"
cat >"$T/www/di.ipxe" <<EOS
#!ipxe
kernel http://\${next-server}/debian-installer/amd64/linux $LINE
initrd http://\${next-server}/debian-installer/amd64/initrd.gz
boot
EOS
net_nginx "$T/www"
net_wait_http "http://$NET_IP/di.ipxe" && ok "http: nginx up" || not_ok "http: nginx up"
net_dnsmasq di-http --dhcp-range=192.168.77.50,192.168.77.99,255.255.255.0,1h \
	--dhcp-boot=http://$NET_IP/di.ipxe,,$NET_IP
E2E_APPEND="lboot.timeout=0" qemu_start "${NIC[@]}"
expect "lboot: net: iPXE script http://$NET_IP/di.ipxe" 180 && ok "http: script fetched" || not_ok "http: script fetched"
expect "lboot: kexec 'linux' kernel=http://$NET_IP/debian-installer/amd64/linux initrd=http://$NET_IP/debian-installer/amd64/initrd.gz cmdline=$LINE" 300 &&
	ok "http: d-i kernel and initrd over HTTP, loaded" || not_ok "http: d-i kernel and initrd over HTTP, loaded"
prog=$(tr -d '\r' <"$T/serial.log" | grep -aoE 'lboot: fetched [0-9]+ of 39853 KiB \([0-9]+ KiB/s\)' | tail -1)
[ -n "$prog" ] && ok "http: download progress for the initrd: $prog" || not_ok "http: download progress for the initrd"
log "HTTP: kexec at $(elapsed) s"
grep -q 'GET /debian-installer/amd64/initrd.gz HTTP/1.1" 200 '"$INITRD_SIZE" "$T/nginx/access.log" &&
	ok "http: nginx sent the whole initrd once" || not_ok "http: nginx sent the whole initrd once"
di_screen http
e2e_done
