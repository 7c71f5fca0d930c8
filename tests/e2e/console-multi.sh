#!/bin/bash
# Issue 11, every console at once: with `console=hvc0 console=ttyS0` the
# kernel's /dev/console is ttyS0 only; lboot writes its messages and the
# menu to both (the serial port and a virtio console) and reads keys from
# either. Down + Enter typed on hvc0 (not /dev/console) selects and boots
# the second entry. (Two 8250 ports cannot both be consoles: Linux
# registers one console per driver, so the second console here is hvc0.)
# A console the kernel lists but that cannot be used (ttyS2: no UART at
# 0x3E8 in this machine) is named once and the others go on: the VGA
# console tty0 shows the menu (its text memory, read through the QEMU
# monitor) and its keyboard's Down (QEMU sendkey) moves the selection. The
# shell (BusyBox initramfs) runs on the console it was asked from.
. "$(dirname "$0")/lib.sh"
e2e_init console-multi
target_os

# ttyS0 ($T/serial*: what expect/send use) and the virtio console hvc0
# ($T/s1*: expect1/send1)
qemu_start2() {
	rm -f "$T"/serial.{in,out,log} "$T"/s1.{in,out,log} "$T"/mon.{in,out,log}
	mkfifo "$T/serial.in" "$T/serial.out" "$T/s1.in" "$T/s1.out" "$T/mon.in" "$T/mon.out"
	"$QEMU" -accel tcg -m "${E2E_MEM:-1024}" -smp 1 -nographic -no-reboot \
		-monitor "pipe:$T/mon" -serial "pipe:$T/serial" -nic none \
		-chardev "pipe,id=hv,path=$T/s1" -device virtio-serial-pci \
		-device virtconsole,chardev=hv \
		-machine q35 -kernel "$OUT/bzImage" -initrd "${OUT_INITRD:-$OUT/initramfs.cpio.xz}" \
		-append "$CONSOLES panic=-1 $E2E_APPEND" "$@" >"$T/qemu.log" 2>&1 &
	QEMU_PID=$!
	cat "$T/serial.out" >"$T/serial.log" &
	E2E_CAT=$!
	cat "$T/s1.out" >"$T/s1.log" &
	S1_CAT=$!
	cat "$T/mon.out" >"$T/mon.log" &
	MON_CAT=$!
	exec {E2E_IN}<>"$T/serial.in"
	exec {S1_IN}<>"$T/s1.in"
	exec {MON_IN}<>"$T/mon.in"
	E2E_T0=$(date +%s.%N)
}
qemu_stop2() {
	qemu_stop
	if [ -n "${S1_IN:-}" ]; then exec {S1_IN}>&- 2>/dev/null || true; fi
	if [ -n "${S1_CAT:-}" ]; then kill "$S1_CAT" 2>/dev/null; wait "$S1_CAT" 2>/dev/null; fi
	if [ -n "${MON_IN:-}" ]; then exec {MON_IN}>&- 2>/dev/null || true; fi
	if [ -n "${MON_CAT:-}" ]; then kill "$MON_CAT" 2>/dev/null; wait "$MON_CAT" 2>/dev/null; fi
	S1_IN= S1_CAT= MON_IN= MON_CAT=
}
trap 'qemu_stop2; e2e_dump_on_fail' EXIT
send1() { printf "$@" >&"$S1_IN"; }
# a key on the PS/2 keyboard, that is the VGA console's (tty0)
sendkey() { printf 'sendkey %s\n' "$1" >&"$MON_IN"; }
# expect1 REGEX [TIMEOUT]: the same as expect, on hvc0's log
expect1() {
	local r=0 end=$(( $(date +%s) + ${2:-180} ))
	while ! tr -d '\r' <"$T/s1.log" 2>/dev/null | grep -Eq -- "$1"; do
		[ "$(date +%s)" -ge "$end" ] && { log "timeout ${2:-180}s waiting for /$1/ on hvc0"; r=1; break; }
		kill -0 "$QEMU_PID" 2>/dev/null || { sleep 0.3; tr -d '\r' <"$T/s1.log" | grep -Eq -- "$1" || r=1; break; }
		sleep 0.2
	done
	return $r
}

R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
printf 'default a.conf\n' >"$R/loader/loader.conf"
cat >"$R/loader/entries/a.conf" <<'EOT'
title   first entry
sort-key 1
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=multi-first
EOT
cat >"$R/loader/entries/b.conf" <<'EOT'
title   second entry
sort-key 2
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=multi-second
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" MULTI
mkdisk_gpt "$T/disk.img" "$T/p1.img"

# 1: two consoles; the key comes from the one that is not /dev/console
CONSOLES="console=hvc0 console=ttyS0,115200"
E2E_APPEND="lboot.timeout=30" qemu_start2 -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner on ttyS0 (/dev/console)" || not_ok "banner on ttyS0 (/dev/console)"
expect 'lboot: consoles: (hvc0 ttyS0|ttyS0 hvc0) \(messages and the menu on each' 30 &&
	ok "both consoles found" || not_ok "both consoles found"
expect "booting 'first entry' in [0-9]+ s, press any key to stop" 120 && ok "countdown on ttyS0" ||
	not_ok "countdown on ttyS0"
expect1 "booting 'first entry' in [0-9]+ s, press any key to stop" 30 && ok "countdown on hvc0" ||
	not_ok "countdown on hvc0"
expect1 ' 2\) +second entry' 5 && ok "menu entries on hvc0" || not_ok "menu entries on hvc0"
expect1 'lboot: consoles: ' 5 && ok "messages on hvc0" || not_ok "messages on hvc0"
send1 '\033[B'
expect1 'lboot: selected 2\) second entry' 30 && ok "Down on hvc0 selects the second entry" ||
	not_ok "Down on hvc0 selects the second entry"
expect 'lboot: selected 2\) second entry' 10 && ok "the selection shown on ttyS0 too" ||
	not_ok "the selection shown on ttyS0 too"
send1 '\r'
expect 'lboot-target: cmdline: .*lboot-test=multi-second' 240 && ok "Enter on hvc0 booted the second entry" ||
	not_ok "Enter on hvc0 booted the second entry"
expect1 "lboot: kexec 'second entry'" 5 && ok "the kexec line on hvc0" || not_ok "the kexec line on hvc0"
expect1 'lboot: loaded \(.*\); handing over at uptime' 5 &&
	ok "the last line before kexec reached hvc0 (drained)" ||
	not_ok "the last line before kexec reached hvc0 (drained)"
qemu_stop2
cp "$T/serial.log" "$T/case1-ttyS0.log"; cp "$T/s1.log" "$T/case1-hvc0.log"

# 2: a listed console that cannot be used (no UART behind ttyS2), the VGA
# VT (tty0) and hvc0 (/dev/console); ttyS0 is no console here (the target
# OS still prints there)
CONSOLES="console=ttyS2,115200 console=tty0 console=hvc0"
E2E_APPEND="lboot.timeout=30" qemu_start2 -drive "file=$T/disk.img,format=raw,if=virtio"
expect1 'lboot [^ ]+ starting' 120 && ok "unusable console: banner on hvc0" || not_ok "unusable console: banner on hvc0"
expect1 'lboot: consoles: ' 30 || true
active=$(tr -d '\r' <"$T/s1.log" | grep -Eo 'lboot: consoles: [^(]*' | head -1)
log "${active:-no consoles line}"
expect1 'lboot: consoles: (tty0 hvc0|hvc0 tty0) \(' 5 && ok "tty0 and hvc0 in use" ||
	not_ok "tty0 and hvc0 in use"
if expect1 'lboot: console ttyS2: cannot use /dev/ttyS2: .*: going on without it' 10; then
	ok "the unusable console is named, with the reason"
	n=$(tr -d '\r' <"$T/s1.log" | grep -c 'console ttyS2: cannot use')
	[ "$n" = 1 ] && ok "named once ($n)" || not_ok "named once ($n)"
else
	not_ok "the unusable console is named, with the reason"
fi
expect1 "booting 'first entry' in [0-9]+ s" 120 && ok "unusable console: the menu on hvc0" ||
	not_ok "unusable console: the menu on hvc0"
# Down on the VGA console's keyboard (the Linux VT sends ESC [ B), Enter
# on hvc0
sendkey down
expect1 'lboot: selected 2\) second entry' 30 && ok "Down on tty0's keyboard selects the second entry" ||
	not_ok "Down on tty0's keyboard selects the second entry"
# the VGA console's text (vgacon: characters at the even bytes of the
# 32 KiB at 0xB8000), read through the monitor
printf 'pmemsave 0xb8000 32768 "%s"\n' "$T/vga.bin" >&"$MON_IN"
for _ in $(seq 50); do [ -s "$T/vga.bin" ] && break; sleep 0.2; done
sleep 0.5
od -An -v -tu1 -w2 "$T/vga.bin" 2>/dev/null | awk '{ c = $1; printf "%c", (c >= 32 && c < 127) ? c : 32 }' |
	fold -w 80 >"$T/vga.txt"
grep -q "booting 'first entry' in" "$T/vga.txt" && grep -q 'lboot: selected 2) second entry' "$T/vga.txt" &&
	ok "the menu and the selection on tty0 (VGA text)" || not_ok "the menu and the selection on tty0 (VGA text)"
send1 '\r'
expect 'lboot-target: cmdline: .*lboot-test=multi-second' 240 &&
	ok "unusable console: keys from tty0 and hvc0 boot the second entry" ||
	not_ok "unusable console: keys from tty0 and hvc0 boot the second entry"
qemu_stop2
cp "$T/serial.log" "$T/case2-ttyS0.log"; cp "$T/s1.log" "$T/case2-hvc0.log"

# 3: 's' typed on hvc0 runs the shell there (its own terminal), not on
# /dev/console; the menu comes back on both
if [ -x /bin/busybox ] && "$OUT/lboot" mkinitramfs -o "$T/initramfs-bb.cpio.xz" \
	--init "$OUT/lboot-target" --busybox >/dev/null 2>&1; then
	CONSOLES="console=hvc0 console=ttyS0,115200"
	E2E_APPEND="lboot.timeout=60" OUT_INITRD=$T/initramfs-bb.cpio.xz \
		qemu_start2 -drive "file=$T/disk.img,format=raw,if=virtio"
	expect1 "booting 'first entry' in [0-9]+ s" 120 || true
	send1 ' '
	expect1 'lboot> ' 20 || true
	send1 's'
	expect1 'lboot: starting /bin/sh on /dev/hvc0' 20 && ok "shell: started on hvc0, said on hvc0" ||
		not_ok "shell: started on hvc0, said on hvc0"
	expect 'lboot: starting /bin/sh on /dev/hvc0' 5 && ok "shell: said on ttyS0 too" ||
		not_ok "shell: said on ttyS0 too"
	sleep 2
	send1 'echo "shell-tty=$(tty)"\r'
	expect1 '^shell-tty=/dev/hvc0' 30 && ok "shell: its terminal is hvc0" || not_ok "shell: its terminal is hvc0"
	expect_not 'shell-tty=' && ok "shell: its output not on ttyS0" || not_ok "shell: its output not on ttyS0"
	send1 'exit\r'
	expect 'lboot: shell exited, back to the menu' 20 && ok "shell: back to the menu (ttyS0)" ||
		not_ok "shell: back to the menu (ttyS0)"
	sleep 1
	send '2\r'
	expect 'lboot-target: cmdline: .*lboot-test=multi-second' 240 &&
		ok "shell: then keys from ttyS0 boot the second entry" ||
		not_ok "shell: then keys from ttyS0 boot the second entry"
else
	skip "shell on the console it was asked from" "no /bin/busybox (apt-get install busybox-static) or mkinitramfs --busybox failed"
fi
e2e_done
