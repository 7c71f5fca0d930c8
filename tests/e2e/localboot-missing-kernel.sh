#!/bin/bash
# Issue 2: the default entry's kernel is missing, the next one's "kernel" is
# not a bzImage; lboot prints one `boot failed` line for each, naming the
# entry, device, file and reason, and boots the third entry.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-missing-kernel
target_os
R=$T/root
mkdir -p "$R/boot/grub"
cp "$TARGET_KERNEL" "$R/boot/vmlinuz"
cp "$TARGET_INITRD" "$R/boot/initrd.img"
echo "this is not a kernel" >"$R/boot/notakernel"
cat >"$R/boot/grub/grub.cfg" <<'EOT'
set default=0
set timeout=5
menuentry 'missing kernel' {
	linux /boot/vmlinuz-gone console=ttyS0 lboot-test=missing
	initrd /boot/initrd.img
}
menuentry 'not a kernel' {
	linux /boot/notakernel console=ttyS0 lboot-test=notakernel
}
menuentry 'good kernel' {
	linux /boot/vmlinuz console=ttyS0 lboot-test=good
	initrd /boot/initrd.img
}
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" ROOT
mkdisk_gpt "$T/disk.img" "$T/p1.img"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: boot failed: missing kernel \(/dev/vda1\): /boot/vmlinuz-gone: .*ENOENT' 60 &&
	ok "missing kernel reported in one line" || not_ok "missing kernel reported in one line"
expect 'lboot: boot failed: not a kernel \(/dev/vda1\): /boot/notakernel: .*ENOEXEC' 30 &&
	ok "non-bzImage reported in one line" || not_ok "non-bzImage reported in one line"
expect "lboot: kexec 'good kernel'" 30 && ok "falls back to the next entry" || not_ok "falls back to the next entry"
expect 'lboot-target: cmdline: .*lboot-test=good' 180 && ok "target OS booted" || not_ok "target OS booted"
e2e_done
