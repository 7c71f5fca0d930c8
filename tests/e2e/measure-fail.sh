#!/bin/bash
# Issue 23, finding 2: measurement fails closed. A disk's BLS entry whose
# command line holds a character the measurement cannot encode (a 4-byte
# UTF-8 character: no UCS-2 form) makes measuring fail. Before, lboot
# skipped the rest and booted the entry unmeasured, so the booted code could
# extend the honest digests itself. Now: PCRs 4, 8, 9 and 11 get an
# EV_SEPARATOR error event (0x00000001), the platform hierarchy is locked,
# the entry is refused, and the next entry boots with PCRs that can never
# equal an honest boot's: its PCR 9 differs from the same entry's PCR 9 in an
# honest boot (a fresh TPM), and the log the OS gets (tpm2_eventlog) shows
# the cap events and still replays to the TPM's PCRs.
. "$(dirname "$0")/lib.sh"
e2e_init measure-fail
for c in swtpm tpm2_eventlog; do
	command -v $c >/dev/null || { not_ok "$c not installed (scripts/deps.sh)"; exit 1; }
done
target_os
R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
ent() { # ID SORT OPTIONS
	printf 'title   %s\nsort-key %s\nlinux   /vmlinuz\ninitrd  /initrd.img\noptions %s\n' "$1" "$2" "$3" \
		>"$R/loader/entries/$1.conf"
}
ent bad a "console=ttyS0 lboot-test.tpm lboot-test=bad x=$(printf '\xf0\x9f\x98\x80') quiet"
ent good b "console=ttyS0 lboot-test.tpm lboot-test=good quiet"
printf 'default bad.conf\ntimeout 0\n' >"$R/loader/loader.conf"
mkpart_ext4 "$T/p1.img" 48 "$R" MFAIL
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
SWTPM=
swtpm_start() { # STATEDIR
	mkdir -p "$1"
	rm -f "$T/sock"
	swtpm socket --tpm2 --tpmstate dir="$1" --ctrl type=unixio,path="$T/sock" --terminate \
		>>"$T/swtpm.log" 2>&1 &
	SWTPM=$!
	for i in $(seq 1 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
}
trap 'qemu_stop; [ -n "$SWTPM" ] && kill $SWTPM 2>/dev/null; e2e_dump_on_fail' EXIT
TPMDEV=(-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-tis,tpmdev=tpm0)
pcr() { tr -d '\r' <"$T/serial.log" | sed -n "s/^lboot-target: pcr sha256 $1 //p"; }

swtpm_start "$T/st1"
qemu_start -drive "file=$T/disk.img,format=raw,if=virtio" "${TPMDEV[@]}"
expect "lboot: TPM: measuring 'bad' failed: .*PCRs 4, 8, 9, 11 capped; not booting it" 180 &&
	ok "the measurement failure caps the PCRs and refuses the entry" ||
	not_ok "the measurement failure caps the PCRs and refuses the entry"
expect "lboot: refused: 'bad' \(/dev/vda1\): TPM: measuring failed \(PCRs capped\)" 30 &&
	ok "one line names the entry and the reason" || not_ok "one line names the entry and the reason"
expect 'lboot-target: powering off' 300 && ok "the next entry boots" || not_ok "the next entry boots"
S=$T/serial.txt
tr -d '\r' <"$T/serial.log" >"$S"
grep -q 'lboot: TPM: platform hierarchy locked' "$S" && ok "platform hierarchy locked" ||
	not_ok "platform hierarchy locked"
grep -q 'lboot-target: cmdline: .*lboot-test=good' "$S" && ! grep -q 'lboot-target: cmdline: .*lboot-test=bad' "$S" &&
	ok "the unmeasurable entry never booted" || not_ok "the unmeasurable entry never booted"
p9cap=$(pcr 9) p4cap=$(pcr 4)
sed -n 's/^lboot-target: tpmlog: \([0-9a-f]*\)$/\1/p' "$S" | xxd -r -p >"$T/log.bin"
tpm2_eventlog "$T/log.bin" >"$T/log.yaml" 2>"$T/eventlog.err" && ok "tpm2_eventlog parses the log the OS got" ||
	not_ok "tpm2_eventlog parses the log the OS got"
python3 - "$T/log.yaml" >"$T/caps.txt" <<'PY'
import re, sys
cur = {}
caps = set()
for line in open(sys.argv[1]):
    m = re.match(r'\s*PCRIndex:\s*(\d+)', line)
    if m: cur = {'pcr': int(m.group(1))}; continue
    m = re.match(r'\s*EventType:\s*(\S+)', line)
    if m: cur['type'] = m.group(1); continue
    m = re.match(r'\s*Event:\s*"?([0-9a-fA-F]+)"?', line)
    if m and cur.get('type') == 'EV_SEPARATOR' and m.group(1).lower() == '01000000':
        caps.add(cur['pcr'])
print('caps', ' '.join(str(p) for p in sorted(caps)))
PY
grep -q '^caps 4 8 9 11$' "$T/caps.txt" && ok "the log holds the error separators of PCRs 4, 8, 9, 11" ||
	{ not_ok "the log holds the error separators of PCRs 4, 8, 9, 11 ($(cat "$T/caps.txt"))"; sed 's/^/# /' "$T/log.yaml" | grep -B2 -A6 SEPARATOR | head -40; }
qemu_stop
kill $SWTPM 2>/dev/null; wait $SWTPM 2>/dev/null

# the honest boot of the same entry on a fresh TPM: its PCRs 4 and 9
printf 'default good.conf\ntimeout 0\n' >"$R/loader/loader.conf"
rm "$R/loader/entries/bad.conf"
mkpart_ext4 "$T/p1.img" 48 "$R" MFAIL
mkdisk_gpt "$T/disk2.img" "$T/p1.img:xbootldr:boot"
swtpm_start "$T/st2"
qemu_start -drive "file=$T/disk2.img,format=raw,if=virtio" "${TPMDEV[@]}"
expect 'lboot-target: powering off' 300 && ok "honest boot on a fresh TPM" || not_ok "honest boot on a fresh TPM"
p9=$(pcr 9) p4=$(pcr 4)
[ -n "$p9" ] && [ -n "$p9cap" ] && [ "$p9" != "$p9cap" ] && [ "$p4" != "$p4cap" ] &&
	ok "after the cap, PCRs 4 and 9 differ from an honest boot's (4: $p4cap vs $p4)" ||
	not_ok "after the cap, PCRs 4 and 9 differ from an honest boot's (4: $p4cap vs $p4, 9: $p9cap vs $p9)"
e2e_done
