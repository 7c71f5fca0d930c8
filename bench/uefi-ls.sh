#!/bin/bash
# lboot uefi ls vs UEFIExtract report on OVMF_CODE_4M.fd: wall time and peak
# RSS of each, several runs (prints figures; asserts nothing).
# usage: bench/uefi-ls.sh [IMAGE] [RUNS]
cd "$(dirname "$0")/.." || exit 1
IMG=${1:-/usr/share/OVMF/OVMF_CODE_4M.fd}
RUNS=${2:-5}
L=$PWD/out/lboot
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -x "$L" ] || { echo "out/lboot missing (make out/lboot)"; exit 1; }
command -v UEFIExtract >/dev/null || { echo "UEFIExtract missing (apt-get install uefitool-cli)"; exit 1; }
cp "$IMG" "$T/img.fd"
run() { # label cmd...
	local label=$1; shift
	local i t m ts=() ms=()
	for i in $(seq "$RUNS"); do
		rm -f "$T/img.fd.report.txt"
		/usr/bin/time -f '%e %M' -o "$T/time" "$@" >/dev/null 2>&1
		read -r t m <"$T/time"
		ts+=("$t"); ms+=("$m")
	done
	printf '%-12s wall s: %s   peak RSS KiB: %s\n' "$label" "${ts[*]}" "${ms[*]}"
	printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p" >"$T/$label.t"
	printf '%s\n' "${ms[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p" >"$T/$label.m"
}
echo "image: $IMG ($(stat -c %s "$IMG") bytes), $RUNS runs each"
run lboot "$L" uefi ls "$T/img.fd"
run lboot-json "$L" uefi ls --json "$T/img.fd"
(cd "$T" && run UEFIExtract UEFIExtract img.fd report)
lt=$(cat "$T/lboot.t") lm=$(cat "$T/lboot.m") ut=$(cat "$T/UEFIExtract.t") um=$(cat "$T/UEFIExtract.m")
echo "median: lboot ${lt} s ${lm} KiB; UEFIExtract ${ut} s ${um} KiB"
awk -v lt="$lt" -v ut="$ut" -v lm="$lm" -v um="$um" 'BEGIN {
	printf "lboot/UEFIExtract: time %.2f (target <= 0.50), memory %.2f (target <= 0.25)\n",
		(ut > 0 ? lt / ut : 0), (um > 0 ? lm / um : 0) }'
