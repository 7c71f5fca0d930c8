#!/bin/bash
# Any user space rides in the ROM: a ROM whose initramfs is
# out/initramfs-busybox.cpio.xz (lboot as /init plus BusyBox; too big for
# the 4 MiB OVMF layout beside the firmware kernel) boots from pflash with
# its payload in unit 1, lboot's menu offers the shell, BusyBox runs in the
# firmware kernel, and the menu then boots the target OS.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init rom-busybox
BB=$OUT/initramfs-busybox.cpio.xz
make -s -C "$E2E_ROOT" out/initramfs-busybox.cpio.xz >/dev/null 2>&1 && [ -f "$BB" ] ||
	{ not_ok "make out/initramfs-busybox.cpio.xz (needs busybox-static)"; exit 1; }
# the 4 MiB layout cannot hold it: a clear "does not fit" (and nothing written)
"$OUT/lboot" mkrom --keep "$E2E_ROOT/rom/keep-ovmf.txt" --dxe "$E2E_ROOT/build/dxe/lbootdxe.efi" \
	--size 4M --kernel "$OUT/bzImage" --initrd "$BB" -o "$T/small.rom" >"$T/small.log" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -Eq 'does not fit: [0-9]+ bytes over' "$T/small.log" && [ ! -e "$T/small.rom" ]; then
	ok "4 MiB layout: $(grep -Eo 'does not fit: [0-9]+ bytes over' "$T/small.log")"
elif [ $rc -eq 0 ]; then
	log "kernel $(stat -c %s "$OUT/bzImage") + initramfs $(stat -c %s "$BB") bytes fit the 4 MiB layout"
	not_ok "4 MiB layout refuses the BusyBox payload"
else
	sed 's/^/# /' "$T/small.log"; not_ok "4 MiB layout: does not fit: N bytes over"
fi
rom_build "$T/lboot.rom" --kernel "$OUT/bzImage" --initrd "$BB" \
	--cmdline "console=ttyS0,115200 panic=-1 lboot.timeout=60"
grep -q 'in a payload volume of' "$T/lboot.rom.log" && ok "mkrom: payload in unit 1" ||
	{ sed 's/^/# /' "$T/lboot.rom.log"; not_ok "mkrom: payload in unit 1"; }
rom_demo_disk "$T/disk.img" busybox
E2E_FIRMWARE=$T/lboot.rom E2E_VARS=$T/lboot-vars.fd \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lbootdxe: initramfs: $(stat -c %s "$BB") bytes from flash" 150 &&
	ok "initramfs read from the payload volume" || not_ok "initramfs read from the payload volume"
expect 'lboot [^ ]+ starting' 180 && ok "lboot started ($(elapsed) s)" || not_ok "lboot started"
expect 's: shell, r: rescan' 120 && ok "shell offered" || not_ok "shell offered"
send ' '
expect 'lboot> ' 20 || not_ok "prompt"
send 's'
expect 'lboot: starting /bin/sh' 20 && ok "shell started" || not_ok "shell started"
sleep 2
send 'echo "bb-$(busybox uname -r)-$(ls /bin | wc -l)"\r'
expect '^bb-6\.1\.[0-9]+-lboot-[0-9]{3,}' 30 && ok "BusyBox runs in the firmware kernel" ||
	not_ok "BusyBox runs in the firmware kernel"
send 'exit\r'
expect 'lboot: shell exited, back to the menu' 20 && ok "back to the menu" || not_ok "back to the menu"
sleep 1
send '1\r'
expect 'lboot-target: cmdline: .*rom.test=busybox' 300 && ok "target OS up ($(elapsed) s)" ||
	not_ok "target OS up"
expect_not 'lbootdxe: FATAL' && ok "no FATAL" || not_ok "no FATAL"
qemu_stop
e2e_done
