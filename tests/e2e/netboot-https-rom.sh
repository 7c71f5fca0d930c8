#!/bin/bash
# Issue 13, proof 3: real servers on a real (virtual) wire. dnsmasq (DHCP)
# and nginx (HTTPS with a test CA whose certificate names the server's IP)
# in a network namespace with a tap device; QEMU runs in that namespace on
# the tap. The LinuxBoot ROM (lboot mkrom, firmware initramfs built with
# --ca) has no disk: lboot brings the link up, takes dnsmasq's lease whose
# boot file is an https:// iPXE script, checks nginx's certificate against
# the CA built in, and boots the kernel and initrd it names over HTTPS.
# A second ROM without the CA refuses https:// with one line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
. "$(dirname "$0")/net-lib.sh"
e2e_init netboot-https-rom
net_init
target_os
W=$T/www
mkdir -p "$W/boot"
# a test CA and a server certificate for the IP
net_pki
cp "$TARGET_KERNEL" "$W/boot/vmlinuz"
cp "$TARGET_INITRD" "$W/boot/initrd.img"
cat >"$W/boot.ipxe" <<'EOS'
#!ipxe
kernel https://192.168.77.1/boot/vmlinuz console=ttyS0 lboot-test=https-rom quiet
initrd https://192.168.77.1/boot/initrd.img
boot
EOS
net_nginx "$W" https
net_dnsmasq dnsmasq --dhcp-range=192.168.77.50,192.168.77.99,255.255.255.0,1h \
	--dhcp-boot=https://192.168.77.1/boot.ipxe
net_wait_http https://192.168.77.1/boot.ipxe
ip netns exec "$NS" curl -sf --cacert "$K/ca.pem" https://192.168.77.1/boot.ipxe >/dev/null &&
	ok "nginx serves HTTPS with the test CA (curl --cacert)" || not_ok "nginx serves HTTPS with the test CA (curl --cacert)"
# QEMU in the namespace, on the tap (net-lib.sh: $QEMU, $NIC)
"$OUT/lboot" mkinitramfs -o "$T/fw-ca.cpio.xz" --init "$OUT/lboot-target" --ca "$K/ca.pem" 2>/dev/null ||
	{ not_ok "mkinitramfs --ca"; exit 1; }
rom_build "$T/ca.rom" --kernel "$OUT/bzImage" --initrd "$T/fw-ca.cpio.xz" --cmdline "console=ttyS0,115200 panic=-1 quiet"
E2E_FIRMWARE=$T/ca.rom E2E_VARS=$T/ca-vars.fd qemu_start "${NIC[@]}"
expect 'lboot: net eth0: DHCP lease 192\.168\.77\.[0-9]+/24 from 192\.168\.77\.1' 240 && ok "lease from dnsmasq on the tap" ||
	not_ok "lease from dnsmasq on the tap"
expect 'lboot: net: iPXE script https://192.168.77.1/boot.ipxe' 120 && ok "boot file fetched over HTTPS" ||
	not_ok "boot file fetched over HTTPS"
expect "lboot: kexec 'vmlinuz' kernel=https://192.168.77.1/boot/vmlinuz initrd=https://192.168.77.1/boot/initrd.img" 300 &&
	ok "kernel and initrd over HTTPS, certificate checked against the built-in CA" ||
	not_ok "kernel and initrd over HTTPS, certificate checked against the built-in CA"
expect 'lboot-target: cmdline: .*lboot-test=https-rom' 240 && ok "the ROM booted the target over HTTPS" ||
	not_ok "the ROM booted the target over HTTPS"
grep -q 'DHCPACK(tap0) 192.168.77' "$T/dnsmasq.log" && ok "dnsmasq's log shows the ACK" || not_ok "dnsmasq's log shows the ACK"
qemu_stop
# the plain ROM: no trust anchors built in, https refused with one line
E2E_FIRMWARE=$OUT/lboot.rom E2E_VARS=$OUT/lboot-vars.fd qemu_start "${NIC[@]}"
expect 'lboot: network boot: .*(no trust anchors|trust anchor)' 240 && ok "without a CA built in, https:// is refused with one line" ||
	not_ok "without a CA built in, https:// is refused with one line"
expect_not 'lboot-target: TARGET-OS-UP' && ok "nothing booted unchecked" || not_ok "nothing booted unchecked"
e2e_done
