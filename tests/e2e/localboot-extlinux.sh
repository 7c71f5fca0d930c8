#!/bin/bash
# Issue 2: an MBR disk whose ext4 partition has /boot/extlinux/extlinux.conf
# with two labels and DEFAULT naming the second.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-extlinux
target_os
R=$T/root
mkdir -p "$R/boot/extlinux"
cp "$TARGET_KERNEL" "$R/boot/vmlinuz"
cp "$TARGET_INITRD" "$R/boot/initrd.img"
cat >"$R/boot/extlinux/extlinux.conf" <<'EOT'
DEFAULT linux2
TIMEOUT 50
LABEL linux1
  MENU LABEL extlinux one
  KERNEL /boot/vmlinuz
  INITRD /boot/initrd.img
  APPEND console=ttyS0 lboot-test=extlinux-one
LABEL linux2
  MENU LABEL extlinux two
  LINUX /boot/vmlinuz
  INITRD /boot/initrd.img
  APPEND console=ttyS0 lboot-test=extlinux-two
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" EXTROOT
mkdisk_mbr "$T/disk.img" "$T/p1.img"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: found /dev/vda1 ext4 uuid=[0-9a-f-]{36} label=EXTROOT \(hd0,msdos1\)' 60 &&
	ok "ext4 on MBR found (hd0,msdos1)" || not_ok "ext4 on MBR found"
expect "lboot: kexec 'extlinux two' kernel=/boot/vmlinuz initrd=/boot/initrd.img" 60 &&
	ok "kexec of the DEFAULT label" || not_ok "kexec of the DEFAULT label"
expect 'lboot-target: cmdline: .*lboot-test=extlinux-two' 180 && ok "target OS booted" ||
	not_ok "target OS booted"
e2e_done
