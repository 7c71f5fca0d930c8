#!/bin/bash
# lboot mkinitramfs / lboot cpio against GNU cpio, xz and gzip.
# Needs out/lboot (make out/lboot), cpio, xz, gzip, python3; run as root
# for device nodes (GNU cpio and lboot cpio both create them then).
cd "$(dirname "$0")/../.." || exit 1
L=${LBOOT:-$PWD/out/lboot}
[ -x "$L" ] || { echo "not ok cpio.sh: $L missing (make out/lboot)"; exit 1; }
command -v cpio >/dev/null || { echo "not ok cpio.sh: GNU cpio missing"; exit 1; }
T=$(mktemp -d /tmp/lboot-cpio-sh.XXXXXX) || exit 1
trap '[ -n "$KEEP" ] || rm -rf "$T"' EXIT
export TZ=UTC
umask 022

check() { # name cmd...: ok/not ok by the command's status
	local name=$1; shift
	if "$@" >"$T/check.log" 2>&1; then
		echo "ok $name"
	else
		echo "not ok $name"
		sed 's/^/# /' "$T/check.log" | head -20
	fi
}

# A listing that captures what extraction must preserve: path, mode,
# type, symlink target, size, link count, and contents.
tree_list() { # DIR
	(cd "$1" && find . -mindepth 1 -printf '%P %m %y %l %s %n\n' | LC_ALL=C sort &&
	 find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum)
}

# ---- inputs ---------------------------------------------------------------
S=$T/src
mkdir -p "$S/tree/sub/deeper" "$S/tree/emptydir"
printf 'alpha\n' >"$S/tree/a.txt"
printf '#!/bin/sh\necho hi\n' >"$S/tree/exec.sh"; chmod 0755 "$S/tree/exec.sh"
printf 'secret\n' >"$S/tree/secret"; chmod 0600 "$S/tree/secret"
printf 'deep\n' >"$S/tree/sub/deeper/file"; chmod 0640 "$S/tree/sub/deeper/file"
ln -s ../a.txt "$S/tree/sub/link"
ln -s /etc/hostname "$S/tree/abs"
printf 'spaced\n' >"$S/tree/with space"
: >"$S/tree/empty"
printf 'suid\n' >"$S/tree/setuid"; chmod 04755 "$S/tree/setuid"
chmod 0700 "$S/tree/emptydir"
chmod 0750 "$S/tree/sub"
head -c 100000 /dev/urandom >"$S/tree/random.bin"
printf '\177ELF not really an init\n' >"$S/init"; chmod 0700 "$S/init"
printf 'single\n' >"$S/single"

A=$T/a.cpio
MK=("$L" mkinitramfs --mtime 1234567890 --init "$S/init" --file "$S/tree:/opt/tree" "$S/single")

# ---- help and usage --------------------------------------------------------
check "mkinitramfs --help exits 0" bash -c "'$L' mkinitramfs --help | grep -q '^usage: lboot mkinitramfs'"
check "cpio --help exits 0" bash -c "'$L' cpio --help | grep -q '^usage: lboot cpio'"
check "mkinitramfs without -o exits 2" bash -c "'$L' mkinitramfs --init '$S/init'; [ \$? = 2 ]"
check "cpio without mode exits 2" bash -c "'$L' cpio '$A'; [ \$? = 2 ]"

# ---- mkinitramfs output read by GNU cpio --------------------------------------
check "mkinitramfs --compress none" "${MK[@]}" -o "$A" --compress none

gnu_t() { cpio --quiet -t <"$1"; }
check "GNU cpio lists mkinitramfs output like lboot cpio -t" \
	diff <(gnu_t "$A") <("$L" cpio -t "$A")
check "GNU cpio -tv matches lboot cpio -tv" \
	diff <(cpio --quiet -tv <"$A") <("$L" cpio -tv "$A")

expect_names() {
	local n
	for n in bin dev dev/console dev/null etc mnt proc run sbin sys tmp init bin/lboot \
		 opt/tree/sub/deeper/file opt/tree/sub/link single; do
		grep -qx -- "$n" "$1" || { echo "missing $n"; return 1; }
	done
	# sorted by path, byte order
	LC_ALL=C sort -c "$1"
}
"$L" cpio -t "$A" >"$T/names"
check "mkinitramfs base tree, init, files, sorted" expect_names "$T/names"

dests() {
	"$L" mkinitramfs -o "$T/dst.cpio" --compress none "$S/tree:/" "$S/single:/etc/" \
		--file "$S/init:/usr/lib/x" "$S/tree/sub/deeper/" 2>/dev/null || return 1
	"$L" cpio -t "$T/dst.cpio" >"$T/dst.names" || return 1
	for n in a.txt sub/link sub/deeper/file etc/single usr/lib/x deeper/file; do
		grep -qx -- "$n" "$T/dst.names" || { echo "missing $n"; return 1; }
	done
	# a file cannot become the root; a taken name is an error
	"$L" mkinitramfs -o "$T/dst2.cpio" "$S/single:/" 2>/dev/null && return 1
	"$L" mkinitramfs -o "$T/dst2.cpio" "$S/single:/dev/null" 2>"$T/err" && return 1
	grep -q 'already in the image' "$T/err" && [ ! -e "$T/dst2.cpio" ]
}
check "--file destinations: DIR:/ merges, DST/ appends the name, collisions fail" dests

G=$T/gnu-x
mkdir "$G"
check "GNU cpio -idv extracts mkinitramfs output" \
	bash -c "cd '$G' && cpio -idv --quiet <'$A'"
check "extracted tree equals the source tree (modes, symlinks, contents)" \
	diff <(tree_list "$S/tree") <(tree_list "$G/opt/tree")
gnu_special() {
	cmp "$G/init" "$S/init" && cmp "$G/single" "$S/single" &&
	[ "$(stat -c %a "$G/init")" = 755 ] &&
	[ "$(readlink "$G/bin/lboot")" = ../init ] &&
	[ "$(stat -c '%F %t %T %a' "$G/dev/console")" = "character special file 5 1 600" ] &&
	[ "$(stat -c '%F %t %T' "$G/dev/null")" = "character special file 1 3" ] &&
	[ "$(stat -c %a "$G/tmp")" = 1777 ]
}
check "init, /bin/lboot -> ../init, device nodes as GNU cpio extracts them" gnu_special

json_check() {
	"$L" cpio -t --json "$A" | python3 -c '
import json, os, stat, sys
root = sys.argv[1]
items = json.load(sys.stdin)
types = {"file": stat.S_ISREG, "dir": stat.S_ISDIR, "symlink": stat.S_ISLNK,
         "char": stat.S_ISCHR, "block": stat.S_ISBLK, "fifo": stat.S_ISFIFO}
assert len(items) > 20, len(items)
for it in items:
    st = os.lstat(os.path.join(root, it["name"]))
    assert types[it["type"]](st.st_mode), it
    assert int(it["mode"], 8) == stat.S_IMODE(st.st_mode), (it, oct(st.st_mode))
    if it["type"] == "symlink":
        assert it["target"] == os.readlink(os.path.join(root, it["name"])), it
        assert it["size"] == len(it["target"]), it
    else:
        assert it["target"] is None, it
    if it["type"] == "file":
        assert it["size"] == st.st_size, it
print(len(items), "entries agree")
' "$G"
}
check "cpio -t --json agrees with GNU cpio's extraction" json_check

X=$T/lb-x
check "lboot cpio -x extracts its own output" "$L" cpio -x -C "$X" "$A"
check "lboot cpio -x and GNU cpio -id give the same tree" \
	diff <(tree_list "$G") <(tree_list "$X")

# ---- GNU cpio output read by lboot cpio ------------------------------------------
GS=$T/gsrc
cp -a "$S/tree" "$GS"
ln "$GS/a.txt" "$GS/hardlink"        # hard link pair: data on the last one
mkfifo -m 0640 "$GS/fifo"
mknod -m 0620 "$GS/tty9" c 4 9
mknod -m 0600 "$GS/loop9" b 7 9
GA=$T/gnu.cpio
(cd "$GS" && find . | LC_ALL=C sort | cpio --quiet -o -H newc >"$GA")
check "lboot cpio -t lists a GNU cpio archive like GNU cpio" \
	diff <(gnu_t "$GA") <("$L" cpio -t "$GA")
check "lboot cpio -tv lists a GNU cpio archive like GNU cpio -tv" \
	diff <(cpio --quiet -tv <"$GA") <("$L" cpio -tv "$GA")
G2=$T/gnu2-x X2=$T/lb2-x
mkdir "$G2"
(cd "$G2" && cpio --quiet -id <"$GA")
check "lboot cpio -x extracts a GNU cpio archive like GNU cpio (incl. hard links, nodes)" \
	bash -c "'$L' cpio -x -C '$X2' '$GA' && diff <(tree_list '$G2') <(tree_list '$X2') &&
		 [ \"\$(stat -c %h '$X2/hardlink')\" = 2 ] && [ -p '$X2/fifo' ] && [ -b '$X2/loop9' ]"
gzip -9n <"$GA" >"$GA.gz"
xz -6 <"$GA" >"$GA.xz"    # xz default check: CRC64
check "lboot cpio reads gzip and xz (CRC64) compressed archives" \
	bash -c "diff <(cpio --quiet -t <'$GA') <('$L' cpio -t '$GA.gz') &&
		 diff <(cpio --quiet -t <'$GA') <('$L' cpio -t '$GA.xz')"
cat "$A" "$GA.gz" "$GA.xz" >"$T/concat.img"
check "lboot cpio reads concatenated archives (plain + gzip + xz)" \
	diff <(cat "$T/names" <(gnu_t "$GA") <(gnu_t "$GA")) <("$L" cpio -t "$T/concat.img")

# ---- extraction safety -------------------------------------------------------------
W=$T/w
mkdir -p "$W/sub" "$W/outside" "$W/mk1" "$W/mk2/s"
echo original >"$W/evil"
echo payload >"$W/abs"
ln -s "$W/outside" "$W/mk1/s"
echo x >"$W/mk2/s/x"
(cd "$W/sub" && printf '../evil\n' | cpio --quiet -o -H newc >"$W/dotdot.cpio")
(printf '%s\n' "$W/abs" | cpio --quiet -o -H newc >"$W/abs.cpio") 2>/dev/null
(cd "$W/mk1" && printf 's\n' | cpio --quiet -o -H newc >"$W/s1.cpio")
(cd "$W/mk2" && printf 's/x\n' | cpio --quiet -o -H newc >"$W/s2.cpio")
cat "$W/s1.cpio" "$W/s2.cpio" >"$W/symesc.cpio"
safety() {
	local rc=0
	echo changed >"$W/abs"
	"$L" cpio -x -C "$W/x1" "$W/dotdot.cpio" && { echo "dotdot accepted"; rc=1; }
	"$L" cpio -x -C "$W/x2" "$W/abs.cpio" && { echo "absolute accepted"; rc=1; }
	"$L" cpio -x -C "$W/x3" "$W/symesc.cpio" && { echo "symlink escape accepted"; rc=1; }
	[ "$(cat "$W/evil")" = original ] || { echo "../evil overwritten"; rc=1; }
	[ "$(cat "$W/abs")" = changed ] || { echo "absolute path written"; rc=1; }
	[ ! -e "$W/outside/x" ] || { echo "wrote through a symlink"; rc=1; }
	[ -L "$W/x3/s" ] || { echo "symlink member not created"; rc=1; }
	return $rc
}
check "cpio -x refuses .., absolute names, writing through symlinks" safety

head -c 700 "$A" >"$T/trunc.cpio"
check "truncated archive: exit 1 with a one-line error" \
	bash -c "'$L' cpio -t '$T/trunc.cpio' >/dev/null 2>'$T/err'; [ \$? = 1 ] &&
		 grep -q 'trunc.cpio: at offset' '$T/err' && [ \$(wc -l <'$T/err') = 1 ]"

# ---- xz and gzip output, reproducibility ---------------------------------------------
check "mkinitramfs xz (default)" "${MK[@]}" -o "$T/a.xz"
check "xz -t accepts the image" xz -t "$T/a.xz"
check "xz --robot -lv shows a CRC32 check" \
	bash -c "xz --robot -lv '$T/a.xz' | grep -q \$'^stream\t.*\tCRC32\t'"
check "xz image decompresses to the --compress none image" \
	bash -c "xz -dc '$T/a.xz' | cmp - '$A'"
check "mkinitramfs gzip: gzip -t, same cpio inside" \
	bash -c "${MK[*]@Q} -o '$T/a.gz' --compress gzip && gzip -t '$T/a.gz' &&
		 gzip -dc '$T/a.gz' | cmp - '$A'"
"${MK[@]}" -o "$T/b.xz" 2>/dev/null
check "two mkinitramfs runs give identical bytes" cmp "$T/a.xz" "$T/b.xz"
check "SOURCE_DATE_EPOCH sets the default mtime" \
	bash -c "SOURCE_DATE_EPOCH=1234567890 '$L' mkinitramfs -o '$T/c.xz' --init '$S/init' \
		 --file '$S/tree:/opt/tree' '$S/single' 2>/dev/null && cmp '$T/a.xz' '$T/c.xz'"
check "summary line on stderr" \
	bash -c "${MK[*]@Q} -o '$T/d.xz' 2>&1 >/dev/null | grep -Eq '^lboot mkinitramfs: .*d.xz: [0-9]+ entries, [0-9]+ bytes cpio, [0-9]+ bytes xz$'"

# ---- refusing to overwrite an input -------------------------------------------------------
refuse() {
	cp "$S/init" "$T/init.bak"
	"$L" mkinitramfs -o "$S/init" --init "$S/init" 2>"$T/err" && return 1
	cmp "$S/init" "$T/init.bak" || return 1
	grep -q 'refusing' "$T/err" || return 1
	# the output inside a tree being copied, left from an earlier run
	mkdir -p "$T/self"
	echo data >"$T/self/f"
	"$L" mkinitramfs -o "$T/self/img" "$T/self:/x" 2>/dev/null || return 1
	cp "$T/self/img" "$T/img.bak"
	"$L" mkinitramfs -o "$T/self/img" "$T/self:/x" 2>/dev/null && return 1
	cmp "$T/self/img" "$T/img.bak" && ! ls "$T/self" | grep -q tmp
}
check "mkinitramfs refuses to overwrite its input" refuse

# ---- busybox ------------------------------------------------------------------------
BB=/bin/busybox
if [ -x "$BB" ]; then
	bbcheck() {
		"$L" mkinitramfs -o "$T/bb.cpio" --compress none --init "$S/init" --busybox 2>/dev/null || return 1
		"$L" cpio -t --json "$T/bb.cpio" | python3 -c '
import json, subprocess, sys
items = {i["name"]: i for i in json.load(sys.stdin)}
applets = subprocess.run([sys.argv[1], "--list"], capture_output=True, text=True).stdout.split()
assert items["bin/busybox"]["type"] == "file" and items["bin/busybox"]["mode"] == "0755"
assert items["bin/sh"]["target"] == "busybox"
links = [n for n, i in items.items() if i["type"] == "symlink" and i["target"] == "busybox"]
# Debian lists "busybox" itself: that name is taken by the binary
want = sorted("bin/" + a for a in applets if a != "busybox")
assert sorted(links) == want, (len(links), len(want))
assert items["bin/lboot"]["target"] == "../init"
print(len(links), "applet links")
' "$BB"
	}
	check "--busybox adds /bin/busybox and one link per applet" bbcheck
else
	echo "skip --busybox adds /bin/busybox and one link per applet: $BB missing (apt-get install busybox-static)"
fi
exit 0
