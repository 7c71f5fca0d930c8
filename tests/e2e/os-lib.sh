# Helpers for the installed-system scenarios (tests/e2e/os-*.sh); sourced
# after lib.sh and rom-lib.sh. Not a scenario itself (check.sh skips *lib.sh).
#
#   report NAME        boot N's OS-REPORT lines of $T/serial.log into
#                      $R/NAME-N.report (the serial log holds both boots;
#                      bytes, not characters: a boot loader's menu can leave
#                      bytes that are not UTF-8 before the next report line)
#   field NAME-N KEY   the value of OS-REPORT: KEY=VALUE in that report
#   lines NAME-N KEY   the lines OS-REPORT: KEY: ... of that report
#   machine NAME FIRMWARE VARS   one machine, both boots, in a subshell:
#                      the disk $img and the control disk $R/ctl.img;
#                      OS_BOOT2 names what made boot 2 in its check's name;
#                      with OS_BOOT3 set (its name), a third report too
#                      (OS_BOOT3_WAIT seconds, default 1200: boots that
#                      never reach it may come between);
#                      R is the scenario's directory ($T after e2e_init)
#   pair_begin / pair_end   around a scenario's two machines side by side:
#                      one such pair at a time on this host (a lock in
#                      build/), so that two installed-system scenarios in
#                      two lanes do not run four TCG machines on two cores
#                      (each boot then took over 600 s and timed out)
report() {
	tr -d '\r' <"$T/serial.log" | LC_ALL=C sed -n 's/^.*\(OS-REPORT: .*\)$/\1/p' |
		LC_ALL=C awk -v d="$R/$1" '/^OS-REPORT: count=/ { n = substr($0, 18) } n { print > (d "-" n ".report") }'
}
field() { [ -f "$R/$1.report" ] && sed -n "s/^OS-REPORT: $2=//p" "$R/$1.report" | head -n1; }
lines() { [ -f "$R/$1.report" ] && sed -n "s/^OS-REPORT: $2: //p" "$R/$1.report"; }
pair_begin() {
	exec 9>>"$E2E_ROOT/build/os-pair.lock"
	local t0=$SECONDS
	# bounded: a pair takes minutes; after 40 go on side by side
	flock -w 2400 9 || echo "# os: another scenario's machines still run after $((SECONDS - t0)) s; going on"
	[ $((SECONDS - t0)) -lt 5 ] || echo "# os: waited $((SECONDS - t0)) s for another scenario's machines"
}
pair_end() { flock -u 9 2>/dev/null; exec 9>&-; }
machine() {
	T=$R/$1
	mkdir -p "$T"
	QEMU_PID=
	trap 'qemu_stop' EXIT
	E2E_REBOOT=1 E2E_FIRMWARE=$2 E2E_VARS=$3 qemu_start \
		-drive "file=$img,format=raw,if=virtio,snapshot=on" -drive "file=$R/ctl.img,format=raw,if=virtio,readonly=on"
	expect 'OS-REPORT: count=1' 600 && expect 'OS-REPORT: done' 120 &&
		ok "$1: boot 1: the OS is up ($(elapsed) s)" || not_ok "$1: boot 1: the OS is up"
	expect 'OS-REPORT: count=2' 600 && expect 'OS-REPORT: done' 120 &&
		ok "$1: boot 2, after $OS_BOOT2: the OS is up ($(elapsed) s)" ||
		not_ok "$1: boot 2, after $OS_BOOT2: the OS is up"
	if [ -n "${OS_BOOT3:-}" ]; then
		expect 'OS-REPORT: count=3' "${OS_BOOT3_WAIT:-1200}" && expect 'OS-REPORT: done' 120 &&
			ok "$1: boot 3, after $OS_BOOT3: the OS is up ($(elapsed) s)" ||
			not_ok "$1: boot 3, after $OS_BOOT3: the OS is up"
	fi
	qemu_wait 60 || true
	qemu_stop
	report "$1"
	cp "$T/serial.log" "$R/serial-$1.log"
	[ "$E2E_FAILED" = 0 ] || { tail -n 30 "$T/serial.log" | tr -d '\r' | sed "s/^/# $1 | /"; }
	exit "$E2E_FAILED"
}
