# Helpers for the server-storage scenarios (XFS, btrfs, MD RAID1, LVM):
# sourced after lib.sh. Filesystems are made on image files by the real
# tools (mkfs.xfs, mkfs.btrfs) and filled through a loop mount (root);
# MD arrays and LVM volumes are made by the real mdadm and lvm2 inside a
# throwaway QEMU guest (the firmware kernel has MD and device-mapper; the
# host kernel may have neither), from a busybox initramfs with mdadm, lvm
# and their libraries. Loop devices and mounts are undone by a trap on
# every exit path.

STG_MNT=
STG_LOOP=
stg_cleanup() {
	if [ -n "$STG_MNT" ]; then umount "$STG_MNT" 2>/dev/null || umount -l "$STG_MNT" 2>/dev/null; fi
	if [ -n "$STG_LOOP" ]; then losetup -d "$STG_LOOP" 2>/dev/null; fi
	STG_MNT= STG_LOOP=
}
trap 'stg_cleanup; qemu_stop; e2e_dump_on_fail' EXIT

# stg_need_root: skip the scenario (not a pass) when not root
stg_need_root() {
	if [ "$(id -u)" != 0 ]; then skip "scenario" "needs root (loop mounts)"; exit 0; fi
}

# stg_fill IMG FSTYPE SRC_DIR [PRE_CMD] [POST_CMD]: loop-mount IMG, run
# PRE_CMD (with $M the mount point), copy SRC_DIR into $M/$STG_DEST, run
# POST_CMD, unmount.
stg_fill() {
	local img=$1 type=$2 src=$3 pre=${4:-} post=${5:-}
	STG_MNT=$T/mnt; mkdir -p "$STG_MNT"
	STG_LOOP=$(losetup -f --show "$img") || { not_ok "losetup $img"; exit 1; }
	mount -t "$type" "$STG_LOOP" "$STG_MNT" || { not_ok "mount $type $img"; exit 1; }
	M=$STG_MNT
	if [ -n "$pre" ]; then eval "$pre" || { not_ok "setup in $img"; exit 1; }; fi
	if [ -n "$src" ]; then
		cp -a "$src"/. "$STG_MNT/${STG_DEST:-}" || { not_ok "copy into $img"; exit 1; }
	fi
	sync
	if [ -n "$post" ]; then eval "$post" || { not_ok "post-copy step in $img"; exit 1; }; fi
	umount "$STG_MNT" || { not_ok "umount $img"; exit 1; }
	losetup -d "$STG_LOOP"
	STG_MNT= STG_LOOP=
}

# The builder guest's initramfs: busybox, mdadm, lvm and the libraries
# they need (cached).
stg_builder_initrd() {
	STG_BUILDER=$E2E_CACHE/storage-builder.cpio.gz
	local stamp=$E2E_CACHE/storage-builder.stamp want
	want=$(ls -l --time-style=+%s /bin/busybox /usr/sbin/mdadm /usr/sbin/lvm "$E2E_ROOT/tests/e2e/storage-lib.sh" | md5sum)
	[ -f "$STG_BUILDER" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
	local R=$E2E_CACHE/storage-builder.root
	rm -rf "$R"; mkdir -p "$R"/{bin,sbin,etc/lvm,proc,sys,dev,run,tmp,lib64,lib/x86_64-linux-gnu}
	cp /bin/busybox "$R/bin/busybox"
	cp /usr/sbin/mdadm /usr/sbin/lvm "$R/sbin/"
	for l in $(ldd /usr/sbin/mdadm /usr/sbin/lvm | awk '/=>/ {print $3} /ld-linux/ {print $1}' | sort -u); do
		cp -L "$l" "$R$l" 2>/dev/null || cp -L "$l" "$R/lib/x86_64-linux-gnu/"
	done
	for c in pvcreate vgcreate lvcreate vgchange lvs pvs vgs lvextend; do ln -s lvm "$R/sbin/$c"; done
	cat >"$R/etc/lvm/lvm.conf" <<'EOT'
devices { use_devicesfile = 0 obtain_device_list_from_udev = 0 }
activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }
global { use_lvmpolld = 0 }
EOT
	cat >"$R/init" <<'EOT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mkdir -p /run/lock/lvm /run/lvm /tmp
echo "BUILDER-START"
sh -ex /job.sh
echo "BUILDER-RC=$?"
sync
poweroff -f
EOT
	chmod +x "$R/init"
	(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$STG_BUILDER.tmp" &&
		mv "$STG_BUILDER.tmp" "$STG_BUILDER" || { not_ok "builder initramfs"; exit 1; }
	echo "$want" >"$stamp"
}

# stg_build JOB_SCRIPT DISK...: run JOB_SCRIPT (shell, as /job.sh) in the
# builder guest with the disks as virtio vda, vdb, ... Fails the scenario
# unless the job ends with status 0.
stg_build() {
	local job=$1; shift
	local -a drives=()
	local d jr=$T/builder-job
	stg_builder_initrd
	rm -rf "$jr"; mkdir -p "$jr"
	cp "$job" "$jr/job.sh"
	(cd "$jr" && echo job.sh | cpio -o -H newc --quiet | gzip -1) >"$T/job.cpio"
	cat "$STG_BUILDER" "$T/job.cpio" >"$T/builder-initrd"
	for d in "$@"; do drives+=(-drive "file=$d,format=raw,if=virtio"); done
	timeout 300 "$QEMU" -accel tcg -m 512 -smp 1 -nographic -no-reboot -monitor none \
		-serial "file:$T/builder.log" -nic none -machine q35 \
		-kernel "$OUT/bzImage" -initrd "$T/builder-initrd" \
		-append "console=ttyS0,115200 rdinit=/init panic=-1 quiet" \
		"${drives[@]}" >/dev/null 2>&1
	if ! grep -q 'BUILDER-RC=0' "$T/builder.log"; then
		log "builder guest failed:"; tr -d '\r' <"$T/builder.log" | tail -n 30 | sed 's/^/# | /'
		not_ok "build the disks in the builder guest"; exit 1
	fi
}
