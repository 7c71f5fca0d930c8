#!/bin/bash
# Issue 3: a BLS type 1 set as Fedora's kernel-install leaves it on an
# XBOOTLDR partition: several versions under one sort-key, a rescue entry,
# an entry without sort-key, and a boot-counted entry with no tries left.
# No loader.conf default, so the first entry in the specification's order
# boots: sort-key, then version descending by the UAPI version comparison
# (6.10.3 is newer than 6.9.12 and 6.5.6; a plain string compare would pick
# 6.9.12), entries without sort-key after, tries-exhausted ones last.
. "$(dirname "$0")/lib.sh"
e2e_init distro-bls-order
target_os
R=$T/root
M=8f1e0c2d3b4a59687766554433221100
mkdir -p "$R/loader/entries" "$R/$M"
cp "$TARGET_KERNEL" "$R/$M/linux"
cp "$TARGET_INITRD" "$R/$M/initrd"
entry() { # file version sort-key(or -)
	{
		echo "title      Fedora Linux ($2) 40 (Workstation Edition)"
		echo "version    $2"
		echo "machine-id $M"
		[ "$3" != - ] && echo "sort-key   $3"
		echo "linux      /$M/linux"
		echo "initrd     /$M/initrd"
		echo "options    root=UUID=0d1c2b3a-4e5f-6071-8293-a4b5c6d7e8f9 ro console=ttyS0,115200 bls.version=$2"
	} >"$R/loader/entries/$1"
}
entry "$M-6.5.6-300.fc39.x86_64.conf" 6.5.6-300.fc39.x86_64 fedora
entry "$M-6.9.12-200.fc40.x86_64.conf" 6.9.12-200.fc40.x86_64 fedora
entry "$M-6.10.3-200.fc40.x86_64.conf" 6.10.3-200.fc40.x86_64 fedora
entry "$M-0-rescue.conf" 0-rescue fedora
entry "zzz-no-sort-key.conf" 99.0 -
entry "$M-6.11.0-1.fc41.x86_64+0-3.conf" 6.11.0-1.fc41.x86_64 fedora
printf 'timeout 0\n' >"$R/loader/loader.conf"
mkpart_ext4 "$T/p1.img" 48 "$R" XBOOTLDR
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: kexec 'Fedora Linux \(6.10.3-200.fc40.x86_64\) 40" 150 &&
	ok "kexec the newest version by the UAPI order" || not_ok "kexec the newest version by the UAPI order"
expect 'lboot-target: cmdline: .*bls.version=6.10.3-200.fc40.x86_64' 180 &&
	ok "target OS booted 6.10.3" || not_ok "target OS booted 6.10.3"
e2e_done
