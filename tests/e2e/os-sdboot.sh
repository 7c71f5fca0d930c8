#!/bin/bash
# A real installed Debian 12 (tests/os/build.sh sdboot: systemd-boot, entries
# written by kernel-install, root on ext4, systemd with D-Bus) booted by
# stock OVMF and the disk's own systemd-boot (the oracle), then by the
# LinuxBoot ROM (lboot reads the same loader/entries), each as one machine
# that reboots once (QEMU without -no-reboot; the disk a snapshot of the
# cached image kept across the reboot):
#   boot 1: the default entry (kernel-install's). Each machine has its own
#           TPM (swtpm); the OS prints its TPM event log and PCRs, which
#           tpm2_eventlog replays on the host. The OS runs
#           `systemctl reboot --boot-loader-entry=lboot-second.conf` (an
#           admin's own entry; logind writes LoaderEntryOneShot) and reboots.
#   boot 2: that entry, once. The OS installs a new kernel version the way
#           its kernel package does (kernel-install, with boot counting:
#           /etc/kernel/tries 3) and reboots. That kernel never reaches
#           multi-user: the loader tries it three times (each try renames
#           its entry +3 -> +2-1 -> +1-2 -> +0-3 on the ESP), then falls
#   boot 3: back to the previous kernel; the OS powers off.
#           In make check only the ROM's machine goes on after boot 2 (the
#           oracle's would take four more boots: OS_ORACLE_UPDATE=1 runs
#           them; systemd-boot passed the same checks when it did).
# From inside the OS each time (the fixture's lboot-report unit, once the
# system is up): the state systemd reached, /proc/cmdline word for word
# (systemd-boot's initrd= words included), the kernel it runs, the root and
# the ESP it mounted, EFI or not, LoaderEntrySelected; each equal between
# the two loaders. Then what the OS's own bootctl says about the loader
# (`bootctl status`, `bootctl list`) and what logind offers systemctl
# (CanRebootToBootLoaderEntry/Menu) under each.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
. "$(dirname "$0")/os-lib.sh"
e2e_init os-sdboot
[ "$(id -u)" = 0 ] || { skip "fixture" "building the installed system needs root"; exit 0; }
img=$("$E2E_ROOT/tests/os/build.sh" sdboot 2>"$T/build.log") && [ -f "$img" ] ||
	{ sed 's/^/# /' "$T/build.log" | tail -30; not_ok "fixture: Debian 12 with systemd-boot ('$img')"; exit 1; }
ok "fixture: Debian 12 with systemd-boot, entries by kernel-install ($img)"

MID=1b0c0ffee0000000000000000000f1a0   # the fixture's machine-id (build.sh)
# the control disk the fixture's report unit reads (label LBCTL)
mkdir -p "$T/ctl"
# boot 1: the TPM event log in securityfs and the PCRs in sysfs (replayed
# on the host below), then the one-shot reboot
printf '%s\n' "$OS_TPM_DUMP" 'systemctl reboot --boot-loader-entry=lboot-second.conf' >"$T/ctl/boot1"
# boot 2: a kernel update as the distribution's kernel package does it
# (its files in /boot, then /etc/kernel/postinst.d: systemd-boot's hook
# runs kernel-install add), with boot counting on (/etc/kernel/tries: the
# entry is MID-VERSION+3.conf); the new version never reaches multi-user
# (its entry's options end `init=/bin/false panic=1`: the kernel panics at
# init and resets the machine). The version is the running one's with ABI
# 99 (OS_NEW_KERNEL), newer by version order, so the loader's default.
{ echo 'set -e'; printf '%s\n' "$OS_NEW_KERNEL"; cat <<'EOS'
echo 3 >/etc/kernel/tries
cp /etc/kernel/cmdline /run/cmdline.keep
echo "$(cat /run/cmdline.keep) init=/bin/false panic=1" >/etc/kernel/cmdline
/etc/kernel/postinst.d/zz-systemd-boot $new /boot/vmlinuz-$new
cp /run/cmdline.keep /etc/kernel/cmdline
ls /boot/efi/loader/entries | sed 's/^/OS-ENTRIES-2: /'
systemctl reboot
EOS
} >"$T/ctl/boot2"
# boot 3 (after three tries of the new kernel): what the ESP holds now
printf '%s\n' "ls /boot/efi/loader/entries | sed 's/^/OS-ENTRIES-3: /'" 'systemctl poweroff' >"$T/ctl/boot3"
mkpart_vfat "$T/ctl.img" 2 "$T/ctl" LBCTL 1BC7C7C8

R=$T
OS_TPM=1
OS_BOOT2="systemctl reboot --boot-loader-entry="
OS_BOOT3="a kernel update whose kernel never reaches multi-user (+3 tries)"
# the oracle's machine stops after boot 2 in make check (its budget: the
# cycle is four more boots); OS_ORACLE_UPDATE=1 runs it there too
OS_BOOT3_ON=rom
[ -z "${OS_ORACLE_UPDATE:-}" ] || OS_BOOT3_ON="rom sdboot"

# stock OVMF with the disk's own systemd-boot beside the ROM (--tpm)
machines sdboot --tpm
grep -q "lboot: kexec 'Debian GNU/Linux 12 (bookworm)'" "$T/serial-rom.log" &&
	ok "boot 1: lboot boots kernel-install's entry (the default)" ||
	not_ok "boot 1: lboot boots kernel-install's entry (the default)"
grep -q "lboot: default 'lboot fixture: second' chosen by EFI variable LoaderEntryOneShot=lboot-second.conf" "$T/serial-rom.log" &&
	ok "boot 2: lboot takes the one-shot entry logind wrote (LoaderEntryOneShot=lboot-second.conf)" ||
	not_ok "boot 2: lboot takes the one-shot entry logind wrote (LoaderEntryOneShot=lboot-second.conf)"

for n in 1 2; do compare sdboot systemd-boot $n cmdline uname root esp efi entry; done
if [[ $OS_BOOT3_ON == *sdboot* ]]; then
	compare sdboot systemd-boot 3 cmdline uname root esp efi entry
else
	[ "$(field rom-3 state)" = running ] && ok "rom boot 3: systemd reached a running system (no failed unit)" ||
		not_ok "rom boot 3: systemd state is '$(field rom-3 state)', not running"
fi
# what the entries say (not only equal to the oracle: the right ones)
ver=$(field rom-1 uname)
case $(field rom-1 cmdline) in
"initrd=\\$MID\\$ver\\initrd.img-$ver root=UUID=1b000008-0000-4000-8000-000000000008 ro console=ttyS0,115200 quiet systemd.machine_id=$MID")
	ok "boot 1: systemd-boot's initrd= word first (the entry's initrd as an EFI path), then the entry's options" ;;
*) not_ok "boot 1: command line '$(field rom-1 cmdline)'" ;;
esac
case $(field rom-2 cmdline) in
"initrd=\\"*' lboot-fixture=second') ok "boot 2: the admin's entry's command line" ;;
*) not_ok "boot 2: command line '$(field rom-2 cmdline)'" ;;
esac
[ "$(field rom-1 entry)" = "$MID-$ver.conf" ] && ok "boot 1: LoaderEntrySelected is kernel-install's entry ($MID-$ver.conf)" ||
	not_ok "boot 1: LoaderEntrySelected '$(field rom-1 entry)'"
[ "$(field rom-2 entry)" = lboot-second.conf ] && ok "boot 2: LoaderEntrySelected is lboot-second.conf" ||
	not_ok "boot 2: LoaderEntrySelected '$(field rom-2 entry)'"
[ "$(field rom-1 root)" = /dev/vda2 ] && [ "$(field rom-1 esp)" = /dev/vda1 ] &&
	ok "root /dev/vda2, ESP /dev/vda1 at /boot/efi" || not_ok "root '$(field rom-1 root)', ESP '$(field rom-1 esp)'"

# measured boot, from inside the installed OS (boot 1; each machine has its
# own swtpm): the event log the OS's kernel exposes in securityfs, replayed
# by tpm2_eventlog on the host, equals the PCRs the OS reads in sysfs
for b in sdboot rom; do
	if replay $b-1; then
		sed 's/^/# '$b' | /' "$R/$b-1.replay"
		grep -q '^checked 14 bad 0$' "$R/$b-1.replay" &&
			ok "$b: the OS's TPM event log replays (tpm2_eventlog) to its sha256 PCRs 0-9, 11-14" ||
			not_ok "$b: the OS's TPM event log does not replay to its PCRs"
	else
		not_ok "$b: the OS printed a TPM event log tpm2_eventlog reads"; sed 's/^/# /' "$R/$b-1.eventlog.err" 2>/dev/null | head -5
	fi
done
ev=$(sed -n 's/^events //p' "$R/rom-1.replay" 2>/dev/null)
fw=1
for p in 0 1 2 3 4 5 6 7 8 9; do [[ " $ev" == *" $p:"* ]] || fw=; done
[ -n "$fw" ] && ok "rom: the OS's log holds the firmware's events (PCRs 0-7) and lboot's (4, 8, 9): $ev" ||
	not_ok "rom: the OS's log lacks events: $ev"
grep -q "lboot: measured 'Debian GNU/Linux 12 (bookworm)'" "$R/serial-rom.log" &&
	ok "lboot measured the installed system's entry" || not_ok "lboot measured the installed system's entry"

# the kernel update cycle (boots 3 to 5 the new kernel's tries, then the
# previous kernel), under each loader that ran it
new=$(new_version "$ver")
for b in $OS_BOOT3_ON; do
	sl=$R/serial-$b.log
	e2=$(tr -d '\r' <"$sl" | sed -n 's/^OS-ENTRIES-2: //p' | tr '\n' ' ')
	e3=$(tr -d '\r' <"$sl" | sed -n 's/^OS-ENTRIES-3: //p' | tr '\n' ' ')
	case " $e2" in
	*" $MID-$new+3.conf "*) ok "$b: the update's kernel-install wrote $MID-$new+3.conf" ;;
	*) not_ok "$b: after the update the ESP's entries are '$e2'" ;;
	esac
	p=$(tr -d '\r' <"$sl" | grep -c 'Kernel panic - not syncing: Attempted to kill init')
	[ "$p" = 3 ] && ok "$b: the new kernel was tried three times (three panics), no more" ||
		not_ok "$b: the new kernel was tried $p times, not 3"
	case " $e3" in
	*" $MID-$new+0-3.conf "*) ok "$b: its entry is $MID-$new+0-3.conf on the ESP (no tries left, three done)" ;;
	*) not_ok "$b: after the tries the ESP's entries are '$e3'" ;;
	esac
	[ "$(field $b-3 uname)" = "$ver" ] && [ "$(field $b-3 entry)" = "$MID-$ver.conf" ] &&
		ok "$b: boot 3 falls back to the previous kernel ($MID-$ver.conf)" ||
		not_ok "$b: boot 3 runs '$(field $b-3 uname)' from '$(field $b-3 entry)'"
done
n=0
for c in '+3 +2-1' '+2-1 +1-2' '+1-2 +0-3'; do
	set -- $c
	grep -q "lboot: boot counting: [^ ]*/$MID-$new$1\.conf renamed to [^ ]*/$MID-$new$2\.conf on /dev/vda1 " "$R/serial-rom.log" &&
		n=$((n + 1))
done
[ "$n" = 3 ] && ok "lboot renamed the entry on the ESP at each try, as systemd-boot does (+3 -> +2-1 -> +1-2 -> +0-3)" ||
	{ not_ok "lboot's boot counting renames: $n of 3"; grep 'boot counting' "$R/serial-rom.log" | sed 's/^/# /'; }

# the OS's own bootctl and logind, under each loader
case $(field sdboot-1 loader) in
"systemd-boot "*) ok "the oracle: LoaderInfo '$(field sdboot-1 loader)'" ;;
*) not_ok "the oracle's LoaderInfo '$(field sdboot-1 loader)'" ;;
esac
case $(field rom-1 loader) in
"lboot "*) ok "the OS reads LoaderInfo: $(field rom-1 loader)" ;;
*) not_ok "LoaderInfo '$(field rom-1 loader)'" ;;
esac
lines rom-1 bootctl | sed 's/^/# rom | /'
bc() { lines rom-1 bootctl | grep -Eq -- "$1"; }
[ "$(field rom-1 bootctl-status)" = 0 ] && ok "bootctl status under lboot: exit 0" ||
	not_ok "bootctl status under lboot: exit '$(field rom-1 bootctl-status)'"
bc '^ +Product: lboot [^ ]+$' && ok "bootctl status names lboot (Product: lboot ...)" ||
	not_ok "bootctl status names lboot (Product: lboot ...)"
for f in "Boot counting" "Default entry control" "One-shot entry control" "Support for XBOOTLDR partition" "Boot loader sets ESP information"; do
	bc " +(Features: )?✓ $f$" && ok "bootctl status under lboot: ✓ $f" || not_ok "bootctl status under lboot: ✓ $f"
done
bc ' +(Features: )?✗ Menu timeout control$' && ok "bootctl status under lboot: ✗ Menu timeout control (not claimed)" ||
	not_ok "bootctl status under lboot: ✗ Menu timeout control"
bc "^ +ESP: /dev/disk/by-partuuid/6c6a2b7e-0b0a-4e1b-9d1d-0000000f1b01$" &&
	ok "bootctl status: the ESP from LoaderDevicePartUUID" || not_ok "bootctl status: the ESP from LoaderDevicePartUUID"
lines sdboot-1 bootctl | grep -Eq '^ +Product: systemd-boot ' &&
	ok "the oracle: bootctl status names systemd-boot" || not_ok "the oracle: bootctl status names systemd-boot"
for b in sdboot rom; do
	l=$(lines $b-1 bootctl-list)
	if grep -Eq "^ +id: $MID-$ver.conf$" <<<"$l" && grep -Eq '^ +id: lboot-second.conf$' <<<"$l"; then
		ok "$b: bootctl list shows both entries by id"
	else
		not_ok "$b: bootctl list shows both entries by id"; sed "s/^/# $b | /" <<<"$l"
	fi
done
for b in sdboot rom; do
	[ "$(field $b-1 can-Entry)" = 's "yes"' ] && ok "$b: logind can reboot to a boot loader entry" ||
		not_ok "$b: logind CanRebootToBootLoaderEntry '$(field $b-1 can-Entry)'"
done
# --boot-loader-menu= needs the menu timeout feature, which lboot does not
# claim (docs/boot-state.md): logind offers it under systemd-boot only
[ "$(field sdboot-1 can-Menu)" = 's "yes"' ] && ok "sdboot: logind can reboot to the boot loader menu" ||
	not_ok "sdboot: logind CanRebootToBootLoaderMenu '$(field sdboot-1 can-Menu)'"
[ "$(field rom-1 can-Menu)" = 's "na"' ] &&
	ok "rom: logind offers no reboot to the boot loader menu (lboot does not claim LoaderConfigTimeoutOneShot; named exception)" ||
	not_ok "rom: logind CanRebootToBootLoaderMenu '$(field rom-1 can-Menu)'"
e2e_done
