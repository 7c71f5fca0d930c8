#!/bin/bash
# lboot uefi edit on Debian's OVMF_CODE_4M.fd, then boot the result in QEMU:
# - Shell removed and rebuilt from its PE32 (--insert-pe, same GUID) inside
#   the LZMA-compressed DXE volume: BDS must start "EFI Internal Shell".
# - Control: Shell removed only: BDS finds nothing to boot, no shell.
. "$(dirname "$0")/lib.sh"
e2e_init uefi-edit-boot
CODE=/usr/share/OVMF/OVMF_CODE_4M.fd
VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
SHELL_GUID=7C04A583-9E3E-4F1C-AD65-E05268D0B4D1
[ -f "$CODE" ] && [ -f "$VARS" ] || { not_ok "OVMF missing (apt-get install ovmf)"; e2e_done; }

"$OUT/lboot" uefi extract "$CODE" Shell -o "$T/x" >/dev/null || { not_ok "extract Shell"; e2e_done; }
PE=$(ls "$T/x/"*PE32.efi | head -1)
if "$OUT/lboot" uefi edit "$CODE" --remove Shell --insert-pe "$PE" --name Shell --guid $SHELL_GUID \
	--type application -o "$T/shell.fd" >"$T/edit.log" 2>&1; then
	ok "edit: remove + insert-pe Shell"
else
	sed 's/^/# /' "$T/edit.log"; not_ok "edit: remove + insert-pe Shell"; e2e_done
fi
cmp -s "$CODE" "$T/shell.fd" && not_ok "edited image differs from the input" || ok "edited image differs from the input"

E2E_FIRMWARE=$T/shell.fd E2E_VARS=$VARS E2E_MEM=512 qemu_start
if expect 'starting Boot[0-9A-F]+ "EFI Internal Shell".*FvFile\('$SHELL_GUID'\)' 180 &&
   expect 'UEFI Interactive Shell' 60; then
	ok "edited OVMF boots to the re-inserted Shell ($(elapsed) s)"
else
	not_ok "edited OVMF boots to the re-inserted Shell"
fi
qemu_stop

"$OUT/lboot" uefi edit "$CODE" --remove Shell -o "$T/noshell.fd" >/dev/null 2>&1 && ok "edit: remove Shell" ||
	{ not_ok "edit: remove Shell"; e2e_done; }
E2E_FIRMWARE=$T/noshell.fd E2E_VARS=$VARS E2E_MEM=512 qemu_start
if expect 'No bootable option or device was found' 180 && expect_not 'Interactive Shell'; then
	ok "control: without the Shell file BDS finds nothing to boot ($(elapsed) s)"
else
	not_ok "control: without the Shell file BDS finds nothing to boot"
fi
qemu_stop
e2e_done
