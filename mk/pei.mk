# lbootpei: the PEIM of the --tpm ROM (src/pei/lbootpei.c): measures the
# compressed FVMAIN_COMPACT file instead of the 12 MiB DXE volume. Built like
# lbootdxe but as IA32 (OVMF runs PEI in 32-bit mode), to execute in place in PEIFV: file alignment = section
# alignment = 32 bytes (the PEI core loads an XIP PEIM onto itself), no .bss
# (zero-initialised data stays in .data, so loading writes nothing past the
# image's bytes in the volume), base relocations for the PEI core to apply.
PEI_CFLAGS  := -m32 -march=i586 -std=gnu11 -Os -Wall -Wextra -Wshadow -Wvla \
	-Werror=implicit-function-declaration -ffreestanding -fno-stack-protector -fno-pic \
	-fno-builtin -fshort-wchar -mno-mmx -mno-sse -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -fno-ident -nostdinc -fno-jump-tables -fno-zero-initialized-in-bss
PEI_LDFLAGS := -m i386pe --subsystem 11 --image-base 0 -e lbootpei_main \
	--no-insert-timestamp --dynamicbase -nostdlib -s \
	--file-alignment 0x20 --section-alignment 0x20 -T src/dxe/lbootdxe.lds

build/pei/lbootpei.o: src/pei/lbootpei.c src/dxe/efi.h src/dxe/uart.h mk/pei.mk mk/dxe.mk
	@mkdir -p $(@D)
	$(DXE_CC) $(PEI_CFLAGS) -c $< -o $@

build/pei/lbootpei.efi: build/pei/lbootpei.o mk/pei.mk src/dxe/lbootdxe.lds
	$(DXE_LD) $(PEI_LDFLAGS) -o $@.tmp $<
	@objdump -p -h $@.tmp > $@.pe.txt
	@grep -q 'Magic.*010b' $@.pe.txt || { echo "$@: not an IA32 PE32 image" >&2; exit 1; }
	@grep -q 'SectionAlignment.*00000020' $@.pe.txt || { echo "$@: section alignment is not 32" >&2; exit 1; }
	@grep -q 'FileAlignment.*00000020' $@.pe.txt || { echo "$@: file alignment is not 32" >&2; exit 1; }
	@! grep -q ' \.bss ' $@.pe.txt || { echo "$@: has a .bss section (XIP in place)" >&2; exit 1; }
	@mv $@.tmp $@
