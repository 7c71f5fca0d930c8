#!/bin/bash
# Build the demo disk `make run` boots: a GPT disk with
#   1. an EFI system partition (vfat) holding systemd-boot style BLS entries
#      (loader/entries) and the target kernel + initrd,
#   2. an ext4 root filesystem with a Debian-style /boot/grub/grub.cfg.
# The target OS is Debian's own vmlinuz with a tiny initramfs that prints its
# command line and powers off.
#   scripts/mkdemo.sh OUT_IMAGE
set -e
. "$(dirname "$0")/../tests/e2e/lib.sh"
out=${1:?usage: scripts/mkdemo.sh OUT_IMAGE}
E2E_NAME=demo
T=$E2E_ROOT/build/demo
rm -rf "$T"; mkdir -p "$T/esp/loader/entries" "$T/esp/demo" "$T/root/boot/grub"
target_os
cp "$TARGET_KERNEL" "$T/esp/demo/vmlinuz"
cp "$TARGET_INITRD" "$T/esp/demo/initrd.img"
cat >"$T/esp/loader/loader.conf" <<'EOC'
default demo-*
timeout 10
EOC
cat >"$T/esp/loader/entries/demo-6.1.conf" <<'EOC'
title      lboot demo OS
version    6.1
sort-key   demo
linux      /demo/vmlinuz
initrd     /demo/initrd.img
options    console=ttyS0,115200 demo.entry=bls quiet
EOC
cat >"$T/esp/loader/entries/demo-6.1-debug.conf" <<'EOC'
title      lboot demo OS (debug)
version    6.0
sort-key   demo
linux      /demo/vmlinuz
initrd     /demo/initrd.img
options    console=ttyS0,115200 demo.entry=bls-debug loglevel=7
EOC
mkpart_vfat "$T/esp.img" 40 "$T/esp" ESP 1234ABCD
cp "$TARGET_KERNEL" "$T/root/boot/vmlinuz-6.1.0-demo"
cp "$TARGET_INITRD" "$T/root/boot/initrd.img-6.1.0-demo"
cat >"$T/root/boot/grub/grub.cfg" <<'EOC'
# written like Debian 12's grub-mkconfig output, trimmed
set default="0"
set timeout=5
insmod part_gpt
insmod ext2
search --no-floppy --fs-uuid --set=root 5a0c1c7e-0000-4000-8000-00000000d3b0
menuentry 'Debian GNU/Linux (demo root)' --class debian --class gnu-linux --class os $menuentry_id_option 'gnulinux-simple-5a0c1c7e' {
	load_video
	insmod gzio
	linux	/boot/vmlinuz-6.1.0-demo root=UUID=5a0c1c7e-0000-4000-8000-00000000d3b0 ro console=ttyS0,115200 demo.entry=grub quiet
	initrd	/boot/initrd.img-6.1.0-demo
}
submenu 'Advanced options for Debian GNU/Linux' $menuentry_id_option 'gnulinux-advanced-5a0c1c7e' {
	menuentry 'Debian GNU/Linux, with Linux 6.1.0-demo (recovery mode)' --class debian $menuentry_id_option 'gnulinux-6.1.0-demo-recovery-5a0c1c7e' {
		linux	/boot/vmlinuz-6.1.0-demo root=UUID=5a0c1c7e-0000-4000-8000-00000000d3b0 ro single console=ttyS0,115200 demo.entry=grub-recovery
		initrd	/boot/initrd.img-6.1.0-demo
	}
}
EOC
mkpart_ext4 "$T/root.img" 48 "$T/root" demoroot 5a0c1c7e-0000-4000-8000-00000000d3b0
mkdisk_gpt "$out.tmp" "$T/esp.img:esp:ESP" "$T/root.img:linux:root"
mv "$out.tmp" "$out"
rm -rf "$T"
echo "demo: wrote $out"
