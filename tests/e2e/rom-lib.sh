# Helpers for the LinuxBoot ROM scenarios (tests/e2e/rom-*.sh); sourced
# after lib.sh. Not a scenario itself (check.sh skips *lib.sh).
#
#   rom_build OUT.rom [mkrom args...]  build a ROM from OVMF_CODE_4M.fd with
#       the keep list and lbootdxe, with the flash size `make` uses (ROM_SIZE,
#       16M: the payload in unit 1, below the variable store); extra args
#       (--kernel, --initrd, --size...) override/add; writes OUT-vars.fd too
#       (pflash unit 1). The report is in OUT.log.
#   rom_demo_disk OUT.img TAG   GPT disk: ESP with a BLS entry booting the
#       target OS with "rom.test=TAG" on its command line
ROM_CMDLINE_TEST=${ROM_CMDLINE_TEST:-console=ttyS0,115200 panic=-1 lboot.timeout=0}

rom_build() {
	local out=$1; shift
	[ -f "$E2E_ROOT/build/dxe/lbootdxe.efi" ] && [ -f "$E2E_ROOT/build/pei/lbootpei.efi" ] ||
		make -s -C "$E2E_ROOT" build/dxe/lbootdxe.efi build/pei/lbootpei.efi >/dev/null ||
		{ not_ok "build lbootdxe, lbootpei"; exit 1; }
	"$OUT/lboot" mkrom --keep "$E2E_ROOT/rom/keep-ovmf.txt" --dxe "$E2E_ROOT/build/dxe/lbootdxe.efi" \
		--pei "$E2E_ROOT/build/pei/lbootpei.efi" \
		--size "${ROM_SIZE:-16M}" --vars-out "${out%.rom}-vars.fd" -o "$out" "$@" >"$out.log" 2>&1 ||
		{ sed 's/^/# /' "$out.log"; not_ok "lboot mkrom"; exit 1; }
}

rom_demo_disk() {
	local out=$1 tag=$2
	target_os
	rm -rf "$T/esp"; mkdir -p "$T/esp/loader/entries" "$T/esp/os"
	cp "$TARGET_KERNEL" "$T/esp/os/vmlinuz"
	cp "$TARGET_INITRD" "$T/esp/os/initrd.img"
	printf 'default rom-*\ntimeout 0\n' >"$T/esp/loader/loader.conf"
	cat >"$T/esp/loader/entries/rom-test.conf" <<EOC
title      lboot ROM test OS
linux      /os/vmlinuz
initrd     /os/initrd.img
options    console=ttyS0,115200 rom.test=$tag quiet
EOC
	mkpart_vfat "$T/esp.img" 40 "$T/esp" ESP 20260ABC
	mkdisk_gpt "$out" "$T/esp.img:esp"
}
