#!/bin/bash
# Issue 13, VLAN: lboot.vlan=5 with no disk. lboot makes eth0.5 (802.1Q)
# on the NIC and runs DHCP, pxelinux (options 209/210) and TFTP on it only.
# The wire: QEMU's NIC over UDP to tests/e2e/vlan-switch.py, a user-space
# switch port (the host kernel here may have no 8021q) that hands frames
# tagged 5 untagged to a tap in a network namespace, where dnsmasq serves
# DHCP and TFTP; untagged frames and other VLANs go nowhere, so a lease
# proves the tag.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-lib.sh"
e2e_init netboot-vlan
net_init
target_os
F=$T/tftp
mkdir -p "$F/boot/configs" "$F/boot/images"
cp "$TARGET_KERNEL" "$F/boot/images/vmlinuz"
cp "$TARGET_INITRD" "$F/boot/images/initrd.img"
cat >"$F/boot/configs/vlan.cfg" <<'EOP'
DEFAULT vlan
LABEL vlan
  KERNEL images/vmlinuz
  INITRD images/initrd.img
  APPEND console=ttyS0 lboot-test=vlan5 quiet
EOP
chmod -R a+rX "$T"
# the host kernel may lack 8021q: tests/e2e/vlan-switch.py is the switch
# port (QEMU's NIC over UDP, VLAN 5 untagged onto tapv, the rest dropped)
ip -n "$NS" tuntap add dev tapv mode tap && ip -n "$NS" link set tapv up &&
	ip -n "$NS" addr add 192.168.78.1/24 dev tapv || { not_ok "tapv for VLAN 5"; exit 1; }
ip netns exec "$NS" python3 "$E2E_ROOT/tests/e2e/vlan-switch.py" 47001 47002 tapv 5 "$T/vlan.counts" \
	2>"$T/vlan-switch.log" &
DNSMASQ_PIDS+=($!)      # stopped (and on exit) with the dnsmasqs
DNS_IF=tapv net_dnsmasq vlan5 --dhcp-range=192.168.78.50,192.168.78.99,255.255.255.0,1h \
	--dhcp-boot=boot/lboot.efi,,192.168.78.1 --dhcp-option=209,configs/vlan.cfg --dhcp-option=210,/boot/ \
	--enable-tftp --tftp-root="$F"
E2E_APPEND="lboot.timeout=0 lboot.vlan=5" qemu_start -netdev socket,id=n0,udp=127.0.0.1:47001,localaddr=127.0.0.1:47002 \
	-device "virtio-net-pci,netdev=n0,mac=$NET_MAC"
expect 'lboot: net eth0\.5: VLAN 5 on eth0' 180 && ok "vlan: eth0.5 made on eth0" || not_ok "vlan: eth0.5 made on eth0"
expect 'lboot: net eth0\.5: DHCP lease 192\.168\.78\.[0-9]+/24 from 192\.168\.78\.1' 60 &&
	ok "vlan: lease from the server on VLAN 5 (tagged frames only reach it)" ||
	not_ok "vlan: lease from the server on VLAN 5 (tagged frames only reach it)"
expect 'lboot-target: cmdline: .*lboot-test=vlan5' 240 && ok "vlan: target OS booted over VLAN 5" ||
	not_ok "vlan: target OS booted over VLAN 5"
c=$(cat "$T/vlan.counts" 2>/dev/null)
log "switch: $c"
[[ $c =~ tagged=[1-9] ]] && [[ $c =~ to_guest=[1-9] ]] && ok "vlan: the switch carried frames tagged 5 both ways" ||
	not_ok "vlan: the switch carried frames tagged 5 both ways"
qemu_stop
net_dnsmasq_stop

e2e_done
