#!/bin/bash
# Issue 11: /boot (ext4, a BLS entry) on an MD RAID1 of two disks' GPT
# partitions, metadata 1.0 (as installers use for /boot), made by the real
# mdadm in a builder guest. The first disk is gone: lboot assembles the
# array read-only from the remaining member through the md ioctls (no
# mdadm in the firmware), says it is degraded, boots from it, and writes
# nothing to the disk. A rescan from the menu finds the array already
# running (its member held by md127) and names it as before.
. "$(dirname "$0")/lib.sh"
e2e_init storage-md-degraded
. "$(dirname "$0")/storage-lib.sh"
target_os
R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
cat >"$R/loader/entries/md.conf" <<'EOT'
title   on mirrored /boot
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=md-degraded
EOT
mkpart_ext4 "$T/fs.img" 40 "$R" MDBOOT 3c1e2d4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f
truncate -s 48M "$T/m.img"
RAID=A19D880F-05FC-4D3B-A006-743F0F84911E
mkdisk_gpt "$T/disk1.img" "$T/m.img:$RAID:raid"
mkdisk_gpt "$T/disk2.img" "$T/m.img:$RAID:raid"
cat >"$T/job.sh" <<'EOT'
mdadm --create /dev/md0 --run --assume-clean --homehost=server --name=boot --metadata=1.0 --level=1 --raid-devices=2 /dev/vda1 /dev/vdb1
dd if=/dev/vdc of=/dev/md0 bs=1M
sync
mdadm --detail /dev/md0 | grep -E 'UUID|State :'
mdadm --stop /dev/md0
EOT
stg_build "$T/job.sh" "$T/disk1.img" "$T/disk2.img" "$T/fs.img"
uuid=$(tr -d '\r' <"$T/builder.log" | sed -n 's/^ *UUID : \([0-9a-f:]*\).*/\1/p' | tr -d ':')
[ ${#uuid} = 32 ] && ok "array made by mdadm (uuid $uuid)" || { not_ok "array made by mdadm"; exit 1; }
uuid=${uuid:0:8}-${uuid:8:4}-${uuid:12:4}-${uuid:16:4}-${uuid:20:12}
rm -f "$T/disk1.img" # the first disk is gone
sum_before=$(sha256sum <"$T/disk2.img")
E2E_APPEND="lboot.timeout=60" qemu_start -drive "file=$T/disk2.img,format=raw,if=virtio"
expect "lboot: /dev/vda1: md member \(1.0\), array $uuid, slot 1" 120 && ok "member found (slot 1 of array $uuid)" ||
	not_ok "member found"
expect "lboot: md127: RAID1 \(1.0\) assembled read-only from vda1, uuid $uuid name server:boot" 30 &&
	ok "array assembled read-only" || not_ok "array assembled read-only"
expect 'lboot: md127: RAID1 degraded: 1 of 2 members' 10 && ok "degraded array says so" || not_ok "degraded array says so"
expect 'lboot: found /dev/md127 ext4 uuid=3c1e2d4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f label=MDBOOT \(md/boot\)' 30 &&
	ok "ext4 on the array found (GRUB name md/boot)" || not_ok "ext4 on the array found"
expect_not 'lboot: found /dev/vda1' && ok "the member itself is not mounted" || not_ok "the member itself is not mounted"
expect 'press any key to stop' 60 && send ' '
expect 'lboot> ' 20 && send 'r'
expect 'lboot: /dev/vda1: member of md127' 60 && ok "rescan: member held by the running array" ||
	not_ok "rescan: member held by the running array"
found_again() { [ "$(tr -d '\r' <"$T/serial.log" | grep -c 'lboot: found /dev/md127 ext4 .*(md/boot)')" = 2 ]; }
for i in $(seq 60); do found_again && break; sleep 0.5; done
found_again && ok "rescan: array found again under the same GRUB name" ||
	not_ok "rescan: array found again under the same GRUB name"
expect_not 'cannot assemble' && ok "rescan: no second assembly tried" || not_ok "rescan: no second assembly tried"
expect 'lboot> ' 30
sleep 1
send '1\r'
expect "lboot: kexec 'on mirrored /boot' kernel=/vmlinuz initrd=/initrd.img " 60 && ok "kexec from the array" ||
	not_ok "kexec from the array"
expect 'lboot-target: cmdline: .*lboot-test=md-degraded' 180 && ok "target OS booted" || not_ok "target OS booted"
log "target up after $(elapsed) s"
qemu_wait 60 || log "QEMU still running"
qemu_stop
[ "$(sha256sum <"$T/disk2.img")" = "$sum_before" ] && ok "member disk unchanged (nothing written)" ||
	not_ok "member disk unchanged (nothing written)"
e2e_done
