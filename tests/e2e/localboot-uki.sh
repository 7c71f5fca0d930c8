#!/bin/bash
# Issue 2: a unified kernel image (/EFI/Linux/*.efi on the ESP, built with
# objcopy from systemd's stub around the target kernel, initrd and command
# line): lboot splits it, kexecs .linux with .initrd and the .cmdline.
. "$(dirname "$0")/lib.sh"
e2e_init localboot-uki
target_os
stub=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
[ -f "$stub" ] || { not_ok "no $stub (apt-get install systemd-boot-efi)"; exit 1; }
R=$T/root
mkdir -p "$R/EFI/Linux"
printf 'NAME="Target OS"\nPRETTY_NAME="Target OS UKI"\nID=target\nVERSION_ID="1"\n' >"$T/osrel"
printf 'console=ttyS0 lboot-test=uki-cmdline\n' >"$T/cmdline"
# section addresses after the stub's own, initrd and kernel 64 MiB apart
objcopy \
	--add-section .osrel="$T/osrel" --change-section-vma .osrel=0x20000 \
	--add-section .cmdline="$T/cmdline" --change-section-vma .cmdline=0x30000 \
	--add-section .initrd="$TARGET_INITRD" --change-section-vma .initrd=0x1000000 \
	--add-section .linux="$TARGET_KERNEL" --change-section-vma .linux=0x5000000 \
	"$stub" "$R/EFI/Linux/target.efi" || { not_ok "objcopy UKI"; exit 1; }
mkpart_vfat "$T/esp.img" 40 "$R" ESP
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect "lboot: kexec '[^']*Target OS UKI[^']*' kernel=/EFI/Linux/target.efi initrd=.initrd cmdline=console=ttyS0 lboot-test=uki-cmdline" 90 &&
	ok "kexec of the UKI with its .cmdline" || not_ok "kexec of the UKI with its .cmdline"
expect 'lboot-target: cmdline: .*lboot-test=uki-cmdline' 180 && ok "target OS booted from the UKI" ||
	not_ok "target OS booted from the UKI"
e2e_done
