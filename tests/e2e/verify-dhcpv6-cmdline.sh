#!/bin/bash
# Issue 23, finding 1: an attacker's DHCPv6 server (no DHCPv4 on the wire)
# names, as the boot file URL (RFC 5970 option 59), the owner's own validly
# signed kernel (vmlinuz + vmlinuz.minisig on the server), and as boot file
# parameters (option 60) the command line `init=/bin/sh ...`. Nothing signs
# option 60:
#   1. verify enforce: the entry is refused with one line, the kernel is
#      never loaded, the attacker's line never reaches a kernel;
#   2. control, the same firmware built with --verify warn: the same
#      scenario loads the signed kernel with the attacker's command line
#      (what enforce did on 3e4e8a8: netboot marked the line checked);
#   3. enforce, option 60 absent: the signed kernel boots with an empty
#      command line ("command line: empty").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-lib.sh"
e2e_init verify-dhcpv6-cmdline
net_init 192.168.77.1/24 fd00:77::1/64
target_os
command -v minisign >/dev/null || { not_ok "minisign not installed (scripts/deps.sh)"; exit 1; }
W=$T/www
mkdir -p "$W"
cp "$TARGET_KERNEL" "$W/vmlinuz"
minisign -G -W -p "$K/k.pub" -s "$K/k.key" >/dev/null || { not_ok "minisign -G"; exit 1; }
minisign -S -s "$K/k.key" -m "$W/vmlinuz" >/dev/null || { not_ok "sign vmlinuz"; exit 1; }
chmod -R a+rX "$T"
"$OUT/lboot" mkinitramfs -o "$T/enforce.cpio.xz" --init "$OUT/lboot-target" --trust "$K/k.pub" 2>/dev/null ||
	{ not_ok "mkinitramfs --trust (enforce)"; exit 1; }
"$OUT/lboot" mkinitramfs -o "$T/warn.cpio.xz" --init "$OUT/lboot-target" --trust "$K/k.pub" --verify warn 2>/dev/null ||
	{ not_ok "mkinitramfs --trust --verify warn"; exit 1; }
net_nginx "$W"
net_wait_http "http://[fd00:77::1]/vmlinuz.minisig" && ok "nginx on the IPv6 address" ||
	not_ok "nginx on the IPv6 address"
V6=(--dhcp-range=fd00:77::100,fd00:77::1ff,64,1h --enable-ra
    --dhcp-option=option6:bootfile-url,'http://[fd00:77::1]/vmlinuz')
ATTACK=(--dhcp-option=option6:bootfile-param,console=ttyS0,init=/bin/sh,lboot-test=attacker)
APPEND="lboot.timeout=0 lboot.net.timeout=6"

# --- 1. enforce: refused -----------------------------------------------------------
net_dnsmasq v6 "${V6[@]}" "${ATTACK[@]}"
E2E_INITRD=$T/enforce.cpio.xz E2E_APPEND=$APPEND qemu_start "${NIC[@]}"
expect 'lboot: net eth0: DHCPv6 lease fd00:77::1[0-9a-f]{2} from .*boot file URL http://\[fd00:77::1\]/vmlinuz' 240 &&
	ok "enforce: DHCPv6-only lease with the boot file URL" || not_ok "enforce: DHCPv6-only lease with the boot file URL"
expect "lboot: refused: 'vmlinuz' \\(network\\): command line: its config file was not checked" 240 &&
	ok "enforce: the signed kernel with option 60's command line is refused, one line says why" ||
	not_ok "enforce: the signed kernel with option 60's command line is refused, one line says why"
sleep 5
expect_not "lboot: kexec 'vmlinuz'" && ok "enforce: the kernel is not loaded" || not_ok "enforce: the kernel is not loaded"
expect_not 'Kernel command line: .*init=/bin/sh' && ok "enforce: no kernel got init=/bin/sh" ||
	not_ok "enforce: no kernel got init=/bin/sh"
qemu_stop
net_dnsmasq_stop

# --- 2. control: the same scenario under warn loads it -------------------------------
net_dnsmasq v6b "${V6[@]}" "${ATTACK[@]}"
E2E_INITRD=$T/warn.cpio.xz E2E_APPEND=$APPEND qemu_start "${NIC[@]}"
expect "lboot: verify \\(warn\\): 'vmlinuz': command line: its config file was not checked; booting it anyway" 300 &&
	ok "control (warn): the same entry is only warned about" || not_ok "control (warn): the same entry is only warned about"
expect 'Kernel command line: .*init=/bin/sh lboot-test=attacker' 240 &&
	ok "control (warn): the signed kernel boots with the attacker's command line" ||
	not_ok "control (warn): the signed kernel boots with the attacker's command line"
qemu_stop
net_dnsmasq_stop

# --- 3. enforce, no option 60: an empty command line boots ------------------------------
net_dnsmasq v6c "${V6[@]}"
E2E_INITRD=$T/enforce.cpio.xz E2E_APPEND=$APPEND qemu_start "${NIC[@]}"
expect "lboot: verified 'vmlinuz': kernel, 0 initrds and command line by signatures \\(kernel: key [0-9A-F]{16}; command line: empty\\)" 300 &&
	ok "enforce: without option 60 the signed kernel is verified (command line: empty)" ||
	not_ok "enforce: without option 60 the signed kernel is verified (command line: empty)"
expect "lboot: kexec 'vmlinuz' kernel=http://\\[fd00:77::1\\]/vmlinuz" 120 && ok "enforce: and loaded" ||
	not_ok "enforce: and loaded"
qemu_stop
net_dnsmasq_stop
e2e_done
