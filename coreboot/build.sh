#!/bin/sh
# Build coreboot for QEMU q35 from Debian's coreboot source package, with no
# payload (out/lboot-coreboot.rom adds lboot's kernel and initramfs to a copy).
#   coreboot/build.sh OUT_ROM
# The source comes through a private apt state (a deb-src list made from
# the system's own Debian sources; /etc/apt is not changed), or from
# COREBOOT_SRC=DIR (a tree the user brings). The ROM is cached by the hash
# of the config fragment, this script's build_version and the source's
# version, outside the work tree (LBOOT_CACHE, as kernel/build.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: coreboot/build.sh OUT_ROM}
case $out in /*) ;; *) out=$PWD/$out ;; esac
. "$here/../scripts/cache.sh"
lboot_cache coreboot
build_version=2
. "$here/../scripts/debsrc.sh"
if [ -n "${COREBOOT_SRC:-}" ]; then
	[ -f "$COREBOOT_SRC/Makefile" ] && [ -d "$COREBOOT_SRC/src/mainboard/emulation/qemu-q35" ] || {
		echo "coreboot: COREBOOT_SRC=$COREBOOT_SRC is not a coreboot tree" >&2; exit 1; }
	version="dir:$(cd "$COREBOOT_SRC" && pwd):$(git -C "$COREBOOT_SRC" describe --always --dirty 2>/dev/null || stat -c %Y "$COREBOOT_SRC/Makefile")"
else
	debsrc_init
	version=$(debsrc_version coreboot)
	[ -n "$version" ] || { echo "coreboot: no coreboot source package in $(cat "$debsrc/sources.list")" >&2; exit 1; }
fi
hash=$( (grep -v -e '^#' -e '^[[:space:]]*$' "$here/q35.config"; cat "$here/q35-cmos.layout" "$here/q35-cmos.default"
	echo "$build_version"; echo "$version") | sha256sum | cut -c1-16)
dir=$cache/coreboot-$hash
if [ -f "$dir/coreboot.rom" ]; then
	cp "$dir/coreboot.rom" "$out.tmp"; mv "$out.tmp" "$out"
	echo "coreboot: cached $dir/coreboot.rom ($version)"
	exit 0
fi
work=$cache/coreboot-build-$$
rm -rf "$work"; mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
if [ -n "${COREBOOT_SRC:-}" ]; then
	echo "coreboot: copying $COREBOOT_SRC" >&2
	cp -a "$COREBOOT_SRC" "$work/src"
else
	echo "coreboot: fetching Debian's coreboot $version source" >&2
	debsrc_get coreboot "$work"
	mv "$work"/coreboot-*/ "$work/src"
fi
cd "$work/src"
# the CMOS option table with lboot's boot state in it (docs/coreboot.md)
cp "$here/q35-cmos.layout" src/mainboard/emulation/qemu-q35/cmos.layout
cp "$here/q35-cmos.default" src/mainboard/emulation/qemu-q35/cmos.default
cp "$here/q35.config" defconfig.lboot
make -s defconfig KBUILD_DEFCONFIG=defconfig.lboot >/dev/null
# every option asked for must be in the merged config
bad=0
while IFS= read -r line; do
	case "$line" in ''|'#'*) continue;; esac
	grep -qx "$line" .config || { echo "coreboot: $line missing from the merged config" >&2; bad=1; }
done < "$here/q35.config"
[ $bad = 0 ] || exit 1
echo "coreboot: building for QEMU q35 with $(nproc) jobs (about 1-2 minutes)" >&2
make -s -j"$(nproc)" CONFIG_WARNINGS_ARE_ERRORS=n >&2
mkdir -p "$dir"
cp .config "$dir/config"
cp build/coreboot.rom "$dir/coreboot.rom.tmp" && mv "$dir/coreboot.rom.tmp" "$dir/coreboot.rom"
cp "$dir/coreboot.rom" "$out.tmp"; mv "$out.tmp" "$out"
echo "coreboot: built $dir/coreboot.rom ($version)"
