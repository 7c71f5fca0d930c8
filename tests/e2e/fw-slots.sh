#!/bin/bash
# Payload updates into A/B slots (docs/firmware-update.md), in QEMU with the
# whole 16 MiB flash writable and without -no-reboot: ROM v1 (mkrom --slots:
# the payload in slot A, slot B erased) finds a signed payload update v2 on
# the ESP, writes it into slot B through the kernel's MTD driver and
# restarts; lbootdxe then boots slot B (the newer that checks) and v2 runs.
# Then the same update is killed (QEMU SIGKILL, a power cut) at several
# points of the slot write, placed by the flash file's contents: early
# (block 2 of slot B written), middle, late (the last volume block) and at
# the end (the header, written last, may or may not have made it); every time the machine boots again, from slot A (v1) or, only
# when the header made it, slot B (v2), and lbootdxe says which and why.
# After the middle kill the update is applied again at the next boot and
# v2 runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init fw-slots
command -v minisign >/dev/null || { not_ok "minisign not installed (scripts/deps.sh)"; exit 1; }
K=$T/keys; mkdir -p "$K"
minisign -G -W -p "$K/upd.pub" -s "$K/upd.key" >/dev/null || { not_ok "minisign -G"; exit 1; }
UPD=/EFI/lboot/update.lbu
rom_v() { # V: a slots ROM whose initramfs has firmware-version V
	"$OUT/lboot" mkinitramfs -o "$T/initramfs-v$1.cpio.xz" --init "$OUT/lboot-target" \
		--update-key "$K/upd.pub" --firmware-version "$1" \
		--option "lboot.update=fs:$UPD" >"$T/mkinitramfs-v$1.log" 2>&1 ||
		{ sed 's/^/# /' "$T/mkinitramfs-v$1.log"; not_ok "mkinitramfs v$1"; exit 1; }
	rom_build "$T/v$1.rom" --kernel "$OUT/bzImage" --initrd "$T/initramfs-v$1.cpio.xz" \
		--cmdline "$ROM_CMDLINE_TEST" --slots --payload-version "$1" --payload-label "lboot e2e v$1"
	cat "$T/v$1-vars.fd" "$T/v$1.rom" >"$T/flash-v$1.img"
}
rom_v 1
rom_v 2
"$OUT/lboot" update image --slot -o "$T/v2.lbu" "$T/flash-v2.img" 2>"$T/image.log" &&
	minisign -S -s "$K/upd.key" -m "$T/v2.lbu" -t "lboot e2e" >/dev/null ||
	{ sed 's/^/# /' "$T/image.log"; not_ok "update image --slot v2"; exit 1; }
[ "$(stat -c %s "$T/v2.lbu")" = $((4096 + 6291456)) ] && ok "v2 is a payload update: one 6 MiB slot" ||
	not_ok "v2 is a payload update: one 6 MiB slot"
rom_demo_disk "$T/disk.img" fwslots
mkdir -p "$T/esp/EFI/lboot"
cp "$T/v2.lbu" "$T/esp$UPD"
cp "$T/v2.lbu.minisig" "$T/esp$UPD.minisig"
mkpart_vfat "$T/esp.img" 64 "$T/esp" ESP 20260ABC
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp"
DISK=(-drive "file=$T/disk.img,format=raw,if=virtio,snapshot=on")

# --- the whole update: v1 (slot A) writes slot B, restarts into v2 ---------
cp "$T/flash-v1.img" "$T/flash.img"
E2E_REBOOT=1 E2E_FLASH=$T/flash.img qemu_start "${DISK[@]}"
expect 'lbootdxe: booting slot A \(version 1\): the other slot does not check' 120 &&
	expect 'lbootdxe: slot B: empty' 1 && ok "v1: lbootdxe boots slot A, says slot B is empty" ||
	not_ok "v1: lbootdxe boots slot A, says slot B is empty"
expect 'Kernel command line: .* lboot.slot=A' 60 && ok "v1: the kernel is told lboot.slot=A" ||
	not_ok "v1: the kernel is told lboot.slot=A"
expect 'lboot: firmware version 1, 1 update key' 180 && ok "v1 runs" || not_ok "v1 runs"
t0=$(elapsed)
if expect "lboot: update /dev/vda[0-9]*:$UPD: version 2 \\(lboot e2e v2\\) written to payload slot B of /dev/mtd[0-9]+: [0-9]+ of 1536 erase blocks, each read back \\(([0-9]+) ms with the checks\\); restarting into it" 300; then
	ok "v1 wrote v2 into slot B only (1536 blocks compared), each block read back"
	log "$(tr -d '\r' <"$T/serial.log" | grep -o 'written to payload slot B.*' | head -1) (first progress line to this: from $t0 s)"
else
	grep -E 'lboot: update|mtd|physmap' "$T/serial.log" | head -8 | sed 's/^/# /'
	not_ok "v1 wrote v2 into slot B only (1536 blocks compared), each block read back"
fi
expect 'lboot: update: writing 50%' 1 && ok "the write shows its progress" || not_ok "the write shows its progress"
expect "lboot: update: writing version 2 into payload slot B \\(the running slot is not touched\\)" 1 && ok "PID 1 says it writes slot B before it writes" || not_ok "PID 1 says it writes slot B before it writes"
expect 'lbootdxe: booting slot B \(version 2\): the newer of two that check' 180 &&
	ok "after the restart lbootdxe boots slot B, the newer of two that check" ||
	not_ok "after the restart lbootdxe boots slot B, the newer of two that check"
expect 'lboot: firmware version 2, 1 update key' 180 && ok "v2 runs" || not_ok "v2 runs"
expect "lboot: update /dev/vda[0-9]*:$UPD: version 2 is the running firmware's: nothing to do" 120 &&
	ok "v2 sees the same version and writes nothing" || not_ok "v2 sees the same version and writes nothing"
expect 'lboot-target: cmdline: .*rom.test=fwslots' 300 && ok "v2 boots the target OS" || not_ok "v2 boots the target OS"
qemu_stop
python3 - "$T/flash.img" "$T/flash-v1.img" "$T/flash-v2.img" <<'PY' && ok "the flash: slot B is v2's slot A, slot A and the code are v1's" || not_ok "the flash: slot B is v2's slot A, slot A and the code are v1's"
import sys
a, v1, v2 = (open(p, 'rb').read() for p in sys.argv[1:])
S = 0x600000
sys.exit(0 if a[:S] == v2[S:2 * S] and a[S:2 * S] == v1[S:2 * S] and a[0xC84000:] == v1[0xC84000:] else 1)
PY

# --- killed during the write: it boots again, every time --------------------
# The kill is placed by what the flash file holds (QEMU writes the pflash
# file as the guest programs it): when block N of slot B (at 0) is no longer
# erased, blocks 0..N-1 are written and the header (block 0, erased first,
# written last) is not. Serial lines lag the guest, so they cannot place it.
vol_blocks=$(python3 -c 'import sys, struct; b = open(sys.argv[1], "rb").read(); print((struct.unpack_from("<Q", b, 0x600000 + 24)[0] + 4095) // 4096)' "$T/flash-v2.img")
kill_at() { # BLOCK TIMEOUT: SIGKILL QEMU once block BLOCK of slot B is written
	python3 - "$QEMU_PID" "$T/flash.img" "$1" "$2" <<'PY'
import os, signal, sys, time
pid, path, blk, t = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
end = time.time() + t
with open(path, 'rb') as f:
    while time.time() < end:
        f.seek(blk * 4096)
        if f.read(4096) != b'\xff' * 4096:
            os.kill(pid, signal.SIGKILL)
            sys.exit(0)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            sys.exit(1)
        time.sleep(0.005)
sys.exit(1)
PY
}
log "slot B's volume: $vol_blocks blocks after the header"
for at in early:2 middle:$((vol_blocks / 2)) late:$((vol_blocks - 1)) done:end; do
	name=${at%%:*} blk=${at#*:}
	cp "$T/flash-v1.img" "$T/flash.img"
	E2E_REBOOT=1 E2E_FLASH=$T/flash.img qemu_start "${DISK[@]}"
	if [ "$blk" = end ]; then
		# the last step: kill as the header (block 0) is written
		expect 'lboot: update: writing 100%' 400 && kill -9 "$QEMU_PID" 2>/dev/null
		rc=$?
	else
		kill_at "$blk" 400
		rc=$?
	fi
	if [ $rc != 0 ]; then
		not_ok "kill $name: the write did not get there"
		qemu_stop
		continue
	fi
	qemu_stop
	cp "$T/serial.log" "$T/serial-kill-$name.log"
	"$OUT/lboot" flash --flash "$T/flash.img" info | grep 'slot B' | sed "s/^/# kill $name (block $blk): /"
	E2E_REBOOT=1 E2E_FLASH=$T/flash.img qemu_start "${DISK[@]}"
	if expect 'lbootdxe: booting slot A \(version 1\): the other slot does not check' 120; then
		ok "kill $name (block $blk of slot B written): lbootdxe boots slot A (v1), slot B does not check"
		log "kill $name: $(tr -d '\r' <"$T/serial.log" | grep -m1 'lbootdxe: slot B')"
		want=1
	elif [ "$blk" = end ] && expect 'lbootdxe: booting slot B \(version 2\)' 1; then
		ok "kill $name: the header was written before the kill: lbootdxe boots slot B (v2)"
		want=2
	else
		grep -E 'lbootdxe: (slot|booting|FATAL)' "$T/serial.log" | sed 's/^/# /'
		not_ok "kill $name (block $blk): the machine boots again, from slot A"
		qemu_stop
		continue
	fi
	expect "lboot: firmware version $want, 1 update key" 180 && ok "kill $name: v$want runs" ||
		not_ok "kill $name: v$want runs"
	if [ "$name" = middle ]; then
		# the file is still on the ESP: this boot applies it again
		expect 'lbootdxe: booting slot B \(version 2\)' 400 &&
			expect 'lboot: firmware version 2, 1 update key' 180 &&
			ok "kill $name: the next boot applies the update again and v2 runs" ||
			not_ok "kill $name: the next boot applies the update again and v2 runs"
	fi
	qemu_stop
done
e2e_done
