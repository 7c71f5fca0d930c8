#!/bin/bash
# Issue 23, finding 1: under verify enforce, a DHCPv6 server (dnsmasq, DHCPv6
# only) names a validly signed kernel by URL (RFC 5970 boot file URL, option
# 59) and an attacker's command line in its boot-file parameters (option 60).
# The kernel's signature is good, but nothing signed covers that command
# line: lboot refuses it with one line and never kexecs it. The same server
# without the parameters: the signed kernel with an empty command line is
# verified and kexec'd (the control: the route itself works).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net-lib.sh"
e2e_init verify-dhcp6
command -v minisign >/dev/null || { not_ok "minisign not installed (scripts/deps.sh)"; exit 1; }
net_init 192.168.77.1/24 fd00:77::1/64
target_os
W=$T/www KD=$T/keys
mkdir -p "$W" "$KD"
minisign -G -W -p "$KD/trusted.pub" -s "$KD/trusted.key" >/dev/null || { not_ok "minisign -G"; exit 1; }
cp "$TARGET_KERNEL" "$W/vmlinuz"
minisign -S -s "$KD/trusted.key" -m "$W/vmlinuz" -t "lboot e2e vmlinuz" >/dev/null || { not_ok "minisign -S"; exit 1; }
chmod -R a+rX "$W"
"$OUT/lboot" mkinitramfs -o "$T/fw.cpio.xz" --init "$OUT/lboot-target" --trust "$KD/trusted.pub" \
	2>"$T/mkinitramfs.log" || { not_ok "mkinitramfs --trust"; cat "$T/mkinitramfs.log"; exit 1; }
net_nginx "$W"
net_wait_http "http://[fd00:77::1]/vmlinuz" && ok "nginx on the IPv6 address" || not_ok "nginx on the IPv6 address"
V6=(--dhcp-range=fd00:77::100,fd00:77::1ff,64,1h --enable-ra
    --dhcp-option=option6:bootfile-url,'http://[fd00:77::1]/vmlinuz')

# the attack: the signed kernel with the DHCP server's command line
net_dnsmasq attack "${V6[@]}" --dhcp-option=option6:bootfile-param,'console=ttyS0','lboot-test=attacker','init=/bin/sh'
E2E_INITRD=$T/fw.cpio.xz E2E_APPEND="lboot.timeout=0 lboot.net.timeout=6" qemu_start "${NIC[@]}"
expect 'lboot: verified boot: enforce, 1 trusted key' 120 && ok "enforcing policy" || not_ok "enforcing policy"
expect 'lboot: net eth0: DHCPv6 lease .*boot file URL http://\[fd00:77::1\]/vmlinuz' 180 &&
	ok "attack: DHCPv6 lease with the boot file URL" || not_ok "attack: DHCPv6 lease with the boot file URL"
if expect "lboot: refused: 'vmlinuz' .*command line: no signature covers it" 240; then
	ok "attack: the DHCPv6 command line is refused, the kernel's signature notwithstanding"
	sleep 5 # what a kexec would print comes right after the check
else
	not_ok "attack: the DHCPv6 command line is refused, the kernel's signature notwithstanding"
	expect 'Kernel command line: .*lboot-test=attacker' 180 # did the attacker's line boot?
fi
expect_not "lboot: kexec 'vmlinuz'" && ok "attack: never kexec'd" || not_ok "attack: never kexec'd"
expect_not 'Kernel command line: .*lboot-test=attacker' && ok "attack: the attacker's command line never reached a kernel" ||
	not_ok "attack: the attacker's command line never reached a kernel"
qemu_stop
net_dnsmasq_stop

# the control: the same signed kernel by URL, no parameters
net_dnsmasq plain "${V6[@]}"
E2E_INITRD=$T/fw.cpio.xz E2E_APPEND="lboot.timeout=0 lboot.net.timeout=6" qemu_start "${NIC[@]}"
expect "lboot: verified 'vmlinuz': kernel, 0 initrds and command line by signatures" 300 &&
	ok "control: the signed kernel with an empty command line is verified" ||
	not_ok "control: the signed kernel with an empty command line is verified"
expect "lboot: kexec 'vmlinuz' kernel=http://\\[fd00:77::1\\]/vmlinuz" 120 &&
	ok "control: kexec'd" || not_ok "control: kexec'd"
qemu_stop
net_dnsmasq_stop
e2e_done
