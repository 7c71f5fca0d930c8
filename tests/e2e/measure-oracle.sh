#!/bin/bash
# The reference for lboot's PCR 4 and PCR 9 events: stock OVMF_CODE_4M +
# systemd-boot (Debian's systemd-bootx64.efi) + swtpm (tpm-tis, q35, TCG)
# boot a BLS entry from an ESP (Debian's kernel, two initrds, a command
# line); the guest prints the firmware's TCG2 log. Then `lboot tpm measure`
# measures the same files on a host swtpm, and the two logs are compared,
# parsed by a small independent Python reader:
#  - PCR 9: the stub's two EV_EVENT_TAG events (LoadOptions, then initrd):
#    type, PCR, every bank's digest and the event data, byte for byte;
#  - PCR 4: the kernel's EV_EFI_BOOT_SERVICES_APPLICATION (the last one):
#    type, every digest, ImageLengthInMemory, ImageLinkTimeAddress (the
#    address and the device path name the firmware's memory and disk: they
#    differ by design, docs/measured-boot.md).
# systemd-boot 252 hands the kernel "initrd=\initrd1 initrd=\initrd2
# OPTIONS" as LoadOptions and the initrds concatenated (no padding; the last
# one here is 3 bytes past a multiple of 4) via LoadFile2; lboot is given
# that same command line and the same files.
. "$(dirname "$0")/lib.sh"
E2E_NAME=measure-oracle
T=$E2E_ROOT/build/e2e/$E2E_NAME
rm -rf "$T"; mkdir -p "$T/esp/EFI/BOOT" "$T/esp/loader/entries" "$T/root/bin" "$T/st" "$T/st2"
spid= spid2= QEMU_PID=
cleanup() {
	[ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	[ -n "$spid2" ] && kill "$spid2" 2>/dev/null
	if [ "$E2E_FAILED" != 0 ] && [ -f "$T/serial.log" ]; then
		echo "# --- last 30 lines of $T/serial.log ---"
		tail -n 30 "$T/serial.log" | tr -d '\r' | sed 's/^/# | /'
	fi
}
trap cleanup EXIT
SDBOOT=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
CODE=/usr/share/OVMF/OVMF_CODE_4M.fd VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
for c in swtpm qemu-system-x86_64 busybox python3 mkfs.vfat mcopy sfdisk; do
	command -v $c >/dev/null || { not_ok "$c missing (scripts/deps.sh)"; exit 1; }
done
for f in "$SDBOOT" "$CODE" "$VARS" "$OUT/lboot"; do
	[ -f "$f" ] || { not_ok "$f missing (scripts/deps.sh, make)"; exit 1; }
done
K=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n1)
[ -f "$K" ] || { not_ok "no Debian kernel in /boot"; exit 1; }
log "kernel $K"

# ---- the ESP: systemd-boot, one BLS entry, two initrds ---------------------------
cp "$(command -v busybox)" "$T/root/bin/busybox"
cat >"$T/root/init" <<'EOS'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t securityfs securityfs /sys/kernel/security
echo
echo "@@CMDLINE $(cat /proc/cmdline)"
cat /sys/kernel/security/tpm0/binary_bios_measurements >/log.bin
echo "@@LOG-BEGIN@@"
base64 /log.bin
echo "@@LOG-END@@"
echo "@@SECOND $(cat /second.txt)"
poweroff -f
EOS
chmod 755 "$T/root/init"
(cd "$T/root" && find . | cpio -o -H newc --quiet) >"$T/esp/initrd1"
mkdir -p "$T/root2" && echo "second initrd" >"$T/root2/second.txt"
(cd "$T/root2" && find . | cpio -o -H newc --quiet) >"$T/esp/initrd2"
# a last initrd whose size is not a multiple of 4: systemd-boot hands it
# over unpadded (the kernel skips trailing zeros), so must lboot measure it
printf '\0\0\0' >>"$T/esp/initrd2"
cp "$K" "$T/esp/vmlinuz"
cp "$SDBOOT" "$T/esp/EFI/BOOT/BOOTX64.EFI"
printf 'timeout 0\ndefault test.conf\n' >"$T/esp/loader/loader.conf"
OPTIONS="console=ttyS0 panic=-1 quiet"
printf 'title measured\nlinux /vmlinuz\ninitrd /initrd1\ninitrd /initrd2\noptions %s\n' \
	"$OPTIONS" >"$T/esp/loader/entries/test.conf"
mkpart_vfat "$T/esp.img" 64 "$T/esp" ESP
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp"

# ---- the reference boot ------------------------------------------------------------
swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" \
	--flags startup-clear --terminate >"$T/swtpm.log" 2>&1 &
spid=$!
for _ in $(seq 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
cp "$VARS" "$T/vars.fd"
timeout 600 qemu-system-x86_64 -machine q35 -accel tcg -m 1024 -display none -no-reboot \
	-serial file:"$T/serial.log" -monitor none -nic none \
	-drive if=pflash,format=raw,unit=0,readonly=on,file="$CODE" \
	-drive if=pflash,format=raw,unit=1,file="$T/vars.fd" \
	-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
	-device tpm-tis,tpmdev=tpm0 \
	-drive file="$T/disk.img",format=raw,if=virtio >"$T/qemu.log" 2>&1 &
QEMU_PID=$!
wait $QEMU_PID; QEMU_PID=
spid=
tr -d '\r' <"$T/serial.log" >"$T/serial.txt"
sed -n '/@@LOG-BEGIN@@/,/@@LOG-END@@/p' "$T/serial.txt" | sed '1d;$d' | base64 -d >"$T/ref.bin" 2>/dev/null
if [ -s "$T/ref.bin" ] && grep -q '^@@SECOND second initrd' "$T/serial.txt"; then
	ok "OVMF + systemd-boot booted the entry with both initrds and wrote a log"
else
	not_ok "OVMF + systemd-boot booted the entry with both initrds and wrote a log"
	exit 1
fi
KCMD=$(sed -n 's/^@@CMDLINE //p' "$T/serial.txt")
LOADOPTS="initrd=\\initrd1 initrd=\\initrd2 $OPTIONS"
log "kernel saw: $KCMD"
[ "$KCMD" = "$LOADOPTS" ] && ok "systemd-boot passed LoadOptions '$LOADOPTS'" ||
	not_ok "systemd-boot passed LoadOptions '$KCMD', expected '$LOADOPTS'"

# ---- lboot measures the same files ---------------------------------------------------
for try in 1 2 3 4 5; do
	port=$(( 20000 + (RANDOM * 7 + $$) % 40000 ))
	swtpm socket --tpm2 --tpmstate dir="$T/st2" \
		--server type=tcp,port=$port,bindaddr=127.0.0.1 \
		--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 \
		--flags not-need-init,startup-clear >"$T/swtpm2.log" 2>&1 &
	spid2=$!
	up=
	for _ in $(seq 50); do
		kill -0 "$spid2" 2>/dev/null || break
		"$OUT/lboot" tpm --tcp 127.0.0.1:$port getrandom 1 >/dev/null 2>&1 && { up=1; break; }
		sleep 0.1
	done
	[ -n "$up" ] && break
	kill "$spid2" 2>/dev/null; wait "$spid2" 2>/dev/null; spid2=
done
[ -n "$spid2" ] || { not_ok "host swtpm did not start"; exit 1; }
"$OUT/lboot" tpm --tcp 127.0.0.1:$port measure --kernel "$T/esp/vmlinuz" --path /vmlinuz \
	--cmdline "$LOADOPTS" --initrd "$T/esp/initrd1" --initrd "$T/esp/initrd2" \
	--log-out "$T/mine.bin" >"$T/measure.out" 2>&1 &&
	ok "lboot tpm measure of the same files" || { not_ok "lboot tpm measure"; cat "$T/measure.out"; exit 1; }

# ---- compare -------------------------------------------------------------------------
# One line per event: PCR TYPE DIGESTS(alg=hex,...) DATA(hex); for the
# PCR 4 applications, DATA is "len=N link=N" (UEFI_IMAGE_LOAD_EVENT fields
# that name no firmware memory or disk).
cat >"$T/events.py" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
esz = struct.unpack_from('<I', b, 28)[0]
e = b[32:32 + esz]
assert e[:16] == b'Spec ID Event03\0'
n = struct.unpack_from('<I', e, 24)[0]
sizes = {}
for i in range(n):
    a, s = struct.unpack_from('<HH', e, 28 + 4 * i)
    sizes[a] = s
o = 32 + esz
names = {4: 'sha1', 11: 'sha256', 12: 'sha384', 13: 'sha512'}
while o + 12 <= len(b):
    pcr, typ, cnt = struct.unpack_from('<III', b, o)
    if pcr == 0 and typ == 0:
        break
    o += 12
    digs = []
    for _ in range(cnt):
        a = struct.unpack_from('<H', b, o)[0]
        digs.append('%s=%s' % (names.get(a, hex(a)), b[o + 2:o + 2 + sizes[a]].hex()))
        o += 2 + sizes[a]
    sz = struct.unpack_from('<I', b, o)[0]
    d = b[o + 4:o + 4 + sz]
    o += 4 + sz
    if typ == 0x80000003:
        loc, ln, link, dpl = struct.unpack_from('<QQQQ', d, 0)
        d = 'len=%d link=%d' % (ln, link)
    else:
        d = d.hex()
    print(pcr, hex(typ), ','.join(sorted(digs)), d)
EOF
python3 "$T/events.py" "$T/ref.bin" >"$T/ref.txt" || { not_ok "parse the reference log"; exit 1; }
python3 "$T/events.py" "$T/mine.bin" >"$T/mine.txt" || { not_ok "parse lboot's log"; exit 1; }
log "reference: $(wc -l <"$T/ref.txt") events, $(grep -c '^9 ' "$T/ref.txt") in PCR 9"
grep '^9 ' "$T/ref.txt" >"$T/ref9"
grep '^9 ' "$T/mine.txt" >"$T/mine9"
[ "$(wc -l <"$T/ref9")" -eq 2 ] && diff "$T/ref9" "$T/mine9" >"$T/d9" &&
	ok "PCR 9: LoadOptions and initrd events equal the stub's (type, 4 digests, event data)" ||
	{ not_ok "PCR 9 events differ"; sed 's/^/# /' "$T/d9" "$T/ref9" "$T/mine9" | cut -c1-300; }
grep '^4 0x80000003 ' "$T/ref.txt" | tail -n1 >"$T/ref4"
grep '^4 0x80000003 ' "$T/mine.txt" >"$T/mine4"
[ -s "$T/ref4" ] && diff "$T/ref4" "$T/mine4" >"$T/d4" &&
	ok "PCR 4: the kernel's EV_EFI_BOOT_SERVICES_APPLICATION equals LoadImage's (4 digests, length, link address)" ||
	{ not_ok "PCR 4 kernel event differs"; sed 's/^/# /' "$T/d4" | cut -c1-300; }
exit 0
