#!/bin/bash
# measure-boot.sh on arm64 (issue 27): swtpm on QEMU virt's tpm-tis-device,
# the arm64 ROM with AAVMF's TPM drivers (mkrom --tpm); lboot measures the
# BLS entry (PCR 4, 9, its verdict in 8) and hands the log over in the ACPI
# TPM2 log area; the target reads it, and the host replays PCRs 0-9 to the
# TPM's values with tpm2_eventlog. The target OS is lboot's arm64 kernel,
# not Debian's: Debian 12's arm64 kernel has no driver for a memory-mapped
# TIS TPM (CONFIG_TCG_TIS is not set; CRB, SPI and I2C only), and QEMU virt
# emulates only tpm-tis-device, so Debian's kernel would see no TPM.
E2E_TARGET_KERNEL=$(cd "$(dirname "$0")/../.." && pwd)/build/arm64/Image \
E2E_ARM64=1 exec bash "$(dirname "$0")/measure-boot.sh"
