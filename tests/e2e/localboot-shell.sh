#!/bin/bash
# Issue 2: with BusyBox in the initramfs, 's' at the menu opens a shell on
# the serial console; `lboot boot --dry-run` there prints what it would
# kexec without disturbing the menu's mounts; `exit` returns to the menu,
# which then boots the chosen entry.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-shell
target_os
[ -x /bin/busybox ] || { not_ok "no /bin/busybox (apt-get install busybox-static)"; exit 1; }
"$OUT/lboot" mkinitramfs -o "$T/initramfs-bb.cpio.xz" --init "$OUT/lboot-target" --busybox 2>/dev/null ||
	{ not_ok "mkinitramfs --busybox"; exit 1; }
R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
cat >"$R/loader/entries/s.conf" <<'EOT'
title   from the menu after a shell
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=after-shell
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" SHELLTEST
mkdisk_gpt "$T/disk.img" "$T/p1.img"
E2E_INITRD=$T/initramfs-bb.cpio.xz E2E_APPEND="lboot.timeout=60" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'press any key to stop' 60 && ok "countdown" || not_ok "countdown"
expect 's: shell, r: rescan' 5 && ok "shell offered" || not_ok "shell offered"
send ' '
expect 'lboot> ' 20 && ok "prompt" || not_ok "prompt"
send 's'
expect 'lboot: starting /bin/sh' 20 && ok "shell started" || not_ok "shell started"
sleep 2
send 'lboot boot --dry-run --timeout 0 --wait 0; echo "rc=$?"\r'
expect "lboot: would kexec 'from the menu after a shell' kernel=/vmlinuz initrd=/initrd.img cmdline=initrd=\\\\initrd.img console=ttyS0 lboot-test=after-shell" 60 &&
	ok "boot --dry-run from the shell" || not_ok "boot --dry-run from the shell"
expect '^rc=0' 20 && ok "dry run exit status 0" || not_ok "dry run exit status 0"
send 'exit\r'
expect 'lboot: shell exited, back to the menu' 20 && ok "back to the menu" || not_ok "back to the menu"
sleep 1
send '1\r'
expect "lboot: kexec 'from the menu after a shell'" 60 && ok "menu still boots (mounts intact)" ||
	not_ok "menu still boots (mounts intact)"
expect 'lboot-target: cmdline: .*lboot-test=after-shell' 180 && ok "target OS booted" || not_ok "target OS booted"
e2e_done
