#!/bin/bash
# Boot-time benchmark under QEMU TCG (q35, 1 GiB, 1 vCPU): time from QEMU's
# start to the target OS's first output ("lboot-target: TARGET-OS-UP", the
# target kernel runs with `quiet`) for
#   (a) the LinuxBoot ROM: OVMF_CODE_4M.fd pruned + lbootdxe + the firmware
#       kernel/initramfs from flash, lboot kexecs the target from a BLS entry;
#   (b) stock OVMF_CODE_4M.fd: BdsDxe boots the disk's removable-media path
#       EFI/BOOT/BOOTX64.EFI, a GRUB image (grub-mkstandalone) that loads the
#       same target kernel + initrd from the same ESP.
# Also the number and total size of DXE drivers in both images.
#   bench/rom-boot.sh [RUNS]     (default 2 runs each; figures, no asserts)
# Needs: make out/lboot out/bzImage out/initramfs.cpio.xz build/dxe/lbootdxe.efi,
# grub-efi-amd64-bin, mtools, dosfstools, ovmf, qemu-system-x86.
RUNS=${1:-2}
. "$(dirname "$0")/../tests/e2e/lib.sh"
. "$(dirname "$0")/../tests/e2e/rom-lib.sh"
e2e_init bench-rom-boot
STOCK=/usr/share/OVMF/OVMF_CODE_4M.fd
STOCK_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
command -v grub-mkstandalone >/dev/null && [ -d /usr/lib/grub/x86_64-efi ] ||
	{ echo "bench: needs grub-efi-amd64-bin (grub-mkstandalone)"; exit 1; }

# --- images ----------------------------------------------------------------------
rom_build "$T/lboot.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" \
	--cmdline "$ROM_CMDLINE_TEST"

# One ESP for both: a BLS entry (lboot) and EFI/BOOT/BOOTX64.EFI (GRUB), the
# same target kernel and initrd, the same command line.
target_os
mkdir -p "$T/esp/loader/entries" "$T/esp/os" "$T/esp/EFI/BOOT"
cp "$TARGET_KERNEL" "$T/esp/os/vmlinuz"
cp "$TARGET_INITRD" "$T/esp/os/initrd.img"
printf 'default bench\ntimeout 0\n' >"$T/esp/loader/loader.conf"
cat >"$T/esp/loader/entries/bench.conf" <<'EOC'
title   bench target OS
linux   /os/vmlinuz
initrd  /os/initrd.img
options console=ttyS0,115200 quiet
EOC
cat >"$T/grub.cfg" <<'EOC'
set timeout=0
search --no-floppy --file --set=root /os/vmlinuz
linux /os/vmlinuz console=ttyS0,115200 quiet
initrd /os/initrd.img
boot
EOC
grub-mkstandalone -O x86_64-efi -o "$T/esp/EFI/BOOT/BOOTX64.EFI" \
	--modules="part_gpt fat linux search search_fs_file normal" \
	--locales= --themes= --fonts= "boot/grub/grub.cfg=$T/grub.cfg" ||
	{ echo "bench: grub-mkstandalone failed"; exit 1; }
mkpart_vfat "$T/esp.img" 48 "$T/esp" ESP 20260B0B
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp"

# --- DXE drivers in each image (lboot uefi ls) ------------------------------------------
dxe_stats() { # IMAGE -> "N DXE drivers, B bytes"
	local n=0 s=0 sz
	for sz in $("$OUT/lboot" uefi ls "$1" | awk '$1 == "file" && $2 == "DRIVER" { print $4 }'); do
		n=$((n + 1)); s=$((s + sz))
	done
	echo "$n DXE drivers, $s bytes (FFS files, uncompressed)"
}
echo "# DXE drivers: ours  $(dxe_stats "$T/lboot.rom")"
echo "# DXE drivers: stock $(dxe_stats "$STOCK")"
grep -E '^(added|compressed|flash|payload)' "$T/lboot.rom.log" | sed 's/^/# rom: /'

# --- boots ---------------------------------------------------------------------------
# Milestones on the way (seconds since QEMU started, polled every 0.2 s).
ROM_MARKS=('lbootdxe: BDS entry:dxe-done' 'lbootdxe: starting the kernel:linux-start'
	   'Run /init:lboot-init' 'lboot: kexec:kexec-load' 'kexec_core: Starting new kernel:kexec-jump')
STOCK_MARKS=('BdsDxe: (loading|starting):bds-boot' 'Welcome to GRUB|Linux version|EFI stub:grub-or-kernel')
boot_once() { # LABEL FIRMWARE VARS MARKS... -> prints "S (milestones)" or FAIL
	local label=$1 fw=$2 vars=$3 m marks=""; shift 3
	E2E_FIRMWARE=$fw E2E_VARS=$vars qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
	for m in "$@"; do
		expect "${m%:*}" 300 >/dev/null && marks+=" ${m##*:}=$(elapsed)"
	done
	if expect 'lboot-target: TARGET-OS-UP' 300 >/dev/null; then
		printf '%s (%s )' "$(elapsed)" "$marks"
	else
		printf 'FAIL (%s )' "$marks"
	fi
	qemu_stop
	cp "$T/serial.log" "$T/serial-$1.log" 2>/dev/null
}

declare -A sum cnt
for i in $(seq 1 "$RUNS"); do
	for kind in rom stock; do
		if [ $kind = rom ]; then
			line=$(boot_once "rom-$i" "$T/lboot.rom" "$T/lboot-vars.fd" "${ROM_MARKS[@]}")
		else
			line=$(boot_once "stock-$i" "$STOCK" "$STOCK_VARS" "${STOCK_MARKS[@]}")
		fi
		echo "# run $i $kind: $line s to the target OS's first output"
		s=${line%% *}
		if [ "$s" != FAIL ]; then
			sum[$kind]=$(echo "${sum[$kind]:-0} $s" | awk '{print $1 + $2}')
			cnt[$kind]=$(( ${cnt[$kind]:-0} + 1 ))
		fi
	done
done
for kind in rom stock; do
	if [ "${cnt[$kind]:-0}" -gt 0 ]; then
		echo "$kind: mean $(echo "${sum[$kind]} ${cnt[$kind]}" | awk '{printf "%.2f", $1 / $2}') s over ${cnt[$kind]} runs (QEMU start -> TARGET-OS-UP)"
	else
		echo "$kind: no successful boot"
	fi
done
echo "ours: $(dxe_stats "$T/lboot.rom") + firmware kernel $(stat -c %s "$OUT/bzImage") B + initramfs $(stat -c %s "$OUT/initramfs.cpio.xz") B in flash"
echo "stock: $(dxe_stats "$STOCK")"
exit 0
