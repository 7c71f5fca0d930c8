#!/bin/bash
# kexec_file_load vs the kexec fast path (kexec_load, src/kexec/kexecload_x86_64.c),
# side by side, on the LinuxBoot ROM under QEMU TCG: bench/rom-boot.sh's ROM
# boot (BLS entry on an ESP, Debian's kernel + the test initrd, `quiet`),
# one run with lboot.kexec=file, one with lboot.kexec=load, alternating, so
# both see the same host load. Per mode, the mean of
#   lboot->kexec:   "lboot X starting" to "lboot: kexec ..." (staging the
#                   entry and the load: kexec_file_load hashes the segments)
#   kexec->target:  "lboot: kexec ..." to the target's first line (the
#                   jump, purgatory's SHA-256 check for kexec_file_load,
#                   the target kernel's boot)
#   QEMU->target:   the whole boot
# in wall seconds and QEMU CPU seconds (less sensitive to a busy host), and
# the firmware kernel's uptime at hand-over (lboot's "handing over at
# uptime" line).
#   bench/kexec-path.sh [RUNS]   (default 3 per mode; figures, no asserts)
# Needs what bench/rom-boot.sh needs.
RUNS=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
BASE=${ROM_CMDLINE:-console=ttyS0,115200 panic=-1 lboot.timeout=0 quiet}
MODES=${KEXEC_MODES:-file load}
declare -A sum cnt
add() { # KEY VALUE
	sum[$1]=$(echo "${sum[$1]:-0} $2" | awk '{print $1 + $2}')
	cnt[$1]=$(( ${cnt[$1]:-0} + 1 ))
}
for i in $(seq 1 "$RUNS"); do
	for mode in $MODES; do
		out=$(ROM_CMDLINE="$BASE lboot.kexec=$mode" BENCH_CASES=rom bash "$here/rom-boot.sh" 1 2>&1)
		line=$(grep '^# run 1 rom:' <<<"$out")
		log=$here/../build/e2e/bench-rom-boot/serial-rom-1.log
		up=$(grep -ao 'loaded ([a-z_]*); handing over at uptime [0-9.]*' "$log" 2>/dev/null | head -n1)
		echo "# run $i $mode: ${line#*rom: } | ${up:-no hand-over line}"
		declare -A m=()
		for kv in ${line#*rom: }; do
			k=${kv%%=*} v=${kv#*=}
			[ "$v" = - ] || m[$k]=$v
		done
		if [ -z "${m[lboot]:-}" ] || [ -z "${m[kexec]:-}" ] || [ -z "${m[target]:-}" ]; then
			echo "# run $i $mode: incomplete (see $log)"
			continue
		fi
		case $up in *"($([ "$mode" = file ] && echo kexec_file_load || echo kexec_load))"*) ;;
			*) echo "# run $i $mode: loaded by the other path: $up"; continue ;; esac
		add "$mode.lk.w" "$(echo "${m[kexec]%%:*} ${m[lboot]%%:*}" | awk '{print $1 - $2}')"
		add "$mode.lk.c" "$(echo "${m[kexec]#*:} ${m[lboot]#*:}" | awk '{print $1 - $2}')"
		add "$mode.kt.w" "$(echo "${m[target]%%:*} ${m[kexec]%%:*}" | awk '{print $1 - $2}')"
		add "$mode.kt.c" "$(echo "${m[target]#*:} ${m[kexec]#*:}" | awk '{print $1 - $2}')"
		add "$mode.t.w" "${m[target]%%:*}"
		add "$mode.t.c" "${m[target]#*:}"
		add "$mode.up" "${up##* }"
		unset m
	done
done
mean() { [ "${cnt[$1]:-0}" -gt 0 ] && echo "${sum[$1]} ${cnt[$1]}" | awk '{printf "%.2f", $1 / $2}' || echo -; }
echo "# means over the runs; wall s / QEMU CPU s"
printf '%-5s %4s  %-13s  %-13s  %-13s  %s\n' mode runs lboot-\>kexec kexec-\>target QEMU-\>target 'uptime at hand-over'
for mode in $MODES; do
	printf '%-5s %4s  %-13s  %-13s  %-13s  %s\n' "$mode" "${cnt[$mode.t.w]:-0}" \
		"$(mean "$mode.lk.w") / $(mean "$mode.lk.c")" "$(mean "$mode.kt.w") / $(mean "$mode.kt.c")" \
		"$(mean "$mode.t.w") / $(mean "$mode.t.c")" "$(mean "$mode.up")"
done
exit 0
