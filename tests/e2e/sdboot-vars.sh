#!/bin/bash
# Issue 11, the boot state the OS expects (docs/boot-state.md): systemd's
# Boot Loader Interface under OVMF (stock OVMF_CODE + a writable copy of
# OVMF_VARS kept across the runs: each QEMU run is one boot of the same
# machine), the firmware kernel by -kernel, the target OS
# (tests/guest/sdboot-init.c) reading and writing efivarfs.
#   boot 1: lboot.default=w: w boots; the OS sees LoaderInfo,
#           LoaderEntrySelected, LoaderDevicePartUUID (the ESP's, as sfdisk
#           made it), the times, LoaderFirmwareType/Info (against the
#           firmware kernel's own "EFI vX by VENDOR" line), LoaderFeatures;
#           then it writes LoaderEntryOneShot=b.conf.
#   boot 2: LoaderEntryOneShot chooses b; the OS finds it deleted.
#   boot 3: the configured default (a) again: the one-shot is gone.
#   boot 4: lboot.default=c: c+2-0.conf is renamed c+1-1.conf on the ESP
#           first (checked on the image with mtools after QEMU exits);
#           LoaderBootCountPath names it; c writes LoaderEntryOneShot=b.conf.
#   boot 5: lboot.default=saved, the one-shot wins (b) and lboot saves b.
#   boot 6: lboot.default=saved boots b again (LbootEntryLastBooted).
# The variables are read from efivarfs byte for byte, and in boot 1 by
# systemd's bootctl (`bootctl status`, from the systemd-boot package, copied
# into the target with its libraries).
. "$(dirname "$0")/lib.sh"
e2e_init sdboot-vars
target_os
CODE=/usr/share/OVMF/OVMF_CODE_4M.fd VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
[ -f "$CODE" ] && [ -f "$VARS" ] || { skip "ovmf" "no $CODE (apt-get install ovmf)"; exit 0; }
command -v mdir >/dev/null || { skip "mtools" "no mdir (apt-get install mtools)"; exit 0; }

mkdir -p "$E2E_CACHE"
INIT_SRC=$E2E_ROOT/tests/guest/sdboot-init.c
SD_INITRD=$E2E_CACHE/sdboot-initrd.img
if [ ! -f "$SD_INITRD" ] || [ "$INIT_SRC" -nt "$SD_INITRD" ] || [ "$OUT/lboot" -nt "$SD_INITRD" ]; then
	musl-gcc -static -Os -s -o "$E2E_CACHE/sdboot-init" "$INIT_SRC" || { not_ok "build sdboot-init"; exit 1; }
	"$OUT/lboot" mkinitramfs --compress gzip -o "$SD_INITRD.tmp" --init "$E2E_CACHE/sdboot-init" 2>/dev/null &&
		mv "$SD_INITRD.tmp" "$SD_INITRD" || { not_ok "build sdboot initrd"; exit 1; }
fi

R=$T/esp
mkdir -p "$R/loader/entries"
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$SD_INITRD" "$R/init.img"
efivarfs_cpio "$R/efivarfs.cpio"
# systemd's own bootctl (systemd-boot package) with its libraries, as a
# third initrd of entry w: `bootctl status` in the target is the oracle
BOOTCTL=$(command -v bootctl || true)
if [ -n "$BOOTCTL" ]; then
	S=$T/bootctl-root
	mkdir -p "$S/usr/bin" && cp "$BOOTCTL" "$S/usr/bin/bootctl"
	for lib in $(ldd "$BOOTCTL" | grep -oE '/[^ ]+'); do
		mkdir -p "$S$(dirname "$lib")" && cp -L "$lib" "$S$lib"
	done
	(cd "$S" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$R/bootctl.cpio.gz" ||
		{ not_ok "cpio bootctl"; exit 1; }
fi
printf 'default a.conf\ntimeout 0\n' >"$R/loader/loader.conf"
entry() { # FILE ID [EXTRA OPTIONS] [EXTRA INITRD]
	printf 'title   entry %s\nlinux   /vmlinuz\ninitrd  /init.img\ninitrd  /efivarfs.cpio\n%boptions console=ttyS0,115200 quiet sdtest.entry=%s %s\n' \
		"$2" "${4:+initrd  $4\n}" "$2" "${3:-}" >"$R/loader/entries/$1"
}
entry a.conf a
entry b.conf b
if [ -n "$BOOTCTL" ]; then
	entry w.conf w "sdtest.oneshot=b.conf sdtest.bootctl" /bootctl.cpio.gz
else
	entry w.conf w sdtest.oneshot=b.conf
fi
entry c+2-0.conf c sdtest.oneshot=b.conf
mkpart_vfat "$T/esp.img" 96 "$R" ESP 5d0be1a1
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp"
PARTUUID=$(sfdisk --part-uuid "$T/disk.img" 1 | tr a-f A-F)
cp "$VARS" "$T/vars-persist.fd"

N=0
boot() { # APPEND: one boot of the machine, its log in $T/boot-N.log
	N=$((N + 1))
	E2E_APPEND="lboot.timeout=0 $1" qemu_start \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$CODE" \
		-drive "if=pflash,format=raw,unit=1,file=$T/vars-persist.fd" \
		-drive "file=$T/disk.img,format=raw,if=virtio"
	if expect 'sdboot-target: done' 300 && qemu_wait 60; then
		ok "boot $N: the target OS came up and powered off"
	else
		not_ok "boot $N: the target OS came up and powered off"
	fi
	qemu_stop
	tr -d '\r' <"$T/serial.log" >"$T/boot-$N.log"
}
var() { # NAME: the value the target saw in the last boot ("unset" if none)
	local l
	l=$(grep -E "^sdboot-target: var $1(=| unset)" "$T/boot-$N.log" | tail -n1)
	case $l in
	*" unset") echo unset ;;
	*) l=${l#*"var $1="}; echo "${l% attr=*}" ;;
	esac
}
has() { grep -Eq -- "$1" "$T/boot-$N.log"; }
check() { # NAME CONDITION...
	local n=$1; shift
	if "$@"; then ok "boot $N: $n"; else not_ok "boot $N: $n"; log "$(grep -E '^(lboot: (default|boot state|boot counting|EFI)|sdboot-target)' "$T/boot-$N.log" | tr '\n' '|')"; fi
}
eq() { [ "$1" = "$2" ] || { log "'$1' != '$2'"; return 1; }; }

# --- boot 1 --------------------------------------------------------------
boot "lboot.default=w"
check "w booted (lboot.default=w)" has '^sdboot-target: up: .*sdtest.entry=w'
check "LoaderInfo" eq "$(var LoaderInfo)" "lboot 0.1"
check "LoaderEntrySelected is systemd-boot's id" eq "$(var LoaderEntrySelected)" "w.conf"
check "LoaderDevicePartUUID is the ESP's, upper case" eq "$(var LoaderDevicePartUUID)" "$PARTUUID"
init=$(var LoaderTimeInitUSec) exec=$(var LoaderTimeExecUSec)
check "LoaderTimeInitUSec < LoaderTimeExecUSec, both microseconds" \
	bash -c "[[ '$init' =~ ^[0-9]+\$ && '$exec' =~ ^[0-9]+\$ ]] && [ $init -gt 100000 ] && [ $init -lt $exec ]"
log "LoaderTimeInitUSec=$init LoaderTimeExecUSec=$exec"
# the firmware kernel's own line: "efi: EFI v2.7 by EDK II"
fw=$(grep -oE 'efi: EFI v[0-9.]+ by .*' "$T/boot-$N.log" | head -n1)
maj=$(sed -E 's/efi: EFI v([0-9]+)\..*/\1/' <<<"$fw")
min=$(sed -E 's/efi: EFI v[0-9]+\.([0-9]+).*/\1/' <<<"$fw")
vendor=$(sed -E 's/efi: EFI v[0-9.]+ by //' <<<"$fw")
[ ${#min} = 1 ] && min=${min}0
check "LoaderFirmwareType matches the kernel's 'EFI v$maj.$min by $vendor'" eq "$(var LoaderFirmwareType)" "UEFI $maj.$min"
check "LoaderFirmwareInfo is '$vendor N.NN'" bash -c "[[ '$(var LoaderFirmwareInfo)' =~ ^'$vendor'\ [0-9]+\.[0-9]{2}\$ ]]"
log "LoaderFirmwareInfo=$(var LoaderFirmwareInfo)"
check "LoaderFeatures: default, one-shot, boot counting, xbootldr, sort-key" eq "$(var LoaderFeatures)" "3c01000000000000"
check "no LoaderBootCountPath (w has no counter)" eq "$(var LoaderBootCountPath)" unset
check "the OS wrote LoaderEntryOneShot" has '^sdboot-target: wrote LoaderEntryOneShot'
if [ -n "$BOOTCTL" ]; then
	grep '^sdboot-target: bootctl: ' "$T/boot-$N.log" | sed 's/^sdboot-target: bootctl: /# | /'
	bc() { grep -Eq -- "^sdboot-target: bootctl: $1" "$T/boot-$N.log"; }
	check "bootctl status: exit 0" bc 'exit 0$'
	check "bootctl status: Product: lboot 0.1" bc ' +Product: lboot 0\.1$'
	check "bootctl status: Firmware: UEFI $maj.$min ($vendor N.NN)" bc " +Firmware: UEFI $maj\.$min \($vendor [0-9]+\.[0-9]{2}\)$"
	for f in "Boot counting" "Default entry control" "One-shot entry control" "Boot loader sets ESP information"; do
		check "bootctl status: ✓ $f" bc " +(Features: )?✓ $f$"
	done
	check "bootctl status: no ✓ for what lboot does not do (random seed)" bc " +✗ Support for passing random seed to OS$"
	check "bootctl status: ESP from LoaderDevicePartUUID" bc " +ESP: /dev/disk/by-partuuid/$(tr A-F a-f <<<"$PARTUUID")$"
else
	skip "boot 1: bootctl status" "no bootctl on this host (apt-get install systemd-boot)"
fi

# the boot log (docs/boot-state.md): lboot's lines, read back from the
# firmware kernel's /dev/kmsg with their levels, in LbootLog-<lboot's GUID>
bootlog_checks() { # TITLE OTHER_TITLE
	local bl=$T/bootlog-$N.txt
	sed -n 's/^sdboot-target: bootlog: //p' "$T/boot-$N.log" >"$bl"
	check "the OS read the boot log: NV+BS+RT, at most 4096 bytes" \
		has '^sdboot-target: bootlog attr=07 bytes=([1-9][0-9]{0,2}|[1-3][0-9]{3}|40[0-8][0-9]|409[0-6])$'
	check "boot log: the kexec line of '$1', at level info" grep -Eq "^<6>lboot: kexec '$1' kernel=/vmlinuz" "$bl"
	check "boot log: no line of the earlier boot ('$2')" bash -c "! grep -q \"'$2'\" '$bl'"
	check "boot log: lboot's banner, at level notice" grep -Eq "^<5>lboot: lboot [^ ]+ starting" "$bl"
	check "boot log: the ESP found, at level info" grep -Eq "^<6>lboot: found /dev/vda1 vfat " "$bl"
	check "boot log: only lboot's lines, each with a level" bash -c "! grep -Ev '^<[0-7]>lboot: ' '$bl'"
	# each of them on the serial console once, whoever printed it (the
	# kernel, for the levels its console level lets through, or lboot)
	local dup=0 miss=0 l t c
	while IFS= read -r l; do
		t=${l#<?>}
		c=$(grep -cxF -- "$t" "$T/boot-$N.log")
		[ "$c" -gt 1 ] && { dup=$((dup + 1)); log "twice on the console: $t"; }
		[ "$c" -lt 1 ] && { miss=$((miss + 1)); log "not on the console: $t"; }
	done < <(grep -v "boot log: " "$bl")
	check "the serial console shows each of the $(wc -l <"$bl") lines once" eq "$dup/$miss" 0/0
}
bootlog_checks "entry w" "entry b"

# --- boot 2: quiet (the kernel prints only errors on the console) ---------
boot "quiet"
bootlog_checks "entry b" "entry w"
check "lboot says LoaderEntryOneShot chose b" has "^lboot: default 'entry b' chosen by EFI variable LoaderEntryOneShot=b.conf \(one-shot: deleted\)"
check "b booted" has '^sdboot-target: up: .*sdtest.entry=b'
check "LoaderEntrySelected=b.conf" eq "$(var LoaderEntrySelected)" "b.conf"
check "LoaderEntryOneShot deleted before the OS" eq "$(var LoaderEntryOneShot)" unset

# --- boot 3 --------------------------------------------------------------
boot ""
check "the configured default a again" has '^sdboot-target: up: .*sdtest.entry=a'
check "no variable chose it" bash -c "! grep -q 'chosen by' '$T/boot-$N.log'"
check "LoaderEntrySelected=a.conf" eq "$(var LoaderEntrySelected)" "a.conf"

# --- boot 4: boot counting -----------------------------------------------
boot "lboot.default=c"
check "c booted" has '^sdboot-target: up: .*sdtest.entry=c'
check "lboot renamed the entry" has '^lboot: boot counting: /loader/entries/c\+2-0.conf renamed to /loader/entries/c\+1-1.conf on /dev/vda1 \(1 tries left\)'
check "LoaderBootCountPath" eq "$(var LoaderBootCountPath)" '\loader\entries\c+1-1.conf'
check "LoaderEntrySelected is the id it was booted by" eq "$(var LoaderEntrySelected)" "c+2-0.conf"
ents=$(MTOOLS_SKIP_CHECK=1 mdir -b -i "$T/disk.img@@1M" ::/loader/entries 2>/dev/null | sed 's|.*/||' | sort | tr '\n' ' ')
log "ESP after boot 4: $ents"
if [[ " $ents" == *" c+1-1.conf "* && " $ents" != *" c+2-0.conf "* ]]; then
	ok "boot 4: on the disk (mtools): c+2-0.conf is now c+1-1.conf"
else
	not_ok "boot 4: on the disk (mtools): c+2-0.conf is now c+1-1.conf"
fi
MTOOLS_SKIP_CHECK=1 fsck.vfat -n "$T/esp.img" >/dev/null 2>&1 # (the partition image is the pre-boot copy)
dd if="$T/disk.img" of="$T/esp-after.img" bs=1M skip=1 count=96 status=none
if fsck.vfat -n "$T/esp-after.img" >"$T/fsck.log" 2>&1; then
	ok "boot 4: the ESP is clean after the rename (fsck.vfat -n)"
else
	not_ok "boot 4: the ESP is clean after the rename (fsck.vfat -n)"; log "$(tr '\n' '|' <"$T/fsck.log")"
fi

# --- boot 5, 6: lboot.default=saved --------------------------------------
boot "lboot.default=saved"
check "the one-shot wins over saved (b)" has '^sdboot-target: up: .*sdtest.entry=b'
check "lboot saved b" eq "$(var LbootEntryLastBooted)" "b.conf"
boot "lboot.default=saved"
check "lboot.default=saved boots the last booted entry" has "^lboot: default 'entry b' chosen by lboot.default=saved: EFI variable LbootEntryLastBooted=b.conf"
check "b booted" has '^sdboot-target: up: .*sdtest.entry=b'
e2e_done
