#!/bin/bash
# measure-boot.sh on arm64 (issue 27): swtpm on QEMU virt's tpm-tis-device,
# the arm64 ROM with AAVMF's TPM drivers (mkrom --tpm); lboot measures the
# BLS entry (PCR 4, 9, its verdict in 8) and hands the log over in the ACPI
# TPM2 log area; Debian's arm64 kernel reads it, and the host replays PCRs
# 0-9 to the TPM's values with tpm2_eventlog.
E2E_ARM64=1 exec bash "$(dirname "$0")/measure-boot.sh"
