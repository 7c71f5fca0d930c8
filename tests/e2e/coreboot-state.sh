#!/bin/bash
# Issue 25: the boot state under coreboot (no EFI variables) lives in
# coreboot's CMOS options (coreboot/q35-cmos.layout; docs/coreboot.md). One
# machine, booted four times in one QEMU run (a reboot keeps the CMOS, as a
# battery does), lboot as coreboot's payload with lboot.default=saved; the
# target OS reads and writes the options with coreboot's own nvramtool
# (Debian's coreboot-utils, copied into the target with its libraries, run
# by busybox from /lboot-test-run).
#   boot 1: the configured default a; lboot saves lboot_last (SHA-256 of
#           "a.conf") and the clock's floor; a writes lboot_oneshot=b.conf.
#   boot 2: the one-shot chooses b and is cleared before the OS; b writes
#           lboot_default=d.conf.
#   boot 3: lboot_default chooses d; d unsets it ("-": nvramtool cannot
#           write an empty string), writes a one-shot with an
#           escape sequence in it, and a clock floor 30 days ahead.
#   boot 4: the one-shot is ignored (one line), lboot.default=saved chooses
#           d by lboot_last, the clock is raised to the floor; d powers off.
. "$(dirname "$0")/lib.sh"
e2e_init coreboot-state
target_os
command -v nvramtool >/dev/null || { not_ok "nvramtool (apt-get install coreboot-utils)"; exit 1; }
[ -x /usr/bin/busybox ] || { not_ok "busybox (apt-get install busybox)"; exit 1; }

# the tools the target runs: busybox (static) and nvramtool with its libraries
S=$T/tools
rm -rf "$S"; mkdir -p "$S/bin" "$S/usr/sbin"
cp /usr/bin/busybox "$S/bin/busybox"
for a in sh date printf cat mount mkdir; do ln -s busybox "$S/bin/$a"; done
cp /usr/sbin/nvramtool "$S/usr/sbin/nvramtool"
for lib in $(ldd /usr/sbin/nvramtool | grep -oE '/[^ ]+'); do
	mkdir -p "$S$(dirname "$lib")" && cp -L "$lib" "$S$lib"
done
cat >"$S/lboot-test-run" <<'EOS'
#!/bin/sh
# exit 10 (reboot) only after a write that worked: no reboot loop
export PATH=/bin:/usr/sbin
mkdir -p /dev /tmp && mount -t devtmpfs dev /dev
read -r c </proc/cmdline
case "$c" in
*cmostest.entry=a*) e=a ;; *cmostest.entry=b*) e=b ;; *cmostest.entry=d*) e=d ;; *) e=? ;;
esac
echo "cmos-target: entry $e"
for o in lboot_oneshot lboot_default lboot_last lboot_timefloor; do
	echo "cmos-target: $o=$(nvramtool -n -r $o 2>&1)"
done
nvramtool -a >/dev/null 2>/tmp/a.err
if [ -s /tmp/a.err ]; then echo "cmos-target: nvramtool -a: $(cat /tmp/a.err)"; else echo "cmos-target: nvramtool -a: checksum good"; fi
case $e in
a)	nvramtool -w lboot_oneshot=b.conf && echo "cmos-target: wrote lboot_oneshot=b.conf" && exit 10 ;;
b)	nvramtool -w lboot_default=d.conf && echo "cmos-target: wrote lboot_default=d.conf" && exit 10 ;;
d)	if [ "$(nvramtool -n -r lboot_default)" = d.conf ]; then
		f=$(printf '0x%x' $(( $(nvramtool -n -r lboot_timefloor) + 30 * 24 )))
		nvramtool -w lboot_default=- && nvramtool -w "lboot_oneshot=$(printf 'x\033[2J')" &&
			nvramtool -w lboot_timefloor=$f &&
			echo "cmos-target: cleared lboot_default, wrote a one-shot with ESC, lboot_timefloor=$f" &&
			exit 10
	fi ;;
esac
exit 0
EOS
chmod +x "$S/lboot-test-run"
(cd "$S" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$T/tools.cpio.gz" ||
	{ not_ok "cpio the target's tools"; exit 1; }

R=$T/esp
rm -rf "$R"; mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/init.img"
cp "$T/tools.cpio.gz" "$R/tools.img"
printf 'default a.conf\ntimeout 0\n' >"$R/loader/loader.conf"
for e in a b c d; do
	printf 'title   entry %s\nlinux   /vmlinuz\ninitrd  /init.img\ninitrd  /tools.img\noptions console=ttyS0,115200 quiet cmostest.entry=%s\n' \
		"$e" "$e" >"$R/loader/entries/$e.conf"
done
mkpart_vfat "$T/esp.img" 96 "$R" ESP 5d0be1a2
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp"

E2E_COREBOOT=1 E2E_REBOOT=1 E2E_APPEND="lboot.timeout=0 lboot.default=saved" qemu_start \
	-drive "file=$T/disk.img,format=raw,if=virtio"
if expect 'lboot-target: powering off' 400 && qemu_wait 60; then
	ok "four boots of one machine, then the target powered off"
else
	not_ok "four boots of one machine, then the target powered off"
fi
qemu_stop
# the serial log, one file per boot (each starts at coreboot's banner)
tr -d '\r' <"$T/serial.log" | awk -v d="$T" '/^coreboot-.* bootblock starting/ { n++ } n { print > (d "/boot-" n ".log") }'
N=0
has() { grep -Eq -- "$1" "$T/boot-$N.log"; }
val() { sed -n "s/^cmos-target: $1=//p" "$T/boot-$N.log" | head -n1; }
check() { # NAME CONDITION...
	local n=$1; shift
	if "$@"; then ok "boot $N: $n"; else not_ok "boot $N: $n"; log "$(grep -E '^(lboot: (default|boot state|CMOS|clock|no EFI)|cmos-target)' "$T/boot-$N.log" 2>/dev/null | tr '\n' '|')"; fi
}
eq() { [ "$1" = "$2" ] || { log "'$1' != '$2'"; return 1; }; }
h() { printf '0x%s' "$(printf %s "$1" | sha256sum | cut -c1-8 | sed 's/^0*//')"; }
n_boots=$(ls "$T"/boot-*.log 2>/dev/null | wc -l)
if [ "$n_boots" = 4 ]; then ok "coreboot started four times"; else not_ok "coreboot started four times ($n_boots)"; fi
now_h=$(( $(date +%s) / 3600 ))

N=1
year=$(date -u +%Y)
check "the RTC reads this year ($year) under coreboot (its CMOS defaults keep the century)" \
	has "^rtc_cmos [^ ]+: setting system clock to $year-"
check "lboot says where the boot state is" has "^lboot: no EFI firmware .*the boot state is in coreboot's CMOS options \(lboot_oneshot, lboot_default, lboot_last, lboot_timefloor\)"
check "a, the configured default, booted" has '^cmos-target: entry a$'
check "lboot wrote lboot_last=SHA-256('a.conf')" has "^lboot: boot state: CMOS option lboot_last=0x$(printf a.conf | sha256sum | cut -c1-8) \(SHA-256 of 'a.conf'\)"
check "nvramtool reads lboot_last $(h a.conf)" eq "$(val lboot_last)" "$(h a.conf)"
# (coreboot leaves QEMU's RTC reading 1980: the clock is the build date,
# raised by lboot, and that is the floor stored)
tf=$(val lboot_timefloor)
check "nvramtool reads the clock's floor lboot stored, in hours: within 2 days before now ($tf)" \
	bash -c "[[ '$tf' =~ ^0x[0-9a-f]+\$ ]] && [ \$(( $tf )) -ge $((now_h - 48)) ] && [ \$(( $tf )) -le $now_h ]"
check "nvramtool: the options' checksum is good after lboot wrote" has '^cmos-target: nvramtool -a: checksum good$'
check "a wrote the one-shot" has '^cmos-target: wrote lboot_oneshot=b.conf$'

N=2
check "lboot: the one-shot chose b and was cleared" has "^lboot: default 'entry b' chosen by CMOS option lboot_oneshot=b.conf \(one-shot: cleared\)"
check "b booted" has '^cmos-target: entry b$'
check "the OS finds lboot_oneshot empty" eq "$(val lboot_oneshot)" ""
check "lboot_last is b's" eq "$(val lboot_last)" "$(h b.conf)"
check "nvramtool: checksum good" has '^cmos-target: nvramtool -a: checksum good$'

N=3
check "lboot_default chose d" has "^lboot: default 'entry d' chosen by CMOS option lboot_default=d.conf$"
check "d booted" has '^cmos-target: entry d$'
check "d unset lboot_default ('-'), wrote a bad one-shot and a floor 30 days ahead" has '^cmos-target: cleared lboot_default'

N=4
check "the one-shot with an escape sequence: one line, not used" has "^lboot: CMOS option lboot_oneshot holds a control character: ignored$"
check "lboot.default=saved chose d by lboot_last" has "^lboot: default 'entry d' chosen by lboot.default=saved: CMOS option lboot_last=0x$(printf d.conf | sha256sum | cut -c1-8) \(SHA-256 of 'd.conf'\)$"
want=$(date -u -d "@$(( ($tf + 30 * 24) * 3600 ))" '+%Y-%m-%d %H:%M:%S')
check "the clock was raised to the floor d wrote ($want UTC: the last boot's time)" \
	has "^lboot: clock: .* is before the floor $want UTC \(the last boot's time\): raised to it"
check "d booted and powered off" has '^cmos-target: entry d$'
check "no escape sequence reached the console from lboot" bash -c "! grep -a '^lboot: ' '$T/boot-4.log' | grep -q $'\e'"
e2e_done
