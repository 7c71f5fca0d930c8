#!/bin/bash
# Boot-time benchmark under QEMU TCG (q35, 1 GiB, 1 vCPU): time from QEMU's
# start to the target OS's first output ("lboot-target: TARGET-OS-UP", the
# target kernel runs with `quiet`) for
#   (a) rom:   the LinuxBoot ROM: OVMF_CODE_4M.fd pruned + lbootdxe + the
#              firmware kernel/initramfs from flash, lboot kexecs the target
#              from a BLS entry (the ROM's command line: ROM_CMDLINE below);
#   (b) stock: stock OVMF_CODE_4M.fd: BdsDxe boots the disk's removable-media
#              path EFI/BOOT/BOOTX64.EFI, a GRUB image (grub-mkstandalone)
#              that loads the same target kernel + initrd from the same ESP.
# Every serial line is stamped with the time since QEMU was started (a small
# python3 reader on QEMU's stdio serial), and the time of each phase marker is
# printed per run, then the mean per marker (phase table). Also the number
# and total size of DXE drivers in both images.
#   bench/rom-boot.sh [RUNS]     (default 2 runs each; figures, no asserts)
# Env: ROM_CMDLINE (the ROM's kernel command line), BENCH_KINDS ("rom stock"),
# BENCH_ROM=path.rom (bench that ROM and its path-vars.fd instead of building one).
# Stamped serial logs: build/e2e/bench-rom-boot/serial-KIND-N.log
# Needs: make out/lboot out/bzImage out/initramfs.cpio.xz build/dxe/lbootdxe.efi,
# python3, grub-efi-amd64-bin, mtools, dosfstools, ovmf, qemu-system-x86.
RUNS=${1:-2}
. "$(dirname "$0")/../tests/e2e/lib.sh"
. "$(dirname "$0")/../tests/e2e/rom-lib.sh"
e2e_init bench-rom-boot
STOCK=/usr/share/OVMF/OVMF_CODE_4M.fd
STOCK_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
ROM_CMDLINE=${ROM_CMDLINE:-console=ttyS0,115200 panic=-1 lboot.timeout=0 quiet}
KINDS=${BENCH_KINDS:-rom stock}
command -v python3 >/dev/null || { echo "bench: needs python3"; exit 1; }
command -v grub-mkstandalone >/dev/null && [ -d /usr/lib/grub/x86_64-efi ] ||
	{ echo "bench: needs grub-efi-amd64-bin (grub-mkstandalone)"; exit 1; }

# --- images ----------------------------------------------------------------------
if [ -n "${BENCH_ROM:-}" ]; then # a ROM built elsewhere (e.g. by an older lboot)
	cp "$BENCH_ROM" "$T/lboot.rom" && cp "${BENCH_ROM%.rom}-vars.fd" "$T/lboot-vars.fd" ||
		{ echo "bench: BENCH_ROM=$BENCH_ROM: needs it and its -vars.fd"; exit 1; }
	: >"$T/lboot.rom.log"
	ROM_CMDLINE="(as stored in $BENCH_ROM)"
else
	rom_build "$T/lboot.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" \
		--cmdline "$ROM_CMDLINE"
fi

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
echo bench-grub: config
search --no-floppy --file --set=root /os/vmlinuz
linux /os/vmlinuz console=ttyS0,115200 quiet
echo bench-grub: kernel loaded
initrd /os/initrd.img
echo bench-grub: booting
boot
EOC
grub-mkstandalone -O x86_64-efi -o "$T/esp/EFI/BOOT/BOOTX64.EFI" \
	--modules="part_gpt fat linux search search_fs_file normal echo" \
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
grep -E '^(added|compressed|flash|layout|payload|kernel|initr)' "$T/lboot.rom.log" | sed 's/^/# rom: /'
echo "# rom command line: $ROM_CMDLINE"

# --- the stamping serial reader ----------------------------------------------------------
# stamp.py TIMEOUT LOG END_LABEL LABEL=REGEX... -- QEMU ARGS...: runs QEMU
# with its serial on stdout, writes every line prefixed with the seconds since
# QEMU's start to LOG, prints "LABEL=S:C" (or LABEL=-) for the first match of
# each REGEX (S: wall seconds since QEMU's start, C: CPU seconds QEMU used by
# then: less sensitive to a loaded host) and stops QEMU when END_LABEL
# matched or at TIMEOUT.
cat >"$T/stamp.py" <<'EOP'
import os, re, subprocess, sys, time, select
i = sys.argv.index('--')
timeout, logpath, end = float(sys.argv[1]), sys.argv[2], sys.argv[3]
marks = []
for a in sys.argv[4:i]:
    k, v = a.split('=', 1)
    marks.append((k, re.compile(v.encode())))
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[i + 1:], stdin=subprocess.DEVNULL,
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
tick = os.sysconf('SC_CLK_TCK')
def cpu():  # QEMU's user + system CPU seconds so far (all its threads)
    try:
        with open('/proc/%d/stat' % p.pid) as f:
            st = f.read().rsplit(')', 1)[1].split()
        return (int(st[11]) + int(st[12])) / tick
    except (OSError, IndexError, ValueError):
        return -1.0
seen, cur, lines, fd = {}, b'', [], p.stdout.fileno()
while end not in seen:
    left = timeout - (time.monotonic() - t0)
    if left <= 0:
        break
    r, _, _ = select.select([fd], [], [], min(left, 0.5))
    if not r:
        if p.poll() is not None:
            break
        continue
    data = os.read(fd, 65536)
    now = time.monotonic() - t0
    if not data:
        break
    for b in re.split(rb'(\r|\n)', data):
        if b in (b'\r', b'\n'):
            if cur:
                lines.append(b'%8.3f %s' % (now, cur))
            cur = b''
            continue
        cur += b
        for k, rx in marks:
            if k not in seen and rx.search(cur):
                seen[k] = (now, cpu())
if cur:
    lines.append(b'%8.3f %s' % (time.monotonic() - t0, cur))
p.kill()
p.wait()
with open(logpath, 'wb') as f:
    f.write(b'\n'.join(lines) + b'\n')
print(' '.join('%s=%.2f:%.2f' % (k, *seen[k]) if k in seen else '%s=-' % k for k, _ in marks))
EOP

# Phase markers, in boot order. The ROM's kernel lines (linux, init,
# kexec-jump) appear only without `quiet` in ROM_CMDLINE.
ROM_MARKS=('first=.' 'dxe-drv=lbootdxe: driver loaded' 'bds=lbootdxe: BDS entry'
	   'ready2boot=lbootdxe: signalled ReadyToBoot' 'start-kern=lbootdxe: starting the kernel'
	   'linux=^Linux version' 'init=^Run /init' 'lboot=lboot [0-9.]+ starting'
	   'blkdev=lboot: (disk|found) ' 'config=lboot: config ' 'kexec=lboot: kexec '
	   'kexec-jump=^kexec_core: Starting new kernel' 'target=lboot-target: TARGET-OS-UP')
STOCK_MARKS=('first=.' 'bds-boot=BdsDxe: loading' 'bds-start=BdsDxe: starting'
	     'grub-cfg=bench-grub: config' 'grub-kern=bench-grub: kernel loaded'
	     'grub-boot=bench-grub: booting' 'target=lboot-target: TARGET-OS-UP')
boot_once() { # LOG FIRMWARE VARS MARKS...
	local log=$1 fw=$2 vars=$3; shift 3
	cp "$vars" "$T/vars.fd"
	python3 "$T/stamp.py" 300 "$log" target "$@" -- \
		"$QEMU" -accel tcg -m 1024 -smp 1 -display none -no-reboot -monitor none \
		-serial stdio -nic none -machine q35,max-fw-size=16M \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$fw" \
		-drive "if=pflash,format=raw,unit=1,file=$T/vars.fd" \
		-drive "file=$T/disk.img,format=raw,if=virtio"
}

declare -A sum csum cnt
for i in $(seq 1 "$RUNS"); do
	for kind in $KINDS; do
		if [ "$kind" = rom ]; then
			line=$(boot_once "$T/serial-rom-$i.log" "$T/lboot.rom" "$T/lboot-vars.fd" "${ROM_MARKS[@]}")
		else
			line=$(boot_once "$T/serial-stock-$i.log" "$STOCK" "$STOCK_VARS" "${STOCK_MARKS[@]}")
		fi
		echo "# run $i $kind: $line"
		for m in $line; do
			k=${m%%=*} v=${m#*=}
			[ "$v" = - ] && continue
			sum[$kind.$k]=$(echo "${sum[$kind.$k]:-0} ${v%%:*}" | awk '{print $1 + $2}')
			csum[$kind.$k]=$(echo "${csum[$kind.$k]:-0} ${v#*:}" | awk '{print $1 + $2}')
			cnt[$kind.$k]=$(( ${cnt[$kind.$k]:-0} + 1 ))
		done
	done
done

# Phase table: mean time of each marker since QEMU's start, and the time
# since the previous marker that was seen.
echo "# phase table: mean wall s since QEMU start (+ since the previous marker seen),"
echo "# mean QEMU CPU s by then (+ delta), over the runs that reached the marker"
printf '%-6s %-11s %7s %7s %7s %7s  %s\n' kind marker wall +wall cpu +cpu 'runs /regex/'
for kind in $KINDS; do
	if [ "$kind" = rom ]; then marks=("${ROM_MARKS[@]}"); else marks=("${STOCK_MARKS[@]}"); fi
	prev=0 cprev=0
	for m in "${marks[@]}"; do
		k=${m%%=*}
		n=${cnt[$kind.$k]:-0}
		if [ "$n" -gt 0 ]; then
			mean=$(echo "${sum[$kind.$k]} $n" | awk '{printf "%.2f", $1 / $2}')
			cmean=$(echo "${csum[$kind.$k]} $n" | awk '{printf "%.2f", $1 / $2}')
			printf '%-6s %-11s %7s %+7.2f %7s %+7.2f  %d/%d /%s/\n' "$kind" "$k" "$mean" \
				"$(echo "$mean $prev" | awk '{print $1 - $2}')" "$cmean" \
				"$(echo "$cmean $cprev" | awk '{print $1 - $2}')" "$n" "$RUNS" "${m#*=}"
			prev=$mean cprev=$cmean
		else
			printf '%-6s %-11s %7s %7s %7s %7s  0/%d /%s/\n' "$kind" "$k" - - - - "$RUNS" "${m#*=}"
		fi
	done
done
for kind in $KINDS; do
	n=${cnt[$kind.target]:-0}
	if [ "$n" -gt 0 ]; then
		echo "$kind: mean $(echo "${sum[$kind.target]} $n" | awk '{printf "%.2f", $1 / $2}') s over $n runs (QEMU start -> TARGET-OS-UP)"
	else
		echo "$kind: no successful boot"
	fi
done
if [ "${cnt[rom.target]:-0}" -gt 0 ] && [ "${cnt[stock.target]:-0}" -gt 0 ]; then
	echo "rom/stock: $(echo "${sum[rom.target]} ${cnt[rom.target]} ${sum[stock.target]} ${cnt[stock.target]}" |
		awk '{printf "%.2f", ($1 / $2) / ($3 / $4)}') (target: <= 0.60)"
fi
echo "ours: $(dxe_stats "$T/lboot.rom") + firmware kernel $(stat -c %s "$OUT/bzImage") B + initramfs $(stat -c %s "$OUT/initramfs.cpio.xz") B in flash"
echo "stock: $(dxe_stats "$STOCK")"
exit 0
