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
 xfsprogs btrfs-progs mdadm lvm2
 chrony"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# chrony (the tests' NTP server, run by them as `chronyd -x`, which never
# sets the clock) must not start as the machine's time daemon: no service
# starts during the install (policy-rc.d), and its unit is disabled after.
# It replaces systemd-timesyncd (they conflict).
rcd=""
case " $missing " in *" chrony "*)
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && rcd=1
  fi;;
esac
rc=0
apt-get install -y -qq --no-install-recommends $missing || rc=$?
[ -n "$rcd" ] && rm -f /usr/sbin/policy-rc.d
case " $missing " in *" chrony "*)
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
    systemctl disable --now chrony.service >/dev/null 2>&1 || true
  fi;;
esac
exit $rc
