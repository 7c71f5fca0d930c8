#!/bin/bash
# Issue 23, finding 2: a measurement that fails must fail closed. An
# attacker who controls the disk picks a failure (here: a command line that
# is not UTF-8) so that lboot measures nothing more, boots the entry, and
# the booted code extends the digests an honest boot would have: PCR 4 and 9
# then equal an honest boot's and sealed secrets unseal.
#
# Three boots, SeaBIOS + swtpm (tpm-tis), the target OS printing its PCRs:
#  1. honest: the entry with command line CMD; the target's PCR 4 and 9
#     (sha256), and the host checks its own arithmetic: PCR 9 equals
#     sha256 extends of CMD's UTF-16 and the initrd from zero.
#  2. the attack, lboot.tpm=best-effort (so it boots and the target can
#     show the PCRs): CMD plus a byte that is not UTF-8. lboot must say the
#     PCRs are capped and lock the platform hierarchy; the target's PCR 4
#     and 9, and those PCRs completed with the honest digests (the kernel's
#     again for 4; CMD's and the initrd's for 9), must all differ from boot 1.
#  3. the attack without lboot.tpm=: refused in one line, the menu, nothing
#     boots.
. "$(dirname "$0")/lib.sh"
e2e_init measure-fail
for c in swtpm pesign iconv python3; do
	command -v $c >/dev/null || { not_ok "$c not installed (scripts/deps.sh)"; exit 1; }
done
target_os
CMD="console=ttyS0 lboot-test.tpm quiet"
BAD=$(printf '%s x=\xff' "$CMD")
mkroot() { # DIR TITLE OPTIONS
	mkdir -p "$1/loader/entries"
	cp "$TARGET_KERNEL" "$1/vmlinuz"
	cp "$TARGET_INITRD" "$1/initrd.img"
	printf 'title   %s\nlinux   /vmlinuz\ninitrd  /initrd.img\noptions %s\n' "$2" "$3" \
		>"$1/loader/entries/m.conf"
}
mkroot "$T/honest" honest "$CMD"
mkroot "$T/evil" evil "$BAD"
mkpart_ext4 "$T/h.img" 48 "$T/honest" MEASURED
mkdisk_gpt "$T/honest.img" "$T/h.img:xbootldr:boot"
mkpart_ext4 "$T/e.img" 48 "$T/evil" MEASURED
mkdisk_gpt "$T/evil.img" "$T/e.img:xbootldr:boot"
mkdir -p "$T/st"
SWTPM=
trap 'qemu_stop; [ -n "$SWTPM" ] && kill $SWTPM 2>/dev/null; e2e_dump_on_fail' EXIT
boot() { # DISK [APPEND]: a fresh power-on with the TPM
	rm -f "$T/sock"
	swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" --terminate \
		>>"$T/swtpm.log" 2>&1 &
	SWTPM=$!
	for i in $(seq 1 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
	E2E_APPEND="lboot.timeout=0 ${2:-}" qemu_start -drive "file=$1,format=raw,if=virtio" \
		-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
		-device tpm-tis,tpmdev=tpm0
}
pcr() { tr -d '\r' <"$T/serial.log" | sed -n "s/^lboot-target: pcr sha256 $1 //p" | tr 'A-F' 'a-f'; }
# ext OLD DIGEST...: the PCR value after extending each digest (sha256)
ext() {
	python3 - "$@" <<'PY'
import hashlib, sys
v = bytes.fromhex(sys.argv[1])
for d in sys.argv[2:]:
    v = hashlib.sha256(v + bytes.fromhex(d)).digest()
print(v.hex())
PY
}
ZERO=$(printf '0%.0s' $(seq 1 64))
dk=$(pesign -h -d sha256 -i "$T/honest/vmlinuz" | sed -n 's/^hash: //p' | tr 'A-F' 'a-f')
# the command line as systemd-boot hands it to the kernel (its initrd= word first)
dc=$( { printf '%s' "initrd=\\initrd.img $CMD" | iconv -f utf-8 -t utf-16le; printf '\0\0'; } | sha256sum | cut -d' ' -f1)
di=$(sha256sum <"$T/honest/initrd.img" | cut -d' ' -f1)

# 1. honest
boot "$T/honest.img"
expect "lboot: measured 'honest': PCR 4 kernel, PCR 9 command line and initrd" 180 &&
	expect 'lboot-target: powering off' 240 && ok "honest boot measured and up" || not_ok "honest boot measured and up"
p4h=$(pcr 4) p9h=$(pcr 9)
qemu_stop; kill $SWTPM 2>/dev/null; wait $SWTPM 2>/dev/null; SWTPM=
[ -n "$p9h" ] && [ -n "$dk" ] && [ "$(ext "$ZERO" "$dc" "$di")" = "$p9h" ] &&
	ok "honest PCR 9 = extends of the command line's UTF-16 and the initrd (the host's arithmetic holds)" ||
	not_ok "honest PCR 9 = extends of the command line's UTF-16 and the initrd (PCR 9 $p9h)"

# 2. the attack, booted anyway (lboot.tpm=best-effort)
boot "$T/evil.img" lboot.tpm=best-effort
expect "lboot: TPM: measuring 'evil' failed: the command line: not valid UTF-8; PCRs 0-9, 11-13 capped \(EV_SEPARATOR 1\); booting it anyway \(lboot.tpm=best-effort\)" 180 &&
	ok "a command line that is not UTF-8: measuring fails in one line, PCRs capped" ||
	not_ok "a command line that is not UTF-8: measuring fails in one line, PCRs capped"
expect 'lboot-target: powering off' 240 && ok "best-effort: the entry boots" || not_ok "best-effort: the entry boots"
grep -q 'lboot: TPM: platform hierarchy locked' <(tr -d '\r' <"$T/serial.log") &&
	ok "platform hierarchy locked after the failure" || not_ok "platform hierarchy locked after the failure"
p4e=$(pcr 4) p9e=$(pcr 9)
qemu_stop; kill $SWTPM 2>/dev/null; wait $SWTPM 2>/dev/null; SWTPM=
log "honest PCR 4 $p4h 9 $p9h; after the failed measurement PCR 4 $p4e 9 $p9e"
if [ -z "$p4e" ] || [ -z "$p9e" ] || [ -z "$p4h" ]; then
	not_ok "the target read PCRs 4 and 9 after the failed measurement"
else
	[ "$p4e" != "$p4h" ] && [ "$(ext "$p4e" "$dk")" != "$p4h" ] &&
		ok "PCR 4 is not an honest boot's, nor completable with the kernel's digest" ||
		not_ok "PCR 4 is not an honest boot's, nor completable with the kernel's digest"
	[ "$p9e" != "$p9h" ] && [ "$(ext "$p9e" "$dc" "$di")" != "$p9h" ] && [ "$(ext "$p9e" "$di")" != "$p9h" ] &&
		ok "PCR 9 cannot be completed to an honest boot's with the honest command line and initrd digests" ||
		not_ok "PCR 9 cannot be completed to an honest boot's with the honest command line and initrd digests"
fi

# 3. the attack, default policy: refused, nothing boots
boot "$T/evil.img"
expect "lboot: refused: 'evil' \(/dev/vda1\): TPM: measuring failed \(PCRs capped; lboot.tpm=best-effort boots it\)" 180 &&
	ok "default: the entry whose measurement failed is refused in one line" ||
	not_ok "default: the entry whose measurement failed is refused in one line"
expect 'lboot> ' 30 && expect_not 'lboot-target: TARGET-OS-UP' && ok "nothing booted, menu up" ||
	not_ok "nothing booted, menu up"
e2e_done
