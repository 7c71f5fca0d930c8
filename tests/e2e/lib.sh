# Shared helpers for QEMU end-to-end scenarios. Source it from a scenario:
#
#   . "$(dirname "$0")/lib.sh"
#   e2e_init bls                         # temp dir $T, cleanup on exit
#   target_os                            # $TARGET_KERNEL $TARGET_INITRD (cached)
#   mkdir -p $T/root/boot/loader/entries; cp $TARGET_KERNEL $T/root/boot/vmlinuz ...
#   mkpart_ext4 $T/p1.img 64 $T/root ROOTFS 0b6b1c1e-...   # no root, no loop mounts
#   mkdisk_gpt $T/disk.img $T/p1.img:linux
#   qemu_start -drive file=$T/disk.img,format=raw,if=virtio   # boots out/bzImage + initramfs
#   expect 'lboot-target: cmdline: .*root=LABEL=x' 120 && ok "boots" || not_ok "boots"
#   qemu_stop
#
# Every check prints "ok NAME", "not ok NAME" or "skip NAME: reason"
# (tests/check.sh counts them; a skip is never a pass). Print exactly one of
# them per check, also when the check passes: `cond || not_ok X` alone
# prints nothing on success, so write `cond && ok X || not_ok X`.
# Disk images are made with mkfs.ext4 -d, mkfs.vfat + mcopy and sfdisk on
# image files: no root-only tricks. QEMU runs with TCG (-accel tcg).

E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$E2E_ROOT/out}
E2E_CACHE=$E2E_ROOT/build/e2e-cache
QEMU=${QEMU:-qemu-system-x86_64}
E2E_FAILED=0

ok() { echo "ok $E2E_NAME: $*"; }
not_ok() { echo "not ok $E2E_NAME: $*"; E2E_FAILED=1; }
skip() { # NAME REASON: a check that could not run here (never a pass)
	echo "skip $E2E_NAME: $1: ${2:-no reason given}"
}
log() { echo "# $E2E_NAME: $*"; }

# E2E_ARM64=1 (tests/e2e/arm64-*.sh wrappers): the same scenario on arm64,
# through the arm64 LinuxBoot ROM on QEMU virt (names get "@arm64"):
# qemu_start builds the ROM with the scenario's command line and initramfs,
# target_os gives Debian's arm64 kernel, $LBOOT_TARGET is the arm64 lboot.
if [ -n "${E2E_ARM64:-}" ]; then
	E2E_ARCH=arm64 QEMU=qemu-system-aarch64
	LBOOT_TARGET=$E2E_ROOT/build/arm64/lboot-target
else
	LBOOT_TARGET=$OUT/lboot-target
fi

e2e_init() { # NAME
	E2E_NAME=$1${E2E_COREBOOT:+@coreboot}${E2E_ARM64:+@arm64}
	T=$E2E_ROOT/build/e2e/$1${E2E_COREBOOT:+-coreboot}${E2E_ARM64:+-arm64}
	rm -rf "$T"; mkdir -p "$T"
	QEMU_PID=
	trap 'qemu_stop; e2e_dump_on_fail' EXIT
	# E2E_ARCH=arm64 (set before e2e_init) boots arm64 ROMs: the x86
	# firmware kernel and initramfs are not needed
	local -a need=("$OUT/bzImage" "$OUT/initramfs.cpio.xz" "$OUT/lboot")
	[ "${E2E_ARCH:-x86_64}" = arm64 ] && need=("$OUT/lboot")
	for f in "${need[@]}"; do
		[ -f "$f" ] || { not_ok "missing $f (run make)"; exit 1; }
	done
	[ -n "${E2E_ARM64:-}" ] && arm64_prepare
	return 0
}

# the arm64 ROM's parts (E2E_ARM64): lbootdxe, lboot's firmware kernel and
# the arm64 lboot; the scenario's ROM is made at each qemu_start
arm64_prepare() {
	local t
	for t in qemu-system-aarch64 aarch64-linux-gnu-gcc; do
		command -v "$t" >/dev/null || { skip "the scenario on arm64" "$t not installed (scripts/deps.sh)"; exit 0; }
	done
	[ -f /usr/share/AAVMF/AAVMF_CODE.fd ] ||
		{ skip "the scenario on arm64" "/usr/share/AAVMF/AAVMF_CODE.fd missing (qemu-efi-aarch64)"; exit 0; }
	(cd "$E2E_ROOT" && make -s build/arm64/lbootdxe.efi build/arm64/lboot-target build/arm64/Image \
		build/arm64/initramfs.cpio.xz) >"$T/arm64-build.log" 2>&1 ||
		{ sed 's/^/# /' "$T/arm64-build.log" | tail -20; not_ok "the arm64 ROM's parts build"; exit 1; }
}

e2e_dump_on_fail() {
	if [ "$E2E_FAILED" != 0 ] && [ -f "$T/serial.log" ]; then
		echo "# --- last 40 lines of $T/serial.log ---"
		tail -n 40 "$T/serial.log" | tr -d '\r' | sed 's/^/# | /'
	fi
}

# The target OS: Debian's own kernel (linux-image-amd64) and a tiny initramfs
# whose /init prints "lboot-target: TARGET-OS-UP" and its command line, then
# powers off. Cached in build/e2e-cache.
target_os() {
	mkdir -p "$E2E_CACHE"
	if [ "${E2E_ARCH:-x86_64}" = arm64 ]; then target_os_arm64; return; fi
	TARGET_KERNEL=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n1)
	[ -f "$TARGET_KERNEL" ] || { not_ok "no Debian kernel in /boot (apt-get install linux-image-amd64)"; exit 1; }
	TARGET_INITRD=$E2E_CACHE/target-initrd.img
	local src=$E2E_ROOT/tests/guest/target-init.c
	if [ ! -f "$TARGET_INITRD" ] || [ "$src" -nt "$TARGET_INITRD" ] || [ "$OUT/lboot" -nt "$TARGET_INITRD" ]; then
		musl-gcc -static -Os -s -o "$E2E_CACHE/target-init" "$src" || { not_ok "build target init"; exit 1; }
		"$OUT/lboot" mkinitramfs --compress gzip -o "$TARGET_INITRD.tmp" --init "$E2E_CACHE/target-init" 2>/dev/null &&
			mv "$TARGET_INITRD.tmp" "$TARGET_INITRD" || { not_ok "build target initrd"; exit 1; }
	fi
}

# on arm64: Debian's arm64 kernel (linux-image-arm64, scripts/arm64-kernel.sh)
# or E2E_TARGET_KERNEL, and the same /init built for aarch64
target_os_arm64() {
	local d src=$E2E_ROOT/tests/guest/target-init.c
	d=$(cd "$E2E_ROOT" && scripts/arm64-kernel.sh) || { not_ok "Debian's arm64 kernel (scripts/arm64-kernel.sh)"; exit 1; }
	TARGET_KERNEL=${E2E_TARGET_KERNEL:-$d/Image}
	TARGET_INITRD=$E2E_CACHE/target-initrd-arm64.img
	# (under a lock: two lanes' arm64 scenarios may come here at once on a
	# new machine, and one's mv found the other's file gone)
	local lk
	exec {lk}>>"$E2E_CACHE/target-arm64.lock"
	flock "$lk"
	if [ ! -f "$TARGET_INITRD" ] || [ "$src" -nt "$TARGET_INITRD" ] || [ "$OUT/lboot" -nt "$TARGET_INITRD" ]; then
		"$E2E_ROOT/build/arm64/musl-gcc" -static -Os -s -o "$E2E_CACHE/target-init-arm64" "$src" ||
			{ not_ok "build the arm64 target init"; exit 1; }
		"$OUT/lboot" mkinitramfs --compress gzip -o "$TARGET_INITRD.tmp" --init "$E2E_CACHE/target-init-arm64" 2>/dev/null &&
			mv "$TARGET_INITRD.tmp" "$TARGET_INITRD" || { not_ok "build the arm64 target initrd"; exit 1; }
	fi
	exec {lk}>&-
}

# modules_cpio OUT PATH...: a newc cpio holding Debian's modules (paths
# under the target kernel's /lib/modules/VERSION/kernel/) at its root, for
# the target kernel (call target_os first): the target init loads the ones
# it knows when a second initrd brings them (tests/guest/target-init.c).
modules_cpio() {
	local out=$1 kver ko names=(); shift
	kver=$(basename "$TARGET_KERNEL"); kver=${kver#vmlinuz-}
	rm -rf "$T/mod"; mkdir -p "$T/mod"
	for ko; do
		ko=/lib/modules/$kver/kernel/$ko
		[ -f "$ko" ] || { not_ok "no $ko (linux-image-amd64)"; exit 1; }
		cp "$ko" "$T/mod/" && names+=("$(basename "$ko")")
	done
	(cd "$T/mod" && printf '%s\n' "${names[@]}" | cpio -o -H newc -R 0:0 --quiet) >"$out" ||
		{ not_ok "cpio ${names[*]}"; exit 1; }
}
# efivarfs_cpio OUT: efivarfs.ko (modules_cpio)
efivarfs_cpio() { modules_cpio "$1" fs/efivarfs/efivarfs.ko; }

# mkpart_ext4 IMG SIZE_MB DIR [LABEL] [UUID]
mkpart_ext4() {
	local img=$1 mb=$2 dir=$3 label=${4:-} uuid=${5:-}
	rm -f "$img"
	mkfs.ext4 -q -F ${label:+-L "$label"} ${uuid:+-U "$uuid"} -d "$dir" "$img" "${mb}M" ||
		{ not_ok "mkfs.ext4 $img"; exit 1; }
}

# mkpart_vfat IMG SIZE_MB DIR [LABEL] [VOLID(hex, 8 digits)]
mkpart_vfat() {
	local img=$1 mb=$2 dir=$3 label=${4:-} volid=${5:-}
	rm -f "$img"
	mkfs.vfat -C ${label:+-n "$label"} ${volid:+-i "$volid"} "$img" $((mb * 1024)) >/dev/null ||
		{ not_ok "mkfs.vfat $img"; exit 1; }
	if [ -n "$(ls -A "$dir")" ]; then
		MTOOLS_SKIP_CHECK=1 mcopy -s -i "$img" "$dir"/* :: || { not_ok "mcopy into $img"; exit 1; }
	fi
}

# mkdisk LABEL OUT PART.img[:TYPE[:NAME]]...: a disk image with each
# partition image placed 1 MiB-aligned, in order. LABEL gpt or dos; TYPE for
# gpt: linux (default), esp, xbootldr or a GUID; for dos always 83 (Linux).
mkdisk() {
	local label=$1 out=$2; shift 2
	local spec="label: $label"$'\n' off=1 p img type name sz
	rm -f "$out"
	for p in "$@"; do
		IFS=: read -r img type name <<<"$p"
		sz=$(( ($(stat -c %s "$img") + 1048575) / 1048576 ))
		if [ "$label" = dos ]; then
			type=83 name=
		else
			case ${type:-linux} in
			linux) type=0FC63DAF-8483-4772-8E79-3D69D8477DE4 ;;
			esp) type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B ;;
			xbootldr) type=BC13C2FF-59E6-4262-A352-B275FD6F7172 ;;
			esac
		fi
		spec+="start=$((off * 2048)), size=$((sz * 2048)), type=$type${name:+, name=\"$name\"}"$'\n'
		truncate -s $(( (off + sz + 2) * 1048576 )) "$out"
		dd if="$img" of="$out" bs=1M seek=$off conv=notrunc status=none
		off=$((off + sz))
	done
	# the backup GPT takes the last MiB
	printf '%s' "$spec" | sfdisk -q "$out" >/dev/null || { not_ok "sfdisk $out"; exit 1; }
}
mkdisk_gpt() { mkdisk gpt "$@"; }
mkdisk_mbr() { mkdisk dos "$@"; }

# kexec_tools_files: KEXEC_FILES, the mkinitramfs arguments that bring
# Debian's kexec-tools as /sbin/kexec with the libraries it links (the
# benches' BusyBox + kexec-tools peer).
kexec_tools_files() {
	local k lib
	k=$(command -v kexec) || return 1
	KEXEC_FILES=(--file "$(readlink -f "$k"):/sbin/kexec")
	for lib in $(ldd "$k" | grep -o '/[^ ]*'); do
		KEXEC_FILES+=(--file "$(readlink -f "$lib"):$lib")
	done
}

# nginx_conf ROOT LISTEN...: $T/nginx/nginx.conf serving ROOT with the
# given listen (and ssl_*) directives; pid, logs (access.log) and temp
# files in $T/nginx. The caller starts nginx -p "$T/nginx" -c that file.
nginx_conf() {
	local root=$1
	shift
	mkdir -p "$T/nginx"
	chmod -R a+rX "$T"
	cat >"$T/nginx/nginx.conf" <<EOC
daemon off;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log;
events { worker_connections 64; }
http {
	access_log $T/nginx/access.log;
	client_body_temp_path $T/nginx; proxy_temp_path $T/nginx;
	fastcgi_temp_path $T/nginx; uwsgi_temp_path $T/nginx; scgi_temp_path $T/nginx;
	types { text/plain ipxe cfg; application/octet-stream gz img; }
	server {
		$*
		root $root;
	}
}
EOC
}

# qemu_start [QEMU ARGS...]: boots the firmware kernel + initramfs directly
# (E2E_APPEND adds kernel arguments; default lboot.timeout=0). With
# E2E_FIRMWARE=path, boots that ROM from pflash instead (q35, up to 16 MiB
# of flash: max-fw-size), with E2E_VARS as unit 1 (the variable store, and
# the ROM's payload volume below it in the larger layout, docs/rom.md).
# With E2E_BIOS=path, boots that ROM as the BIOS (-bios: a coreboot ROM).
# With E2E_COREBOOT=1, the same kernel, initramfs and command line as the
# direct boot, as the Linux payload of coreboot (coreboot/with-payload.sh:
# lboot cbfs add-payload), booted as the BIOS: a scenario run under coreboot
# (tests/e2e/coreboot-*.sh run others this way; names get "@coreboot").
# With E2E_FLASH=FILE, FILE is the whole flash (pflash unit 0, writable,
# written in place: the updatable ROM of docs/firmware-update.md).
# With E2E_REBOOT=1, a reboot in the guest reboots the machine (QEMU goes on).
# With E2E_BOOT_N=1, no kernel: SeaBIOS boots from the network (-boot n).
# Serial goes to $T/serial.log; `send` writes to it. With E2E_SERIAL_TS=1,
# $T/serial.ts gets each line with the host time it arrived (e2e_stamp).
qemu_start() {
	local -a base
	# E2E_RESTART=1: the same machine powered on again (its serial log
	# appended to, its variable store kept)
	[ -n "${E2E_RESTART:-}" ] || rm -f "$T/serial.log"
	rm -f "$T/serial.in" "$T/serial.out"
	mkfifo "$T/serial.in" "$T/serial.out"
	if [ -n "${E2E_FLASH:-}" ]; then
		# the updatable ROM: one writable 16 MiB flash, used in place
		base=(-machine q35,max-fw-size=16M -drive "if=pflash,format=raw,unit=0,file=$E2E_FLASH")
	elif [ -n "${E2E_ARM64:-}" ] && [ -z "${E2E_FIRMWARE:-}" ]; then
		# the scenario's own arm64 ROM: lboot's arm64 firmware kernel, the
		# scenario's initramfs (arm64 lboot) and command line
		# x86 device names the scenarios use, as virt has them; a TPM
		# device on the command line: the ROM keeps AAVMF's TPM drivers
		# (--tpm), as a measured arm64 ROM would
		local tpm= a
		local -a args=()
		for a; do
			case $a in tpm-tis,*) a=tpm-tis-device,${a#tpm-tis,} ;; esac
			case $a in tpm-tis-device,*) tpm=--tpm ;; esac
			args+=("$a")
		done
		set -- "${args[@]}"
		"$OUT/lboot" mkrom --arch arm64 $tpm --keep "$E2E_ROOT/rom/keep-aavmf.txt" \
			--dxe "$E2E_ROOT/build/arm64/lbootdxe.efi" --kernel "$E2E_ROOT/build/arm64/Image" \
			--initrd "${E2E_INITRD:-$E2E_ROOT/build/arm64/initramfs.cpio.xz}" \
			--cmdline "console=ttyAMA0,115200 panic=-1 ${E2E_APPEND-lboot.timeout=0}" \
			--vars-out "$T/arm64-vars.fd" -o "$T/arm64.rom" >"$T/arm64-rom.log" 2>&1 ||
			{ sed 's/^/# /' "$T/arm64-rom.log" | tail -20; not_ok "the arm64 ROM with this payload"; }
		base=(-machine virt -cpu cortex-a57 -drive "if=pflash,format=raw,unit=0,readonly=on,file=$T/arm64.rom")
		cp "$T/arm64-vars.fd" "$T/vars.fd"
		base+=(-drive "if=pflash,format=raw,unit=1,file=$T/vars.fd")
	elif [ "${E2E_ARCH:-x86_64}" = arm64 ]; then
		# QEMU virt (QEMU=qemu-system-aarch64) with AAVMF-style firmware:
		# E2E_FIRMWARE read-only in pflash unit 0, a copy of E2E_VARS in
		# unit 1, both 64 MiB as virt maps them (docs/arm64.md)
		base=(-machine virt -cpu cortex-a57 -drive "if=pflash,format=raw,unit=0,readonly=on,file=$E2E_FIRMWARE")
		cp "$E2E_VARS" "$T/vars.fd" && truncate -s 64M "$T/vars.fd"
		base+=(-drive "if=pflash,format=raw,unit=1,file=$T/vars.fd")
	elif [ -n "${E2E_FIRMWARE:-}" ]; then
		base=(-machine q35,max-fw-size=16M -drive "if=pflash,format=raw,unit=0,readonly=on,file=$E2E_FIRMWARE")
		if [ -n "${E2E_VARS:-}" ]; then
			[ -n "${E2E_RESTART:-}" ] || cp "$E2E_VARS" "$T/vars.fd"
			base+=(-drive "if=pflash,format=raw,unit=1,file=$T/vars.fd")
		fi
	elif [ -n "${E2E_BIOS:-}" ]; then
		base=(-machine q35 -bios "$E2E_BIOS")
	elif [ -n "${E2E_COREBOOT:-}" ]; then
		"$E2E_ROOT/coreboot/with-payload.sh" "$T/coreboot.rom" \
			"console=ttyS0,115200 panic=-1 ${E2E_APPEND-lboot.timeout=0}" \
			"${E2E_INITRD:-$OUT/initramfs.cpio.xz}" "$OUT/bzImage" >"$T/coreboot-build.log" 2>&1 ||
			{ sed 's/^/# /' "$T/coreboot-build.log" | tail -20; not_ok "coreboot ROM with this payload"; }
		base=(-machine q35 -bios "$T/coreboot.rom")
	elif [ -n "${E2E_BOOT_N:-}" ]; then
		base=(-machine "${E2E_MACHINE:-q35}" -boot n)   # SeaBIOS, the NIC's PXE ROM
	else
		base=(-machine "${E2E_MACHINE:-q35}" -kernel "$OUT/bzImage" -initrd "${E2E_INITRD:-$OUT/initramfs.cpio.xz}"
		      -append "console=ttyS0,115200 panic=-1 ${E2E_APPEND-lboot.timeout=0}")
	fi
	# E2E_REBOOT=1: a reset reboots the same machine (its CMOS kept)
	# instead of ending QEMU
	local -a rb=(-no-reboot)
	[ -n "${E2E_REBOOT:-}" ] && rb=()
	"$QEMU" -accel tcg -m "${E2E_MEM:-1024}" -smp 1 -nographic "${rb[@]}" \
		-monitor none -serial "pipe:$T/serial" -nic none \
		"${base[@]}" "$@" >"$T/qemu.log" 2>&1 &
	QEMU_PID=$!
	if [ -n "${E2E_SERIAL_TS:-}" ]; then
		# also $T/serial.ts: each complete line after the host time it
		# arrived (seconds since the epoch), for benchmarks
		cat "$T/serial.out" | tee -a "$T/serial.log" | e2e_stamp >"$T/serial.ts" &
	else
		cat "$T/serial.out" >>"$T/serial.log" &
	fi
	E2E_CAT=$!
	# read-write open never blocks, and keeps QEMU from seeing EOF
	exec {E2E_IN}<>"$T/serial.in"
	E2E_T0=$(date +%s.%N)
}

e2e_stamp() {
	local l
	while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done
}

# send STRING: type characters on the serial console (printf format).
send() { printf "$@" >&"$E2E_IN"; }

# expect REGEX [TIMEOUT_S]: wait until the serial log matches (extended regex).
expect() {
	local re=$1 t=${2:-180} end
	end=$(( $(date +%s) + t ))
	while :; do
		if tr -d '\r' <"$T/serial.log" 2>/dev/null | grep -Eq -- "$re"; then
			return 0
		fi
		if [ -n "$QEMU_PID" ] && ! kill -0 "$QEMU_PID" 2>/dev/null; then
			sleep 0.3
			tr -d '\r' <"$T/serial.log" 2>/dev/null | grep -Eq -- "$re" && return 0
			log "QEMU exited before /$re/ appeared"
			return 1
		fi
		[ "$(date +%s)" -ge "$end" ] && { log "timeout ${t}s waiting for /$re/"; return 1; }
		sleep 0.2
	done
}

# expect_not REGEX: the log does not match (checked now). A missing or
# empty serial log is not evidence of absence: that returns 1 too.
expect_not() {
	[ -s "$T/serial.log" ] || { log "no serial output to check /$1/ against"; return 1; }
	! tr -d '\r' <"$T/serial.log" | grep -Eq -- "$1"
}

# seconds since qemu_start
elapsed() { echo "$(date +%s.%N) $E2E_T0" | awk '{printf "%.2f", $1 - $2}'; }

# wait for QEMU to exit by itself (the target OS powers off), max TIMEOUT s
qemu_wait() {
	local t=${1:-60} i=0
	while [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt $((t * 5)) ] && return 1
		sleep 0.2
	done
	return 0
}

qemu_stop() {
	if [ -n "${QEMU_PID:-}" ]; then
		kill "$QEMU_PID" 2>/dev/null || true
		wait "$QEMU_PID" 2>/dev/null || true
		QEMU_PID=
	fi
	if [ -n "${E2E_IN:-}" ]; then exec {E2E_IN}>&- 2>/dev/null || true; fi
	E2E_IN=
	if [ -n "${E2E_CAT:-}" ]; then
		kill "$E2E_CAT" 2>/dev/null || true
		wait "$E2E_CAT" 2>/dev/null || true
		E2E_CAT=
	fi
}

# e2e_done: exit status for the scenario
e2e_done() { exit "$E2E_FAILED"; }
