#!/bin/bash
# Boot-time benchmark under QEMU TCG (q35, 1 GiB, 1 vCPU): time from QEMU's
# start to the target OS's first output ("lboot-target: TARGET-OS-UP", the
# target kernel runs with `quiet`), per phase, for these kinds of boot:
#   rom:   the LinuxBoot ROM: OVMF_CODE_4M.fd pruned + lbootdxe + the
#          firmware kernel/initramfs from flash, lboot kexecs the target
#          from a BLS entry (the ROM's command line: ROM_CMDLINE below);
#   stock: stock OVMF_CODE_4M.fd: BdsDxe boots the disk's removable-media
#          path EFI/BOOT/BOOTX64.EFI, a GRUB image (grub-mkstandalone)
#          that loads the same target kernel + initrd from the same ESP;
#   cb:    coreboot for q35 (out/lboot-coreboot.rom's recipe: Debian's
#          coreboot, cached) with the same firmware kernel/initramfs as its
#          Linux payload and the ROM's command line, booted as the BIOS;
#          no UEFI at all (docs/coreboot.md);
#   bb:    the same ROM with a BusyBox sh /init and Debian's kexec-tools
#          (`kexec -l`, then `kexec -e`) instead of lboot: the user-space
#          peer (bench/boot-time.sh has it for -kernel boots).
# and these cases (BENCH_CASES, default all): KIND for a virtio-blk disk
# and a timeout of 0; KIND-nvme and KIND-ahci for the same disk on NVMe and
# on q35's AHCI; KIND-menu with each one's shipped default timeout (lboot:
# no lboot.timeout, no timeout in loader.conf; GRUB: Debian's
# GRUB_TIMEOUT=5 with a menuentry), so the menu's cost is visible.
# Every serial line is stamped with the time since QEMU was started (a small
# python3 reader on QEMU's stdio serial), and the time of each phase marker is
# printed per run, then the mean per marker (phase table), the phases, the
# ratios rom/stock (to the target's first line; at the hand-over: lboot's
# last line before reboot(KEXEC) against GRUB's `boot`), and a timeline
# (build/e2e/bench-rom-boot/timeline.svg: one bar per run). Also the number
# and total size of DXE drivers in both images. Every run starts from a
# fresh copy of its variable store (a first boot for both firmwares).
#   bench/rom-boot.sh [RUNS]     (default 2 runs each; figures, no asserts)
# Env: ROM_CMDLINE (the ROM's kernel command line), BENCH_CASES,
# BENCH_ROM=path.rom (bench that ROM and its path-vars.fd instead of building one),
# BENCH_ROM2="a.rom [b.rom...]" (cases rom2, rom3...: more ROMs, e.g. the ones
# before a change, booted like rom in the same rounds: A/B at the same load),
# TARGET_CMDLINE (the target's, for every loader; default
# "console=ttyS0,115200 quiet"; without quiet and with
# earlyprintk=serial,ttyS0,115200 its decompressor's lines become markers).
# Stamped serial logs: build/e2e/bench-rom-boot/serial-CASE-N.log
# Needs: make out/lboot out/bzImage out/initramfs.cpio.xz build/dxe/lbootdxe.efi,
# python3, grub-efi-amd64-bin, mtools, dosfstools, ovmf, qemu-system-x86,
# busybox-static, kexec-tools.
RUNS=${1:-2}
. "$(dirname "$0")/../tests/e2e/lib.sh"
. "$(dirname "$0")/../tests/e2e/rom-lib.sh"
e2e_init bench-rom-boot
STOCK=/usr/share/OVMF/OVMF_CODE_4M.fd
STOCK_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
ROM_CMDLINE=${ROM_CMDLINE:-console=ttyS0,115200 panic=-1 lboot.timeout=0 quiet}
ROM_MENU_CMDLINE="console=ttyS0,115200 panic=-1 quiet"
TARGET_CMDLINE=${TARGET_CMDLINE:-console=ttyS0,115200 quiet}
CASES=${BENCH_CASES:-rom stock cb bb rom-nvme stock-nvme rom-ahci stock-ahci rom-menu stock-menu}
command -v python3 >/dev/null || { echo "bench: needs python3"; exit 1; }
command -v grub-mkstandalone >/dev/null && [ -d /usr/lib/grub/x86_64-efi ] ||
	{ echo "bench: needs grub-efi-amd64-bin (grub-mkstandalone)"; exit 1; }

# --- images ----------------------------------------------------------------------
if [ -n "${BENCH_ROM:-}" ]; then # a ROM built elsewhere (e.g. by an older lboot)
	for r in lboot lboot-menu; do
		cp "$BENCH_ROM" "$T/$r.rom" && cp "${BENCH_ROM%.rom}-vars.fd" "$T/$r-vars.fd" ||
			{ echo "bench: BENCH_ROM=$BENCH_ROM: needs it and its -vars.fd"; exit 1; }
	done
	: >"$T/lboot.rom.log"
	ROM_CMDLINE="(as stored in $BENCH_ROM)"
	ROM_MENU_CMDLINE=$ROM_CMDLINE
else
	rom_build "$T/lboot.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" \
		--cmdline "$ROM_CMDLINE"
	case " $CASES " in *" rom-menu "*)
		rom_build "$T/lboot-menu.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" \
			--cmdline "$ROM_MENU_CMDLINE";;
	esac
fi

case " $CASES " in *" cb"*)
	"$E2E_ROOT/coreboot/with-payload.sh" "$T/cb.rom" "$ROM_CMDLINE" \
		"$OUT/initramfs.cpio.xz" "$OUT/bzImage" >"$T/coreboot.log" 2>&1 ||
		{ tail -5 "$T/coreboot.log"; echo "bench: the coreboot ROM (cb cases) did not build"; exit 1; }
	;;
esac

n=2
for r in ${BENCH_ROM2:-}; do
	cp "$r" "$T/lboot$n.rom" && cp "${r%.rom}-vars.fd" "$T/lboot$n-vars.fd" ||
		{ echo "bench: BENCH_ROM2: $r: needs it and its -vars.fd"; exit 1; }
	echo "# rom$n: $r"
	case " $CASES " in *" rom$n "*) ;; *) CASES="$CASES rom$n";; esac
	n=$((n + 1))
done

# The BusyBox peer: sh /init mounts the ESP of whichever disk appears and
# hands the same entry to kexec-tools (dynamic: its libraries come along).
if [ -n "${BENCH_ROM:-}" ] && [[ " $CASES " == *" bb"* ]]; then
	echo "bench: BENCH_ROM: no bb cases (they need their own ROM)"
	CASES=$(echo " $CASES " | sed -E 's/ bb(-[a-z]+)? / /g')
fi
case " $CASES " in *" bb"*)
	kexec_tools_files && [ -x /bin/busybox ] ||
		{ echo "bench: the bb cases need kexec-tools and busybox-static"; exit 1; }
	mkdir -p "$T/bb"
	cat >"$T/bb/init" <<'EOS'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
echo "bbinit: start $(/bin/busybox cut -d' ' -f1 /proc/uptime)"
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
/bin/busybox mkdir -p /mnt
n=0
while :; do
	for d in /dev/vda1 /dev/nvme0n1p1 /dev/sda1; do
		[ -b $d ] && /bin/busybox mount -o ro -t vfat $d /mnt 2>/dev/null && break 2
	done
	n=$((n + 1)); [ $n -gt 500 ] && { echo "bbinit: no ESP"; /bin/busybox poweroff -f; }
	/bin/busybox usleep 20000
done
echo "bbinit: mounted $d $(/bin/busybox cut -d' ' -f1 /proc/uptime)"
/sbin/kexec -l /mnt/os/vmlinuz --initrd=/mnt/os/initrd.img --command-line="$(/bin/busybox cat /cmdline)"
echo "bbinit: kexec $(/bin/busybox cut -d' ' -f1 /proc/uptime)"
/sbin/kexec -e
EOS
	chmod +x "$T/bb/init"
	echo "$TARGET_CMDLINE" >"$T/bb/cmdline"
	"$OUT/lboot" mkinitramfs -o "$T/bb.cpio.xz" --busybox --init "$T/bb/init" "${KEXEC_FILES[@]}" \
		--file "$T/bb/cmdline:/cmdline" \
		>/dev/null || { echo "bench: mkinitramfs (BusyBox peer) failed"; exit 1; }
	rom_build "$T/bb.rom" --kernel "$OUT/bzImage" --initrd "$T/bb.cpio.xz" \
		--cmdline "$ROM_MENU_CMDLINE";;
esac

# Two ESPs: one with a timeout of 0 for both (the main cases), one with each
# loader's shipped default timeout (the -menu cases). Each has a BLS entry
# (lboot) and EFI/BOOT/BOOTX64.EFI (GRUB): the same target kernel and
# initrd, the same command line.
target_os
mkesp() { # NAME MENU(0|1)
	local d=$T/esp-$1
	rm -rf "$d"; mkdir -p "$d/loader/entries" "$d/os" "$d/EFI/BOOT"
	cp "$TARGET_KERNEL" "$d/os/vmlinuz"
	cp "$TARGET_INITRD" "$d/os/initrd.img"
	if [ "$2" = 1 ]; then
		printf 'default bench\n' >"$d/loader/loader.conf"
	else
		printf 'default bench\ntimeout 0\n' >"$d/loader/loader.conf"
	fi
	cat >"$d/loader/entries/bench.conf" <<EOC
title   bench target OS
linux   /os/vmlinuz
initrd  /os/initrd.img
options $TARGET_CMDLINE
EOC
	if [ "$2" = 1 ]; then
		cat >"$T/grub-$1.cfg" <<EOC
set timeout=5
echo bench-grub: config
search --no-floppy --file --set=root /os/vmlinuz
menuentry 'bench target OS' {
	linux /os/vmlinuz $TARGET_CMDLINE
	echo bench-grub: kernel loaded
	initrd /os/initrd.img
	echo bench-grub: booting
}
EOC
	else
		cat >"$T/grub-$1.cfg" <<EOC
set timeout=0
echo bench-grub: config
search --no-floppy --file --set=root /os/vmlinuz
linux /os/vmlinuz $TARGET_CMDLINE
echo bench-grub: kernel loaded
initrd /os/initrd.img
echo bench-grub: booting
boot
EOC
	fi
	grub-mkstandalone -O x86_64-efi -o "$d/EFI/BOOT/BOOTX64.EFI" \
		--modules="part_gpt fat linux search search_fs_file normal echo" \
		--locales= --themes= --fonts= "boot/grub/grub.cfg=$T/grub-$1.cfg" ||
		{ echo "bench: grub-mkstandalone failed"; exit 1; }
	mkpart_vfat "$T/esp-$1.img" 48 "$d" ESP 20260B0B
	mkdisk_gpt "$T/disk-$1.img" "$T/esp-$1.img:esp"
}
mkesp main 0
case " $CASES " in *-menu" "*) mkesp menu 1;; esac

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
echo "# rom command line: $ROM_CMDLINE; rom-menu: $ROM_MENU_CMDLINE"

# --- the stamping serial reader: bench/stamp.py ------------------------------------------
STAMP=$E2E_ROOT/bench/stamp.py

# Phase markers, in boot order. The ROM's kernel lines (linux, init,
# kexec-jump) appear only without `quiet` in ROM_CMDLINE. "handover" is
# lboot's last line before reboot(KEXEC) (the boot log it hands to the OS),
# "kexec" the line after the target was loaded.
ROM_MARKS=('first=.' 'dxe-drv=lbootdxe: driver loaded' 'bds=lbootdxe: BDS entry'
	   'ready2boot=lbootdxe: signalled ReadyToBoot' 'start-kern=lbootdxe: starting the kernel'
	   'linux=^Linux version' 'init=^Run /init' 'lboot=lboot [0-9.]+ starting'
	   'blkdev=lboot: (disk|found) ' 'config=lboot: config ' 'kexec=lboot: kexec '
	   'handover=lboot: boot log: ' 'kexec-jump=kexec_core: Starting new kernel'
	   'decomp=Decompressing Linux' 'kboot=Booting the kernel' 'target=lboot-target: TARGET-OS-UP' 'tup=lboot-target: uptime [0-9.]+ s')
BB_MARKS=('first=.' 'dxe-drv=lbootdxe: driver loaded' 'bds=lbootdxe: BDS entry'
	  'start-kern=lbootdxe: starting the kernel' 'lboot=bbinit: start'
	  'blkdev=bbinit: mounted' 'kexec=bbinit: kexec' 'target=lboot-target: TARGET-OS-UP'
	  'tup=lboot-target: uptime [0-9.]+ s')
CB_MARKS=('first=.' 'romstage=romstage starting' 'ramstage=ramstage starting'
	  'start-kern=Jumping to boot code' 'linux=^Linux version' 'init=^Run /init'
	  'lboot=lboot [0-9.]+ starting' 'blkdev=lboot: (disk|found) ' 'config=lboot: config '
	  'kexec=lboot: kexec ' 'handover=lboot: boot log: ' 'kexec-jump=kexec_core: Starting new kernel'
	  'decomp=Decompressing Linux' 'kboot=Booting the kernel' 'target=lboot-target: TARGET-OS-UP'
	  'tup=lboot-target: uptime [0-9.]+ s')
STOCK_MARKS=('first=.' 'bds-boot=BdsDxe: loading' 'bds-start=BdsDxe: starting'
	     'grub-cfg=bench-grub: config' 'grub-kern=bench-grub: kernel loaded'
	     'grub-boot=bench-grub: booting' 'decomp=Decompressing Linux' 'kboot=Booting the kernel'
	     'target=lboot-target: TARGET-OS-UP'
	     'tup=lboot-target: uptime [0-9.]+ s')
marks_of() { # CASE -> the name of its marks array
	case ${1%%-*} in rom|rom[0-9]*) echo ROM_MARKS;; cb) echo CB_MARKS;; bb) echo BB_MARKS;; *) echo STOCK_MARKS;; esac
}
boot_once() { # CASE LOG MARKS...
	local c=$1 log=$2 fw vars disk=$T/disk-main.img dev
	shift 2
	case $c in
	rom-menu) fw=$T/lboot-menu.rom vars=$T/lboot-menu-vars.fd;;
	rom[0-9]*) fw=$T/l${c%%-*}.rom fw=${fw/lrom/lboot} vars=${fw%.rom}-vars.fd;;
	rom*) fw=$T/lboot.rom vars=$T/lboot-vars.fd;;
	bb*) fw=$T/bb.rom vars=$T/bb-vars.fd;;
	*) fw=$STOCK vars=$STOCK_VARS;;
	esac
	case $c in *-menu) disk=$T/disk-menu.img;; esac
	case $c in
	*-nvme) dev=(-drive "file=$disk,format=raw,if=none,id=d0" -device nvme,drive=d0,serial=bench0);;
	*-ahci) dev=(-drive "file=$disk,format=raw,if=none,id=d0" -device ide-hd,drive=d0,bus=ide.0);;
	*) dev=(-drive "file=$disk,format=raw,if=virtio");;
	esac
	if [ "${c%%-*}" = cb ]; then
		python3 "$STAMP" 300 "$log" tup "$@" -- \
			"$QEMU" -accel tcg -m 1024 -smp 1 -display none -no-reboot -monitor none \
			-serial stdio -nic none -machine q35 -bios "$T/cb.rom" "${dev[@]}"
		return
	fi
	cp "$vars" "$T/vars.fd"
	python3 "$STAMP" 300 "$log" tup "$@" -- \
		"$QEMU" -accel tcg -m 1024 -smp 1 -display none -no-reboot -monitor none \
		-serial stdio -nic none -machine q35,max-fw-size=16M \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$fw" \
		-drive "if=pflash,format=raw,unit=1,file=$T/vars.fd" "${dev[@]}"
}

: >"$T/runs.tsv" # CASE RUN MARKER WALL CPU, for the timeline
declare -A sum csum cnt
for i in $(seq 1 "$RUNS"); do
	for c in $CASES; do
		declare -n mk=$(marks_of "$c")
		line=$(boot_once "$c" "$T/serial-$c-$i.log" "${mk[@]}")
		unset -n mk
		# the target kernel's own uptime at its first line (guest clock)
		tu=$(tr -d '\r' <"$T/serial-$c-$i.log" | sed -n 's/.*lboot-target: uptime \([0-9.]*\) s$/\1/p' | head -n1)
		[ -n "$tu" ] && printf '%s\t%s\ttuptime\t%s\t-1\n' "$c" "$i" "$tu" >>"$T/runs.tsv"
		echo "# run $i $c: $line${tu:+ (target kernel uptime $tu s)}"
		for m in $line; do
			k=${m%%=*} v=${m#*=}
			[ "$v" = - ] && continue
			printf '%s\t%s\t%s\t%s\t%s\n' "$c" "$i" "$k" "${v%%:*}" "${v#*:}" >>"$T/runs.tsv"
			sum[$c.$k]=$(echo "${sum[$c.$k]:-0} ${v%%:*}" | awk '{print $1 + $2}')
			csum[$c.$k]=$(echo "${csum[$c.$k]:-0} ${v#*:}" | awk '{print $1 + $2}')
			cnt[$c.$k]=$(( ${cnt[$c.$k]:-0} + 1 ))
		done
	done
done

# Phase table: mean time of each marker since QEMU's start, and the time
# since the previous marker that was seen.
echo "# phase table: mean wall s since QEMU start (+ since the previous marker seen),"
echo "# mean QEMU CPU s by then (+ delta), over the runs that reached the marker"
printf '%-11s %-11s %7s %7s %7s %7s  %s\n' case marker wall +wall cpu +cpu 'runs /regex/'
for c in $CASES; do
	declare -n marks=$(marks_of "$c")
	prev=0 cprev=0
	for m in "${marks[@]}"; do
		k=${m%%=*}
		n=${cnt[$c.$k]:-0}
		if [ "$n" -gt 0 ]; then
			mean=$(echo "${sum[$c.$k]} $n" | awk '{printf "%.2f", $1 / $2}')
			cmean=$(echo "${csum[$c.$k]} $n" | awk '{printf "%.2f", $1 / $2}')
			printf '%-11s %-11s %7s %+7.2f %7s %+7.2f  %d/%d /%s/\n' "$c" "$k" "$mean" \
				"$(echo "$mean $prev" | awk '{print $1 - $2}')" "$cmean" \
				"$(echo "$cmean $cprev" | awk '{print $1 - $2}')" "$n" "$RUNS" "${m#*=}"
			prev=$mean cprev=$cmean
		else
			printf '%-11s %-11s %7s %7s %7s %7s  0/%d /%s/\n' "$c" "$k" - - - - "$RUNS" "${m#*=}"
		fi
	done
	unset -n marks
done

# Phases, ratios and the timeline (python3 over runs.tsv)
cat >"$T/phases.py" <<'EOP'
import sys, collections, re
tsv, svg = sys.argv[1], sys.argv[2]
cases = sys.argv[3].split()
runs = collections.defaultdict(dict)          # (case, run) -> marker -> (wall, cpu)
for ln in open(tsv):
    c, r, k, w, u = ln.rstrip('\n').split('\t')
    runs[(c, int(r))][k] = (float(w), float(u))
# phase name, start marker, end marker (None: QEMU's start); the first
# marker of a list that a run has is used
PH = {
 'rom':   [('firmware', None, ['start-kern']), ('firmware kernel', ['start-kern'], ['lboot']),
           ('lboot', ['lboot'], ['kexec']), ('hand-over', ['kexec'], ['handover', 'kexec']),
           ('target', ['handover', 'kexec'], ['target'])],
 'cb':    [('firmware', None, ['start-kern']), ('firmware kernel', ['start-kern'], ['lboot']),
           ('lboot', ['lboot'], ['kexec']), ('hand-over', ['kexec'], ['handover', 'kexec']),
           ('target', ['handover', 'kexec'], ['target'])],
 'bb':    [('firmware', None, ['start-kern']), ('firmware kernel', ['start-kern'], ['lboot']),
           ('sh + kexec-tools', ['lboot'], ['kexec']), ('target', ['kexec'], ['target'])],
 'stock': [('firmware', None, ['bds-start']), ('GRUB', ['bds-start'], ['grub-boot']),
           ('target', ['grub-boot'], ['target'])],
}
HANDOVER = {'rom': ['handover', 'kexec'], 'cb': ['handover', 'kexec'], 'bb': ['kexec'], 'stock': ['grub-boot']}
COL = {'firmware': '#8c8c8c', 'firmware kernel': '#4e79a7', 'lboot': '#59a14f',
       'hand-over': '#f28e2b', 'sh + kexec-tools': '#b07aa1', 'GRUB': '#e15759', 'target': '#edc948',
       'jump': '#ff9da7', 'target kernel': '#edc948'}
def at(m, names, i):
    for n in names:
        if n in m:
            return m[n][i]
    return None
def kind(c):  # rom2-nvme -> rom
    return re.sub(r'\d+$', '', c.split('-')[0])
def phases(c, m, i):
    out = []
    for name, a, b in PH[kind(c)]:
        t0 = 0.0 if a is None else at(m, a, i)
        t1 = at(m, b, i)
        if t0 is None or t1 is None:
            return None
        out.append((name, t0, t1))
    # wall: the target's own clock splits its phase into the jump (loader
    # hand-over, decompression) and the target kernel's boot to /init
    if i == 0 and 'tuptime' in m and out[-1][0] == 'target':
        name, t0, t1 = out.pop()
        k = max(t0, t1 - m['tuptime'][0])
        out += [('jump', t0, k), ('target kernel', k, t1)]
    return out
def mean(v):
    return sum(v) / len(v) if v else None
print('# phases: mean wall s, then QEMU CPU s, per phase, over complete runs (jump: from the')
print('# hand-over to the target kernel clock\'s start, from its uptime at its first line)')
means = {}
for c in cases:
    ok = [m for (cc, r), m in sorted(runs.items()) if cc == c and 'target' in m]
    if not ok:
        print('%-11s no complete run' % c)
        continue
    cols = []
    for i, unit in ((0, 'wall'), (1, 'cpu')):
        ps = [p for p in (phases(c, m, i) for m in ok) if p]
        names = [n for n, _, _ in ps[0]] if ps else []
        ps = [p for p in ps if [n for n, _, _ in p] == names]
        cols.append(unit + ' ' + ', '.join('%s %.2f' % (n, mean([p[j][2] - p[j][1] for p in ps]))
                                       for j, n in enumerate(names)))
    means[c] = {'target': (mean([m['target'][0] for m in ok]), mean([m['target'][1] for m in ok])),
                'handover': (mean([at(m, HANDOVER[kind(c)], 0) for m in ok if at(m, HANDOVER[kind(c)], 0) is not None] or [0]),
                             mean([at(m, HANDOVER[kind(c)], 1) for m in ok if at(m, HANDOVER[kind(c)], 1) is not None] or [0]))}
    print('%-11s %s | to target %.2f (%.2f), %d runs' % (c, '; '.join(cols),
          means[c]['target'][0], means[c]['target'][1], len(ok)))
print('# ratios against stock OVMF + GRUB in the same run, wall (QEMU CPU)')
for c in cases:
    k = c.split('-')[0]
    if k == 'stock' or c not in means:
        continue
    s = 'stock' + c[len(k):]
    if re.match(r'rom\d+$', k) and 'rom' + c[len(k):] in means:
        a, b = means['rom' + c[len(k):]], means[c]
        print('%-11s / %-11s to target %.2f (%.2f), at the hand-over %.2f (%.2f)' % (
            'rom' + c[len(k):], c, a['target'][0] / b['target'][0], a['target'][1] / b['target'][1],
            a['handover'][0] / b['handover'][0], a['handover'][1] / b['handover'][1]))
    if s not in means:
        continue
    a, b = means[c], means[s]
    goal = '[issue 25: <= 0.60]' if k == 'cb' else '[issue 12: <= 0.85]'
    print('%-11s / %-11s to target %.2f (%.2f) %s, at the hand-over %.2f (%.2f)' % (
        c, s, a['target'][0] / b['target'][0], a['target'][1] / b['target'][1], goal,
        a['handover'][0] / b['handover'][0], a['handover'][1] / b['handover'][1]))
# the timeline: one bar per run, wall seconds; ours above stock
bars = []
order = sorted(cases, key=lambda c: (c.split('-')[1:] or [''], {'rom': 0, 'cb': 1, 'bb': 2, 'stock': 3}.get(c.split('-')[0], 1), c))
for c in order:
    for (cc, r), m in sorted(runs.items()):
        if cc == c:
            bars.append(('%s #%d' % (c, r), phases(c, m, 0), m))
tmax = max([m['target'][0] for _, p, m in bars if p] + [1.0])
W, L, H, G = 960, 120, 18, 6
scale = (W - L - 60) / tmax
y = 40
parts = []
for label, p, m in bars:
    parts.append('<text x="4" y="%d" font-size="11">%s</text>' % (y + 13, label))
    if not p:
        parts.append('<text x="%d" y="%d" font-size="11">no complete boot</text>' % (L, y + 13))
    else:
        for name, t0, t1 in p:
            parts.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %.2f-%.2f s</title></rect>' % (
                L + t0 * scale, y, max(0.5, (t1 - t0) * scale), H, COL[name], name, t0, t1))
        parts.append('<text x="%.1f" y="%d" font-size="10">%.1f s</text>' % (L + p[-1][2] * scale + 3, y + 13, p[-1][2]))
    y += H + G
# axis and legend
for s in range(0, int(tmax) + 1, max(1, int(tmax // 10))):
    parts.append('<line x1="%.1f" y1="34" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="30" font-size="10">%d s</text>' % (
        L + s * scale, L + s * scale, y, L + s * scale - 6, s))
lx = L
for name, col in COL.items():
    parts.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="11">%s</text>' % (
        lx, y + 8, col, lx + 13, y + 17, name))
    lx += 20 + 7 * len(name)
svgtxt = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">' % (W, y + 30) +
          '<rect width="100%%" height="100%%" fill="white"/><text x="4" y="14" font-size="12">bench/rom-boot.sh: QEMU start to the target OS (wall s, TCG), one bar per run</text>' +
          ''.join(parts) + '</svg>\n')
open(svg, 'w').write(svgtxt)
print('# timeline: %s' % svg)
EOP
python3 "$T/phases.py" "$T/runs.tsv" "$T/timeline.svg" "$CASES"
echo "ours: $(dxe_stats "$T/lboot.rom") + firmware kernel $(stat -c %s "$OUT/bzImage") B + initramfs $(stat -c %s "$OUT/initramfs.cpio.xz") B in flash"
echo "stock: $(dxe_stats "$STOCK")"
exit 0
