#!/bin/bash
# A real installed Debian 12 whose root is LUKS2 (tests/os/build.sh
# luks-tpm: systemd-boot and kernel-install, dracut's initramfs with
# systemd-cryptsetup and the TPM2 stack), booted by stock OVMF and the
# disk's own systemd-boot (the oracle) and by the LinuxBoot ROM (--tpm),
# each machine with its own TPM (swtpm), each rebooting from the OS:
#   boot 1: no TPM2 token yet: the OS's initramfs asks for the passphrase
#           on the console (the test types it). The OS seals a key to its
#           TPM as today's distributions do it: `systemd-cryptenroll
#           --tpm2-device=auto --tpm2-pcrs=4+9+12` (the PCRs the loaders
#           measure the kernel, initrd and command line into: lboot 4 and
#           9; systemd-boot 12, the firmware 4, the kernel's EFI stub 9),
#           and reboots.
#   boot 2: the same entry: the initramfs unseals the key from the TPM
#           and opens the disk with no passphrase.
#           Then the OS gets a rebuilt kernel of the same version in its
#           entry's place (kernel-install; the admin's entry keeps a copy of
#           today's) and reboots into an admin's entry for today's kernel
#           with one more command line argument (systemctl reboot
#           --boot-loader-entry=lboot-second.conf).
#   boot 3: the command line differs, so PCR 9 does: the seal stays shut,
#           the passphrase prompt appears. The test presses reset.
#   boot 4: the default entry with the rebuilt kernel (PCR 4 differs): the
#           prompt again.
# The oracle's machine stops after boot 2: from inside the OS on boots 1 and
# 2 (the fixture's report unit), the same command line, kernel, root
# (/dev/mapper/root), ESP and entry through lboot as through systemd-boot,
# and under each the seal made and opened.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
. "$(dirname "$0")/os-lib.sh"
e2e_init os-luks-tpm
[ "$(id -u)" = 0 ] || { skip "fixture" "building the installed system needs root"; exit 0; }
for c in swtpm swtpm_setup tpm2_eventlog; do
	command -v $c >/dev/null || { not_ok "$c missing (scripts/deps.sh installs it)"; exit 1; }
done
img=$("$E2E_ROOT/tests/os/build.sh" luks-tpm 2>"$T/build.log") && [ -f "$img" ] ||
	{ sed 's/^/# /' "$T/build.log" | tail -30; not_ok "fixture: Debian 12, root on LUKS2 ('$img')"; exit 1; }
ok "fixture: Debian 12 with systemd-boot, root on LUKS2, dracut's initramfs ($img)"

MID=1b0c0ffee0000000000000000000f1a0   # the fixture's machine-id (build.sh)
PASS=lboot-fixture-passphrase           # keyslot 0's (tests/os/install)
PROMPT='Please enter passphrase for disk'
mkdir -p "$T/ctl"
cat >"$T/ctl/boot1" <<EOS
PASSWORD=$PASS systemd-cryptenroll --tpm2-device=auto --tpm2-pcrs=4+9+12 /dev/vda2
cryptsetup luksDump /dev/vda2 | sed -n '/^Tokens:/,/^Digests:/p' | sed 's/^/OS-LUKS: /'
$OS_TPM_DUMP
systemctl reboot
EOS
# boot 2: the admin's entry gets its own copy of today's kernel; the
# distribution's entry gets a rebuilt kernel of the same version (as a
# Debian kernel update within one ABI does: other bytes, the same version,
# entry and command line; here today's image with bytes appended, which
# the PE hash covers), through kernel-install; then the one-shot reboot
cat >"$T/ctl/boot2" <<EOS
$OS_TPM_DUMP
set -e
ver=\$(uname -r)
mkdir -p /boot/efi/lboot-second
cp /boot/efi/$MID/\$ver/linux /boot/efi/lboot-second/linux
sed -i 's|^linux .*|linux      /lboot-second/linux|' /boot/efi/loader/entries/lboot-second.conf
cp /boot/vmlinuz-\$ver /run/vmlinuz-rebuilt
printf 'lboot fixture: a rebuilt kernel' >>/run/vmlinuz-rebuilt
cp /boot/efi/loader/entries/$MID-\$ver.conf /run/entry.before
kernel-install add \$ver /run/vmlinuz-rebuilt
cmp /run/vmlinuz-rebuilt /boot/efi/$MID/\$ver/linux && cmp /run/entry.before /boot/efi/loader/entries/$MID-\$ver.conf &&
	echo "OS-KERNEL: rebuilt"
systemctl reboot --boot-loader-entry=lboot-second.conf
EOS
mkpart_vfat "$T/ctl.img" 2 "$T/ctl" LBCTL 1BC7C7C9

R=$T
OS_TPM=1
# each machine: boot 1 (type the passphrase, report), boot 2 (report: no
# prompt may come first); the ROM's then boot 3 (the prompt: reset) and
# boot 4 (the prompt; then the machine is stopped). The oracle stops after
# boot 2: what the OS sees is compared on boots 1 and 2
luks_boots() {
	expect_nth "$PROMPT" 1 600 && ok "$1: boot 1: the initramfs asks for the passphrase (no TPM2 token yet)" ||
		not_ok "$1: boot 1: the initramfs asks for the passphrase"
	sleep 1; send '%s\r' "$PASS"
	expect_nth 'OS-REPORT: count=1' 1 600 && expect_nth '^OS-REPORT: done' 1 120 &&
		ok "$1: boot 1: the OS is up ($(elapsed) s)" || not_ok "$1: boot 1: the OS is up"
	expect_nth 'OS-REPORT: count=2' 1 600 && expect_nth '^OS-REPORT: done' 2 120 &&
		ok "$1: boot 2: the OS is up ($(elapsed) s)" || not_ok "$1: boot 2: the OS is up"
	if [ "$1" != rom ]; then
		expect_nth '^OS-END$' 2 120 || not_ok "$1: boot 2: the OS printed its TPM log"
		qemu_stop; return
	fi
	expect_nth "$PROMPT" 2 600 && ok "$1: boot 3 (one more command line argument): the passphrase prompt ($(elapsed) s)" ||
		not_ok "$1: boot 3 (one more command line argument): the passphrase prompt"
	sleep 1; reset || not_ok "$1: QMP system_reset"
	expect_nth "$PROMPT" 3 600 && ok "$1: boot 4 (the rebuilt kernel): the passphrase prompt ($(elapsed) s)" ||
		not_ok "$1: boot 4 (the rebuilt kernel): the passphrase prompt"
	qemu_stop
}
OS_BOOTS=luks_boots
machines sdboot --tpm

# the serial log of boot N (0: before the first report) of machine M
seg() { tr -d '\r' <"$R/serial-$1.log" | LC_ALL=C awk -v n="$2" '/OS-REPORT: count=/ { c = substr($0, index($0, "count=") + 6) + 0 } c == n'; }
for b in sdboot rom; do
	l=$(seg $b 1 | sed -n 's/^OS-LUKS: //p' | tr -s '\t ' '  ' | tr '\n' ' ')
	if [[ $l =~ [0-9]+:\ systemd-tpm2\ .*tpm2-(hash-)?pcrs:\ 4\+9\+12\  ]]; then
		ok "$b: systemd-cryptenroll sealed a key to PCRs 4+9+12 (the LUKS2 header's token: $l)"
	else
		not_ok "$b: no systemd-tpm2 token for PCRs 4+9+12 in the LUKS2 header ('$l')"
	fi
	# boot 2 comes up between the first and the second report
	n=$(seg $b 1 | grep -c "$PROMPT")
	[ "$n" = 0 ] && [ "$(field $b-2 root)" = /dev/mapper/root ] &&
		ok "$b: boot 2: the TPM opened the disk, no passphrase asked" ||
		not_ok "$b: boot 2: $n passphrase prompts, root '$(field $b-2 root)'"
done
n=$(seg rom 2 | grep -c "$PROMPT")
[ "$n" = 2 ] && ok "rom: boots 3 and 4: the seal stays shut after the command line changed, and after the kernel changed" ||
	not_ok "rom: boots 3 and 4: $n passphrase prompts, not 2"
seg rom 2 | grep -q '^OS-KERNEL: rebuilt$' && ok "rom: kernel-install put the rebuilt kernel in the entry's place (the entry file unchanged)" ||
	not_ok "rom: the rebuilt kernel is not in the entry's place"
grep -q "lboot: kexec 'Debian GNU/Linux 12 (bookworm)'" <(seg rom 2) && ok "rom: boot 4 is the default entry, now with the rebuilt kernel" ||
	not_ok "rom: boot 4 did not start the default entry"
grep -q "lboot: default 'lboot fixture: second' chosen by EFI variable LoaderEntryOneShot=lboot-second.conf" "$R/serial-rom.log" &&
	ok "boot 3: lboot takes the one-shot entry logind wrote" || not_ok "boot 3: lboot takes the one-shot entry logind wrote"
for n in 1 2; do compare sdboot systemd-boot $n cmdline uname root esp efi entry; done
# the OS's measured boot: the event log replays to the PCRs, each machine
for b in sdboot rom; do
	for n in 1 2; do
		if replay $b-$n; then
			grep -q '^checked 14 bad 0$' "$R/$b-$n.replay" &&
				ok "$b boot $n: the OS's TPM event log replays (tpm2_eventlog) to its PCRs" ||
				{ not_ok "$b boot $n: the OS's TPM event log does not replay to its PCRs"; sed 's/^/# /' "$R/$b-$n.replay"; }
		else
			not_ok "$b boot $n: the OS printed a TPM event log tpm2_eventlog reads"
		fi
	done
	# the PCRs sealed to are the same on boots 1 and 2 (what opened the seal)
	a=$(seg $b 1 | grep -E '^OS-PCR: (4|9|12) ') c=$(seg $b 2 | grep -E '^OS-PCR: (4|9|12) ')
	[ -n "$a" ] && [ "$a" = "$c" ] && ok "$b: PCRs 4, 9, 12 equal on boots 1 and 2" ||
		not_ok "$b: PCRs 4, 9, 12 differ between boots 1 and 2"
done
e2e_done
