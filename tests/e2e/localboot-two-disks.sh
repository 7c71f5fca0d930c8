#!/bin/bash
# Issue 2: two disks; the first (vda: MBR, ext4 data only, and a vfat
# without configs) has nothing bootable, the second (vdb: GPT, ext4 with a
# BLS entry with two initrds) does. lboot names them hd0/hd1 in disk order and boots vdb's.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-two-disks
target_os
mkdir -p "$T/data/stuff" "$T/empty" "$T/root/loader/entries"
echo "just data" >"$T/data/stuff/readme.txt"
cp "$TARGET_KERNEL" "$T/root/vmlinuz"
cp "$TARGET_INITRD" "$T/root/initrd.img"
# a second, uncompressed initrd of odd length (7 bytes of file data):
# lboot concatenates both into one memfd, padding each to 4 bytes
mkdir -p "$T/extra/etc"; printf 'extra\n\n' >"$T/extra/etc/lboot-extra"
(cd "$T/extra" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$T/root/extra.cpio"
cat >"$T/root/loader/entries/second-disk.conf" <<'EOT'
title   on the second disk
linux   /vmlinuz
initrd  /extra.cpio
initrd  /initrd.img
options console=ttyS0 lboot-test=second-disk
EOT
mkpart_ext4 "$T/data.img" 8 "$T/data" DATA
mkpart_vfat "$T/empty.img" 8 "$T/empty" EMPTYFAT
mkdisk_mbr "$T/disk1.img" "$T/data.img" "$T/empty.img"
mkpart_ext4 "$T/boot.img" 48 "$T/root" BOOT2
mkdisk_gpt "$T/disk2.img" "$T/boot.img"
qemu_start -drive "file=$T/disk1.img,format=raw,if=virtio" -drive "file=$T/disk2.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: found /dev/vda1 ext4 .*label=DATA \(hd0,msdos1\)' 60 && ok "vda1 = hd0,msdos1" || not_ok "vda1 = hd0,msdos1"
expect 'lboot: found /dev/vda2 vfat .*label=EMPTYFAT \(hd0,msdos2\)' 10 && ok "vda2 = hd0,msdos2" || not_ok "vda2 = hd0,msdos2"
expect 'lboot: found /dev/vdb1 ext4 .*label=BOOT2 \(hd1,gpt1\)' 10 && ok "vdb1 = hd1,gpt1" || not_ok "vdb1 = hd1,gpt1"
expect "lboot: kexec 'on the second disk' kernel=/vmlinuz initrd=/extra.cpio,/initrd.img " 60 && ok "kexec from the second disk" ||
	not_ok "kexec from the second disk"
expect 'lboot-target: cmdline: .*lboot-test=second-disk' 180 && ok "target OS booted" || not_ok "target OS booted"
e2e_done
