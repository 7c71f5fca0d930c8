#!/bin/bash
# Issue 11: cloned disks and the fallback from a failed default.
# Two disks whose /boot filesystems have the same UUID and label (a disk
# cloned, then each updated on its own). Disk A (vda) has entries a-broken
# and a-good; disk B (vdb) has b-broken (its kernel is not a kernel) and
# b-good,
# whose initrd exists only on B. lboot.default=b-broken picks B's entry:
# - both disks' entries are listed, each naming its own device;
# - b-broken fails, and the fallback tries b-good on the same disk before
#   anything on disk A (list order would try a-broken and a-good first);
# - b-good is loaded from disk B, the disk it came from (a lookup by the
#   shared UUID would read disk A, where /initrd-b.img does not exist).
. "$(dirname "$0")/lib.sh"
e2e_init localboot-clones
target_os
UUID=0c1a2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b
mk() { # NAME: a disk image with NAME-broken and NAME-good entries
	local r=$T/$1
	rm -rf "$r"; mkdir -p "$r/loader/entries"
	cp "$TARGET_KERNEL" "$r/vmlinuz"
	cp "$TARGET_INITRD" "$r/initrd-$1.img"
	head -c 65536 /dev/zero >"$r/vmlinuz-bad"
	printf 'title   %s broken\nlinux   /vmlinuz-bad\ninitrd  /initrd-%s.img\noptions console=ttyS0 lboot-test=%s-broken quiet\n' \
		"$1" "$1" "$1" >"$r/loader/entries/$1-broken.conf"
	printf 'title   %s good\nlinux   /vmlinuz\ninitrd  /initrd-%s.img\noptions console=ttyS0 lboot-test=%s-good quiet\n' \
		"$1" "$1" "$1" >"$r/loader/entries/$1-good.conf"
	mkpart_ext4 "$T/$1.img" 48 "$r" CLONEBOOT "$UUID"
	mkdisk_gpt "$T/$1-disk.img" "$T/$1.img"
}
mk a
mk b
E2E_APPEND="lboot.timeout=0 lboot.default=b-broken" \
	qemu_start -drive "file=$T/a-disk.img,format=raw,if=virtio" -drive "file=$T/b-disk.img,format=raw,if=virtio"
expect "lboot: /dev/vda1: UUID $UUID is on another device too \\(a clone\\?\\): its entries name /dev/vda1" 120 &&
	expect "lboot: /dev/vdb1: UUID $UUID is on another device too \\(a clone\\?\\): its entries name /dev/vdb1" 5 &&
	ok "the shared UUID is named, each device keeps its own identity" ||
	not_ok "the shared UUID is named, each device keeps its own identity"
expect 'lboot: config /loader/entries/a-broken.conf on /dev/vda1: 1 entry' 30 &&
	expect 'lboot: config /loader/entries/a-good.conf on /dev/vda1: 1 entry' 5 &&
	expect 'lboot: config /loader/entries/b-broken.conf on /dev/vdb1: 1 entry' 5 &&
	expect 'lboot: config /loader/entries/b-good.conf on /dev/vdb1: 1 entry' 5 &&
	ok "both disks' entries are listed, on their own devices" ||
	not_ok "both disks' entries are listed, on their own devices"
expect "lboot: boot failed: b broken \\(/dev/vdb1\\): " 120 && ok "the default (b-broken) fails, naming its device" ||
	not_ok "the default (b-broken) fails, naming its device"
expect "lboot: kexec 'b good' kernel=/vmlinuz initrd=/initrd-b.img " 120 &&
	ok "the fallback is the next entry of the same disk" || not_ok "the fallback is the next entry of the same disk"
expect_not "lboot: kexec 'a (broken|good)'" && ok "disk A was not tried first" || not_ok "disk A was not tried first"
expect 'lboot-target: cmdline: .*lboot-test=b-good' 180 && ok "b-good booted from disk B (its initrd is only there)" ||
	not_ok "b-good booted from disk B (its initrd is only there)"
e2e_done
