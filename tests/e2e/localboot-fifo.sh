#!/bin/bash
# Issue 8, hostile disks: FIFOs at every path lboot reads on an ext4
# filesystem (mkfs.ext4 -d copies them): loader.conf, a BLS entry .conf, a
# UKI in EFI/Linux, the targets of GRUB's `source` and `configfile`, and the
# initrd of the default entry. Opening a FIFO for reading blocks until a
# writer comes: none ever does, so any open would hang the boot. lboot must
# report each in one line, fall back from the FIFO-initrd entry and boot
# the good entry.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-fifo
target_os
R=$T/root
mkdir -p "$R/loader/entries" "$R/EFI/Linux" "$R/boot/grub"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
for f in loader/loader.conf loader/entries/b-fifo.conf EFI/Linux/x.efi \
	boot/grub/fifo.cfg boot/grub/fifo2.cfg initrd-fifo; do
	mkfifo "$R/$f" || { not_ok "mkfifo $f"; exit 1; }
done
# sorted first (so the default): its initrd is a FIFO
cat >"$R/loader/entries/c-initrd.conf" <<'EOT'
title   fifo initrd
linux   /vmlinuz
initrd  /initrd-fifo
options console=ttyS0 lboot-test=fifo-initrd
EOT
cat >"$R/loader/entries/a-good.conf" <<'EOT'
title   good
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=fifo-good
EOT
cat >"$R/boot/grub/grub.cfg" <<'EOT'
source /boot/grub/fifo.cfg
configfile /boot/grub/fifo2.cfg
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" FIFOS
debugfs -R 'stat /loader/loader.conf' "$T/p1.img" 2>/dev/null | grep -q 'Type: FIFO' ||
	{ not_ok "mkfs.ext4 -d copied the FIFOs"; exit 1; }
mkdisk_gpt "$T/disk.img" "$T/p1.img"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: found /dev/vda1 ext4 .*label=FIFOS' 60 && ok "found the disk" || not_ok "found the disk"
count() { tr -d '\r' <"$T/serial.log" | grep -Ec -- "$1"; }
# the scan finishes (nothing blocked) and each FIFO gets exactly one line
expect 'lboot: config /loader/entries/.* on /dev/vda1' 60 && ok "scan finished" || not_ok "scan finished"
for re in '/loader/loader.conf: cannot read: Invalid argument' \
	'/loader/entries/b-fifo.conf: cannot read: Invalid argument' \
	'/EFI/Linux/x.efi: skipped' \
	'/boot/grub/fifo.cfg: Invalid argument' \
	'/boot/grub/fifo2.cfg: Invalid argument'; do
	[ "$(count "lboot: .*$re")" = 1 ] && ok "one line: $re" || not_ok "one line: $re"
done
expect "lboot: boot failed: fifo initrd \(/dev/vda1\): /initrd-fifo: invalid argument" 60 &&
	ok "FIFO initrd refused at kexec time" || not_ok "FIFO initrd refused at kexec time"
expect "lboot: kexec 'good' kernel=/vmlinuz initrd=/initrd.img " 60 && ok "falls back to the good entry" ||
	not_ok "falls back to the good entry"
expect 'lboot-target: cmdline: .*lboot-test=fifo-good' 180 && ok "target OS booted" || not_ok "target OS booted"
expect_not 'Kernel panic' && ok "no panic" || not_ok "no panic"
e2e_done
