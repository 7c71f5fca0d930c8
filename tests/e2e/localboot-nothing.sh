#!/bin/bash
# Issue 2: nothing bootable (an ext4 without configs): lboot says so, stays
# alive at its prompt, 'r' rescans and says so again, 'p' powers off.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-nothing
mkdir -p "$T/root/home"
echo hello >"$T/root/home/file"
mkpart_ext4 "$T/p1.img" 8 "$T/root" NOTHING
mkdisk_gpt "$T/disk.img" "$T/p1.img"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: no bootable entries found on 2 devices' 60 && ok "nothing bootable reported" ||
	not_ok "nothing bootable reported"
expect 'lboot> ' 20 && ok "prompt shown" || not_ok "prompt shown"
sleep 1
send 'r'
expect 'lboot: rescanning devices' 20 && ok "rescan key" || not_ok "rescan key"
n=0
for i in $(seq 1 100); do
	n=$(tr -d '\r' <"$T/serial.log" | grep -c 'lboot: no bootable entries found on 2 devices')
	[ "$n" -ge 2 ] && break
	sleep 0.3
done
[ "$n" -ge 2 ] && ok "rescan reports again" || not_ok "rescan reports again ($n)"
expect_not 'Kernel panic' && ok "no panic" || not_ok "no panic"
kill -0 "$QEMU_PID" 2>/dev/null && ok "still running" || not_ok "still running"
sleep 1
send 'p'
expect 'lboot: powering off' 20 && qemu_wait 60 && ok "'p' powers the machine off" || not_ok "'p' powers the machine off"
e2e_done
