#!/bin/bash
# Issue 10: a monotonic TPM NV counter as the verified-boot manifest floor.
# The firmware initramfs is built with `mkinitramfs --trust KEY
# --manifest-floor-nv 0x01500020`; the counter lives in swtpm's state
# (defined and incremented on the host with `lboot tpm --tcp ... counter`,
# the same state then given to QEMU's tpm-tis). Two entries signed by
# manifests version 3 and 5, counter 4: version 3 is refused with the
# floor named, version 5 boots. Without a TPM: one line, fail closed,
# nothing boots.
. "$(dirname "$0")/lib.sh"
e2e_init measure-floor-nv
for c in swtpm minisign; do
	command -v $c >/dev/null || { not_ok "$c not installed (scripts/deps.sh)"; exit 1; }
done
target_os
K=$T/keys R=$T/root IDX=0x01500020
mkdir -p "$K" "$R/loader/entries" "$T/st"
minisign -G -W -p "$K/k.pub" -s "$K/k.key" >/dev/null || { not_ok "minisign -G"; exit 1; }
cp "$TARGET_KERNEL" "$R/vmlinuz"
cp "$TARGET_INITRD" "$R/initrd.img"
for e in old:a1:3 new:a2:5; do
	IFS=: read -r id sk ver <<<"$e"
	cat >"$R/loader/entries/$id.conf" <<EOT
title   $id
sort-key $sk
linux   /vmlinuz
initrd  /initrd.img
options console=ttyS0 lboot-test=$id lboot-test.tpm quiet
EOT
	"$OUT/lboot" manifest -o "$R/loader/entries/$id.manifest" --entry "$id" --kernel "$R/vmlinuz" \
		--initrd "$R/initrd.img" --cmdline "initrd=\\initrd.img console=ttyS0 lboot-test=$id lboot-test.tpm quiet" \
		--version "$ver" --expires 2099-01-01 &&
	minisign -S -s "$K/k.key" -m "$R/loader/entries/$id.manifest" -t "$id" >/dev/null ||
		{ not_ok "manifest $id"; exit 1; }
done
printf 'default old.conf\ntimeout 0\n' >"$R/loader/loader.conf"
"$OUT/lboot" mkinitramfs -o "$T/fw.cpio.xz" --init "$OUT/lboot-target" --trust "$K/k.pub" \
	--manifest-floor-nv $IDX 2>"$T/mk.log" && ok "mkinitramfs --manifest-floor-nv" ||
	{ not_ok "mkinitramfs --manifest-floor-nv"; cat "$T/mk.log"; exit 1; }
mkpart_ext4 "$T/p1.img" 48 "$R" FLOOR
mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"

# the counter, on the host, in the state QEMU's swtpm will use
port=$(( 20000 + (RANDOM * 7 + $$) % 40000 ))
swtpm socket --tpm2 --tpmstate dir="$T/st" --server type=tcp,port=$port,bindaddr=127.0.0.1 \
	--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 --flags not-need-init,startup-clear \
	>"$T/swtpm-host.log" 2>&1 &
HS=$!
for i in $(seq 50); do "$OUT/lboot" tpm --tcp 127.0.0.1:$port getrandom 1 >/dev/null 2>&1 && break; sleep 0.1; done
lt() { "$OUT/lboot" tpm --tcp 127.0.0.1:$port "$@"; }
lt counter $IDX define && for i in 1 2 3 4; do lt counter $IDX increment || break; done
v=$(lt counter $IDX read)
kill $HS; wait $HS 2>/dev/null
[ "$v" = 4 ] && ok "NV counter $IDX at 4 (lboot tpm counter)" || not_ok "NV counter $IDX at 4 (got '$v')"

swtpm socket --tpm2 --tpmstate dir="$T/st" --ctrl type=unixio,path="$T/sock" --terminate \
	>"$T/swtpm.log" 2>&1 &
SWTPM=$!
trap 'qemu_stop; kill $SWTPM 2>/dev/null; e2e_dump_on_fail' EXIT
for i in $(seq 1 50); do [ -S "$T/sock" ] && break; sleep 0.1; done
E2E_INITRD=$T/fw.cpio.xz E2E_APPEND="lboot.timeout=0" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio" \
	-chardev socket,id=chrtpm,path="$T/sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
	-device tpm-tis,tpmdev=tpm0
expect "lboot: manifest floor 4 \(NV counter $IDX holds 4\)" 180 && ok "the floor read from the TPM at boot" ||
	not_ok "the floor read from the TPM at boot"
expect "lboot: refused: 'old' \(/dev/vda1\): /loader/entries/old.manifest: version 3 below the floor 4 \(NV counter $IDX\)" 120 &&
	ok "manifest v3 refused: below the NV floor, named" || not_ok "manifest v3 refused: below the NV floor, named"
expect "lboot: verified 'new': kernel, 1 initrd and command line by manifest /loader/entries/new.manifest v5" 120 &&
	ok "manifest v5 verified" || not_ok "manifest v5 verified"
expect 'lboot-target: cmdline: .*lboot-test=new' 240 && ok "v5 entry booted" || not_ok "v5 entry booted"
# the verifier's evidence is measured into PCR 8 (issue 23): the log the OS
# gets names the manifest, its version and the key
expect 'lboot-target: tpmlog-end' 120
tr -d '\r' <"$T/serial.log" | sed -n 's/^lboot-target: tpmlog: \([0-9a-f]*\)$/\1/p' | xxd -r -p >"$T/log.bin"
grep -aq "lboot: verify: verified 'new': kernel, 1 initrd and command line by manifest /loader/entries/new.manifest v5, key " "$T/log.bin" &&
	ok "PCR 8 holds the verdict: manifest v5 and its key" || not_ok "PCR 8 holds the verdict: manifest v5 and its key"
qemu_stop
kill $SWTPM 2>/dev/null; wait $SWTPM 2>/dev/null

# no TPM: fail closed, one line, nothing boots
E2E_INITRD=$T/fw.cpio.xz E2E_APPEND="lboot.timeout=0" \
	qemu_start -drive "file=$T/disk.img,format=raw,if=virtio"
expect "lboot: verified boot policy invalid, nothing can boot: manifest-floor-nv $IDX: no usable TPM to read the floor from" 180 &&
	ok "no TPM: one line, the policy fails closed" || not_ok "no TPM: one line, the policy fails closed"
expect "lboot: refused: 'new' \(/dev/vda1\): policy: manifest-floor-nv $IDX" 120 &&
	ok "no TPM: the v5 entry is refused too" || not_ok "no TPM: the v5 entry is refused too"
expect 'lboot> ' 60 && expect_not 'lboot-target: TARGET-OS-UP' && ok "no TPM: nothing booted, menu up" ||
	not_ok "no TPM: nothing booted, menu up"
e2e_done
