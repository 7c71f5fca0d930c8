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
#                      the disk $img (and $img2 when set: a second
#                      disk of the system) and the control disk $R/ctl.img;
#                      OS_BOOT2 names what made boot 2 in its check's name;
#                      OS_TPM=1: a TPM 2.0 (swtpm, CRB) of its own;
#                      QMP on $T/qmp.sock (reset, below); the
#                      oracle's machine power-cycled at each reset the
#                      OS makes (cold_check);
#                      with OS_BOOT3 set (its name), a third report too
#                      (on the machines OS_BOOT3_ON names, default all)
#                      (OS_BOOT3_WAIT seconds, default 1200: boots that
#                      never reach it may come between);
#                      R is the scenario's directory ($T after e2e_init)
#   machines ORACLE [MKROM-ARG...]   the ROM, then both machines (below)
report() {
	tr -d '\r' <"$T/serial.log" | LC_ALL=C sed -n 's/^.*\(OS-REPORT: .*\)$/\1/p' |
		LC_ALL=C awk -v d="$R/$1" '/^OS-REPORT: count=/ { n = substr($0, 18) } n { print > (d "-" n ".report") }'
}
field() { [ -f "$R/$1.report" ] && sed -n "s/^OS-REPORT: $2=//p" "$R/$1.report" | head -n1; }
lines() { [ -f "$R/$1.report" ] && sed -n "s/^OS-REPORT: $2: //p" "$R/$1.report"; }
# machines ORACLE [MKROM-ARG...]: the ROM ($R/lboot.rom: lboot's kernel and
# initramfs, the test command line, the arguments given) and the scenario's
# two machines side by side (one vCPU each): ORACLE, stock OVMF booting the
# disk's own loader (EFI/BOOT/BOOTX64.EFI, no Boot#### entry), and rom. One
# such pair at a time on this host (a lock in build/): two installed-system
# scenarios in two lanes would run four TCG machines on two cores (each
# boot then took over 600 s and timed out)
machines() {
	local o=$1 opid t0=$SECONDS
	shift
	rom_build "$R/lboot.rom" "$@" --kernel "$OUT/bzImage" --initrd "$OUT/initramfs.cpio.xz" \
		--cmdline "$ROM_CMDLINE_TEST"
	exec 9>>"$E2E_ROOT/build/os-pair.lock"
	# bounded: a pair takes minutes; after 40 go on side by side
	flock -w 2400 9 || log "another scenario's machines still run after $((SECONDS - t0)) s; going on"
	[ $((SECONDS - t0)) -lt 5 ] || log "waited $((SECONDS - t0)) s for another scenario's machines"
	t0=$SECONDS
	(machine "$o" /usr/share/OVMF/OVMF_CODE_4M.fd /usr/share/OVMF/OVMF_VARS_4M.fd) &
	opid=$!
	(machine rom "$R/lboot.rom" "$R/lboot-vars.fd") || E2E_FAILED=1
	wait "$opid" || E2E_FAILED=1
	flock -u 9 2>/dev/null; exec 9>&-
	log "both machines: $((SECONDS - t0)) s"
}
machine() {
	T=$R/$1
	mkdir -p "$T"
	QEMU_PID=
	local swtpm= d FW=("$2" "$3")
	trap 'qemu_stop; [ -z "$swtpm" ] || kill "$swtpm" 2>/dev/null' EXIT
	if [ -n "${OS_TPM:-}" ]; then
		mkdir -p "$T/tpm"
		swtpm_setup --tpm2 --tpmstate "$T/tpm" --pcr-banks sha256 --overwrite >"$T/swtpm_setup.log" 2>&1 ||
			{ sed 's/^/# /' "$T/swtpm_setup.log"; not_ok "$1: swtpm_setup"; exit 1; }
	fi
	# the machine's disks: copy-on-write overlays of the images (qcow2 in
	# $T), so that its writes outlive a power cycle (below) and never
	# reach the images
	for d in "$img" ${img2:+"$img2"}; do
		qemu-img create -q -f qcow2 -F raw -b "$d" "$T/${d##*/}.qcow2" ||
			{ not_ok "$1: an overlay of $d"; exit 1; }
	done
	machine_start "${FW[@]}"
	# the oracle's machine (stock OVMF) is power-cycled at each reset
	# (cold_check)
	local OS_COLD= COLD_N=0
	[ "$1" = rom ] || OS_COLD=1
	"${OS_BOOTS:-os_boots}" "$1"
	qemu_wait 60 || true
	qemu_stop
	report "$1"
	cp "$T/serial.log" "$R/serial-$1.log"
	[ "$E2E_FAILED" = 0 ] || { tail -n 30 "$T/serial.log" | tr -d '\r' | sed "s/^/# $1 | /"; }
	exit "$E2E_FAILED"
}
# machine_start FIRMWARE VARS: power the machine on (E2E_RESTART=1:
# again, its variable store, disks, TPM state and serial log kept); with
# OS_TPM, its own TPM 2.0: swtpm (sha256 bank) on QEMU's CRB interface,
# its state kept across reboots and power cycles
machine_start() {
	local tpm=() disk2=()
	if [ -n "${OS_TPM:-}" ]; then
		rm -f "$T/tpm.sock"
		swtpm socket --tpm2 --tpmstate dir="$T/tpm" --ctrl type=unixio,path="$T/tpm.sock" --terminate \
			>>"$T/swtpm.log" 2>&1 &
		swtpm=$!
		for _ in $(seq 50); do [ -S "$T/tpm.sock" ] && break; sleep 0.1; done
		tpm=(-chardev "socket,id=chrtpm,path=$T/tpm.sock" -tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-crb,tpmdev=tpm0)
	fi
	[ -z "${img2:-}" ] || disk2=(-drive "file=$T/${img2##*/}.qcow2,format=qcow2,if=virtio")
	E2E_REBOOT=1 E2E_FIRMWARE=$1 E2E_VARS=$2 qemu_start \
		-drive "file=$T/${img##*/}.qcow2,format=qcow2,if=virtio" "${disk2[@]}" \
		-drive "file=$R/ctl.img,format=raw,if=virtio,readonly=on" \
		-qmp "unix:$T/qmp.sock,server=on,wait=off" "${tpm[@]}"
}
# qmp COMMAND [HMP-COMMAND]: one QMP command to the machine (QMP on
# $T/qmp.sock); human-monitor-command takes the HMP command line and
# prints its output
qmp() {
	python3 - "$T/qmp.sock" "$@" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
f = s.makefile('rw')
f.readline()
cmds = [{'execute': 'qmp_capabilities'}, {'execute': sys.argv[2]}]
if len(sys.argv) > 3:
    cmds[1]['arguments'] = {'command-line': sys.argv[3]}
for c in cmds:
    f.write(json.dumps(c) + '\n'); f.flush()
    while True:
        r = json.loads(f.readline())
        if 'return' in r or 'error' in r:
            break
    if 'error' in r:
        sys.exit(r['error'].get('desc', 'error'))
if isinstance(r['return'], str):
    print(r['return'], end='')
elif r['return']:
    print(json.dumps(r['return']))
PY
}
# reset: press the machine's reset button (QMP system_reset): the same
# machine boots again, its disks, TPM and variables kept
reset() { qmp system_reset; }
# cold_check: on the oracle's machine (OS_COLD), called while waiting: each
# time the OS's kernel says it resets the machine ("reboot: Restarting
# system", or a panic's "Rebooting in N seconds"), power the machine off and
# on instead: a cold boot of the same machine, its disks (qcow2 overlays in
# $T), variable store, TPM state and serial log kept. Stock OVMF hung after
# the OS's warm reset under TCG here four times in a few dozen runs (no
# output for 14 minutes, QEMU busy; QMP's system_reset did not bring it back;
# the vCPU in OVMF's SEC, EIP fffcd283 CS 0x10, or in its DXE), never after a
# cold start; the hang is stock OVMF's, and what the OS sees through its own
# loader does not depend on how the machine was reset. The ROM's machine
# keeps the warm reset: a reboot from the OS must come back through the ROM.
# At most 8 per machine. Returns 0 when it power-cycled.
cold_check() {
	[ -n "${OS_COLD:-}" ] && [ "${COLD_N:-0}" -lt 8 ] || return 1
	local n
	n=$(tr -d '\r' <"$T/serial.log" 2>/dev/null | grep -Ec 'reboot: Restarting system$|Rebooting in [0-9]+ seconds')
	[ "$n" -gt "${COLD_N:-0}" ] || return 1
	COLD_N=$n
	log "$(basename "$T"): the OS resets the machine: power cycle instead (stock OVMF)"
	qemu_stop
	[ -z "$swtpm" ] || { kill "$swtpm" 2>/dev/null; wait "$swtpm" 2>/dev/null || true; }
	E2E_RESTART=1 machine_start "${FW[@]}"
	return 0
}
# os_boots NAME: what machine NAME waits for, by default (OS_BOOTS names
# another function for a scenario's own sequence): two reports, and a
# third with OS_BOOT3
os_boots() {
	expect_nth 'OS-REPORT: count=1' 1 600 && expect_nth '^OS-REPORT: done' 1 120 &&
		ok "$1: boot 1: the OS is up ($(elapsed) s)" || { not_ok "$1: boot 1: the OS is up"; return; }
	expect_nth 'OS-REPORT: count=2' 1 600 && expect_nth '^OS-REPORT: done' 2 120 &&
		ok "$1: boot 2, after $OS_BOOT2: the OS is up ($(elapsed) s)" ||
		{ not_ok "$1: boot 2, after $OS_BOOT2: the OS is up"; return; }
	# (OS_BOOT3_ON: the machines that go on to boot 3, default all; the
	# others stop here)
	[ -n "${OS_BOOT3:-}" ] || return 0
	if [[ " ${OS_BOOT3_ON:-$1} " != *" $1 "* ]]; then
		qemu_stop
	else
		expect_nth 'OS-REPORT: count=3' 1 "${OS_BOOT3_WAIT:-1200}" && expect_nth '^OS-REPORT: done' 3 120 &&
			ok "$1: boot 3, after $OS_BOOT3: the OS is up ($(elapsed) s)" ||
			not_ok "$1: boot 3, after $OS_BOOT3: the OS is up"
	fi
}
# expect_nth REGEX N SECONDS: the serial log has N lines matching REGEX
# (expect finds the first anywhere in the log; these come again each boot);
# gives up when QEMU has ended
expect_nth() {
	local end=$(( $(date +%s) + $3 ))
	while [ "$(tr -d '\r' <"$T/serial.log" 2>/dev/null | grep -Ec -- "$1")" -lt "$2" ]; do
		if cold_check; then end=$(( $(date +%s) + $3 )); continue; fi
		if ! kill -0 "$QEMU_PID" 2>/dev/null || [ "$(date +%s)" -ge "$end" ]; then
			log "waited for /$1/ number $2 in vain"; return 1
		fi
		sleep 0.3
	done
}
# compare ORACLE LOADER N FIELD...: boot N under the oracle machine ORACLE
# (its loader named LOADER in the checks) and under the ROM (machine rom):
# systemd reached a running system under each, and each FIELD of the OS's
# report is the same under both
compare() {
	local o=$1 name=$2 n=$3 b f a r
	shift 3
	for b in "$o" rom; do
		[ "$(field $b-$n state)" = running ] && ok "$b boot $n: systemd reached a running system (no failed unit)" ||
			not_ok "$b boot $n: systemd state is '$(field $b-$n state)', not running"
	done
	for f; do
		a=$(field $o-$n $f) r=$(field rom-$n $f)
		if [ -n "$a" ] && [ "$a" = "$r" ]; then
			ok "boot $n: the OS sees the same $f through lboot as through $name: $a"
		else
			not_ok "boot $n: the OS sees a different $f: $name '$a', lboot '$r'"
		fi
	done
}
# replay NAME-N: the TPM event log the OS printed in boot N (the control
# script's "OS-FILE: tpmlog" ... "OS-END", base64) through tpm2_eventlog
# (tpm2-tools, on the host), compared with the sha256 PCRs the OS read from
# sysfs ("OS-PCR: N VALUE"). Prints "checked K bad B" and a "mismatch"
# line per difference into $R/NAME-N.replay (tests/e2e/tcg-replay.py); PCRs
# the log does not extend must read zero.
replay() {
	local m=${1%-*} n=${1##*-} S=$R/$1.serial
	# boot N's part of the machine's serial log
	tr -d '\r' <"$R/serial-$m.log" | LC_ALL=C awk -v n="$n" '/OS-REPORT: count=/ { c = substr($0, index($0, "count=") + 6) } c == n' >"$S"
	LC_ALL=C sed -n '/^OS-FILE: tpmlog$/,/^OS-END$/p' "$S" | LC_ALL=C grep -E '^[A-Za-z0-9+/=]+$' |
		base64 -d >"$R/$1.tpmlog" 2>/dev/null && [ -s "$R/$1.tpmlog" ] || return 1
	tpm2_eventlog "$R/$1.tpmlog" >"$R/$1.yaml" 2>"$R/$1.eventlog.err" || return 1
	python3 "$E2E_ROOT/tests/e2e/tcg-replay.py" "$R/$1.yaml" "$S" 0,1,2,3,4,5,6,7,8,9,11,12,13,14 --events >"$R/$1.replay"
}
# the control script's lines that print what replay reads
OS_TPM_DUMP='for n in 0 1 2 3 4 5 6 7 8 9 11 12 13 14; do echo "OS-PCR: $n $(cat /sys/class/tpm/tpm0/pcr-sha256/$n)"; done
echo "OS-FILE: tpmlog"; base64 /sys/kernel/security/tpm0/binary_bios_measurements; echo "OS-END"'
# the control script's lines that install a newer kernel version the way a
# kernel package lays its files into /boot: the running kernel under ABI 99
# (the same kernel, its initrd copied: mkinitramfs under TCG takes ten
# minutes), newer by version order; $ver and $new name the two versions.
# The distribution's hook (update-grub, kernel-install) is the script's
OS_NEW_SED='s/^\([0-9.]*\)-[0-9]*-/\1-99-/'
OS_NEW_KERNEL="ver=\$(uname -r)
new=\$(echo \"\$ver\" | sed '$OS_NEW_SED')
cp /boot/vmlinuz-\$ver /boot/vmlinuz-\$new
cp /boot/initrd.img-\$ver /boot/initrd.img-\$new"
# new_version VERSION: the version OS_NEW_KERNEL installs beside VERSION
new_version() { echo "$1" | sed "$OS_NEW_SED"; }
