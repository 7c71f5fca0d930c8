# The LinuxBoot ROM for QEMU: Debian's OVMF with the DXE drivers Linux does
# not need removed and lbootdxe instead of BdsDxe (pflash unit 0, read-only),
# plus out/lboot-vars.fd for pflash unit 1: the firmware kernel and
# initramfs in payload slot A of two (B erased: `--slots`, the slot a payload
# update writes; docs/firmware-update.md), then the variable store (`lboot
# mkrom`, docs/rom.md says why this layout). Boot it with:
#   cp out/lboot-vars.fd /tmp/unit1.fd
#   qemu-system-x86_64 -machine q35,max-fw-size=16M -m 1024 -serial stdio -display none \
#     -drive if=pflash,format=raw,unit=0,readonly=on,file=out/lboot.rom \
#     -drive if=pflash,format=raw,unit=1,file=/tmp/unit1.fd
ROM_BASE    ?= /usr/share/OVMF/OVMF_CODE_4M.fd
ROM_KEEP    ?= rom/keep-ovmf.txt
# `quiet`: kernel messages to the 115200-baud serial console cost time under
# TCG (about 0.3 s from StartImage to lboot's first line, bench/rom-boot.sh);
# lboot's own lines still print (it writes to the console itself).
ROM_CMDLINE ?= console=ttyS0,115200 panic=10 quiet watchdog.stop_on_reboot=0
# The whole flash (unit 0 + unit 1): 16 MiB, the most QEMU q35 maps
# (max-fw-size=16M), leaves 12 MiB for kernel + initramfs. `auto` keeps the
# 4 MiB OVMF layout when they fit in it (they no longer do: docs/rom.md).
ROM_SIZE    ?= 16M
# A/B payload slots (6 MiB each in the 16 MiB layout) and slot A's version;
# ROM_SLOTS= builds one 12 MiB payload volume instead (no payload updates).
ROM_PAYLOAD_VERSION ?= 1
ROM_SLOTS   ?= --slots --payload-version $(ROM_PAYLOAD_VERSION) --payload-label "lboot $(ROM_PAYLOAD_VERSION)"

all: out/lboot.rom build/pei/lbootpei.efi

ROM_DEPS = out/lboot build/dxe/lbootdxe.efi $(ROM_KEEP) mk/rom.mk
ROM_ARGS = --base $(ROM_BASE) --keep $(ROM_KEEP) --dxe build/dxe/lbootdxe.efi \
	--size $(ROM_SIZE) --kernel out/bzImage

out/lboot.rom: $(ROM_DEPS) out/bzImage out/initramfs.cpio.xz
	@mkdir -p $(@D)
	out/lboot mkrom $(ROM_ARGS) $(ROM_SLOTS) --initrd out/initramfs.cpio.xz --cmdline "$(ROM_CMDLINE)" \
		--vars-out out/lboot-vars.fd -o $@
out/lboot-vars.fd: out/lboot.rom

# The same ROM with the firmware's TPM 2.0 measured boot kept (`--tpm`: the
# TPM PEIMs, Tcg2Dxe, Tcg2PlatformDxe; PCRs 0-7 and the event log from the
# firmware, the kernel's LoadImage in PCR 4). With no TPM attached it spends
# ~1.5 s probing for one (docs/rom.md, bench/rom-tpm.sh).
out/lboot-tpm.rom: $(ROM_DEPS) build/pei/lbootpei.efi out/bzImage out/initramfs.cpio.xz
	@mkdir -p $(@D)
	out/lboot mkrom $(ROM_ARGS) --tpm --pei build/pei/lbootpei.efi --initrd out/initramfs.cpio.xz --cmdline "$(ROM_CMDLINE)" \
		--vars-out out/lboot-tpm-vars.fd -o $@
out/lboot-tpm-vars.fd: out/lboot-tpm.rom

# The same ROM with a BusyBox initramfs (lboot as /init, BusyBox beside it):
# any user space rides in the ROM.
out/lboot-busybox.rom: $(ROM_DEPS) out/bzImage out/initramfs-busybox.cpio.xz
	@mkdir -p $(@D)
	out/lboot mkrom $(ROM_ARGS) --initrd out/initramfs-busybox.cpio.xz \
		--cmdline "$(ROM_CMDLINE)" --vars-out out/lboot-busybox-vars.fd -o $@
out/lboot-busybox-vars.fd: out/lboot-busybox.rom
