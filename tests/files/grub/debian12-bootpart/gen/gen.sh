#!/bin/sh
# run inside unshare -m: fake /boot and /dev/disk/by-uuid, then grub-mkconfig
set -e
mount --make-rprivate /
mount --bind /tmp/gmk2/boot /boot
mount --rbind /dev /tmp/gmk2/realdev
mount -t tmpfs tmpfs /dev
for f in null zero urandom random; do touch /dev/$f; mount --bind /tmp/gmk2/realdev/$f /dev/$f; done
touch /dev/vda2
mkdir -p /dev/disk/by-uuid
touch /dev/vda3; ln -s ../../vda3 /dev/disk/by-uuid/9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a; ln -s ../../vda2 /dev/disk/by-uuid/4b2d6f8a-0c1e-4a3b-8d5f-7e9a1b3c5d7f
mount -t tmpfs tmpfs /sys/firmware && mkdir -p /sys/firmware/efi/efivars && printf "\007\000\000\000\001\000\000\000\000\000\000\000" > /sys/firmware/efi/efivars/OsIndicationsSupported-8be4df61-93ca-11d2-aa0d-00e098032b8c
export PATH=/tmp/gmk2/bin:$PATH grub_probe=/tmp/gmk2/bin/grub-probe grub_mkrelpath=/tmp/gmk2/bin/grub-mkrelpath
/tmp/gmk2/bin/grub-mkconfig -o /tmp/gmk2/grub.cfg
