#!/bin/sh
# Build the lboot firmware kernel from Debian's linux-source-6.1.
#   kernel/build.sh OUT_BZIMAGE                 x86_64: kernel/lboot.config
#   kernel/build.sh --arch arm64 OUT_IMAGE      arm64: kernel/arm64.config,
#       cross-built with Debian's gcc-aarch64-linux-gnu, the uncompressed Image
# The result is cached by the hash of the config fragment, the script's
# build_version and the source tarball, outside the work tree (LBOOT_CACHE, default
# /var/cache/lboot, or ~/.cache/lboot when that is not writable), so a
# rebuild is instant.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
arch=x86_64
if [ "${1:-}" = --arch ]; then arch=${2:?usage: kernel/build.sh [--arch x86_64|arm64] OUT}; shift 2; fi
case $arch in
x86_64) frag=$here/lboot.config; kname=kernel; kmake=; ktarget=bzImage; kout=arch/x86/boot/bzImage ;;
arm64)  frag=$here/arm64.config; kname=kernel-arm64; ktarget=Image; kout=arch/arm64/boot/Image
	kmake="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		{ echo "kernel: aarch64-linux-gnu-gcc missing (apt-get install gcc-aarch64-linux-gnu)" >&2; exit 1; } ;;
*) echo "kernel: no such architecture: $arch (x86_64, arm64)" >&2; exit 2 ;;
esac
out=${1:?usage: kernel/build.sh [--arch x86_64|arm64] OUT}
case $out in /*) ;; *) out=$PWD/$out ;; esac
src=/usr/src/linux-source-6.1.tar.xz
[ -f "$src" ] || { echo "kernel: $src missing (apt-get install linux-source-6.1)" >&2; exit 1; }
. "$here/../scripts/cache.sh"
lboot_cache "$kname"
# bump when a change here changes the bzImage built from the same config
build_version=1
# the options only: a comment or blank line changes no bzImage, so no rebuild
hash=$( (grep -v -e '^#' -e '^[[:space:]]*$' "$frag"; echo "$build_version"; ls -l --time-style=+%s "$src") | sha256sum | cut -c1-16)
dir=$cache/$kname-$hash
if [ -f "$dir/$ktarget" ]; then
  cp "$dir/$ktarget" "$out.tmp"; mv "$out.tmp" "$out"
  echo "kernel: cached $dir/$ktarget"
  exit 0
fi
work=$cache/$kname-build-$$
rm -rf "$work"; mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
echo "kernel: unpacking linux-source-6.1 into $work" >&2
tar -xf "$src" -C "$work"
ksrc=$(echo "$work"/linux-source-6.1)
cd "$ksrc"
# shellcheck disable=SC2086 # kmake is the architecture's make variables
make -s $kmake tinyconfig >/dev/null
env $kmake scripts/kconfig/merge_config.sh -m .config "$frag" >/dev/null
make -s $kmake olddefconfig >/dev/null
# every option asked for must be in the merged config
bad=0
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue;; esac
  opt=${line%%=*}; val=${line#*=}
  if [ "$val" = n ]; then
    grep -q "^$opt=" .config && { echo "kernel: $opt should be off" >&2; bad=1; }
  else
    grep -qx "$line" .config || { echo "kernel: $line missing from merged config" >&2; bad=1; }
  fi
done < "$frag"
[ $bad = 0 ] || exit 1
echo "kernel: building $arch $ktarget with $(nproc) jobs (about 6 minutes)" >&2
make -s $kmake -j"$(nproc)" $ktarget
mkdir -p "$dir"
cp .config "$dir/config"
# what each subsystem costs (text+data+bss of its built-in objects, before
# compression): kernel/sizes.txt in the cache, to see what an option costs
for d in arch/x86 arch/arm64 kernel mm fs fs/ext4 fs/xfs fs/btrfs fs/fat fs/isofs fs/pstore \
	fs/efivarfs net net/ipv4 net/ipv6 net/8021q drivers drivers/ata drivers/scsi \
	drivers/message/fusion drivers/md drivers/nvme drivers/usb drivers/net \
	drivers/net/ethernet/realtek drivers/net/ethernet/intel drivers/net/phy \
	drivers/watchdog drivers/char/tpm drivers/firmware/efi drivers/gpu drivers/video \
	crypto lib lib/zstd lib/raid6 block; do
	[ -f "$d/built-in.a" ] || continue
	printf '%s %s\n' "$(size -t "$d/built-in.a" 2>/dev/null | awk 'END{print $4}')" "$d"
done > "$dir/sizes.txt" || true
cp "$kout" "$dir/$ktarget.tmp" && mv "$dir/$ktarget.tmp" "$dir/$ktarget"
cp "$dir/$ktarget" "$out.tmp"; mv "$out.tmp" "$out"
echo "kernel: built $dir/$ktarget ($(stat -c %s "$dir/$ktarget") bytes)"
