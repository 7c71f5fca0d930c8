#!/bin/bash
# Record which config files a real pxelinux.0 (Debian's pxelinux package,
# syslinux 6.04) asks a TFTP server for: dnsmasq (DHCP + TFTP, --log-dhcp)
# in a network namespace with a tap device, QEMU (SeaBIOS, -boot n, e1000
# with its iPXE PXE ROM) on that tap. Needs root, /dev/net/tun, pxelinux,
# syslinux-common, dnsmasq-base, qemu-system-x86. Not run by make check:
# its output is the fixture tests/unit/test_pxelinux.c compares with.
#   usage: record.sh OUTDIR [dnsmasq options...]   (e.g. --dhcp-option-force=209,x.cfg)
# Writes OUTDIR/order.txt (requested paths, TFTP-root relative) and
# OUTDIR/client.txt (mac, ip, uuid as QEMU was given, boot file).
set -u
out=$1; shift
mkdir -p "$out"
w=$(mktemp -d)
ns=lbpxe$$
mac=52:54:00:12:34:56 uuid=5b1e4b3c-aa55-4d3e-8c1b-123456789abc
mkdir -p "$w/tftp/boot/pxelinux.cfg"
cp /usr/lib/PXELINUX/pxelinux.0 /usr/lib/syslinux/modules/bios/ldlinux.c32 "$w/tftp/boot/"
printf 'default x\nprompt 0\nlabel x\n  kernel nothing\n' > "$w/tftp/boot/pxelinux.cfg/default"
cp "$w/tftp/boot/pxelinux.cfg/default" "$w/tftp/boot/node.cfg"
# for an option 210 of "alt/": pxelinux loads ldlinux.c32 from the prefix too
mkdir -p "$w/tftp/alt/pxelinux.cfg"
cp /usr/lib/syslinux/modules/bios/ldlinux.c32 "$w/tftp/alt/"
cp "$w/tftp/boot/pxelinux.cfg/default" "$w/tftp/alt/pxelinux.cfg/default"
ip netns add $ns || exit 1
trap 'kill $dpid 2>/dev/null; ip netns del $ns; rm -rf "$w"' EXIT
ip netns exec $ns ip link set lo up
ip netns exec $ns ip tuntap add dev tap0 mode tap
ip netns exec $ns ip addr add 10.9.0.1/24 dev tap0
ip netns exec $ns ip link set tap0 up
ip netns exec $ns dnsmasq --no-daemon --port=0 --interface=tap0 --bind-interfaces \
	--dhcp-range=10.9.0.50,10.9.0.60,255.255.255.0 --dhcp-boot=boot/pxelinux.0 \
	--enable-tftp --tftp-root="$w/tftp" --log-dhcp --log-facility="$w/dnsmasq.log" \
	--dhcp-leasefile="$w/leases" "$@" >"$w/dnsmasq.out" 2>&1 &
dpid=$!
sleep 1
ip netns exec $ns qemu-system-x86_64 -accel tcg -m 256 -display none -serial none \
	-boot n -uuid $uuid -no-reboot \
	-netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
	-device e1000,netdev=n0,mac=$mac >"$w/qemu.out" 2>&1 &
qpid=$!
# until pxelinux gave up on configs (asked for the kernel) or 120 s
for _ in $(seq 120); do
	grep -q 'nothing not found' "$w/dnsmasq.log" 2>/dev/null && break
	sleep 1
done
kill $qpid 2>/dev/null; wait $qpid 2>/dev/null
grep 'dnsmasq-tftp' "$w/dnsmasq.log" | sed "s|$w/tftp/||g; s/^.*dnsmasq-tftp\[[0-9]*\]: //" >"$out/tftp.log"
sed -n 's/.*dnsmasq-tftp\[[0-9]*\]: \(file\|sent\|cannot access\) \([^ :]*\).*/\2/p' "$w/dnsmasq.log" |
	sed "s|^$w/tftp/||" | grep -v -e 'pxelinux.0$' -e 'ldlinux.c32$' -e 'nothing$' >"$out/order.txt"
ip=$(sed -n 's/.*DHCPACK(tap0) \([0-9.]*\) .*/\1/p' "$w/dnsmasq.log" | tail -1)
printf 'mac %s\nip %s\nqemu-uuid %s\nfile boot/pxelinux.0\n' $mac "$ip" $uuid >"$out/client.txt"
cat "$out/order.txt"
