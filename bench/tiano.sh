#!/bin/bash
# EFI 1.1 / Tiano throughput and ratio (figures only, never asserted).
# Builds an optimised (-O2, no sanitizers) copy of tests/host/tianotool.c
# against src/uefi/tiano.c and times compress/decompress on a few inputs.
cd "$(dirname "$0")/.." || exit 1
w=$(mktemp -d) || exit 1
trap 'rm -rf "$w"' EXIT
${CC:-gcc} -std=gnu11 -D_GNU_SOURCE -O2 -Isrc/lib -o "$w/tool" tests/host/tianotool.c src/uefi/tiano.c || exit 1

python3 - "$w" <<'PY'
import random, sys, os
d = sys.argv[1]; r = random.Random(1)
open(os.path.join(d, "random-4M"), "wb").write(r.randbytes(4 << 20))
words = [b"firmware", b"volume", b"section", b"EFI", b"Tiano", b"the", b"of", b"\n"]
open(os.path.join(d, "text-4M"), "wb").write(b" ".join(r.choice(words) for _ in range(700000))[:4 << 20])
PY
src=$(ls /usr/lib/systemd/boot/efi/*.efi* 2>/dev/null | head -2)
[ -n "$src" ] && cat $src $src $src $src > "$w/pe-x4"
[ -f /usr/share/OVMF/OVMF_CODE.fd ] && head -c 4194304 /usr/share/OVMF/OVMF_CODE.fd > "$w/ovmf-4M"
cat src/*/*.c 2>/dev/null | head -c 4194304 > "$w/csource"

now() { date +%s.%N; }
printf '%-10s %-6s %10s %10s %7s %9s %9s\n' input alg bytes comp ratio 'comp MB/s' 'dec MB/s'
for f in "$w"/random-4M "$w"/text-4M "$w"/pe-x4 "$w"/ovmf-4M "$w"/csource; do
	[ -s "$f" ] || continue
	n=$(stat -c %s "$f")
	for alg in efi tiano; do
		t0=$(now); "$w/tool" compress $alg "$f" "$w/c" || exit 1; t1=$(now)
		"$w/tool" decompress $alg "$w/c" "$w/d" || exit 1; t2=$(now)
		cmp -s "$f" "$w/d" || { echo "round trip mismatch: $f $alg"; exit 1; }
		c=$(stat -c %s "$w/c")
		awk -v f="${f##*/}" -v a=$alg -v n=$n -v c=$c -v t0=$t0 -v t1=$t1 -v t2=$t2 'BEGIN {
			printf "%-10s %-6s %10d %10d %6.1f%% %9.1f %9.1f\n", f, a, n, c, 100*c/n,
				n/1e6/(t1-t0), n/1e6/(t2-t1) }'
	done
done
