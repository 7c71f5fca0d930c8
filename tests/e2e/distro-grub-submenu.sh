#!/bin/bash
# Issue 3: Debian 12 as installed: an ESP with the EFI/debian/grub.cfg stub
# (search.fs_uuid + configfile) and an ext4 root with the grub.cfg that the
# real grub-mkconfig wrote (tests/files/grub/debian12; only `console=ttyS0`
# added to its linux lines so the target's output reaches the serial port),
# plus a grubenv whose next_entry points into the "Advanced options"
# submenu, as `grub-reboot 'gnulinux-advanced-...>...-recovery-...'` writes
# it. GRUB would boot the recovery entry inside the submenu: so must lboot.
. "$(dirname "$0")/lib.sh"
e2e_init distro-grub-submenu
target_os
F=$E2E_ROOT/tests/files/grub/debian12
U=7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d
mkdir -p "$T/esp/EFI/debian" "$T/root/boot/grub"
cp "$F/esp/EFI/debian/grub.cfg" "$T/esp/EFI/debian/grub.cfg"
sed -E 's/^(\s*linux\s.*[^ ])\s*$/\1 console=ttyS0,115200/' \
	"$F/root/boot/grub/grub.cfg" >"$T/root/boot/grub/grub.cfg"
for v in 6.1.0-17-amd64 6.1.0-18-amd64; do
	cp "$TARGET_KERNEL" "$T/root/boot/vmlinuz-$v"
	cp "$TARGET_INITRD" "$T/root/boot/initrd.img-$v"
done
# grub-editenv's format: a 1024-byte block padded with '#'
{
	printf '# GRUB Environment Block\n'
	printf 'next_entry=gnulinux-advanced-%s>gnulinux-6.1.0-18-amd64-recovery-%s\n' $U $U
} >"$T/env"
head -c 1024 < <(cat "$T/env"; yes '#' | tr -d '\n') >"$T/root/boot/grub/grubenv"
[ "$(stat -c %s "$T/root/boot/grub/grubenv")" = 1024 ] && ok "grubenv is 1024 bytes" || not_ok "grubenv is 1024 bytes"
grep -q 'next_entry' "$T/root/boot/grub/grub.cfg" && ok "fixture reads next_entry" || not_ok "fixture reads next_entry"
mkpart_vfat "$T/esp.img" 16 "$T/esp" ESP 0A1B2C3D
mkpart_ext4 "$T/root.img" 64 "$T/root" "" $U
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp:EFI" "$T/root.img:linux:root"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: kexec 'Debian GNU/Linux, with Linux 6.1.0-18-amd64 \(recovery mode\)' kernel=/boot/vmlinuz-6.1.0-18-amd64 initrd=/boot/initrd.img-6.1.0-18-amd64 cmdline=BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=UUID=$U ro single console=ttyS0,115200" 150 &&
	ok "kexec the recovery entry inside the submenu (next_entry)" || not_ok "kexec the recovery entry inside the submenu"
expect "lboot-target: cmdline: BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=UUID=$U ro single console=ttyS0" 180 &&
	ok "target OS booted with the submenu entry's command line" || not_ok "target OS booted with the submenu entry's command line"
e2e_done
