#!/bin/bash
# Issue 11: disks behind the other SCSI HBAs QEMU emulates (besides
# megasas, tests/e2e/storage-xfs-sas.sh): LSI 53C895A (lsi53c895a, the
# kernel's sym53c8xx) and LSI SAS 1068 (mptsas1068, the kernel's Fusion MPT
# SAS driver). A GPT disk with an ext4 BLS entry boots behind each.
# The disk has a WWN: QEMU gives the SAS address of a scsi-hd from its
# `wwn` property, 0 without one, and Linux's mptsas attaches no end device
# whose SAS address is 0 (docs/storage.md).
. "$(dirname "$0")/lib.sh"
e2e_init storage-hba
target_os
R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
printf 'title   behind an HBA\nlinux   /vmlinuz\ninitrd  /initrd.img\noptions console=ttyS0 lboot-test=hba\n' \
	>"$R/loader/entries/hba.conf"
mkpart_ext4 "$T/p1.img" 48 "$R" HBABOOT
mkdisk_gpt "$T/disk.img" "$T/p1.img"
for hba in "lsi53c895a:sym0: <895a>" "mptsas1068:mptsas: ioc0: attaching ssp device: .*sas_addr 0x5000c50015ea71ac"; do
	dev=${hba%%:*} drv=${hba#*:}
	qemu_start -device "$dev,id=hba0" -drive "if=none,id=d0,file=$T/disk.img,format=raw,readonly=on" \
		-device scsi-hd,drive=d0,bus=hba0.0,wwn=0x5000c50015ea71ac
	expect "$drv" 120 && ok "$dev: the driver has the disk" || not_ok "$dev: the driver has the disk"
	expect 'lboot: found /dev/sda1 ext4 .*label=HBABOOT \(hd0,gpt1\)' 120 && ok "$dev: disk found" ||
		not_ok "$dev: disk found"
	expect "lboot: kexec 'behind an HBA' kernel=/vmlinuz" 60 && ok "$dev: kexec" || not_ok "$dev: kexec"
	# SeaBIOS, -kernel: no EFI runtime services, one line says so
	expect '^lboot: boot log: no EFI variables \(not booted by EFI\): not handed over$' 60 &&
		ok "$dev: boot log not handed over (no EFI), one line" ||
		not_ok "$dev: boot log not handed over (no EFI), one line"
	expect 'lboot-target: cmdline: .*lboot-test=hba' 180 && ok "$dev: target OS booted" ||
		not_ok "$dev: target OS booted"
	log "$dev: target up after $(elapsed) s"
	qemu_stop
	cp "$T/serial.log" "$T/serial-$dev.log"
done
e2e_done
