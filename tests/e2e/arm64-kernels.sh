#!/bin/bash
# The kernel formats arm64 distributions ship, booted through the arm64 ROM
# (issue 27): Linux 6.1's arm64 kexec_file_load takes an uncompressed Image
# only, so lboot decompresses a gzip'd Image (Image.gz: Ubuntu's vmlinuz)
# and an EFI zboot image (a PE whose payload is the compressed Image:
# drivers/firmware/efi/libstub/zboot-header.S; gzip) from the staged bytes
# (src/kexec/kimage_arm64.c). The zboot file here is made from Debian's
# Image by the header's layout (MZ, "zimg", payload offset and size, "gzip")
# without the EFI decompressor stub a kernel build would put in front: lboot
# never runs that stub, it reads the header and inflates the payload.
#   1. grub.cfg: a zboot image with one payload byte changed (refused with
#      one line naming the file and the gzip error), then the intact zboot
#      image boots;
#   2. a BLS entry whose kernel is Debian's Image gzip'd boots.
E2E_ARM64=1
. "$(dirname "$0")/lib.sh"
e2e_init kernels
target_os
R=$T/root
mkdir -p "$R/boot/grub" "$R/loader/entries"
cp "$TARGET_INITRD" "$R/boot/initrd.img"
gzip -9 -n -c "$TARGET_KERNEL" >"$R/boot/Image.gz"
python3 - "$R/boot/Image.gz" "$R/boot/vmlinuz.efi" "$R/boot/vmlinuz-bad.efi" <<'EOP'
import struct, sys
gz = open(sys.argv[1], 'rb').read()
off = 0x1000
h = bytearray(off)
h[0:8] = b'MZ\0\0zimg'
struct.pack_into('<II', h, 8, off, len(gz))
h[24:29] = b'gzip\0'
struct.pack_into('<I', h, 60, 0x40)
open(sys.argv[2], 'wb').write(bytes(h) + gz)
bad = bytearray(h + gz)
bad[off + len(gz) // 2] ^= 0x55
open(sys.argv[3], 'wb').write(bytes(bad))
EOP
cat >"$R/boot/grub/grub.cfg" <<'EOT'
set default=0
set timeout=5
menuentry 'zboot changed' {
	linux /boot/vmlinuz-bad.efi console=ttyS0 lboot-test=zboot-bad
	initrd /boot/initrd.img
}
menuentry 'zboot' {
	linux /boot/vmlinuz.efi console=ttyS0 lboot-test=zboot
	initrd /boot/initrd.img
}
EOT
mkpart_ext4 "$T/p1.img" $(( $(du -sm "$R" | cut -f1) + 32 )) "$R" ROOT
mkdisk_gpt "$T/disk.img" "$T/p1.img"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: boot failed: zboot changed \(/dev/vda1\): /boot/vmlinuz-bad.efi: gzip: .* \(EBADMSG\)" 120 &&
	ok "a zboot image with a changed payload byte: one line naming the file and the gzip error" ||
	not_ok "a zboot image with a changed payload byte: one line naming the file and the gzip error"
expect "lboot: /boot/vmlinuz.efi: EFI zboot image \(gzip\): the $(stat -c %s "$TARGET_KERNEL")-byte Image from its $(stat -c %s "$R/boot/Image.gz")-byte payload" 60 &&
	ok "the next entry's zboot image decompressed to Debian's Image ($(stat -c %s "$TARGET_KERNEL") bytes)" ||
	not_ok "the next entry's zboot image decompressed to Debian's Image"
expect 'lboot-target: cmdline: .*lboot-test=zboot( |$)' 120 && ok "the zboot entry boots ($(elapsed) s)" ||
	not_ok "the zboot entry boots"
expect_not 'lboot-test=zboot-bad' && ok "the changed image never ran" || not_ok "the changed image never ran"
qemu_stop

rm -rf "$R/boot/grub"
cat >"$R/loader/entries/gz.conf" <<'EOT'
title   gzip'd Image
linux   /boot/Image.gz
initrd  /boot/initrd.img
options console=ttyS0 lboot-test=image-gz
EOT
mkpart_ext4 "$T/p1.img" $(( $(du -sm "$R" | cut -f1) + 32 )) "$R" ROOT
mkdisk_gpt "$T/disk.img" "$T/p1.img"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: /boot/Image.gz: gzip'd Image: the $(stat -c %s "$TARGET_KERNEL")-byte Image from $(stat -c %s "$R/boot/Image.gz") bytes" 120 &&
	ok "a gzip'd Image decompressed by lboot" || not_ok "a gzip'd Image decompressed by lboot"
expect 'lboot-target: cmdline: .*lboot-test=image-gz' 120 && ok "the gzip'd Image boots ($(elapsed) s)" ||
	not_ok "the gzip'd Image boots"
e2e_done
