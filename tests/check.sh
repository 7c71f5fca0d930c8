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
# and at least one pass. LBOOT_CHECK_ONLY=regex limits what runs;
# LBOOT_CHECK_JOBS=N runs the unit, fuzz and host tests, then the QEMU
# scenarios, in N lanes (below; default 2 on two cores or more).
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
[ "${1:-}" = --images ] || rm -f "$logdir"/os-running.*
passed=0 failed=0 skipped=0
failures=() skips=()

# exec_one NAME CMD...: run one test program under its bound; its output in
# $logdir/NAME.log, its exit code and seconds in NAME.rc and NAME.secs
exec_one() {
	local name=$1; shift
	local log=$logdir/${name//\//_}.log
	local t0=$SECONDS bound=${LBOOT_CHECK_BOUND:-}
	[ -n "$bound" ] || case $name in
		e2e/*) bound=1800 ;; host/*) bound=900 ;; *) bound=600 ;;
	esac
	timeout -k 10 "$bound" "$@" >"$log" 2>&1 </dev/null
	echo $? >"$log.rc"
	echo $((SECONDS - t0)) >"$log.secs"
	echo "$bound" >"$log.bound"
}

# tally NAME: count and report a program exec_one ran
tally() {
	local name=$1
	local log=$logdir/${name//\//_}.log
	local rc secs bound p f s
	rc=$(cat "$log.rc") secs=$(cat "$log.secs") bound=$(cat "$log.bound")
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	s=$(grep -c '^skip ' "$log")
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		f=$((f + 1)); echo "not ok $name (still running after the bound of $bound s: killed)" >>"$log"
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1; echo "not ok $name (exit $rc without a 'not ok' line)" >>"$log"
	elif [ $((p + f + s)) -eq 0 ]; then
		f=1; echo "not ok $name (exit $rc, printed no ok/not ok/skip line)" >>"$log"
	fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	if [ "$f" -gt 0 ]; then
		failures+=("$name")
		echo "FAIL $name ($p passed, $f failed, $s skipped, $secs s): log $log"
		grep -E '^(not ok|#)' "$log" | head -20 | sed 's/^/    /'
		tail -5 "$log" | sed 's/^/    | /'
	elif [ "$p" -eq 0 ]; then
		echo "SKIP $name ($s skipped, $secs s)"
	else
		local sk=; [ "$s" -gt 0 ] && sk=", $s skipped"
		echo "PASS $name ($p passed$sk, $secs s)"
	fi
	if [ "$s" -gt 0 ]; then
		skips+=("$name")
		grep '^skip ' "$log" | sed 's/^/    /'
	fi
}

selected() { [ -z "$LBOOT_CHECK_ONLY" ] || [[ $1 =~ $LBOOT_CHECK_ONLY ]]; }

# tests/check.sh --images: build the installed systems' disk images
# (tests/os/build.sh: a bootstrap from Debian's archive and an install in
# QEMU each, minutes, once; then the cache answers) for the selected
# installed-system scenarios, one after another, at low priority. make check
# starts it in the background before it builds the firmware kernel: the
# downloads and the installs use what the kernel's build and the unit and
# host tests leave idle, and the scenarios no longer build them in their
# lanes. A scenario whose image is not built yet waits its turn in the queue
# (lane, below); one whose build failed here builds it itself and says why.
if [ "${1:-}" = --images ]; then
	[ -z "$LBOOT_SKIP_E2E" ] || exit 0
	# (the three that share one bootstrap first)
	seen=" "
	for t in tests/e2e/os-btrfs-md.sh tests/e2e/os-grub-lvm.sh tests/e2e/os-sdboot.sh tests/e2e/os-*.sh; do
		n=$(basename "$t" .sh)
		case $n in *lib) continue ;; esac
		case $seen in *" $n "*) continue ;; esac
		seen+="$n "
		[ -f "$t" ] && selected "e2e/$n" || continue
		bash tests/os/build.sh --cached "${n#os-}" >/dev/null 2>&1 && continue
		echo "$(date +%T) ${n#os-}: building"
		nice -n 10 bash tests/os/build.sh "${n#os-}" >/dev/null ||
			echo "$(date +%T) ${n#os-}: the build failed (its scenario builds it again and says why)"
	done
	exit 0
fi

# The arm64 firmware kernel (kernel/build.sh --arch arm64: about 20 CPU
# minutes, once; then the cache answers): on a machine without it, built in
# the background from here, at low priority, on the core the unit, fuzz and
# host tests leave idle; the arm64 scenarios run last and wait for it (the
# cache's lock). The lanes' `wait` waits for it too.
if command -v aarch64-linux-gnu-gcc >/dev/null && [ -z "$LBOOT_SKIP_E2E" ]; then
	for t in tests/e2e/arm64-*.sh; do
		if selected "e2e/$(basename "$t" .sh)"; then
			nice -n 10 make -s build/arm64/Image >"$logdir/arm64-kernel.log" 2>&1 &
			break
		fi
	done
fi

# run_named NAME: the test program behind a name, under exec_one
run_named() {
	case $1 in
	unit/*) exec_one "$1" "build/tests/test_${1#unit/}" ;;
	fuzz/*) exec_one "$1" "build/tests/fuzz_${1#fuzz/}" "fuzz/corpus/${1#fuzz/}" ;;
	*) exec_one "$1" bash "tests/$1.sh" ;;
	esac
}
# ready NAME: whether a lane should start NAME now. An installed-system
# scenario runs two TCG machines (both cores): it waits while another one
# runs (os-running.NAME, under the queue's lock) and until its disk image is
# built (tests/check.sh --images builds them in the background); a lane
# meanwhile takes the next scenario instead of waiting on a lock
ready() {
	case $1 in
	e2e/os-*)
		! compgen -G "$logdir/os-running.*" >/dev/null || return 1
		bash tests/os/build.sh --cached "${1#e2e/os-}" >/dev/null 2>&1 || [ $? = 2 ]
		;;
	esac
}
# lane QUEUE: take the first ready name from QUEUE (one per line, shared by
# the lanes under a lock; when none is ready, the first) and run it until
# QUEUE is empty
lane() {
	local q=$1 name
	while :; do
		name=$( {
			flock 8
			mapfile -t left <"$q"
			pick=0
			for i in "${!left[@]}"; do ready "${left[$i]}" && { pick=$i; break; }; done
			n=${left[$pick]:-}
			if [ -n "$n" ]; then
				unset "left[$pick]"
				printf '%s\n' "${left[@]}" | sed '/^$/d' >"$q"
				case $n in e2e/os-*) touch "$logdir/os-running.${n#e2e/}" ;; esac
			fi
			echo "$n"
		} 8>"$q.lock")
		[ -n "$name" ] || return 0
		run_named "$name"
		case $name in e2e/os-*) rm -f "$logdir/os-running.${name#e2e/}" ;; esac
		echo "  $name ended ($(cat "$logdir/${name//\//_}.log.secs") s)"
	done
}
jobs=${LBOOT_CHECK_JOBS:-$(( $(nproc) >= 2 ? 2 : 1 ))}
# The unit tests, the fuzz corpus replays and the host tool tests, in the
# same lanes (each test has its own directory, its own network namespace,
# ports the kernel picks). The targets some host tests make (the DXE
# driver, coreboot's ROM, the arm64 builds) are made first, here, once: two
# lanes must not make the same file at the same time.
pre=() nhost=0
for t in build/tests/test_*; do
	[ -x "$t" ] && selected "unit/${t##*/test_}" && pre+=("unit/${t##*/test_}")
done
for t in build/tests/fuzz_*; do
	[ -x "$t" ] && selected "fuzz/${t##*/fuzz_}" && pre+=("fuzz/${t##*/fuzz_}")
done
for t in tests/host/*.sh; do
	case $t in *lib.sh) continue ;; esac
	[ -f "$t" ] && selected "host/$(basename "$t" .sh)" && pre+=("host/$(basename "$t" .sh)") && nhost=$((nhost + 1))
done
if [ "${#pre[@]}" -gt 1 ] && [ "$jobs" -gt 1 ]; then
	echo "unit, fuzz, host: ${#pre[@]} tests in $jobs lanes"
	[ "$nhost" = 0 ] || {
		make -s build/dxe/lbootdxe.efi build/coreboot/q35.rom
		if command -v aarch64-linux-gnu-gcc >/dev/null; then
			make -s build/arm64/lbootdxe.efi build/arm64/lboot-target
		fi
	} >"$logdir/host-prepare.log" 2>&1 || echo "host: a shared build failed (the tests that need it will say why)"
	printf '%s\n' "${pre[@]}" >"$logdir/pre.queue"
	# (their own pids: the background arm64 kernel build goes on)
	lanes=()
	for _ in $(seq "$jobs"); do lane "$logdir/pre.queue" & lanes+=($!); done
	wait "${lanes[@]}"
	for n in "${pre[@]}"; do tally "$n"; done
else
	for n in "${pre[@]}"; do run_named "$n"; tally "$n"; done
fi
# The QEMU scenarios, in LBOOT_CHECK_JOBS lanes side by side (default 2
# when the machine has two cores or more, else 1): each scenario is one QEMU
# with one vCPU (TCG: one busy host thread), its own directory under
# build/e2e, its own network namespace, ports the kernel picks; the shared
# caches the scenarios would otherwise fill on first use are filled first,
# here. Each lane takes the next scenario from one queue; the results are
# counted and reported in the scenarios' order once all have ended.
e2e_prepare() {
	# the arm64 scenarios' builds (arm64-dxe, arm64-rom), once and not in
	# two lanes at a time (the kernel: above); without the cross tools
	# those scenarios skip
	if command -v aarch64-linux-gnu-gcc >/dev/null; then
		make -s build/arm64/lbootdxe.efi build/arm64/lboot-target >/dev/null ||
			echo "e2e: the arm64 builds failed (the arm64 scenarios will say why)"
	fi
	make -s build/dxe/lbootdxe.efi build/pei/lbootpei.efi >/dev/null &&
	bash -c '. tests/e2e/lib.sh; . tests/e2e/storage-lib.sh; E2E_NAME=prepare; target_os && stg_builder_initrd'
}
if [ -z "$LBOOT_SKIP_E2E" ]; then
	e2e=()
	for t in tests/e2e/*.sh; do
		case $t in *lib.sh) continue ;; esac # sourced helpers, not scenarios
		[ -f "$t" ] && selected "e2e/$(basename "$t" .sh)" && e2e+=("e2e/$(basename "$t" .sh)")
	done
	if [ "${#e2e[@]}" -gt 1 ] && [ "$jobs" -gt 1 ]; then
		echo "e2e: ${#e2e[@]} scenarios in $jobs lanes"
		e2e_prepare >"$logdir/e2e-prepare.log" 2>&1 ||
			{ echo "e2e: preparing the shared caches failed:"; sed 's/^/    | /' "$logdir/e2e-prepare.log"; }
		# the installed systems first (the longest, and their images' one-time
		# builds), the arm64 scenarios last (the background kernel build)
		printf '%s\n' "${e2e[@]}" | awk '/^e2e\/os-/ { print "0 " $0; next }
			/^e2e\/arm64-/ { print "2 " $0; next } { print "1 " $0 }' |
			sort -s -n -k1,1 | cut -d' ' -f2- >"$logdir/e2e.queue"
		for _ in $(seq "$jobs"); do lane "$logdir/e2e.queue" & done
		wait
		for n in "${e2e[@]}"; do tally "$n"; done
	else
		for n in "${e2e[@]}"; do run_named "$n"; tally "$n"; done
	fi
fi
# the background image builds (make check): what they did; still running
# only when no scenario needed them, then stopped
if [ -f "$logdir/os-images.pid" ]; then
	pid=$(cat "$logdir/os-images.pid")
	if grep -qs -- '--images' "/proc/$pid/cmdline"; then
		kill -- "-$pid" 2>/dev/null && echo "os images: stopped (no scenario waited for them)"
	fi
	rm -f "$logdir/os-images.pid"
	grep -sE '^[0-9]{2}:[0-9]{2}:[0-9]{2} |^os: [a-z0-9-]+: built ' "$logdir/os-images.log" | sed 's/^/os images: /'
fi
[ ${#skips[@]} -gt 0 ] && echo "with skips: ${skips[*]}"
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
