# lboot build. `make` builds everything into out/; `make run` boots the demo
# in QEMU; `make check` runs the whole test suite. Both install what they
# need from Debian's archive first (scripts/deps.sh).
.DEFAULT_GOAL := all
SHELL := /bin/bash

CC        ?= gcc
MUSLCC    ?= musl-gcc
# src/ by domain (docs/HACKING.md has the map); headers are included by name.
CORE_DIRS := lib config net storage trust tpm kexec console firmware boot
# Per-architecture code: src/arch/ARCH/arch.h (numbers and names) on the
# include path of that architecture's builds only, and NAME_ARCH.c files in
# the domain folders, linked only into that architecture's builds
# (core_src). The host, the target and the tests are x86_64; mk/arm64.mk
# builds the arm64 target from the same sources (docs/arm64.md).
LB_ARCHES := x86_64 arm64
CFLAGS_BASE := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
	-Wshadow -Wvla -Isrc $(addprefix -Isrc/,$(CORE_DIRS) host) -Ibuild
CFLAGS_COMMON := $(CFLAGS_BASE) -Isrc/arch/x86_64
HOST_CFLAGS   := $(CFLAGS_COMMON) -O2 -g
TARGET_OPTS   := -Os -static -ffunction-sections -fdata-sections \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -DLB_TARGET_BUILD
TARGET_CFLAGS := $(CFLAGS_COMMON) $(TARGET_OPTS)
ASAN_CFLAGS   := $(CFLAGS_COMMON) -O1 -g -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer -DLB_TEST_BUILD
HOST_LIBS := -llzma -lz
# Crypto (src/trust): libsodium (Ed25519, BLAKE2b) and BearSSL (SHA, X.509,
# RSA/ECDSA) from Debian. Host and test builds link them shared; the target
# links Debian's static archives into the musl binary (--gc-sections keeps
# only what is used), with fortify_shim.c for the glibc _chk symbols they
# call, and sees only their headers (build/target/inc: symlinks).
CRYPTO_LIBS := -lsodium -lbearssl
MULTIARCH   := $(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
TARGET_CRYPTO_LIBS := /usr/lib/$(MULTIARCH)/libsodium.a /usr/lib/$(MULTIARCH)/libbearssl.a
HOST_LIBS += $(CRYPTO_LIBS)

# The code by domain (docs/HACKING.md has the map). Every domain folder is
# libc (+ src/trust's crypto libraries) only and is built for the host, the
# static musl target and the ASan tests alike; inside each, protocol and
# parser files do no I/O policy and no logging, the orchestration files do.
CORE_ALL   := $(filter-out src/trust/fortify_shim.c,$(sort $(foreach d,$(CORE_DIRS),$(wildcard src/$(d)/*.c))))
# $(call core_src,ARCH): the domain folders' sources for ARCH (no other
# architecture's NAME_ARCH.c)
core_src    = $(filter-out $(foreach a,$(filter-out $(1),$(LB_ARCHES)),%_$(a).c),$(CORE_ALL))
CORE_SRC   := $(call core_src,x86_64)
# Host-only modules (may use liblzma, zlib): UEFI images, CBFS, compression, mkrom.
LIBH_SRC   := $(sort $(wildcard src/uefi/*.c) $(wildcard src/host/*.c) $(wildcard src/cbfs/*.c))
CMD_SRC    := $(sort $(wildcard src/cmd/*.c))
HOST_CMDS   := $(shell sh scripts/applets.sh files LB_HOST $(CMD_SRC))
TARGET_CMDS := $(shell sh scripts/applets.sh files LB_TARGET $(CMD_SRC))

obj = $(patsubst src/%.c,build/$(1)/%.o,$(2))
HOST_OBJ   := $(call obj,host,$(CORE_SRC) $(LIBH_SRC) $(HOST_CMDS) src/main.c)
TARGET_OBJ := $(call obj,target,$(CORE_SRC) src/trust/fortify_shim.c $(TARGET_CMDS) src/main.c)
ASAN_OBJ   := $(call obj,asan,$(CORE_SRC) $(LIBH_SRC))

UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN   := $(patsubst tests/unit/%.c,build/tests/%,$(UNIT_SRC))
FUZZ_SRC   := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BIN   := $(patsubst fuzz/%.c,build/tests/%,$(FUZZ_SRC))

.PHONY: all deps run check fuzz fuzz-long clean tests demo
all: out/lboot out/lboot-target out/bzImage out/initramfs.cpio.xz

deps:
	@sh scripts/deps.sh

# --- host CLI ---------------------------------------------------------------
build/host/applets.h: $(CMD_SRC) Makefile
	@mkdir -p $(@D)
	@sh scripts/applets.sh table LB_HOST $(CMD_SRC) > $@.tmp && mv $@.tmp $@
build/target/applets.h: $(CMD_SRC) Makefile
	@mkdir -p $(@D)
	@sh scripts/applets.sh table LB_TARGET $(CMD_SRC) > $@.tmp && mv $@.tmp $@

build/host/%.o: src/%.c build/host/applets.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Ibuild/host -MMD -MP -c $< -o $@
build/target/inc/.stamp:
	@mkdir -p $(@D)
	ln -sfn /usr/include/sodium $(@D)/sodium && ln -sfn /usr/include/bearssl $(@D)/bearssl && touch $@
build/target/%.o: src/%.c build/target/applets.h | build/target/inc/.stamp
	@mkdir -p $(@D)
	$(MUSLCC) $(TARGET_CFLAGS) -Ibuild/target -Ibuild/target/inc -MMD -MP -c $< -o $@
build/asan/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) -MMD -MP -c $< -o $@

# lboot's trampoline for coreboot Linux payloads (src/cbfs/payload.c embeds
# it): freestanding 32-bit code linked at 0x40000, as a C array
TRAMP_CFLAGS := -m32 -march=i686 -O2 -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
	-fno-builtin -fno-tree-loop-distribute-patterns -fno-delete-null-pointer-checks \
	-fcf-protection=none -mno-sse -mno-mmx -mno-80387 -fno-asynchronous-unwind-tables \
	-Wall -Wextra -Werror
build/cbfs/trampoline.h: src/cbfs/trampoline/trampoline.c src/cbfs/trampoline/trampoline.ld
	@mkdir -p $(@D)
	$(CC) $(TRAMP_CFLAGS) -c $< -o build/cbfs/trampoline.o
	ld -m elf_i386 -nostdlib --no-warn-rwx-segments -T src/cbfs/trampoline/trampoline.ld \
		-o build/cbfs/trampoline.elf build/cbfs/trampoline.o
	objcopy -O binary -j .blob build/cbfs/trampoline.elf build/cbfs/trampoline.bin
	@if size -A build/cbfs/trampoline.elf | awk '$$1 == ".bss" && $$2 > 0 { f = 1 } END { exit !f }'; \
		then echo "trampoline: has a .bss, which the blob would not hold" >&2; exit 1; fi
	{ echo "/* generated from src/cbfs/trampoline by the Makefile */"; \
	  echo "static const unsigned char lb_cbfs_trampoline[] = {"; \
	  od -An -v -tx1 build/cbfs/trampoline.bin | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo "};"; } > $@.tmp && mv $@.tmp $@
build/host/cbfs/payload.o build/asan/cbfs/payload.o: build/cbfs/trampoline.h

out/lboot: $(HOST_OBJ)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LIBS)
out/lboot-target: $(TARGET_OBJ)
	@mkdir -p $(@D)
	$(MUSLCC) $(TARGET_CFLAGS) -Wl,--gc-sections -s -o $@ $^ $(TARGET_CRYPTO_LIBS)

# --- firmware kernel (cached by config hash outside the tree) ----------------
out/bzImage: kernel/lboot.config kernel/build.sh
	@mkdir -p $(@D)
	kernel/build.sh $@

# --- coreboot ROM: coreboot for QEMU q35 (Debian's source, cached outside the
# tree) with lboot's kernel and initramfs as its Linux payload, added by
# lboot cbfs add-payload (coreboot/with-payload.sh; docs/coreboot.md)
COREBOOT_CMDLINE ?= console=ttyS0,115200
build/coreboot/q35.rom: coreboot/build.sh coreboot/q35.config coreboot/q35-cmos.layout coreboot/q35-cmos.default
	@mkdir -p $(@D)
	coreboot/build.sh $@
out/lboot-coreboot.rom: build/coreboot/q35.rom out/lboot out/bzImage out/initramfs.cpio.xz coreboot/with-payload.sh
	coreboot/with-payload.sh $@ "$(COREBOOT_CMDLINE)"

# --- firmware initramfs -------------------------------------------------------
out/initramfs.cpio.xz: out/lboot out/lboot-target
	out/lboot mkinitramfs -o $@ --init out/lboot-target
out/initramfs-busybox.cpio.xz: out/lboot out/lboot-target
	out/lboot mkinitramfs -o $@ --init out/lboot-target --busybox

# --- tests ----------------------------------------------------------------------
build/tests/test_%: tests/unit/test_%.c $(ASAN_OBJ) tests/unit/t.h tests/unit/uki_fixture.h
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) -Itests/unit -o $@ $< $(ASAN_OBJ) $(HOST_LIBS)
build/tests/fuzz_%: fuzz/fuzz_%.c fuzz/replay.c $(ASAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) -o $@ $< fuzz/replay.c $(ASAN_OBJ) $(HOST_LIBS)
tests: $(UNIT_BIN) $(FUZZ_BIN)

# libFuzzer builds for real fuzzing runs: make fuzz; then build/fuzz/fuzz_X CORPUS
fuzz: $(patsubst fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))
build/fuzz/fuzz_%: fuzz/fuzz_%.c $(CORE_SRC) $(LIBH_SRC) build/cbfs/trampoline.h
	@mkdir -p $(@D)
	clang $(CFLAGS_COMMON) -O1 -g -fsanitize=fuzzer,address,undefined -o $@ $< $(CORE_SRC) $(LIBH_SRC) $(HOST_LIBS)
# The GRUB harness links the interpreter and what it calls, not all of src/:
# libFuzzer clears and scans every inline counter of the binary on each
# execution (10 809 counters this way, 59 323 with everything; docs/fuzzing.md)
FUZZ_GRUB_SRC := $(sort $(wildcard src/config/grub_*.c)) src/lib/arena.c src/config/entry.c \
	src/storage/fs.c src/config/bls.c src/lib/io.c src/lib/pe.c src/config/vercmp.c src/config/bootcount.c
# UBSan's alignment and pointer-overflow checks are left out of this build:
# they compare every pointer the interpreter uses, and libFuzzer traces each
# comparison (a quarter of a run, no guidance). The corpus replay in make
# check (build/tests/fuzz_grub) keeps every UBSan check.
build/fuzz/fuzz_grub: fuzz/fuzz_grub.c $(FUZZ_GRUB_SRC) $(wildcard src/lib/*.h src/config/*.h src/storage/*.h)
	@mkdir -p $(@D)
	clang $(CFLAGS_COMMON) -O1 -g -fsanitize=fuzzer,address,undefined \
		-fno-sanitize=alignment,pointer-overflow -o $@ $< $(FUZZ_GRUB_SRC) $(HOST_LIBS)
# what the GRUB harness sees of each input, printed (compare two builds:
# docs/fuzzing.md); not part of make check
build/fuzz/dump_grub: fuzz/dump_grub.c fuzz/fuzz_grub.c $(FUZZ_GRUB_SRC) $(wildcard src/lib/*.h src/config/*.h src/storage/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COMMON) -Ifuzz -O1 -g -o $@ $< $(FUZZ_GRUB_SRC) $(HOST_LIBS)

# each libFuzzer harness for FUZZ_SECONDS (default 60) on a copy of its corpus:
# executions, exec/s, coverage, corpus size, crashes (FUZZ_MERGE=1 merges back)
fuzz-long:
	bash bench/fuzz-long.sh

# the installed systems' disk images build in the background meanwhile, in
# a process group of their own (tests/check.sh --images; its log in
# build/check-logs/os-images.log), stopped if the build fails
check: deps
	@mkdir -p build/check-logs
	@setsid bash tests/check.sh --images >build/check-logs/os-images.log 2>&1 & \
	echo $$! >build/check-logs/os-images.pid; \
	$(MAKE) -j$$(nproc) all tests || { kill -- -$$(cat build/check-logs/os-images.pid) 2>/dev/null; exit 1; }
	bash tests/check.sh

run: deps
	$(MAKE) all
	bash scripts/run-demo.sh

clean:
	rm -rf build out

.SECONDARY:
.DELETE_ON_ERROR:
# Per-component rules (DXE driver, ROM, ...) live in mk/*.mk.
-include $(sort $(wildcard mk/*.mk))

-include $(shell find build -name '*.d' 2>/dev/null)
