#!/bin/bash
# Issue 11: discovery reads every device at once with a time bound, so one
# dying disk does not stall the rest. vda answers at 4 KiB/s (QEMU
# throttling: a disk retrying its reads); vdb is healthy and has the BLS
# entry. With the probe bound at 4 s, lboot leaves vda out after 3 s
# (before PID 1's watch would stop the boot process) and boots vdb.
. "$(dirname "$0")/lib.sh"
e2e_init storage-slow-disk
target_os
for d in a b; do
	mkdir -p "$T/root$d/loader/entries"
	cp "$TARGET_KERNEL" "$T/root$d/vmlinuz"
	cp "$TARGET_INITRD" "$T/root$d/initrd.img"
	printf 'title   on disk %s\nlinux   /vmlinuz\ninitrd  /initrd.img\noptions console=ttyS0 lboot-test=slow-%s\n' \
		$d $d >"$T/root$d/loader/entries/$d.conf"
	# whole-disk filesystems: the kernel's own partition scan reads little
	mkpart_ext4 "$T/disk$d.img" 48 "$T/root$d" "DISK${d^^}"
done
E2E_APPEND="lboot.timeout=0 lboot.phase_timeout=probe:4" qemu_start \
	-drive "file=$T/diska.img,format=raw,if=virtio,throttling.bps-read=4096" \
	-drive "file=$T/diskb.img,format=raw,if=virtio"
expect 'lboot: 1 device did not answer within 3000 ms: left out' 180 && ok "slow disk noticed after 3 s" ||
	not_ok "slow disk noticed after 3 s"
expect 'lboot: /dev/vda: no answer in time: left out' 10 && ok "slow disk left out" || not_ok "slow disk left out"
expect 'lboot: found /dev/vdb ext4 .*label=DISKB' 30 && ok "healthy disk probed" || not_ok "healthy disk probed"
expect "lboot: kexec 'on disk b' kernel=/vmlinuz" 60 && ok "boots the healthy disk" || not_ok "boots the healthy disk"
expect 'lboot-target: cmdline: .*lboot-test=slow-b' 180 && ok "target OS booted" || not_ok "target OS booted"
expect_not 'no progress for' && ok "PID 1 did not have to stop the boot process" ||
	not_ok "PID 1 did not have to stop the boot process"
log "target up after $(elapsed) s"
e2e_done
