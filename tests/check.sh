#!/bin/bash
# The whole test suite. Runs, in order: unit tests, fuzz corpus replays (both
# built with ASan and UBSan), host tool tests (tests/host/*.sh, against peers
# such as GNU cpio and UEFIExtract) and QEMU end-to-end scenarios
# (tests/e2e/*.sh). Every test prints "ok NAME" or "not ok NAME" lines; a
# program that fails without saying which counts as one failure.
# Ends with "N passed, N failed". LBOOT_CHECK_ONLY=regex limits what runs.
cd "$(dirname "$0")/.." || exit 1
export LBOOT_TEST_FILES=$PWD/tests/files
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
logdir=build/check-logs
mkdir -p "$logdir"
passed=0 failed=0
failures=()

run() { # name cmd...
	local name=$1; shift
	if [ -n "$LBOOT_CHECK_ONLY" ] && ! [[ $name =~ $LBOOT_CHECK_ONLY ]]; then return; fi
	local log=$logdir/${name//\//_}.log
	local t0=$SECONDS
	"$@" >"$log" 2>&1 </dev/null
	local rc=$?
	local p f
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok $name (exit $rc)" >>"$log"; fi
	passed=$((passed + p)); failed=$((failed + f))
	if [ "$f" -gt 0 ]; then
		failures+=("$name")
		echo "FAIL $name ($p passed, $f failed, $((SECONDS - t0)) s): log $log"
		grep -E '^(not ok|#)' "$log" | head -20 | sed 's/^/    /'
		tail -5 "$log" | sed 's/^/    | /'
	else
		echo "PASS $name ($p passed, $((SECONDS - t0)) s)"
	fi
}

for t in build/tests/test_*; do
	[ -x "$t" ] && run "unit/${t##*/test_}" "$t"
done
for t in build/tests/fuzz_*; do
	[ -x "$t" ] || continue
	n=${t##*/fuzz_}
	run "fuzz/$n" "$t" "fuzz/corpus/$n"
done
for t in tests/host/*.sh; do
	case $t in *lib.sh) continue ;; esac
	[ -f "$t" ] && run "host/$(basename "$t" .sh)" bash "$t"
done
if [ -z "$LBOOT_SKIP_E2E" ]; then
	for t in tests/e2e/*.sh; do
		case $t in *lib.sh) continue ;; esac # sourced helpers, not scenarios
		[ -f "$t" ] && run "e2e/$(basename "$t" .sh)" bash "$t"
	done
fi
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
