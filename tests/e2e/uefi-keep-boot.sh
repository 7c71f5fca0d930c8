#!/bin/bash
# lboot issue 4: an image edited with --remove and --keep still boots in QEMU,
# OVMF through to an OS on a disk.
# - lboot uefi edit OVMF_CODE_4M.fd --keep tests/files/uefi/keep-stock-boot.txt
#   --remove Shell (the keep list lists the Shell; ops apply in order, so the
#   later --remove takes it out again);
# - the input is unchanged, the output has far fewer DXE drivers, exactly the
#   listed ones minus the Shell, and UEFIExtract parses it cleanly;
# - the edited image in pflash (q35, TCG) runs its own BdsDxe, which boots
#   GRUB (EFI/BOOT/BOOTX64.EFI on a virtio-blk disk's ESP), which boots the
#   target OS's kernel + initrd with a marker on its command line; then the
#   same from an AHCI disk (q35's ICH9 SATA).
. "$(dirname "$0")/lib.sh"
e2e_init uefi-keep-boot
CODE=/usr/share/OVMF/OVMF_CODE_4M.fd
VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
KEEP=$E2E_ROOT/tests/files/uefi/keep-stock-boot.txt
MARKER=lboot.e2e=uefi-keep-$$
[ -f "$CODE" ] && [ -f "$VARS" ] || { not_ok "OVMF missing (apt-get install ovmf)"; e2e_done; }
command -v python3 >/dev/null || { not_ok "needs python3"; e2e_done; }
command -v grub-mkstandalone >/dev/null && [ -d /usr/lib/grub/x86_64-efi ] ||
	{ not_ok "needs grub-efi-amd64-bin (grub-mkstandalone)"; e2e_done; }

# --- edit ------------------------------------------------------------------------
cp "$CODE" "$T/in.fd"
SUM0=$(sha256sum <"$T/in.fd")
if "$OUT/lboot" uefi edit "$T/in.fd" --keep "$KEEP" --remove Shell -o "$T/copy.fd" >"$T/edit.log" 2>&1; then
	ok "edit --keep LIST --remove Shell"
else
	sed 's/^/# /' "$T/edit.log"; not_ok "edit --keep LIST --remove Shell"; e2e_done
fi
sed 's/^/# edit: /' "$T/edit.log"
[ "$(sha256sum <"$T/in.fd")" = "$SUM0" ] && [ "$(sha256sum <"$CODE")" = "$SUM0" ] &&
	ok "input image unchanged (sha256)" || not_ok "input image unchanged (sha256)"
cmp -s "$T/in.fd" "$T/copy.fd" && not_ok "output differs from the input" || ok "output differs from the input"

# --- DXE drivers before/after (lboot uefi ls --json) -------------------------------
"$OUT/lboot" uefi ls --json "$T/in.fd" >"$T/in.json" &&
	"$OUT/lboot" uefi ls --json "$T/copy.fd" >"$T/copy.json" || { not_ok "uefi ls --json"; e2e_done; }
cat >"$T/count.py" <<'EOP'
# count.py IN.json OUT.json KEEPFILE REMOVED...: the DXE drivers/applications
# of the volume holding the DXE core, before and after; every keep-list entry
# names a file of the input; after == listed - removed, exactly.
import json, sys
DXE = ('DRIVER', 'APPLICATION', 'COMBINED_PEIM_DRIVER', 'SMM', 'COMBINED_SMM_DXE')
def walk(n, vols):
    if n.get('kind') == 'volume':
        vols.append(n)
    for c in n.get('children') or []:
        walk(c, vols)
def dxe_files(path):
    vols = []
    walk(json.load(open(path)), vols)
    for v in vols:
        files = [c for c in v.get('children') or [] if c.get('kind') == 'file']
        if any(f['type'] == 'DXE_CORE' for f in files):
            return {f['guid']: f for f in files if f['type'] in DXE}
    sys.exit('no volume with a DXE core in ' + path)
before, after = dxe_files(sys.argv[1]), dxe_files(sys.argv[2])
byname = {f['name']: g for g, f in before.items() if f.get('name')}
keep = set()
for line in open(sys.argv[3]):
    e = line.split('#', 1)[0].strip()
    if not e:
        continue
    g = e.upper() if e.upper() in before else byname.get(e)
    if g is None:
        sys.exit('keep list entry %r names no DXE file of the input' % e)
    keep.add(g)
removed = {byname.get(r, r.upper()) for r in sys.argv[4:]}
want = keep - removed
def names(gs, src):
    return ' '.join(sorted(src[g].get('name') or g for g in gs))
size = lambda d: sum(f['size'] for f in d.values())
print('# DXE drivers+applications: input %d (%d bytes), output %d (%d bytes), keep list %d entries'
      % (len(before), size(before), len(after), size(after), len(keep)))
bad = 0
if set(after) != want:
    print('# extra in output: ' + names(set(after) - want, after))
    print('# missing from output: ' + names(want - set(after), before))
    bad = 1
if removed & set(after):
    print('# removed but present: ' + names(removed & set(after), after))
    bad = 1
if not len(after) * 2 < len(before):
    print('# not far fewer: %d -> %d' % (len(before), len(after)))
    bad = 1
sys.exit(bad)
EOP
if python3 "$T/count.py" "$T/in.json" "$T/copy.json" "$KEEP" Shell >"$T/count.log" 2>&1; then
	cat "$T/count.log"
	ok "output holds exactly the listed DXE files minus the Shell, far fewer than the input"
else
	sed 's/^\([^#]\)/# \1/' "$T/count.log"
	not_ok "output holds exactly the listed DXE files minus the Shell, far fewer than the input"
fi
"$OUT/lboot" uefi find "$T/copy.fd" Shell >/dev/null 2>&1 &&
	not_ok "uefi find still finds the removed Shell" || ok "uefi find: no Shell in the output"

# --- UEFIExtract (uefitool-cli) parses the output ------------------------------------
if command -v UEFIExtract >/dev/null; then
	(cd "$T" && UEFIExtract copy.fd report) >"$T/uefiextract.log" 2>&1; rc=$?
	rep=$T/copy.fd.report.txt
	if [ "$rc" = 0 ] && [ -s "$rep" ] && grep -q 'DxeCore' "$rep" && grep -q 'BdsDxe' "$rep" &&
	   ! grep -q 'Shell' "$rep" && ! grep -qiE 'error|invalid|corrupt|fail|mismatch|warning' "$T/uefiextract.log"; then
		ok "UEFIExtract parses the output cleanly, no messages ($(wc -l <"$rep") report lines)"
	else
		sed 's/^/# uefiextract: /' "$T/uefiextract.log" | head -20
		not_ok "UEFIExtract parses the output cleanly (exit $rc)"
	fi
else
	not_ok "UEFIExtract missing (apt-get install uefitool-cli)"
fi

# --- boot: edited OVMF -> its BdsDxe -> GRUB from the ESP -> the target OS ------------
target_os
mkdir -p "$T/esp/EFI/BOOT" "$T/esp/os"
cp "$TARGET_KERNEL" "$T/esp/os/vmlinuz"
cp "$TARGET_INITRD" "$T/esp/os/initrd.img"
cat >"$T/grub.cfg" <<EOC
set timeout=0
echo uefi-keep-grub: config
search --no-floppy --file --set=root /os/vmlinuz
linux /os/vmlinuz console=ttyS0,115200 $MARKER
initrd /os/initrd.img
echo uefi-keep-grub: booting
boot
EOC
grub-mkstandalone -O x86_64-efi -o "$T/esp/EFI/BOOT/BOOTX64.EFI" \
	--modules="part_gpt fat linux search search_fs_file normal echo" \
	--locales= --themes= --fonts= "boot/grub/grub.cfg=$T/grub.cfg" >"$T/grub.log" 2>&1 ||
	{ sed 's/^/# /' "$T/grub.log"; not_ok "grub-mkstandalone"; e2e_done; }
mkpart_vfat "$T/esp.img" 48 "$T/esp" ESP 20260C0C
mkdisk_gpt "$T/disk.img" "$T/esp.img:esp"

# BdsDxe must start the disk's boot option (not a -kernel or Shell path), GRUB
# must run its config, the target kernel must get GRUB's command line.
boot_check() { # WHAT BDS_PATH_REGEX QEMU_ARGS...
	local what=$1 path=$2; shift 2
	E2E_FIRMWARE=$T/copy.fd E2E_VARS=$VARS qemu_start "$@"
	if expect "lboot-target: cmdline: .*$MARKER" 180 &&
	   expect "BdsDxe: starting Boot[0-9A-F]+ .*$path" 1 && expect 'uefi-keep-grub: booting' 1; then
		ok "edited OVMF boots GRUB from the $what ESP into the target OS ($(elapsed) s)"
		log "$what: $(tr -d '\r' <"$T/serial.log" | grep -aoE 'BdsDxe: starting Boot[0-9A-F]+ "[^"]*" from [^ ]+' | head -1)"
	else
		not_ok "edited OVMF boots GRUB from the $what ESP into the target OS"
		cp "$T/serial.log" "$T/serial-$what.log"
	fi
	qemu_stop
}
boot_check virtio-blk 'Pci\(' -drive "file=$T/disk.img,format=raw,if=virtio"
boot_check AHCI 'Sata\(' -drive "file=$T/disk.img,format=raw,if=none,id=d0" -device ide-hd,drive=d0,bus=ide.0
dxefv() { echo $(( $("$OUT/lboot" uefi ls "$1" | awk '$1 == "file" && $2 == "FIRMWARE_VOLUME_IMAGE" { print $4; exit }') )); }
log "sizes: image $(stat -c %s "$T/in.fd") -> $(stat -c %s "$T/copy.fd") B, compressed DXE volume file $(dxefv "$T/in.fd") -> $(dxefv "$T/copy.fd") B"
e2e_done
