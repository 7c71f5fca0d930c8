# The LinuxBoot ROM for QEMU: Debian's OVMF with the DXE drivers Linux does
# not need removed, lbootdxe instead of BdsDxe, and the firmware kernel,
# initramfs and command line in the DXE volume (`lboot mkrom`). Also writes
# out/lboot-vars.fd (the variable store for pflash unit 1). Boot it with:
#   qemu-system-x86_64 -machine q35 -m 1024 -serial stdio -display none \
#     -drive if=pflash,format=raw,unit=0,readonly=on,file=out/lboot.rom \
#     -drive if=pflash,format=raw,unit=1,file=COPY_OF_out/lboot-vars.fd
ROM_BASE    ?= /usr/share/OVMF/OVMF_CODE_4M.fd
ROM_KEEP    ?= rom/keep-ovmf.txt
# `quiet`: kernel messages to the 115200-baud serial console cost time under
# TCG (about 0.3 s from StartImage to lboot's first line, bench/rom-boot.sh);
# lboot's own lines still print (it writes to the console itself).
ROM_CMDLINE ?= console=ttyS0,115200 panic=10 quiet

all: out/lboot.rom

out/lboot.rom: out/lboot out/bzImage out/initramfs.cpio.xz build/dxe/lbootdxe.efi $(ROM_KEEP) mk/rom.mk
	@mkdir -p $(@D)
	out/lboot mkrom --base $(ROM_BASE) --keep $(ROM_KEEP) --dxe build/dxe/lbootdxe.efi \
		--kernel out/bzImage --initrd out/initramfs.cpio.xz --cmdline "$(ROM_CMDLINE)" \
		--vars-out out/lboot-vars.fd -o $@
out/lboot-vars.fd: out/lboot.rom
