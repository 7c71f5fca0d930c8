#!/bin/bash
# A real installed Debian 12 (tests/os/build.sh grub-lvm: GRUB, /boot on
# ext4, root on LVM, systemd) booted by stock OVMF and the disk's own GRUB
# (the oracle), then by the LinuxBoot ROM (lboot reads the same grub.cfg),
# each as one machine that reboots once (QEMU without -no-reboot; the disk
# a snapshot of the cached image kept across the reboot):
#   boot 1: GRUB's default entry. The OS runs `grub-reboot lboot-second`
#           (an admin's own entry in /etc/grub.d/40_custom) and reboots.
#   boot 2: that entry, once; the OS powers off.
# From inside the OS each time (the fixture's lboot-report unit, once the
# system is up): the state systemd reached, /proc/cmdline word for word,
# the kernel it runs, the root and /boot it mounted, EFI or not; each equal
# between the two loaders. What only the ROM gives the OS (the Boot Loader
# Interface: LoaderInfo, LoaderEntrySelected, systemd-analyze's firmware and
# loader times; Debian's GRUB sets none) is checked on its own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
. "$(dirname "$0")/os-lib.sh"
e2e_init os-grub-lvm
[ "$(id -u)" = 0 ] || { skip "fixture" "building the installed system needs root"; exit 0; }
img=$("$E2E_ROOT/tests/os/build.sh" grub-lvm 2>"$T/build.log") && [ -f "$img" ] ||
	{ sed 's/^/# /' "$T/build.log" | tail -30; not_ok "fixture: Debian 12 with GRUB, root on LVM ('$img')"; exit 1; }
ok "fixture: Debian 12 with GRUB, root on LVM ($img)"

# the control disk the fixture's report unit reads (label LBCTL)
mkdir -p "$T/ctl"
printf 'grub-reboot lboot-second\nsystemctl reboot\n' >"$T/ctl/boot1"
mkpart_vfat "$T/ctl.img" 2 "$T/ctl" LBCTL 1BC7C7C7

R=$T
OS_BOOT2="grub-reboot"

# stock OVMF with the disk's own GRUB beside the ROM
machines grub
grep -q "lboot: kexec 'Debian GNU/Linux'" "$T/serial-rom.log" &&
	ok "boot 1: lboot boots GRUB's default entry" || not_ok "boot 1: lboot boots GRUB's default entry"
grep -q "lboot: kexec 'lboot fixture: second'" "$T/serial-rom.log" &&
	ok "boot 2: lboot boots the entry grub-reboot named" || not_ok "boot 2: lboot boots the entry grub-reboot named"

for n in 1 2; do compare grub GRUB $n cmdline uname root boot efi; done
case $(field rom-1 cmdline) in
BOOT_IMAGE=/vmlinuz-*' root=/dev/mapper/lbdeb-root ro console=ttyS0,115200 quiet') ok "boot 1: GRUB's BOOT_IMAGE= first, then the entry's arguments" ;;
*) not_ok "boot 1: command line '$(field rom-1 cmdline)'" ;;
esac
case $(field rom-2 cmdline) in
*' lboot-fixture=second') ok "boot 2: the custom entry's command line" ;;
*) not_ok "boot 2: command line '$(field rom-2 cmdline)'" ;;
esac
[ "$(field rom-1 root)" = /dev/mapper/lbdeb-root ] && ok "root is the LVM volume" || not_ok "root is '$(field rom-1 root)'"
# what the ROM adds (Debian's GRUB sets no Boot Loader Interface variable)
case $(field rom-1 loader) in
"lboot "*) ok "the OS reads LoaderInfo: $(field rom-1 loader)" ;;
*) not_ok "LoaderInfo '$(field rom-1 loader)'" ;;
esac
[ "$(field rom-2 entry)" = lboot-second ] && ok "boot 2: LoaderEntrySelected names the entry (lboot-second)" ||
	not_ok "boot 2: LoaderEntrySelected '$(field rom-2 entry)'"
case $(field rom-1 analyze) in
*'(firmware) + '*'(loader) + '*'(kernel) + '*'(userspace)'*) ok "systemd-analyze shows the firmware's and the loader's time: $(field rom-1 analyze)" ;;
*) not_ok "systemd-analyze '$(field rom-1 analyze)'" ;;
esac
e2e_done
