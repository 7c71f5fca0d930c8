#!/bin/sh
# Build a small real UKI from systemd's EFI stub (systemd-boot-efi package)
# with objcopy, the way systemd documents it before ukify existed. The
# payloads are tiny fakes: the parser only needs the PE layout.
# usage: make-uki.sh OUT.efi [OSREL_FILE [CMDLINE [UNAME]]]
# LBOOT_UKI_LINUX=FILE: the .linux payload (bz.efi: a bare bzImage setup
# header, 1 KiB, enough for lboot's stage: `make-uki.sh bz.efi` with
# LBOOT_UKI_LINUX holding 0x55aa at 0x1fe and "HdrS" at 0x202).
set -eu
out=$1
stub=${LBOOT_UKI_STUB:-/usr/lib/systemd/boot/efi/linuxx64.efi.stub}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -ge 2 ]; then cp "$2" "$tmp/osrel"; else
	printf 'NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n' >"$tmp/osrel"
fi
printf '%s\n' "${3:-root=UUID=6a5f2b1c-0d7e-4c4f-9a51-2b3c4d5e6f70 ro quiet}" >"$tmp/cmdline"
printf '%s' "${4:-6.1.0-18-amd64}" >"$tmp/uname"
# LBOOT_UKI_LINUX: a file to use as .linux instead of the fake payload
if [ -n "${LBOOT_UKI_LINUX:-}" ]; then cp "$LBOOT_UKI_LINUX" "$tmp/linux"; else
	printf 'MZfake-bzImage-payload' >"$tmp/linux"
fi
printf '070701fake-initrd' >"$tmp/initrd"
objcopy \
	--add-section .osrel="$tmp/osrel" --change-section-vma .osrel=0x20000 \
	--add-section .cmdline="$tmp/cmdline" --change-section-vma .cmdline=0x21000 \
	--add-section .uname="$tmp/uname" --change-section-vma .uname=0x22000 \
	--add-section .initrd="$tmp/initrd" --change-section-vma .initrd=0x23000 \
	--add-section .linux="$tmp/linux" --change-section-vma .linux=0x24000 \
	"$stub" "$tmp/out.efi"
mv "$tmp/out.efi" "$out"
