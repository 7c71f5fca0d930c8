#!/bin/bash
# lboot entries on fixture trees: JSON shape and values (parsed by python3),
# table output, two filesystems with DIR@uuid=, exit codes.
cd "$(dirname "$0")/../.." || exit 1
L=${LBOOT:-out/lboot}
F=tests/files
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { echo "ok $1"; }
nok() { echo "not ok $1"; }
check() { # name cmd...
	local name=$1; shift
	if "$@"; then ok "$name"; else nok "$name"; fi
}
# json_check NAME FILE PYTHON-EXPR-ON-d
json_check() {
	check "$1" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2])
if not ok:
    print("# got:", json.dumps(d, indent=1)[:3000])
sys.exit(0 if ok else 1)' "$2" "$3"
}

"$L" entries --help >"$tmp/help" 2>&1
check "entries --help exits 0" test $? -eq 0
check "entries --help prints usage" grep -q "usage: lboot entries" "$tmp/help"
"$L" entries >/dev/null 2>&1
check "entries without ROOT exits 2" test $? -eq 2
"$L" entries --bogus "$F" >/dev/null 2>&1
check "entries bad option exits 2" test $? -eq 2
mkdir -p "$tmp/empty/etc"
"$L" entries --json "$tmp/empty" >"$tmp/out" 2>"$tmp/err"
check "entries with no entries exits 1" test $? -eq 1
json_check "entries no entries prints []" "$tmp/out" 'd == []'
"$L" entries "$tmp/nonexistent" >/dev/null 2>"$tmp/err"
check "entries missing dir exits 1" test $? -eq 1
check "entries missing dir names it" grep -q "nonexistent" "$tmp/err"

# systemd-boot ESP (Arch)
"$L" entries --json "$F/bls/arch-esp@uuid=1234-ABCD,label=ESP" >"$tmp/arch.json" 2>"$tmp/arch.err"
check "entries arch ESP exits 0" test $? -eq 0
json_check "entries arch ESP order" "$tmp/arch.json" \
	'[e["id"] for e in d] == ["arch-lts", "arch-fallback", "arch-arm", "arch"]'
json_check "entries arch ESP default from loader.conf glob" "$tmp/arch.json" \
	'[e["id"] for e in d if e["default"]] == ["arch-lts"]'
json_check "entries arch ESP fields" "$tmp/arch.json" \
	'd[3]["initrd"] == ["/intel-ucode.img", "/initramfs-linux.img"] and d[3]["kernel"] == "/vmlinuz-linux" and d[3]["fs"] == "1234-ABCD" and d[3]["type"] == "linux" and d[3]["source"] == "/loader/entries/arch.conf:2" and d[3]["cmdline"].endswith("rw quiet") and d[2]["hidden"] is True'
check "entries arch ESP messages on stderr" grep -q "windows.conf: skipped" "$tmp/arch.err"

# real kernel-install output: version/sort_key present
"$L" entries --json "$F/bls/kernel-install" >"$tmp/ki.json" 2>/dev/null
json_check "entries kernel-install versions" "$tmp/ki.json" \
	'[e["version"] for e in d] == ["6.1.0-18-amd64", "6.1.0-13-amd64"] and all(e["sort_key"] == "debian" for e in d) and d[0]["default"]'

# syslinux family
"$L" entries --json "$F/syslinux/arch@label=ARCH_ROOT" "$F/syslinux/alpine@uuid=3c8d3a2e-6f1b-4e0a-9d1c-7b2a5e4f3d21" >"$tmp/sx.json" 2>/dev/null
json_check "entries syslinux+extlinux two roots" "$tmp/sx.json" \
	'[e["title"] for e in d] == ["Arch Linux", "Arch Linux Fallback", "Linux lts"] and [e["fs"] for e in d] == ["ARCH_ROOT", "ARCH_ROOT", "3c8d3a2e-6f1b-4e0a-9d1c-7b2a5e4f3d21"] and [e["default"] for e in d] == [True, False, False]'

# two filesystems: ESP GRUB stub searching the /boot filesystem by UUID
mkdir -p "$tmp/esp/EFI/fedora" "$tmp/boot/grub2" "$tmp/boot/loader/entries"
cat >"$tmp/esp/EFI/fedora/grub.cfg" <<'CFG'
search --no-floppy --fs-uuid --set=dev 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
set boot=${dev}
set prefix=($boot)/grub2
export $prefix
configfile $prefix/grub.cfg
CFG
cat >"$tmp/boot/grub2/grub.cfg" <<'CFG'
set timeout=5
search --no-floppy --fs-uuid --set=root 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
menuentry 'Fedora Linux (6.5.6-300.fc39.x86_64) 39' --id fedora-6.5 {
	linux /vmlinuz-6.5.6-300.fc39.x86_64 root=UUID=r00t ro rhgb quiet
	initrd /initramfs-6.5.6-300.fc39.x86_64.img
}
CFG
"$L" entries --json "$tmp/esp@uuid=AAAA-0001,label=EFI" "$tmp/boot@uuid=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0" >"$tmp/two.json" 2>"$tmp/two.err"
check "entries two filesystems exits 0" test $? -eq 0
json_check "entries two filesystems: stub followed, listed once" "$tmp/two.json" \
	'len(d) == 1 and d[0]["fs"] == "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0" and d[0]["kernel"] == "/vmlinuz-6.5.6-300.fc39.x86_64" and d[0]["initrd"] == ["/initramfs-6.5.6-300.fc39.x86_64.img"] and d[0]["default"]'

# table output
"$L" entries "$F/bls/arch-esp" >"$tmp/table" 2>/dev/null
check "entries table marks the default" grep -q '^  0 \* Arch Linux (linux-lts)' "$tmp/table"
check "entries table shows timeout" grep -q '^timeout: 4 s' "$tmp/table"

# JSON escaping: quotes, backslash, control characters, invalid UTF-8
mkdir -p "$tmp/esc/loader/entries"
printf 'k' >"$tmp/esc/vmlinuz"
printf 'title a"b\\c\001d\tz \303\251 \377x\nlinux /vmlinuz\noptions q="1 2"\n' >"$tmp/esc/loader/entries/e.conf"
"$L" entries --json "$tmp/esc" >"$tmp/esc.json" 2>/dev/null
json_check "entries JSON escaping" "$tmp/esc.json" \
	'd[0]["title"] == "a\"b\\c\x01d\tz \u00e9 \u00ffx" and d[0]["cmdline"] == "q=\"1 2\""'

# GRUB device names in ROOT specs (they contain a comma)
mkdir -p "$tmp/g2/esp/EFI/debian" "$tmp/g2/boot/grub"
printf "set root='hd0,gpt2'\nset prefix=(\$root)/grub\nconfigfile \$prefix/grub.cfg\n" >"$tmp/g2/esp/EFI/debian/grub.cfg"
printf "menuentry 'Debian GNU/Linux' {\n linux /vmlinuz-6.1.0-18-amd64 root=/dev/sda2 ro\n initrd /initrd.img-6.1.0-18-amd64\n}\n" >"$tmp/g2/boot/grub/grub.cfg"
"$L" entries --json "$tmp/g2/esp@uuid=E1,grub=hd0,gpt1" "$tmp/g2/boot@grub=hd0,gpt2,uuid=B2,label=BOOT" >"$tmp/g2.json" 2>/dev/null
json_check "entries grub=hd0,gpt2 in ROOT spec" "$tmp/g2.json" \
	'len(d) == 1 and d[0]["fs"] == "B2" and d[0]["title"] == "Debian GNU/Linux" and d[0]["initrd"] == ["/initrd.img-6.1.0-18-amd64"]'

# a separate RHEL 8 /boot: GRUB's blscfg lists the BLS entries, once, with
# $kernelopts from grubenv expanded (not a second raw copy of them)
"$L" entries --json "$F/grub/rhel8/boot@uuid=b00710ad-0000-4000-8000-000000000001" >"$tmp/rhel8.json" 2>/dev/null
json_check "entries rhel8 /boot lists each BLS entry once" "$tmp/rhel8.json" \
	'len(d) == 2 and len(set(e["kernel"] for e in d)) == 2'
json_check "entries rhel8 kernelopts expanded" "$tmp/rhel8.json" \
	'all("$" not in e["cmdline"] and "root=" in e["cmdline"] for e in d)'
json_check "entries rhel8 default is the newest" "$tmp/rhel8.json" \
	'[e["kernel"] for e in d if e["default"]] == ["/vmlinuz-4.18.0-513.5.1.el8_9.x86_64"]'

# the Debian 12 installer's real GRUB menu (debian-installer-12-netboot-amd64):
# nested submenus, loadfont/background_image/play ignored, 'Install' default
"$L" entries --json "$F/grub/debian-installer" >"$tmp/di.json" 2>/dev/null
json_check "entries debian-installer grub: default is Install" "$tmp/di.json" \
	'[e["title"] for e in d if e["default"]] == ["Install"] and d[0]["cmdline"] == "BOOT_IMAGE=/debian-installer/amd64/linux vga=788 --- quiet"'
json_check "entries debian-installer grub: all 26 entries with kernel and initrd" "$tmp/di.json" \
	'len(d) == 26 and all(e["kernel"] == "/debian-installer/amd64/linux" and e["initrd"] == ["/debian-installer/amd64/initrd.gz"] for e in d)'
json_check "entries debian-installer grub: nested submenu ids" "$tmp/di.json" \
	'any(e["id"] == "Advanced options ...>... Desktop environment menu ...>... KDE Plasma desktop boot menu ...>... Install" and e["cmdline"] == "BOOT_IMAGE=/debian-installer/amd64/linux desktop=kde vga=788 --- quiet" for e in d)'
json_check "entries debian-installer grub: rescue mode" "$tmp/di.json" \
	'any(e["id"] == "Advanced options ...>... Rescue mode" and "rescue/enable=true" in e["cmdline"] for e in d)'
