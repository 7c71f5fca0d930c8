#!/bin/bash
# Issue 11, nobody at the console: bytes on the serial line that are not
# keys (NUL, a real BREAK, XON/XOFF, a cursor position report, an OSC colour
# answer, a DCS answer, 8-bit garbage) do not stop the countdown: the default
# boots. A real key holds the menu; then lboot.idle=S seconds without input
# boot the default anyway.
. "$(dirname "$0")/lib.sh"
e2e_init console-noise
target_os

# qemu_start with the serial line behind a mux chardev, so that `send
# '\001b'` (C-a b) makes QEMU raise a real BREAK on the UART
qemu_start_mux() {
	rm -f "$T/serial.in" "$T/serial.out" "$T/serial.log"
	mkfifo "$T/serial.in" "$T/serial.out"
	"$QEMU" -accel tcg -m "${E2E_MEM:-1024}" -smp 1 -nographic -no-reboot \
		-monitor none -chardev "pipe,id=s0,path=$T/serial,mux=on" -serial chardev:s0 -nic none \
		-machine q35 -kernel "$OUT/bzImage" -initrd "$OUT/initramfs.cpio.xz" \
		-append "console=ttyS0,115200 panic=-1 $E2E_APPEND" "$@" >"$T/qemu.log" 2>&1 &
	QEMU_PID=$!
	cat "$T/serial.out" >"$T/serial.log" &
	E2E_CAT=$!
	exec {E2E_IN}<>"$T/serial.in"
	E2E_T0=$(date +%s.%N)
}

R=$T/root
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
cat >"$R/loader/entries/a.conf" <<'EOT'
title   the default
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=noise-default
EOT
mkpart_ext4 "$T/p1.img" 48 "$R" NOISE
mkdisk_gpt "$T/disk.img" "$T/p1.img"

# 1: noise during a 12 s countdown
E2E_APPEND="lboot.timeout=12" qemu_start_mux -drive "file=$T/disk.img,format=raw,if=virtio"
expect 'lboot [^ ]+ starting' 120 && ok "banner" || not_ok "banner"
expect "booting 'the default' in 1[0-2] s, press any key to stop" 60 && ok "countdown shown" ||
	not_ok "countdown shown"
send '\000\000'             # NUL
sleep 0.3
send '\001b'                # C-a b: the mux raises a BREAK on the line
sleep 0.3
send '\021\023'             # XON XOFF
send '\033[24;80R'          # cursor position report
sleep 0.3
send '\033]11;rgb:0000/0000/0000\007'   # OSC 11 answer (BEL)
send '\033P1$r0m\033\\'     # DCS answer (ST)
send '\033[?1;2c'           # device attributes
send '\377\376\200'         # 8-bit garbage
sleep 0.3
expect "booting 'the default' in 1 s" 30 && ok "countdown ran to its end through the noise" ||
	not_ok "countdown ran to its end through the noise"
expect 'lboot: [0-9]+ bytes on the console ignored: not keys' 10 && ok "noise counted and reported" ||
	not_ok "noise counted and reported"
expect_not 'lboot> ' && ok "no prompt: the noise did not stop the countdown" ||
	not_ok "no prompt: the noise did not stop the countdown"
expect 'lboot-target: cmdline: .*lboot-test=noise-default' 180 && ok "the default booted" ||
	not_ok "the default booted"
n=$(tr -d '\r' <"$T/serial.log" | grep -Eo 'lboot: [0-9]+ bytes on the console ignored' | grep -Eo '[0-9]+' | head -1)
log "bytes ignored: ${n:-none}"
qemu_stop

# 2: a key holds the menu; lboot.idle=6 boots the default after 6 s alone
E2E_APPEND="lboot.timeout=30 lboot.idle=6" qemu_start_mux -drive "file=$T/disk.img,format=raw,if=virtio"
expect "booting 'the default' in [0-9]+ s, press any key to stop" 120 && ok "second boot: countdown" ||
	not_ok "second boot: countdown"
send '\000\033[5;1R'
sleep 1
expect_not 'lboot> ' && ok "noise alone does not stop it" || not_ok "noise alone does not stop it"
send ' '
expect 'lboot> ' 20 && ok "a key holds the menu" || not_ok "a key holds the menu"
t0=$(elapsed)
sleep 2
send '\000'                 # noise at the prompt does not keep it waiting
expect 'lboot: no input for 6 s \(lboot.idle\)' 30 && ok "idle bound reported" || not_ok "idle bound reported"
t1=$(elapsed)
held=$(echo "$t1 $t0" | awk '{printf "%.1f", $1 - $2}')
log "menu held for $held s after the key (lboot.idle=6)"
awk -v h="$held" 'BEGIN { exit !(h >= 5 && h <= 15) }' && ok "held about lboot.idle seconds ($held s)" ||
	not_ok "held about lboot.idle seconds ($held s)"
expect 'lboot-target: cmdline: .*lboot-test=noise-default' 180 && ok "the default booted after the idle bound" ||
	not_ok "the default booted after the idle bound"
e2e_done
