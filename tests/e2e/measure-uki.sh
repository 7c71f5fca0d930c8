#!/bin/bash
# Issue 10, "Proof": a UKI's PCR 11 inside a QEMU boot equals
# `systemd-measure calculate` (Debian's systemd). The firmware kernel
# (-kernel, tpm-tis + swtpm with its default four banks) runs lboot, which
# finds a UKI (/EFI/Linux/*.efi: systemd's stub around Debian's kernel, the
# target initrd, an os-release and a command line, built with objcopy),
# measures its sections into PCR 11 as systemd-stub would and kexecs its
# .linux. The target OS (not systemd: no phase strings follow) prints its
# PCR 11 from sysfs in every bank; each must equal
#   systemd-measure calculate --linux= --osrel= --cmdline= --initrd=
#       --bank=B --phase=:
# over the very files objcopy put in the UKI. The log the target got
# replays (tpm2_eventlog) to the same PCR 11, and a UKI with another
# .cmdline changes PCR 11 as systemd-measure predicts.
. "$(dirname "$0")/lib.sh"
e2e_init measure-uki
MEASURE=$(command -v systemd-measure || echo /lib/systemd/systemd-measure)
STUB=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
for c in swtpm tpm2_eventlog objcopy python3 xxd; do
	command -v $c >/dev/null || { not_ok "$c not installed (scripts/deps.sh)"; exit 1; }
done
[ -x "$MEASURE" ] || { not_ok "no systemd-measure (Debian's systemd)"; exit 1; }
[ -f "$STUB" ] || { not_ok "no $STUB (apt-get install systemd-boot-efi)"; exit 1; }
target_os
SWTPM=
trap 'qemu_stop; [ -n "$SWTPM" ] && kill $SWTPM 2>/dev/null; e2e_dump_on_fail' EXIT
mkdir -p "$T/st"

# make_uki TAG: the ESP with one UKI whose .cmdline carries TAG
make_uki() {
	local R=$T/esp-$1
	rm -rf "$R"; mkdir -p "$R/EFI/Linux"
	printf 'NAME="Target OS"\nPRETTY_NAME="Measured UKI"\nID=target\nVERSION_ID="1"\n' >"$T/osrel"
	printf 'console=ttyS0 lboot-test.tpm uki.tag=%s\n' "$1" >"$T/cmdline-$1"
	objcopy \
		--add-section .osrel="$T/osrel" --change-section-vma .osrel=0x20000 \
		--add-section .cmdline="$T/cmdline-$1" --change-section-vma .cmdline=0x30000 \
		--add-section .initrd="$TARGET_INITRD" --change-section-vma .initrd=0x1000000 \
		--add-section .linux="$TARGET_KERNEL" --change-section-vma .linux=0x5000000 \
		"$STUB" "$R/EFI/Linux/target.efi" || { not_ok "objcopy UKI"; exit 1; }
	mkpart_vfat "$T/esp.img" 40 "$R" ESP
	mkdisk_gpt "$T/disk-$1.img" "$T/esp.img:esp"
}

# uki_boot TAG: one boot of that UKI with a fresh swtpm (PCRs from zero)
uki_boot() {
	rm -rf "$T/st"; mkdir -p "$T/st"
	swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" --terminate \
		>"$T/swtpm-$1.log" 2>&1 &
	SWTPM=$!
	for _ in $(seq 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
	qemu_start -drive "file=$T/disk-$1.img,format=raw,if=virtio" \
		-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
		-device tpm-tis,tpmdev=tpm0
	expect "lboot: measured '[^']*Measured UKI[^']*': PCR 4 UKI, PCR 9 command line and initrd, PCR 11 UKI sections; event log handed over" 240 &&
		ok "$1: lboot measured the UKI (PCR 4, 9, 11) and handed the log over" ||
		not_ok "$1: lboot measured the UKI (PCR 4, 9, 11) and handed the log over"
	expect 'lboot-target: powering off' 300 && ok "$1: target OS up from the UKI, PCRs printed" ||
		not_ok "$1: target OS up from the UKI, PCRs printed"
	qemu_stop
	kill $SWTPM 2>/dev/null; wait $SWTPM 2>/dev/null; SWTPM=
	tr -d '\r' <"$T/serial.log" >"$T/serial-$1.txt"
}

# uki_check TAG: PCR 11 of every bank the target printed == systemd-measure
uki_check() {
	local tag=$1 b got want n=0 bad=0
	for b in sha1 sha256 sha384 sha512; do
		got=$(sed -n "s/^lboot-target: pcr $b 11 //p" "$T/serial-$tag.txt" | tr 'A-F' 'a-f')
		[ -n "$got" ] || continue
		want=$("$MEASURE" calculate --linux="$TARGET_KERNEL" --osrel="$T/osrel" \
			--cmdline="$T/cmdline-$tag" --initrd="$TARGET_INITRD" --bank=$b --phase=: --json=short |
			sed -n 's/.*"hash":"\([0-9a-f]*\)".*/\1/p')
		n=$((n + 1))
		log "$tag $b: PCR 11 $got, systemd-measure $want"
		[ -n "$want" ] && [ "$got" = "$want" ] || bad=$((bad + 1))
		[ "$b" = sha256 ] && eval "P11_$tag=\$got"
	done
	[ $n -ge 1 ] && [ $bad = 0 ] &&
		ok "$tag: PCR 11 read in the target = systemd-measure calculate ($n banks)" ||
		not_ok "$tag: PCR 11 read in the target = systemd-measure calculate ($bad of $n banks differ)"
	sed -n 's/^lboot-target: tpmlog: \([0-9a-f]*\)$/\1/p' "$T/serial-$tag.txt" | xxd -r -p >"$T/log-$tag.bin"
	if tpm2_eventlog "$T/log-$tag.bin" >"$T/log-$tag.yaml" 2>/dev/null; then
		python3 "$(dirname "$0")/tcg-replay.py" "$T/log-$tag.yaml" "$T/serial-$tag.txt" 11 >"$T/replay-$tag.txt"
		grep -Eq '^checked [1-9] bad 0$' "$T/replay-$tag.txt" &&
			ok "$tag: tpm2_eventlog's replay of the target's log gives its PCR 11" ||
			not_ok "$tag: tpm2_eventlog's replay of the target's log gives its PCR 11 ($(cat "$T/replay-$tag.txt"))"
	else
		not_ok "$tag: tpm2_eventlog parses the target's log"
	fi
}

make_uki one
uki_boot one
uki_check one
make_uki two
uki_boot two
uki_check two
[ -n "${P11_one:-}" ] && [ -n "${P11_two:-}" ] && [ "$P11_one" != "$P11_two" ] &&
	ok "another .cmdline: another PCR 11" || not_ok "another .cmdline: another PCR 11"
e2e_done
