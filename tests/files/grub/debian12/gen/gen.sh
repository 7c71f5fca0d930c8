#!/bin/sh
# run inside unshare -m: fake /boot and /dev/disk/by-uuid, then grub-mkconfig
set -e
mount --make-rprivate /
mount --bind /tmp/gmk/boot /boot
mount --rbind /dev /tmp/gmk/realdev
mount -t tmpfs tmpfs /dev
for f in null zero urandom random; do touch /dev/$f; mount --bind /tmp/gmk/realdev/$f /dev/$f; done
mkdir -p /dev/disk/by-uuid /dev/disk/by-partuuid
touch /dev/vda2
ln -s ../../vda2 /dev/disk/by-uuid/7a3c5b1e-2f4d-4c8a-9e6b-1d2f3a4b5c6d
ln -s ../../vda2 /dev/disk/by-partuuid/5e1c0d2a-8b7f-4e3d-a1c2-b3d4e5f60718
mount -t tmpfs tmpfs /sys/firmware && mkdir -p /sys/firmware/efi/efivars && printf "\007\000\000\000\001\000\000\000\000\000\000\000" > /sys/firmware/efi/efivars/OsIndicationsSupported-8be4df61-93ca-11d2-aa0d-00e098032b8c
export PATH=/tmp/gmk/bin:$PATH grub_probe=/tmp/gmk/bin/grub-probe grub_mkrelpath=/tmp/gmk/bin/grub-mkrelpath
/tmp/gmk/bin/grub-mkconfig -o /tmp/gmk/grub.cfg
