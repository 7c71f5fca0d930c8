#!/bin/bash
# Issue 11, nobody at the console: the hardware watchdog (QEMU's i6300esb).
# 1. lboot.watchdog=15 armed from PID 1's start; PID 1 hangs
#    (lboot.fault_hang=pid1) while the boot process goes on rescanning (no
#    disks, lboot.giveup=0: it would never reboot by itself): the watchdog
#    fires (-watchdog-action poweroff: QEMU exits). 15 s, not 5: the
#    rescan's second round must come before the watchdog fires, and on a
#    loaded machine it once took longer than 5 s.
# 2. PID 1 exits (lboot.fault_hang=pid1-exit) with panic=0 (the kernel
#    stays in its panic): the watchdog resets the machine (-watchdog-action
#    reset, -no-reboot: QEMU exits).
# 3. A normal boot hands over: the timeout set to lboot.watchdog.handover=8
#    and left running (the firmware kernel with watchdog.stop_on_reboot=0);
#    the target OS does not feed it and holds: the watchdog fires.
# 4. lboot.watchdog.handover=0: stopped before kexec; the target holds,
#    then powers off by itself.
# lboot feeds every quarter of the timeout; QEMU's i6300esb as Linux drives
# it fires about the timeout after the last feed.
. "$(dirname "$0")/lib.sh"
e2e_init watchdog
target_os

# wait for QEMU to exit; prints the seconds since $1 (an elapsed value)
exit_after() { # SINCE MAX_S
	qemu_wait "$2" || return 1
	echo "$(elapsed) $1" | awk '{printf "%.1f", $1 - $2}'
}

# 1: PID 1 hangs
E2E_APPEND="lboot.watchdog=15 lboot.giveup=0 lboot.fault_hang=pid1" \
	qemu_start -device i6300esb -watchdog-action poweroff
expect 'lboot: watchdog: /dev/watchdog[0-9]* \(i6300ESB timer\) armed, 15 s' 120 && ok "hang: armed" ||
	not_ok "hang: armed"
expect 'lboot: fault injection: PID 1 stops' 60 && ok "hang: PID 1 stopped" || not_ok "hang: PID 1 stopped"
t=$(elapsed)
expect 'lboot: nothing to boot \(round 2\)' 30 && ok "hang: the boot process goes on" ||
	not_ok "hang: the boot process goes on"
if s=$(exit_after "$t" 60); then
	log "hang: QEMU exited $s s after PID 1 stopped"
	awk -v s="$s" 'BEGIN { exit !(s >= 8 && s <= 50) }' && ok "hang: the watchdog fired ($s s)" ||
		not_ok "hang: the watchdog fired ($s s, want about 15 s)"
else
	not_ok "hang: the watchdog fired (QEMU still running after 60 s)"
fi
expect_not 'reboot: (Restarting|Power down)' && ok "hang: not a reboot by lboot or the kernel" ||
	not_ok "hang: not a reboot by lboot or the kernel"
qemu_stop

# 2: PID 1 exits, the kernel panics and stays there
E2E_APPEND="lboot.watchdog=5 lboot.giveup=0 lboot.fault_hang=pid1-exit panic=0" \
	qemu_start -device i6300esb -watchdog-action reset
expect 'Kernel panic - not syncing: Attempted to kill init' 120 && ok "killed: the kernel panicked" ||
	not_ok "killed: the kernel panicked"
t=$(elapsed)
if s=$(exit_after "$t" 60); then
	log "killed: QEMU exited $s s after the panic"
	awk -v s="$s" 'BEGIN { exit !(s >= 3 && s <= 40) }' && ok "killed: the watchdog reset the machine ($s s)" ||
		not_ok "killed: the watchdog reset the machine ($s s)"
else
	not_ok "killed: the watchdog reset the machine (QEMU still running after 60 s)"
fi
qemu_stop

R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
cat >"$R/loader/entries/a.conf" <<'EOT'
title   held target
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test.hold=200
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" WDOG
mkdisk_gpt "$T/disk.img" "$T/p1.img"

# 3: handed over, left running (60 s: the target kernel boots under TCG)
E2E_APPEND="lboot.timeout=0 lboot.watchdog=5 lboot.watchdog.handover=60 watchdog.stop_on_reboot=0" \
	qemu_start -device i6300esb -watchdog-action poweroff -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot: watchdog: left armed for the OS: 60 s to take over \(watchdog.stop_on_reboot=0: the kernel keeps it running\)' 120 &&
	ok "handover: left armed, lboot says so" || not_ok "handover: left armed, lboot says so"
t=$(elapsed)
expect 'lboot-target: holding 200 s' 60 && ok "handover: the target OS is up" || not_ok "handover: the target OS is up"
if s=$(exit_after "$t" 120); then
	log "handover: QEMU exited $s s after the handover"
	awk -v s="$s" 'BEGIN { exit !(s >= 50 && s <= 100) }' &&
		ok "handover: the watchdog fired in the target OS that did not feed it ($s s after the handover)" ||
		not_ok "handover: the watchdog fired in the target OS that did not feed it ($s s after the handover, want about 60)"
else
	not_ok "handover: the watchdog fired in the target OS that did not feed it"
fi
expect_not 'lboot-target: powering off' && ok "handover: the target did not get to power off" ||
	not_ok "handover: the target did not get to power off"
qemu_stop

# 4: handover=0: stopped before kexec
sed -i 's/lboot-test.hold=200/lboot-test.hold=25/' "$R/loader/entries/a.conf"
mkpart_ext4 "$T/p1.img" 48 "$R" WDOG
mkdisk_gpt "$T/disk.img" "$T/p1.img"
E2E_APPEND="lboot.timeout=0 lboot.watchdog=5 lboot.watchdog.handover=0 watchdog.stop_on_reboot=0" \
	qemu_start -device i6300esb -watchdog-action poweroff -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot: watchdog: stopped before kexec \(lboot.watchdog.handover=0\)' 120 &&
	ok "stopped: lboot says so" || not_ok "stopped: lboot says so"
expect 'lboot-target: holding 25 s' 120 && ok "stopped: the target OS is up" || not_ok "stopped: the target OS is up"
expect 'lboot-target: powering off' 60 && ok "stopped: the target held 25 s and powered off by itself" ||
	not_ok "stopped: the target held 25 s and powered off by itself"
e2e_done
