#!/bin/sh
# Regenerates the signature fixtures of tests/unit/test_sig.c with Debian's
# minisign 0.11 and signify-openbsd 31 (run once; the outputs are committed,
# the secret keys are not). Run from this directory: sh gen.sh
set -e
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'lboot signed message\nsecond line\n' > msg.txt
printf 'another file\n' > other.txt
: > empty.txt
minisign -G -W -f -p mkey.pub -s "$tmp/mkey.key" >/dev/null
minisign -G -W -f -p okey.pub -s "$tmp/okey.key" >/dev/null
minisign -S -s "$tmp/mkey.key" -m msg.txt -x msg.txt.minisig -t 'lboot test: msg.txt' >/dev/null
minisign -S -l -s "$tmp/mkey.key" -m msg.txt -x msg.txt.legacy.minisig -t 'lboot legacy' >/dev/null
minisign -S -s "$tmp/okey.key" -m msg.txt -x msg.txt.okey.minisig >/dev/null
minisign -S -s "$tmp/mkey.key" -m empty.txt -x empty.txt.minisig >/dev/null
minisign -S -s "$tmp/mkey.key" -m other.txt -x other.txt.minisig >/dev/null
signify-openbsd -G -n -p skey.pub -s "$tmp/skey.sec" -c 'lboot test signify key'
signify-openbsd -S -s "$tmp/skey.sec" -m msg.txt -x msg.txt.sig
# every one verifies with the tool that made it
minisign -Vq -p mkey.pub -m msg.txt
minisign -Vq -p mkey.pub -m msg.txt -x msg.txt.legacy.minisig
minisign -Vq -p okey.pub -m msg.txt -x msg.txt.okey.minisig
minisign -Vq -p mkey.pub -m empty.txt
signify-openbsd -V -q -p skey.pub -m msg.txt -x msg.txt.sig
