#!/bin/bash
# Firmware updates from the firmware (docs/firmware-update.md), in QEMU with
# the whole 16 MiB flash writable (one pflash unit, the file used in place):
# ROM v1 finds a signed update image v2 on the ESP (lboot.update=, built into
# its initramfs), writes it through the kernel's MTD driver, restarts, and v2
# runs, sees the same image, does nothing and boots the target OS; the
# flash is then v2 outside the variable store, and the variables written
# by v1's boot are still there. A tampered image, one signed by another key
# and an older version are refused with one line each and the flash stays
# byte-identical.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init fw-update
command -v minisign >/dev/null || { not_ok "minisign not installed (scripts/deps.sh)"; exit 1; }
K=$T/keys; mkdir -p "$K"
for k in upd other; do
	minisign -G -W -p "$K/$k.pub" -s "$K/$k.key" >/dev/null || { not_ok "minisign -G"; exit 1; }
done
UPD=/EFI/lboot/update.lbu
# a ROM whose initramfs has firmware-version V and the update policy
rom_v() { # V
	"$OUT/lboot" mkinitramfs -o "$T/initramfs-v$1.cpio.xz" --init "$OUT/lboot-target" \
		--update-key "$K/upd.pub" --firmware-version "$1" \
		--option "lboot.update=fs:$UPD" >"$T/mkinitramfs-v$1.log" 2>&1 ||
		{ sed 's/^/# /' "$T/mkinitramfs-v$1.log"; not_ok "mkinitramfs v$1"; exit 1; }
	rom_build "$T/v$1.rom" --kernel "$OUT/bzImage" --initrd "$T/initramfs-v$1.cpio.xz" \
		--cmdline "$ROM_CMDLINE_TEST"
	cat "$T/v$1-vars.fd" "$T/v$1.rom" >"$T/flash-v$1.img"
}
rom_v 1
rom_v 2
[ "$(stat -c %s "$T/flash-v1.img")" = 16777216 ] && ok "the updatable flash image is 16 MiB" ||
	{ not_ok "the updatable flash image is 16 MiB"; exit 1; }
lbu() { # V OUT KEY
	"$OUT/lboot" update image --version "$1" --label "lboot e2e v$1" -o "$2" "$T/flash-v${4:-$1}.img" 2>/dev/null &&
		minisign -S -s "$K/$3.key" -m "$2" -t "lboot e2e" >/dev/null || { not_ok "update image v$1"; exit 1; }
}
# the disk: an ESP with a BLS entry for the target OS, and the update
disk_with() { # OUT.img UPDATE-FILE [SIG-FILE]
	rom_demo_disk "$1" fwupd
	mkdir -p "$T/esp/EFI/lboot"
	cp "$2" "$T/esp$UPD"
	cp "${3:-$2.minisig}" "$T/esp$UPD.minisig"
	mkpart_vfat "$T/esp.img" 64 "$T/esp" ESP 20260ABC
	mkdisk_gpt "$1" "$T/esp.img:esp"
}

# --- refused: tampered, another key, older; the flash byte-identical ------
lbu 2 "$T/tampered.lbu" upd
printf 'X' | dd of="$T/tampered.lbu" bs=1 seek=$((4096 + 0x400000)) conv=notrunc status=none
disk_with "$T/d-tampered.img" "$T/tampered.lbu"
lbu 2 "$T/other.lbu" other
disk_with "$T/d-other.img" "$T/other.lbu"
lbu 0 "$T/old.lbu" upd 1
disk_with "$T/d-old.img" "$T/old.lbu"
cp "$T/flash-v1.img" "$T/flash.img"
E2E_FLASH=$T/flash.img qemu_start \
	-drive "file=$T/d-tampered.img,format=raw,if=virtio,snapshot=on" \
	-drive "file=$T/d-other.img,format=raw,if=virtio,snapshot=on" \
	-drive "file=$T/d-old.img,format=raw,if=virtio,snapshot=on"
expect 'lboot: firmware version 1, 1 update key' 180 && ok "v1 runs: firmware version 1" ||
	not_ok "v1 runs: firmware version 1"
expect 'lboot-target: cmdline: .*rom.test=fwupd' 300 && ok "refused updates: the target OS boots" ||
	not_ok "refused updates: the target OS boots"
qemu_stop
for what in "tampered:the signature \\(key [0-9A-F]+\\): bad signature" \
	"other key:the signature \\(key [0-9A-F]+\\): (no trusted key|unknown key|.*key)" \
	"older:version 0 is older than the running firmware's 1 \\(no downgrade\\)"; do
	n=${what%%:*} re=${what#*:}
	[ "$(grep -cE "lboot: update /dev/vd[a-c][0-9]*:$UPD: refused: $re" "$T/serial.log")" = 1 ] &&
		ok "refused ($n): one line naming the device, file and reason" ||
		{ grep 'lboot: update' "$T/serial.log" | sed 's/^/# /'; not_ok "refused ($n): one line naming the device, file and reason"; }
done
cmp -s "$T/flash.img" "$T/flash-v1.img" 2>/dev/null || python3 - "$T/flash.img" "$T/flash-v1.img" <<'EOF'
import sys
a = open(sys.argv[1], 'rb').read(); b = open(sys.argv[2], 'rb').read()
# only the variable store may change (the boot writes its variables)
sys.exit(0 if a[:0xC00000] == b[:0xC00000] and a[0xC84000:] == b[0xC84000:] else 1)
EOF
[ $? = 0 ] && ok "refused updates: the flash outside the variable store is byte-identical" ||
	not_ok "refused updates: the flash outside the variable store is byte-identical"

# --- accepted: v1 writes v2, restarts, v2 runs and boots the target ------
lbu 2 "$T/v2.lbu" upd
disk_with "$T/d-v2.img" "$T/v2.lbu"
cp "$T/flash-v1.img" "$T/flash.img"
E2E_REBOOT=1 E2E_FLASH=$T/flash.img qemu_start -drive "file=$T/d-v2.img,format=raw,if=virtio,snapshot=on"
expect 'lboot: firmware version 1, 1 update key' 180 && ok "update: v1 starts" || not_ok "update: v1 starts"
if expect "lboot: update /dev/vda[0-9]*:$UPD: version 2 \\(lboot e2e v2\\) written to /dev/mtd[0-9]+: [0-9]+ of 4096 erase blocks, each read back \\([0-9]+ ms with the checks\\); restarting into it" 300; then
	ok "update: v1 wrote v2 through MTD, each block read back"
	log "$(tr -d '\r' <"$T/serial.log" | grep -o 'version 2 (lboot e2e v2) written to .*' | head -1)"
else
	grep -E 'lboot: update|mtd|physmap|flash' "$T/serial.log" | head -8 | sed 's/^/# /'
	not_ok "update: v1 wrote v2 through MTD, each block read back"
fi
expect 'lboot: update: a whole-flash update rewrites SEC, PEI and DXE in place: a power cut while it writes can leave a flash that does not boot' 1 &&
	ok "update: PID 1 says what a power cut during a whole-flash update would do" ||
	not_ok "update: PID 1 says what a power cut during a whole-flash update would do"
t0=$(elapsed)
expect 'lboot: firmware version 2, 1 update key' 240 && ok "update: after the restart v2 runs" ||
	not_ok "update: after the restart v2 runs"
expect "lboot: update /dev/vda[0-9]*:$UPD: version 2 is the running firmware's: nothing to do" 120 &&
	ok "update: v2 sees the same version and writes nothing" ||
	not_ok "update: v2 sees the same version and writes nothing"
expect 'lboot-target: cmdline: .*rom.test=fwupd' 300 && ok "update: v2 boots the target OS" || not_ok "update: v2 boots the target OS"
log "restart to v2's start line: from $t0 s"
qemu_stop
python3 - "$T/flash.img" "$T/flash-v2.img" <<'EOF' && ok "update: the flash is v2 outside the variable store" || not_ok "update: the flash is v2 outside the variable store"
import sys
a = open(sys.argv[1], 'rb').read(); b = open(sys.argv[2], 'rb').read()
sys.exit(0 if a[:0xC00000] == b[:0xC00000] and a[0xC84000:] == b[0xC84000:] else 1)
EOF
# the variable store was kept, not replaced with v2's empty one: v1's boot
# wrote LoaderInfo-style variables there (UCS-2 "lboot")
python3 - "$T/flash.img" "$T/flash-v2.img" <<'EOF' && ok "update: the variable store was kept (v2's empty store not written)" || not_ok "update: the variable store was kept (v2's empty store not written)"
import sys
a = open(sys.argv[1], 'rb').read(); b = open(sys.argv[2], 'rb').read()
s = slice(0xC00000, 0xC84000)
sys.exit(0 if a[s] != b[s] and 'lboot'.encode('utf-16-le') in a[s] else 1)
EOF
e2e_done
