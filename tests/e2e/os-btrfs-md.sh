#!/bin/bash
# A real installed Debian 12 on two disks (tests/os/build.sh btrfs-md: an
# MD RAID1 across both, btrfs on it with subvolumes @ (root, /boot inside
# it, as Ubuntu lays it out) and @home; GRUB, its grub.cfg and kernels at
# /@/boot in the filesystem) booted by stock OVMF and the disk's own GRUB
# (the oracle), then by the LinuxBoot ROM (lboot assembles the array
# read-only, mounts the btrfs top level and reads /@/boot/grub/grub.cfg),
# each as one machine that reboots once (QEMU without -no-reboot; the
# disks snapshots of the cached images kept across the reboot):
#   boot 1: GRUB's default entry. The OS installs a newer kernel version
#           (its files in /boot inside subvolume @: the running kernel
#           under ABI 99, as os-sdboot does) and changes its kernel command
#           line the Debian way (GRUB_CMDLINE_LINUX in /etc/default/grub);
#           update-grub writes a new grub.cfg into the btrfs on the array,
#           the newest version first; the OS reboots.
#   boot 2: GRUB's default again: the new version with the new command
#           line; the OS powers off.
# From inside the OS each time: the state systemd reached, /proc/cmdline
# word for word, the kernel it runs, the root and /home subvolumes and the
# ESP it mounted, EFI or not; each equal between the two loaders; the
# array clean with both members after lboot (it assembled it read-only:
# no resync, no member dropped).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
. "$(dirname "$0")/os-lib.sh"
e2e_init os-btrfs-md
[ "$(id -u)" = 0 ] || { skip "fixture" "building the installed system needs root"; exit 0; }
img=$("$E2E_ROOT/tests/os/build.sh" btrfs-md 2>"$T/build.log") && [ -f "$img" ] && img2=${img%/*}/disk2.img &&
	[ -f "$img2" ] ||
	{ sed 's/^/# /' "$T/build.log" | tail -30; not_ok "fixture: Debian 12 with btrfs on MD RAID1 ('$img')"; exit 1; }
ok "fixture: Debian 12, btrfs subvolumes @ and @home on an MD RAID1 of two disks, GRUB ($img, disk2.img)"
U=1b00b7f5-0000-4000-8000-00000000b7f5   # the btrfs (build.sh)

mkdir -p "$T/ctl"
{ echo 'set -e'; printf '%s\n' "$OS_NEW_KERNEL"; cat <<'EOS'
sed -i 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="console=ttyS0,115200 lboot-fixture=updated"/' /etc/default/grub
update-grub
systemctl reboot
EOS
} >"$T/ctl/boot1"
mkpart_vfat "$T/ctl.img" 2 "$T/ctl" LBCTL 1BC7C7C7

R=$T
OS_BOOT2="update-grub"
machines grub
S=$T/serial-rom.log
tr -d '\r' <"$S" | grep -Eq 'lboot: md[0-9]+: RAID1 \(1\.2\) assembled read-only from vda2,vdb2, uuid 1b00a4d1-0000-4000-8000-00000000a4d1 name lboot-fixture:root$' &&
	ok "lboot assembles the array read-only from both members" ||
	{ grep -a 'lboot: md' "$S" | head -5 | sed 's/^/# /'; not_ok "lboot assembles the array read-only from both members"; }
grep -Eq "lboot: found /dev/md[0-9]+ btrfs uuid=$U label=root" "$S" &&
	ok "lboot finds the btrfs on the array" || not_ok "lboot finds the btrfs on the array"
# the version boot 1 installed (its uname under ABI 99)
NEW=$(new_version "$(field rom-1 uname)")
k=$(grep -a "lboot: kexec 'Debian GNU/Linux' kernel=/@/boot/vmlinuz-" "$S" | sed 's/.*kernel=\([^ ]*\) initrd=\([^ ]*\) .*/\1 \2/')
case $k in
*-amd64" "*-amd64$'\n'"/@/boot/vmlinuz-$NEW /@/boot/initrd.img-$NEW")
	ok "lboot boots GRUB's default entry, its paths inside subvolume @: after update-grub the new version" ;;
*) grep -a 'lboot: kexec' "$S" | sed 's/^/# /'; not_ok "lboot's kernels: $(echo $k)" ;;
esac

for n in 1 2; do compare grub GRUB $n cmdline uname root home esp efi; done
case $(field rom-1 cmdline) in
"BOOT_IMAGE=/@/boot/vmlinuz-"*" root=UUID=$U ro rootflags=subvol=@ console=ttyS0,115200 quiet")
	ok "boot 1: GRUB's BOOT_IMAGE= (a path in subvolume @), then rootflags=subvol=@" ;;
*) not_ok "boot 1: command line '$(field rom-1 cmdline)'" ;;
esac
case $(field rom-2 cmdline) in
"BOOT_IMAGE=/@/boot/vmlinuz-$NEW "*" lboot-fixture=updated quiet")
	ok "boot 2: the newer kernel and the command line update-grub wrote in boot 1" ;;
*) not_ok "boot 2: command line '$(field rom-2 cmdline)'" ;;
esac
case $(field rom-1 root) in
/dev/md[0-9]*'[/@]') ok "root is subvolume @ on the array: $(field rom-1 root)" ;;
*) not_ok "root is '$(field rom-1 root)'" ;;
esac
case $(field rom-1 home) in
/dev/md*'[/@home]') ok "/home is subvolume @home: $(field rom-1 home)" ;;
*) not_ok "/home is '$(field rom-1 home)'" ;;
esac
for b in grub rom; do for n in 1 2; do
	case $(field $b-$n md) in
	md*' active raid1 '*'[UU]') ok "$b boot $n: the array is active with both members: $(field $b-$n md)" ;;
	*) not_ok "$b boot $n: the array '$(field $b-$n md)'" ;;
	esac
done; done
case $(field rom-1 loader) in
"lboot "*) ok "the OS reads LoaderInfo: $(field rom-1 loader)" ;;
*) not_ok "LoaderInfo '$(field rom-1 loader)'" ;;
esac
e2e_done
