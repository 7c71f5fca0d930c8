#!/bin/bash
# Issue 2: an ext4 whose journal says it needs recovery (as after a crash):
# lboot mounts it read-only with noload (no journal replay), boots from it,
# and the disk image is not written: the flag is still set afterwards.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-dirty-journal
target_os
R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
cat >"$R/loader/entries/d.conf" <<'EOT'
title   dirty
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=dirty-journal
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" DIRTY
debugfs -w -R "feature needs_recovery" "$T/p1.img" >/dev/null 2>&1 || { not_ok "debugfs"; exit 1; }
dumpe2fs -h "$T/p1.img" 2>/dev/null | grep -q '^Filesystem features:.*needs_recovery' || { not_ok "flag not set"; exit 1; }
mkdisk_gpt "$T/disk.img" "$T/p1.img"
sum_before=$(sha256sum <"$T/disk.img")
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot: found /dev/vda1 ext4 .*label=DIRTY \(hd0,gpt1\) journal needs recovery: not replayed' 120 &&
	ok "dirty journal noticed" || not_ok "dirty journal noticed"
expect "lboot: kexec 'dirty' " 60 && ok "kexec from the dirty fs" || not_ok "kexec from the dirty fs"
expect 'lboot-target: cmdline: .*lboot-test=dirty-journal' 180 && ok "target OS booted" || not_ok "target OS booted"
qemu_wait 60 || log "QEMU still running"
qemu_stop
[ "$(sha256sum <"$T/disk.img")" = "$sum_before" ] && ok "disk image unchanged (nothing written)" ||
	not_ok "disk image unchanged (nothing written)"
e2e_done
