#!/bin/sh
# Install every Debian package lboot needs to build, run and test.
# Idempotent: does nothing when all are present. Run as root.
set -e
PKGS="build-essential make gcc musl-tools liblzma-dev zlib1g-dev xz-utils gzip cpio
 linux-source-6.1 flex bison bc libelf-dev libssl-dev
 qemu-system-x86 qemu-utils ovmf
 linux-image-amd64 busybox-static kexec-tools mtd-utils
 e2fsprogs dosfstools mtools fdisk gdisk
 gnu-efi binutils uefitool-cli coreboot-utils lz4 acpica-tools lib32gcc-12-dev dpkg-dev
 clang libclang-rt-14-dev
 grub-efi-amd64-bin grub-common systemd-boot-efi systemd-boot sbsigntool
 debian-installer-12-netboot-amd64 python3 hyperfine time xorriso
 libsodium-dev libbearssl-dev minisign signify-openbsd shim-unsigned pesign osslsigncode
 atftpd dnsmasq-base nginx-light libnginx-mod-http-echo
 swtpm swtpm-tools tpm2-tools openssl xxd
 oathtool zbar-tools
 ipxe-qemu pxelinux syslinux-common nbdkit nbdkit-plugin-dev
 xfsprogs btrfs-progs mdadm lvm2 mmdebstrap
 libcap2 libedit2 libgnutls30 libnettle8 libseccomp2
 gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-system-arm qemu-efi-aarch64
 qemu-user-static"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
  echo "deps: installing:$missing" >&2
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing
fi
# chronyd, the NTP server of tests/host/ntp.sh and tests/e2e/netboot-ntp.sh
# (run by them with -x: it never sets the clock), is unpacked from Debian's
# chrony package into the cache, not installed: installing chrony removes
# systemd-timesyncd (they conflict) and would make a test tool the machine's
# time daemon. Its libraries are in PKGS. scripts/chronyd finds either copy.
cache=${LBOOT_CACHE:-/var/cache/lboot}
if ! command -v chronyd >/dev/null 2>&1 && [ ! -x "$cache/chrony/usr/sbin/chronyd" ]; then
  echo "deps: unpacking chrony's chronyd into $cache/chrony (not installed)" >&2
  mkdir -p "$cache/chrony.tmp"
  chown _apt "$cache/chrony.tmp" 2>/dev/null || true  # apt-get download fetches as _apt
  [ -n "$missing" ] || apt-get update -qq
  (cd "$cache/chrony.tmp" && apt-get download -qq chrony && dpkg-deb -x chrony_*.deb root)
  rm -rf "$cache/chrony"
  mv "$cache/chrony.tmp/root" "$cache/chrony"
  rm -rf "$cache/chrony.tmp"
fi
# arm64 (docs/arm64.md): Debian's arm64 musl and crypto archives for the
# static aarch64 target, fetched through a private apt state and unpacked
# into the cache (never installed, no dpkg architecture added); make does
# the same on demand, this fills the cache while the network is at hand.
here=$(cd "$(dirname "$0")" && pwd)
LBOOT_CACHE=$cache sh "$here/arm64-sysroot.sh" "$here/../build/arm64/musl-gcc" >/dev/null ||
  echo "deps: the arm64 sysroot could not be fetched: only the arm64 builds and tests will fail" >&2
# the arm64 ROM's firmware kernel for now: Debian's arm64 Image, the same way
LBOOT_CACHE=$cache sh "$here/arm64-kernel.sh" >/dev/null ||
  echo "deps: Debian's arm64 kernel could not be fetched: only the arm64 ROM and its tests will fail" >&2
exit 0
