#!/bin/bash
# A ROM with an initramfs of several MiB (lboot, BusyBox and 4 MiB of
# incompressible bytes) beside the firmware kernel, in the 16 MiB flash's
# payload volume (pflash unit 1): lbootdxe serves it, the kernel unpacks
# it, lboot finds the pad file intact and boots the target OS.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init rom-big-initramfs
head -c $((4 << 20)) /dev/urandom >"$T/pad.bin"
sum=$(sha256sum <"$T/pad.bin" | cut -c1-64)
bb=; [ -x /bin/busybox ] && bb=--busybox
"$OUT/lboot" mkinitramfs -o "$T/big.cpio.xz" --init "$OUT/lboot-target" $bb \
	--file "$T/pad.bin:/pad.bin" 2>/dev/null || { not_ok "mkinitramfs"; exit 1; }
size=$(stat -c %s "$T/big.cpio.xz")
[ "$size" -gt $((4 << 20)) ] && ok "initramfs of $size bytes" || not_ok "initramfs of several MiB ($size)"
rom_build "$T/lboot.rom" --kernel "$OUT/bzImage" --initrd "$T/big.cpio.xz" \
	--cmdline "console=ttyS0,115200 panic=-1 lboot.timeout=60"
grep -q 'in a payload volume of' "$T/lboot.rom.log" && ok "mkrom: payload in unit 1" ||
	{ sed 's/^/# /' "$T/lboot.rom.log"; not_ok "mkrom: payload in unit 1"; }
rom_demo_disk "$T/disk.img" big
E2E_FIRMWARE=$T/lboot.rom E2E_VARS=$T/lboot-vars.fd \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lbootdxe: initramfs: $size bytes from flash" 150 &&
	ok "initramfs read from the payload volume" || not_ok "initramfs read from the payload volume"
expect 'lboot [^ ]+ starting' 240 && ok "lboot started ($(elapsed) s)" || not_ok "lboot started"
if [ -n "$bb" ]; then
	expect 's: shell, r: rescan' 120 || not_ok "shell offered"
	send ' '
	expect 'lboot> ' 20 || not_ok "prompt"
	send 's'
	expect 'lboot: starting /bin/sh' 20 || not_ok "shell started"
	sleep 2
	send 'echo "pad=$(sha256sum /pad.bin)"\r'
	expect "^pad=$sum" 60 && ok "4 MiB pad file intact in the firmware's root" ||
		not_ok "4 MiB pad file intact in the firmware's root"
	send 'exit\r'
	expect 'lboot: shell exited, back to the menu' 20 || not_ok "back to the menu"
	sleep 1
fi
send '1\r'
expect 'lboot-target: cmdline: .*rom.test=big' 300 && ok "target OS up ($(elapsed) s)" ||
	not_ok "target OS up"
expect_not 'lbootdxe: FATAL' && ok "no FATAL" || not_ok "no FATAL"
qemu_stop
e2e_done
