#!/bin/bash
# Issue 2: an ESP (vfat, GPT) with a GRUB config (/EFI/debian/grub.cfg) that
# picks its second menuentry by `set default`; the kernel and initrd live on
# the same vfat filesystem. lboot kexecs the entry GRUB would boot, or the
# one lboot.default= names.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-grub-vfat
target_os
R=$T/root
mkdir -p "$R/EFI/debian" "$R/boot"
cp "$TARGET_KERNEL" "$R/boot/vmlinuz"
cp "$TARGET_INITRD" "$R/boot/initrd.img"
cat >"$R/EFI/debian/grub.cfg" <<'EOT'
set default="1"
set timeout=5
menuentry 'first entry' --id first {
	linux /boot/vmlinuz console=ttyS0 lboot-test=grub-first
	initrd /boot/initrd.img
}
menuentry 'second entry' --id second {
	linux /boot/vmlinuz console=ttyS0 lboot-test=grub-second
	initrd /boot/initrd.img
}
EOT
mkpart_vfat "$T/esp.img" 40 "$R" ESP 0A1B2C3D
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp:EFI system"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: found /dev/vda1 vfat uuid=0A1B-2C3D label=ESP \(hd0,gpt1\)' 60 &&
	ok "vfat ESP found with volume id and label" || not_ok "vfat ESP found"
expect "lboot: kexec 'second entry' kernel=/boot/vmlinuz initrd=/boot/initrd.img" 60 &&
	ok "kexec of GRUB's default entry" || not_ok "kexec of GRUB's default entry"
expect 'lboot-target: cmdline: .*lboot-test=grub-second' 180 && ok "target OS booted" ||
	not_ok "target OS booted"
log "target up after $(elapsed) s"
qemu_stop
# lboot.default overrides the config's default (by GRUB --id)
E2E_APPEND="lboot.timeout=0 lboot.default=first" qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: kexec 'first entry' " 120 && ok "lboot.default=ID picks the entry" || not_ok "lboot.default=ID picks the entry"
expect 'lboot-target: cmdline: .*lboot-test=grub-first' 180 && ok "target OS booted the chosen entry" ||
	not_ok "target OS booted the chosen entry"
e2e_done
