#!/bin/bash
# localboot-grub-vfat.sh on arm64 (issue 27): a grub.cfg on a FAT ESP, its
# default and a chosen entry, through the arm64 LinuxBoot ROM into Debian's
# arm64 kernel.
E2E_ARM64=1 exec bash "$(dirname "$0")/localboot-grub-vfat.sh"
