#!/bin/bash
# Issue 9: the policy at the console. Enforce with nothing valid on the disk:
# every entry refused with its reason, the menu shows why, editing and the
# shell are refused (no --allow-edit/--allow-shell), a rescan refuses again,
# and PID 1 keeps answering. Then warn mode on the same unsigned disk boots
# the default with one warning line, and lboot.verify=enforce on the
# command line makes the warn build refuse it.
. "$(dirname "$0")/lib.sh"
e2e_init verify-policy
target_os
K=$T/keys R=$T/root
mkdir -p "$K" "$R/loader/entries"
minisign -G -W -p "$K/trusted.pub" -s "$K/trusted.key" >/dev/null || { not_ok "minisign -G"; exit 1; }
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
for n in one two; do
	cat >"$R/loader/entries/$n.conf" <<EOT
title   unsigned $n
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=$n quiet
EOT
done
printf 'default one.conf\n' >"$R/loader/loader.conf"
mkpart_ext4 "$T/p1.img" 48 "$R" UNSIGNED
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
"$OUT/lboot" mkinitramfs -o "$T/enforce.cpio.xz" --init "$OUT/lboot-target" --busybox \
	--trust "$K/trusted.pub" 2>/dev/null &&
"$OUT/lboot" mkinitramfs -o "$T/warn.cpio.xz" --init "$OUT/lboot-target" \
	--trust "$K/trusted.pub" --verify warn 2>/dev/null ||
	{ not_ok "mkinitramfs"; exit 1; }

# only the kernel is signed: the config is what is missing
minisign -S -s "$K/trusted.key" -m "$R/vmlinuz" >/dev/null || { not_ok "sign kernel"; exit 1; }
minisign -S -s "$K/trusted.key" -m "$R/initrd.img" >/dev/null || { not_ok "sign initrd"; exit 1; }
mkpart_ext4 "$T/p2.img" 48 "$R" HALFSIGNED
mkdisk_gpt "$T/disk2.img" "$T/p2.img:xbootldr:boot"

# --- enforce, nothing valid -------------------------------------------------
E2E_INITRD=$T/enforce.cpio.xz E2E_APPEND="lboot.timeout=0" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot: verified boot: enforce, 1 trusted key' 120 && ok "enforce: policy line" || not_ok "enforce: policy line"
expect "lboot: refused: 'unsigned one' \(/dev/vda1\): /vmlinuz: no signature" 120 &&
	ok "enforce: default refused with file and reason" || not_ok "enforce: default refused with file and reason"
expect "lboot: refused: 'unsigned two' \(/dev/vda1\): /vmlinuz: no signature" 120 &&
	ok "enforce: next entry tried and refused" || not_ok "enforce: next entry tried and refused"
expect 'every entry failed to boot' 30 && ok "enforce: nothing bootable said" || not_ok "enforce: nothing bootable said"
expect '      refused: /vmlinuz: no signature' 30 &&
	ok "enforce: the menu shows why each entry was refused" ||
	not_ok "enforce: the menu shows why each entry was refused"
expect 'lboot> ' 30 && ok "enforce: menu prompt" || not_ok "enforce: menu prompt"
send 'e'
expect 'lboot: editing refused: verified boot is enforced \(build with mkinitramfs --allow-edit to allow\)' 20 &&
	ok "enforce: editing refused" || not_ok "enforce: editing refused"
send 's'
expect 'lboot: shell refused: verified boot is enforced \(build with mkinitramfs --allow-shell to allow\)' 20 &&
	ok "enforce: shell refused (busybox is in the image)" || not_ok "enforce: shell refused (busybox is in the image)"
n1=$(tr -d '\r' <"$T/serial.log" | grep -c "lboot: refused: 'unsigned two'")
send '1\r'
for i in $(seq 1 300); do
	[ "$(tr -d '\r' <"$T/serial.log" | grep -c "lboot: refused: 'unsigned two'")" -gt "$n1" ] && break
	sleep 0.2
done
[ "$(tr -d '\r' <"$T/serial.log" | grep -c "lboot: refused: 'unsigned two'")" -gt "$n1" ] && ok "enforce: choosing an entry by hand is refused too" ||
	not_ok "enforce: choosing an entry by hand is refused too"
n0=$(tr -d '\r' <"$T/serial.log" | grep -c 'lboot: refused:')
send 'r'
expect 'lboot: rescanning devices' 20 && sleep 1
for i in $(seq 1 150); do
	[ "$(tr -d '\r' <"$T/serial.log" | grep -c 'lboot: refused:')" -gt "$n0" ] && break
	sleep 0.2
done
send 'h'
sleep 2
expect 'lboot: boot menu' 30 && tail -c 300 "$T/serial.log" | tr -d '\r' | grep -q 'lboot> ' &&
	ok "enforce: PID 1 still answers at the menu" || not_ok "enforce: PID 1 still answers at the menu"
expect_not 'lboot-target: TARGET-OS-UP' && ok "enforce: nothing booted" || not_ok "enforce: nothing booted"
expect_not 'Kernel panic' && ok "enforce: no panic" || not_ok "enforce: no panic"
qemu_stop

# --- warn: boots with one line; lboot.verify=enforce refuses -----------------
E2E_INITRD=$T/warn.cpio.xz E2E_APPEND="lboot.timeout=0" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot: verified boot: warn, 1 trusted key' 120 && ok "warn: policy line" || not_ok "warn: policy line"
expect "lboot: verify \(warn\): 'unsigned one': /vmlinuz: no signature; booting it anyway" 120 &&
	ok "warn: one line names the file and reason" || not_ok "warn: one line names the file and reason"
expect 'lboot-target: cmdline: .*lboot-test=one' 180 && ok "warn: the unsigned default boots" ||
	not_ok "warn: the unsigned default boots"
qemu_stop
E2E_INITRD=$T/warn.cpio.xz E2E_APPEND="lboot.timeout=0 lboot.verify=enforce" \
	qemu_start -drive "file=$T/disk2.img,format=raw,if=virtio"
expect 'lboot: verified boot: enforce, 1 trusted key' 120 && ok "lboot.verify=enforce raises a warn build" ||
	not_ok "lboot.verify=enforce raises a warn build"
expect "lboot: refused: 'unsigned one' \(/dev/vda1\): /loader/entries/one.conf on /dev/vda1: no signature" 120 &&
	ok "raised: signed kernel and initrd, unsigned config: refused" ||
	not_ok "raised: signed kernel and initrd, unsigned config: refused"
expect_not 'lboot-target: TARGET-OS-UP' && ok "raised: nothing booted" || not_ok "raised: nothing booted"
e2e_done
