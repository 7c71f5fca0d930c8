#!/bin/bash
# coreboot + lboot: coreboot for QEMU q35 (built from Debian's coreboot
# source package, cached) with lboot's firmware kernel and initramfs as its
# Linux payload (lboot cbfs add-payload, lboot's trampoline), booted as the
# BIOS: no UEFI anywhere. lboot boots the target OS from a virtio disk (ESP
# with a BLS entry). lboot cbfs reads the ROM as coreboot's cbfstool does;
# the same payload added by cbfstool (its own trampoline) boots too and
# gives Linux the same memory map; lboot's LZMA and LZ4 payloads boot.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init coreboot-boot
if ! make -s -C "$E2E_ROOT" build/coreboot/q35.rom >"$T/build.log" 2>&1; then
	sed 's/^/# /' "$T/build.log" | tail -20; not_ok "coreboot built from Debian's source"; e2e_done
fi
ok "coreboot built from Debian's source ($(grep -o 'coreboot: [a-z]* .*' "$T/build.log" | tail -1))"
"$E2E_ROOT/coreboot/with-payload.sh" "$T/cb.rom" "$ROM_CMDLINE_TEST" >"$T/add.log" 2>&1 &&
	ok "lboot cbfs add-payload: lboot's kernel and initramfs, lboot's trampoline" ||
	{ sed 's/^/# /' "$T/add.log"; not_ok "lboot cbfs add-payload"; }
"$OUT/lboot" cbfs ls "$T/cb.rom" >"$T/ls.txt" 2>&1 && cbfstool "$T/cb.rom" print >"$T/print.txt" 2>/dev/null &&
	diff "$T/ls.txt" "$T/print.txt" >/dev/null && grep -q '^fallback/payload  *0x[0-9a-f]*  *simple elf' "$T/ls.txt" &&
	ok "lboot cbfs ls = cbfstool print on the coreboot ROM (stages, payload, bootblock)" ||
	not_ok "lboot cbfs ls = cbfstool print on the coreboot ROM"
# the oracle: the same payload added by coreboot's own cbfstool (its
# trampoline); booted first, to lboot's start
cp "$E2E_ROOT/build/coreboot/q35.rom" "$T/cbfstool.rom"
cbfstool "$T/cbfstool.rom" add-payload -f "$OUT/bzImage" -I "$OUT/initramfs.cpio.xz" \
	-C "$ROM_CMDLINE_TEST" -n fallback/payload >"$T/cbfstool-add.log" 2>&1 &&
	ok "cbfstool add-payload: the same kernel, initramfs and command line" || not_ok "cbfstool add-payload"
E2E_BIOS=$T/cbfstool.rom qemu_start
expect 'lboot: lboot .* starting' 240 && ok "cbfstool's ROM boots lboot ($(elapsed) s)" ||
	not_ok "cbfstool's ROM boots lboot"
qemu_stop
grep -a 'BIOS-e820:' "$T/serial.log" | sed 's/^\[[^]]*\] //' >"$T/e820-cbfstool.txt"
# lboot's payload with every segment LZMA: coreboot's own decompressor reads it
"$OUT/lboot" cbfs add-payload -c lzma -I "$OUT/initramfs.cpio.xz" -C "$ROM_CMDLINE_TEST" \
	"$E2E_ROOT/build/coreboot/q35.rom" "$OUT/bzImage" -o "$T/lzma.rom" 2>"$T/lzma.err" ||
	sed 's/^/# /' "$T/lzma.err"
E2E_BIOS=$T/lzma.rom qemu_start
expect 'lboot: lboot .* starting' 240 &&
	ok "lboot's LZMA payload ($("$OUT/lboot" cbfs ls "$T/lzma.rom" | awk '$1 == "fallback/payload" {print $5}') bytes) boots lboot ($(elapsed) s)" ||
	not_ok "lboot's LZMA payload boots lboot"
qemu_stop
# and with every segment LZ4 (cbfstool's frame): coreboot's selfboot decodes
# it with ulz4fn (in every 4.15 ramstage; no Kconfig needed without a
# payload of its own build)
"$OUT/lboot" cbfs add-payload -c lz4 -I "$OUT/initramfs.cpio.xz" -C "$ROM_CMDLINE_TEST" \
	"$E2E_ROOT/build/coreboot/q35.rom" "$OUT/bzImage" -o "$T/lz4.rom" 2>"$T/lz4.err" ||
	sed 's/^/# /' "$T/lz4.err"
E2E_BIOS=$T/lz4.rom qemu_start
expect 'using LZ4' 120 && ok "coreboot decodes lboot's LZ4 segments ('using LZ4')" ||
	not_ok "coreboot decodes lboot's LZ4 segments ('using LZ4')"
expect 'lboot: lboot .* starting' 240 &&
	ok "lboot's LZ4 payload ($("$OUT/lboot" cbfs ls "$T/lz4.rom" | awk '$1 == "fallback/payload" {print $5}') bytes) boots lboot ($(elapsed) s)" ||
	not_ok "lboot's LZ4 payload boots lboot"
qemu_stop
rom_demo_disk "$T/disk.img" coreboot
E2E_BIOS=$T/cb.rom qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'coreboot-.* bootblock starting' 60 && ok "coreboot's bootblock" || not_ok "coreboot's bootblock"
expect 'Jumping to boot code' 120 && ok "coreboot ran the payload ($(elapsed) s)" || not_ok "coreboot ran the payload"
expect "Command line: $ROM_CMDLINE_TEST" 60 && ok "the kernel got the payload's command line" ||
	not_ok "the kernel got the payload's command line"
expect 'lboot: lboot .* starting' 120 && ok "lboot is PID 1 under coreboot" || not_ok "lboot is PID 1 under coreboot"
# lboot's trampoline gives Linux the memory map cbfstool's does
grep -a 'BIOS-e820:' "$T/serial.log" | sed 's/^\[[^]]*\] //' >"$T/e820-lboot.txt"
if [ -s "$T/e820-lboot.txt" ] && grep -q usable "$T/e820-lboot.txt" &&
	diff "$T/e820-cbfstool.txt" "$T/e820-lboot.txt" >"$T/e820.diff"; then
	ok "the kernel's e820 map = under cbfstool's payload ($(wc -l <"$T/e820-lboot.txt") ranges)"
else
	sed 's/^/# /' "$T/e820.diff"; not_ok "the kernel's e820 map = under cbfstool's payload"
fi
expect 'lboot: no EFI firmware \(/sys/firmware/efi absent\): no EFI variables, .*; coreboot: the boot log goes after its console in CBMEM at 0x[0-9a-f]+' 30 &&
	ok "lboot says once what it cannot keep without EFI, and where the boot log goes" ||
	not_ok "lboot says what it cannot keep without EFI, and where the boot log goes"
expect 'lboot-target: TARGET-OS-UP' 300 && ok "target OS up from virtio ($(elapsed) s)" || not_ok "target OS up from virtio"
expect 'lboot-target: cmdline: .*rom.test=coreboot' 30 && ok "target OS cmdline" || not_ok "target OS cmdline"
qemu_stop
e2e_done
