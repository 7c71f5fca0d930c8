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
# the VM is written back with flashcp -p and compared (not timed). A new VM
# (a fresh copy of v1's flash image) per run; the times are the guest's
# /proc/uptime around each command (10 ms), lboot's check/write split at its
# "writing" line on stderr.
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
stamp() { while IFS= read -r l; do read -r up _ </proc/uptime; echo "$up $l"; done; }
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
	t0=$(now)
	{ lboot-target update --slot A apply /w/$1.lbu 2>&1 >/w/lb.out; echo "rc $?"; } | stamp >/w/lb.err
	t1=$(now)
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
		t0=$(now); flashcp -v -p /w/$2 "$MTD" >/w/fc.out 2>&1; rc=$?; t1=$(now)
		b=$(sed -n 's/.*diff blocks: \([0-9]*\).*/\1/p' /w/fc.out)/$((sz / 4096))
		tool=flashcp-p
	else
		t0=$(now); flashcp /w/$2 "$MTD" >/w/fc.out 2>&1; rc=$?; t1=$(now)
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
trap 'qemu_stop; rm -f "$FLASH"; e2e_dump_on_fail' EXIT
: >"$T/results"
for run in $(seq "$RUNS"); do
	cp "$T/flash-v1.img" "$FLASH"
	E2E_FLASH=$FLASH qemu_start -drive "file=$T/disk.img,format=raw,if=virtio,snapshot=on"
	if expect 'fwbench: \[[0-9.]+\] (done|FAIL)' 600 && ! grep -q 'fwbench: .* FAIL' "$T/serial.log"; then
		tr -d '\r' <"$T/serial.log" | sed -n "s/^.*fwbench: \[[0-9.]*\] result /run=$run /p" >>"$T/results"
		echo "# run $run: $(tr -d '\r' <"$T/serial.log" | grep -m1 'fwbench: flash') ($(elapsed) s in QEMU)"
	else
		tr -d '\r' <"$T/serial.log" | grep -E 'fwbench|lboot:|lbootdxe' | tail -20 | sed 's/^/# /'
		echo "# run $run: did not finish (serial log: $T/serial-$run.log)"
	fi
	qemu_stop
	cp "$T/serial.log" "$T/serial-$run.log"
done

# --- the table ----------------------------------------------------------------------
echo "# seconds: guest wall time of the command; lboot: check + write (the write"
echo "# reads back each block and compares the whole); blocks: written/in the file"
echo "# (lboot: of the slot, or of the flash with the variable store skipped);"
echo "# lboot/peer: lboot's seconds over the peer's in the same run; flash: the"
echo "# flash equals the expected bytes afterwards"
awk -v runs="$RUNS" '
{
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	k = v["op"] SUBSEP v["tool"]
	s = v["t1"] - v["t0"]; c = v["tw"] - v["t0"]
	secs[k, v["run"]] = s; chk[k, v["run"]] = c; blk[k, v["run"]] = v["blocks"]
	ok[k, v["run"]] = (v["rc"] == 0 ? v["flash"] : "rc=" v["rc"])
	sum[k] += s; csum[k] += c; n[k]++
}
END {
	split("slot few many", ops, " "); split("lboot flashcp flashcp-p", tools, " ")
	name["slot"] = "slot B (6 MiB)"; name["few"] = "whole, few"; name["many"] = "whole, many"
	printf "%-15s %-11s %-5s %-11s %8s %-17s %11s  %s\n", "operation", "tool", "run", "blocks", "seconds", "(check + write)", "lboot/peer", "flash"
	for (o = 1; o <= 3; o++) for (t = 1; t <= 3; t++) {
		k = ops[o] SUBSEP tools[t]; l = ops[o] SUBSEP "lboot"
		for (r = 1; r <= runs; r++) {
			if (!((k, r) in secs)) continue
			split_ = (tools[t] == "lboot") ? sprintf("(%.2f + %.2f)", chk[k, r], secs[k, r] - chk[k, r]) : ""
			ratio = (tools[t] != "lboot" && (l, r) in secs && secs[k, r] > 0) ? sprintf("%.2f", secs[l, r] / secs[k, r]) : ""
			printf "%-15s %-11s %-5s %-11s %8.2f %-17s %11s  %s\n", name[ops[o]], tools[t], r, blk[k, r], secs[k, r], split_, ratio, ok[k, r]
		}
		if (!n[k]) continue
		m = sum[k] / n[k]; ml = n[l] ? sum[l] / n[l] : 0
		split_ = (tools[t] == "lboot") ? sprintf("(%.2f + %.2f)", csum[k] / n[k], m - csum[k] / n[k]) : ""
		ratio = (tools[t] != "lboot" && m > 0 && ml > 0) ? sprintf("%.2f", ml / m) : ""
		printf "%-15s %-11s %-5s %-11s %8.2f %-17s %11s\n", name[ops[o]], tools[t], "mean", "", m, split_, ratio
	}
}' "$T/results"
exit 0
