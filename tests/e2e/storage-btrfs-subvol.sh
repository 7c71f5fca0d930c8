#!/bin/bash
# Issue 11: openSUSE-style btrfs: subvolume @, @/.snapshots, and the root
# in snapshot @/.snapshots/1/snapshot, set as the default subvolume (as
# snapper's installation does); /boot is a directory of that snapshot. The
# ESP holds openSUSE's stub (btrfs_relative_path="yes", prefix /boot/grub2,
# source grub.cfg) and the grub.cfg is openSUSE Leap 15.5's (fixture
# tests/files/grub/opensuse, with console=ttyS0 added to the command lines).
# lboot mounts the top level, finds the default subvolume through the btrfs
# ioctls, and resolves GRUB's relative paths into it.
. "$(dirname "$0")/lib.sh"
e2e_init storage-btrfs-subvol
. "$(dirname "$0")/storage-lib.sh"
stg_need_root
target_os
F=$E2E_ROOT/tests/files/grub/opensuse
U=8e4b2c6a-0d1f-4a3b-9c5e-7f6a8b9c0d1e
K=5.14.21-150500.55.39-default
S=/@/.snapshots/1/snapshot
cp -a "$F/root" "$T/root"
cp "$TARGET_KERNEL" "$T/root/boot/vmlinuz-$K"
cp "$TARGET_INITRD" "$T/root/boot/initrd-$K"
sed -i 's|^\(\t*linux\t/boot/vmlinuz-[^ ]* root=UUID=[^ ]*\) |\1 console=ttyS0 lboot-test=opensuse |' \
	"$T/root/boot/grub2/grub.cfg"
grep -q 'lboot-test=opensuse' "$T/root/boot/grub2/grub.cfg" || { not_ok "edit grub.cfg"; exit 1; }
rm -f "$T/btrfs.img"; truncate -s 256M "$T/btrfs.img"
mkfs.btrfs -q -U $U -L opensuse "$T/btrfs.img" 2>/dev/null || { not_ok "mkfs.btrfs"; exit 1; }
STG_DEST=$S stg_fill "$T/btrfs.img" btrfs "$T/root" \
	'btrfs -q subvolume create "$M/@" && btrfs -q subvolume create "$M/@/.snapshots" &&
	 mkdir "$M/@/.snapshots/1" && btrfs -q subvolume create "$M'$S'" &&
	 btrfs -q subvolume set-default "$M'$S'"'
mkpart_vfat "$T/esp.img" 16 "$F/esp" ESP
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp" "$T/btrfs.img:linux"
sum_before=$(sha256sum <"$T/disk.img")
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: found /dev/vda2 btrfs uuid=$U label=opensuse \(hd0,gpt2\)" 120 && ok "btrfs found" ||
	not_ok "btrfs found"
expect "lboot: /dev/vda2: btrfs: top level mounted, default subvolume $S" 30 &&
	ok "default subvolume found ($S)" || not_ok "default subvolume found ($S)"
expect "lboot: kexec 'openSUSE Leap 15.5' kernel=$S/boot/vmlinuz-$K initrd=$S/boot/initrd-$K cmdline=BOOT_IMAGE=/boot/vmlinuz-$K root=UUID=$U console=ttyS0 lboot-test=opensuse" 60 &&
	ok "saved entry kexec'd, relative paths inside the default subvolume" ||
	not_ok "saved entry kexec'd, relative paths inside the default subvolume"
expect 'lboot-target: cmdline: .*lboot-test=opensuse' 180 && ok "target OS booted" || not_ok "target OS booted"
log "target up after $(elapsed) s"
qemu_wait 60 || log "QEMU still running"
qemu_stop
[ "$(sha256sum <"$T/disk.img")" = "$sum_before" ] && ok "disk unchanged (nothing written)" ||
	not_ok "disk unchanged (nothing written)"
e2e_done
