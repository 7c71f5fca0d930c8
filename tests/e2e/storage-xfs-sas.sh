#!/bin/bash
# Issue 11: a default RHEL 9-style install on a SAS RAID controller (QEMU's
# megasas, the kernel's megaraid_sas): GPT with an ESP whose
# EFI/redhat/grub.cfg stub searches the /boot filesystem and runs its
# grub2/grub.cfg (blscfg, BLS entries, grubenv saved_entry), /boot XFS (as
# mkfs.xfs makes it) whose log needs recovery, as after a crash. lboot
# mounts it with norecovery (nothing replayed, nothing written) and boots
# the saved entry. Fixture: tests/files/storage/rhel9.
. "$(dirname "$0")/lib.sh"
e2e_init storage-xfs-sas
. "$(dirname "$0")/storage-lib.sh"
stg_need_root
target_os
F=$E2E_ROOT/tests/files/storage/rhel9
BU=5f0c3a2e-9b1d-4e7a-8c6f-2d4b1a0e9c37
K=5.14.0-362.8.1.el9_3.x86_64 K2=5.14.0-284.11.1.el9_2.x86_64
cp -a "$F/boot" "$T/boot"
for k in $K $K2 0-rescue-8a4e2f1c9b7d4c3ea5f60718293a4b5c; do
	cp "$TARGET_KERNEL" "$T/boot/vmlinuz-$k"
	cp "$TARGET_INITRD" "$T/boot/initramfs-$k.img"
done
rm -f "$T/xfs.img"; truncate -s 300M "$T/xfs.img"
mkfs.xfs -q -L boot -m uuid=$BU "$T/xfs.img" || { not_ok "mkfs.xfs"; exit 1; }
# files written back in place (freeze), then one more change left only in
# the log, and the filesystem shut down: the log needs recovery
stg_fill "$T/xfs.img" xfs "$T/boot" "" \
	'xfs_freeze -f "$M" && xfs_freeze -u "$M" && touch "$M/.crash" && xfs_io -x -c "shutdown -f" "$M"'
xfs_repair -n "$T/xfs.img" >"$T/repair.log" 2>&1
grep -q 'valuable metadata changes in a log' "$T/repair.log" && ok "xfs_repair -n: the log needs recovery" ||
	{ not_ok "xfs_repair -n: the log needs recovery"; cat "$T/repair.log"; exit 1; }
mkpart_vfat "$T/esp.img" 16 "$F/esp" ESP
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp" "$T/xfs.img:linux"
sum_before=$(sha256sum <"$T/disk.img")
qemu_start -device megasas,id=sas0 -drive "if=none,id=d0,file=$T/disk.img,format=raw" \
	-device scsi-hd,drive=d0,bus=sas0.0
expect 'megaraid_sas|megasas' 120 && ok "megaraid_sas driver bound" || not_ok "megaraid_sas driver bound"
expect "lboot: found /dev/sda2 xfs uuid=$BU label=boot \(hd0,gpt2\)" 120 &&
	ok "XFS /boot on the SAS disk found" || not_ok "XFS /boot on the SAS disk found"
expect 'lboot: /dev/sda2: xfs: log needs recovery: mounted with norecovery, not replayed' 30 &&
	ok "dirty log noticed, not replayed" || not_ok "dirty log noticed, not replayed"
expect "lboot: kexec 'Red Hat Enterprise Linux \($K\) 9.3 \(Plow\)' kernel=/vmlinuz-$K initrd=/initramfs-$K.img cmdline=BOOT_IMAGE=[^ ]+/vmlinuz-$K root=/dev/mapper/rhel-root ro crashkernel=1G-4G:192M,4G-64G:256M,64G-:512M resume=/dev/mapper/rhel-swap rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap console=ttyS0,115200n8" 60 &&
	ok "saved entry kexec'd with its BLS options" || not_ok "saved entry kexec'd with its BLS options"
expect 'lboot-target: cmdline: BOOT_IMAGE=[^ ]+ root=/dev/mapper/rhel-root ro crashkernel' 180 && ok "target OS booted" ||
	not_ok "target OS booted"
log "target up after $(elapsed) s"
qemu_wait 60 || log "QEMU still running"
qemu_stop
[ "$(sha256sum <"$T/disk.img")" = "$sum_before" ] && ok "disk unchanged (log not replayed)" ||
	not_ok "disk unchanged (log not replayed)"
e2e_done
