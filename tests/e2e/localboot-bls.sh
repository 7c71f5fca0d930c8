#!/bin/bash
# Issue 2: a GPT disk with one ext4 partition holding a BLS type 1 entry
# (/loader/entries) and loader.conf; lboot (PID 1, lboot.timeout=0) finds
# the disk, mounts it read-only, and kexecs the entry with its command line.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-bls
target_os
R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz-test"
cp "$TARGET_INITRD" "$R/initrd-test.img"
printf 'default test.conf\ntimeout 3\n' >"$R/loader/loader.conf"
cat >"$R/loader/entries/test.conf" <<'EOT'
title   lboot BLS test
version 1.0
linux   /vmlinuz-test
initrd  /initrd-test.img
options console=ttyS0 lboot-test=bls quiet
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" BLSBOOT 6d3e1c2a-0b4f-4c5d-9e8f-1a2b3c4d5e6f
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: found /dev/vda1 ext4 uuid=6d3e1c2a-0b4f-4c5d-9e8f-1a2b3c4d5e6f label=BLSBOOT \(hd0,gpt1\)' 60 &&
	ok "ext4 partition found with uuid, label, grub name" || not_ok "ext4 partition found"
expect "lboot: kexec 'lboot BLS test' kernel=/vmlinuz-test initrd=/initrd-test.img cmdline=initrd=\\\\initrd-test.img console=ttyS0 lboot-test=bls quiet" 60 &&
	ok "kexec line" || not_ok "kexec line"
expect 'lboot-target: cmdline: .*lboot-test=bls' 180 && ok "target OS booted with the entry's command line" ||
	not_ok "target OS booted with the entry's command line"
log "target up after $(elapsed) s"
expect_not 'lboot: boot failed' && ok "no failure" || not_ok "no failure"
e2e_done
