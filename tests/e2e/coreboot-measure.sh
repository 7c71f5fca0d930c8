#!/bin/bash
# Measured boot under coreboot (issue 25): coreboot 4.15 built with its own
# TPM 2.0 measured boot (coreboot/q35.config) measures its FMAP, stages and
# lboot's payload into PCR 2 of QEMU's tpm-tis (swtpm, SHA-256 bank: the one
# coreboot extends) and keeps the log in CBMEM in its TCPA format, which no
# kernel reads. lboot (PID 1, no EFI) reads that log from coreboot's table
# through /dev/mem, puts its events first in the TCG log it hands over in the
# ACPI TPM2 log area, then measures the BLS entry (PCRs 4, 8, 9). The target
# OS (Debian's kernel) prints the log it found and its PCRs; the host
# replays the log with tpm2_eventlog and checks PCRs 2, 4, 8, 9, and that
# the payload's event holds the SHA-256 of the payload's bytes in the ROM.
. "$(dirname "$0")/lib.sh"
e2e_init coreboot-measure
for c in swtpm swtpm_setup tpm2_eventlog xxd; do
	command -v $c >/dev/null || { not_ok "$c not installed (scripts/deps.sh)"; exit 1; }
done
target_os
R=$T/root
mkdir -p "$R/loader/entries" "$T/st"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
# Debian's memconsole-coreboot: the target reads coreboot's CBMEM console
modules_cpio "$R/mods.img" drivers/firmware/google/memconsole.ko drivers/firmware/google/memconsole-coreboot.ko
cat >"$R/loader/entries/m.conf" <<EOT
title   measured
linux   /vmlinuz
initrd  /initrd.img
initrd  /mods.img
options console=ttyS0 lboot-test.tpm lboot-test.cbmem quiet
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" MEASURED
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
swtpm_setup --tpm2 --tpmstate "$T/st" --pcr-banks sha256 --overwrite >"$T/swtpm_setup.log" 2>&1 ||
	{ sed 's/^/# /' "$T/swtpm_setup.log"; not_ok "swtpm_setup --pcr-banks sha256"; exit 1; }
swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" --terminate \
	>"$T/swtpm.log" 2>&1 &
SWTPM=$!
trap 'qemu_stop; kill $SWTPM 2>/dev/null; e2e_dump_on_fail' EXIT
for i in $(seq 1 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
E2E_COREBOOT=1 qemu_start -drive "file=$T/disk.img,format=raw,if=virtio" \
	-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
	-device tpm-tis,tpmdev=tpm0
expect 'Found TPM SwTPM 2.0' 120 && expect 'TPM: setup succeeded' 60 &&
	ok "coreboot found the TPM and measured its stages" || not_ok "coreboot found the TPM and measured its stages"
expect 'lboot: TPM 2.0 \(/dev/tpmrm0\): measuring what boots into PCR 4, 9 \(and 11 for a UKI\), banks sha256$' 120 &&
	ok "lboot finds the TPM, bank sha256" || not_ok "lboot finds the TPM, bank sha256"
expect "lboot: TPM: coreboot's [0-9]+ measurements \(PCR 2, its TCPA log\) start the event log" 30 &&
	ok "lboot read coreboot's TCPA log ($(grep -ao "coreboot's [0-9]* measurements" "$T/serial.log" | head -n1))" ||
	not_ok "lboot read coreboot's TCPA log"
expect "lboot: measured 'measured': PCR 4 kernel, PCR 9 command line and initrd; event log handed over in the ACPI TPM2 log area" 180 &&
	ok "lboot measured the entry, log handed over" || not_ok "lboot measured the entry, log handed over"
expect "lboot: boot log: [0-9]+ bytes after coreboot's console in CBMEM at 0x[0-9a-f]+ \(the OS reads both" 60 &&
	ok "lboot put its boot log after coreboot's console in CBMEM" ||
	not_ok "lboot put its boot log after coreboot's console in CBMEM"
expect 'lboot-target: powering off' 240 && ok "target OS up and done" || not_ok "target OS up and done"
qemu_stop
S=$T/serial.txt
tr -d '\r' <"$T/serial.log" >"$S"
# the OS reads one log: coreboot's console, then lboot's boot log (through
# Debian's memconsole-coreboot, /sys/firmware/log)
grep -q '^lboot-target: cbmem: coreboot-4.15.* bootblock starting' "$S" &&
	grep -q '^lboot-target: cbmem: \*\*\* lboot boot log \*\*\*$' "$S" &&
	grep -q "^lboot-target: cbmem: lboot: TPM: coreboot's [0-9]* measurements" "$S" &&
	grep -q "^lboot-target: cbmem: lboot: kexec 'measured' kernel=/vmlinuz" "$S" &&
	ok "the OS's /sys/firmware/log: coreboot's console ($(sed -n 's/^lboot-target: cbmem-end \([0-9]*\) lines/\1/p' "$S") lines) then lboot's boot log up to its kexec line" ||
	{ not_ok "the OS's /sys/firmware/log: coreboot's console then lboot's boot log"; grep '^lboot-target: cbmem' "$S" | head -5 | sed 's/^/# /'; }
sed -n 's/^lboot-target: tpmlog: \([0-9a-f]*\)$/\1/p' "$S" | xxd -r -p >"$T/log.bin"
[ -s "$T/log.bin" ] && ok "the target read binary_bios_measurements ($(stat -c %s "$T/log.bin") bytes)" ||
	not_ok "the target read binary_bios_measurements"
tpm2_eventlog "$T/log.bin" >"$T/log.yaml" 2>"$T/eventlog.err" && ok "tpm2_eventlog parses the log the OS got" ||
	{ not_ok "tpm2_eventlog parses the log the OS got"; sed 's/^/# /' "$T/eventlog.err" | head; }
n_cb=$(grep -ao "coreboot's [0-9]* measurements" "$S" | head -n1 | awk '{print $2}')
python3 "$(dirname "$0")/tcg-replay.py" "$T/log.yaml" "$S" 2,4,8,9 >"$T/replay.txt"
python3 - "$T/log.yaml" "$S" "${n_cb:-0}" >>"$T/replay.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
pcr2 = [l.split()[-1].lower() for l in open(sys.argv[2]) if l.startswith('lboot-target: pcr sha256 2 ')]
print('pcr2', pcr2[0] if pcr2 else '')
# PCR 2's events: EV_ACTION, first in the log, as many as lboot read
first = []
for e in re.split(r'\n- EventNum:', text)[1:]:
    p = int(re.search(r'PCRIndex:\s*(\d+)', e).group(1))
    t = re.search(r'EventType:\s*(\S+)', e).group(1)
    if t == 'EV_NO_ACTION': continue  # the log's header (Spec ID event)
    if p != 2: break
    first.append((t, re.search(r'Digest:\s*"([0-9a-fA-F]+)"', e).group(1).lower()))
print('pcr2-events', len(first), 'all-action', all(t == 'EV_ACTION' for t, _ in first),
      'want', sys.argv[3])
for t, d in first: print('digest', d)
PY
sed 's/^/# /' "$T/replay.txt" | head -4
grep -q '^checked 4 bad 0$' "$T/replay.txt" &&
	ok "replaying the log gives the TPM's PCRs 2, 4, 8, 9 (sha256)" ||
	{ not_ok "replaying the log gives the TPM's PCRs 2, 4, 8, 9 (sha256)"; grep mismatch "$T/replay.txt" | sed 's/^/# /'; }
pcr2=$(sed -n 's/^pcr2 //p' "$T/replay.txt")
[ -n "$pcr2" ] && [ -n "${pcr2//0/}" ] && ok "PCR 2 is not zero: coreboot measured" || not_ok "PCR 2 is not zero ($pcr2)"
grep -q "^pcr2-events $n_cb all-action True" "$T/replay.txt" && [ "${n_cb:-0}" -ge 5 ] &&
	ok "the log starts with coreboot's $n_cb PCR 2 events (EV_ACTION, its names)" ||
	not_ok "the log starts with coreboot's PCR 2 events ($(grep '^pcr2-events' "$T/replay.txt"))"
# the oracle for one of them: coreboot measured fallback/payload's bytes as
# they are in the ROM (lboot cbfs extract --raw; sha256sum)
"$OUT/lboot" cbfs extract --raw "$T/coreboot.rom" fallback/payload -o "$T/payload.bin" 2>/dev/null
want=$(sha256sum <"$T/payload.bin" | cut -d' ' -f1)
grep -q "^digest $want\$" "$T/replay.txt" && grep -aq 'fallback/payload' "$T/log.bin" &&
	ok "coreboot's payload event = sha256sum of fallback/payload in the ROM (lboot's kernel, initramfs, trampoline)" ||
	not_ok "coreboot's payload event = sha256sum of fallback/payload in the ROM ($want)"
# A TPM with SHA-1 and SHA-256 active: coreboot extends SHA-256 only, so its
# events cannot be written into a crypto-agile log for both banks; lboot says
# so in one line, and hands over its own events, which still replay
kill $SWTPM 2>/dev/null; wait $SWTPM 2>/dev/null
rm -rf "$T/st" "$T/sock"; mkdir -p "$T/st"
swtpm_setup --tpm2 --tpmstate "$T/st" --pcr-banks sha1,sha256 --overwrite >"$T/swtpm_setup.log" 2>&1 ||
	{ sed 's/^/# /' "$T/swtpm_setup.log"; not_ok "swtpm_setup --pcr-banks sha1,sha256"; exit 1; }
swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" --terminate \
	>>"$T/swtpm.log" 2>&1 &
SWTPM=$!
for i in $(seq 1 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
E2E_COREBOOT=1 qemu_start -drive "file=$T/disk.img,format=raw,if=virtio" \
	-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
	-device tpm-tis,tpmdev=tpm0
expect "lboot: TPM: coreboot's [0-9]+ measurements are not in the event log: coreboot extended sha256 only and the TPM's active banks differ" 120 &&
	ok "sha1+sha256 TPM: lboot says why coreboot's events are not in the log" ||
	not_ok "sha1+sha256 TPM: lboot says why coreboot's events are not in the log"
expect 'lboot-target: powering off' 240
qemu_stop
tr -d '\r' <"$T/serial.log" >"$S"
sed -n 's/^lboot-target: tpmlog: \([0-9a-f]*\)$/\1/p' "$S" | xxd -r -p >"$T/log2.bin"
tpm2_eventlog "$T/log2.bin" >"$T/log2.yaml" 2>/dev/null
{ python3 "$(dirname "$0")/tcg-replay.py" "$T/log2.yaml" "$S" 4,8,9
  echo "pcr2-events $(grep -c 'PCRIndex: *2$' "$T/log2.yaml")"; } | tr '\n' ' ' | sed 's/ $//' >"$T/replay2.txt"
grep -q '^checked 6 bad 0 pcr2-events 0$' "$T/replay2.txt" &&
	ok "sha1+sha256 TPM: lboot's events replay to PCRs 4, 8, 9 in both banks; no PCR 2 event" ||
	not_ok "sha1+sha256 TPM: lboot's events replay ($(cat "$T/replay2.txt"))"
e2e_done
