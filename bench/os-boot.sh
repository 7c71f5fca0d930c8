#!/bin/bash
# Time to a usable system: a real installed Debian 12 (tests/os/build.sh
# LAYOUT, default grub-lvm: GRUB, /boot on ext4, root on LVM, systemd) booted
# under QEMU TCG (q35, 1 GiB, 1 vCPU) by
#   stock: stock OVMF_CODE_4M.fd, the disk's own GRUB (GRUB_TIMEOUT=1, as the
#          fixture sets it; Debian's default is 5)
#   rom:   the LinuxBoot ROM (OVMF pruned + lbootdxe + lboot, lboot.timeout=0)
#   cb:    coreboot + lboot as its payload (no UEFI: the OS boots without EFI)
# in the same run, RUNS rounds (default 2). Printed per run and as means:
# the wall time from QEMU's start to the OS's report (written once
# `systemctl is-system-running --wait` returns: multi-user.target reached),
# and the OS's own `systemd-analyze` line (firmware/loader appear only where
# the loader sets LoaderTimeInitUSec/ExecUSec). Figures, no asserts.
# Layouts with a second disk (btrfs-md) get it too; luks-tpm's passphrase
# is typed when its prompt appears (no TPM: each case the same way; the
# time includes the prompt).
#   bench/os-boot.sh [RUNS]        Env: BENCH_CASES (default "stock rom cb"),
#   BENCH_LAYOUT. Needs root (the fixture's one-time build) and make's outputs.
RUNS=${1:-2}
. "$(dirname "$0")/../tests/e2e/lib.sh"
. "$(dirname "$0")/../tests/e2e/rom-lib.sh"
e2e_init bench-os-boot
layout=${BENCH_LAYOUT:-grub-lvm}
CASES=${BENCH_CASES:-stock rom cb}
img=$("$E2E_ROOT/tests/os/build.sh" "$layout") && [ -f "$img" ] || { echo "bench: no fixture $layout"; exit 1; }
rom_build "$T/lboot.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" \
	--cmdline "console=ttyS0,115200 panic=-1 lboot.timeout=0"
disk2=()
[ ! -f "${img%/*}/disk2.img" ] || disk2=(-drive "file=${img%/*}/disk2.img,format=raw,if=virtio,snapshot=on")
declare -A sum
for run in $(seq "$RUNS"); do
	for c in $CASES; do
		d="file=$img,format=raw,if=virtio,snapshot=on"
		case $c in
		stock) E2E_FIRMWARE=/usr/share/OVMF/OVMF_CODE_4M.fd E2E_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd \
			qemu_start -drive "$d" "${disk2[@]}" ;;
		rom) E2E_FIRMWARE=$T/lboot.rom E2E_VARS=$T/lboot-vars.fd qemu_start -drive "$d" "${disk2[@]}" ;;
		cb) E2E_COREBOOT=1 qemu_start -drive "$d" "${disk2[@]}" ;;
		*) echo "bench: unknown case $c"; exit 2 ;;
		esac
		if [ "$layout" = luks-tpm ]; then
			expect 'Please enter passphrase for disk' 900 && sleep 1 && send 'lboot-fixture-passphrase\r'
		fi
		if expect 'OS-REPORT: done' 900; then
			t=$(elapsed)
			a=$(tr -d '\r' <"$T/serial.log" | sed -n 's/^.*OS-REPORT: analyze=//p' | head -n1)
			printf '%-6s run %d: %6.2f s to the OS up | %s\n' "$c" "$run" "$t" "$a"
			sum[$c]=$(echo "${sum[$c]:-0} $t" | awk '{print $1 + $2}')
		else
			printf '%-6s run %d: the OS did not come up (serial log: %s)\n' "$c" "$run" "$T/serial.log"
		fi
		cp "$T/serial.log" "$T/serial-$c-$run.log"
		qemu_wait 60 || true
		qemu_stop
	done
done
echo "means over $RUNS runs (QEMU start to the OS up):"
for c in $CASES; do
	[ -n "${sum[$c]:-}" ] && printf '  %-6s %6.2f s\n' "$c" "$(echo "${sum[$c]} $RUNS" | awk '{print $1 / $2}')"
done
if [ -n "${sum[stock]:-}" ]; then
	for c in $CASES; do
		[ "$c" != stock ] && [ -n "${sum[$c]:-}" ] &&
			printf '  %s / stock: %.2fx\n' "$c" "$(echo "${sum[$c]} ${sum[stock]}" | awk '{print $1 / $2}')"
	done
fi
exit 0
