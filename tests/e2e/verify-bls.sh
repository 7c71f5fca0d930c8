#!/bin/bash
# Issue 9: verified boot, enforce mode, one disk with a BLS entry for each
# way a signature can fail, signed with Debian's real minisign and checked by
# lboot in the firmware: each bad entry is refused with one line naming the
# file and the reason, then the next entry is tried, and the one entry that
# is whole (a signed manifest) boots. Also: the legacy `Ed` algorithm and a
# signify key for a config file, and the kexec'd command line is the signed one.
. "$(dirname "$0")/lib.sh"
e2e_init verify-bls
command -v minisign >/dev/null || { not_ok "minisign not installed (scripts/deps.sh)"; exit 1; }
target_os
K=$T/keys R=$T/root
mkdir -p "$K" "$R/loader/entries"
minisign -G -W -p "$K/trusted.pub" -s "$K/trusted.key" >/dev/null &&
minisign -G -W -p "$K/other.pub" -s "$K/other.key" >/dev/null &&
minisign -G -W -p "$K/revoked.pub" -s "$K/revoked.key" >/dev/null &&
signify-openbsd -G -n -p "$K/signify.pub" -s "$K/signify.sec" ||
	{ not_ok "make keys"; exit 1; }
sign() { minisign -S -s "$K/${2:-trusted}.key" -m "$1" -t "lboot e2e $(basename "$1")" >/dev/null ||
	{ not_ok "minisign -S $1"; exit 1; }; }

cp "$TARGET_KERNEL" "$R/vmlinuz"; sign "$R/vmlinuz"
cp "$TARGET_KERNEL" "$R/vmlinuz-other"; sign "$R/vmlinuz-other" other
cp "$TARGET_KERNEL" "$R/vmlinuz-flipped"; sign "$R/vmlinuz-flipped"
# flip one byte in the middle of the signed kernel
off=$(( $(stat -c %s "$R/vmlinuz-flipped") / 2 ))
printf '\x5a' | dd of="$R/vmlinuz-flipped" bs=1 seek=$off conv=notrunc status=none
for n in a b c d e f g; do cp "$TARGET_INITRD" "$R/initrd-$n.img"; done
# g differs from f (zero padding after the archive, which the kernel skips)
head -c 4 /dev/zero >>"$R/initrd-g.img"
for n in a b c e g; do sign "$R/initrd-$n.img"; done
# signify (plain Ed25519) for one initrd: the unsigned-conf entry gets past it
signify-openbsd -S -s "$K/signify.sec" -m "$R/initrd-f.img" -x "$R/initrd-f.img.sig" ||
	{ not_ok "signify -S"; exit 1; }
sign "$R/initrd-d.img" revoked
# replaced after signing: another initrd (still a valid one) under the old name
printf 'extra' >>"$R/initrd-a.img"

entry() { # ID SORT KERNEL INITRD MARK
	cat >"$R/loader/entries/$1.conf" <<EOT
title   $1
sort-key $2
linux   /$3
initrd  /$4
options console=ttyS0 lboot-test=$5 quiet
EOT
}
entry replaced-initrd  a1 vmlinuz initrd-a.img replaced
entry edited-options   a2 vmlinuz initrd-b.img edited
entry untrusted-kernel a3 vmlinuz-other initrd-c.img untrusted
entry revoked-initrd   a4 vmlinuz initrd-d.img revoked
entry flipped-kernel   a5 vmlinuz-flipped initrd-e.img flipped
entry unsigned-conf    a6 vmlinuz initrd-f.img unsigned
entry mixed-manifest   a7 vmlinuz initrd-f.img mixed
entry expired-manifest a8 vmlinuz initrd-g.img expired
entry whole            a9 vmlinuz initrd-g.img whole
for c in replaced-initrd edited-options untrusted-kernel revoked-initrd flipped-kernel; do
	sign "$R/loader/entries/$c.conf"
done
# the options of a signed entry edited afterwards
sed -i 's/lboot-test=edited/lboot-test=edited init=\/bin\/sh/' "$R/loader/entries/edited-options.conf"
# manifests: one whole, one listing another initrd (a signed old file mixed
# with the entry), one expired; signed with the legacy Ed algorithm for one
man() { # ID INITRD EXPIRES [minisign -l]
	# the command line as lboot passes it: systemd-boot's initrd= word
	# names the entry's own initrd (for mixed-manifest, not INITRD)
	local ei
	ei=$(sed -n 's|^initrd  */||p' "$R/loader/entries/$1.conf")
	"$OUT/lboot" manifest -o "$R/loader/entries/$1.manifest" --entry "$1" --kernel "$R/vmlinuz" \
		--initrd "$R/$2" --cmdline "initrd=\\$ei console=ttyS0 lboot-test=${1%%-*} quiet" \
		--version 3 --expires "$3" || { not_ok "lboot manifest $1"; exit 1; }
	minisign -S $4 -s "$K/trusted.key" -m "$R/loader/entries/$1.manifest" -t "$1" >/dev/null ||
		{ not_ok "sign manifest $1"; exit 1; }
}
man mixed-manifest initrd-g.img 2099-01-01
man expired-manifest initrd-g.img 2020-01-01
man whole initrd-g.img 2099-01-01 -l
printf 'default replaced-initrd.conf\ntimeout 0\n' >"$R/loader/loader.conf"

"$OUT/lboot" mkinitramfs -o "$T/fw.cpio.xz" --init "$LBOOT_TARGET" \
	--trust "$K/trusted.pub" --trust "$K/revoked.pub" --trust "$K/signify.pub" \
	--revoke "$K/revoked.pub" 2>"$T/mkinitramfs.log" &&
	grep -q 'verified boot enforce, 3 trusted keys, 1 revoked' "$T/mkinitramfs.log" &&
	ok "mkinitramfs --trust/--revoke builds an enforcing initramfs" ||
	{ not_ok "mkinitramfs --trust/--revoke builds an enforcing initramfs"; cat "$T/mkinitramfs.log"; exit 1; }
# 96 MiB for x86's kernels; arm64's are 33 MB uncompressed Images
mkpart_ext4 "$T/p1.img" $(( $(du -sm "$R" | cut -f1) * 5 / 4 + 32 > 96 ? $(du -sm "$R" | cut -f1) * 5 / 4 + 32 : 96 )) "$R" SIGNED
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
E2E_INITRD=$T/fw.cpio.xz E2E_APPEND="lboot.timeout=0 lboot.verify=off" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect 'lboot: verified boot: enforce, 3 trusted keys, 1 revoked, 0 CAs' 60 &&
	ok "policy line" || not_ok "policy line"
expect 'lboot.verify=off ignored: the built-in policy is enforce' 5 &&
	ok "lboot.verify=off cannot weaken the built-in policy" ||
	not_ok "lboot.verify=off cannot weaken the built-in policy"
R1='lboot: refused:'
chk() { # NAME REGEX
	expect "$R1 '$1' \(/dev/vda1\): $2" 240 && ok "refused $1: $2" || not_ok "refused $1: $2"
}
chk replaced-initrd '/initrd-a.img: bad signature'
chk edited-options '/loader/entries/edited-options.conf on /dev/vda1: bad signature'
chk untrusted-kernel '/vmlinuz-other: unknown key'
chk revoked-initrd '/initrd-d.img: revoked key'
chk flipped-kernel '/vmlinuz-flipped: bad signature'
chk unsigned-conf '/loader/entries/unsigned-conf.conf on /dev/vda1: no signature'
chk mixed-manifest '/initrd-f.img: changed after signing \(manifest /loader/entries/mixed-manifest.manifest\)'
chk expired-manifest '/loader/entries/expired-manifest.manifest: expired \(2020-01-01T00:00:00Z\)'
expect "lboot: verified 'whole': kernel, 1 initrd and command line by manifest /loader/entries/whole.manifest v3, key [0-9A-F]{16}" 240 &&
	ok "the whole entry is verified by its manifest" || not_ok "the whole entry is verified by its manifest"
expect "lboot: kexec 'whole' kernel=/vmlinuz initrd=/initrd-g.img cmdline=initrd=\\\\initrd-g.img console=ttyS0 lboot-test=whole quiet" 60 &&
	ok "kexec line" || not_ok "kexec line"
expect 'lboot-target: cmdline: .*lboot-test=whole' 180 && ok "target OS booted the verified entry" ||
	not_ok "target OS booted the verified entry"
expect_not 'lboot-test=edited init=/bin/sh' && ok "the edited options never reached a kernel" ||
	not_ok "the edited options never reached a kernel"
log "target up after $(elapsed) s"
e2e_done
