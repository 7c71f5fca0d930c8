#!/bin/bash
# Issue 11: `grub-reboot` is a one-shot. A Debian-style grub.cfg takes
# next_entry from grubenv and clears it with save_env; lboot writes that
# back the way GRUB does (the 1024-byte block rewritten in place, the
# filesystem read-write only for that write). First boot: the one-shot
# entry; second boot of the same disk: the normal default. The block is
# what grub-editenv itself reads, and the filesystem is clean (e2fsck).
. "$(dirname "$0")/lib.sh"
e2e_init grub-reboot
command -v grub-editenv >/dev/null || { not_ok "grub-editenv (grub-common) not installed"; exit 1; }
target_os
R=$T/root
mkdir -p "$R/boot/grub"
cp "$TARGET_KERNEL" "$R/boot/vmlinuz"
cp "$TARGET_INITRD" "$R/boot/initrd.img"
cat >"$R/boot/grub/grub.cfg" <<'EOC'
if [ -s $prefix/grubenv ]; then
  set have_grubenv=true
  load_env
fi
if [ "${next_entry}" ] ; then
   set default="${next_entry}"
   set next_entry=
   save_env next_entry
   set boot_once=true
else
   set default="0"
fi
set timeout=0
menuentry 'Normal' {
	linux /boot/vmlinuz console=ttyS0 lboot-test=normal quiet
	initrd /boot/initrd.img
}
menuentry 'Once' {
	linux /boot/vmlinuz console=ttyS0 lboot-test=once quiet
	initrd /boot/initrd.img
}
EOC
grub-editenv "$R/boot/grub/grubenv" create && grub-editenv "$R/boot/grub/grubenv" set next_entry=1 ||
	{ not_ok "grub-editenv"; exit 1; }
mkpart_ext4 "$T/p1.img" 48 "$R" GRUBROOT
mkdisk_gpt "$T/disk.img" "$T/p1.img"
start=$(sfdisk -J "$T/disk.img" | python3 -c 'import json,sys; print(json.load(sys.stdin)["partitiontable"]["partitions"][0]["start"])')
part() { dd if="$T/disk.img" of="$T/part.img" bs=512 skip="$start" count=$((48 * 2048)) status=none; }

qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: grubenv /boot/grub/grubenv on /dev/vda1: saved next_entry=" 180 &&
	ok "first boot: next_entry cleared in grubenv" || not_ok "first boot: next_entry cleared in grubenv"
expect "lboot: kexec 'Once' " 180 && ok "first boot: the one-shot entry" || not_ok "first boot: the one-shot entry"
expect 'lboot-target: cmdline: .*lboot-test=once' 180 && ok "first boot: target booted the one-shot entry" ||
	not_ok "first boot: target booted the one-shot entry"
qemu_wait 60
qemu_stop
part
debugfs -R "dump /boot/grub/grubenv $T/grubenv.after" "$T/part.img" >/dev/null 2>&1
[ "$(stat -c %s "$T/grubenv.after" 2>/dev/null)" = 1024 ] && ok "grubenv is still 1024 bytes" || not_ok "grubenv is still 1024 bytes"
grub-editenv "$T/grubenv.after" list >"$T/list" 2>&1 && grep -qx 'next_entry=' "$T/list" &&
	ok "grub-editenv reads next_entry= (empty)" || { not_ok "grub-editenv reads next_entry= (empty)"; sed 's/^/# /' "$T/list"; }
e2fsck -fn "$T/part.img" >"$T/fsck.log" 2>&1 && ok "filesystem clean after the write (e2fsck -fn)" ||
	{ not_ok "filesystem clean after the write (e2fsck -fn)"; tail -5 "$T/fsck.log" | sed 's/^/# /'; }

qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: kexec 'Normal' " 180 && ok "second boot: the normal default" || not_ok "second boot: the normal default"
expect 'lboot-target: cmdline: .*lboot-test=normal' 180 && ok "second boot: target booted the default" ||
	not_ok "second boot: target booted the default"
expect_not 'lboot: grubenv .*saved' && ok "second boot: nothing to write, nothing written" ||
	not_ok "second boot: nothing to write, nothing written"
e2e_done
