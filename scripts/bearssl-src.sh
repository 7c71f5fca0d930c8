#!/bin/sh
# Debian's BearSSL source (the bearssl source package), for the parts of it
# the firmware drivers compile freestanding (lbootdxe's SHA-256: the payload
# slots' digest, docs/firmware-update.md). lboot-target links Debian's
# libbearssl.a; a UEFI driver cannot (it is built for Linux user space with
# the stack protector), so the same library's sources are built with the
# driver's flags instead. No crypto of our own.
#   scripts/bearssl-src.sh DIR    DIR/src, DIR/inc: BearSSL's tree
# Cached by the package's version (LBOOT_CACHE, scripts/cache.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: scripts/bearssl-src.sh DIR}
. "$here/cache.sh"
lboot_cache bearssl-src
. "$here/debsrc.sh"
debsrc_init
version=$(debsrc_version bearssl)
[ -n "$version" ] || { echo "bearssl-src: no bearssl source package in $(cat "$debsrc/sources.list")" >&2; exit 1; }
dir=$cache/bearssl-src-$version
if ! [ -f "$dir/inc/bearssl.h" ]; then
	work=$cache/bearssl-src-build-$$
	rm -rf "$work"; mkdir -p "$work"
	trap 'rm -rf "$work"' EXIT
	echo "bearssl-src: fetching Debian's bearssl $version source" >&2
	debsrc_get bearssl "$work"
	t=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'bearssl-*' | head -n1)
	[ -f "$t/inc/bearssl.h" ] && [ -f "$t/src/hash/sha2small.c" ] || {
		echo "bearssl-src: $version: no BearSSL tree in the source package" >&2; exit 1; }
	rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
	cp -a "$t/src" "$t/inc" "$dir.tmp/"
	echo "$version" >"$dir.tmp/VERSION"
	rm -rf "$dir"; mv "$dir.tmp" "$dir"
fi
rm -rf "$out"; mkdir -p "$(dirname "$out")"
cp -a "$dir" "$out"
echo "bearssl-src: $version in $out"
