#!/bin/bash
# Issue 2: PID 1 survives the boot menu dying: the menu process (PID 1's
# child) is killed with SIGSEGV from the shell; PID 1 reports it, comes back
# at the recovery prompt, and 'r' rescans and the entry still boots.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-recovery
target_os
[ -x /bin/busybox ] || { not_ok "no /bin/busybox (apt-get install busybox-static)"; exit 1; }
"$OUT/lboot" mkinitramfs -o "$T/initramfs-bb.cpio.xz" --init "$OUT/lboot-target" --busybox 2>/dev/null ||
	{ not_ok "mkinitramfs --busybox"; exit 1; }
R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
cat >"$R/loader/entries/r.conf" <<'EOT'
title   after recovery
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=after-recovery
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" RECOVERY
mkdisk_gpt "$T/disk.img" "$T/p1.img"
E2E_INITRD=$T/initramfs-bb.cpio.xz E2E_APPEND="lboot.timeout=60" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'press any key to stop' 120 && ok "countdown" || not_ok "countdown"
send ' '
expect 'lboot> ' 20 && ok "prompt" || not_ok "prompt"
send 's'
expect 'lboot: starting /bin/sh' 20 && ok "shell started" || not_ok "shell started"
sleep 2
# the shell's parent is the menu process; the shell then stops reading input
send 'kill -SEGV $PPID; exec sleep 1000\r'
expect 'lboot: boot menu died \(signal 11\): back to the recovery prompt' 30 &&
	ok "PID 1 reports the crash" || not_ok "PID 1 reports the crash"
expect '\(no bootable entries\)' 30 && ok "recovery prompt" || not_ok "recovery prompt"
sleep 1
send 'r'
# the first scan printed these once already: wait for the second time
count() { tr -d '\r' <"$T/serial.log" | grep -Ec -- "$1"; }
for i in $(seq 1 300); do
	[ "$(count ' 1\) after recovery')" -ge 2 ] && break
	sleep 0.2
done
[ "$(count 'lboot: found /dev/vda1 ext4 .*label=RECOVERY')" -ge 2 ] && ok "rescan from the recovery prompt" ||
	not_ok "rescan from the recovery prompt"
[ "$(count ' 1\) after recovery')" -ge 2 ] && ok "entry listed after rescan" || not_ok "entry listed after rescan"
expect_not 'Kernel panic' && ok "no panic" || not_ok "no panic"
sleep 1
send '1\r'
expect 'lboot-target: cmdline: .*lboot-test=after-recovery' 180 && ok "target OS booted" || not_ok "target OS booted"
e2e_done
