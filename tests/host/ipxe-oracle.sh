#!/bin/bash
# Real iPXE as the oracle for lboot's iPXE interpreter (src/config/ipxe.c).
#
# QEMU (SeaBIOS, TCG) network-boots with Debian's ipxe-qemu NIC ROM
# (efi-virtio.rom, iPXE 1.0.0+git-20190125, its BIOS half) from QEMU's user
# network: DHCP hands out http://10.0.2.2:PORT/CASE.ipxe, a python3
# http.server on the host's loopback serves the scripts, Debian's kernel and
# small initrds. iPXE runs each script and boots the kernel; the guest's
# /init (built here) prints /proc/cmdline and every file the initrds put in
# its root filesystem (path, mode, content), then powers off. The same
# script then goes through `lboot ipxe --files ROOT` with the same
# settings, and the test compares:
#   - the kernel command line (iPXE's ${...} expansion, imgargs, typed
#     settings, relative URLs, menus/goto/chain deciding which line runs);
#   - the files from the initrds (which images are passed, in which order:
#     a later one overwrites /oracle/last; cpio-wrapped "initrd URL /path
#     mode=0600" files at their path with their mode);
#   - the HTTP requests in order (both fetch the same files, 404s
#     included).
# SeaBIOS rather than OVMF: this 2019 iPXE hands initrds to an EFI kernel
# only by name through initrd= (no initrd.magic, no cpio wrapping under
# EFI); its BIOS bzImage loader does both, as current iPXE does under EFI.
# ${platform} is therefore "pcbios" here and ${buildarch} "i386" (the ROM is
# the 32-bit BIOS build); both are given to lboot as settings.
# no_timer_check: the guest kernel under TCG on a loaded machine otherwise
# sometimes panics with "IO-APIC + timer doesn't work".
cd "$(dirname "$0")/../.." || exit 1
ROOT_DIR=$PWD
LBOOT=$ROOT_DIR/out/lboot
name=ipxe-oracle

need() { command -v "$1" >/dev/null 2>&1; }
for t in qemu-system-x86_64 python3 musl-gcc cpio gzip; do
	need "$t" || { echo "skip $name: $t not installed"; exit 0; }
done
[ -x "$LBOOT" ] || { echo "not ok $name: out/lboot missing (make all)"; exit 1; }
[ -f /usr/lib/ipxe/qemu/efi-virtio.rom ] ||
	{ echo "skip $name: ipxe-qemu not installed (/usr/lib/ipxe/qemu/efi-virtio.rom)"; exit 0; }
KERNEL=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n1)
[ -f "$KERNEL" ] || { echo "skip $name: no Debian kernel in /boot (linux-image-amd64)"; exit 0; }

T=$(mktemp -d)
HTTP_PID=
cleanup() {
	[ -n "$HTTP_PID" ] && kill "$HTTP_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
W=$T/www
mkdir -p "$W/sub" "$W/files"

# --- the guest: an /init that reports what it was given ----------------------
cat >"$T/init.c" <<'EOF'
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512], buf[65];

	while (d && (e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
		if (!strcmp(p, "/proc") || !strcmp(p, "/dev") || !strcmp(p, "/init") ||
		    !strcmp(p, "/root") || lstat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(p);
		} else if (S_ISREG(st.st_mode)) {
			int fd = open(p, O_RDONLY);
			ssize_t n = fd < 0 ? 0 : read(fd, buf, 64);
			if (fd >= 0)
				close(fd);
			if (n < 0)
				n = 0;
			for (ssize_t i = 0; i < n; i++)
				if (buf[i] < 0x21 || buf[i] > 0x7e)
					buf[i] = '.';
			buf[n] = 0;
			dprintf(1, "ORACLE-FILE: %s %04o %s\n", p, st.st_mode & 07777, buf);
		}
	}
	if (d)
		closedir(d);
}

int main(void)
{
	char buf[4096];
	ssize_t n = 0;
	int fd;

	mount("proc", "/proc", "proc", 0, NULL);
	fd = open("/proc/cmdline", O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n < 0)
		n = 0;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	dprintf(1, "\nORACLE-CMDLINE: %s\n", buf);
	walk("/");
	dprintf(1, "ORACLE-END\n");
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
EOF
musl-gcc -static -Os -s -o "$T/init" "$T/init.c" || { echo "not ok $name: build guest init"; exit 1; }
"$LBOOT" mkinitramfs --compress gzip -o "$W/base.img" --init "$T/init" 2>"$T/mk.err" ||
	{ echo "not ok $name: mkinitramfs: $(cat "$T/mk.err")"; exit 1; }
cp "$KERNEL" "$W/vmlinuz"
# marker initrds: each holds /oracle/NAME and overwrites /oracle/last
for m in m1 m2 m3; do
	mkdir -p "$T/$m/oracle"
	echo "$m" >"$T/$m/oracle/$m"
	echo "$m" >"$T/$m/oracle/last"
	(cd "$T/$m" && find oracle | cpio -o -H newc --quiet) >"$W/sub/$m.cpio"
done
echo '{"ignition":{"version":"3.3.0"}}' >"$W/files/config.ign"
echo 'hello' >"$W/files/hello.txt"

# --- the scripts ----------------------------------------------------------------
cat >"$W/images.ipxe" <<'EOF'
#!ipxe
dhcp
set base sub/
set x:hex 01:02:0a
kernel --name k ${base}../vmlinuz console=ttyS0 no_timer_check first=line
initrd base.img
initrd --name m1 sub/m1.cpio
initrd sub/m2.cpio
initrd ${base}m3.cpio
imgfree m2.cpio
imgargs k console=ttyS0 no_timer_check panic=-1 oracle.mac=${net0/mac} oracle.raw=${mac:hexraw} oracle.hyp=${netX/mac:hexhyp} oracle.ip=${ip} oracle.gw=${gateway} oracle.mask=${netmask} oracle.uuid=${uuid} oracle.serial=${serial} oracle.mfg=${manufacturer} oracle.prod=${product} oracle.platform=${platform} oracle.arch=${buildarch} oracle.x=${x} oracle.xs=${x:hexraw} oracle.none=${nothing}.
boot k
EOF
cat >"$W/cpio.ipxe" <<'EOF'
#!ipxe
dhcp
kernel vmlinuz console=ttyS0 no_timer_check panic=-1 oracle.case=cpio
initrd base.img
initrd files/config.ign /etc/config.ign mode=0600
initrd files/hello.txt /hello.txt
initrd sub/m3.cpio
boot
EOF
cat >"$W/flow.ipxe" <<'EOF'
#!ipxe
dhcp
set n:int32 1
inc n 2
set word abc
kernel nothere/vmlinuz || goto fallback
echo not reached
:fallback
iseq ${word} abd && set word wrong ||
menu Oracle menu
item --gap Pick one
item one First
item --default two Second
choose --timeout 100 pick || goto failed
iseq ${pick} two && goto two ||
goto failed
:two
chain sub/next.ipxe ignored=arg
:failed
echo failed
EOF
cat >"$W/sub/next.ipxe" <<'EOF'
#!ipxe
initrd ../base.img
initrd m1.cpio
kernel ../vmlinuz console=ttyS0 no_timer_check panic=-1 oracle.n=${n} oracle.pick=${pick} oracle.word=${word} oracle.ns=${next-server}
boot
EOF

# exit codes of chained scripts, "a && b" as a failing line, "||", ";"
cat >"$W/pitfall.ipxe" <<'EOF'
#!ipxe
dhcp
set trail s
chain sub/pit.ipxe && set trail ${trail}-pitok || set trail ${trail}-pitfail
chain sub/exit0.ipxe && set trail ${trail}-e0ok || set trail ${trail}-e0fail
chain sub/exit3.ipxe && set trail ${trail}-e3ok || set trail ${trail}-e3fail
isset ${nothing} || set trail ${trail}-unset
iseq ${trail} x ; set trail ${trail}-semi
set n:int32 -2
inc n 5
set h:hexhyp 0a-0b
imgfree
kernel vmlinuz console=ttyS0 no_timer_check panic=-1 oracle.trail=${trail} oracle.n=${n} oracle.n16=${n:uint16} oracle.h=${h} oracle.hs=${h:hex} ${h:uint8}
initrd base.img
boot
EOF
printf '#!ipxe\nset trail ${trail}-pit\niseq 1 2 && set trail ${trail}-never\nset trail ${trail}-notreached\n' >"$W/sub/pit.ipxe"
printf '#!ipxe\nset trail ${trail}-e0\nexit\nset trail ${trail}-no\n' >"$W/sub/exit0.ipxe"
printf '#!ipxe\nset trail ${trail}-e3\nexit 3\n' >"$W/sub/exit3.ipxe"

# "boot" with nothing selected; a chained script that returned is passed to
# the kernel as an initrd (wrapped in cpio at the path given as its argument)
cat >"$W/leftover.ipxe" <<'EOF'
#!ipxe
dhcp
set trail s
boot || set trail ${trail}-nosel-caught
set trail ${trail}-after
initrd base.img
chain sub/exit0.ipxe /leftover.ipxe
kernel vmlinuz console=ttyS0 no_timer_check panic=-1 oracle.case=leftover oracle.trail=${trail}
boot
EOF

# --- HTTP server -----------------------------------------------------------------
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -u -m http.server --bind 127.0.0.1 --directory "$W" "$PORT" >"$T/http.log" 2>&1 &
HTTP_PID=$!
for _ in $(seq 50); do
	python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/base.img')" 2>/dev/null && break
	sleep 0.1
done
: >"$T/http.log.skip"
wc -l <"$T/http.log" >"$T/http.mark"

MAC=52:54:00:12:34:56
QUUID=5b1e4b3c-aa55-4d3e-8c1b-123456789abc

failed=0
for c in ${IPXE_ORACLE_CASES:-images cpio flow pitfall leftover}; do
	start=$(wc -l <"$T/http.log")
	timeout 300 nice qemu-system-x86_64 -accel tcg -machine pc -m 512 -display none \
		-serial file:"$T/$c.serial" -boot n -no-reboot \
		-uuid $QUUID -smbios type=1,manufacturer=Acme,product=Box1,serial=SN0042 \
		-nic user,model=virtio-net-pci,mac=$MAC,bootfile=http://10.0.2.2:$PORT/$c.ipxe \
		>"$T/$c.qemu" 2>&1
	tr -d '\r' <"$T/$c.serial" >"$T/$c.out"
	# the HTTP requests of this run: "GET path status"
	tail -n +$((start + 1)) "$T/http.log" |
		sed -n 's/.*"GET \([^ ]*\) HTTP[^"]*" \([0-9]*\).*/\1 \2/p' >"$T/$c.ipxe-gets"
	if ! grep -q '^ORACLE-END' "$T/$c.out"; then
		echo "not ok $name/$c: real iPXE did not boot the guest"
		tail -5 "$T/$c.out" | sed 's/^/# | /'
		sed 's/^/# http | /' "$T/$c.ipxe-gets"
		failed=1
		continue
	fi
	"$LBOOT" ipxe --json --trace --files "$W" --url "http://10.0.2.2:$PORT/$c.ipxe" \
		--set net0/mac=$MAC --set ip=10.0.2.15 --set netmask=255.255.255.0 \
		--set gateway=10.0.2.2 --set next-server=10.0.2.2 --set uuid=$QUUID \
		--set serial=SN0042 --set manufacturer=Acme --set product=Box1 \
		--set platform=pcbios --set buildarch=i386 "$W/$c.ipxe" >"$T/$c.json" 2>"$T/$c.trace"
	python3 - "$T/$c.json" "$T/$c.out" "$T/$c.trace" "$T/$c.ipxe-gets" "$W" "$c" "$PORT" <<'EOF'
import json, os, subprocess, sys
jf, outf, tracef, getsf, www, case, port = sys.argv[1:]
res = json.load(open(jf))
out = open(outf, errors='replace').read().splitlines()
ok = True
def check(what, got, want):
    global ok
    if got == want:
        print(f"ok ipxe-oracle/{case}: {what}")
    else:
        ok = False
        print(f"not ok ipxe-oracle/{case}: {what}")
        print(f"#   real iPXE: {want!r}")
        print(f"#   lboot:     {got!r}")
check("lboot boots", res["action"], "boot")
cmd = [l[len("ORACLE-CMDLINE: "):] for l in out if l.startswith("ORACLE-CMDLINE: ")]
check("kernel command line", res.get("cmdline") or "", cmd[0] if cmd else None)
# files the initrds put in the root, as lboot's initrd list predicts them
pred = {}
prefix = f"http://10.0.2.2:{port}/"
for rd in res["initrd"]:
    path = os.path.join(www, rd["url"][len(prefix):])
    data = open(path, "rb").read()
    if rd["cpio"]:
        shown = "".join(chr(b) if 0x21 <= b <= 0x7e else "." for b in data[:64])
        pred[rd["cpio"]] = (rd["mode"], shown)
    elif path.endswith(".cpio"):
        # a marker archive: /oracle/NAME and /oracle/last hold "NAME\n"
        stem = os.path.basename(path)[:-5]
        names = subprocess.run(["cpio", "-it", "--quiet"], input=data,
                               capture_output=True).stdout.decode().split()
        for n in names:
            if n.startswith("oracle/"):
                pred["/" + n] = ("0644", stem + ".")
real = {}
for l in out:
    if l.startswith("ORACLE-FILE: "):
        p = l.split(" ", 3)
        real[p[1]] = (p[2], p[3] if len(p) > 3 else "")
check("files from the initrds (path mode content)", sorted(pred.items()), sorted(real.items()))
# HTTP requests in order (lboot's --trace vs the server log)
base = f"http://10.0.2.2:{port}"
lg = []
for l in open(tracef):
    if l.startswith("fetch "):
        u, st = l.split()[1:3]
        lg.append(f"{u[len(base):]} {st}")
real_gets = open(getsf).read().split("\n")
real_gets = [g for g in real_gets if g]
# lboot does not fetch the kernel and initrds for real: it checks they exist,
# in the same order iPXE downloads them
check("HTTP requests in order", lg, real_gets[1:])
sys.exit(0 if ok else 1)
EOF
	[ $? -eq 0 ] || failed=1
done
exit $failed
