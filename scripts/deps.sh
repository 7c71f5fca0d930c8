#!/bin/sh
# Install every Debian package lboot needs to build, run and test.
# Idempotent: does nothing when all are present. Run as root.
set -e
PKGS="build-essential make gcc musl-tools liblzma-dev zlib1g-dev xz-utils gzip cpio
 linux-source-6.1 flex bison bc libelf-dev libssl-dev
 qemu-system-x86 qemu-utils ovmf
 linux-image-amd64 busybox-static kexec-tools
 e2fsprogs dosfstools mtools fdisk gdisk
 gnu-efi binutils uefitool-cli
 clang libclang-rt-14-dev
 grub-efi-amd64-bin grub-common systemd-boot-efi systemd-boot sbsigntool
 debian-installer-12-netboot-amd64 python3 hyperfine time xorriso
 libsodium-dev libbearssl-dev minisign signify-openbsd shim-unsigned pesign osslsigncode
 atftpd dnsmasq-base nginx-light libnginx-mod-http-echo
 swtpm swtpm-tools tpm2-tools openssl xxd
 oathtool zbar-tools
 ipxe-qemu pxelinux syslinux-common nbdkit nbdkit-plugin-dev
 xfsprogs btrfs-progs mdadm lvm2"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing
