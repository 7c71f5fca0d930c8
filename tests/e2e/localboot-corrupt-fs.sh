#!/bin/bash
# Issue 2: the first partition is an ext4 whose group descriptors are
# destroyed (the superblock still probes as ext4): mounting it fails, lboot
# reports it in one line (device, type, reason) and boots from the second.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-corrupt-fs
target_os
mkdir -p "$T/junk" "$T/root/loader/entries"
echo junk >"$T/junk/file"
cp "$TARGET_KERNEL" "$T/root/vmlinuz"
cp "$TARGET_INITRD" "$T/root/initrd.img"
cat >"$T/root/loader/entries/ok.conf" <<'EOT'
title   survivor
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=after-corrupt
EOT
rm -f "$T/bad.img"
mkfs.ext4 -q -F -b 4096 -L BROKEN -d "$T/junk" "$T/bad.img" 8M || { not_ok "mkfs bad"; exit 1; }
# block 1 holds the group descriptor table: overwrite it
dd if=/dev/urandom of="$T/bad.img" bs=4096 seek=1 count=1 conv=notrunc status=none || { not_ok "corrupt bad.img"; exit 1; }
mkpart_ext4 "$T/good.img" 48 "$T/root" GOOD
mkdisk_gpt "$T/disk.img" "$T/bad.img" "$T/good.img"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: /dev/vda1: ext4: mount failed: ' 60 && ok "mount failure in one line" || not_ok "mount failure in one line"
expect "lboot: kexec 'survivor'" 60 && ok "boots from the intact partition" || not_ok "boots from the intact partition"
expect 'lboot-target: cmdline: .*lboot-test=after-corrupt' 180 && ok "target OS booted" || not_ok "target OS booted"
e2e_done
