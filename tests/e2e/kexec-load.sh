#!/bin/bash
# Issue 12, the kexec fast path: lboot.kexec=load boots the target with
# kexec_load(2), lboot's own layout and trampoline (src/kexec/kexecload_x86_64.c),
# no purgatory. The entry has two initrds (the target's /init, then a cpio
# with Debian's efivarfs.ko): the target (tests/guest/target-init.c,
# "lboot-test.acpi") prints its command line, the root it runs from, whether
# the second initrd arrived (concatenated), ACPI tables, EFI, how many
# efivarfs entries it reads (EFI runtime services: GetNextVariableName),
# /proc/fb; then powers off through ACPI (QEMU must exit).
#   seabios: -kernel boot (SeaBIOS), lboot.kexec=load, then =file: the same
#            entry, the same hand-over (no EFI).
#   ovmf:    stock OVMF + -kernel (the EFI stub; OVMF's GOP framebuffer):
#            lboot.kexec=load keeps EFI runtime services and the
#            framebuffer (efifb in the target).
#   rom:     the LinuxBoot ROM (no video driver in it: no framebuffer),
#            lboot.kexec=load, and the default (no lboot.kexec) which takes
#            kexec_load too; EFI runtime services in the target.
#   fallback: kexec_load refused (sysctl.kernel.kexec_load_disabled=1 on
#            the firmware kernel's command line): the default tries
#            kexec_file_load next (refused too); lboot.kexec=load does not.
# KEXEC_LOAD_ONLY="seabios ovmf rom fallback" (a subset) runs part of it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init kexec-load
target_os
R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz-test"
cp "$TARGET_INITRD" "$R/initrd-test.img"
efivarfs_cpio "$R/efivarfs.cpio"
printf 'default test.conf\ntimeout 0\n' >"$R/loader/loader.conf"
cat >"$R/loader/entries/test.conf" <<'EOT'
title   kexec fast path
linux   /vmlinuz-test
initrd  /initrd-test.img
initrd  /efivarfs.cpio
options console=ttyS0,115200 lboot-test.acpi lboot-test=kexecload quiet
EOT
mkpart_vfat "$T/p1.img" 48 "$R" KEXECLD 20261212
mkdisk_gpt "$T/disk.img" "$T/p1.img:esp"

# the target's report: NAME is the run's label, ACPI, EFI: yes/no
target_checks() { # NAME HOW EFI FB
	local n=$1 how=$2 efi=$3 fb=${4:-no}
	expect "lboot: loaded \\($how\\); handing over" 240 && ok "$n: loaded with $how" ||
		not_ok "$n: loaded with $how"
	expect 'lboot-target: cmdline: .*lboot-test=kexecload' 240 &&
		ok "$n: target booted with its command line" || not_ok "$n: target booted with its command line"
	expect 'lboot-target: fb: ' 60 || true
	expect 'lboot-target: root: (rootfs|none) / (rootfs|ramfs|tmpfs)' 5 &&
		ok "$n: target runs from its initrd" || not_ok "$n: target runs from its initrd"
	expect 'lboot-target: second initrd: yes' 5 && ok "$n: the second initrd arrived" ||
		not_ok "$n: the second initrd arrived"
	expect 'lboot-target: acpi: yes' 5 && ok "$n: target sees ACPI tables" ||
		not_ok "$n: target sees ACPI tables"
	if [ "$efi" = yes ]; then
		expect 'lboot-target: efi: yes' 5 && ok "$n: target booted with EFI" ||
			not_ok "$n: target booted with EFI"
		expect 'lboot-target: efivars: [1-9]' 5 &&
			ok "$n: efivarfs readable in the target (EFI runtime services)" ||
			not_ok "$n: efivarfs readable in the target (EFI runtime services)"
	else
		expect 'lboot-target: efi: no' 5 && ok "$n: no EFI (SeaBIOS)" || not_ok "$n: no EFI (SeaBIOS)"
	fi
	if [ "$fb" = yes ]; then
		expect 'lboot-target: fb: [0-9]+ EFI VGA' 5 && ok "$n: target has the EFI framebuffer" ||
			not_ok "$n: target has the EFI framebuffer"
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

only() { case " ${KEXEC_LOAD_ONLY:-seabios ovmf rom fallback} " in *" $1 "*) return 0 ;; esac; return 1; }

if only seabios; then
	for how in load file; do
		E2E_APPEND="lboot.timeout=0 lboot.kexec=$how" qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
		[ $how = load ] && fn=kexec_load || fn=kexec_file_load
		target_checks "seabios-$how" "$fn" no
	done
fi

if only ovmf; then
	cp /usr/share/OVMF/OVMF_VARS_4M.fd "$T/ovmf-vars.fd"
	E2E_APPEND="lboot.timeout=0 lboot.kexec=load" qemu_start \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd" \
		-drive "if=pflash,format=raw,unit=1,file=$T/ovmf-vars.fd" \
		-drive "file=$T/disk.img,format=raw,if=virtio"
	target_checks ovmf-load kexec_load yes yes
fi

if only rom; then
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
if only fallback; then
	# kexec_load_disabled refuses both syscalls: the default tries
	# kexec_load, says why, then tries kexec_file_load (whose EPERM is the
	# one reported); lboot.kexec=load reports kexec_load's and tries nothing
	# else. (Nothing refuses kexec_load alone here: no lockdown LSM in the
	# firmware kernel; the file path booting is checked above.)
	E2E_APPEND="lboot.timeout=0 sysctl.kernel.kexec_load_disabled=1" qemu_start \
		-drive "file=$T/disk.img,format=raw,if=virtio"
	expect 'lboot: kexec_load: Operation not permitted.*; trying kexec_file_load' 240 &&
		ok "fallback: default: kexec_load refused, says so, tries kexec_file_load" ||
		not_ok "fallback: default: kexec_load refused, says so, tries kexec_file_load"
	expect 'lboot: boot failed: kexec fast path \(/dev/vda1\): /vmlinuz-test: not permitted \(EPERM\)' 60 &&
		ok "fallback: default: kexec_file_load's refusal reported" ||
		not_ok "fallback: default: kexec_file_load's refusal reported"
	qemu_stop

	E2E_APPEND="lboot.timeout=0 lboot.kexec=load sysctl.kernel.kexec_load_disabled=1" qemu_start \
		-drive "file=$T/disk.img,format=raw,if=virtio"
	expect 'lboot: boot failed: kexec fast path \(/dev/vda1\): kexec_load: Operation not permitted' 240 &&
		ok "fallback: lboot.kexec=load: boot failed, with kexec_load's reason" ||
		not_ok "fallback: lboot.kexec=load: boot failed, with kexec_load's reason"
	expect_not 'trying kexec_file_load|lboot: loaded' && ok "fallback: lboot.kexec=load: no other path tried" ||
		not_ok "fallback: lboot.kexec=load: no other path tried"
	qemu_stop
fi
e2e_done
