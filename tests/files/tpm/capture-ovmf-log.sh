#!/bin/bash
# Capture a real TCG2 event log from a stock OVMF boot with a TPM, as the
# fixture ovmf-eventlog.bin (and the PCRs the TPM held: ovmf-pcrs.txt).
#   tests/files/tpm/capture-ovmf-log.sh [KERNEL]   (default: Debian's /boot/vmlinuz-*)
# Debian 12's OVMF_CODE_4M.fd (ovmf 2022.11) + swtpm 0.7.1 + tpm-tis on q35,
# QEMU TCG, `-kernel` with a busybox initramfs whose /init prints
# /sys/kernel/security/tpm0/binary_bios_measurements in base64 between
# markers on the serial console, then the TPM's PCRs 0-9 (tpm2_pcrread
# over swtpm's control channel is not possible while QEMU holds it, so the
# guest prints /sys/class/tpm/tpm0/pcr-sha*/N instead).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kernel=${1:-$(ls /boot/vmlinuz-* | sort -V | tail -1)}
T=$(mktemp -d /tmp/lboot-ovmflog.XXXXXX)
spid=
cleanup() { [ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
mkdir -p "$T/root/bin" "$T/st"
cp /bin/busybox "$T/root/bin/busybox"
cat >"$T/root/init" <<'EOS'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t securityfs securityfs /sys/kernel/security
cat /sys/kernel/security/tpm0/binary_bios_measurements > /log.bin
echo "@@LOG-BEGIN@@"
base64 /log.bin
echo "@@LOG-END@@"
echo "@@PCRS-BEGIN@@"
for b in sha1 sha256 sha384 sha512; do
  [ -d /sys/class/tpm/tpm0/pcr-$b ] || continue
  for n in 0 1 2 3 4 5 6 7 8 9; do echo "$b:$n:$(cat /sys/class/tpm/tpm0/pcr-$b/$n)"; done
done
echo "@@PCRS-END@@"
poweroff -f
EOS
chmod 755 "$T/root/init"
(cd "$T/root" && find . | cpio -o -H newc --quiet) >"$T/initrd.cpio"
swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" \
	--flags startup-clear --terminate &
spid=$!
for _ in $(seq 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
cp /usr/share/OVMF/OVMF_VARS_4M.fd "$T/vars.fd"
timeout 300 qemu-system-x86_64 -machine q35 -accel tcg -m 512 -display none -no-reboot \
	-serial file:"$T/serial.log" -monitor none \
	-drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
	-drive if=pflash,format=raw,unit=1,file="$T/vars.fd" \
	-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
	-device tpm-tis,tpmdev=tpm0 \
	-kernel "$kernel" -initrd "$T/initrd.cpio" -append "console=ttyS0 quiet panic=-1"
tr -d '\r' <"$T/serial.log" | sed -n '/@@LOG-BEGIN@@/,/@@LOG-END@@/p' | sed '1d;$d' |
	base64 -d >"$T/log.bin"
tr -d '\r' <"$T/serial.log" | sed -n '/@@PCRS-BEGIN@@/,/@@PCRS-END@@/p' | sed '1d;$d' >"$T/pcrs.txt"
[ -s "$T/log.bin" ] && [ -s "$T/pcrs.txt" ] || { echo "capture failed; serial log:" >&2; tail -30 "$T/serial.log" >&2; exit 1; }
mv "$T/log.bin" "$here/ovmf-eventlog.bin"
mv "$T/pcrs.txt" "$here/ovmf-pcrs.txt"
echo "wrote $here/ovmf-eventlog.bin ($(stat -c %s "$here/ovmf-eventlog.bin") bytes) and ovmf-pcrs.txt"
