#!/bin/bash
# A real installed Debian 12 (tests/os/build.sh grub-lvm: GRUB, /boot on
# ext4, root on LVM, systemd) booted twice in one run: by stock OVMF and the
# disk's own GRUB (the oracle), then by the LinuxBoot ROM (lboot reads the
# same grub.cfg). From inside the OS (the fixture's lboot-report unit, after
# the system is up): the state systemd reached, /proc/cmdline word for word,
# the kernel it runs, the root and /boot it mounted, all equal.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init os-grub-lvm
[ "$(id -u)" = 0 ] || { skip "fixture" "building the installed system needs root"; exit 0; }
img=$("$E2E_ROOT/tests/os/build.sh" grub-lvm 2>"$T/build.log") ||
	{ sed 's/^/# /' "$T/build.log" | tail -30; not_ok "fixture: Debian 12 with GRUB, root on LVM"; exit 1; }
ok "fixture: Debian 12 with GRUB, root on LVM ($img)"

report() { # NAME: the OS's report lines of the last boot into $T/NAME.report
	tr -d '\r' <"$T/serial.log" | sed -n 's/^.*\(OS-REPORT: .*\)$/\1/p' >"$T/$1.report"
}
field() { sed -n "s/^OS-REPORT: $2=//p" "$T/$1.report" | head -n1; }

# 1. stock OVMF, the disk's own GRUB (EFI/BOOT/BOOTX64.EFI)
E2E_FIRMWARE=/usr/share/OVMF/OVMF_CODE_4M.fd E2E_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd \
	qemu_start -drive "file=$img,format=raw,if=virtio,snapshot=on"
expect 'OS-REPORT: done' 600 && ok "stock OVMF + GRUB: the OS is up ($(elapsed) s)" ||
	not_ok "stock OVMF + GRUB: the OS is up"
report grub
qemu_wait 60 || true
qemu_stop
cp "$T/serial.log" "$T/serial-grub.log"

# 2. the LinuxBoot ROM
rom_build "$T/lboot.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" \
	--cmdline "$ROM_CMDLINE_TEST"
E2E_FIRMWARE=$T/lboot.rom E2E_VARS=$T/lboot-vars.fd \
	qemu_start -drive "file=$img,format=raw,if=virtio,snapshot=on"
expect "lboot: kexec 'Debian GNU/Linux'" 300 && ok "lboot boots GRUB's default entry" ||
	not_ok "lboot boots GRUB's default entry"
expect 'OS-REPORT: done' 600 && ok "ROM: the OS is up ($(elapsed) s)" || not_ok "ROM: the OS is up"
report rom
qemu_wait 60 || true
qemu_stop

for b in grub rom; do
	[ "$(field $b state)" = running ] && ok "$b: systemd reached a running system (no failed unit)" ||
		not_ok "$b: systemd state is '$(field $b state)', not running"
done
for f in cmdline uname root boot efi; do
	g=$(field grub $f) r=$(field rom $f)
	if [ -n "$g" ] && [ "$g" = "$r" ]; then
		ok "the OS sees the same $f through lboot as through GRUB: $g"
	else
		not_ok "the OS sees a different $f: GRUB '$g', lboot '$r'"
	fi
done
case $(field rom cmdline) in
BOOT_IMAGE=/vmlinuz-*' root=/dev/mapper/lbdeb-root ro console=ttyS0,115200'*) ok "the command line starts with GRUB's BOOT_IMAGE= and the entry's root" ;;
*) not_ok "command line '$(field rom cmdline)'" ;;
esac
[ "$(field rom root)" = /dev/mapper/lbdeb-root ] && ok "root is the LVM volume" || not_ok "root is '$(field rom root)'"
e2e_done
