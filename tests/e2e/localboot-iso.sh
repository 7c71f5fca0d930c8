#!/bin/bash
# Issue 2: an ISO 9660 image (xorriso, Rock Ridge) in a CD drive with an
# isolinux config: lboot probes the volume id and date UUID, names the
# drive cd0 (GRUB's name) and boots from it.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-iso
target_os
command -v xorriso >/dev/null || { not_ok "no xorriso (apt-get install xorriso)"; exit 1; }
R=$T/root
mkdir -p "$R/isolinux" "$R/live"
cp "$TARGET_KERNEL" "$R/live/vmlinuz"
cp "$TARGET_INITRD" "$R/live/initrd.img"
cat >"$R/isolinux/isolinux.cfg" <<'EOT'
DEFAULT live
LABEL live
  MENU LABEL Live system
  KERNEL /live/vmlinuz
  APPEND initrd=/live/initrd.img console=ttyS0 lboot-test=iso
EOT
SOURCE_DATE_EPOCH=1700000000 xorriso -as mkisofs -quiet -R -V LBOOT_LIVE -o "$T/live.iso" "$R" 2>/dev/null ||
	{ not_ok "xorriso"; exit 1; }
qemu_start -drive "file=$T/live.iso,format=raw,media=cdrom,readonly=on"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: found /dev/sr0 iso9660 uuid=2023-11-14-22-13-20-00 label=LBOOT_LIVE \(cd0\)' 60 &&
	ok "iso9660 found with date uuid and volume id" || not_ok "iso9660 found"
expect "lboot: kexec 'Live system' kernel=/live/vmlinuz initrd=/live/initrd.img" 60 &&
	ok "kexec from the CD" || not_ok "kexec from the CD"
expect 'lboot-target: cmdline: .*lboot-test=iso' 180 && ok "target OS booted" || not_ok "target OS booted"
e2e_done
