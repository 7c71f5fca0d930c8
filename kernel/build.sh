#!/bin/sh
# Build the lboot firmware kernel from Debian's linux-source-6.1.
#   kernel/build.sh OUT_BZIMAGE
# The result is cached by the hash of the config fragment, the script's
# build_version and the source tarball, outside the work tree (LBOOT_CACHE, default
# /var/cache/lboot, or ~/.cache/lboot when that is not writable), so a
# rebuild is instant.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: kernel/build.sh OUT_BZIMAGE}
case $out in /*) ;; *) out=$PWD/$out ;; esac
src=/usr/src/linux-source-6.1.tar.xz
[ -f "$src" ] || { echo "kernel: $src missing (apt-get install linux-source-6.1)" >&2; exit 1; }
. "$here/../scripts/cache.sh"
lboot_cache kernel
# bump when a change here changes the bzImage built from the same config
build_version=1
# the options only: a comment or blank line changes no bzImage, so no rebuild
hash=$( (grep -v -e '^#' -e '^[[:space:]]*$' "$here/lboot.config"; echo "$build_version"; ls -l --time-style=+%s "$src") | sha256sum | cut -c1-16)
dir=$cache/kernel-$hash
if [ -f "$dir/bzImage" ]; then
  cp "$dir/bzImage" "$out.tmp"; mv "$out.tmp" "$out"
  echo "kernel: cached $dir/bzImage"
  exit 0
fi
work=$cache/kernel-build-$$
rm -rf "$work"; mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
echo "kernel: unpacking linux-source-6.1 into $work" >&2
tar -xf "$src" -C "$work"
ksrc=$(echo "$work"/linux-source-6.1)
cd "$ksrc"
make -s tinyconfig >/dev/null
scripts/kconfig/merge_config.sh -m .config "$here/lboot.config" >/dev/null
make -s olddefconfig >/dev/null
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
done < "$here/lboot.config"
[ $bad = 0 ] || exit 1
echo "kernel: building bzImage with $(nproc) jobs (about 6 minutes)" >&2
make -s -j"$(nproc)" bzImage
mkdir -p "$dir"
cp .config "$dir/config"
# what each subsystem costs (text+data+bss of its built-in objects, before
# compression): kernel/sizes.txt in the cache, to see what an option costs
for d in arch/x86 kernel mm fs fs/ext4 fs/xfs fs/btrfs fs/fat fs/isofs fs/pstore \
	fs/efivarfs net net/ipv4 net/ipv6 net/8021q drivers drivers/ata drivers/scsi \
	drivers/message/fusion drivers/md drivers/nvme drivers/usb drivers/net \
	drivers/net/ethernet/realtek drivers/net/ethernet/intel drivers/net/phy \
	drivers/watchdog drivers/char/tpm drivers/firmware/efi drivers/gpu drivers/video \
	crypto lib lib/zstd lib/raid6 block; do
	[ -f "$d/built-in.a" ] || continue
	printf '%s %s\n' "$(size -t "$d/built-in.a" 2>/dev/null | awk 'END{print $4}')" "$d"
done > "$dir/sizes.txt" || true
cp arch/x86/boot/bzImage "$dir/bzImage.tmp" && mv "$dir/bzImage.tmp" "$dir/bzImage"
cp "$dir/bzImage" "$out.tmp"; mv "$out.tmp" "$out"
echo "kernel: built $dir/bzImage ($(stat -c %s "$dir/bzImage") bytes)"
