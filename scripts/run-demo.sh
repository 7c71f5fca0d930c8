#!/bin/bash
# `make run`: boot the demo in QEMU (TCG) on this terminal. The serial
# console is stdin/stdout: lboot's menu waits LBOOT_TIMEOUT seconds (digits
# choose, 'e' edits the command line), then kexecs the demo OS, which prints
# its command line and powers off. Ctrl-A X quits QEMU.
# With out/lboot.rom present the ROM boots from pflash (firmware -> Linux ->
# lboot -> kexec); LBOOT_DIRECT=1 boots out/bzImage + initramfs directly.
set -e
cd "$(dirname "$0")/.."
[ -f out/demo-disk.img ] || scripts/mkdemo.sh out/demo-disk.img
timeout=${LBOOT_TIMEOUT:-10}
if [ -f out/lboot.rom ] && [ -f out/lboot-vars.fd ] && [ -z "${LBOOT_DIRECT:-}" ]; then
	# unit 1: the ROM's payload volume (kernel, initramfs) and the variable
	# store, written by `lboot mkrom` next to the ROM (docs/rom.md)
	mkdir -p build
	cp out/lboot-vars.fd build/demo-vars.fd
	set -x
	exec qemu-system-x86_64 -accel tcg -machine q35,max-fw-size=16M -m 1024 -nographic -no-reboot \
		-drive if=pflash,format=raw,unit=0,readonly=on,file=out/lboot.rom \
		-drive if=pflash,format=raw,unit=1,file=build/demo-vars.fd \
		-drive file=out/demo-disk.img,format=raw,if=virtio,snapshot=on -nic none
fi
set -x
exec qemu-system-x86_64 -accel tcg -machine q35 -m 1024 -nographic -no-reboot \
	-kernel out/bzImage -initrd out/initramfs.cpio.xz \
	-append "console=ttyS0,115200 lboot.timeout=$timeout" \
	-drive file=out/demo-disk.img,format=raw,if=virtio,snapshot=on -nic none
