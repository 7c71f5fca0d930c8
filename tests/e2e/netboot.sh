#!/bin/bash
# Issue 13 (and 9): network boot in the boot flow. No disk; QEMU's user
# network gives a DHCP lease whose boot file is a URL on the host, served by
# nginx. lboot (PID 1) brings the link up, runs DHCP, fetches the iPXE
# script, runs it, and boots the kernel + initrd it names over HTTP,
# fetched straight into sealed memory. Then, with a verifying initramfs:
# a signed script whose URLs come from ${next-server} (DHCP's, not
# covered by its signature) is refused; the same script with the server's
# address written in it, signed, boots with its signed files (minisign
# signatures beside the URLs), and a tampered initrd on the server is
# refused.
# Also pxelinux over QEMU's TFTP server: the probe order finds
# pxelinux.cfg/default and boots its default label.
. "$(dirname "$0")/lib.sh"
e2e_init netboot
command -v nginx >/dev/null || { not_ok "nginx not installed (scripts/deps.sh)"; exit 1; }
target_os
W=$T/www K=$T/keys
mkdir -p "$W/boot" "$K" "$T/nginx" "$T/tftp/pxelinux.cfg" "$T/tftp/images"
cp "$TARGET_KERNEL" "$W/boot/vmlinuz"
cp "$TARGET_INITRD" "$W/boot/initrd.img"
cat >"$W/boot.ipxe" <<'EOS'
#!ipxe
echo lboot e2e script on ${net0/mac}
set base http://${next-server}:PORT/boot
iseq ${net0/mac} 52:54:00:12:34:56 && goto mine || goto other
:other
kernel ${base}/vmlinuz console=ttyS0 lboot-test=ipxe-other quiet
boot
:mine
chain ${base}/by-mac/${net0/mac}.ipxe || echo no script for this machine, going on
kernel ${base}/no-such-vmlinuz console=ttyS0 lboot-test=ipxe-missing || goto real
boot
:real
kernel ${base}/vmlinuz console=ttyS0 lboot-test=ipxe-http quiet
initrd ${base}/initrd.img
boot
EOS
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -i "s/PORT/$PORT/" "$W/boot.ipxe"
nginx_conf "$W" "listen 127.0.0.1:$PORT;"
nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" 2>"$T/nginx/start.log" &
NGINX=$!
trap 'qemu_stop; kill $NGINX 2>/dev/null; e2e_dump_on_fail' EXIT
for i in $(seq 1 50); do
	python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/boot.ipxe')" 2>/dev/null && break
	sleep 0.1
done
NIC="user,model=virtio-net-pci,bootfile=http://10.0.2.2:$PORT/boot.ipxe"

# --- 1. iPXE script over HTTP, no policy --------------------------------------
qemu_start -nic "$NIC"
expect 'lboot: net eth0: DHCP lease 10\.0\.2\.[0-9]+/24 from 10\.0\.2\.2' 120 && ok "ipxe: DHCP lease" || not_ok "ipxe: DHCP lease"
expect "lboot: net: iPXE script http://10.0.2.2:$PORT/boot.ipxe" 60 && ok "ipxe: script fetched from the boot file URL" ||
	not_ok "ipxe: script fetched from the boot file URL"
expect 'lboot: ipxe: lboot e2e script on 52:54:00:12:34:56' 30 && ok "ipxe: script ran with the NIC's settings" ||
	not_ok "ipxe: script ran with the NIC's settings"
expect "lboot: kexec 'vmlinuz' kernel=http://10.0.2.2:$PORT/boot/vmlinuz initrd=http://10.0.2.2:$PORT/boot/initrd.img cmdline=console=ttyS0 lboot-test=ipxe-http quiet" 180 &&
	ok "ipxe: kernel and initrd fetched over HTTP and loaded" || not_ok "ipxe: kernel and initrd fetched over HTTP and loaded"
expect 'lboot-target: cmdline: .*lboot-test=ipxe-http' 180 && ok "ipxe: target OS booted" || not_ok "ipxe: target OS booted"
expect 'lboot: ipxe: no script for this machine, going on' 5 &&
	ok "ipxe: a missing chained script fails the command, as in iPXE (|| runs)" ||
	not_ok "ipxe: a missing chained script fails the command, as in iPXE (|| runs)"
grep -q 'GET /boot/no-such-vmlinuz .* 404 ' "$T/nginx/access.log" && expect_not "lboot-test=ipxe-missing" &&
	ok "ipxe: 'kernel URL || goto' sees a missing kernel when the command runs" ||
	not_ok "ipxe: 'kernel URL || goto' sees a missing kernel when the command runs"
# the kernel command checks the file is there; its bytes are read in full
# once, by the stage, into sealed memory (nginx logs the bytes it sent)
size=$(stat -c %s "$W/boot/vmlinuz")
n=$(awk -v s="$size" '$7 == "/boot/vmlinuz" && $9 == 200 && $10 == s' "$T/nginx/access.log" | wc -l)
[ "$n" = 1 ] && ok "ipxe: the kernel was downloaded in full exactly once" ||
	not_ok "ipxe: the kernel was downloaded in full exactly once ($n)"
qemu_stop

# --- 2. verified: signed script and files boot; a tampered initrd is refused ----
minisign -G -W -p "$K/k.pub" -s "$K/k.key" >/dev/null || { not_ok "minisign -G"; exit 1; }
for f in boot.ipxe boot/vmlinuz boot/initrd.img; do
	minisign -S -s "$K/k.key" -m "$W/$f" >/dev/null || { not_ok "sign $f"; exit 1; }
done
chmod -R a+rX "$W"
"$OUT/lboot" mkinitramfs -o "$T/fw.cpio.xz" --init "$OUT/lboot-target" --trust "$K/k.pub" 2>/dev/null ||
	{ not_ok "mkinitramfs --trust"; exit 1; }
# issue 23, finding 5: the signed script builds its URLs from
# ${next-server}, which DHCP sent and no signature covers: refused
E2E_INITRD=$T/fw.cpio.xz qemu_start -nic "$NIC"
expect "lboot: refused: 'vmlinuz' \\(network\\): iPXE script http://10.0.2.2:$PORT/boot.ipxe: the image URLs hold bytes of a network setting" 240 &&
	ok "signed: URLs built from \${next-server} (DHCP's) are not covered by the script's signature" ||
	not_ok "signed: URLs built from \${next-server} (DHCP's) are not covered by the script's signature"
expect_not 'lboot-target: TARGET-OS-UP' && ok "signed: \${next-server}: nothing booted" ||
	not_ok "signed: \${next-server}: nothing booted"
qemu_stop
# the same script with the server's address written in it, signed again
sed -i "s|http://\${next-server}:|http://10.0.2.2:|" "$W/boot.ipxe"
minisign -S -s "$K/k.key" -m "$W/boot.ipxe" >/dev/null || { not_ok "sign boot.ipxe"; exit 1; }
E2E_INITRD=$T/fw.cpio.xz qemu_start -nic "$NIC"
expect "lboot: verified 'vmlinuz': kernel, 1 initrd and command line by signatures \\(kernel: key [0-9A-F]{16}; command line: http://10.0.2.2:$PORT/boot.ipxe\\)" 240 &&
	ok "signed: script, kernel and initrd verified beside their URLs" ||
	not_ok "signed: script, kernel and initrd verified beside their URLs"
expect 'lboot-target: cmdline: .*lboot-test=ipxe-http' 180 && ok "signed: target OS booted" || not_ok "signed: target OS booted"
qemu_stop
head -c 4 /dev/zero >>"$W/boot/initrd.img"
E2E_INITRD=$T/fw.cpio.xz qemu_start -nic "$NIC"
expect "lboot: refused: 'vmlinuz' \\(network\\): http://10.0.2.2:$PORT/boot/initrd.img: bad signature" 240 &&
	ok "signed: an initrd changed on the server is refused" || not_ok "signed: an initrd changed on the server is refused"
expect_not 'lboot-target: TARGET-OS-UP' && ok "signed: nothing booted" || not_ok "signed: nothing booted"
qemu_stop

# --- 3. pxelinux over TFTP (QEMU's TFTP server) ---------------------------------
cp "$TARGET_KERNEL" "$T/tftp/images/vmlinuz"
cp "$TARGET_INITRD" "$T/tftp/images/initrd.img"
: >"$T/tftp/pxelinux.0"
cat >"$T/tftp/pxelinux.cfg/01-52-54-00-12-34-57" <<'EOP'
DEFAULT linux
LABEL linux
  KERNEL images/vmlinuz
  INITRD images/initrd.img
  APPEND console=ttyS0 lboot-test=pxe-by-mac quiet
EOP
cat >"$T/tftp/pxelinux.cfg/default" <<'EOP'
DEFAULT linux
TIMEOUT 1
LABEL rescue
  KERNEL images/vmlinuz
  APPEND console=ttyS0 lboot-test=pxe-rescue
LABEL linux
  KERNEL images/vmlinuz
  INITRD images/initrd.img
  APPEND console=ttyS0 lboot-test=pxelinux quiet
EOP
qemu_start -nic "user,model=virtio-net-pci,tftp=$T/tftp,bootfile=pxelinux.0"
expect 'lboot: net: pxelinux config tftp://10.0.2.2/pxelinux.cfg/01-52-54-00-12-34-56: not there' 120 &&
	ok "pxelinux: probes by MAC first" || not_ok "pxelinux: probes by MAC first"
expect 'lboot: net: pxelinux config tftp://10.0.2.2/pxelinux.cfg/default \(' 120 && ok "pxelinux: falls back to default" ||
	not_ok "pxelinux: falls back to default"
expect "lboot: kexec 'linux' kernel=tftp://10.0.2.2/images/vmlinuz initrd=tftp://10.0.2.2/images/initrd.img cmdline=BOOT_IMAGE=images/vmlinuz console=ttyS0 lboot-test=pxelinux quiet initrd=images/initrd.img" 240 &&
	ok "pxelinux: default label loaded over TFTP" || not_ok "pxelinux: default label loaded over TFTP"
expect 'lboot-target: cmdline: .*lboot-test=pxelinux' 180 && ok "pxelinux: target OS booted" || not_ok "pxelinux: target OS booted"
qemu_stop
# the MAC-specific file wins over default
qemu_start -nic "user,model=virtio-net-pci,mac=52:54:00:12:34:57,tftp=$T/tftp,bootfile=pxelinux.0"
expect 'lboot: net: pxelinux config tftp://10.0.2.2/pxelinux.cfg/01-52-54-00-12-34-57 \(' 120 &&
	ok "pxelinux: the MAC-specific config is found" || not_ok "pxelinux: the MAC-specific config is found"
expect 'lboot-target: cmdline: .*lboot-test=pxe-by-mac' 240 && ok "pxelinux: the MAC-specific config wins over default" ||
	not_ok "pxelinux: the MAC-specific config wins over default"
e2e_done
