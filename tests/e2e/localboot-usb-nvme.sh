#!/bin/bash
# Issue 2: the late devices. A USB stick (xHCI + usb-storage, which waits
# delay_use = 1 s before it scans, so its disk appears well after /init
# starts) and an NVMe disk (namespaces scanned from a workqueue) each hold
# a BLS entry; lboot, with no lboot.settle given, must wait for them (and
# only as long as they are on their way) and boot the entry.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-usb-nvme
target_os
mk() { # name label
	local r=$T/$1
	mkdir -p "$r/loader/entries"
	cp "$TARGET_KERNEL" "$r/vmlinuz"
	cp "$TARGET_INITRD" "$r/initrd.img"
	printf 'title   on %s\nlinux   /vmlinuz\ninitrd  /initrd.img\noptions console=ttyS0 lboot-test=%s\n' \
		"$1" "$1" >"$r/loader/entries/$1.conf"
	mkpart_ext4 "$T/$1.img" 48 "$r" "$2"
	mkdisk_gpt "$T/$1-disk.img" "$T/$1.img"
}
mk usb USBSTICK
mk nvme NVMEBOOT

qemu_start -device qemu-xhci,id=xhci -drive "if=none,id=stick,format=raw,file=$T/usb-disk.img" \
	-device usb-storage,bus=xhci.0,drive=stick
expect 'lboot: found /dev/sd[a-z]1 ext4 .*label=USBSTICK' 120 && ok "USB stick found without lboot.settle" ||
	not_ok "USB stick found without lboot.settle"
expect "lboot: kexec 'on usb'" 60 && ok "kexec from the USB stick" || not_ok "kexec from the USB stick"
expect 'lboot-target: cmdline: .*lboot-test=usb' 180 && ok "target OS booted from USB" || not_ok "target OS booted from USB"
expect_not 'lboot: no bootable entries' && ok "no empty scan before the stick appeared" ||
	not_ok "no empty scan before the stick appeared"
qemu_stop

qemu_start -drive "if=none,id=nv,format=raw,file=$T/nvme-disk.img" -device nvme,serial=lboot0001,drive=nv
expect 'lboot: found /dev/nvme0n1p1 ext4 .*label=NVMEBOOT' 120 && ok "NVMe namespace found" || not_ok "NVMe namespace found"
expect 'lboot-target: cmdline: .*lboot-test=nvme' 180 && ok "target OS booted from NVMe" || not_ok "target OS booted from NVMe"
e2e_done
