#!/bin/bash
# arm64 boot-time benchmark under QEMU TCG (virt, cortex-a57, 1 GiB, 1 vCPU):
# time from QEMU's start to the target OS's first output
# ("lboot-target: TARGET-OS-UP"; the target kernel runs with `quiet`), per
# phase, for two kinds of boot of the same target (Debian's arm64 kernel and
# the test /init) from the same disk, in the same run, alternating:
#   rom:   the arm64 LinuxBoot ROM (out/lboot-arm64.rom's recipe: AAVMF pruned
#          by rom/keep-aavmf.txt, lbootdxe, lboot's arm64 firmware kernel and
#          initramfs in flash); lboot kexecs the disk's BLS entry;
#   stock: Debian's AAVMF_CODE.fd as shipped; its BdsDxe boots the disk's
#          removable-media path EFI/BOOT/BOOTAA64.EFI, a GRUB image
#          (grub-mkstandalone from Debian's grub-efi-arm64-bin) that loads
#          the same kernel and initrd from the same ESP.
# Both with a menu timeout of 0: lboot.timeout=0 and loader.conf `timeout
# 0`; AAVMF's boot manager wait set to 0 the way QEMU tells it
# (`-boot menu=on,splash-time=0`: fw_cfg etc/boot-menu-wait) and GRUB's
# `set timeout=0`. Each run starts from a fresh copy of its variable store.
#   bench/arm64-boot.sh [RUNS]     (default 3 runs each; figures, no asserts)
# Stamped serial logs: build/e2e/bench-arm64-boot/serial-CASE-N.log
# Needs: the arm64 build (make out/lboot-arm64.rom), python3, mtools,
# dosfstools, qemu-system-arm, qemu-efi-aarch64, grub-common.
RUNS=${1:-3}
. "$(dirname "$0")/../tests/e2e/lib.sh"
E2E_ARCH=arm64
e2e_init bench-arm64-boot
STAMP=$E2E_ROOT/bench/stamp.py
STOCK=/usr/share/AAVMF/AAVMF_CODE.fd
STOCK_VARS=/usr/share/AAVMF/AAVMF_VARS.fd
ROM_CMDLINE="console=ttyAMA0,115200 panic=-1 lboot.timeout=0 quiet"
TARGET_CMDLINE="console=ttyAMA0,115200 quiet"
for c in python3 qemu-system-aarch64 grub-mkstandalone mcopy mkfs.vfat; do
	command -v $c >/dev/null || { echo "bench: needs $c"; exit 1; }
done
(cd "$E2E_ROOT" && make -s out/lboot-arm64.rom) >"$T/build.log" 2>&1 ||
	{ tail -20 "$T/build.log"; echo "bench: make out/lboot-arm64.rom failed"; exit 1; }
"$OUT/lboot" mkrom --arch arm64 --keep "$E2E_ROOT/rom/keep-aavmf.txt" \
	--kernel "$E2E_ROOT/build/arm64/Image" --initrd "$E2E_ROOT/build/arm64/initramfs.cpio.xz" \
	--cmdline "$ROM_CMDLINE" --vars-out "$T/rom-vars.fd" -o "$T/rom.rom" >"$T/rom.log" 2>&1 ||
	{ cat "$T/rom.log"; echo "bench: mkrom failed"; exit 1; }
grub=$(cd "$E2E_ROOT" && scripts/arm64-grub.sh) || { echo "bench: scripts/arm64-grub.sh failed"; exit 1; }

# one ESP: a BLS entry (lboot) and EFI/BOOT/BOOTAA64.EFI (GRUB), the same
# kernel, initrd and command line
target_os
d=$T/esp
mkdir -p "$d/loader/entries" "$d/os" "$d/EFI/BOOT"
cp "$TARGET_KERNEL" "$d/os/vmlinuz"
cp "$TARGET_INITRD" "$d/os/initrd.img"
printf 'default bench\ntimeout 0\n' >"$d/loader/loader.conf"
cat >"$d/loader/entries/bench.conf" <<EOC
title   bench target OS
linux   /os/vmlinuz
initrd  /os/initrd.img
options $TARGET_CMDLINE
EOC
cat >"$T/grub.cfg" <<EOC
set timeout=0
echo bench-grub: config
search --no-floppy --file --set=root /os/vmlinuz
linux /os/vmlinuz $TARGET_CMDLINE
echo bench-grub: kernel loaded
initrd /os/initrd.img
echo bench-grub: booting
boot
EOC
grub-mkstandalone -O arm64-efi -d "$grub/arm64-efi" -o "$d/EFI/BOOT/BOOTAA64.EFI" \
	--modules="part_gpt fat linux search search_fs_file normal echo" \
	--locales= --themes= --fonts= "boot/grub/grub.cfg=$T/grub.cfg" ||
	{ echo "bench: grub-mkstandalone -O arm64-efi failed"; exit 1; }
mkpart_vfat "$T/esp.img" 64 "$d" ESP 20260B0B
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp"
echo "# target: $(basename "$(dirname "$TARGET_KERNEL")")/Image ($(stat -c %s "$TARGET_KERNEL") bytes), command line: $TARGET_CMDLINE"
echo "# rom: $(grep -E '^(compressed|payload)' "$T/rom.log" | tr '\n' ' ')"
echo "# stock: $STOCK, GRUB $(cut -d' ' -f3 "$grub/package.txt") (arm64-efi)"

ROM_MARKS=('first=.' 'bds=lbootdxe: BDS entry' 'kstart=lbootdxe: starting the kernel'
	   'lboot=lboot: lboot [^ ]+ starting' 'handover=lboot: loaded \(kexec_file_load\); handing over'
	   'target=lboot-target: TARGET-OS-UP' 'tup=lboot-target: uptime [0-9.]+ s')
STOCK_MARKS=('first=.' 'bds=BdsDxe: starting' 'grub=bench-grub: config' 'handover=bench-grub: booting'
	     'target=lboot-target: TARGET-OS-UP' 'tup=lboot-target: uptime [0-9.]+ s')
run() { # CASE N
	local log=$T/serial-$1-$2.log fw vars
	if [ "$1" = rom ]; then fw=$T/rom.rom; vars=$T/rom-vars.fd; set -- "$@" "${ROM_MARKS[@]}"
	else fw=$STOCK; vars=$STOCK_VARS; set -- "$@" "${STOCK_MARKS[@]}"; fi
	cp "$vars" "$T/run-vars.fd"
	local c=$1 n=$2; shift 2
	echo "$c $n $(python3 "$STAMP" 300 "$log" tup "$@" -- \
		qemu-system-aarch64 -accel tcg -M virt -cpu cortex-a57 -m 1024 -smp 1 -nographic -no-reboot \
		-monitor none -serial stdio -nic none -boot menu=on,splash-time=0 \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$fw" \
		-drive "if=pflash,format=raw,unit=1,file=$T/run-vars.fd" \
		-drive "file=$T/disk.img,format=raw,if=virtio,snapshot=on")"
}
for i in $(seq 1 "$RUNS"); do
	run rom "$i"; run stock "$i"
done | tee "$T/runs.txt"
python3 - "$T/runs.txt" <<'EOP'
import sys, collections
runs = collections.defaultdict(list)
order = {'rom': ['bds', 'kstart', 'lboot', 'handover', 'target'],
         'stock': ['bds', 'grub', 'handover', 'target']}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 3:
        continue
    m = {}
    for kv in f[2:]:
        k, v = kv.split('=', 1)
        if v != '-':
            m[k] = float(v.split(':')[0])
    runs[f[0]].append(m)
def mean(case, k):
    v = [r[k] for r in runs[case] if k in r]
    return sum(v) / len(v) if v else None
print('# mean wall seconds since QEMU start (runs that reached the marker)')
for case in ('rom', 'stock'):
    print('%-6s %s' % (case, '  '.join('%s %.2f' % (k, mean(case, k)) for k in order[case]
                                        if mean(case, k) is not None)))
r, s = mean('rom', 'target'), mean('stock', 'target')
rh, sh = mean('rom', 'handover'), mean('stock', 'handover')
if r and s:
    print('to the target\'s first line: rom %.2f s, stock AAVMF + GRUB %.2f s: %.2fx' % (r, s, r / s))
if rh and sh:
    print('at the hand-over (lboot\'s kexec, GRUB\'s boot): rom %.2f s, stock %.2f s: %.2fx' % (rh, sh, rh / sh))
n = {c: sum(1 for x in runs[c] if 'target' in x) for c in ('rom', 'stock')}
print('runs reaching the target: rom %d/%d, stock %d/%d' % (n['rom'], len(runs['rom']), n['stock'], len(runs['stock'])))
EOP
E2E_FAILED=0
