#!/bin/bash
# localboot-bls.sh on arm64 (issue 27): the same BLS disk and checks, booted
# through the arm64 LinuxBoot ROM (AAVMF, lbootdxe, lboot's arm64 firmware
# kernel, the arm64 lboot) into Debian's arm64 kernel by kexec_file_load.
E2E_ARM64=1 exec bash "$(dirname "$0")/localboot-bls.sh"
