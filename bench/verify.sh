#!/bin/bash
# Benchmark for issues 9 and 10: what verification and measurement cost in
# the guest, as a share of lboot's start-to-kexec time. One disk with a
# ~10 MB kernel (Debian's, Authenticode padding after it as sbattach would
# leave none: a 10 MB file is the Debian kernel + zeros in its certificate
# area is not possible, so the kernel is Debian's ~8 MB one) and a 40 MB
# initrd (the target initrd + zero padding, which the kernel skips), one
# manifest-signed entry, booted in one run with: policy off (no digests),
# enforce (SHA-256 + BLAKE2b in the one read, signatures, manifest), and
# enforce + a swtpm TPM (four banks: SHA-1/256/384/512 too, PCR extends,
# the log written). Times come from the guest's uptime stamps:
# "lboot 0.1 starting (uptime A)" .. "handing over at uptime B".
#   bench/verify.sh [RUNS]     (needs `make` first). Prints; asserts nothing.
cd "$(dirname "$0")/.." || exit 1
. tests/e2e/lib.sh
runs=${1:-1}
e2e_init bench-verify
target_os
R=$T/root K=$T/keys
mkdir -p "$R/loader/entries" "$K"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
head -c $((40 * 1024 * 1024 - $(stat -c %s "$TARGET_INITRD"))) /dev/zero >>"$R/initrd.img"
CMD="console=ttyS0 quiet"
printf 'title bench\nlinux /vmlinuz\ninitrd /initrd.img\noptions %s\n' "$CMD" >"$R/loader/entries/bench.conf"
minisign -G -W -p "$K/k.pub" -s "$K/k.key" >/dev/null
"$OUT/lboot" manifest -o "$R/loader/entries/bench.manifest" --entry bench --kernel "$R/vmlinuz" \
	--initrd "$R/initrd.img" --cmdline "$CMD" --version 1 --expires 2099-01-01
minisign -S -s "$K/k.key" -m "$R/loader/entries/bench.manifest" >/dev/null
mkpart_ext4 "$T/p1.img" 80 "$R" BENCH
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
"$OUT/lboot" mkinitramfs -o "$T/enforce.cpio.xz" --init "$OUT/lboot-target" --trust "$K/k.pub" 2>/dev/null
echo "kernel $(stat -c %s "$R/vmlinuz") bytes, initrd $(stat -c %s "$R/initrd.img") bytes"
span() { # serial log -> seconds from lboot's start to the hand-over
	tr -d '\r' <"$1" | awk '/lboot [0-9.]+ starting \(uptime/ { gsub(/[()s]/, "", $5); a = $5 }
		/handing over at uptime/ { b = $(NF-1) } END { if (a != "" && b != "") printf "%.2f", b - a; else print "?" }'
}
run() { # NAME INITRD TPM
	local tpmargs=() sw=
	if [ "$3" = tpm ]; then
		rm -rf "$T/st"; mkdir -p "$T/st"
		swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" --terminate \
			>/dev/null 2>&1 & sw=$!
		for i in $(seq 1 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
		tpmargs=(-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-tis,tpmdev=tpm0)
	fi
	E2E_INITRD=$2 E2E_APPEND="lboot.timeout=0 lboot.measure=${4:-}" \
		qemu_start -drive "file=$T/disk.img,format=raw,if=virtio" "${tpmargs[@]}"
	expect 'handing over at uptime' 600 >/dev/null
	qemu_stop
	[ -n "$sw" ] && kill $sw 2>/dev/null
	span "$T/serial.log"
}
printf '%-28s' "mode"; for i in $(seq 1 "$runs"); do printf ' run%-5s' $i; done; echo
declare -A sum
for mode in off enforce enforce+tpm; do
	printf '%-28s' "$mode start->kexec (s)"
	for i in $(seq 1 "$runs"); do
		case $mode in
		off) s=$(run off "$OUT/initramfs.cpio.xz" notpm 0) ;;
		enforce) s=$(run enforce "$T/enforce.cpio.xz" notpm 0) ;;
		enforce+tpm) s=$(run tpm "$T/enforce.cpio.xz" tpm) ;;
		esac
		printf ' %-8s' "$s"
		sum[$mode]=$(echo "${sum[$mode]:-0} $s" | awk '{print $1 + $2}')
	done
	echo
done
awk -v off="${sum[off]}" -v en="${sum[enforce]}" -v tp="${sum[enforce+tpm]}" 'BEGIN {
	printf "verification: +%.2f s, %.1f%% of enforce start->kexec\n", (en - off), 100 * (en - off) / en
	printf "verification + measurement: +%.2f s, %.1f%% of start->kexec\n", (tp - off), 100 * (tp - off) / tp }'
