#!/bin/bash
# Issue 13: iPXE's cpio-wrapped initrds in the boot flow. An iPXE script
# over HTTP (nginx, QEMU's user network) loads the target kernel, its
# initrd, and two plain files wrapped by iPXE's "initrd URL /path mode=..."
# syntax. lboot (PID 1) fetches them once into the initrd buffer, each file
# after the newc header iPXE would build; the target OS (lboot-test.files:
# tests/guest/target-init.c) lists the files the kernel unpacked (path,
# mode, owner, mtime, content), the size of the initrd buffer it was
# handed (boot_params ramdisk_size) and, kept by retain_initrd and read
# back through /proc/kcore, FNV-1a hashes of its bytes. One wrapped file comes over HTTP,
# the other over TFTP (QEMU's server).
#   1. lboot boots the script: the files are there with their modes, and
#      the buffer is byte for byte iPXE's layout (computed here).
#   2. real iPXE (SeaBIOS, -boot n, Debian's ipxe-qemu ROM) boots the same
#      script from the same server: the same file list, the same bytes but
#      for the zero gaps this iPXE leaves between pieces.
#   3. a bad mode= is one line naming the script, the file and the mode;
#      the next entry (on the disk; lboot.boot=net puts the network first)
#      boots.
#   4. verified: the script and every file signed (URL.minisig): boots, the
#      wrapped files checked on their own bytes; 5. a wrapped file changed
#      on the server is refused, naming its URL.
. "$(dirname "$0")/lib.sh"
e2e_init netboot-ipxe-cpio
command -v nginx >/dev/null || { not_ok "nginx not installed (scripts/deps.sh)"; exit 1; }
command -v minisign >/dev/null || { not_ok "minisign not installed (scripts/deps.sh)"; exit 1; }
target_os
W=$T/www K=$T/keys
mkdir -p "$W/files" "$W/tftp" "$K" "$T/nginx" "$T/root/loader/entries"
cp "$TARGET_KERNEL" "$W/vmlinuz"
cp "$TARGET_INITRD" "$W/initrd.img"
printf 'secret=0600-only\n' >"$W/files/x.conf"        # 17 bytes: padding after it
printf 'hello\n' >"$W/tftp/hello.txt"                # over QEMU's TFTP server
cat >"$W/cpio.ipxe" <<'EOS'
#!ipxe
dhcp
kernel vmlinuz console=ttyS0 panic=-1 no_timer_check retain_initrd lboot-test.files lboot-test=cpio
initrd initrd.img
initrd files/x.conf /etc/x.conf mode=0600
initrd tftp://10.0.2.2/hello.txt /hello.txt
boot
EOS
cat >"$W/bad.ipxe" <<'EOS'
#!ipxe
kernel vmlinuz console=ttyS0 lboot-test=bad-mode
initrd initrd.img
initrd files/x.conf /etc/x.conf mode=0x9
boot
EOS
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
nginx_conf "$W" "listen 127.0.0.1:$PORT;"
nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" 2>"$T/nginx/start.log" &
NGINX=$!
trap 'qemu_stop; kill $NGINX 2>/dev/null; e2e_dump_on_fail' EXIT
for i in $(seq 1 50); do
	python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/cpio.ipxe')" 2>/dev/null && break
	sleep 0.1
done
U=http://10.0.2.2:$PORT
NIC="user,model=virtio-net-pci,tftp=$W/tftp,bootfile=$U/cpio.ipxe"

# the files the target listed, and the initrd size it was handed
files_of() { tr -d '\r' <"$1" | sed -n 's/^lboot-target: file: //p' | sort; }
size_of() { tr -d '\r' <"$1" | sed -n 's/^lboot-target: initrd-size: //p' | tail -n1; }
bytes_of() { tr -d '\r' <"$1" | sed -n 's/^lboot-target: initrd-bytes: //p' | tail -n1; }
# The buffer iPXE's bzImage loader builds (src/core/cpio.c, bzimage.c):
# each piece at a 4-byte boundary; a wrapped file after its newc header
# (110 bytes of "070701" and 13 8-digit hex fields, the name, a NUL, zeros
# to 4 bytes); nothing after the last piece. Its size, FNV-1a 64 of all
# bytes and of the non-zero ones (what tests/guest/target-init.c prints).
expect_buf=$(python3 - "$W/initrd.img" "" "$W/files/x.conf" /etc/x.conf:0600 "$W/tftp/hello.txt" /hello.txt:0644 <<'EOF'
import sys
a = sys.argv[1:]
buf = b""
for f, wrap in zip(a[0::2], a[1::2]):
    buf += b"\0" * (-len(buf) % 4)
    data = open(f, "rb").read()
    if wrap:
        name, mode = wrap.split(":")
        fields = [0, 0o100000 | int(mode, 8), 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0]
        hdr = b"070701" + b"".join(b"%08x" % v for v in fields) + name.encode() + b"\0"
        buf += hdr + b"\0" * (-len(hdr) % 4)
    buf += data
def fnv(bs):
    h = 0xcbf29ce484222325
    for b in bs:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h
print("%d fnv1a64 %016x nonzero %016x head %s" % (len(buf), fnv(buf), fnv(b for b in buf if b), buf[:16].hex()))
EOF
)
want_size=${expect_buf%% *}
want_bytes=${expect_buf#* }

# --- 1. lboot boots the script ---------------------------------------------------
qemu_start -nic "$NIC"
expect "lboot: kexec 'vmlinuz' kernel=$U/vmlinuz initrd=$U/initrd.img,$U/files/x.conf,tftp://10.0.2.2/hello.txt cmdline=console=ttyS0 panic=-1 no_timer_check retain_initrd lboot-test.files lboot-test=cpio" 240 &&
	ok "lboot: the script's kernel and three initrds loaded" || not_ok "lboot: the script's kernel and three initrds loaded"
expect 'lboot-target: files-end' 240 && ok "lboot: target OS booted and listed its files" ||
	not_ok "lboot: target OS booted and listed its files"
qemu_stop
cp "$T/serial.log" "$T/lboot.serial"
files_of "$T/lboot.serial" >"$T/lboot.files"
grep -qx '/etc/x.conf 0600 0:0 0 secret=0600-only.' "$T/lboot.files" &&
	ok "lboot: /etc/x.conf in the target with mode 0600 and its content" ||
	not_ok "lboot: /etc/x.conf in the target with mode 0600 and its content ($(grep x.conf "$T/lboot.files"))"
grep -qx '/hello.txt 0644 0:0 0 hello.' "$T/lboot.files" &&
	ok "lboot: /hello.txt with the default mode 0644" || not_ok "lboot: /hello.txt with the default mode 0644"
got=$(size_of "$T/lboot.serial")
[ "$got" = "$want_size" ] && ok "lboot: the initrd buffer is $got bytes, iPXE's layout" ||
	not_ok "lboot: the initrd buffer is ${got:-?} bytes, iPXE's layout gives $want_size"
lbytes=$(bytes_of "$T/lboot.serial")
[ "$lbytes" = "$want_bytes" ] && ok "lboot: the initrd buffer's bytes are iPXE's layout (FNV-1a $want_bytes)" ||
	not_ok "lboot: the initrd buffer's bytes are iPXE's layout (target: ${lbytes:-?}; want: $want_bytes)"
n=$(awk -v s="$(stat -c %s "$W/vmlinuz")" '$7 == "/vmlinuz" && $9 == 200 && $10 == s' "$T/nginx/access.log" | wc -l)
[ "$n" = 1 ] && ok "lboot: the kernel was downloaded in full exactly once" ||
	not_ok "lboot: the kernel was downloaded in full exactly once ($n)"

# --- 2. real iPXE boots the same script ---------------------------------------------
if [ -f /usr/lib/ipxe/qemu/efi-virtio.rom ]; then
	E2E_BOOT_N=1 E2E_MACHINE=pc qemu_start -nic "$NIC"
	expect 'lboot-target: files-end' 400 && ok "real iPXE: target OS booted ($(elapsed) s)" ||
		not_ok "real iPXE: target OS booted"
	qemu_stop
	cp "$T/serial.log" "$T/ipxe.serial"
	files_of "$T/ipxe.serial" >"$T/ipxe.files"
	if [ -s "$T/ipxe.files" ] && cmp -s "$T/ipxe.files" "$T/lboot.files"; then
		ok "real iPXE and lboot: the same files (path, mode, owner, mtime, content)"
	else
		not_ok "real iPXE and lboot: the same files"
		diff "$T/ipxe.files" "$T/lboot.files" | sed 's/^/# /'
	fi
	# this iPXE (2019) leaves zeros between pieces where its memory
	# reshuffle put the next one (a wrapped file's header starts at a page
	# boundary); the kernel skips zeros between archives. The non-zero
	# bytes, in order, must be the same.
	real=$(size_of "$T/ipxe.serial") rbytes=$(bytes_of "$T/ipxe.serial")
	log "initrd buffer: real iPXE $real bytes, lboot $got bytes"
	rnz=${rbytes#*nonzero } lnz=${lbytes#*nonzero }
	[ -n "$rbytes" ] && [ "${rnz%% *}" = "${lnz%% *}" ] &&
		ok "real iPXE and lboot: the same initrd bytes but for zero gaps (FNV-1a of non-zero bytes ${lnz%% *})" ||
		not_ok "real iPXE and lboot: the same initrd bytes but for zero gaps (real iPXE: ${rbytes:-?}; lboot: ${lbytes:-?})"
else
	skip "real iPXE" "ipxe-qemu not installed (/usr/lib/ipxe/qemu/efi-virtio.rom)"
fi

# --- 3. a bad mode=: one line, then the next entry ------------------------------------
cp "$TARGET_KERNEL" "$T/root/vmlinuz"
cp "$TARGET_INITRD" "$T/root/initrd.img"
cat >"$T/root/loader/entries/disk.conf" <<'EOT'
title   on the disk
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=disk-after-net
EOT
mkpart_ext4 "$T/p1.img" 48 "$T/root" CPIODISK
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
E2E_APPEND="lboot.timeout=0 lboot.boot=net" qemu_start -nic "user,model=virtio-net-pci,bootfile=$U/bad.ipxe" \
	-drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: network boot: iPXE script $U/bad.ipxe: initrd $U/files/x.conf: mode=0x9: not a file mode \\(octal, at most 07777\\)" 240 &&
	ok "bad mode: one line names the script, the file and the mode" ||
	not_ok "bad mode: one line names the script, the file and the mode"
expect 'lboot-target: cmdline: .*lboot-test=disk-after-net' 240 && ok "bad mode: the next entry (the disk's) booted" ||
	not_ok "bad mode: the next entry (the disk's) booted"
expect_not 'lboot-test=bad-mode' && ok "bad mode: the network entry was not booted" ||
	not_ok "bad mode: the network entry was not booted"
[ "$(tr -d '\r' <"$T/serial.log" | grep -c 'mode=0x9')" = 1 ] && ok "bad mode: exactly one line" ||
	not_ok "bad mode: exactly one line"
qemu_stop

# --- 4./5. verified: signed script and files; a wrapped file changed -------------------
minisign -G -W -p "$K/k.pub" -s "$K/k.key" >/dev/null || { not_ok "minisign -G"; exit 1; }
for f in cpio.ipxe vmlinuz initrd.img files/x.conf tftp/hello.txt; do
	minisign -S -s "$K/k.key" -m "$W/$f" >/dev/null || { not_ok "sign $f"; exit 1; }
done
chmod -R a+rX "$W"
"$OUT/lboot" mkinitramfs -o "$T/fw.cpio.xz" --init "$OUT/lboot-target" --trust "$K/k.pub" 2>/dev/null ||
	{ not_ok "mkinitramfs --trust"; exit 1; }
E2E_INITRD=$T/fw.cpio.xz qemu_start -nic "$NIC"
expect "lboot: verified 'vmlinuz': kernel, 3 initrds and command line by signatures \\(kernel: key [0-9A-F]{16}; command line: $U/cpio.ipxe\\)" 240 &&
	ok "signed: the script, the kernel and the wrapped files verified" ||
	not_ok "signed: the script, the kernel and the wrapped files verified"
expect 'lboot-target: files-end' 240 && ok "signed: target OS booted" || not_ok "signed: target OS booted"
qemu_stop
files_of "$T/serial.log" | cmp -s - "$T/lboot.files" && ok "signed: the same files in the target" ||
	not_ok "signed: the same files in the target"
printf 'secret=changed!!\n' >"$W/files/x.conf"   # same length: only the signature tells
E2E_INITRD=$T/fw.cpio.xz qemu_start -nic "$NIC"
expect "lboot: refused: 'vmlinuz' \\(network\\): $U/files/x.conf: bad signature" 240 &&
	ok "signed: a wrapped file changed on the server is refused" ||
	not_ok "signed: a wrapped file changed on the server is refused"
expect_not 'lboot-target: TARGET-OS-UP' && ok "signed: nothing booted" || not_ok "signed: nothing booted"
qemu_stop
e2e_done
