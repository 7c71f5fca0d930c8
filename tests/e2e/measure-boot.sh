#!/bin/bash
# Issue 10: measured boot in the boot flow. lboot (PID 1) in QEMU with a
# TPM 2.0 (swtpm, tpm-tis) reads the BLS entry once, measures the kernel's
# Authenticode digest into PCR 4 and the command line (UCS-2) and initrd
# buffer into PCR 9 in every active bank, appends the events to the
# firmware's log in the ACPI TPM2 log area, and kexecs. The target OS (Debian's
# kernel) prints the log it found and its PCRs; the host replays that log
# with tpm2_eventlog (stock tpm2-tools) and checks it equals the PCRs, and
# that the PCR 4/9 digests are the kernel's (pesign -h), the initrd's
# (sha256sum) and the command line's.
. "$(dirname "$0")/lib.sh"
e2e_init measure-boot
for c in swtpm tpm2_eventlog pesign iconv; do
	command -v $c >/dev/null || { not_ok "$c not installed (scripts/deps.sh)"; exit 1; }
done
target_os
R=$T/root
mkdir -p "$R/loader/entries" "$T/st"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
CMD="console=ttyS0 lboot-test.tpm quiet"
cat >"$R/loader/entries/m.conf" <<EOT
title   measured
linux   /vmlinuz
initrd  /initrd.img
options $CMD
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" MEASURED
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" --terminate \
	>"$T/swtpm.log" 2>&1 &
SWTPM=$!
trap 'qemu_stop; kill $SWTPM 2>/dev/null; e2e_dump_on_fail' EXIT
for i in $(seq 1 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio" \
	-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
	-device tpm-tis,tpmdev=tpm0
expect 'lboot: TPM 2.0 \(/dev/tpmrm0\): measuring what boots into PCR 4, 9 \(and 11 for a UKI\), banks ' 120 &&
	ok "TPM found, banks listed" || not_ok "TPM found, banks listed"
expect "lboot: measured 'measured': PCR 4 kernel, PCR 9 command line and initrd; event log handed over in the ACPI TPM2 log area" 180 &&
	ok "measured, log handed over" || not_ok "measured, log handed over"
expect 'lboot-target: powering off' 240 && ok "target OS up and done" || not_ok "target OS up and done"
grep -q 'lboot: TPM: platform hierarchy locked' <(tr -d '\r' <"$T/serial.log") && ok "platform hierarchy locked before kexec" ||
	not_ok "platform hierarchy locked before kexec"
S=$T/serial.txt
tr -d '\r' <"$T/serial.log" >"$S"
grep -q 'lboot-target: tpmlog-end' "$S" && ok "target read the event log" || not_ok "target read the event log"
sed -n 's/^lboot-target: tpmlog: \([0-9a-f]*\)$/\1/p' "$S" | xxd -r -p >"$T/log.bin"
tpm2_eventlog "$T/log.bin" >"$T/log.yaml" 2>"$T/eventlog.err" && ok "tpm2_eventlog parses the log the OS got" ||
	not_ok "tpm2_eventlog parses the log the OS got"
# the replayed PCRs (tpm2_eventlog's pcrs: section) against the TPM's
# (on arm64 the ROM's firmware measures too: AAVMF's Tcg2Pei/Tcg2Dxe, the
# firmware kernel's EFI stub; every PCR they and lboot extend must replay)
PCRS=4,8,9
[ -n "${E2E_ARM64:-}" ] && PCRS=0,1,2,3,4,5,6,7,8,9
python3 "$(dirname "$0")/tcg-replay.py" "$T/log.yaml" "$S" $PCRS >"$T/replay.txt"
grep -q 'checked [1-9][0-9]* bad 0' "$T/replay.txt" &&
	ok "replaying the log gives the TPM's PCRs $PCRS in every bank ($(sed -n 's/checked \([0-9]*\).*/\1/p' "$T/replay.txt") values)" ||
	{ not_ok "replaying the log gives the TPM's PCRs $PCRS in every bank"; sed 's/^/# /' "$T/replay.txt"; }
# the verifier's verdict is in PCR 8 (issue 23: the evidence the TPM records)
grep -aq "lboot: verify: NOT verified (verify off)" "$T/log.bin" &&
	ok "PCR 8 holds the verdict: not verified (no policy)" || not_ok "PCR 8 holds the verdict: not verified (no policy)"
# lboot's events carry the digests an independent tool computes
want_k=$(pesign -h -d sha256 -i "$R/vmlinuz" | sed -n 's/^hash: //p')
want_i=$(sha256sum <"$R/initrd.img" | cut -d' ' -f1)
# the command line as systemd-boot hands it to the kernel (its initrd= word first)
want_c=$( { printf '%s' "initrd=\\initrd.img $CMD" | iconv -f utf-8 -t utf-16le; printf '\0\0'; } | sha256sum | cut -d' ' -f1)
tr -d ' ' <"$T/log.yaml" | grep -qi "Digest:\"$want_k\"" && ok "PCR 4 event holds the kernel's Authenticode digest (pesign)" ||
	not_ok "PCR 4 event holds the kernel's Authenticode digest (pesign)"
tr -d ' ' <"$T/log.yaml" | grep -qi "Digest:\"$want_i\"" && ok "PCR 9 event holds the initrd's SHA-256 (sha256sum)" ||
	not_ok "PCR 9 event holds the initrd's SHA-256 (sha256sum)"
tr -d ' ' <"$T/log.yaml" | grep -qi "Digest:\"$want_c\"" && ok "PCR 9 event holds the UCS-2 command line's SHA-256" ||
	not_ok "PCR 9 event holds the UCS-2 command line's SHA-256"
qemu_stop
# the same entry with another initrd (4 zero bytes more, which the kernel
# skips): PCR 9 changes, PCR 4 does not (the TPM state is kept)
pcr() { tr -d '\r' <"$T/serial.log" | sed -n "s/^lboot-target: pcr sha256 $1 //p"; }
p4a=$(pcr 4) p9a=$(pcr 9)
head -c 4 /dev/zero >>"$R/initrd.img"
mkpart_ext4 "$T/p1.img" 48 "$R" MEASURED
mkdisk_gpt "$T/disk2.img" "$T/p1.img:xbootldr:boot"
swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" --terminate \
	>>"$T/swtpm.log" 2>&1 &
SWTPM=$!
for i in $(seq 1 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
qemu_start -drive "file=$T/disk2.img,format=raw,if=virtio" \
	-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
	-device tpm-tis,tpmdev=tpm0
expect 'lboot-target: powering off' 300 && [ -n "$p9a" ] && [ -n "$(pcr 9)" ] && [ "$(pcr 9)" != "$p9a" ] &&
	[ "$(pcr 4)" = "$p4a" ] && ok "another initrd: PCR 9 changes, PCR 4 does not" ||
	not_ok "another initrd: PCR 9 changes, PCR 4 does not (4: $p4a -> $(pcr 4), 9: $p9a -> $(pcr 9))"
qemu_stop
# no TPM, lboot.tpm=require: refused, nothing boots, PID 1 stays at the menu
E2E_APPEND="lboot.timeout=0 lboot.tpm=require" qemu_start -drive "file=$T/disk2.img,format=raw,if=virtio"
expect "lboot: refused: 'measured' \(/dev/vda1\): TPM: none usable, and a TPM is required" 180 &&
	ok "lboot.tpm=require without a TPM refuses the entry" || not_ok "lboot.tpm=require without a TPM refuses the entry"
expect 'lboot> ' 30 && expect_not 'lboot-target: TARGET-OS-UP' && ok "nothing booted, menu up" ||
	not_ok "nothing booted, menu up"
e2e_done
