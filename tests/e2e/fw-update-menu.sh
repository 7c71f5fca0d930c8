#!/bin/bash
# The menu's 'u' (docs/firmware-update.md, "From the menu"), in QEMU with
# the whole 16 MiB flash writable: ROM v1 (no lboot.update=) with two
# disks, each an ESP holding /EFI/lboot/update.lbu: v2 signed by the update
# key, and a tampered copy. Keys typed on the serial console: 'u' lists
# both files; the tampered one is refused with one line and no question;
# v2's check says it may be written, 'n' leaves the flash byte-identical;
# 'u' again and 'y' write it, the machine restarts, v2's start line appears
# and the flash is v2 outside the variable store.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init fw-update-menu
command -v minisign >/dev/null || { not_ok "minisign not installed (scripts/deps.sh)"; exit 1; }
K=$T/keys; mkdir -p "$K"
minisign -G -W -p "$K/upd.pub" -s "$K/upd.key" >/dev/null || { not_ok "minisign -G"; exit 1; }
UPD=/EFI/lboot/update.lbu
rom_v() { # V
	"$OUT/lboot" mkinitramfs -o "$T/initramfs-v$1.cpio.xz" --init "$OUT/lboot-target" \
		--update-key "$K/upd.pub" --firmware-version "$1" >"$T/mkinitramfs-v$1.log" 2>&1 ||
		{ sed 's/^/# /' "$T/mkinitramfs-v$1.log"; not_ok "mkinitramfs v$1"; exit 1; }
	rom_build "$T/v$1.rom" --kernel "$OUT/bzImage" --initrd "$T/initramfs-v$1.cpio.xz" \
		--cmdline "console=ttyS0,115200 panic=-1 lboot.timeout=120"
	cat "$T/v$1-vars.fd" "$T/v$1.rom" >"$T/flash-v$1.img"
}
rom_v 1
rom_v 2
"$OUT/lboot" update image --version 2 --label "lboot e2e v2" -o "$T/v2.lbu" "$T/flash-v2.img" 2>/dev/null &&
	minisign -S -s "$K/upd.key" -m "$T/v2.lbu" -t "lboot e2e" >/dev/null || { not_ok "update image v2"; exit 1; }
cp "$T/v2.lbu" "$T/tampered.lbu"
printf 'X' | dd of="$T/tampered.lbu" bs=1 seek=$((4096 + 0x400000)) conv=notrunc status=none
disk_with() { # OUT.img UPDATE-FILE SIG-FILE
	rom_demo_disk "$1" fwupd-menu
	mkdir -p "$T/esp/EFI/lboot"
	cp "$2" "$T/esp$UPD"
	cp "$3" "$T/esp$UPD.minisig"
	mkpart_vfat "$T/esp.img" 64 "$T/esp" ESP 20260ABC
	mkdisk_gpt "$1" "$T/esp.img:esp"
}
disk_with "$T/d-v2.img" "$T/v2.lbu" "$T/v2.lbu.minisig"
disk_with "$T/d-bad.img" "$T/tampered.lbu" "$T/v2.lbu.minisig"
flash_same() { # FLASH REFERENCE: equal outside the variable store
	python3 - "$1" "$2" <<'EOF'
import sys
a = open(sys.argv[1], 'rb').read(); b = open(sys.argv[2], 'rb').read()
sys.exit(0 if len(a) == len(b) and a[:0xC00000] == b[:0xC00000] and a[0xC84000:] == b[0xC84000:] else 1)
EOF
}
# expect_n REGEX N [TIMEOUT]: until the serial log has N lines matching
expect_n() {
	local i
	for ((i = 0; i < ${3:-60} * 5; i++)); do
		[ "$(tr -d '\r' <"$T/serial.log" | grep -cE -- "$1")" -ge "$2" ] && return 0
		sleep 0.2
	done
	log "timeout waiting for $2 x /$1/"
	return 1
}
CHECKING="lboot: update /dev/vda[0-9]*:$UPD: version 2 \\(lboot e2e v2\\) may be written to /dev/mtd[0-9]+\$"

cp "$T/flash-v1.img" "$T/flash.img"
E2E_REBOOT=1 E2E_FLASH=$T/flash.img qemu_start \
	-drive "file=$T/d-v2.img,format=raw,if=virtio,snapshot=on" \
	-drive "file=$T/d-bad.img,format=raw,if=virtio,snapshot=on"
expect 'lboot: firmware version 1, 1 update key' 180 && ok "v1 runs: firmware version 1" ||
	not_ok "v1 runs: firmware version 1"
expect 'press any key to stop' 240 && expect 'u: update firmware, ' 5 && ok "the menu offers u: update firmware" ||
	not_ok "the menu offers u: update firmware"
# --- the tampered file: refused with one line, no question ---------------
send 'u'
expect "  [12]\\) /dev/vdb[0-9]*:$UPD" 30 && expect "  [12]\\) /dev/vda[0-9]*:$UPD" 5 &&
	ok "u lists the update file of each filesystem" || not_ok "u lists the update file of each filesystem"
expect 'file \(1-2, Enter: 1, \^C cancels\)> ' 10
bad=$(tr -d '\r' <"$T/serial.log" | grep -oE "  [12]\\) /dev/vdb[0-9]*:$UPD" | head -1 | grep -oE '[12]' | head -1)
good=$((3 - ${bad:-1}))
send '%s\r' "${bad:-2}"
expect "lboot: update /dev/vdb[0-9]*:$UPD: refused: the signature \\(key [0-9A-F]+\\): bad signature" 120 &&
	ok "the tampered file: its check refuses it in one line" || not_ok "the tampered file: its check refuses it in one line"
sleep 1
expect_not 'write it to the flash and restart' && ok "the tampered file: no question asked" ||
	not_ok "the tampered file: no question asked"
# --- v2: checked, 'n' writes nothing ---------------------------------------
send 'u'
expect_n 'file \(1-2, Enter: 1, \^C cancels\)> ' 2 10
send '%s\r' "$good"
expect "$CHECKING" 120 && ok "v2: the check's line (version, label, the flash)" ||
	{ grep -a 'lboot: update' "$T/serial.log" | sed 's/^/# /'; not_ok "v2: the check's line (version, label, the flash)"; }
expect 'write it to the flash and restart\? \(y/N\)> ' 10 && ok "v2: asks before writing" || not_ok "v2: asks before writing"
send 'n\r'
expect 'lboot: not written' 10 && ok "v2: n: not written" || not_ok "v2: n: not written"
sleep 1
flash_same "$T/flash.img" "$T/flash-v1.img" && ok "v2: after n (and the refusal) the flash outside the variable store is byte-identical" ||
	not_ok "v2: after n (and the refusal) the flash outside the variable store is byte-identical"
# --- v2: 'y' writes it, the machine restarts into v2 ----------------------
send 'u'
expect_n 'file \(1-2, Enter: 1, \^C cancels\)> ' 3 10
send '%s\r' "$good"
expect_n "$CHECKING" 2 120
expect_n 'write it to the flash and restart\? \(y/N\)> ' 2 10
send 'y\r'
if expect "lboot: update /dev/vda[0-9]*:$UPD: version 2 \\(lboot e2e v2\\) written to /dev/mtd[0-9]+: [0-9]+ of 4096 erase blocks, each read back \\([0-9]+ ms with the checks\\); restarting into it" 300; then
	ok "v2: y: written through MTD, each block read back"
else
	grep -a 'lboot: update' "$T/serial.log" | sed 's/^/# /'
	not_ok "v2: y: written through MTD, each block read back"
fi
expect 'lboot: firmware version 2, 1 update key' 240 && ok "after the restart v2 runs (its start line)" ||
	not_ok "after the restart v2 runs (its start line)"
qemu_stop
flash_same "$T/flash.img" "$T/flash-v2.img" && ok "the flash is v2 outside the variable store" ||
	not_ok "the flash is v2 outside the variable store"
e2e_done
