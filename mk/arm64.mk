# arm64 (issue 27, docs/arm64.md): lboot's static aarch64 target from the
# same sources as out/lboot-target, with Debian's cross gcc and Debian's
# arm64 musl and crypto archives (scripts/arm64-sysroot.sh: apt-get download
# through a private apt state, cached by recipe hash). x86 builds, `make all`
# and `make tests` do not depend on any of it; tests/host/arm64-target.sh
# builds it.
ARM64_CC      := build/arm64/musl-gcc
ARM64_SYSROOT := build/arm64/sysroot
ARM64_CFLAGS  := $(CFLAGS_BASE) -Isrc/arch/arm64 $(TARGET_OPTS)
ARM64_SRC     := $(call core_src,arm64) src/trust/fortify_shim.c $(TARGET_CMDS) src/main.c
ARM64_OBJ     := $(patsubst src/%.c,build/arm64/target/%.o,$(ARM64_SRC))
ARM64_CRYPTO_LIBS := $(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu/libsodium.a \
	$(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu/libbearssl.a \
	$(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu/libz.a

.PHONY: arm64
arm64: build/arm64/lboot-target

$(ARM64_CC): scripts/arm64-sysroot.sh scripts/arm64-apt.sh scripts/cache.sh
	scripts/arm64-sysroot.sh $@ >/dev/null && touch $@
# the crypto headers from the arm64 packages, as build/target/inc for x86
build/arm64/inc/.stamp: $(ARM64_CC)
	@mkdir -p $(@D)
	ln -sfn ../sysroot/usr/include/sodium $(@D)/sodium && \
		ln -sfn ../sysroot/usr/include/bearssl $(@D)/bearssl && \
		ln -sfn ../sysroot/usr/include/zlib.h $(@D)/zlib.h && \
		ln -sfn ../sysroot/usr/include/zconf.h $(@D)/zconf.h && touch $@
build/arm64/target/%.o: src/%.c build/target/applets.h | build/arm64/inc/.stamp
	@mkdir -p $(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) -Ibuild/target -Ibuild/arm64/inc -MMD -MP -c $< -o $@
build/arm64/lboot-target: $(ARM64_OBJ) | build/arm64/inc/.stamp
	$(ARM64_CC) $(ARM64_CFLAGS) -Wl,--gc-sections -s -o $@ $^ $(ARM64_CRYPTO_LIBS)

# lbootdxe for AArch64 (src/dxe with src/dxe/arm64/cpu.h: PL011, no x86
# instruction). binutils' ld writes no AArch64 PE: an ELF PIE linked at 0
# (src/dxe/arm64/lbootdxe.lds), converted by objcopy, with the .reloc that
# `lboot pereloc` makes from its R_AARCH64_RELATIVE entries placed on the
# page after .bss (AAVMF refuses an image without base relocations).
ARM64_DXE_CC   := aarch64-linux-gnu-gcc
ARM64_DXE_LD   := aarch64-linux-gnu-ld
ARM64_OBJCOPY  := aarch64-linux-gnu-objcopy
ARM64_OBJDUMP  := aarch64-linux-gnu-objdump
ARM64_DXE_CFLAGS := -std=gnu11 -Os -Wall -Wextra -Wshadow -Wvla -Werror=implicit-function-declaration \
	-ffreestanding -fno-stack-protector -fpie -fvisibility=hidden -fno-builtin \
	-fshort-wchar -mstrict-align -mgeneral-regs-only -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -fno-ident -nostdinc -fno-jump-tables \
	-fno-tree-loop-distribute-patterns -Isrc/dxe/arm64 \
	-isystem src/dxe/libc -isystem $(shell $(ARM64_DXE_CC) -print-file-name=include 2>/dev/null) -Ibuild/dxe/inc
ARM64_DXE_OBJ  := $(patsubst src/dxe/%.c,build/arm64/dxe/%.o,$(sort $(wildcard src/dxe/*.c))) \
	build/arm64/dxe/slots.o build/arm64/dxe/bearssl/sha2small.o build/arm64/dxe/bearssl/dec32be.o \
	build/arm64/dxe/bearssl/enc32be.o

arm64: build/arm64/lbootdxe.efi

build/arm64/dxe/%.o: src/dxe/%.c $(wildcard src/dxe/*.h src/dxe/arm64/*.h) mk/arm64.mk
	@mkdir -p $(@D)
	$(ARM64_DXE_CC) $(ARM64_DXE_CFLAGS) -c $< -o $@
build/arm64/dxe/slots.o: src/firmware/slots.c src/firmware/slots.h src/lib/le.h mk/arm64.mk build/dxe/inc/.stamp
	@mkdir -p $(@D)
	$(ARM64_DXE_CC) $(ARM64_DXE_CFLAGS) -c $< -o $@
build/arm64/dxe/bearssl/%.o: build/dxe/inc/.stamp mk/arm64.mk
	@mkdir -p $(@D)
	$(ARM64_DXE_CC) $(ARM64_DXE_CFLAGS) -I$(BEARSSL_SRC)/src -I$(BEARSSL_SRC)/inc -w -c $(BEARSSL_SRC)/src/$(filter %/$*,$(BEARSSL_DXE_SRC)).c -o $@
build/arm64/dxe/lbootdxe.elf: $(ARM64_DXE_OBJ) src/dxe/arm64/lbootdxe.lds mk/arm64.mk
	$(ARM64_DXE_LD) -pie --no-dynamic-linker -z norelro --no-warn-rwx-segments -nostdlib \
		-e efi_main -T src/dxe/arm64/lbootdxe.lds -o $@ $(ARM64_DXE_OBJ)
build/arm64/lbootdxe.efi: build/arm64/dxe/lbootdxe.elf out/lboot mk/arm64.mk
	out/lboot pereloc $< -o build/arm64/dxe/reloc.bin
	set -- $$($(ARM64_OBJDUMP) -h $< | awk '$$2 == ".bss" { print $$3, $$4 }'); \
	[ $$# = 2 ] || { echo "$@: no .bss in $<" >&2; exit 1; }; \
	at=$$(printf '0x%x' $$(( (0x$$1 + 0x$$2 + 0xfff) & ~0xfff ))); \
	$(ARM64_OBJCOPY) --strip-all -O pei-aarch64-little -j .text -j .rdata -j .data -j .bss \
		--add-section .reloc=build/arm64/dxe/reloc.bin \
		--set-section-flags .reloc=alloc,load,readonly,data --change-section-address .reloc=$$at \
		--subsystem efi-bsd --image-base 0 --file-alignment 0x200 --section-alignment 0x1000 \
		$< $@.tmp
	@$(ARM64_OBJDUMP) -p $@.tmp > $@.pe.txt
	@grep -q 'Magic.*(PE32+)' $@.pe.txt || { echo "$@: not a PE32+ image" >&2; exit 1; }
	@grep -q 'Subsystem.*0000000b' $@.pe.txt || { echo "$@: not an EFI boot service driver" >&2; exit 1; }
	@grep -Eq 'Entry 5 [0-9a-f]+ [0-9a-f]*[1-9a-f][0-9a-f]* Base Relocation Directory' $@.pe.txt || \
		{ echo "$@: no base relocations" >&2; exit 1; }
	@mv $@.tmp $@

# The arm64 LinuxBoot ROM (docs/arm64.md): Debian's AAVMF pruned by
# rom/keep-aavmf.txt, lbootdxe for AArch64 instead of BdsDxe, and in pflash
# unit 0 after AAVMF's 2 MiB a payload volume with the firmware kernel and
# an initramfs whose /init is build/arm64/lboot-target. Unit 1:
# out/lboot-arm64-vars.fd (AAVMF_VARS.fd). The firmware kernel is lboot's
# own: linux-source-6.1 with kernel/arm64.config, cross-built and cached by
# kernel/build.sh --arch arm64 (about 7 minutes once). Debian's own arm64
# kernel (scripts/arm64-kernel.sh) is the target OS of the arm64 scenarios.
#   cp out/lboot-arm64-vars.fd /tmp/unit1.fd
#   qemu-system-aarch64 -M virt -cpu cortex-a57 -m 1024 -nographic \
#     -drive if=pflash,format=raw,unit=0,readonly=on,file=out/lboot-arm64.rom \
#     -drive if=pflash,format=raw,unit=1,file=/tmp/unit1.fd
ARM64_ROM_BASE    ?= /usr/share/AAVMF/AAVMF_CODE.fd
ARM64_ROM_KEEP    ?= rom/keep-aavmf.txt
ARM64_ROM_CMDLINE ?= console=ttyAMA0,115200 panic=10 quiet

build/arm64/Image: kernel/arm64.config kernel/build.sh scripts/cache.sh
	@mkdir -p $(@D)
	kernel/build.sh --arch arm64 $@
build/arm64/initramfs.cpio.xz: build/arm64/lboot-target out/lboot
	out/lboot mkinitramfs --init build/arm64/lboot-target -o $@
out/lboot-arm64.rom: out/lboot build/arm64/lbootdxe.efi build/arm64/Image \
		build/arm64/initramfs.cpio.xz $(ARM64_ROM_KEEP) mk/arm64.mk
	@mkdir -p $(@D)
	out/lboot mkrom --arch arm64 --base $(ARM64_ROM_BASE) --keep $(ARM64_ROM_KEEP) \
		--dxe build/arm64/lbootdxe.efi --kernel build/arm64/Image \
		--initrd build/arm64/initramfs.cpio.xz --cmdline "$(ARM64_ROM_CMDLINE)" \
		--vars-out out/lboot-arm64-vars.fd -o $@
out/lboot-arm64-vars.fd: out/lboot-arm64.rom
