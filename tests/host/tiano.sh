#!/bin/bash
# EFI 1.1 / Tiano compression against the peer: UEFITool's UEFIExtract.
# For each input and algorithm: wrap the input in a RAW section, compress it
# with our encoder (build/tests/tianotool), put it in an
# EFI_COMPRESSION_SECTION inside a minimal firmware volume
# (tests/files/tiano/mkfv.py), let UEFIExtract unpack the image and check
# that it (a) detects the algorithm we used and (b) extracts the original
# bytes; also that our own auto-detecting decoder agrees.
cd "$(dirname "$0")/../.." || exit 1
T=build/tests/tianotool
MKFV=tests/files/tiano/mkfv.py
if [ ! -x "$T" ]; then echo "not ok tiano: $T missing (make tests)"; exit 1; fi
if ! command -v UEFIExtract >/dev/null; then echo "not ok tiano: UEFIExtract missing (apt-get install uefitool-cli)"; exit 1; fi
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT

# inputs (deterministic)
python3 - "$w" <<'PY'
import random, sys, os
d = sys.argv[1]
r = random.Random(4)
def w(name, data):
    open(os.path.join(d, name), "wb").write(data)
w("one", b"A")
w("three", b"xyz")
w("zeros", bytes(300000))
w("random", bytes(r.getrandbits(8) for _ in range(70000)))
words = [b"Firmware", b"volume", b"section", b"EFI", b"Tiano", b"the", b"of", b"\n", b"  "]
w("text", b" ".join(r.choice(words) for _ in range(60000)))
# long-distance repeats: 100 KiB random block repeated (beyond the 8 KiB EFI window)
blk = bytes(r.getrandbits(8) for _ in range(100000))
w("farrepeat", blk + b"----" + blk)
PY
cat src/uefi/*.c src/lib/*.c > "$w/source" 2>/dev/null
# inputs whose first encoding also decoded under the other algorithm, so the
# encoder re-encodes them with a padded position-set count (also when wrapped
# in the RAW section header, checked when they were chosen)
cp tests/files/tiano/pad-efi.orig tests/files/tiano/pad-tiano.orig "$w/"
for f in /usr/lib/systemd/boot/efi/systemd-bootx64.efi /usr/lib/systemd/boot/efi/linuxx64.efi.stub; do
	if [ -f "$f" ]; then
		cp "$f" "$w/pe-${f##*/}"
	else
		echo "skip tiano/pe-${f##*/}: $f not installed (apt-get install systemd-boot-efi)"
	fi
done
if [ -f /usr/share/OVMF/OVMF_CODE.fd ]; then
	head -c 524288 /usr/share/OVMF/OVMF_CODE.fd | tail -c 262144 > "$w/ovmf-slice"
else
	echo "skip tiano/ovmf-slice: /usr/share/OVMF/OVMF_CODE.fd not installed (apt-get install ovmf)"
fi

fail=0
for f in "$w"/*; do
	[ -f "$f" ] || continue
	name=${f##*/}
	for alg in efi tiano; do
		t="tiano-uefiextract/$name/$alg"
		x="$w/x-$name-$alg"
		mkdir -p "$x"
		if ! python3 "$MKFV" raw "$f" "$x/raw" ||
		   ! "$T" compress "$alg" "$x/raw" "$x/comp" 2>"$x/err" ||
		   ! python3 "$MKFV" fv "$x/comp" "$(stat -c %s "$x/raw")" "$x/img.fd"; then
			echo "not ok $t (building the image: $(head -c 200 "$x/err"))"
			fail=1; continue
		fi
		(cd "$x" && UEFIExtract img.fd all >uefiextract.log 2>&1)
		info=$(find "$x/img.fd.dump" -path '*Compressed section/info.txt' | head -1)
		body=$(find "$x/img.fd.dump" -path '*Compressed section/0 Raw section/body.bin' | head -1)
		want="EFI 1.1"; [ $alg = tiano ] && want="Tiano"
		got=$(sed -n 's/^Compression algorithm: //p' "$info" 2>/dev/null | tr -d '\r')
		if [ -z "$info" ] || [ -z "$body" ]; then
			echo "not ok $t (UEFIExtract did not unpack the section)"
			sed 's/^/# /' "$x/uefiextract.log" | head -5
			fail=1
		elif [ "$got" != "$want" ]; then
			echo "not ok $t (UEFIExtract detected '$got', expected '$want')"
			fail=1
		elif ! cmp -s "$body" "$f"; then
			echo "not ok $t (UEFIExtract output differs from the input)"
			fail=1
		else
			echo "ok $t ($(stat -c %s "$f") -> $(stat -c %s "$x/comp") bytes)"
		fi
		# our decoder: explicit algorithm and auto-detection
		t="tiano-self/$name/$alg"
		det=$("$T" decompress any "$x/comp" "$x/any" 2>&1)
		if ! "$T" decompress "$alg" "$x/comp" "$x/dec" 2>"$x/err"; then
			echo "not ok $t (decompress: $(head -c 200 "$x/err"))"; fail=1
		elif ! cmp -s "$x/dec" "$x/raw" || ! cmp -s "$x/any" "$x/raw"; then
			echo "not ok $t (round trip differs)"; fail=1
		elif [ "$det" != "$alg" ]; then
			echo "not ok $t (auto-detected '$det')"; fail=1
		else
			echo "ok $t"
		fi
		rm -rf "$x"
	done
done
exit $fail
