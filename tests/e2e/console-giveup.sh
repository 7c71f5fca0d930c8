#!/bin/bash
# Issue 11, nobody at the console: no disks at all. lboot rescans with
# backoff (2, 4, 8 ... s), says so once per round, and after lboot.giveup=S
# without anyone typing reboots with one line saying why (QEMU runs with
# -no-reboot: it exits). The hardware watchdog is armed meanwhile and fed by
# PID 1, so it does not fire first.
. "$(dirname "$0")/lib.sh"
e2e_init console-giveup
E2E_APPEND="lboot.giveup=25 lboot.watchdog=5" qemu_start -device i6300esb
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: watchdog: /dev/watchdog[0-9]* \(i6300ESB timer\) armed, 5 s' 10 && ok "watchdog armed" ||
	not_ok "watchdog armed"
expect 'lboot: no bootable entries found on 0 devices' 60 && ok "nothing found" || not_ok "nothing found"
expect 'lboot: nothing to boot \(round 1\): rescanning in 2 s; rebooting in 2[0-9] s unless someone types \(lboot.giveup=25\)' 10 &&
	ok "round 1 reported with its wait and the reboot to come" ||
	not_ok "round 1 reported with its wait and the reboot to come"
t_first=$(elapsed)
expect 'lboot: nothing to boot \(round 2\): rescanning in 4 s' 30 && ok "round 2: 4 s" || not_ok "round 2: 4 s"
expect 'lboot: nothing to boot \(round 3\): rescanning in 8 s' 30 && ok "round 3: 8 s" || not_ok "round 3: 8 s"
expect 'lboot: nothing to boot for 25 s and nobody at the console \(lboot.giveup=25\): rebooting' 60 &&
	ok "gives up with one line saying why" || not_ok "gives up with one line saying why"
t_reboot=$(elapsed)
qemu_wait 30 && ok "the machine rebooted (QEMU -no-reboot exited)" || not_ok "the machine rebooted (QEMU -no-reboot exited)"
log "first round at $t_first s, reboot line at $t_reboot s"
log=$(tr -d '\r' <"$T/serial.log")
rounds=$(grep -c 'lboot: nothing to boot (round' <<<"$log")
scans=$(grep -c 'lboot: no bootable entries found on 0 devices' <<<"$log")
log "$rounds rounds, $scans scans"
# the rounds backed off: 2 + 4 + 8 + 11 (the rest of 25 s) -> 4 or 5 rounds,
# each reported once, one scan each and the last scan before giving up
# (not one report a second)
[ "$rounds" -ge 3 ] && [ "$rounds" -le 6 ] && ok "rounds backed off ($rounds in 25 s)" ||
	not_ok "rounds backed off ($rounds in 25 s)"
[ "$scans" = "$((rounds + 1))" ] && ok "one report per round" || not_ok "one report per round ($scans scans, $rounds rounds)"
for r in $(seq 1 "$rounds"); do
	c=$(grep -c "lboot: nothing to boot (round $r)" <<<"$log")
	[ "$c" = 1 ] || { not_ok "round $r reported $c times"; break; }
done
expect_not 'Kernel panic' && ok "no panic" || not_ok "no panic"
e2e_done
