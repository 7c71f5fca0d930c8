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
	$(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu/libbearssl.a

.PHONY: arm64
arm64: build/arm64/lboot-target

$(ARM64_CC): scripts/arm64-sysroot.sh scripts/cache.sh
	scripts/arm64-sysroot.sh $@ >/dev/null
# the crypto headers from the arm64 packages, as build/target/inc for x86
build/arm64/inc/.stamp: $(ARM64_CC)
	@mkdir -p $(@D)
	ln -sfn ../sysroot/usr/include/sodium $(@D)/sodium && \
		ln -sfn ../sysroot/usr/include/bearssl $(@D)/bearssl && touch $@
build/arm64/target/%.o: src/%.c build/target/applets.h | build/arm64/inc/.stamp
	@mkdir -p $(@D)
	$(ARM64_CC) $(ARM64_CFLAGS) -Ibuild/target -Ibuild/arm64/inc -MMD -MP -c $< -o $@
build/arm64/lboot-target: $(ARM64_OBJ) | build/arm64/inc/.stamp
	$(ARM64_CC) $(ARM64_CFLAGS) -Wl,--gc-sections -s -o $@ $^ $(ARM64_CRYPTO_LIBS)
