#!/bin/bash
# How much fuzzing one run does (figures only, never part of make check).
# Builds the libFuzzer harnesses (make fuzz: clang, ASan+UBSan), runs each
# for FUZZ_SECONDS (default 60) on a COPY of its seed corpus
# fuzz/corpus/NAME, and prints one table row per harness:
#   executions, exec/s, coverage at start and end (libFuzzer's "cov:" edges
#   and "ft:" features), corpus files/bytes before and after, new units,
#   crashes (crash-/leak-/timeout-/oom- artifacts, or a non-zero exit).
# Environment:
#   FUZZ_SECONDS=60     time per harness
#   FUZZ_ONLY=regex     harness names to run (e.g. 'grub|bls')
#   FUZZ_MERGE=1        merge the inputs that add coverage back into
#                       fuzz/corpus/NAME (libFuzzer -merge=1: only inputs
#                       with new features are copied, the corpus stays small)
#   FUZZ_TIMEOUT=20     seconds after which one input counts as a hang
#   FUZZ_JOBS=2         make -j for the build
# Work files, logs and crash artifacts: build/fuzz-long/NAME/.
# Exits 1 when a harness crashed (or failed to run), else 0.
cd "$(dirname "$0")/.." || exit 1
secs=${FUZZ_SECONDS:-60}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "FUZZ_SECONDS must be a positive integer" >&2; exit 2; }
nice make -s -j"${FUZZ_JOBS:-2}" fuzz || { echo "make fuzz failed" >&2; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
W=build/fuzz-long
mkdir -p "$W"

files() { find "$1" -maxdepth 1 -type f | wc -l; }
bytes() { find "$1" -maxdepth 1 -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
# field NAME LINE: the number after "NAME:" in a libFuzzer status line
field() { sed -n "s/.* $1: *\([0-9]*\).*/\1/p" <<<"$2"; }

rc=0
fmt='| %-9s | %4s | %9s | %6s | %-14s | %-15s | %-29s | %5s | %7s |\n'
printf "$fmt" harness s execs 'exec/s' 'cov start->end' 'ft start->end' 'corpus files (bytes)' new crashes
printf '|%s|\n' '-----------|------|-----------|--------|----------------|-----------------|-------------------------------|-------|---------'
for bin in build/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	n=${bin##*/fuzz_}
	[ -n "${FUZZ_ONLY:-}" ] && ! [[ $n =~ $FUZZ_ONLY ]] && continue
	seeds=fuzz/corpus/$n
	d=$W/$n
	rm -rf "$d"; mkdir -p "$d/corpus"
	[ -d "$seeds" ] && cp "$seeds"/* "$d/corpus/" 2>/dev/null
	f0=$(files "$d/corpus") b0=$(bytes "$d/corpus")
	dict=()
	[ -f "fuzz/$n.dict" ] && dict=(-dict="fuzz/$n.dict")
	nice "$bin" -max_total_time="$secs" -print_final_stats=1 -timeout="${FUZZ_TIMEOUT:-20}" \
		-artifact_prefix="$d/" "${dict[@]}" "$d/corpus" >"$d/log" 2>&1
	frc=$?
	init=$(grep -a -m1 'INITED' "$d/log")
	last=$(grep -a ' cov: ' "$d/log" | tail -n1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$d/log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$d/log")
	new=$(sed -n 's/^stat::new_units_added: *//p' "$d/log")
	crashes=$(find "$d" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
	if [ "$frc" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes="exit $frc"; fi
	[ "$crashes" != 0 ] && rc=1
	printf "$fmt" "$n" "$secs" "${execs:-?}" "${eps:-?}" \
		"$(field cov "$init")->$(field cov "$last")" "$(field ft "$init")->$(field ft "$last")" \
		"$f0 ($b0) -> $(files "$d/corpus") ($(bytes "$d/corpus"))" "${new:-?}" "$crashes"
	if [ "$crashes" != 0 ]; then
		grep -a -m3 -E 'ERROR|runtime error|SUMMARY' "$d/log" | sed 's/^/    # /'
		echo "    # log and artifacts: $d/"
	elif [ "${FUZZ_MERGE:-0}" = 1 ] && [ -d "$seeds" ]; then
		m0=$(files "$seeds")
		nice "$bin" -merge=1 -timeout="${FUZZ_TIMEOUT:-20}" "$seeds" "$d/corpus" >"$d/merge.log" 2>&1 ||
			{ echo "    # merge failed: $d/merge.log"; rc=1; }
		echo "    # merged into $seeds: $m0 -> $(files "$seeds") files"
	fi
done
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), FUZZ_SECONDS=$secs, $(clang --version | head -n1), $(nproc) CPUs"
exit $rc
