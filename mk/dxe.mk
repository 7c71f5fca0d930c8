# Debian's BearSSL sources (scripts/bearssl-src.sh), the parts lbootdxe
# needs (SHA-256 for the payload slots, src/firmware/slots.c), compiled with
# the driver's own flags: the freestanding headers are GCC's (stddef.h,
# stdint.h) and src/dxe/libc (string.h, limits.h); build/dxe/inc/bearssl is
# BearSSL's inc/ as build/target/inc/bearssl is Debian's /usr/include/bearssl.
BEARSSL_SRC      := build/bearssl-src
BEARSSL_DXE_SRC  := hash/sha2small codec/dec32be codec/enc32be # (mk/arm64.mk names the same)
DXE_BEARSSL_OBJ  := $(patsubst %,build/dxe/bearssl/%.o,$(notdir $(BEARSSL_DXE_SRC)))
DXE_INC           = -isystem src/dxe/libc -isystem $(shell $(DXE_CC) -print-file-name=include) -Ibuild/dxe/inc

$(BEARSSL_SRC)/VERSION: scripts/bearssl-src.sh scripts/debsrc.sh scripts/cache.sh
	scripts/bearssl-src.sh $(BEARSSL_SRC) >&2
build/dxe/inc/.stamp: $(BEARSSL_SRC)/VERSION
	@mkdir -p $(@D)
	ln -sfn ../../bearssl-src/inc $(@D)/bearssl && touch $@

# lbootdxe: the DXE driver that replaces BdsDxe (src/dxe). Freestanding C,
# compiled as position-independent x86_64 ELF objects and linked by GNU ld's
# PE32+ emulation (i386pep) into an EFI boot-service driver (subsystem 11)
# with a real base relocation table. The result is checked with objdump -p.
DXE_CC      ?= gcc
DXE_LD      ?= ld
DXE_CFLAGS  := -std=gnu11 -Os -Wall -Wextra -Wshadow -Wvla -Werror=implicit-function-declaration \
	-ffreestanding -fno-stack-protector -fpic -fvisibility=hidden -fno-builtin \
	-mno-red-zone -fshort-wchar -maccumulate-outgoing-args -mno-mmx -mno-sse \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fno-ident -nostdinc \
	-fno-jump-tables -Isrc/dxe/x86_64 $(DXE_INC)
DXE_LDFLAGS := -m i386pep --subsystem 11 --image-base 0 -e efi_main \
	--no-insert-timestamp --dynamicbase -nostdlib -s \
	--file-alignment 0x200 --section-alignment 0x1000 -T src/dxe/lbootdxe.lds
DXE_SRC     := $(sort $(wildcard src/dxe/*.c))
DXE_OBJ     := $(patsubst src/dxe/%.c,build/dxe/%.o,$(DXE_SRC)) build/dxe/slots.o $(DXE_BEARSSL_OBJ)

.PHONY: dxe
dxe: build/dxe/lbootdxe.efi

build/dxe/%.o: src/dxe/%.c $(wildcard src/dxe/*.h src/dxe/x86_64/*.h) mk/dxe.mk
	@mkdir -p $(@D)
	$(DXE_CC) $(DXE_CFLAGS) -c $< -o $@

build/dxe/slots.o: src/firmware/slots.c src/firmware/slots.h src/lib/le.h mk/dxe.mk build/dxe/inc/.stamp
	@mkdir -p $(@D)
	$(DXE_CC) $(DXE_CFLAGS) -c $< -o $@
build/dxe/bearssl/%.o: build/dxe/inc/.stamp mk/dxe.mk
	@mkdir -p $(@D)
	$(DXE_CC) $(DXE_CFLAGS) -I$(BEARSSL_SRC)/src -I$(BEARSSL_SRC)/inc -w -c $(BEARSSL_SRC)/src/$(filter %/$*,$(BEARSSL_DXE_SRC)).c -o $@

build/dxe/lbootdxe.efi: $(DXE_OBJ) mk/dxe.mk src/dxe/lbootdxe.lds
	@mkdir -p $(@D)
	$(DXE_LD) $(DXE_LDFLAGS) -o $@.tmp $(DXE_OBJ)
	@objdump -p $@.tmp > $@.pe.txt
	@grep -q 'Magic.*(PE32+)' $@.pe.txt || { echo "$@: not a PE32+ image" >&2; exit 1; }
	@grep -q 'Subsystem.*0000000b' $@.pe.txt || { echo "$@: not an EFI boot service driver" >&2; exit 1; }
	@grep -Eq 'Entry 5 [0-9a-f]+ [0-9a-f]*[1-9a-f][0-9a-f]* Base Relocation Directory' $@.pe.txt || \
		{ echo "$@: no base relocations" >&2; exit 1; }
	@mv $@.tmp $@

# The host unit test runs lbootdxe's flash walker on a built ROM.
build/tests/test_mkrom: src/dxe/flash.c src/dxe/flash.h
