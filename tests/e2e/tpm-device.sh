#!/bin/bash
# lboot-target's `lboot tpm` over the kernel's TPM character devices
# (/dev/tpmrm0 and /dev/tpm0) in a QEMU guest: stock OVMF_CODE_4M + swtpm on
# tpm-tis (q35, TCG), booting with -kernel the firmware kernel out/bzImage
# (or TPM_E2E_KERNEL, e.g. Debian's /boot/vmlinuz-*: both have tpm_tis built
# in) and a busybox initramfs that runs out/lboot-target.
# Checks, on the serial console: the banks, PCR values equal to the kernel's
# own sysfs view (/sys/class/tpm/tpm0/pcr-*/N), the firmware's event log
# replayed through the device's TPM2_Hash equal to the PCRs, an extend seen
# by sysfs, and a missing device.
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
NAME=tpm-device
FAILED=0
ok() { echo "ok $NAME: $*"; }
not_ok() { echo "not ok $NAME: $*"; FAILED=1; }
T=$ROOT/build/e2e/$NAME
rm -rf "$T"; mkdir -p "$T/root/bin" "$T/st"
spid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	if [ "$FAILED" != 0 ] && [ -f "$T/serial.log" ]; then
		echo "# --- last 40 lines of $T/serial.log ---"
		tail -n 40 "$T/serial.log" | tr -d '\r' | sed 's/^/# | /'
	fi
}
trap cleanup EXIT
for c in swtpm qemu-system-x86_64 busybox; do
	command -v $c >/dev/null || { not_ok "$c missing (scripts/deps.sh)"; exit 1; }
done
[ -x out/lboot-target ] || { not_ok "out/lboot-target missing (make)"; exit 1; }
kernel=${TPM_E2E_KERNEL:-out/bzImage}
[ -f "$kernel" ] || { not_ok "no kernel $kernel (make)"; exit 1; }
echo "# kernel: $kernel"

cp "$(command -v busybox)" "$T/root/bin/busybox"
cp out/lboot-target "$T/root/bin/lboot"
cat >"$T/root/init" <<'EOS'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys /dev
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t securityfs securityfs /sys/kernel/security
for i in $(seq 50); do [ -e /dev/tpmrm0 ] && break; sleep 0.1; done
echo # OVMF's console escapes end without a newline
echo "@@INFO $(lboot tpm --json info)"
# PCRs by lboot (default device: /dev/tpmrm0) and by the kernel's sysfs
lboot tpm pcrread sha1:0,4,7+sha256:0,4,7,9 | tr -d ' ' | sed 's/^/@@PCR /'
for b in sha1 sha256; do
  for n in 0 4 7 9; do
    [ $b = sha1 ] && [ $n = 9 ] && continue
    echo "@@SYS $b $n $(cat /sys/class/tpm/tpm0/pcr-$b/$n)"
  done
done
lboot tpm --device /dev/tpm0 eventlog /sys/kernel/security/tpm0/binary_bios_measurements --replay |
  tr -d ' ' | sed 's/^/@@REPLAY /'
echo "@@REPLAY-RC $?"
for b in sha1 sha256 sha384 sha512; do
  for n in 0 1 2 3 4 5 6 7 9; do
    [ -e /sys/class/tpm/tpm0/pcr-$b/$n ] && echo "@@SYSALL $b $n $(cat /sys/class/tpm/tpm0/pcr-$b/$n)"
  done
done
d1=0000000000000000000000000000000000000001
d2=0000000000000000000000000000000000000000000000000000000000000002
d3=000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003
d5=00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004
lboot tpm --device /dev/tpm0 extend 8 $d1 $d2 $d3 $d5; echo "@@EXTEND-RC $?"
echo "@@PCR8 $(cat /sys/class/tpm/tpm0/pcr-sha256/8)"
echo "@@RANDOM $(lboot tpm --device /dev/tpmrm0 getrandom 16)"
out=$(lboot tpm --device /dev/nonexistent info 2>&1)
echo "@@NODEV $out rc=$?"
echo "@@DONE"
poweroff -f
EOS
chmod 755 "$T/root/init"
(cd "$T/root" && find . | cpio -o -H newc --quiet) >"$T/initrd.cpio"
swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" \
	--flags startup-clear --terminate &
spid=$!
for _ in $(seq 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
cp /usr/share/OVMF/OVMF_VARS_4M.fd "$T/vars.fd"
timeout 400 qemu-system-x86_64 -machine q35 -accel tcg -m 512 -display none -no-reboot \
	-serial file:"$T/serial.log" -monitor none \
	-drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
	-drive if=pflash,format=raw,unit=1,file="$T/vars.fd" \
	-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
	-device tpm-tis,tpmdev=tpm0 \
	-kernel "$kernel" -initrd "$T/initrd.cpio" -append "console=ttyS0 quiet panic=-1"
S=$T/serial.txt
tr -d '\r' <"$T/serial.log" >"$S"
grep -q '^@@DONE' "$S" && ok "guest ran the checks" || { not_ok "guest ran the checks"; exit 1; }

grep -q '^@@INFO {"manufacturer":"IBM",.*"banks":\["sha1","sha256","sha384","sha512"\]' "$S" &&
	ok "info over /dev/tpmrm0: four banks" || not_ok "info over /dev/tpmrm0"

# "@@PCR sha1:" then "@@PCR 0:0xHEX" lines -> "bank n HEX"
awk '/^@@PCR [a-z0-9]+:$/ { b = $2; sub(":", "", b); next }
     /^@@PCR [0-9]+:0x/ { split($2, a, ":0x"); print b, a[1], a[2] }' "$S" >"$T/mine"
sed -n 's/^@@SYS //p' "$S" >"$T/sys"
[ "$(wc -l <"$T/mine")" -eq 7 ] && diff "$T/mine" "$T/sys" >"$T/diff" &&
	ok "pcrread equals the kernel's sysfs PCRs" || { not_ok "pcrread equals sysfs"; cat "$T/diff"; }

awk '/^@@REPLAY [a-z0-9]+:$/ { b = $2; sub(":", "", b); next }
     /^@@REPLAY [0-9]+:0x/ { split($2, a, ":0x"); print b, a[1], a[2] }' "$S" | sort >"$T/replay"
sed -n 's/^@@SYSALL //p' "$S" | sort >"$T/sysall"
grep -q '^@@REPLAY-RC 0' "$S" && [ "$(wc -l <"$T/replay")" -eq 36 ] &&
	diff "$T/replay" "$T/sysall" >"$T/diff2" &&
	ok "firmware log replayed via /dev/tpm0 (TPM2_Hash) equals PCRs 0-7,9 of 4 banks" ||
	{ not_ok "firmware log replay equals sysfs"; head "$T/diff2"; }

# PCR 8 after one extend from zero: sha256(32 zero bytes || 00..02)
want=$( (head -c 32 /dev/zero; printf '%064x' 2 | xxd -r -p) | sha256sum | cut -c1-64 | tr a-f A-F)
grep -q '^@@EXTEND-RC 0' "$S" && grep -q "^@@PCR8 $want" "$S" &&
	ok "extend over /dev/tpm0 seen by sysfs" || not_ok "extend over /dev/tpm0 (want $want)"

grep -Eq '^@@RANDOM [0-9a-f]{32}$' "$S" && ok "getrandom over /dev/tpmrm0" || not_ok "getrandom"
grep -q '^@@NODEV lboot tpm: /dev/nonexistent: No such file or directory rc=1' "$S" &&
	ok "a missing device: one line, exit 1" || not_ok "missing device message"
exit 0
