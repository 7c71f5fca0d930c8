#!/bin/bash
# Issue 2: the primary GPT header is destroyed; the kernel (with `gpt`)
# uses the backup at the end of the disk and so does lboot, which still
# names the partition hd0,gpt2 and boots from it.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-gpt-backup
target_os
mkdir -p "$T/e" "$T/root/loader/entries"
cp "$TARGET_KERNEL" "$T/root/vmlinuz"
cp "$TARGET_INITRD" "$T/root/initrd.img"
cat >"$T/root/loader/entries/b.conf" <<'EOT'
title   backup gpt
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=backup-gpt
EOT
mkpart_vfat "$T/p1.img" 4 "$T/e" SMALL
mkpart_ext4 "$T/p2.img" 48 "$T/root" BACKUPGPT
mkdisk_gpt "$T/disk.img" "$T/p1.img" "$T/p2.img"
dd if=/dev/zero of="$T/disk.img" bs=512 seek=1 count=1 conv=notrunc status=none
E2E_APPEND="lboot.timeout=0 gpt" qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: /dev/vda: primary GPT damaged, using the backup GPT' 60 && ok "backup GPT used" || not_ok "backup GPT used"
expect 'lboot: found /dev/vda2 ext4 .*label=BACKUPGPT \(hd0,gpt2\)' 30 && ok "partition named from the backup" ||
	not_ok "partition named from the backup"
expect "lboot: kexec 'backup gpt' " 60 && ok "kexec" || not_ok "kexec"
expect 'lboot-target: cmdline: .*lboot-test=backup-gpt' 180 && ok "target OS booted" || not_ok "target OS booted"
e2e_done
