#!/bin/bash
# The whole test suite. Runs, in order: unit tests, fuzz corpus replays (both
# built with ASan and UBSan), host tool tests (tests/host/*.sh, against peers
# such as GNU cpio and UEFIExtract) and QEMU end-to-end scenarios
# (tests/e2e/*.sh). Every test prints one line per check:
#   ok NAME | not ok NAME | skip NAME: reason
# A skip is counted and listed, never as a pass. A program counts as (one
# more) failure when it exits non-zero without a "not ok" line, or when it
# prints none of those lines at all (even with exit 0).
# Ends with "N passed, N failed, N skipped"; exits 0 only with no failure
# and at least one pass. LBOOT_CHECK_ONLY=regex limits what runs.
# Every program runs under a bound (LBOOT_CHECK_BOUND seconds, default: 600
# for unit and fuzz, 900 for host, 1800 for e2e): a test that hangs (a server
# child nobody connects to, a QEMU that never prints its marker past its own
# timeouts) counts as one failure, with its whole process group killed,
# instead of stopping the suite.
cd "$(dirname "$0")/.." || exit 1
export LBOOT_TEST_FILES=$PWD/tests/files
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
logdir=build/check-logs
mkdir -p "$logdir"
passed=0 failed=0 skipped=0
failures=() skips=()

run() { # name cmd...
	local name=$1; shift
	if [ -n "$LBOOT_CHECK_ONLY" ] && ! [[ $name =~ $LBOOT_CHECK_ONLY ]]; then return; fi
	local log=$logdir/${name//\//_}.log
	local t0=$SECONDS bound=${LBOOT_CHECK_BOUND:-}
	[ -n "$bound" ] || case $name in
		e2e/*) bound=1800 ;; host/*) bound=900 ;; *) bound=600 ;;
	esac
	timeout -k 10 "$bound" "$@" >"$log" 2>&1 </dev/null
	local rc=$?
	local p f s
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	s=$(grep -c '^skip ' "$log")
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		f=$((f + 1)); echo "not ok $name (still running after the bound of $bound s: killed)" >>"$log"
	elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1; echo "not ok $name (exit $rc without a 'not ok' line)" >>"$log"
	elif [ $((p + f + s)) -eq 0 ]; then
		f=1; echo "not ok $name (exit $rc, printed no ok/not ok/skip line)" >>"$log"
	fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	if [ "$f" -gt 0 ]; then
		failures+=("$name")
		echo "FAIL $name ($p passed, $f failed, $s skipped, $((SECONDS - t0)) s): log $log"
		grep -E '^(not ok|#)' "$log" | head -20 | sed 's/^/    /'
		tail -5 "$log" | sed 's/^/    | /'
	elif [ "$p" -eq 0 ]; then
		echo "SKIP $name ($s skipped, $((SECONDS - t0)) s)"
	else
		local sk=; [ "$s" -gt 0 ] && sk=", $s skipped"
		echo "PASS $name ($p passed$sk, $((SECONDS - t0)) s)"
	fi
	if [ "$s" -gt 0 ]; then
		skips+=("$name")
		grep '^skip ' "$log" | sed 's/^/    /'
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
[ ${#skips[@]} -gt 0 ] && echo "with skips: ${skips[*]}"
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
