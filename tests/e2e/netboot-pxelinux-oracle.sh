#!/bin/bash
# Issue 13: the same pxelinux tree booted by real pxelinux and by lboot, on
# the same wire, must give the target OS the same kernel command line.
# dnsmasq (DHCP + TFTP) in a network namespace with a tap device; QEMU on
# that tap with an e1000 NIC (virtio-net with Debian's pxe-virtio.rom is not offered
# as a boot device by SeaBIOS here). Run 1: SeaBIOS, -boot n, Debian's iPXE NIC
# ROM loads Debian's pxelinux.0 (syslinux 6.04), which probes
# pxelinux.cfg/01-MAC, and boots the target kernel + initrd over TFTP.
# Run 2: the firmware kernel + lboot's initramfs, no disk: lboot takes the
# same lease (boot file pxelinux.0), probes the same tree, boots the same
# label. The target OS prints /proc/cmdline; the two lines must be equal.
# The config uses what real PXE configs use: a global APPEND and IPAPPEND,
# a label's own APPEND (spaces as written), INITRD a,b, IPAPPEND 7 (ip=,
# BOOTIF=, SYSUUID=), and a MAC-specific file next to `default`.
. "$(dirname "$0")/lib.sh"
e2e_init netboot-pxelinux-oracle
[ "$(id -u)" = 0 ] || { skip "netns" "needs root for a network namespace and a tap device"; exit 0; }
for f in /usr/lib/PXELINUX/pxelinux.0 /usr/lib/syslinux/modules/bios/ldlinux.c32 /usr/lib/ipxe/qemu/efi-e1000.rom; do
	[ -f "$f" ] || { not_ok "$f missing (scripts/deps.sh: pxelinux, syslinux-common, ipxe-qemu)"; exit 1; }
done
command -v dnsmasq >/dev/null || { not_ok "dnsmasq not installed (scripts/deps.sh)"; exit 1; }
target_os
NS=lboot-pxo-$$ R=$T/tftp MAC=52:54:00:77:01:02 UUID=5b1e4b3c-aa55-4d3e-8c1b-123456789abc
rm -rf "$R"; mkdir -p "$R/boot/pxelinux.cfg"
cleanup() {
	qemu_stop
	[ -n "${DNSMASQ:-}" ] && kill "$DNSMASQ" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	e2e_dump_on_fail
}
trap cleanup EXIT
ip netns add "$NS" && ip -n "$NS" link set lo up &&
	ip -n "$NS" tuntap add dev tap0 mode tap && ip -n "$NS" link set tap0 up &&
	ip -n "$NS" addr add 192.168.78.1/24 dev tap0 || { not_ok "netns with tap0"; exit 1; }
cp /usr/lib/PXELINUX/pxelinux.0 /usr/lib/syslinux/modules/bios/ldlinux.c32 "$R/boot/"
cp "$TARGET_KERNEL" "$R/boot/vmlinuz"
cp "$TARGET_INITRD" "$R/boot/initrd.img"
efivarfs_cpio "$R/boot/extra.img"
cat >"$R/boot/pxelinux.cfg/default" <<'EOF'
DEFAULT wrong
LABEL wrong
  KERNEL vmlinuz
  APPEND initrd=initrd.img console=ttyS0,115200 lboot-test=pxo-default
EOF
cat >"$R/boot/pxelinux.cfg/01-${MAC//:/-}" <<'EOF'
PROMPT 0
TIMEOUT 0
DEFAULT node
APPEND console=ttyS0,115200 lboot-test=pxo-global
IPAPPEND 1
LABEL inherits
  KERNEL vmlinuz
LABEL node
  KERNEL vmlinuz
  INITRD initrd.img,extra.img
  APPEND console=ttyS0,115200 quiet lboot-test=pxo-node   spaced lboot-test.acpi  
  IPAPPEND 7
LABEL uuid
  KERNEL vmlinuz
  SYSAPPEND 4
EOF
chmod -R a+rX "$T"
ip netns exec "$NS" dnsmasq --no-daemon --conf-file=/dev/null --port=0 --interface=tap0 --bind-interfaces \
	--dhcp-range=192.168.78.50,192.168.78.99,255.255.255.0,1h --dhcp-boot=boot/pxelinux.0 \
	--dhcp-host="$MAC,192.168.78.60" --enable-tftp --tftp-root="$R" \
	--dhcp-leasefile="$T/leases" --log-dhcp >"$T/dnsmasq.log" 2>&1 &
DNSMASQ=$!
printf '#!/bin/sh\nexec ip netns exec %s qemu-system-x86_64 "$@"\n' "$NS" >"$T/qemu-ns"
chmod +x "$T/qemu-ns"
QEMU=$T/qemu-ns
NIC=(-uuid "$UUID" -netdev tap,id=n0,ifname=tap0,script=no,downscript=no
     -device "e1000,netdev=n0,mac=$MAC")
cmdline_of() { # serial log -> the target's /proc/cmdline
	tr -d '\r' <"$1" | sed -n 's/^lboot-target: cmdline: //p' | tail -n1
}

# --- run 1: real pxelinux (SeaBIOS, -boot n) -----------------------------------
E2E_BOOT_N=1 E2E_MACHINE=pc qemu_start "${NIC[@]}"
if expect 'lboot-target: cmdline: ' 600; then
	ok "real pxelinux booted the target over TFTP ($(elapsed) s)"
else
	not_ok "real pxelinux booted the target over TFTP"
fi
qemu_stop
cp "$T/serial.log" "$T/serial-pxelinux.log"
REF=$(cmdline_of "$T/serial-pxelinux.log")
echo "# real pxelinux: $REF"

# --- run 2: lboot, same wire, same tree -----------------------------------------
E2E_MACHINE=pc E2E_APPEND="lboot.timeout=0" qemu_start "${NIC[@]}"
expect 'lboot: net: pxelinux config tftp://192.168.78.1/boot/pxelinux.cfg/01-52-54-00-77-01-02' 300 &&
	ok "lboot found the MAC-specific file as pxelinux did" || not_ok "lboot found the MAC-specific file as pxelinux did"
if expect 'lboot-target: cmdline: ' 600; then
	ok "lboot booted the target over TFTP ($(elapsed) s)"
else
	not_ok "lboot booted the target over TFTP"
fi
qemu_stop
cp "$T/serial.log" "$T/serial-lboot.log"
GOT=$(cmdline_of "$T/serial-lboot.log")
echo "# lboot:         $GOT"
if [ -n "$REF" ] && [ "$REF" = "$GOT" ]; then
	ok "the target's command line is the one real pxelinux gives: $REF"
else
	not_ok "the target's command line is the one real pxelinux gives (pxelinux: '$REF', lboot: '$GOT')"
fi
case $REF in
*lboot-test=pxo-node*) ok "the MAC-specific file's default label booted" ;;
*) not_ok "the MAC-specific file's default label booted" ;;
esac
tr -d '\r' <"$T/serial-lboot.log" | grep -q 'lboot-target: second initrd: yes' &&
	tr -d '\r' <"$T/serial-pxelinux.log" | grep -q 'lboot-target: second initrd: yes' &&
	ok "both initrds of INITRD a,b reached the target in both runs" ||
	not_ok "both initrds of INITRD a,b reached the target in both runs"
e2e_done
