#!/bin/bash
# Firmware update write speed (issue 26, docs/firmware-update.md): lboot's
# `lboot update apply` against mtd-utils' flashcp, one after the other on
# the same /dev/mtd0 in the same VM, under QEMU TCG (q35, 1 GiB, 1 vCPU)
# with the 16 MiB updatable flash as one writable pflash unit (as
# tests/e2e/lib.sh's E2E_FLASH). Operations, each from the same flash:
#   slot:       a payload update (mkrom --slots, update image --slot,
#               minisign) into slot B while slot A runs (--slot A); the
#               peer writes the same 6 MiB at slot B's offset
#   whole-few:  a whole-flash update (kind 1) that differs from the flash
#               in few erase blocks (v2: another firmware-version in slot
#               A's initramfs)
#   whole-many: one that differs in many (v2 with slot B filled too)
# Tools per operation: lboot (its check: signature, digest, version, layout,
# the flash read once; then the write: only the blocks that differ, each read
# back, the whole compared), flashcp (erases and writes every block of the
# file, then reads it all back) and flashcp -p (--partition: only the
# blocks that differ, no read-back). The peers get the same bytes lboot
# ends with (for whole-flash updates: the image with the flash's own
# variable store, which lboot keeps), and after each operation the flash is
# compared with the expected image.
# Same contents before each operation: the flash as read at the start of
# the VM (v1, and the variables lboot wrote at boot) is written back with
# flashcp -p and compared with `lboot flash verify` (not timed). A new VM (a
# fresh copy of v1's flash image) per run, the tools in the same order (lboot,
# flashcp, flashcp -p). Times: the guest's /proc/uptime around each command
# (10 ms), lboot's check/write split at its "writing" line on stderr; and
# QEMU's CPU seconds meanwhile (its /proc/PID/stat at the serial lines that
# mark begin and end), steadier than wall time on a busy host. The flash
# file is in /dev/shm when it can be (the host's disk stays out of it).
# How it boots: the flash holds ROM v1 (slot A: the firmware kernel and
# lboot); lboot kexecs a BLS entry on the disk's ESP: the same firmware
# kernel (MTD, physmap at 0xFF000000) with a BusyBox /init that runs the
# tools (lboot-target, flashcp and its libraries) on files from the ESP.
#   bench/fw-update.sh [RUNS]     (default 2; figures, no asserts)
# Needs: make all (out/lboot, out/lboot-target, out/bzImage), minisign,
# busybox-static, mtd-utils (flashcp), qemu-system-x86, ovmf, mtools,
# dosfstools. Serial logs: build/e2e/bench-fw-update/serial-N.log
RUNS=${1:-2}
. "$(dirname "$0")/../tests/e2e/lib.sh"
. "$(dirname "$0")/../tests/e2e/rom-lib.sh"
e2e_init bench-fw-update
for c in minisign flashcp mkfs.vfat mcopy python3; do
	command -v $c >/dev/null || PATH=$PATH:/usr/sbin:/sbin command -v $c >/dev/null || {
		echo "bench: needs $c (apt-get install minisign mtd-utils dosfstools mtools python3)"; exit 1; }
done
FLASHCP=$(PATH=$PATH:/usr/sbin:/sbin command -v flashcp)
[ -x /bin/busybox ] || { echo "bench: needs busybox-static"; exit 1; }
[ -f "$OUT/lboot-target" ] || { echo "bench: needs $OUT/lboot-target (make all)"; exit 1; }

# --- the flash images and the updates ----------------------------------------
K=$T/keys; mkdir -p "$K"
minisign -G -W -p "$K/upd.pub" -s "$K/upd.key" >/dev/null || { echo "bench: minisign -G"; exit 1; }
rom_v() { # V: a slots ROM, slot A has firmware-version V (as tests/e2e/fw-slots.sh)
	"$OUT/lboot" mkinitramfs -o "$T/initramfs-v$1.cpio.xz" --init "$OUT/lboot-target" \
		--update-key "$K/upd.pub" --firmware-version "$1" >"$T/mkinitramfs-v$1.log" 2>&1 ||
		{ cat "$T/mkinitramfs-v$1.log"; echo "bench: mkinitramfs v$1"; exit 1; }
	rom_build "$T/v$1.rom" --kernel "$OUT/bzImage" --initrd "$T/initramfs-v$1.cpio.xz" \
		--cmdline "$ROM_CMDLINE_TEST quiet" --slots --payload-version "$1" --payload-label "fwbench v$1"
	cat "$T/v$1-vars.fd" "$T/v$1.rom" >"$T/flash-v$1.img"
}
rom_v 1
rom_v 2
# many: v2 with slot B (at 0) holding slot A's (at 6 MiB) bytes too
cp "$T/flash-v2.img" "$T/flash-many.img"
dd if="$T/flash-v2.img" of="$T/flash-many.img" bs=1M skip=6 count=6 conv=notrunc status=none
# the variable store and slot B, in erase blocks of 4 KiB (the guest splices
# the flash's own store into the peers' whole images)
read -r STORE_BLK STORE_CNT SLOTB_BLK < <(python3 - "$T/flash-v1.img" <<'EOP'
import json, struct, subprocess, sys, uuid
b = open(sys.argv[1], 'rb').read()
g = uuid.UUID('fff12b8d-7696-4c8b-a985-2747075b4f50').bytes_le  # the NVRAM volume (src/firmware/update.c)
st = [(o, struct.unpack_from('<Q', b, o + 32)[0]) for o in range(0, len(b), 4096)
      if b[o + 40:o + 44] == b'_FVH' and b[o + 16:o + 32] == g][0]
print(st[0] // 4096, st[1] // 4096, end=' ')
EOP
"$OUT/lboot" flash --flash "$T/flash-v1.img" --json info |
	python3 -c 'import json, sys; print([s["offset"] for s in json.load(sys.stdin)["slots"] if s["slot"] == "B"][0] // 4096)')
[ -n "$SLOTB_BLK" ] || { echo "bench: no variable store or slot B in the flash image"; exit 1; }
E=$T/esp; mkdir -p "$E/bench" "$E/loader/entries"
mk() { # OUT ARGS...: update image, signed
	local o=$1; shift
	"$OUT/lboot" update image "$@" -o "$E/bench/$o" 2>>"$T/image.log" &&
		minisign -S -s "$K/upd.key" -m "$E/bench/$o" -t fwbench >/dev/null ||
		{ cat "$T/image.log"; echo "bench: update image $o"; exit 1; }
}
mk slot.lbu --slot "$T/flash-v2.img"
mk few.lbu --version 2 --label "fwbench few" "$T/flash-v2.img"
mk many.lbu --version 3 --label "fwbench many" "$T/flash-many.img"

# --- the bench kernel's initramfs: BusyBox, lboot-target, flashcp ------------
cat >"$T/init" <<'EOS'
#!/bin/busybox sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
say() { read -r up _ </proc/uptime; echo "fwbench: [$up] $*"; }
die() { say "FAIL $*"; poweroff -f; sleep 5; }
now() { read -r up _ </proc/uptime; echo "$up"; }
# stderr lines with the time; lboot's first "writing" line also to the
# console (the host stamps QEMU's CPU time there: the check/write split)
stamp() {
	while IFS= read -r l; do
		read -r up _ </proc/uptime
		echo "$up $l"
		case $l in "lboot update: writing version"*|"lboot update: warning"*)
			echo "fwbench: [$up] write" >/dev/console;;
		esac
	done
}
. /etc/fwbench.conf
mkdir -p /mnt /w
n=0
until mount -o ro -t vfat /dev/vda1 /mnt 2>/dev/null; do
	n=$((n + 1)); [ $n -gt 500 ] && die "no ESP"
	usleep 20000
done
cp /mnt/bench/* /w/ || die "copying the files"
umount /mnt
MTD=$(lboot-target flash --json info | sed -n 's/.*"path":"\([^"]*\)".*/\1/p')
[ -c "$MTD" ] || die "no boot flash (lboot flash info)"
say "flash $MTD: $(lboot-target flash info | head -n1)"
cat "$MTD" >/w/orig.img
# the bytes each tool ends with: slot B replaced; the whole image with the
# flash's own variable store (lboot keeps it)
dd if=/w/slot.lbu of=/w/slot.bin bs=4096 skip=1 2>/dev/null
cp /w/orig.img /w/slot.exp
dd if=/w/slot.bin of=/w/slot.exp bs=4096 seek=$SLOTB_BLK conv=notrunc 2>/dev/null
for o in few many; do
	dd if=/w/$o.lbu of=/w/$o.exp bs=4096 skip=1 2>/dev/null
	dd if=/w/orig.img of=/w/$o.exp bs=4096 skip=$STORE_BLK seek=$STORE_BLK count=$STORE_CNT conv=notrunc 2>/dev/null
done
restore() {
	flashcp -p /w/orig.img "$MTD" >/dev/null 2>&1
	lboot-target flash verify /w/orig.img >/dev/null 2>&1 || die "restoring the flash"
}
# (lboot's compare: BusyBox's cmp takes 3 s for 16 MiB under TCG)
same() { lboot-target flash verify "$1" >/dev/null 2>&1 && echo ok || echo DIFFERS; }
run_lboot() { # OP
	restore
	say "begin op=$1 tool=lboot"
	t0=$(now)
	{ lboot-target update --slot A apply /w/$1.lbu 2>&1 >/w/lb.out; echo "rc $?"; } | stamp >/w/lb.err
	t1=$(now)
	say "end"
	tw=$(grep -m1 -E 'lboot update: (writing version|warning)' /w/lb.err | cut -d' ' -f1)
	rc=$(sed -n 's/^[0-9.]* rc //p' /w/lb.err)
	b=$(sed -n 's/.*: \([0-9]*\) of \([0-9]*\) erase blocks differed.*/\1\/\2/p' /w/lb.out)
	[ "$rc" = 0 ] || { cat /w/lb.out; sed 's/^/# /' /w/lb.err; }
	say "result op=$1 tool=lboot rc=$rc t0=$t0 tw=${tw:-$t1} t1=$t1 blocks=${b:--} flash=$(same /w/$1.exp)"
}
run_fc() { # OP FILE (-p|-)
	restore
	sz=$(wc -c </w/$2)
	if [ "$3" = -p ]; then
		say "begin op=$1 tool=flashcp-p"
		t0=$(now); flashcp -v -p /w/$2 "$MTD" >/w/fc.out 2>&1; rc=$?; t1=$(now)
		say "end"
		b=$(sed -n 's/.*diff blocks: \([0-9]*\).*/\1/p' /w/fc.out)/$((sz / 4096))
		tool=flashcp-p
	else
		say "begin op=$1 tool=flashcp"
		t0=$(now); flashcp /w/$2 "$MTD" >/w/fc.out 2>&1; rc=$?; t1=$(now)
		say "end"
		b=$((sz / 4096))/$((sz / 4096))
		tool=flashcp
	fi
	[ "$rc" = 0 ] || cat /w/fc.out
	say "result op=$1 tool=$tool rc=$rc t0=$t0 tw=$t0 t1=$t1 blocks=$b flash=$(same /w/$1.exp)"
}
# flashcp writes from the start of the device: slot B must be there
[ "$SLOTB_BLK" = 0 ] || die "slot B is not at the start of the flash"
for op in slot few many; do
	case $op in slot) f=slot.bin;; *) f=$op.exp;; esac
	run_lboot $op
	run_fc $op $f -
	run_fc $op $f -p
done
restore
say "done"
poweroff -f
EOS
printf 'STORE_BLK=%s\nSTORE_CNT=%s\nSLOTB_BLK=%s\n' "$STORE_BLK" "$STORE_CNT" "$SLOTB_BLK" >"$T/fwbench.conf"
fc_files=(--file "$(readlink -f "$FLASHCP"):/usr/sbin/flashcp")
for lib in $(ldd "$FLASHCP" | grep -o '/[^ ]*'); do
	fc_files+=(--file "$(readlink -f "$lib"):$lib")
done
"$OUT/lboot" mkinitramfs -o "$E/bench/init.cpio.xz" --busybox --init "$T/init" \
	--file "$OUT/lboot-target:/usr/bin/lboot-target" --file "$T/fwbench.conf:/etc/fwbench.conf" \
	"${fc_files[@]}" --update-key "$K/upd.pub" --firmware-version 1 >"$T/mkinitramfs-bench.log" 2>&1 ||
	{ cat "$T/mkinitramfs-bench.log"; echo "bench: mkinitramfs (bench)"; exit 1; }
cp "$OUT/bzImage" "$E/bench/bzImage"
printf 'default fwbench\ntimeout 0\n' >"$E/loader/loader.conf"
cat >"$E/loader/entries/fwbench.conf" <<EOC
title   fwbench
linux   /bench/bzImage
initrd  /bench/init.cpio.xz
options console=ttyS0,115200 panic=-1 quiet
EOC
mkpart_vfat "$T/esp.img" 64 "$E" ESP 20261207
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp"

# --- the runs ----------------------------------------------------------------------
# The flash file QEMU writes as the guest programs it: in /dev/shm when it
# can be (the host's disk writeback made flashcp's 16 MiB write vary 2x)
FLASH=$T/flash.img
[ -d /dev/shm ] && [ -w /dev/shm ] && FLASH=/dev/shm/lboot-fwbench-$$.img
trap 'rm -f "$FLASH"' EXIT
# run.py LOG TIMEOUT -- QEMU...: QEMU's serial on its stdout, each line into
# LOG after "WALL CPU" (seconds since QEMU's start; CPU: the seconds QEMU
# used by then, all its threads: a busy host stretches wall time far more);
# ends QEMU at "fwbench: [..] done" or FAIL or TIMEOUT, exit 0 at done.
cat >"$T/run.py" <<'EOP'
import os, re, select, subprocess, sys, time
log, timeout, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[sys.argv.index('--') + 1:]
end = re.compile(rb'fwbench: \[[0-9.]+\] (done|FAIL)')
tick = os.sysconf('SC_CLK_TCK')
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
def cpu():
    try:
        with open('/proc/%d/stat' % p.pid) as f:
            st = f.read().rsplit(')', 1)[1].split()
        return (int(st[11]) + int(st[12])) / tick
    except (OSError, IndexError, ValueError):
        return -1.0
fd, cur, lines, done = p.stdout.fileno(), b'', [], None
while done is None and time.monotonic() - t0 < timeout:
    if not select.select([fd], [], [], 0.5)[0]:
        if p.poll() is not None:
            break
        continue
    data = os.read(fd, 65536)
    if not data:
        break
    now, c = time.monotonic() - t0, cpu()
    for b in re.split(rb'(\r|\n)', data):
        if b not in (b'\r', b'\n'):
            cur += b
            continue
        if cur:
            lines.append(b'%8.3f %8.2f %s' % (now, c, cur))
            m = end.search(cur)
            if m:
                done = m.group(1)
        cur = b''
p.kill()
p.wait()
open(log, 'wb').write(b'\n'.join(lines + [cur]) + b'\n')
sys.exit(0 if done == b'done' else 1)
EOP
: >"$T/results"
for run in $(seq "$RUNS"); do
	cp "$T/flash-v1.img" "$FLASH"
	L=$T/serial-$run.log
	if python3 "$T/run.py" "$L" 600 -- "$QEMU" -accel tcg -m 1024 -smp 1 -display none -no-reboot \
		-monitor none -serial stdio -nic none -machine q35,max-fw-size=16M \
		-drive "if=pflash,format=raw,unit=0,file=$FLASH" \
		-drive "file=$T/disk.img,format=raw,if=virtio,snapshot=on"; then
		# each result with QEMU's CPU seconds at its begin, write and end lines
		awk -v run="$run" '
			/fwbench: \[[0-9.]+\] begin / { c0 = $2; cw = "" }
			/fwbench: \[[0-9.]+\] write$/ { cw = $2 }
			/fwbench: \[[0-9.]+\] end$/ { c1 = $2 }
			/fwbench: \[[0-9.]+\] result / {
				x = c0; y = (cw == "" ? c0 : cw); z = c1
				sub(/^.*fwbench: \[[0-9.]+\] result /, "")
				print "run=" run, $0, "c0=" x, "cw=" y, "c1=" z
			}' <(tr -d '\r' <"$L") >>"$T/results"
		echo "# run $run: $(tr -d '\r' <"$L" | grep -m1 -o 'fwbench: .*flash /dev/.*') ($(tr -d '\r' <"$L" | tail -n2 | awk 'NF { w = $1; c = $2 } END { print w " s, QEMU CPU " c " s" }'))"
	else
		tr -d '\r' <"$L" | grep -E 'fwbench|lboot:|lbootdxe' | tail -20 | sed 's/^/# /'
		echo "# run $run: did not finish (serial log: $L)"
	fi
done

# --- the table ----------------------------------------------------------------------
echo "# wall: guest seconds of the command (/proc/uptime); lboot: (check + write),"
echo "# the write reads back each block and compares the whole at the end; cpu:"
echo "# QEMU's CPU seconds meanwhile (steadier on a busy host); blocks: written/of"
echo "# (lboot: of the slot, or of the flash; flashcp: of the file); lboot/peer:"
echo "# lboot's seconds over the peer's in the same run, wall (cpu); flash: equals"
echo "# the expected bytes afterwards"
awk -v runs="$RUNS" '
{
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	k = v["op"] SUBSEP v["tool"]; r = v["run"]
	w[k, r] = v["t1"] - v["t0"]; wc[k, r] = v["tw"] - v["t0"]
	c[k, r] = v["c1"] - v["c0"]; blk[k, r] = v["blocks"]
	ok[k, r] = (v["rc"] == 0 ? v["flash"] : "rc=" v["rc"])
	sw[k] += w[k, r]; swc[k] += wc[k, r]; sc[k] += c[k, r]; n[k]++
}
function row(op, tool, run, b, wall, chk, cpu, lw, lc, fl,   s, q) {
	s = (tool == "lboot") ? sprintf("(%.2f + %.2f)", chk, wall - chk) : ""
	q = (tool != "lboot" && lw > 0 && wall > 0 && cpu > 0) ? sprintf("%.2f (%.2f)", lw / wall, lc / cpu) : ""
	printf "%-15s %-10s %-5s %-10s %7.2f %-15s %7.2f %13s  %s\n", op, tool, run, b, wall, s, cpu, q, fl
}
END {
	split("slot few many", ops, " "); split("lboot flashcp flashcp-p", tools, " ")
	name["slot"] = "slot B (6 MiB)"; name["few"] = "whole, few"; name["many"] = "whole, many"
	printf "%-15s %-10s %-5s %-10s %7s %-15s %7s %13s  %s\n", "operation", "tool", "run", "blocks", "wall s", "(check + write)", "cpu s", "lboot/peer", "flash"
	for (o = 1; o <= 3; o++) for (t = 1; t <= 3; t++) {
		k = ops[o] SUBSEP tools[t]; l = ops[o] SUBSEP "lboot"
		for (r = 1; r <= runs; r++)
			if ((k, r) in w)
				row(name[ops[o]], tools[t], r, blk[k, r], w[k, r], wc[k, r], c[k, r],
				    ((l, r) in w) ? w[l, r] : 0, ((l, r) in c) ? c[l, r] : 0, ok[k, r])
		if (n[k])
			row(name[ops[o]], tools[t], "mean", "", sw[k] / n[k], swc[k] / n[k], sc[k] / n[k],
			    n[l] ? sw[l] / n[l] : 0, n[l] ? sc[l] / n[l] : 0, "")
	}
}' "$T/results"
exit 0
