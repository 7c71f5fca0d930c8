#!/bin/bash
# Issue 11: the boot order is policy, not device names. A USB stick, a
# SATA disk on AHCI and an NVMe disk each hold a default BLS entry
# (tests/unit/test_order.c shows a stick named sda still sorts last). By default internal disks
# come first, by hardware path (NVMe at 00:04 before AHCI at 00:1f), and the
# stick never wins; lboot.order=usb makes it win; lboot.order=ata the SATA
# disk; so does an initramfs built with --order ata, unless the command
# line says otherwise.
. "$(dirname "$0")/lib.sh"
e2e_init order-policy
target_os
mk() { # name label
	local r=$T/$1
	mkdir -p "$r/loader/entries"
	cp "$TARGET_KERNEL" "$r/vmlinuz"
	cp "$TARGET_INITRD" "$r/initrd.img"
	printf 'title   on %s\nlinux   /vmlinuz\ninitrd  /initrd.img\noptions console=ttyS0 lboot-test=%s quiet\n' \
		"$1" "$1" >"$r/loader/entries/$1.conf"
	mkpart_ext4 "$T/$1.img" 48 "$r" "$2"
	mkdisk_gpt "$T/$1-disk.img" "$T/$1.img"
}
mk usb USBSTICK
mk sata SATADISK
mk nvme NVMEDISK
DEVS=(-device qemu-xhci,id=xhci -drive "if=none,id=stick,format=raw,file=$T/usb-disk.img,snapshot=on"
	-device usb-storage,bus=xhci.0,drive=stick
	-drive "if=none,id=sata,format=raw,file=$T/sata-disk.img,snapshot=on" -device ide-hd,drive=sata,bus=ide.0
	-drive "if=none,id=nv,format=raw,file=$T/nvme-disk.img,snapshot=on"
	-device nvme,serial=lboot0001,drive=nv,addr=04.0)
run() { # ORDER WANT WHAT
	E2E_APPEND="lboot.timeout=0 lboot.debug $1" qemu_start "${DEVS[@]}"
	expect "lboot: kexec 'on $2'" 240 && ok "$3: kexec from $2" || not_ok "$3: kexec from $2"
	expect "lboot-target: cmdline: .*lboot-test=$2" 180 && ok "$3: target booted from $2" ||
		not_ok "$3: target booted from $2"
	qemu_stop
}
run "" nvme "default order"
# which /dev name each disk got is the kernel's business (probe order)
dev_of() { tr -d '\r' <"$T/serial.log" | sed -n "s/^lboot: found \(\/dev\/[a-z0-9]*\) ext4 .*label=$1.*/\1/p" | head -n1; }
want="$(dev_of NVMEDISK) $(dev_of SATADISK) $(dev_of USBSTICK) "
order=$(tr -d '\r' <"$T/serial.log" | sed -n 's/^lboot: order [0-9]*: //p' | tr '\n' ' ')
[ "$order" = "$want" ] && ok "order: NVMe, SATA, then the USB stick ($order)" ||
	not_ok "order: NVMe, SATA, then the USB stick (got '$order', want '$want')"
run "lboot.order=usb" usb "lboot.order=usb"
run "lboot.order=ata,nvme" sata "lboot.order=ata,nvme"
# the order built into the initramfs (mkinitramfs --order); the kernel
# command line still overrides it
"$OUT/lboot" mkinitramfs -o "$T/order.cpio.xz" --init "$OUT/lboot-target" --order ata 2>/dev/null ||
	{ not_ok "mkinitramfs --order ata"; exit 1; }
E2E_INITRD=$T/order.cpio.xz run "" sata "mkinitramfs --order ata"
expect '^lboot: built-in options: lboot.order=ata$' 5 && ok "the built-in options are named on the console" ||
	not_ok "the built-in options are named on the console"
E2E_INITRD=$T/order.cpio.xz run "lboot.order=nvme" nvme "--order ata, lboot.order=nvme on the command line"
e2e_done
