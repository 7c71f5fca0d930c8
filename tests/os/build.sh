#!/bin/bash
# Real installed Debian 12 systems as test fixtures (issue 24).
#   tests/os/build.sh LAYOUT      prints the path of the disk image
# LAYOUT: grub-lvm   GPT: ESP (vfat) at /boot/efi, /boot on ext4, root on
#                    LVM (VG lbdeb, LV root, ext4); GRUB from the image's own
#                    grub-efi-amd64 (grub-install --removable, update-grub)
#         sdboot     GPT: ESP (vfat) at /boot/efi, root on ext4; the image's
#                    own systemd-boot (bootctl install --no-variables: also
#                    EFI/BOOT/BOOTX64.EFI) and entries written by
#                    kernel-install (Debian's zz-systemd-boot hook), with
#                    D-Bus (logind: systemctl reboot --boot-loader-entry=)
#         luks-tpm   GPT: ESP (vfat) at /boot/efi, root on LUKS2 (ext4
#                    inside, opened as /dev/mapper/root; a passphrase in
#                    keyslot 0, the TPM2 seal is enrolled by the test with
#                    systemd-cryptenroll); systemd-boot and kernel-install
#                    as sdboot; the initramfs made by dracut (systemd in
#                    the initramfs: systemd-cryptsetup unlocks with a
#                    TPM2 token, which initramfs-tools' cryptroot in
#                    Debian 12 cannot), with tpm2-tools
#         btrfs-md   two disks, each GPT: an ESP (vfat; the first at
#                    /boot/efi, the second a copy, as admins keep one on
#                    each mirror) and a member of an MD RAID1 (mdadm,
#                    metadata 1.2, the Debian installer's default); on the
#                    array btrfs with subvolumes @ (root, /boot a directory
#                    in it, as Ubuntu lays it out) and @home (/home); GRUB
#                    as grub-lvm (its grub.cfg at /@/boot/grub/grub.cfg,
#                    rootflags=subvol=@). Prints the first disk's path; the
#                    second is disk2.img beside it
# The system is made with mmdebstrap from Debian's archive (the machine's own
# apt sources), with systemd, linux-image-amd64, initramfs-tools and what the
# layout needs. It is then installed onto the disk by itself, as the Debian
# installer does: a QEMU machine boots the new system's own kernel and
# initramfs with the bootstrapped tree as its root and tests/os/install as
# its init, which partitions the second disk, makes the LVM volumes and
# filesystems (with the guest kernel's device-mapper: this machine's kernel
# may have none), copies the system over and runs the OS's own tools in it
# (update-initramfs, grub-install, update-grub).
# A fixture unit (lboot-report.service) prints what the OS sees on the
# serial console once the system is up ("OS-REPORT: ..." lines, then
# "OS-REPORT: done") and powers off.
# Cached outside the tree (LBOOT_CACHE, default /var/cache/lboot) by the hash
# of the recipe (this script, the installer, the fixture's files): a second
# call only prints the path. Boot the image with QEMU's snapshot=on: the
# cached file is never written by a test.
set -euo pipefail
# stdout is the image's path alone: everything else (mkfs, mmdebstrap, the
# tools' chatter) goes to stderr
exec 3>&1 1>&2
query=
[ "${1:-}" != --cached ] || { query=1; shift; }
layout=${1:?usage: tests/os/build.sh [--cached] grub-lvm|sdboot|luks-tpm|btrfs-md (--cached: exit 0 and print the path only when the image is built)}
here=$(cd "$(dirname "$0")" && pwd)
# grub-lvm, btrfs-md and sdboot share one bootstrap (one package list, one
# download): each then purges what its layout does not have ($purge), as an
# admin would; luks-tpm has its own (dracut conflicts with initramfs-tools)
shared=systemd-sysv,udev,kmod,fdisk,linux-image-amd64,initramfs-tools,e2fsprogs,dosfstools,lvm2,grub-efi-amd64,btrfs-progs,mdadm,systemd-boot,dbus,zstd
case $layout in
grub-lvm|btrfs-md) pkgs=$shared purge="systemd-boot dbus zstd" ;;
sdboot) pkgs=$shared purge="lvm2 grub-efi-amd64 btrfs-progs mdadm" ;;
luks-tpm) pkgs=systemd-sysv,udev,kmod,fdisk,linux-image-amd64,dracut,cryptsetup,tpm2-tools,e2fsprogs,dosfstools,systemd-boot,dbus,zstd purge= ;;
*) echo "os: unknown layout '$layout' (grub-lvm, sdboot, luks-tpm, btrfs-md)" >&2; exit 2 ;;
esac
. "$here/../../scripts/cache.sh"
# (a query takes a lock of its own: it must not wait for a build)
if [ -n "$query" ]; then lboot_cache os-query; else lboot_cache os; fi
build_version=1
hash=$( (cat "$0" "$here/install" "$here/lboot-report" "$here/lboot-report.service"
	echo "$layout $pkgs $purge $build_version") | sha256sum | cut -c1-16)
dir=$cache/os-$layout-$hash
if [ -f "$dir/disk.img" ]; then
	echo "$dir/disk.img" >&3
	exit 0
fi
[ -z "$query" ] || exit 1
[ "$(id -u)" = 0 ] || { echo "os: building $layout needs root (mmdebstrap, file ownership)" >&2; exit 1; }
for t in mmdebstrap mkfs.ext4 qemu-system-x86_64; do
	command -v $t >/dev/null || { echo "os: $t missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
sources=/etc/apt/sources.list.d/debian.sources
[ -f "$sources" ] || sources=/etc/apt/sources.list
work=$cache/os-build-$$
cleanup() {
	for m in sys proc dev/pts dev; do
		mountpoint -q "$work/root/$m" 2>/dev/null && umount "$work/root/$m"
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
rm -rf "$work"; mkdir -p "$work/root"
start=$SECONDS

# the bootstrap is a stage of its own, cached by its package list: a change
# in how the disk is laid out or configured does not fetch the packages again
roottar=$cache/os-root-$(echo "bookworm apt $pkgs" | sha256sum | cut -c1-16).tar
if [ ! -f "$roottar" ]; then
	# (dpkg under eatmydata, mmdebstrap's own hook: no fsync per file)
	echo "os: $layout: mmdebstrap bookworm (about 3 minutes)" >&2
	mmdebstrap --quiet --format=tar --variant=apt --hook-dir=/usr/share/mmdebstrap/hooks/eatmydata \
		--include="$pkgs" bookworm "$roottar.tmp" "$sources" >&2
	mv "$roottar.tmp" "$roottar"
fi
tar -xpf "$roottar" -C "$work/root" --numeric-owner --exclude=./dev
mkdir -p "$work/root/dev"
r=$work/root
# what the installed system keeps (the installer's own files are not copied)
echo lboot-fixture >"$r/etc/hostname"
echo 1b0c0ffee0000000000000000000f1a0 >"$r/etc/machine-id"
install -m 755 "$here/lboot-report" "$r/usr/local/sbin/lboot-report"
install -m 644 "$here/lboot-report.service" "$r/etc/systemd/system/lboot-report.service"
mkdir -p "$r/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/lboot-report.service "$r/etc/systemd/system/multi-user.target.wants/"
case $layout in
grub-lvm)
	cat >"$r/etc/fstab" <<EOT
/dev/mapper/lbdeb-root  /          ext4  errors=remount-ro  0 1
UUID=1b00b007-0000-4000-8000-00000000b007  /boot  ext4  defaults  0 2
UUID=1B00-71A0  /boot/efi  vfat  umask=0077  0 1
EOT
	sed -i -e 's/^GRUB_TIMEOUT=.*/GRUB_TIMEOUT=1/' \
		-e 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="console=ttyS0,115200"/' "$r/etc/default/grub"
	;;
sdboot)
	cat >"$r/etc/fstab" <<EOT
UUID=1b000008-0000-4000-8000-000000000008  /          ext4  errors=remount-ro  0 1
UUID=1B00-71B0  /boot/efi  vfat  umask=0077  0 1
EOT
	# the command line kernel-install writes into the entries (without
	# it, the installing machine's own /proc/cmdline)
	mkdir -p "$r/etc/kernel"
	echo "root=UUID=1b000008-0000-4000-8000-000000000008 ro console=ttyS0,115200 quiet" >"$r/etc/kernel/cmdline"
	;;
luks-tpm)
	# the LUKS2 container's UUID (tests/os/install formats it); the
	# initramfs opens it as "root" (systemd-cryptsetup-generator from
	# rd.luks.name=, with a TPM2 token when one is enrolled, else the
	# passphrase on the console); the system's crypttab says the same
	cat >"$r/etc/fstab" <<EOT
/dev/mapper/root  /          ext4  errors=remount-ro  0 1
UUID=1B00-71C0  /boot/efi  vfat  umask=0077  0 1
EOT
	echo "root UUID=1b00c0de-0000-4000-8000-00000000c0de none luks,tpm2-device=auto" >"$r/etc/crypttab"
	mkdir -p "$r/etc/kernel" "$r/etc/dracut.conf.d"
	echo "rd.luks.name=1b00c0de-0000-4000-8000-00000000c0de=root rd.luks.options=tpm2-device=auto root=/dev/mapper/root ro console=ttyS0,115200 quiet" >"$r/etc/kernel/cmdline"
	# a generic initramfs (no host-only: this host is not the machine),
	# with systemd, cryptsetup and the TPM2 stack
	cat >"$r/etc/dracut.conf.d/90-lboot-fixture.conf" <<EOT
hostonly="no"
add_dracutmodules+=" systemd crypt tpm2-tss "
compress="zstd"
EOT
	;;
btrfs-md)
	cat >"$r/etc/fstab" <<EOT
UUID=1b00b7f5-0000-4000-8000-00000000b7f5  /          btrfs  defaults,subvol=@      0 0
UUID=1b00b7f5-0000-4000-8000-00000000b7f5  /home      btrfs  defaults,subvol=@home  0 0
UUID=1B00-71D0  /boot/efi  vfat  umask=0077  0 1
EOT
	# the array as the installer records it (tests/os/install creates it
	# with this UUID): the initramfs's mdadm assembles it by this line
	cat >"$r/etc/mdadm/mdadm.conf" <<EOT
HOMEHOST <system>
MAILADDR root
ARRAY /dev/md/root metadata=1.2 UUID=1b00a4d1:00004000:80000000:0000a4d1 name=lboot-fixture:root
EOT
	sed -i -e 's/^GRUB_TIMEOUT=.*/GRUB_TIMEOUT=1/' \
		-e 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="console=ttyS0,115200"/' "$r/etc/default/grub"
	;;
esac
# the initramfs as the installer's last step makes it, with the system's
# fstab (root's fsck, LVM's tools: initramfs-tools' lvm2 hook); here, not in
# the installing machine, where mkinitramfs's thousands of processes take
# ten minutes under TCG
for m in dev dev/pts proc sys; do mkdir -p "$r/$m"; mount --bind "/$m" "$r/$m"; done
if [ -n "$purge" ]; then
	# (offline: apt removes; the initramfs is made once, below, not by
	# the removed packages' hooks)
	echo "os: $layout: apt-get purge $purge" >&2
	chroot "$r" dpkg-divert --quiet --local --rename --add /usr/sbin/update-initramfs
	ln -s /bin/true "$r/usr/sbin/update-initramfs"
	DEBIAN_FRONTEND=noninteractive chroot "$r" apt-get -y -q purge --autoremove $purge >"$work/purge.log" 2>&1 ||
		{ sed 's/^/os: | /' "$work/purge.log" >&2; exit 1; }
	rm "$r/usr/sbin/update-initramfs"
	chroot "$r" dpkg-divert --quiet --local --rename --remove /usr/sbin/update-initramfs
fi
echo "os: $layout: update-initramfs" >&2
case $layout in
luks-tpm)
	kver=$(ls "$r/lib/modules" | sort -V | tail -n1)
	chroot "$r" dracut --force "/boot/initrd.img-$kver" "$kver" >"$work/initramfs.log" 2>&1 ||
		{ sed 's/^/os: | /' "$work/initramfs.log" >&2; exit 1; }
	echo "os: $layout: dracut: $(stat -c %s "$r/boot/initrd.img-$kver") bytes" >&2
	;;
*)
	chroot "$r" update-initramfs -u -k all >"$work/initramfs.log" 2>&1 ||
		{ sed 's/^/os: | /' "$work/initramfs.log" >&2; exit 1; }
	;;
esac
for m in sys proc dev/pts dev; do umount "$r/$m"; done
mkdir -p "$r/lboot-install"
install -m 755 "$here/install" "$r/lboot-install/install"
kernel=$(ls "$r"/boot/vmlinuz-* | sort -V | tail -n1)
initrd=$r/boot/initrd.img-${kernel##*/vmlinuz-}
[ -f "$kernel" ] && [ -f "$initrd" ] || { echo "os: no kernel and initrd in the bootstrapped system" >&2; exit 1; }
cp "$kernel" "$work/vmlinuz"; cp "$initrd" "$work/initrd.img"
echo "os: $layout: installer root filesystem" >&2
mkfs.ext4 -q -F -L installer -d "$r" "$work/installer.img" 2G
rm -rf "$r"
truncate -s 3G "$work/disk.img"
disk2=()
if [ "$layout" = btrfs-md ]; then
	truncate -s 3G "$work/disk2.img"
	disk2=(-drive file="$work/disk2.img",format=raw,if=virtio)
fi
echo "os: $layout: installing in QEMU (the system's own kernel; a few minutes under TCG)" >&2
timeout 1500 qemu-system-x86_64 -accel tcg -machine q35 -smp 2 -m 2048 -display none -no-reboot \
	-kernel "$work/vmlinuz" -initrd "$work/initrd.img" \
	-append "root=/dev/vda rw console=ttyS0,115200 panic=-1 init=/lboot-install/install lboot-install.layout=$layout" \
	-drive file="$work/installer.img",format=raw,if=virtio \
	-drive file="$work/disk.img",format=raw,if=virtio "${disk2[@]}" \
	-serial file:"$work/install.log" -monitor none </dev/null || true
if ! grep -q '^LBOOT-INSTALL: done' "$work/install.log"; then
	echo "os: $layout: the installer did not finish; its last lines:" >&2
	tr -d '\r' <"$work/install.log" | tail -n 30 | sed 's/^/os: | /' >&2
	exit 1
fi
mkdir -p "$dir.tmp"
mv "$work/disk.img" "$dir.tmp/disk.img"
[ ! -f "$work/disk2.img" ] || mv "$work/disk2.img" "$dir.tmp/disk2.img"
tr -d '\r' <"$work/install.log" >"$dir.tmp/install.log"
rm -rf "$dir"; mv "$dir.tmp" "$dir"
echo "os: $layout: built $dir/disk.img in $((SECONDS - start)) s" >&2
echo "$dir/disk.img" >&3
