#!/bin/bash
# coreboot + lboot: coreboot for QEMU q35 (built from Debian's coreboot
# source package, cached) with lboot's firmware kernel and initramfs as its
# Linux payload, booted as the BIOS: no UEFI anywhere. lboot boots the
# target OS from a virtio disk (ESP with a BLS entry). lboot cbfs reads the
# ROM as coreboot's cbfstool does.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init coreboot-boot
if ! make -s -C "$E2E_ROOT" build/coreboot/q35.rom >"$T/build.log" 2>&1; then
	sed 's/^/# /' "$T/build.log" | tail -20; not_ok "coreboot built from Debian's source"; e2e_done
fi
ok "coreboot built from Debian's source ($(grep -o 'coreboot: [a-z]* .*' "$T/build.log" | tail -1))"
cp "$E2E_ROOT/build/coreboot/q35.rom" "$T/cb.rom"
cbfstool "$T/cb.rom" add-payload -f "$OUT/bzImage" -I "$OUT/initramfs.cpio.xz" \
	-C "$ROM_CMDLINE_TEST" -n fallback/payload >"$T/add.log" 2>&1 &&
	ok "cbfstool add-payload: lboot's kernel and initramfs" || not_ok "cbfstool add-payload"
"$OUT/lboot" cbfs ls "$T/cb.rom" >"$T/ls.txt" 2>&1 && cbfstool "$T/cb.rom" print >"$T/print.txt" 2>/dev/null &&
	diff "$T/ls.txt" "$T/print.txt" >/dev/null && grep -q '^fallback/payload  *0x[0-9a-f]*  *simple elf' "$T/ls.txt" &&
	ok "lboot cbfs ls = cbfstool print on the coreboot ROM (stages, payload, bootblock)" ||
	not_ok "lboot cbfs ls = cbfstool print on the coreboot ROM"
rom_demo_disk "$T/disk.img" coreboot
E2E_BIOS=$T/cb.rom qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'coreboot-.* bootblock starting' 60 && ok "coreboot's bootblock" || not_ok "coreboot's bootblock"
expect 'Jumping to boot code' 120 && ok "coreboot ran the payload ($(elapsed) s)" || not_ok "coreboot ran the payload"
expect "Command line: $ROM_CMDLINE_TEST" 60 && ok "the kernel got the payload's command line" ||
	not_ok "the kernel got the payload's command line"
expect 'lboot: lboot .* starting' 120 && ok "lboot is PID 1 under coreboot" || not_ok "lboot is PID 1 under coreboot"
expect 'lboot: no EFI firmware \(/sys/firmware/efi absent\): no EFI variables' 30 &&
	ok "lboot says once what it cannot keep without EFI" || not_ok "lboot says what it cannot keep without EFI"
expect 'lboot-target: TARGET-OS-UP' 300 && ok "target OS up from virtio ($(elapsed) s)" || not_ok "target OS up from virtio"
expect 'lboot-target: cmdline: .*rom.test=coreboot' 30 && ok "target OS cmdline" || not_ok "target OS cmdline"
qemu_stop
e2e_done
