#!/bin/bash
# Issue 2: drive the menu over the serial line: a key stops the countdown,
# 'e' edits the default entry's command line for one boot, the target OS
# sees the typed command line.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-menu-edit
target_os
R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
cat >"$R/loader/entries/a.conf" <<'EOT'
title   editable
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=original
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" EDIT
mkdisk_gpt "$T/disk.img" "$T/p1.img"
E2E_APPEND="lboot.timeout=60" qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'press any key to stop' 60 && ok "countdown shown" || not_ok "countdown shown"
expect ' 1\) editable \(/dev/vda1\) \[default\]' 5 && ok "entry listed with device and default mark" ||
	not_ok "entry listed with device and default mark"
send ' '
expect 'lboot> ' 20 && ok "countdown stopped at the prompt" || not_ok "countdown stopped at the prompt"
send 'e'
expect 'current: initrd=\\initrd.img console=ttyS0 lboot-test=original' 20 && ok "editor shows the current line" ||
	not_ok "editor shows the current line"
expect 'new \(empty keeps it' 5 && ok "editor prompts for the new line" || not_ok "editor prompts for the new line"
# typed character by character, as a person on a serial console would
line="console=ttyS0 lboot-test=edited-by-hand"
for ((i = 0; i < ${#line}; i++)); do
	send '%s' "${line:i:1}"
	sleep 0.02
done
send '\r'
expect "lboot: kexec 'editable' kernel=/vmlinuz initrd=/initrd.img cmdline=console=ttyS0 lboot-test=edited-by-hand\$" 60 &&
	ok "kexec with the edited line" || not_ok "kexec with the edited line"
expect 'lboot-target: cmdline: .*lboot-test=edited-by-hand' 180 && ok "target saw the edited command line" ||
	not_ok "target saw the edited command line"
expect_not 'lboot-target: cmdline: .*lboot-test=original' && ok "original line not used" || not_ok "original line not used"
e2e_done
