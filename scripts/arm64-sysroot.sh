#!/bin/sh
# The arm64 sysroot of lboot's static aarch64 target: Debian's arm64 musl
# (musl-dev:arm64, Multi-Arch: same) and the static libraries the target
# links (libsodium-dev:arm64, libbearssl-dev:arm64; zlib1g-dev:arm64 for
# gzip'd kernels and EFI zboot images, kimage_arm64.c), fetched with
# `apt-get download` through a PRIVATE apt state (its own lists and cache,
# the architectures amd64 and arm64, the system's own /etc/apt sources) and
# unpacked with `dpkg-deb -x`: nothing is installed, the system's dpkg
# architectures and /etc/apt are left alone. Debian has no cross musl
# package; a copy of Debian's musl-gcc specs points at this musl.
#   scripts/arm64-sysroot.sh OUT_WRAPPER     (e.g. build/arm64/musl-gcc)
# writes OUT_WRAPPER, a musl-gcc for aarch64 (aarch64-linux-gnu-gcc with
# the sysroot's specs), and beside it `sysroot`, a symbolic link to the
# unpacked packages (usr/include, usr/lib/aarch64-linux-gnu/*.a), and prints
# the sysroot's path. The sysroot is cached
# by the hash of the recipe (the package list and recipe_version below) in
# LBOOT_CACHE (scripts/cache.sh): $cache/arm64-sysroot-HASH/{root,musl-gcc.specs,
# packages.txt}; a second call only writes the wrapper.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: scripts/arm64-sysroot.sh OUT_WRAPPER}
case $out in /*) ;; *) out=$PWD/$out ;; esac
command -v aarch64-linux-gnu-gcc >/dev/null ||
	{ echo "arm64-sysroot: aarch64-linux-gnu-gcc missing (scripts/deps.sh installs gcc-aarch64-linux-gnu)" >&2; exit 1; }
. "$here/cache.sh"
. "$here/arm64-apt.sh"
lboot_cache arm64-sysroot
# bump when a change here changes the sysroot made from the same packages
recipe_version=1
PKGS="musl-dev:arm64 libsodium-dev:arm64 libbearssl-dev:arm64 zlib1g-dev:arm64"
hash=$(printf '%s\n' "$PKGS" "$recipe_version" | sha256sum | cut -c1-16)
dir=$cache/arm64-sysroot-$hash
if [ ! -f "$dir/musl-gcc.specs" ]; then
	work=$cache/arm64-sysroot-build-$$
	trap 'rm -rf "$work"' EXIT
	arm64_apt_update "$work"
	arm64_apt_unpack "$work" $PKGS > "$work/packages.txt"
	r=$work/root/usr
	for f in include/aarch64-linux-musl/stdio.h lib/aarch64-linux-musl/libc.a \
		lib/aarch64-linux-gnu/libsodium.a lib/aarch64-linux-gnu/libbearssl.a \
		include/sodium.h include/bearssl.h; do
		[ -f "$r/$f" ] || { echo "arm64-sysroot: $f missing from the packages" >&2; exit 1; }
	done
	# Debian's musl-gcc specs (musl-tools), pointed at the arm64 musl in $dir
	spec=/usr/lib/x86_64-linux-musl/musl-gcc.specs
	[ -f "$spec" ] || { echo "arm64-sysroot: $spec missing (musl-tools)" >&2; exit 1; }
	sed -e "s|/usr/include/x86_64-linux-musl|$dir/root/usr/include/aarch64-linux-musl|g" \
		-e "s|/usr/lib/x86_64-linux-musl|$dir/root/usr/lib/aarch64-linux-musl|g" \
		-e "s|ld-musl-x86_64|ld-musl-aarch64|g" "$spec" > "$work/musl-gcc.specs"
	! grep -q x86_64 "$work/musl-gcc.specs" ||
		{ echo "arm64-sysroot: x86_64 left in the specs" >&2; exit 1; }
	# the paths inside the specs name $dir: move the tree there first
	rm -rf "$dir"; mkdir -p "$dir"
	mv "$work/root" "$work/packages.txt" "$dir/"
	mv "$work/musl-gcc.specs" "$dir/musl-gcc.specs"
	echo "arm64-sysroot: unpacked into $dir:" >&2
	sed 's/^/  /' "$dir/packages.txt" >&2
fi
mkdir -p "$(dirname "$out")"
cat > "$out.tmp" <<EOF
#!/bin/sh
# written by scripts/arm64-sysroot.sh: musl-gcc for aarch64 (Debian's arm64 musl)
exec "\${REALGCC:-aarch64-linux-gnu-gcc}" "\$@" -specs "$dir/musl-gcc.specs"
EOF
chmod +x "$out.tmp"
# unchanged: left alone (its time is what make compares)
if cmp -s "$out.tmp" "$out"; then rm -f "$out.tmp"; else mv "$out.tmp" "$out"; fi
ln -sfn "$dir/root" "$(dirname "$out")/sysroot"
echo "$dir"
