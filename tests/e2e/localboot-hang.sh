#!/bin/bash
# Issue 8: PID 1 recovers from a boot process that hangs. Two disks, each
# with a BLS entry; vda1's is the default. lboot.fault_hang (a documented
# fault-injection knob, src/console/progress.h) makes the boot process stop
# for good in one phase, as on a disk that never answers:
#  1. scanning vda1's configs: PID 1 kills it after lboot.phase_timeout,
#     names phase and device, starts again without vda1, boots vdb1's entry;
#  2. loading vda1's entry (kernel on a dying disk): the same;
#  3. waiting for devices (no device to leave out): the recovery prompt.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-hang
target_os
for d in a b; do
	mkdir -p "$T/root$d/loader/entries"
	cp "$TARGET_KERNEL" "$T/root$d/vmlinuz"
	cp "$TARGET_INITRD" "$T/root$d/initrd.img"
	cat >"$T/root$d/loader/entries/$d.conf" <<EOT
title   on disk $d
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=hang-$d
EOT
	mkpart_ext4 "$T/p$d.img" 48 "$T/root$d" "DISK${d^^}"
	mkdisk_gpt "$T/disk$d.img" "$T/p$d.img"
done
drives=(-drive "file=$T/diska.img,format=raw,if=virtio" -drive "file=$T/diskb.img,format=raw,if=virtio")
count() { tr -d '\r' <"$T/serial.log" | grep -Ec -- "$1"; }

# Bounds: 8 s per device phase; loading (the Debian kernel and initrd under
# TCG on a loaded machine can take 10 s) 120 s, or 30 s when it is the
# phase that hangs.
for phase in scan load; do
	if [ $phase = load ]; then bound=30 re='(30|31|32)'; else bound=8 re='(8|9|10)'; fi
	E2E_APPEND="lboot.timeout=0 lboot.phase_timeout=8,load:$([ $phase = load ] && echo 30 || echo 120) lboot.fault_hang=$phase:/dev/vda1" \
		qemu_start "${drives[@]}"
	expect "lboot: fault injection: the boot process will hang at $phase:/dev/vda1" 120 &&
		ok "$phase: knob read" || not_ok "$phase: knob read"
	expect "lboot: $phase of /dev/vda1: no progress for $re s: stopped the boot process" $((bound + 90)) &&
		ok "$phase: PID 1 names phase and device" || not_ok "$phase: PID 1 names phase and device"
	expect 'lboot: going on without /dev/vda1' 10 && ok "$phase: goes on" || not_ok "$phase: goes on"
	expect 'lboot: /dev/vda1: skipped: it hung earlier' 60 && ok "$phase: vda1 left out" ||
		not_ok "$phase: vda1 left out"
	expect "lboot: kexec 'on disk b' kernel=/vmlinuz" 60 && ok "$phase: boots the other disk" ||
		not_ok "$phase: boots the other disk"
	expect 'lboot-target: cmdline: .*lboot-test=hang-b' 180 && ok "$phase: target OS booted" ||
		not_ok "$phase: target OS booted"
	[ "$(count 'no progress for')" = 1 ] && ok "$phase: one hang reported" || not_ok "$phase: one hang reported"
	expect_not 'Kernel panic' && ok "$phase: no panic" || not_ok "$phase: no panic"
	log "$phase: target up after $(elapsed) s"
	qemu_stop
	cp "$T/serial.log" "$T/serial-$phase.log"
done

# no device to leave out: the recovery prompt, which still works
E2E_APPEND="lboot.timeout=0 lboot.wait=1 lboot.phase_timeout=2 lboot.fault_hang=discover" \
	qemu_start "${drives[@]}"
expect 'lboot: discover: no progress for [2-4] s: stopped the boot process' 120 &&
	ok "discover: PID 1 names the phase" || not_ok "discover: PID 1 names the phase"
expect 'lboot: back to the recovery prompt' 10 && ok "discover: recovery prompt" ||
	not_ok "discover: recovery prompt"
expect 'lboot> ' 30 && ok "discover: prompt shown" || not_ok "discover: prompt shown"
expect_not 'Kernel panic' && ok "discover: no panic" || not_ok "discover: no panic"
e2e_done
