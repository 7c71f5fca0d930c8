#!/bin/bash
# The GRUB harness's speed against the harness before the work on it
# (figures only, never part of make check; docs/fuzzing.md).
# "before" is the tree at BEFORE (default e7c8320^, the commit before the
# first round), built from `git archive` with its own
# `make build/fuzz/fuzz_grub`; "now" is this tree's. Three measures:
#  1. equal work: EXECS (default 30000) executions from the seed corpus,
#     -seed=1 -reload=0 (libFuzzer is then deterministic for a given
#     binary), each binary alone, ROUNDS (default 2) times alternating:
#     CPU seconds (user + sys) and executions per CPU second;
#  2. the same inputs: every input both kept in (1), cut to 1 KiB (what
#     "now" runs of an input), loaded once by each binary (-runs=0):
#     CPU seconds, and those of a harness that returns at once (what
#     libFuzzer itself costs for reading and running that many inputs);
#  3. equal time: SECONDS_EACH (default 60) of fuzzing each, alone, from
#     the seeds, ROUNDS times alternating: libFuzzer's exec/s (median). A faster binary gets further in the
#     same time, to larger inputs and more edges, which costs it: this
#     measure favours the slower one.
# Needs clang (libFuzzer) and git history (a clone, not an archive).
cd "$(dirname "$0")/.." || exit 1
before=${BEFORE:-e7c8320^}
execs=${EXECS:-30000}
rounds=${ROUNDS:-2}
secs=${SECONDS_EACH:-60}
for v in "$execs" "$rounds" "$secs"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "EXECS, ROUNDS and SECONDS_EACH must be positive integers" >&2; exit 2; }
done
command -v clang >/dev/null || { echo "bench: needs clang" >&2; exit 1; }
git rev-parse --verify -q "$before^{commit}" >/dev/null ||
	{ echo "bench: no commit $before here (needs the git history)" >&2; exit 1; }
W=build/fuzz-grub-bench
rm -rf "$W"
mkdir -p "$W/before"
echo "building before ($before) and now ..."
git archive "$before" | tar -x -C "$W/before" || exit 1
make -s -C "$W/before" build/fuzz/fuzz_grub >"$W/before.log" 2>&1 ||
	{ echo "bench: building $before failed ($W/before.log)" >&2; exit 1; }
make -s build/fuzz/fuzz_grub >"$W/now.log" 2>&1 || { echo "bench: make build/fuzz/fuzz_grub failed" >&2; exit 1; }
B=$PWD/$W/before/build/fuzz/fuzz_grub
N=$PWD/build/fuzz/fuzz_grub
# the floor: libFuzzer around a harness that does nothing, the same objects
cat >"$W/floor.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
EOF
F=$PWD/$W/floor
clang -O1 -fsanitize=fuzzer,address,undefined -o "$F" "$W/floor.c" || exit 1
export ASAN_OPTIONS=detect_leaks=1
cpu() { awk '{printf "%.2f", $1 + $2}' "$1"; }

echo
echo "1. equal work: $execs executions from fuzz/corpus/grub, -seed=1 -reload=0, alone"
printf '| %-6s | %-5s | %7s | %12s | %5s | %6s |\n' binary round 'CPU s' 'execs/CPU s' edges corpus
printf '|--------|-------|---------|--------------|-------|--------|\n'
for r in $(seq "$rounds"); do
	for b in before now; do
		bin=$B; [ $b = now ] && bin=$N
		d=$W/work-$b-$r
		rm -rf "$d"; mkdir -p "$d"; cp -r fuzz/corpus/grub "$d/c"
		/usr/bin/time -f "%U %S" -o "$d/time" "$bin" -runs="$execs" -seed=1 -reload=0 \
			-print_final_stats=1 "$d/c" >"$d/log" 2>&1
		t=$(cpu "$d/time")
		echo "$b $t" >>"$W/work.txt"
		printf '| %-6s | %-5s | %7s | %12.0f | %5s | %6s |\n' $b $r "$t" \
			"$(awk -v n="$execs" -v t="$t" 'BEGIN {print n / t}')" \
			"$(sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' "$d/log")" "$(ls "$d/c" | wc -l)"
	done
done
med() { grep "^$1 " "$W/work.txt" | awk '{print $2}' | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
wb=$(med before); wn=$(med now)
echo "median CPU s: before $wb, now $wn: now is $(awk -v a="$wb" -v b="$wn" 'BEGIN {printf "%.1f", a / b}')x faster"

echo
mkdir -p "$W/same"
for f in "$W"/work-*/c/*; do
	head -c 1024 "$f" >"$W/same/x"
	mv "$W/same/x" "$W/same/$(sha1sum "$W/same/x" | cut -c1-40)"
done
n=$(ls "$W/same" | wc -l)
echo "2. the same inputs: $n (every input kept in 1, cut to 1 KiB), loaded once (-runs=0), alone"
printf '| %-6s | %-5s | %7s |\n' binary round 'CPU s'
printf '|--------|-------|---------|\n'
for r in $(seq "$rounds"); do
	for b in before now floor; do
		bin=$B; [ $b = now ] && bin=$N; [ $b = floor ] && bin=$F
		/usr/bin/time -f "%U %S" -o "$W/t" "$bin" -runs=0 -reload=0 "$W/same" >"$W/same-$b.log" 2>&1
		t=$(cpu "$W/t")
		echo "$b $t" >>"$W/same.txt"
		printf '| %-6s | %-5s | %7s |\n' $b $r "$t"
	done
done
sb=$(grep '^before ' "$W/same.txt" | awk '{print $2}' | sort -n | head -1)
sn=$(grep '^now ' "$W/same.txt" | awk '{print $2}' | sort -n | head -1)
sf=$(grep '^floor ' "$W/same.txt" | awk '{print $2}' | sort -n | head -1)
echo "best of $rounds: before $sb, now $sn, floor $sf CPU s: now is $(awk -v a="$sb" -v b="$sn" 'BEGIN {printf "%.1f", a / b}')x faster;" \
	"without the floor $(awk -v a="$sb" -v b="$sn" -v f="$sf" 'BEGIN {printf "%.1f", (a - f) / (b - f)}')x"

echo
echo "3. equal time: $secs s each from fuzz/corpus/grub, alone, $rounds rounds alternating"
printf '| %-6s | %-5s | %9s | %6s | %5s |\n' binary round execs 'exec/s' edges
printf '|--------|-------|-----------|--------|-------|\n'
for r in $(seq "$rounds"); do
	for b in before now; do
		bin=$B; [ $b = now ] && bin=$N
		d=$W/time-$b-$r
		rm -rf "$d"; mkdir -p "$d"; cp -r fuzz/corpus/grub "$d/c"
		"$bin" -max_total_time="$secs" -print_final_stats=1 "$d/c" >"$d/log" 2>&1
		e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$d/log")
		echo "$b $e" >>"$W/time.txt"
		printf '| %-6s | %-5s | %9s | %6s | %5s |\n' $b $r "$e" "$((e / secs))" \
			"$(sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' "$d/log")"
	done
done
tmed() { grep "^$1 " "$W/time.txt" | awk '{print $2}' | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
eb=$(tmed before); en=$(tmed now)
echo "median executions: before $eb, now $en: now ran $(awk -v a="$eb" -v b="$en" 'BEGIN {printf "%.1f", b / a}')x the executions of before"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
