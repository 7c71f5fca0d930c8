#!/bin/bash
# Benchmark for issue 2: initramfs size and time from /init's start to the
# kexec call, lboot against the minimal thing a user could script instead
# (a BusyBox shell /init with kexec-tools' `kexec -s`), in one run, on the
# same disk and the same target entry. Prints figures; asserts nothing.
#   bench/boot-time.sh [RUNS]      (needs `make` first)
# Times are read inside the guest from /proc/uptime (both inits print it),
# plus the wall time from QEMU start to the target OS's first line.
set -e
cd "$(dirname "$0")/.."
. tests/e2e/lib.sh
runs=${1:-3}
e2e_init bench-boot
trap 'qemu_stop' EXIT
target_os
mkdir -p "$T/root/boot/loader/entries"
cp "$TARGET_KERNEL" "$T/root/boot/vmlinuz"
cp "$TARGET_INITRD" "$T/root/boot/initrd.img"
cat >"$T/root/boot/loader/entries/bench.conf" <<'EOC'
title   bench
linux   /boot/vmlinuz
initrd  /boot/initrd.img
options console=ttyS0,115200 bench=1
EOC
mkpart_ext4 "$T/p1.img" 48 "$T/root" benchroot
mkdisk_gpt "$T/disk.img" "$T/p1.img"
# the BusyBox alternative
mkdir -p "$T/bb"
cat >"$T/bb/init" <<'EOS'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
echo "bbinit: start $(/bin/busybox cut -d' ' -f1 /proc/uptime)"
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
while [ ! -b /dev/vda1 ]; do /bin/busybox usleep 20000; done
/bin/busybox mount -o ro -t ext4 /dev/vda1 /mnt
echo "bbinit: mounted $(/bin/busybox cut -d' ' -f1 /proc/uptime)"
/sbin/kexec -s -l /mnt/boot/vmlinuz --initrd=/mnt/boot/initrd.img --command-line="console=ttyS0,115200 bench=1"
echo "bbinit: kexec $(/bin/busybox cut -d' ' -f1 /proc/uptime)"
/sbin/kexec -e
EOS
chmod +x "$T/bb/init"
kexec_tools_files || { echo "bench: needs kexec-tools"; exit 1; }
files=("${KEXEC_FILES[@]}")
out/lboot mkinitramfs -o "$T/bb.cpio.xz" --busybox --init "$T/bb/init" "${files[@]}" 2>/dev/null
out/lboot mkinitramfs -o "$T/lboot.cpio" --compress none --init out/lboot-target 2>/dev/null
out/lboot mkinitramfs -o "$T/bb.cpio" --compress none --busybox --init "$T/bb/init" "${files[@]}" 2>/dev/null
out/lboot mkinitramfs -o "$T/lboot-bb.cpio.xz" --busybox --init out/lboot-target 2>/dev/null

size() { stat -c %s "$1"; }
printf '\n%-34s %12s %12s\n' "initramfs" "cpio bytes" "xz bytes"
printf '%-34s %12d %12d\n' "lboot (no BusyBox)" "$(size "$T/lboot.cpio")" "$(size out/initramfs.cpio.xz)"
printf '%-34s %12s %12d\n' "lboot + BusyBox" "-" "$(size "$T/lboot-bb.cpio.xz")"
printf '%-34s %12d %12d\n' "BusyBox sh + kexec-tools" "$(size "$T/bb.cpio")" "$(size "$T/bb.cpio.xz")"

one() { # initrd startre kexecre
	E2E_INITRD=$1 E2E_APPEND="lboot.timeout=0 ${LBOOT_BENCH_APPEND:-}" qemu_start -drive "file=$T/disk.img,format=raw,if=virtio,snapshot=on"
	if ! expect 'lboot-target: TARGET-OS-UP' 240; then qemu_stop; echo "- - -"; return; fi
	local wall; wall=$(elapsed)
	qemu_stop
	local log; log=$(tr -d '\r' <"$T/serial.log")
	local s k
	s=$(grep -Eo "$2" <<<"$log" | head -1 | grep -Eo '[0-9]+\.[0-9]+$')
	k=$(grep -Eo "$3" <<<"$log" | head -1 | grep -Eo '[0-9]+\.[0-9]+$')
	echo "$s $k $wall"
}
printf '\n%-28s %10s %10s %12s %14s\n' "run" "init@s" "kexec@s" "init->kexec" "qemu->target"
for i in $(seq "$runs"); do
	read -r s k w < <(one out/initramfs.cpio.xz 'lboot [^ ]+ starting \(uptime [0-9.]+' 'handing over at uptime [0-9.]+')
	printf '%-28s %10s %10s %12s %14s\n' "lboot #$i" "$s" "$k" "$(awk "BEGIN{printf \"%.2f\", $k-$s}" 2>/dev/null)" "$w"
	read -r s k w < <(one "$T/bb.cpio.xz" 'bbinit: start [0-9.]+' 'bbinit: kexec [0-9.]+')
	printf '%-28s %10s %10s %12s %14s\n' "busybox+kexec-tools #$i" "$s" "$k" "$(awk "BEGIN{printf \"%.2f\", $k-$s}" 2>/dev/null)" "$w"
done
