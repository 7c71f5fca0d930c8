#!/bin/bash
# Firmware updates over the network (docs/firmware-update.md, "Unattended:
# lboot.update=https://HOST/PATH"), in QEMU with the whole 16 MiB flash
# writable, on a tap in a network namespace with dnsmasq (DHCP, no boot
# file) and nginx (HTTPS, a test CA built into the ROMs with --ca):
# ROM v1 (lboot.update=https://192.168.77.1/fw/update.lbu built in) brings
# the network up, fetches what nginx serves there and its .minisig, and
#  - a tampered image, one signed by another key and an older version:
#    refused with one line naming the URL and the reason, the boot goes on
#    (the target OS from the disk), the flash byte-identical outside the
#    variable store;
#  - nothing served (404): one line naming the URL, the boot goes on;
#  - v2: written through MTD, the machine restarts, v2's start line
#    appears, v2 fetches the same file, says "nothing to do" and boots the
#    target OS; the flash is v2 outside the variable store.
# A fleet rolls versions by what the server serves: the same ROM, only the
# served file changes between the boots.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
. "$(dirname "$0")/net-lib.sh"
e2e_init fw-update-https
net_init
command -v minisign >/dev/null || { not_ok "minisign not installed (scripts/deps.sh)"; exit 1; }
net_pki
UK=$T/ukeys; mkdir -p "$UK"
for k in upd other; do
	minisign -G -W -p "$UK/$k.pub" -s "$UK/$k.key" >/dev/null || { not_ok "minisign -G"; exit 1; }
done
URL=https://$NET_IP/fw/update.lbu
W=$T/www
mkdir -p "$W/fw"
rom_v() { # V [mkrom args]
	local v=$1; shift
	set -- "$v" "$@"
	"$OUT/lboot" mkinitramfs -o "$T/initramfs-v$1.cpio.xz" --init "$OUT/lboot-target" \
		--ca "$K/ca.pem" --update-key "$UK/upd.pub" --firmware-version "$1" \
		--option "lboot.update=$URL" >"$T/mkinitramfs-v$1.log" 2>&1 ||
		{ sed 's/^/# /' "$T/mkinitramfs-v$1.log"; not_ok "mkinitramfs v$1"; exit 1; }
	rom_build "$T/v$1$2.rom" --kernel "$OUT/bzImage" --initrd "$T/initramfs-v$1.cpio.xz" \
		--cmdline "$ROM_CMDLINE_TEST" ${2:+--slots --payload-version $1 --payload-label "lboot e2e v$1"}
	cat "$T/v$1$2-vars.fd" "$T/v$1$2.rom" >"$T/flash-v$1$2.img"
}
rom_v 1
rom_v 2
rom_v 1 s # with payload slots (the last part)
rom_v 2 s
lbu() { # V OUT KEY [FLASH-V]
	"$OUT/lboot" update image --version "$1" --label "lboot e2e v$1" -o "$2" "$T/flash-v${4:-$1}.img" 2>/dev/null &&
		minisign -S -s "$UK/$3.key" -m "$2" -t "lboot e2e" >/dev/null || { not_ok "update image v$1"; exit 1; }
}
serve() { # FILE: what nginx serves at $URL (and its signature)
	cp "$1" "$W/fw/update.lbu"
	cp "$1.minisig" "$W/fw/update.lbu.minisig"
	chmod a+r "$W/fw/"*
}
lbu 2 "$T/v2.lbu" upd
lbu 2 "$T/tampered.lbu" upd
printf 'X' | dd of="$T/tampered.lbu" bs=1 seek=$((4096 + 0x400000)) conv=notrunc status=none
lbu 2 "$T/other.lbu" other
lbu 0 "$T/old.lbu" upd 1
rom_demo_disk "$T/disk.img" fwupd-https
serve "$T/v2.lbu"
net_nginx "$W" https
net_dnsmasq dnsmasq --dhcp-range=192.168.77.50,192.168.77.99,255.255.255.0,1h
net_wait_http "$URL.minisig" && ok "nginx serves the update over HTTPS" ||
	{ not_ok "nginx serves the update over HTTPS"; exit 1; }
flash_same() { # FLASH REFERENCE: equal outside the variable store
	python3 - "$1" "$2" <<'EOF'
import sys
a = open(sys.argv[1], 'rb').read(); b = open(sys.argv[2], 'rb').read()
sys.exit(0 if len(a) == len(b) and a[:0xC00000] == b[:0xC00000] and a[0xC84000:] == b[0xC84000:] else 1)
EOF
}
U=$(printf '%s' "$URL" | sed 's/[.]/\\./g')

# --- refused: tampered, another key, older; the flash byte-identical ------
cp "$T/flash-v1.img" "$T/flash.img"
first=1
for what in "tampered:the signature \\(key [0-9A-F]+\\): bad signature" \
	"other:the signature \\(key [0-9A-F]+\\): (no trusted key|unknown key|.*key)" \
	"old:version 0 is older than the running firmware's 1 \\(no downgrade\\)"; do
	n=${what%%:*} re=${what#*:}
	serve "$T/$n.lbu"
	E2E_FLASH=$T/flash.img qemu_start "${NIC[@]}" -drive "file=$T/disk.img,format=raw,if=virtio,snapshot=on"
	if [ $first = 1 ]; then
		expect 'lboot: firmware version 1, 1 update key' 180 && ok "v1 runs: firmware version 1" ||
			not_ok "v1 runs: firmware version 1"
		expect 'lboot: update: bringing the network up' 60 && ok "v1 brings the network up for lboot.update=https://" ||
			not_ok "v1 brings the network up for lboot.update=https://"
	fi
	if expect "lboot: update $U: refused: $re" 300; then
		ok "refused ($n): one line naming the URL and the reason"
	else
		grep -E 'lboot: (update|net)' "$T/serial.log" | sed 's/^/# /'
		not_ok "refused ($n): one line naming the URL and the reason"
	fi
	[ "$(grep -c "lboot: update $URL: refused" "$T/serial.log")" = 1 ] &&
		ok "refused ($n): said once" || not_ok "refused ($n): said once"
	if [ $first = 1 ]; then
		expect 'lboot-target: cmdline: .*rom.test=fwupd-https' 300 && ok "refused: the boot goes on (the target OS boots)" ||
			not_ok "refused: the boot goes on (the target OS boots)"
	fi
	first=0
	qemu_stop
	mv "$T/serial.log" "$T/serial-$n.log"
done
flash_same "$T/flash.img" "$T/flash-v1.img" && ok "refused updates: the flash outside the variable store is byte-identical" ||
	not_ok "refused updates: the flash outside the variable store is byte-identical"

# --- nothing served: one line naming the URL, the boot goes on ----------
rm -f "$W/fw/update.lbu" "$W/fw/update.lbu.minisig"
E2E_FLASH=$T/flash.img qemu_start "${NIC[@]}" -drive "file=$T/disk.img,format=raw,if=virtio,snapshot=on"
expect "lboot: update $U: HTTP 404 Not Found" 300 && ok "nothing served: one line naming the URL (HTTP 404)" ||
	{ grep -aE 'lboot: update' "$T/serial.log" | sed 's/^/# /'; not_ok "nothing served: one line naming the URL (HTTP 404)"; }
expect 'lboot-target: cmdline: .*rom.test=fwupd-https' 300 && ok "nothing served: the target OS boots" ||
	not_ok "nothing served: the target OS boots"
qemu_stop
mv "$T/serial.log" "$T/serial-404.log"
flash_same "$T/flash.img" "$T/flash-v1.img" && ok "nothing served: the flash is unchanged" ||
	not_ok "nothing served: the flash is unchanged"

# --- accepted: the server serves v2; v1 writes it, restarts, v2 runs -----
serve "$T/v2.lbu"
: >"$T/nginx/access.log"
cp "$T/flash-v1.img" "$T/flash.img"
E2E_REBOOT=1 E2E_FLASH=$T/flash.img qemu_start "${NIC[@]}" -drive "file=$T/disk.img,format=raw,if=virtio,snapshot=on"
expect 'lboot: firmware version 1, 1 update key' 180 && ok "update: v1 starts" || not_ok "update: v1 starts"
if expect "lboot: update $U: version 2 \\(lboot e2e v2\\) written to /dev/mtd[0-9]+: [0-9]+ of 4096 erase blocks, each read back \\([0-9]+ ms with the checks\\); restarting into it" 300; then
	ok "update: v1 fetched v2 over HTTPS and wrote it through MTD"
	log "$(tr -d '\r' <"$T/serial.log" | grep -oE 'lboot: update https://[^ ]*: fetching.*|version 2 \(lboot e2e v2\) written to .*' | head -2 | tr '\n' ' ')"
else
	grep -E 'lboot: (update|net)|mtd' "$T/serial.log" | head -12 | sed 's/^/# /'
	not_ok "update: v1 fetched v2 over HTTPS and wrote it through MTD"
fi
t0=$(elapsed)
expect 'lboot: firmware version 2, 1 update key' 240 && ok "update: after the restart v2 runs (its start line)" ||
	not_ok "update: after the restart v2 runs (its start line)"
expect "lboot: update $U: version 2 is the running firmware's: nothing to do" 300 &&
	ok "update: v2 fetches the same version and writes nothing" ||
	not_ok "update: v2 fetches the same version and writes nothing"
expect 'lboot-target: cmdline: .*rom.test=fwupd-https' 300 && ok "update: v2 boots the target OS" ||
	not_ok "update: v2 boots the target OS"
log "restart to v2's start line: from $t0 s"
qemu_stop
flash_same "$T/flash.img" "$T/flash-v2.img" && ok "update: the flash is v2 outside the variable store" ||
	not_ok "update: the flash is v2 outside the variable store"
# once by v1, once by v2: each fetch is one GET of the file and one of its signature
[ "$(grep -c 'GET /fw/update.lbu HTTP' "$T/nginx/access.log")" = 2 ] &&
	[ "$(grep -c 'GET /fw/update.lbu.minisig HTTP' "$T/nginx/access.log")" = 2 ] &&
	ok "nginx: one GET of the file and one of its signature per boot" ||
	{ sed 's/^/# /' "$T/nginx/access.log"; not_ok "nginx: one GET of the file and one of its signature per boot"; }

# --- a payload update over HTTPS: v1 (slot A) writes slot B, v2 runs ----
"$OUT/lboot" update image --slot -o "$T/v2s.lbu" "$T/flash-v2s.img" 2>/dev/null &&
	minisign -S -s "$UK/upd.key" -m "$T/v2s.lbu" -t "lboot e2e" >/dev/null ||
	{ not_ok "update image --slot v2"; e2e_done; }
serve "$T/v2s.lbu"
mv "$T/serial.log" "$T/serial-whole.log"
cp "$T/flash-v1s.img" "$T/flash.img"
E2E_REBOOT=1 E2E_FLASH=$T/flash.img qemu_start "${NIC[@]}" -drive "file=$T/disk.img,format=raw,if=virtio,snapshot=on"
if expect "lboot: update $U: version 2 \\(lboot e2e v2\\) written to payload slot B of /dev/mtd[0-9]+: [0-9]+ of 1536 erase blocks" 300; then
	ok "payload: v1 (slot A) fetched a payload update over HTTPS and wrote slot B"
else
	grep -E 'lbootdxe: (slot|booting)|lboot: (update|net)' "$T/serial.log" | head -12 | sed 's/^/# /'
	not_ok "payload: v1 (slot A) fetched a payload update over HTTPS and wrote slot B"
fi
expect 'lbootdxe: booting slot B \(version 2\): the newer of two that check' 240 &&
	expect 'lboot: firmware version 2, 1 update key' 240 &&
	ok "payload: after the restart lbootdxe boots slot B and v2 runs" ||
	not_ok "payload: after the restart lbootdxe boots slot B and v2 runs"
qemu_stop
e2e_done
