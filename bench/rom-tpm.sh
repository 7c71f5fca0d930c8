#!/bin/bash
# What the firmware's measured boot costs: the LinuxBoot ROM built with and
# without `lboot mkrom --tpm`, each booted with and without a TPM 2.0
# (swtpm on tpm-crb, a fresh state per boot),
# with four PCR banks (swtpm's default: sha1, sha256, sha384, sha512) or two
# (swtpm_setup --pcr-banks sha1,sha256, as most hardware TPMs), interleaved
# in one run under QEMU TCG (q35, 1 GiB, 1 vCPU), to the same
# target OS from the same ESP (a BLS entry; lboot measures it when it finds
# a TPM). Every serial line is stamped with the seconds since QEMU started
# by bench/rom-boot.sh's reader (wall time, and the CPU time QEMU had used:
# less disturbed by other jobs on the host); per configuration, the mean of
# each phase marker is printed as a table.
#   bench/rom-tpm.sh [RUNS]       (default 2 runs of each of the 7 below; no asserts)
# BENCH_CONFS: a subset of the configurations (names in the table)
# Stamped serial logs: build/e2e/bench-rom-tpm/serial-CONF-N.log
# Needs: make out/lboot out/bzImage out/initramfs.cpio.xz build/dxe/lbootdxe.efi,
# python3, swtpm, ovmf, qemu-system-x86, mtools, dosfstools.
RUNS=${1:-2}
. "$(dirname "$0")/../tests/e2e/lib.sh"
. "$(dirname "$0")/../tests/e2e/rom-lib.sh"
e2e_init bench-rom-tpm
ROM_CMDLINE=${ROM_CMDLINE:-console=ttyS0,115200 panic=-1 lboot.timeout=0 quiet}
for c in python3 swtpm swtpm_setup; do
	command -v $c >/dev/null || { echo "bench: needs $c"; exit 1; }
done
# the stamping reader: bench/stamp.py (shared)

rom_build "$T/plain.rom" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" --cmdline "$ROM_CMDLINE"
rom_build "$T/tpm.rom" --tpm --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" --cmdline "$ROM_CMDLINE"
rom_build "$T/ovmfpei.rom" --tpm --no-pei --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" --cmdline "$ROM_CMDLINE"
# attribution: the --tpm ROM without Tcg2Pei and Tcg2PlatformPei (the tail
# of the PEI volume: nothing moves), so Tcg2ConfigPei still probes for the
# TPM but nothing measures: "nopei" in the table
"$OUT/lboot" uefi edit "$T/tpm.rom" --remove LbootPei --remove Tcg2PlatformPei --remove Tcg2Pei -o "$T/nopei.rom" >/dev/null ||
	{ echo "bench: lboot uefi edit failed"; exit 1; }
cp "$T/tpm-vars.fd" "$T/nopei-vars.fd"
echo "# plain: $(grep -E '^compressed' "$T/plain.rom.log")"
echo "# --tpm: $(grep -E '^compressed' "$T/tpm.rom.log")"
grep -E '^TPM' "$T/tpm.rom.log" | sed 's/^/# --tpm: /'

target_os
mkdir -p "$T/esp/loader/entries" "$T/esp/os"
cp "$TARGET_KERNEL" "$T/esp/os/vmlinuz"
cp "$TARGET_INITRD" "$T/esp/os/initrd.img"
printf 'default bench\ntimeout 0\n' >"$T/esp/loader/loader.conf"
cat >"$T/esp/loader/entries/bench.conf" <<'EOC'
title   bench target OS
linux   /os/vmlinuz
initrd  /os/initrd.img
options console=ttyS0,115200 quiet
EOC
mkpart_vfat "$T/esp.img" 48 "$T/esp" ESP 20260B0C
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp"

MARKS=('first=.' 'dxe-drv=lbootdxe: driver loaded' 'ready2boot=lbootdxe: signalled ReadyToBoot'
       'start-kern=lbootdxe: starting the kernel' 'lboot=lboot [0-9.]+ starting'
       'measured=lboot: (measured|TPM: none)' 'kexec=lboot: kexec '
       'target=lboot-target: TARGET-OS-UP')
CONFS=${BENCH_CONFS:-plain-notpm plain-tpm4 tpmrom-notpm tpmrom-tpm4 tpmrom-tpm2 ovmfpei-tpm4 nopei-tpm4}
# the two-bank state, made once and copied for each boot
mkdir -p "$T/st2"
swtpm_setup --tpm2 --tpmstate "$T/st2" --pcr-banks sha1,sha256 --overwrite >"$T/swtpm_setup.log" 2>&1 ||
	{ echo "bench: swtpm_setup failed"; cat "$T/swtpm_setup.log"; exit 1; }
boot_once() { # CONF LOG
	local conf=$1 log=$2 rom spid= args=()
	case $conf in plain-*) rom=$T/plain.rom ;; nopei-*) rom=$T/nopei.rom ;; ovmfpei-*) rom=$T/ovmfpei.rom ;; *) rom=$T/tpm.rom ;; esac
	cp "${rom%.rom}-vars.fd" "$T/vars.fd"
	if [[ $conf == *-tpm? || $conf == *-tis? ]]; then
		rm -rf "$T/st"; mkdir -p "$T/st"
		[[ $conf == *-tpm2 ]] && cp -a "$T/st2/." "$T/st/"
		swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" --terminate \
			>>"$T/swtpm.log" 2>&1 &
		spid=$!
		for _ in $(seq 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
		args=(-chardev "socket,id=chrtpm,path=$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm
		      -device "$([[ $conf == *-tis? ]] && echo tpm-tis || echo tpm-crb),tpmdev=tpm0")
	fi
	python3 "$E2E_ROOT/bench/stamp.py" 300 "$log" target "${MARKS[@]}" -- \
		"$QEMU" -accel tcg -m 1024 -smp 1 -display none -no-reboot -monitor none \
		-serial stdio -nic none -machine q35,max-fw-size=16M \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$rom" \
		-drive "if=pflash,format=raw,unit=1,file=$T/vars.fd" \
		-drive "file=$T/disk.img,format=raw,if=virtio" "${args[@]}"
	if [ -n "$spid" ]; then
		kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
	fi
}

declare -A sum csum cnt
for i in $(seq 1 "$RUNS"); do
	for conf in $CONFS; do
		line=$(boot_once "$conf" "$T/serial-$conf-$i.log")
		echo "# run $i $conf: $line"
		for m in $line; do
			k=${m%%=*} v=${m#*=}
			[ "$v" = - ] && continue
			sum[$conf.$k]=$(echo "${sum[$conf.$k]:-0} ${v%%:*}" | awk '{print $1 + $2}')
			csum[$conf.$k]=$(echo "${csum[$conf.$k]:-0} ${v#*:}" | awk '{print $1 + $2}')
			cnt[$conf.$k]=$(( ${cnt[$conf.$k]:-0} + 1 ))
		done
	done
done

echo "# mean wall s since QEMU start (QEMU CPU s by then), over the runs that reached the marker;"
echo "# plain/tpmrom: the ROM without/with --tpm; notpm: no TPM device, tpm4/tpm2: tpm-crb with 4/2"
echo "# PCR banks, tis4: tpm-tis with 4 banks; ovmfpei: the --tpm ROM without lbootpei (--no-pei: Tcg2Pei"
echo "# hashes the 12 MiB DXE volume, as OVMF does); nopei: the --tpm ROM without Tcg2Pei, Tcg2PlatformPei"
printf '%-11s' marker
for conf in $CONFS; do printf ' %15s' "$conf"; done
echo
for m in "${MARKS[@]}"; do
	k=${m%%=*}
	printf '%-11s' "$k"
	for conf in $CONFS; do
		n=${cnt[$conf.$k]:-0}
		if [ "$n" -gt 0 ]; then
			printf ' %15s' "$(echo "${sum[$conf.$k]} ${csum[$conf.$k]} $n" |
				awk '{printf "%.2f (%.2f)", $1 / $3, $2 / $3}')"
		else
			printf ' %15s' "-"
		fi
	done
	echo
done
for conf in $CONFS; do
	echo "# $conf: ${cnt[$conf.target]:-0} of $RUNS runs reached the target OS"
done
exit 0
