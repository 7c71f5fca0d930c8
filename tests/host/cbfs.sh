#!/bin/bash
# lboot cbfs vs coreboot's own cbfstool (Debian coreboot-utils): ROMs made
# by cbfstool (FMAP with two CBFS regions; a legacy master-header image);
# the same listing as `cbfstool print` in every region, the same payload
# segments as `cbfstool print -v`, the same bytes as `cbfstool extract`
# (decompressed and -U raw); lboot's LZ4 files and payload segments read by
# cbfstool and decoded by Debian's lz4; bad input: one line naming what and where,
# exit 1, no output written, the input never overwritten.
cd "$(dirname "$0")/../.." || exit 1
L=$PWD/out/lboot
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

ok() { echo "ok $1"; }
nok() { echo "not ok $1"; }
check() { # name cond-cmd...
	local n=$1; shift
	if "$@"; then ok "$n"; else nok "$n"; fi
}

if ! [ -x "$L" ]; then nok "cbfs: out/lboot missing"; exit 1; fi
for t in cbfstool fmaptool; do
	if ! command -v $t >/dev/null; then
		echo "# $t missing (apt-get install coreboot-utils)"; nok "cbfs: $t"; exit 1
	fi
done
cd "$T" || exit 1

# --- the ROMs, made by coreboot's tool -------------------------------------------
seq 1 50000 >txt
head -c 100000 /dev/urandom >rnd
echo hi >small
printf 'lboot\n' >initrd
cat >a.fmd <<'EOF'
FLASH@0 0x1000000 {
	BIOS@0 0x1000000 {
		RW_MRC_CACHE@0 0x10000
		FMAP@0x10000 0x800
		FW_MAIN_A(CBFS)@0x20000 0x100000
		COREBOOT(CBFS)@0x200000 0xe00000
	}
}
EOF
KERNEL=$OLDPWD/out/bzImage
[ -f "$KERNEL" ] || KERNEL=$(ls /boot/vmlinuz-* 2>/dev/null | head -1)
made=1
{
	fmaptool a.fmd a.fmap &&
	cbfstool a.rom create -M a.fmap -r COREBOOT,FW_MAIN_A &&
	cbfstool a.rom add -f txt -n cfg/lzma -t raw -c lzma &&
	cbfstool a.rom add -f txt -n cfg/lz4 -t raw -c lz4 &&
	cbfstool a.rom add -f rnd -n rnd -t raw -A sha256 &&
	cbfstool a.rom add-int -i 0x1234 -n int1 &&
	cbfstool a.rom add-flat-binary -f txt -n flat/lz4 -l 0x100000 -e 0x100010 -c lz4 &&
	cbfstool a.rom add-flat-binary -f txt -n flat/lzma -l 0x200000 -e 0x200000 -c lzma &&
	cbfstool a.rom add-payload -f "$KERNEL" -n fallback/payload -I initrd -C "console=ttyS0 quiet" &&
	cbfstool a.rom add -f small -n small -t raw -r FW_MAIN_A &&
	cbfstool a.rom remove -n int1 &&
	cbfstool a.rom add -f small -n after-removed -t raw &&
	head -c 4096 /dev/zero >bb &&
	cbfstool l.rom create -m x86 -s 262144 -B bb &&
	cbfstool l.rom add -f txt -n x/lzma -t raw -c lzma &&
	cbfstool l.rom add -f small -n y -t raw
} >made.log 2>&1 || made=0
if [ $made = 0 ]; then
	sed 's/^/# /' made.log; nok "cbfs: cbfstool made the test ROMs"; exit 1
fi
ok "cbfs: cbfstool made the test ROMs (FMAP with COREBOOT and FW_MAIN_A; legacy)"

# --- the same listing ------------------------------------------------------------------
same_ls() { # rom [region]
	local r=() ; [ -n "$2" ] && r=(-r "$2")
	"$L" cbfs ls "${r[@]}" "$1" >ours.txt 2>ours.err &&
		cbfstool "$1" print "${r[@]}" >theirs.txt 2>/dev/null &&
		diff ours.txt theirs.txt >diff.txt && ! [ -s ours.err ]
}
check "cbfs: ls = cbfstool print, COREBOOT (lzma, lz4, hash, flat binaries, Linux payload, a removed file)" same_ls a.rom
[ -s diff.txt ] && sed 's/^/# /' diff.txt | head -20
check "cbfs: ls -r FW_MAIN_A = cbfstool print -r FW_MAIN_A" same_ls a.rom FW_MAIN_A
check "cbfs: ls = cbfstool print, legacy image (master header, no FMAP)" same_ls l.rom

# the layout: the FMAP areas cbfstool layout -w names, with the same offsets and sizes
"$L" cbfs layout --json a.rom >layout.json
cbfstool a.rom layout -w >layout.txt 2>/dev/null
check "cbfs: layout = cbfstool layout -w (names, offsets, sizes, which are CBFS)" python3 - <<'EOF'
import json, re
ours = {a["name"]: (a["offset"], a["size"], a["cbfs"]) for a in json.load(open("layout.json"))["areas"]}
theirs = {}
for l in open("layout.txt"):
    m = re.match(r"'([^']+)' \(([^)]*)\)", l.strip())
    if m:
        d = m.group(2)
        theirs[m.group(1)] = (int(re.search(r"offset (\d+)", d).group(1)),
                              int(re.search(r"size (\d+)", d).group(1)), d.startswith("CBFS"))
assert theirs and ours == theirs, (ours, theirs)
EOF

# --- payload segments ----------------------------------------------------------------------
"$L" cbfs ls --json -r COREBOOT a.rom >ls.json
cbfstool a.rom print -v >print-v.txt 2>/dev/null
check "cbfs: payload segments = cbfstool print -v (type, compression, offset, load, sizes, entry)" python3 - <<'EOF'
import json, re
files = {f["name"]: f for a in json.load(open("ls.json"))["areas"] for f in a.get("files", [])}
theirs, cur = {}, None
for l in open("print-v.txt"):
    m = re.match(r"(\S+)\s+0x[0-9a-f]+\s+simple elf", l)
    if m:
        cur = m.group(1); theirs[cur] = []; continue
    if not l.startswith("    "):
        cur = None; continue
    if cur is None:
        continue
    m = re.match(r"\s+(code|data|bss|params)\s+\((\S+) compression, offset: 0x([0-9a-f]+), load: 0x([0-9a-f]+), length: (\d+)/(\d+)\)", l)
    if m:
        theirs[cur].append((m.group(1).upper().ljust(4)[:4], m.group(2), int(m.group(3), 16),
                            int(m.group(4), 16), int(m.group(5)), int(m.group(6))))
        continue
    m = re.match(r"\s+entry \(0x([0-9a-f]+)\)", l)
    if m:
        theirs[cur].append(("ENTR", None, None, int(m.group(1), 16), None, None))
assert set(theirs) == {"flat/lz4", "flat/lzma", "fallback/payload"}, theirs.keys()
for name, segs in theirs.items():
    ours = []
    for s in files[name]["segments"]:
        if s["type"] == "ENTR":
            ours.append(("ENTR", None, None, s["load"], None, None))
        else:
            ours.append((s["type"], s["compression"], s["offset"], s["load"], s["size"], s["memsize"]))
    assert ours == segs, (name, ours, segs)
assert len(theirs["fallback/payload"]) >= 4
EOF

# --- extract ---------------------------------------------------------------------------------
ex_same() { # rom name [flags]: ours = cbfstool extract (flags: -U for raw)
	local raw=() ; [ "$3" = -U ] && raw=(--raw)
	rm -f o.bin t.bin
	"$L" cbfs extract "${raw[@]}" "$1" "$2" -o o.bin 2>ex.err &&
		cbfstool "$1" extract -n "$2" -f t.bin ${3:-} >/dev/null 2>&1 && cmp -s o.bin t.bin
}
check "cbfs: extract cfg/lzma = the original and = cbfstool extract" \
	bash -c "$(declare -f ex_same); L=$L; ex_same a.rom cfg/lzma && cmp -s o.bin txt"
check "cbfs: extract cfg/lz4 = the original and = cbfstool extract" \
	bash -c "$(declare -f ex_same); L=$L; ex_same a.rom cfg/lz4 && cmp -s o.bin txt"
check "cbfs: extract --raw cfg/lz4 = cbfstool extract -U (the stored LZ4 frame)" \
	bash -c "$(declare -f ex_same); L=$L; ex_same a.rom cfg/lz4 -U && ! cmp -s o.bin txt"
check "cbfs: extract rnd (hashed, stored) = the original" \
	bash -c "$(declare -f ex_same); L=$L; ex_same a.rom rnd && cmp -s o.bin rnd"
check "cbfs: extract -r FW_MAIN_A small" \
	bash -c "'$L' cbfs extract -r FW_MAIN_A a.rom small -o o2.bin && cmp -s o2.bin small"
check "cbfs: extract from a legacy image" \
	bash -c "'$L' cbfs extract l.rom x/lzma -o o3.bin && cmp -s o3.bin txt"
# the hash attribute is the data's SHA-256
check "cbfs: ls --json hash attribute = sha256sum of the data" python3 - <<'EOF'
import json, hashlib
f = {f["name"]: f for a in json.load(open("ls.json"))["areas"] for f in a.get("files", [])}["rnd"]
assert f["hash"]["digest"] == hashlib.sha256(open("rnd", "rb").read()).hexdigest(), f
EOF
# the flat binary's LZ4 segment decompresses to the input (the segment
# decoder is the one lboot would use for a payload)
check "cbfs: ls --json shows the removed file's space as empty and the file after it" \
	bash -c "grep -q '\"name\":\"after-removed\"' ls.json && ! grep -q '\"name\":\"int1\"' ls.json"

# --- bad input ---------------------------------------------------------------------------------
bad() { # name expected-regex cmd...: exit 1, one line on stderr matching, nothing written
	local n=$1 re=$2; shift 2
	rm -f out.bin
	"$@" >/dev/null 2>err.txt
	local rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -Eq "$re" err.txt && ! [ -e out.bin ]; then
		ok "cbfs: $n"
	else
		nok "cbfs: $n (exit $rc)"; sed 's/^/# /' err.txt
	fi
}
bad "no such file: named, exit 1" "a.rom: region COREBOOT: no file 'nope'" \
	"$L" cbfs extract a.rom nope -o out.bin
bad "no such region" "no CBFS region 'FW_MAIN_B'" "$L" cbfs ls -r FW_MAIN_B a.rom
head -c 65536 /dev/urandom >junk
bad "not a coreboot image" "junk: not a coreboot image: no FMAP and no CBFS master header" \
	"$L" cbfs ls junk
# an FMAP area that runs past the image's end
cp a.rom trunc.rom && truncate -s 8M trunc.rom
bad "FMAP area past the end: named with offset and size" \
	"FMAP at 0x10000: area '.*' at 0x[0-9a-f]+, [0-9]+ bytes: past the image's end \(8388608 bytes\)" \
	"$L" cbfs ls trunc.rom
# corrupt LZMA data in cfg/lzma (COREBOOT at 0x200000; its data after the header)
cp a.rom badlz.rom
off=$(python3 -c "
import json; f=[f for a in json.load(open('ls.json'))['areas'] for f in a.get('files',[]) if f['name']=='cfg/lzma'][0]
print(0x200000 + f['offset'] + f['header_size'] + 40)")
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of=badlz.rom bs=1 seek="$off" conv=notrunc 2>/dev/null
bad "corrupt LZMA: named, nothing written" "region COREBOOT: 'cfg/lzma': LZMA data is corrupt" \
	"$L" cbfs extract badlz.rom cfg/lzma -o out.bin
# a file header whose length runs past the region: the walk names it and
# goes on at the next boundary, as coreboot's cbfs_walk does
cp a.rom badhdr.rom
off=$(python3 -c "
import json; f=[f for a in json.load(open('ls.json'))['areas'] for f in a.get('files',[]) if f['name']=='rnd'][0]
print(0x200000 + f['offset'] + 8)")
printf '\x7f\xff\xff\xff' | dd of=badhdr.rom bs=1 seek="$off" conv=notrunc 2>/dev/null
"$L" cbfs ls badhdr.rom >bh.txt 2>bh.err
check "cbfs: a header past the region: listed without it, the rest found, one line naming its offset" \
	bash -c "! grep -q '^rnd ' bh.txt && grep -q '^fallback/payload ' bh.txt &&
		[ \$(wc -l <bh.err) = 1 ] && grep -q 'file header at 0x[0-9a-f]*: data at +[0-9]*, [0-9]* bytes: past the region' bh.err"
# the input is never the output
cp a.rom keep.rom
sum=$(sha256sum <keep.rom)
bad "extract onto the ROM itself: refused, ROM unchanged" "is the ROM itself: refused" \
	"$L" cbfs extract keep.rom cfg/lzma -o keep.rom
check "cbfs: the ROM is byte-identical after the refused extract" test "$(sha256sum <keep.rom)" = "$sum"

# --- edits: lboot writes, cbfstool reads; cbfstool writes, lboot reads ---------------------
sum=$(sha256sum <a.rom)
"$L" cbfs add -c lzma a.rom txt new/lzma -o e1.rom 2>e.err &&
	"$L" cbfs add -t 0x50 e1.rom rnd new/raw -o e2.rom 2>>e.err &&
	"$L" cbfs remove e2.rom cfg/lz4 -o e3.rom 2>>e.err
check "cbfs: add (lzma, stored) and remove wrote new images" test $? = 0 -a -s e3.rom
check "cbfs: the input ROM is unchanged by the edits" test "$(sha256sum <a.rom)" = "$sum"
check "cbfs: cbfstool print lists lboot's edits as lboot ls does (cfg/lz4 gone, its space empty)" \
	bash -c "cbfstool e3.rom print >p.txt 2>/dev/null && '$L' cbfs ls e3.rom | diff - p.txt >/dev/null &&
		grep -q '^new/lzma .* LZMA (288894 decompressed)' p.txt && grep -q '^new/raw ' p.txt &&
		! grep -q '^cfg/lz4 ' p.txt && grep -q '^(empty) *0x38c0 ' p.txt"
check "cbfs: cbfstool extracts lboot's files byte for byte (LZMA and stored)" \
	bash -c "cbfstool e3.rom extract -n new/lzma -f x1 >/dev/null 2>&1 && cmp -s x1 txt &&
		cbfstool e3.rom extract -n new/raw -f x2 >/dev/null 2>&1 && cmp -s x2 rnd"
cp e3.rom e4.rom
check "cbfs: cbfstool adds into lboot's edited ROM (the free space lboot left), lboot extracts it" \
	bash -c "cbfstool e4.rom add -f txt -n back/lz4 -t raw -c lz4 >/dev/null 2>&1 &&
		'$L' cbfs extract e4.rom back/lz4 -o x3 && cmp -s x3 txt &&
		'$L' cbfs ls e4.rom | diff - <(cbfstool e4.rom print 2>/dev/null) >/dev/null"
# remove merges the free space around it: cfg/lzma (at 0) is followed by
# the space cfg/lz4 left; one empty file from 0 to rnd's header remains
"$L" cbfs remove e3.rom cfg/lzma -o e5.rom 2>/dev/null
rnd_off=$(cbfstool e5.rom print 2>/dev/null | awk '$1 == "rnd" {print $2}')
check "cbfs: remove next to free space leaves one empty file up to the next file (cbfstool agrees)" \
	bash -c "cbfstool e5.rom print 2>/dev/null | grep -q \"^(empty) *0x0 *null *\$(( $rnd_off - 28 )) \" &&
		[ \$(cbfstool e5.rom print 2>/dev/null | grep -c '^(empty) *0x0\\|^(empty) *0x38c0') = 1 ] &&
		'$L' cbfs ls e5.rom | diff - <(cbfstool e5.rom print 2>/dev/null) >/dev/null"
head -c $((15 << 20)) /dev/zero >huge
bad "add that does not fit: the size needed and the room left, nothing written" \
	"region COREBOOT: 'huge' needs 15728672 bytes \\(header 32 \\+ data 15728640\\); the largest free space is [0-9]+ bytes" \
	"$L" cbfs add a.rom huge huge -o out.bin
bad "add of a name already there" "'cfg/lzma' is already there" "$L" cbfs add a.rom txt cfg/lzma -o out.bin
bad "remove of a file not there" "region COREBOOT: no file 'nope'" "$L" cbfs remove a.rom nope -o out.bin
cp a.rom self.rom; sum=$(sha256sum <self.rom)
bad "add onto the ROM itself: refused" "is the ROM itself: refused" \
	"$L" cbfs add self.rom txt z -o self.rom
check "cbfs: the ROM is byte-identical after the refused add" test "$(sha256sum <self.rom)" = "$sum"

# --- LZ4 writing: lboot's frames, read by cbfstool and Debian's lz4 ---------------------------
seq 1 1000000 >big   # 6.9 MB: two 4 MiB blocks
lzok=1
"$L" cbfs add -c lz4 a.rom txt new/lz4 -o z1.rom 2>z.err &&
	"$L" cbfs add -c lz4 z1.rom big big/lz4 -o z2.rom 2>>z.err &&
	"$L" cbfs add -c lz4 z2.rom rnd rnd/lz4 -o z3.rom 2>>z.err || lzok=0
check "cbfs: add -c lz4 (text, 6.9 MB of text, random bytes) wrote new images" test $lzok = 1 -a -s z3.rom
[ -s z.err ] && sed 's/^/# /' z.err
cbfstool z3.rom print >zp.txt 2>/dev/null
check "cbfs: cbfstool print shows lboot's files LZ4 with their decompressed sizes, as lboot ls does" \
	bash -c "grep -q '^new/lz4 .* LZ4  (288894 decompressed)' zp.txt && grep -q '^big/lz4 .* LZ4  (6888896 decompressed)' zp.txt &&
		'$L' cbfs ls z3.rom | diff - zp.txt >/dev/null"
check "cbfs: cbfstool extract of lboot's LZ4 files gives the original bytes" \
	bash -c "cbfstool z3.rom extract -n new/lz4 -f zx1 >/dev/null 2>&1 && cmp -s zx1 txt &&
		cbfstool z3.rom extract -n big/lz4 -f zx2 >/dev/null 2>&1 && cmp -s zx2 big"
# random bytes do not shrink: stored without a compression attribute, as cbfstool does
cp a.rom zc.rom
cbfstool zc.rom add -f rnd -n rnd/lz4 -t raw -c lz4 >/dev/null 2>&1
check "cbfs: add -c lz4 of random bytes: stored, no attribute (cbfstool does the same), extracts unchanged" \
	bash -c "grep -q '^rnd/lz4 .* 100000 none *\$' zp.txt && cbfstool zc.rom print 2>/dev/null | grep -q '^rnd/lz4 .* 100000 none *\$' &&
		'$L' cbfs extract z3.rom rnd/lz4 -o zx3 && cmp -s zx3 rnd"
# the stored frames as they are: Debian's lz4 decodes them, and their header
# is the one cbfstool writes (FLG 0x60, block size by the input's size)
"$L" cbfs extract --raw z3.rom new/lz4 -o f1.lz4 && "$L" cbfs extract --raw z3.rom big/lz4 -o f2.lz4
cbfstool a.rom extract -n cfg/lz4 -U -f t0.lz4 >/dev/null 2>&1
if command -v lz4 >/dev/null; then
	check "cbfs: Debian's lz4 -d decodes lboot's LZ4 files byte-identical (288 KB, 6.9 MB in two 4 MiB blocks)" \
		bash -c "lz4 -d -c f1.lz4 2>/dev/null | cmp -s - txt && lz4 -d -c f2.lz4 2>/dev/null | cmp -s - big"
else
	nok "cbfs: Debian's lz4 missing (apt-get install lz4; scripts/deps.sh installs it)"
fi
check "cbfs: lboot's frame header = cbfstool's for the same input (magic, FLG 0x60, BD, checksum)" \
	bash -c "[ \"\$(head -c 7 f1.lz4 | od -An -tx1)\" = \"\$(head -c 7 t0.lz4 | od -An -tx1)\" ] &&
		[ \"\$(head -c 6 f2.lz4 | od -An -tx1)\" = ' 04 22 4d 18 60 70' ]"
zs=$(stat -c %s f1.lz4); ts=$(stat -c %s t0.lz4); l1=$(lz4 -1 -c txt 2>/dev/null | wc -c)
echo "# txt: 288894 bytes; lboot's LZ4 $zs, cbfstool's (lz4 HC level 20) $ts, lz4 -1 $l1"
check "cbfs: lboot's LZ4 of text is no more than 15% over lz4 -1" test "$zs" -le $(( l1 * 115 / 100 ))
check "cbfs: lboot reads the file cbfstool added with -c lz4 into lboot's ROM" \
	bash -c "cp z3.rom z4.rom && cbfstool z4.rom add -f txt -n cb/lz4 -t raw -c lz4 >/dev/null 2>&1 &&
		'$L' cbfs extract z4.rom cb/lz4 -o zx4 && cmp -s zx4 txt &&
		'$L' cbfs ls z4.rom | diff - <(cbfstool z4.rom print 2>/dev/null) >/dev/null"
"$L" cbfs add -c zstd a.rom txt q -o out.bin >/dev/null 2>err.txt
check "cbfs: add -c zstd: usage error (exit 2), one line naming the methods, nothing written" \
	bash -c "[ $? = 2 ] && [ \$(wc -l <err.txt) = 1 ] && grep -q -- '-c zstd: none, lzma or lz4' err.txt && ! [ -e out.bin ]"

# --- add-payload: lboot's Linux payload, against cbfstool's -------------------------------
# the same kernel, initrd and command line: cbfstool add-payload into one
# empty ROM, lboot cbfs add-payload into another
cbfstool pe.rom create -M a.fmap -r COREBOOT,FW_MAIN_A >/dev/null 2>&1
cp pe.rom pt.rom
cbfstool pt.rom add-payload -f "$KERNEL" -n fallback/payload -I initrd -C "console=ttyS0 quiet" >/dev/null 2>&1
sum=$(sha256sum <pe.rom)
"$L" cbfs add-payload pe.rom "$KERNEL" -I initrd -C "console=ttyS0 quiet" -o pl.rom 2>pl.err
check "cbfs: add-payload wrote a new ROM, the input unchanged" \
	bash -c "[ -s pl.rom ] && ! [ -s pl.err ] && [ \"\$(sha256sum <pe.rom)\" = '$sum' ]"
"$L" cbfs add-payload -c lzma pe.rom "$KERNEL" -I initrd -C "console=ttyS0 quiet" -o plz.rom 2>>pl.err
"$L" cbfs ls --json pl.rom >pl.json; "$L" cbfs ls --json pt.rom >pt.json; "$L" cbfs ls --json plz.rom >plz.json
"$L" cbfs extract pl.rom fallback/payload -o pl.bin
"$L" cbfs extract plz.rom fallback/payload -o plz.bin
cbfstool pl.rom print -v >pl-v.txt 2>/dev/null
check "cbfs: add-payload = cbfstool add-payload, segment by segment (kernel at the same address, the same bytes; cmdline; initrd; entry), cbfstool print -v agrees" \
	python3 - "$KERNEL" <<'EOF'
import json, re, struct, sys
k = open(sys.argv[1], "rb").read()
setup = ((k[0x1f1] or 4) + 1) * 512
def segs(f):
    fs = {f["name"]: f for a in json.load(open(f))["areas"] for f in a.get("files", [])}
    return fs["fallback/payload"]["segments"]
ours, theirs = segs("pl.json"), segs("pt.json")
assert [s["type"] for s in ours] == [s["type"] for s in theirs] == ["DATA", "CODE", "CODE", "DATA", "DATA", "ENTR"], (ours, theirs)
# the kernel: the same load address and length as cbfstool's, the bytes after the setup sectors
assert ours[1]["load"] == theirs[1]["load"] and ours[1]["size"] == theirs[1]["size"] == len(k) - setup
p = open("pl.bin", "rb").read()
assert p[ours[1]["offset"]:ours[1]["offset"] + ours[1]["size"]] == k[setup:]
# the zero page and command line where cbfstool puts them; the entry is the trampoline
assert ours[0]["load"] == theirs[0]["load"] == 0x90000 and ours[0]["size"] == 4096
assert ours[3]["load"] == theirs[3]["load"] == 0x91000
assert p[ours[3]["offset"]:ours[3]["offset"] + ours[3]["size"]] == b"console=ttyS0 quiet\0"
assert ours[2]["load"] == theirs[2]["load"] == ours[5]["load"] == theirs[5]["load"] == 0x40000
# the initrd: its bytes, past the kernel's whole init_size, below initrd_addr_max
init_size, imax = struct.unpack_from("<I", k, 0x260)[0], struct.unpack_from("<I", k, 0x22c)[0]
assert p[ours[4]["offset"]:ours[4]["offset"] + ours[4]["size"]] == b"lboot\n"
assert ours[4]["load"] >= ours[1]["load"] + max(init_size, len(k) - setup) and ours[4]["load"] + 6 <= imax
# the zero page: the kernel's setup header, then what a loader fills in
zp = p[ours[0]["offset"]:ours[0]["offset"] + 4096]
hend = 0x202 + k[0x201]
assert zp[0x1f1:0x210] == k[0x1f1:0x210] and zp[0x230:hend] == k[0x230:hend]
assert zp[0x210] == 0xff
assert struct.unpack_from("<III", zp, 0x214) == (ours[1]["load"], ours[4]["load"], 6)
assert struct.unpack_from("<I", zp, 0x228)[0] == 0x91000
# cbfstool print -v lists the same segments
v = re.findall(r"(code|data) +\(none compression, offset: 0x([0-9a-f]+), load: 0x([0-9a-f]+), length: (\d+)/(\d+)\)", open("pl-v.txt").read())
assert [(int(o, 16), int(l, 16), int(n)) for _, o, l, n, _ in v] == [(s["offset"], s["load"], s["size"]) for s in ours[:5]], v
assert "entry (0x40000)" in open("pl-v.txt").read()
EOF
check "cbfs: add-payload -c lzma: segments LZMA (python's lzma gives the stored payload's bytes), those LZMA does not shrink stored" \
	python3 - <<'EOF'
import json, lzma
def payload(j):
    return {f["name"]: f for a in json.load(open(j))["areas"] for f in a.get("files", [])}["fallback/payload"]
a, z = payload("pl.json")["segments"], payload("plz.json")["segments"]
pa, pz = open("pl.bin", "rb").read(), open("plz.bin", "rb").read()
assert len(z) == 6
n = 0
for s, t in zip(a[:5], z[:5]):
    assert t["load"] == s["load"] and t["memsize"] == s["size"], (s, t)
    raw = pz[t["offset"]:t["offset"] + t["size"]]
    if t["compression"] == "LZMA":
        assert t["size"] < s["size"]
        d = lzma.decompress(raw, format=lzma.FORMAT_ALONE)
        n += 1
    else:  # coreboot cuts a stored length to the memory size: kept stored
        assert t["compression"] == "none" and t["size"] == s["size"], t
        d = raw
    assert d == pa[s["offset"]:s["offset"] + s["size"]]
assert n >= 3, n  # zero page, kernel, trampoline
EOF
# add-payload -c lz4: segments LZ4 where that shrinks them; cbfstool print -v
# says LZ4; Debian's lz4 gives the uncompressed payload's bytes
"$L" cbfs add-payload -c lz4 pe.rom "$KERNEL" -I initrd -C "console=ttyS0 quiet" -o pl4.rom 2>>pl.err
"$L" cbfs ls --json pl4.rom >pl4.json
"$L" cbfs extract pl4.rom fallback/payload -o pl4.bin
cbfstool pl4.rom print -v >pl4-v.txt 2>/dev/null
cp pe.rom pt4.rom
cbfstool pt4.rom add-payload -f "$KERNEL" -n fallback/payload -I initrd -C "console=ttyS0 quiet" -c lz4 >/dev/null 2>&1
cbfstool pt4.rom print -v >pt4-v.txt 2>/dev/null
check "cbfs: add-payload -c lz4: cbfstool print -v shows the zero page, kernel and trampoline LZ4 (as cbfstool's own zero page and kernel), command line and initrd stored" \
	python3 - <<'EOF'
import re
def segs(f):
    return re.findall(r"(code|data) +\((\S+) compression, offset: 0x[0-9a-f]+, load: 0x([0-9a-f]+), length: (\d+)/(\d+)\)", open(f).read())
ours, theirs = segs("pl4-v.txt"), segs("pt4-v.txt")
assert [s[1] for s in ours] == ["LZ4", "LZ4", "LZ4", "none", "none"], ours
assert [s[1] for s in theirs][:2] == ["LZ4", "LZ4"], theirs
# the kernel: the same load address and size in memory as cbfstool's, stored smaller
assert ours[1][2] == theirs[1][2] and ours[1][4] == theirs[1][4] and int(ours[1][3]) < int(ours[1][4]), (ours, theirs)
EOF
check "cbfs: add-payload -c lz4: each LZ4 segment decodes (Debian's lz4 -d) to the uncompressed payload's segment" \
	python3 - <<'EOF'
import json, subprocess
def payload(j):
    return {f["name"]: f for a in json.load(open(j))["areas"] for f in a.get("files", [])}["fallback/payload"]
a, z = payload("pl.json")["segments"], payload("pl4.json")["segments"]
pa, pz = open("pl.bin", "rb").read(), open("pl4.bin", "rb").read()
assert len(z) == 6
n = 0
for s, t in zip(a[:5], z[:5]):
    assert t["load"] == s["load"] and t["memsize"] == s["size"], (s, t)
    raw = pz[t["offset"]:t["offset"] + t["size"]]
    if t["compression"] == "LZ4":
        assert t["size"] < s["size"]
        d = subprocess.run(["lz4", "-d", "-c"], input=raw, capture_output=True, check=True).stdout
        n += 1
    else:
        assert t["compression"] == "none" and t["size"] == s["size"], t
        d = raw
    assert d == pa[s["offset"]:s["offset"] + s["size"]], t
assert n >= 3, n
EOF
# --replace: the payload cbfstool put in a.rom becomes lboot's, in one edit
"$L" cbfs add-payload --replace a.rom "$KERNEL" -I initrd -C "console=ttyS0" -o pr.rom 2>pr.err
check "cbfs: add-payload --replace: cbfstool print lists the new payload as lboot ls does, the other files kept" \
	bash -c "cbfstool pr.rom print -v >prv.txt 2>/dev/null && grep -q 'code  (none compression, offset: 0x[0-9a-f]*, load: 0x40000, length: [0-9]*/' prv.txt &&
		[ \$(grep -c '^fallback/payload ' prv.txt) = 1 ] && grep -q '^cfg/lzma ' prv.txt && grep -q '^rnd ' prv.txt &&
		'$L' cbfs ls pr.rom | diff - <(cbfstool pr.rom print 2>/dev/null) >/dev/null"
bad "add-payload of a name already there (no --replace)" "'fallback/payload' is already there \(remove it first\)" \
	"$L" cbfs add-payload a.rom "$KERNEL" -o out.bin
bad "add-payload of a file that is not a bzImage" "txt: not an x86 bzImage" \
	"$L" cbfs add-payload pe.rom txt -o out.bin
head -c 3000 /dev/zero | tr '\0' x >long
bad "add-payload: a command line longer than the kernel takes" \
	"the command line is 3000 bytes; this kernel takes at most [0-9]+" \
	"$L" cbfs add-payload pe.rom "$KERNEL" -C "$(cat long)" -o out.bin
bad "add-payload that does not fit: the size needed and the room left" \
	"region COREBOOT: 'fallback/payload' needs [0-9]+ bytes \(header 44 \+ data [0-9]+\); the largest free space is [0-9]+ bytes" \
	"$L" cbfs add-payload pe.rom "$KERNEL" -I huge -o out.bin
# a kernel whose setup header lies: setup sectors past its end
python3 -c "
k = bytearray(open('$KERNEL', 'rb').read()[:8192]); k[0x1f1] = 200
open('liar', 'wb').write(k)"
bad "add-payload: setup sectors past the file's end" "setup sectors \(102912 bytes\) reach past the file's 8192 bytes" \
	"$L" cbfs add-payload pe.rom liar -o out.bin

# --- interface -----------------------------------------------------------------------------------
"$L" cbfs --help >help.txt 2>&1
check "cbfs: --help exits 0 and names the subcommands" bash -c "[ $? = 0 ] && grep -q 'lboot cbfs ls' help.txt"
"$L" cbfs frob a.rom >/dev/null 2>&1
check "cbfs: an unknown subcommand exits 2" test $? = 2
"$L" cbfs ls --json a.rom | python3 -c 'import json,sys; json.load(sys.stdin)'
check "cbfs: ls --json is valid JSON" test $? = 0
