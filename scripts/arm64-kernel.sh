#!/bin/sh
# Debian's own arm64 kernel (linux-image-*-arm64: vmlinuz is an uncompressed
# arm64 Image with the EFI stub), the firmware kernel of the arm64 ROM until
# lboot has its own arm64 config (issue 27 step 4). Fetched with `apt-get
# download` through a PRIVATE apt state (scripts/arm64-apt.sh), unpacked
# with `dpkg-deb -x` and cached by the hash of the recipe in
# LBOOT_CACHE: $cache/arm64-kernel-HASH/{Image,config,package.txt}.
#   scripts/arm64-kernel.sh      prints the cached directory
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cache.sh"
. "$here/arm64-apt.sh"
lboot_cache arm64-kernel
# bump when a change here changes what is made from the same package
recipe_version=1
META=linux-image-arm64:arm64
hash=$(printf '%s\n' "$META" "$recipe_version" | sha256sum | cut -c1-16)
dir=$cache/arm64-kernel-$hash
if [ ! -f "$dir/Image" ]; then
	work=$cache/arm64-kernel-build-$$
	trap 'rm -rf "$work"' EXIT
	arm64_apt_update "$work"
	# the metapackage names the versioned image package
	pkg=$(arm64_apt "$work" apt-cache depends "$META" | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-arm64\).*/\1/p' | head -n1)
	[ -n "$pkg" ] || { echo "arm64-kernel: $META names no linux-image package" >&2; exit 1; }
	arm64_apt_unpack "$work" "$pkg:arm64" > "$work/package.txt"
	img=$(ls "$work"/root/boot/vmlinuz-*-arm64 | head -n1)
	cfg=$(ls "$work"/root/boot/config-*-arm64 | head -n1)
	[ -f "$img" ] && [ -f "$cfg" ] || { echo "arm64-kernel: no vmlinuz/config in $pkg" >&2; exit 1; }
	# an arm64 Image: "ARM\x64" at 56
	[ "$(dd if="$img" bs=1 skip=56 count=4 2>/dev/null | od -An -tx1 | tr -d ' ')" = 41524d64 ] ||
		{ echo "arm64-kernel: $img is not an uncompressed arm64 Image" >&2; exit 1; }
	rm -rf "$dir"; mkdir -p "$dir"
	cp "$img" "$dir/Image.tmp"; cp "$cfg" "$dir/config"; mv "$work/package.txt" "$dir/"
	mv "$dir/Image.tmp" "$dir/Image"
	echo "arm64-kernel: $(cat "$dir/package.txt") in $dir" >&2
fi
echo "$dir"
