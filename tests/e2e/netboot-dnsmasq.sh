#!/bin/bash
# Issue 13, proofs 3 and 5: dnsmasq set-ups a fleet uses, no disk, lboot as
# PID 1 on a tap device in a network namespace:
#   1. options 209/210 (pxelinux config file, path prefix): the config named
#      by 209 under the prefix 210 on the TFTP server, kernel paths relative
#      to the prefix;
#   2. DHCPv6 only (RFC 5970 boot file URL, option 59): DHCPv4 gets no
#      answer, DHCPv6 gives the URL of an iPXE script for the client's
#      architecture (option 61) on nginx's IPv6 address, the kernel and initrd over HTTP on IPv6; then dual stack:
#      a DHCPv4 lease without boot file, the URL from DHCPv6;
#   3. proxyDHCP: one dnsmasq gives addresses and no boot information, a
#      second (another host on the same bridge) in proxy mode names the
#      boot file for the client's architecture (asked again on UDP 4011)
#      and serves it over TFTP.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-lib.sh"
e2e_init netboot-dnsmasq
net_init 192.168.77.1/24 fd00:77::1/64
target_os
F=$T/tftp W=$T/www P=$T/ptftp
mkdir -p "$F/boot/configs" "$F/boot/images" "$W/boot" "$P/pxelinux.cfg" "$P/images"
RANGE=192.168.77.50,192.168.77.99,255.255.255.0,1h

# --- 1. options 209 and 210 ---------------------------------------------------------
cp "$TARGET_KERNEL" "$F/boot/images/vmlinuz"
cp "$TARGET_INITRD" "$F/boot/images/initrd.img"
cat >"$F/boot/configs/node.cfg" <<'EOP'
DEFAULT node
LABEL node
  KERNEL images/vmlinuz
  INITRD images/initrd.img
  APPEND console=ttyS0 lboot-test=opt209 quiet
EOP
chmod -R a+rX "$T"
net_dnsmasq opt209 --dhcp-range=$RANGE --dhcp-boot=boot/lboot.efi,,$NET_IP \
	--dhcp-option=209,configs/node.cfg --dhcp-option=210,/boot/ --enable-tftp --tftp-root="$F"
qemu_start "${NIC[@]}"
expect 'lboot: net eth0: DHCP lease 192\.168\.77\.[0-9]+/24 from 192\.168\.77\.1' 180 && ok "209/210: lease" ||
	not_ok "209/210: lease"
expect "lboot: net: pxelinux config tftp://$NET_IP/boot/configs/node.cfg \\(" 60 &&
	ok "209/210: the config file of option 209 under the prefix of option 210" ||
	not_ok "209/210: the config file of option 209 under the prefix of option 210"
expect "lboot: kexec 'node' kernel=tftp://$NET_IP/boot/images/vmlinuz initrd=tftp://$NET_IP/boot/images/initrd.img cmdline=BOOT_IMAGE=images/vmlinuz console=ttyS0 lboot-test=opt209 quiet initrd=images/initrd.img" 240 &&
	ok "209/210: kernel and initrd relative to the prefix" || not_ok "209/210: kernel and initrd relative to the prefix"
expect 'lboot-target: cmdline: .*lboot-test=opt209' 180 && ok "209/210: target OS booted" ||
	not_ok "209/210: target OS booted"
expect_not 'pxelinux.cfg/default' && ok "209/210: no probing when 209 names the file" ||
	not_ok "209/210: no probing when 209 names the file"
qemu_stop
net_dnsmasq_stop

# --- 2. DHCPv6 only: boot file URL (option 59) ----------------------------------------
# by the client architecture (option 61, as UEFI sends it: 7 or 16 x86-64,
# 11 or 19 arm64): each architecture its own script URL
A=${E2E_ARCH:-x86_64}
cp "$TARGET_KERNEL" "$W/boot/vmlinuz"
cp "$TARGET_INITRD" "$W/boot/initrd.img"
for f in boot6 boot6-x86_64 boot6-arm64; do
	cat >"$W/$f.ipxe" <<'EOS'
#!ipxe
kernel http://[fd00:77::1]/boot/vmlinuz console=ttyS0 lboot-test=dhcp6 quiet
initrd http://[fd00:77::1]/boot/initrd.img
boot
EOS
done
net_nginx "$W"
net_wait_http "http://[fd00:77::1]/boot6.ipxe" && ok "dhcpv6: nginx on the IPv6 address" ||
	not_ok "dhcpv6: nginx on the IPv6 address"
net_dnsmasq v6 --dhcp-range=fd00:77::100,fd00:77::1ff,64,1h --enable-ra \
	--dhcp-match=set:x86_64,option6:61,00:07 --dhcp-match=set:x86_64,option6:61,00:10 \
	--dhcp-match=set:arm64,option6:61,00:0b --dhcp-match=set:arm64,option6:61,00:13 \
	--dhcp-option=tag:x86_64,option6:bootfile-url,'http://[fd00:77::1]/boot6-x86_64.ipxe' \
	--dhcp-option=tag:arm64,option6:bootfile-url,'http://[fd00:77::1]/boot6-arm64.ipxe'
E2E_APPEND="lboot.timeout=0 lboot.net.timeout=8" qemu_start "${NIC[@]}"
expect 'lboot: net: no DHCP answer on eth0 within 8\.0 s .*; trying DHCPv6' 180 &&
	ok "dhcpv6: no DHCPv4 answer, DHCPv6 next" || not_ok "dhcpv6: no DHCPv4 answer, DHCPv6 next"
expect "lboot: net eth0: DHCPv6 lease fd00:77::1[0-9a-f]{2} from .*boot file URL http://\\[fd00:77::1\\]/boot6-$A\\.ipxe" 60 &&
	ok "dhcpv6: lease with the $A boot file URL (client architecture, option 61)" ||
	not_ok "dhcpv6: lease with the $A boot file URL (client architecture, option 61)"
expect "lboot: net: iPXE script http://\\[fd00:77::1\\]/boot6-$A\\.ipxe" 60 && ok "dhcpv6: script fetched over IPv6" ||
	not_ok "dhcpv6: script fetched over IPv6"
expect "lboot: kexec 'vmlinuz' kernel=http://\\[fd00:77::1\\]/boot/vmlinuz initrd=http://\\[fd00:77::1\\]/boot/initrd.img" 240 &&
	ok "dhcpv6: kernel and initrd over HTTP on IPv6" || not_ok "dhcpv6: kernel and initrd over HTTP on IPv6"
expect 'lboot-target: cmdline: .*lboot-test=dhcp6' 180 && ok "dhcpv6: target OS booted" || not_ok "dhcpv6: target OS booted"
grep -q 'DHCPREPLY(tap0) fd00:77::1' "$T/v6.log" && ok "dhcpv6: dnsmasq's log shows the Reply" ||
	not_ok "dhcpv6: dnsmasq's log shows the Reply"
grep -q '^fd00:77::1[0-9a-f]* .*"GET /boot/initrd.img HTTP/1.1" 200' "$T/nginx/access.log" &&
	ok "dhcpv6: nginx saw the client's IPv6 address" || not_ok "dhcpv6: nginx saw the client's IPv6 address"
qemu_stop
net_dnsmasq_stop
# dual stack: a DHCPv4 lease without boot file, then DHCPv6 names it
net_dnsmasq v46 --dhcp-range=$RANGE --dhcp-range=fd00:77::100,fd00:77::1ff,64,1h --enable-ra \
	--dhcp-option=option6:bootfile-url,'http://[fd00:77::1]/boot6.ipxe'
qemu_start "${NIC[@]}"
expect 'lboot: net eth0: DHCP lease 192\.168\.77\.[0-9]+/24 from 192\.168\.77\.1' 180 &&
	ok "dual stack: DHCPv4 lease" || not_ok "dual stack: DHCPv4 lease"
expect 'lboot: net: the DHCPv4 lease names no boot file; trying DHCPv6' 30 &&
	ok "dual stack: no v4 boot file, DHCPv6 next" || not_ok "dual stack: no v4 boot file, DHCPv6 next"
expect 'lboot-target: cmdline: .*lboot-test=dhcp6' 240 && ok "dual stack: booted from the DHCPv6 boot file URL" ||
	not_ok "dual stack: booted from the DHCPv6 boot file URL"
qemu_stop
net_dnsmasq_stop

# --- 3. proxyDHCP ----------------------------------------------------------------------
# br0 (192.168.77.1: addresses, no boot information) bridges the tap and
# a veth to a second namespace (192.168.77.2: proxyDHCP + TFTP)
NS2=${NS}-px
NET_MORE_NS+=("$NS2")
ip netns add "$NS2" && ip -n "$NS2" link set lo up &&
	ip -n "$NS" link add br0 type bridge &&
	ip -n "$NS" addr del 192.168.77.1/24 dev tap0 &&
	ip -n "$NS" link set tap0 master br0 &&
	ip -n "$NS" link add pv0 type veth peer name pv1 netns "$NS2" &&
	ip -n "$NS" link set pv0 master br0 && ip -n "$NS" link set pv0 up &&
	ip -n "$NS" addr add 192.168.77.1/24 dev br0 && ip -n "$NS" link set br0 up &&
	ip -n "$NS2" addr add 192.168.77.2/24 dev pv1 && ip -n "$NS2" link set pv1 up ||
	{ not_ok "bridge and proxy namespace"; exit 1; }
# the proxy serves each client architecture its own boot file (dnsmasq's
# pxe-service by option 93, as UEFI sends it: 7 x86-64, 11 arm64), so a
# client gets its own architecture's config and kernel
A=${E2E_ARCH:-x86_64}
cp "$TARGET_KERNEL" "$P/images/vmlinuz"
cp "$TARGET_INITRD" "$P/images/initrd.img"
for a in x86_64 arm64; do
	mkdir -p "$P/$a/pxelinux.cfg"
	: >"$P/$a/pxelinux.0"
	cat >"$P/$a/pxelinux.cfg/default" <<EOP
DEFAULT proxy
LABEL proxy
  KERNEL /images/vmlinuz
  INITRD /images/initrd.img
  APPEND console=ttyS0 lboot-test=proxydhcp-$a quiet
EOP
done
chmod -R a+rX "$T"
DNS_IF=br0 net_dnsmasq addr --dhcp-range=$RANGE
DNS_NS=$NS2 DNS_IF=pv1 net_dnsmasq proxy --dhcp-range=192.168.77.0,proxy \
	--pxe-service=X86-64_EFI,"lboot network boot",x86_64/pxelinux.0 \
	--pxe-service=ARM64_EFI,"lboot network boot",arm64/pxelinux.0 --enable-tftp --tftp-root="$P"
sleep 1
qemu_start "${NIC[@]}"
expect "lboot: net eth0: DHCP lease 192\\.168\\.77\\.[0-9]+/24 from 192\\.168\\.77\\.1, boot file $A/pxelinux\\.0 on 192\\.168\\.77\\.2" 180 &&
	ok "proxy: address from one server, the $A boot file from the proxy" ||
	not_ok "proxy: address from one server, the $A boot file from the proxy"
expect "lboot: net: pxelinux config tftp://192\\.168\\.77\\.2/$A/pxelinux\\.cfg/default \\(" 60 &&
	ok "proxy: the $A pxelinux config from the proxy's TFTP server" ||
	not_ok "proxy: the $A pxelinux config from the proxy's TFTP server"
expect "lboot-target: cmdline: .*lboot-test=proxydhcp-$A" 240 && ok "proxy: target OS booted ($A)" ||
	not_ok "proxy: target OS booted ($A)"
grep -q 'DHCPACK(br0) 192.168.77' "$T/addr.log" && ! grep -q 'bootfile name' "$T/addr.log" &&
	ok "proxy: the address server gave no boot file" || not_ok "proxy: the address server gave no boot file"
grep -q "bootfile name: $A/pxelinux.0" "$T/proxy.log" && ok "proxy: the proxy named the $A boot file (client architecture)" ||
	not_ok "proxy: the proxy named the $A boot file (client architecture)"
e2e_done
