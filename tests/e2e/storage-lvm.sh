#!/bin/bash
# Issue 11: /boot inside LVM. A volume group over two disks' GPT
# partitions, made by the real lvm2 in a builder guest: LV "boot" (ext4,
# the default BLS entry) striped over both disks (64 KiB chunks: the kernel
# lboot loads comes from both), and LV "alt" (ext4, another entry) linear
# in two segments, one on each disk. lboot reads the PV labels
# and metadata itself, maps both LVs read-only through the device-mapper
# ioctls (no lvm2 in the firmware), boots the default, writes nothing.
. "$(dirname "$0")/lib.sh"
e2e_init storage-lvm
. "$(dirname "$0")/storage-lib.sh"
target_os
for n in boot alt; do
	mkdir -p "$T/$n/loader/entries"
	cp "$TARGET_KERNEL" "$T/$n/vmlinuz"
	cp "$TARGET_INITRD" "$T/$n/initrd.img"
	printf 'title   lvm %s\nlinux   /vmlinuz\ninitrd  /initrd.img\noptions console=ttyS0 lboot-test=lvm-%s\n' \
		"$n" "$n" >"$T/$n/loader/entries/$n.conf"
done
printf 'default boot.conf\n' >"$T/boot/loader/loader.conf"
mkpart_ext4 "$T/boot.img" 40 "$T/boot" LVMBOOT 7e2d1c0b-9a8f-4e6d-8c5b-4a3f2e1d0c9b
mkpart_ext4 "$T/alt.img" 40 "$T/alt" LVMALT
truncate -s 64M "$T/pv.img"
LVM=E6D6D379-F507-44C2-A23C-238F2A3DF928
mkdisk_gpt "$T/disk1.img" "$T/pv.img:$LVM:lvm"
mkdisk_gpt "$T/disk2.img" "$T/pv.img:$LVM:lvm"
cat >"$T/job.sh" <<'EOT'
pvcreate -y /dev/vda1 /dev/vdb1
vgcreate vgboot /dev/vda1 /dev/vdb1
lvcreate -y -Wn -Zn -i2 -I64 -L 48M -n boot vgboot
lvcreate -y -Wn -Zn -L 12M -n alt vgboot /dev/vda1
lvextend -y -L +36M vgboot/alt /dev/vdb1
ls -l /dev/mapper
dd if=/dev/vdc of=/dev/mapper/vgboot-boot bs=1M
dd if=/dev/vdd of=/dev/mapper/vgboot-alt bs=1M
sync
lvs --segments -o lv_name,seg_start_pe,seg_pe_ranges,stripes,stripe_size
vgchange -an vgboot
EOT
stg_build "$T/job.sh" "$T/disk1.img" "$T/disk2.img" "$T/boot.img" "$T/alt.img"
tr -d '\r' <"$T/builder.log" | grep -E '^ +(boot|alt) ' | sed 's/^/# lvs: /'
sum1=$(sha256sum <"$T/disk1.img") sum2=$(sha256sum <"$T/disk2.img")
qemu_start -drive "file=$T/disk1.img,format=raw,if=virtio" -drive "file=$T/disk2.img,format=raw,if=virtio"
expect 'lboot: /dev/vda1: LVM PV [A-Za-z0-9]{6}-' 120 && ok "PV label read" || not_ok "PV label read"
expect 'lboot: lvm: volume group vgboot: 2 of 2 PVs, 2 LVs' 30 && ok "VG metadata parsed" || not_ok "VG metadata parsed"
expect 'lboot: lvm: vgboot/boot -> dm-[0-9]+ \(/dev/mapper/vgboot-boot\): 1 segment, striped, read-only' 10 &&
	ok "LV boot mapped (striped)" || not_ok "LV boot mapped (striped)"
expect 'lboot: lvm: vgboot/alt -> dm-[0-9]+ \(/dev/mapper/vgboot-alt\): 2 segments, read-only' 10 &&
	ok "LV alt mapped (linear, 2 segments)" || not_ok "LV alt mapped (linear, 2 segments)"
expect 'lboot: found /dev/dm-[0-9]+ ext4 uuid=7e2d1c0b-9a8f-4e6d-8c5b-4a3f2e1d0c9b label=LVMBOOT \(lvm/vgboot-boot\)' 30 &&
	ok "ext4 in LV boot found (GRUB name lvm/vgboot-boot)" || not_ok "ext4 in LV boot found"
expect 'lboot: found /dev/dm-[0-9]+ ext4 .*label=LVMALT \(lvm/vgboot-alt\)' 10 &&
	ok "ext4 in LV alt found" || not_ok "ext4 in LV alt found"
expect 'lboot: config /loader/entries/alt.conf on /dev/mapper/vgboot-alt: 1 entry' 10 &&
	ok "entry read from LV alt" || not_ok "entry read from LV alt"
expect 'lboot: /dev/vdb1: LVM PV of vgboot' 10 && ok "PVs themselves not probed as filesystems" ||
	not_ok "PVs themselves not probed as filesystems"
expect "lboot: kexec 'lvm boot' kernel=/vmlinuz initrd=/initrd.img " 60 && ok "kexec from LV boot" ||
	not_ok "kexec from LV boot"
expect 'lboot-target: cmdline: .*lboot-test=lvm-boot' 180 && ok "target OS booted (kernel read through the striped map)" ||
	not_ok "target OS booted (kernel read through the striped map)"
log "target up after $(elapsed) s"
qemu_wait 60 || log "QEMU still running"
qemu_stop
[ "$(sha256sum <"$T/disk1.img")" = "$sum1" ] && [ "$(sha256sum <"$T/disk2.img")" = "$sum2" ] &&
	ok "PV disks unchanged (nothing written)" || not_ok "PV disks unchanged (nothing written)"
e2e_done
