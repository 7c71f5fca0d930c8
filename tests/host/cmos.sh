#!/bin/bash
# lboot cmos vs coreboot's nvramtool (Debian coreboot-utils): the option
# table nvramtool builds from a layout (-L, the cmos_layout.bin coreboot's
# build puts in CBFS) read by lboot; the same listing as `nvramtool -a` on
# random CMOS dumps for lboot's q35 layout and real boards' layouts; values
# written by one tool read by the other, and nvramtool's checksum check
# (-c) after lboot wrote; bad input: one line, exit 1, the dump unchanged.
cd "$(dirname "$0")/../.." || exit 1
L=$PWD/out/lboot
ROOT=$PWD
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

ok() { echo "ok $1"; }
nok() { echo "not ok $1"; }
check() { # name cond-cmd...
	local n=$1; shift
	if "$@"; then ok "$n"; else nok "$n"; fi
}

if ! [ -x "$L" ]; then nok "cmos: out/lboot missing"; exit 1; fi
if ! command -v nvramtool >/dev/null; then
	echo "# nvramtool missing (apt-get install coreboot-utils)"; nok "cmos: nvramtool"; exit 1
fi
cd "$T" || exit 1
Y=$ROOT/coreboot/q35-cmos.layout
nvramtool -y "$Y" -L q35.bin || { nok "cmos: nvramtool -L"; exit 1; }
check "cmos: the option table nvramtool builds from lboot's layout is the fuzz seed" \
	cmp -s q35.bin "$ROOT/fuzz/corpus/cmos/q35-lboot"

# --- listings on random dumps ----------------------------------------------
same=0 total=0
for i in 1 2 3 4 5 6 7 8; do
	head -c 128 /dev/urandom >rnd.bin
	nvramtool -y "$Y" -D rnd.bin -a >n.txt 2>/dev/null
	"$L" cmos --layout q35.bin --file rnd.bin >l.txt 2>/dev/null
	total=$((total + 1))
	if cmp -s n.txt l.txt; then same=$((same + 1)); else diff n.txt l.txt | head -5 | sed 's/^/# /'; fi
done
check "cmos: lboot's q35 layout: the same listing as nvramtool -a on $total random dumps" [ $same = $total ]
# real boards' layouts, written as their text here (from coreboot 4.15's
# src/mainboard): enums with spaces, a 256-bit number, a checksum elsewhere
cat >x220.layout <<'EOF'
entries
0	384	r	0	reserved_memory
384	1	e	4	boot_option
388	4	h	0	reboot_counter
392	3	e	5	baud_rate
395	4	e	6	debug_level
409	2	e	7	power_on_after_fail
411	1	e	9	sata_mode
412	1	e	1	bluetooth
416	1	e	2	wlan
432	2	e	10	backlight
728	256	h	0	user_data
984	16	h	0	check_sum
enumerations
1	0	Disable
1	1	Enable
2	0	Enable
2	1	Disable
4	0	Fallback
4	1	Normal
5	0	115200
5	1	57600
6	5	Notice
6	6	Info
6	7	Debug
6	8	Spew
7	0	Disable
7	1	Enable
7	2	Keep
9	0	AHCI
9	1	Compatible
10	0	Both
10	1	Keyboard only
10	2	Thinklight only
10	3	None
checksums
checksum 392 447 984
EOF
nvramtool -y x220.layout -L x220.bin || nok "cmos: nvramtool -L x220.layout"
same=0 total=0
for i in 1 2 3 4 5 6 7 8; do
	head -c 128 /dev/urandom >rnd.bin
	nvramtool -y x220.layout -D rnd.bin -a >n.txt 2>/dev/null
	"$L" cmos --layout x220.bin --file rnd.bin >l.txt 2>l.err
	total=$((total + 1))
	if cmp -s n.txt l.txt; then same=$((same + 1)); else diff n.txt l.txt | head -5 | sed 's/^/# /'; fi
done
check "cmos: a board's layout (enum texts with spaces): the same listing on $total random dumps" [ $same = $total ]
check "cmos: a 256-bit number is not read, with one line" grep -q "user_data: 256 bits" l.err

# --- written by lboot, read by nvramtool, and back ---------------------------
head -c 128 /dev/zero >d.bin
check "cmos: lboot sets a string, a number, two enums (exit 0)" \
	"$L" cmos --layout q35.bin --file d.bin set lboot_oneshot=b.conf lboot_last=0xdeadbeef \
	debug_level=Spew power_on_after_fail=Enable
check "cmos: nvramtool reads lboot_oneshot=b.conf" [ "$(nvramtool -y "$Y" -D d.bin -n -r lboot_oneshot)" = b.conf ]
check "cmos: nvramtool reads lboot_last=0xdeadbeef" [ "$(nvramtool -y "$Y" -D d.bin -n -r lboot_last)" = 0xdeadbeef ]
check "cmos: nvramtool reads debug_level=Spew" [ "$(nvramtool -y "$Y" -D d.bin -n -r debug_level)" = Spew ]
nv=$(nvramtool -y "$Y" -D d.bin -c 2>&1)
sum=$(python3 -c "import sys; b=open('d.bin','rb').read(); print(hex(sum(b[56:126]) & 0xffff), hex(b[126] << 8 | b[127]))")
check "cmos: nvramtool's checksum ($nv) is the one lboot stored ($sum)" [ "$nv $nv" = "$sum" ]
nvramtool -y "$Y" -D d.bin -w lboot_default='debian-*' && nvramtool -y "$Y" -D d.bin -w lboot_timefloor=0x79d28
check "cmos: lboot reads what nvramtool wrote (lboot_default)" [ "$("$L" cmos --layout q35.bin --file d.bin get lboot_default)" = 'debian-*' ]
check "cmos: lboot reads what nvramtool wrote (lboot_timefloor)" [ "$("$L" cmos --layout q35.bin --file d.bin get lboot_timefloor)" = 0x79d28 ]
"$L" cmos --layout q35.bin --file d.bin --json >j.txt
check "cmos: --json: the checksum holds after nvramtool's write; every option" \
	python3 -c "
import json; j = json.load(open('j.txt'))
assert j['checksum_ok'] is True
v = {o['name']: o['value'] for o in j['options']}
assert v['lboot_default'] == 'debian-*' and v['lboot_oneshot'] == 'b.conf' and v['debug_level'] == 'Spew', v
assert 'check_sum' not in v and 'reserved_memory' not in v"

# --- bad input ----------------------------------------------------------------
cp d.bin before.bin
bad() { # NAME EXPECTED-REGEX ARGS...
	local n=$1 re=$2; shift 2
	"$L" cmos --layout q35.bin --file d.bin "$@" >out.txt 2>err.txt
	local rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -Eq "$re" err.txt && cmp -s d.bin before.bin; then
		ok "cmos: $n: exit 1, one line, the dump unchanged"
	else
		nok "cmos: $n: exit 1, one line, the dump unchanged"; sed 's/^/# /' err.txt; echo "# rc=$rc"
	fi
}
bad "a string longer than its bytes" "longer than its 24 bytes" set lboot_default=0123456789abcdef012345678
bad "a control character" "control character" set "lboot_oneshot=$(printf 'a\033[2J')"
bad "a number too wide" "not a number of at most 4 bits" set reboot_counter=16
bad "not a number" "not a number" set lboot_last=12abc
bad "an enum value not in the list" "not one of its values" set debug_level=Loud
bad "no such option" "no such option" set nothing=1
bad "a reserved area" "no such option" set reserved_memory=1
bad "the second of two fails: neither is written" "no such option" set lboot_last=0x1 nothing=1
head -c 100 /dev/zero >short.bin
"$L" cmos --layout q35.bin --file short.bin >/dev/null 2>err.txt
check "cmos: a dump of 100 bytes: one line" grep -q "100 bytes, not a CMOS dump" err.txt
head -c 300 /dev/urandom >junk.bin
"$L" cmos --layout junk.bin --file d.bin >/dev/null 2>err.txt
check "cmos: a layout that is not one: one line, exit 1" bash -c "[ \$(wc -l <err.txt) = 1 ] && grep -q 'CMOS option table' err.txt"
python3 - <<'EOF'
import struct
b = bytearray(open('q35.bin', 'rb').read())
# the first entry (reserved_memory at 12): moved onto the clock's bytes as a number
struct.pack_into('<III', b, 12 + 8, 8, 8, ord('h'))
open('clock.bin', 'wb').write(b)
EOF
"$L" cmos --layout clock.bin --file d.bin >/dev/null 2>err.txt
check "cmos: an option on the clock's registers: refused" grep -q "on the clock's registers" err.txt
"$L" cmos --layout q35.bin --rom q35.bin >/dev/null 2>&1
check "cmos: --layout and --rom together: usage (exit 2)" [ $? = 2 ]

# --- a coreboot ROM: its cmos_layout.bin and cmos.default ----------------------
# (lboot's q35 coreboot build: a copy from the cache, or built once, as the
# coreboot e2e scenarios need it too)
ROM=$ROOT/build/coreboot/q35.rom
if make -s -C "$ROOT" build/coreboot/q35.rom >rom.log 2>&1 && [ -f "$ROM" ]; then
	nvramtool -C "$ROM" -a >n.txt 2>/dev/null
	"$L" cmos --rom "$ROM" >l.txt 2>/dev/null
	check "cmos: --rom: the same listing as nvramtool -C (cmos.default)" cmp -s n.txt l.txt
	head -c 128 /dev/urandom >rnd.bin
	nvramtool -C "$ROM" -D rnd.bin -a >n.txt 2>/dev/null
	"$L" cmos --rom "$ROM" --file rnd.bin >l.txt 2>/dev/null
	check "cmos: --rom --file: the same listing as nvramtool -C -D" cmp -s n.txt l.txt
	check "cmos: the ROM's lboot options are lboot's layout" grep -q '^lboot_timefloor = ' l.txt
	"$L" cbfs extract "$ROM" cmos_layout.bin -o rom-layout.bin >/dev/null 2>&1
	check "cmos: the ROM's cmos_layout.bin is what nvramtool builds from coreboot/q35-cmos.layout" \
		cmp -s rom-layout.bin q35.bin
else
	tail -5 rom.log | sed 's/^/# /'
	nok "cmos: build/coreboot/q35.rom (make build/coreboot/q35.rom)"
fi
