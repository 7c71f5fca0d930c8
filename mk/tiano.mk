# EFI 1.1 / Tiano compression: test-only driver used by tests/host/tiano.sh
# (links only its own module so other modules' state cannot break it).
build/tests/tianotool: tests/host/tianotool.c build/asan/uefi/tiano.o src/uefi/tiano.h
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) -o $@ $< $(filter %.o,$^)
tests: build/tests/tianotool
