#!/bin/sh
# GRUB's arm64-efi modules (Debian's grub-efi-arm64-bin, the arm64
# package), for the stock AAVMF + GRUB case of bench/arm64-boot.sh: the
# host's grub-mkstandalone (grub-common) builds an arm64 GRUB image from
# them (`-O arm64-efi -d DIR`). Fetched with `apt-get download` through the
# private apt state of scripts/arm64-apt.sh, unpacked with `dpkg-deb -x` and
# cached by the hash of the recipe in LBOOT_CACHE:
# $cache/arm64-grub-HASH/{arm64-efi/,package.txt}.
#   scripts/arm64-grub.sh      prints the cached directory
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cache.sh"
. "$here/arm64-apt.sh"
lboot_cache arm64-grub
# bump when a change here changes what is made from the same package
recipe_version=1
PKG=grub-efi-arm64-bin:arm64
hash=$(printf '%s\n' "$PKG" "$recipe_version" | sha256sum | cut -c1-16)
dir=$cache/arm64-grub-$hash
if [ ! -f "$dir/arm64-efi/linux.mod" ]; then
	work=$cache/arm64-grub-build-$$
	trap 'rm -rf "$work"' EXIT
	arm64_apt_update "$work"
	arm64_apt_unpack "$work" "$PKG" > "$work/package.txt"
	[ -f "$work/root/usr/lib/grub/arm64-efi/linux.mod" ] ||
		{ echo "arm64-grub: no usr/lib/grub/arm64-efi/linux.mod in $PKG" >&2; exit 1; }
	rm -rf "$dir"; mkdir -p "$dir"
	mv "$work/package.txt" "$dir/"
	cp -r "$work/root/usr/lib/grub/arm64-efi" "$dir/arm64-efi.tmp"
	mv "$dir/arm64-efi.tmp" "$dir/arm64-efi"
	echo "arm64-grub: $(cat "$dir/package.txt") in $dir" >&2
fi
echo "$dir"
