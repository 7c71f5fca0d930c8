#!/bin/bash
# Issue 12, the kexec fast path: lboot.kexec=load boots the target with
# kexec_load(2), lboot's own layout and trampoline (src/boot/kexecload.c),
# no purgatory. The target (tests/guest/target-init.c, "lboot-test.acpi")
# prints its command line, the root it runs from (its initrd), whether it
# sees ACPI tables, EFI and efivarfs entries (runtime services), and
# /proc/fb; then powers off through ACPI (QEMU must exit).
#   1. -kernel boot (SeaBIOS): lboot.kexec=load, then lboot.kexec=file, the
#      same entry: both hand over the same things.
#   2. the ROM (OVMF + lbootdxe): lboot.kexec=load keeps EFI runtime
#      services (efivarfs readable in the target) and the framebuffer;
#      the default (no lboot.kexec) takes kexec_load too.
# KEXEC_LOAD_ONLY=kernel|rom runs one half.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init kexec-load
target_os
R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz-test"
cp "$TARGET_INITRD" "$R/initrd-test.img"
printf 'default test.conf\ntimeout 0\n' >"$R/loader/loader.conf"
cat >"$R/loader/entries/test.conf" <<'EOT'
title   kexec fast path
linux   /vmlinuz-test
initrd  /initrd-test.img
options console=ttyS0,115200 lboot-test.acpi lboot-test=kexecload quiet
EOT
mkpart_vfat "$T/p1.img" 48 "$R" KEXECLD 20261212
mkdisk_gpt "$T/disk.img" "$T/p1.img:esp"

# the target's report: NAME is the run's label, ACPI, EFI: yes/no
target_checks() { # NAME HOW EFI
	local n=$1 how=$2 efi=$3
	expect "lboot: loaded \\($how\\); handing over" 240 && ok "$n: loaded with $how" ||
		not_ok "$n: loaded with $how"
	expect 'lboot-target: cmdline: .*lboot-test=kexecload' 240 &&
		ok "$n: target booted with its command line" || not_ok "$n: target booted with its command line"
	expect 'lboot-target: fb: ' 60 || true
	expect 'lboot-target: root: (rootfs|none) / (rootfs|ramfs|tmpfs)' 5 &&
		ok "$n: target runs from its initrd" || not_ok "$n: target runs from its initrd"
	expect 'lboot-target: acpi: yes' 5 && ok "$n: target sees ACPI tables" ||
		not_ok "$n: target sees ACPI tables"
	if [ "$efi" = yes ]; then
		expect 'lboot-target: efi: yes' 5 && ok "$n: target booted with EFI" ||
			not_ok "$n: target booted with EFI"
		expect 'lboot-target: efivars: [1-9]' 5 &&
			ok "$n: efivarfs readable in the target (EFI runtime services)" ||
			not_ok "$n: efivarfs readable in the target (EFI runtime services)"
		expect 'lboot-target: fb: [0-9]+ ' 5 && ok "$n: target has a framebuffer" ||
			not_ok "$n: target has a framebuffer"
	else
		expect 'lboot-target: efi: no' 5 && ok "$n: no EFI (SeaBIOS)" || not_ok "$n: no EFI (SeaBIOS)"
	fi
	if qemu_wait 120; then
		ok "$n: ACPI poweroff ends QEMU"
	else
		not_ok "$n: ACPI poweroff ends QEMU"
	fi
	log "$n: $(tr -d '\r' <"$T/serial.log" | grep -E '^lboot-target: (root|acpi|efi|efivars|fb):' | tr '\n' ' ')"
	expect_not 'lboot: boot failed|Kernel panic' && ok "$n: no failure" || not_ok "$n: no failure"
	cp "$T/serial.log" "$T/serial-$n.log"
	qemu_stop
}

if [ "${KEXEC_LOAD_ONLY:-kernel}" = kernel ] || [ -z "${KEXEC_LOAD_ONLY:-}" ]; then
	for how in load file; do
		E2E_APPEND="lboot.timeout=0 lboot.kexec=$how" qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
		[ $how = load ] && fn=kexec_load || fn=kexec_file_load
		target_checks "seabios-$how" "$fn" no
	done
fi

if [ "${KEXEC_LOAD_ONLY:-rom}" = rom ] || [ -z "${KEXEC_LOAD_ONLY:-}" ]; then
	for how in load default; do
		extra=
		[ $how = load ] && extra=" lboot.kexec=load"
		rom_build "$T/$how.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" \
			--cmdline "$ROM_CMDLINE_TEST$extra"
		E2E_FIRMWARE=$T/$how.rom E2E_VARS=$T/$how-vars.fd qemu_start \
			-drive "file=$T/disk.img,format=raw,if=virtio"
		target_checks "rom-$how" kexec_load yes
	done
fi
e2e_done
