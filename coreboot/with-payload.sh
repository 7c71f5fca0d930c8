#!/bin/sh
# coreboot/with-payload.sh OUT CMDLINE [INITRD [KERNEL]]
# The coreboot ROM for QEMU q35 (build/coreboot/q35.rom, built and cached
# by coreboot/build.sh if needed) with a Linux payload: KERNEL (default
# out/bzImage), INITRD (default out/initramfs.cpio.xz) and CMDLINE, added
# as fallback/payload by `lboot cbfs add-payload` (lboot's own trampoline;
# docs/coreboot.md). OUT is written atomically. The one way the Makefile,
# the e2e scenarios and the benchmark make a coreboot ROM.
set -e
[ $# -ge 2 ] || { echo "usage: coreboot/with-payload.sh OUT CMDLINE [INITRD [KERNEL]]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
cmdline=$2
initrd=${3:-$root/out/initramfs.cpio.xz}
kernel=${4:-$root/out/bzImage}
make -s -C "$root" build/coreboot/q35.rom out/lboot
"$root/out/lboot" cbfs add-payload -I "$initrd" -C "$cmdline" \
	"$root/build/coreboot/q35.rom" "$kernel" -o "$out"
