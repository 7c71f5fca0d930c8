#!/bin/bash
# Network boot figures for issue 13, printed side by side, never asserted:
#  1. size: what networking and TLS add to out/lboot-target (stripped and
#     xz bytes), by linking it again from the same objects (build/target)
#     without them: without src/net/tls.c, and without every network
#     object (DHCP, TFTP, HTTP, rtnetlink, iPXE, pxelinux, netio, netif,
#     netboot, the fetch/net/ipxe applets, TLS). The references left are
#     set to 0 (--unresolved-symbols=ignore-all): those binaries are only
#     measured, never run. Also the link map (-Wl,-Map) of the real link:
#     the bytes each of those objects keeps after --gc-sections. And the
#     kernel's networking (net/, drivers/net/), from the sizes.txt that
#     kernel/build.sh keeps beside the cached bzImage (text+data+bss of
#     each built-in.a, before compression).
#  2. throughput: a BENCH_MIB (64) MiB file fetched in one guest (the
#     firmware kernel, an initramfs of BusyBox + lboot-target, virtio-net
#     on a tap in a network namespace) by `lboot fetch` and by BusyBox's
#     tftp and wget, interleaved, RUNS rounds (the order reversed every
#     other round): TFTP from atftpd (plain RFC 1350: 512-byte blocks, no
#     options; blksize 1468; blksize 1468 + windowsize 16) and HTTP from
#     nginx (5 transfers each a round: they take well under a second).
#     Times from the guest's /proc/uptime around each command.
#  3. boot: lboot's start to the target OS's first line
#     ("lboot-target: TARGET-OS-UP"), over HTTP (DHCP from dnsmasq, an iPXE
#     script, a 10 MB kernel: Debian's padded with zeros, which its
#     decompressor never reads, and the target initrd, from nginx) and
#     from a virtio disk (the same files in a BLS entry), interleaved.
#     Host times of the serial lines (E2E_SERIAL_TS), plus lboot's own
#     start->kexec from the guest's uptime stamps.
#   bench/netboot.sh [RUNS]     (root, after `make all`; RUNS default 2)
# BENCH_PARTS="size tput boot" picks parts; BENCH_KEEP_LOG=FILE keeps the
# throughput guest's serial log (and FILE.boot-HOW-RUN the boots' serial.ts). QEMU runs TCG (-accel tcg).
cd "$(dirname "$0")/.." || exit 1
. tests/e2e/lib.sh
. tests/e2e/net-lib.sh
runs=${1:-2}
MIB=${BENCH_MIB:-64}
PARTS=${BENCH_PARTS:-size tput boot}
case $runs in ''|*[!0-9]*|0) echo "usage: bench/netboot.sh [RUNS]" >&2; exit 2 ;; esac
e2e_init bench-netboot
ATFTPD=
bench_cleanup() {
	[ -n "$ATFTPD" ] && kill "$ATFTPD" 2>/dev/null && wait "$ATFTPD" 2>/dev/null
	ATFTPD=
	net_cleanup
	rm -rf "$T"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP
want() { [[ " $PARTS " == *" $1 "* ]]; }

# --- 1. sizes --------------------------------------------------------------------
NETOBJ=(lib/dhcp4 lib/dhcp6 lib/tftp lib/http lib/nlmsg lib/ipxe lib/pxelinux
	boot/netio boot/netif boot/netboot cmd/fetch cmd/net cmd/ipxe crypto/tls)
mvar() { make -s --no-print-directory --eval "bench-print-var: ; @echo \$($1)" bench-print-var; }
sizes() {
	local objs cflags libs o n keep_tls=() keep_net=()
	objs=$(mvar TARGET_OBJ) cflags=$(mvar TARGET_CFLAGS) libs=$(mvar TARGET_CRYPTO_LIBS)
	for o in $objs; do
		[ -f "$o" ] || { echo "# sizes: $o missing (make all)"; return; }
		[ "$o" = build/target/crypto/tls.o ] || keep_tls+=("$o")
		n=${o#build/target/}; n=${n%.o}
		[[ " ${NETOBJ[*]} " == *" $n "* ]] || keep_net+=("$o")
	done
	# shellcheck disable=SC2086 # word lists from make
	musl-gcc $cflags -Wl,--gc-sections -s -Wl,-Map="$T/lboot-target.map" -o "$T/full" $objs $libs &&
	musl-gcc $cflags -Wl,--gc-sections -s -Wl,--unresolved-symbols=ignore-all -o "$T/notls" "${keep_tls[@]}" $libs &&
	musl-gcc $cflags -Wl,--gc-sections -s -Wl,--unresolved-symbols=ignore-all -o "$T/nonet" "${keep_net[@]}" $libs ||
		{ echo "# sizes: link failed"; return; }
	cmp -s "$T/full" "$OUT/lboot-target" || echo "# note: relinked full binary differs from $OUT/lboot-target (stale build?)"
	xzs() { xz -6 --check=crc32 -c "$1" | wc -c; }
	mem() { size "$1" | awk 'NR == 2 { print $4 }'; }
	local f=$T/full a b c ax bx cx am bm cm
	a=$(stat -c %s "$f") b=$(stat -c %s "$T/notls") c=$(stat -c %s "$T/nonet")
	ax=$(xzs "$f") bx=$(xzs "$T/notls") cx=$(xzs "$T/nonet")
	am=$(mem "$f") bm=$(mem "$T/notls") cm=$(mem "$T/nonet")
	echo "== lboot-target size (relinked from build/target without the objects; xz -6 --check=crc32)"
	printf '%-44s %10s %10s %10s\n' "" stripped text+data+bss xz
	printf '%-44s %10d %10d %10d  (%.1f KiB xz)\n' "lboot-target (all)" "$a" "$am" "$ax" "$(echo "$ax" | awk '{print $1/1024}')"
	printf '%-44s %10d %10d %10d\n' "without TLS (crypto/tls.o)" "$b" "$bm" "$bx"
	printf '%-44s %10d %10d %10d\n' "without networking and TLS" "$c" "$cm" "$cx"
	printf '%-44s %+10d %+10d %+10d\n' "added by TLS (tls.o + BearSSL it pulls)" $((a - b)) $((am - bm)) $((ax - bx))
	printf '%-44s %+10d %+10d %+10d\n' "added by networking without TLS" $((b - c)) $((bm - cm)) $((bx - cx))
	printf '%-44s %+10d %+10d %+10d\n' "added by networking and TLS" $((a - c)) $((am - cm)) $((ax - cx))
	printf '%-44s %10s %10s %10d\n' "initramfs.cpio.xz (lboot-target + skeleton)" "" "" "$(stat -L -c %s "$OUT/initramfs.cpio.xz")"
	# the link map: bytes of the allocated input sections each object keeps
	echo "== link map of lboot-target (-Wl,-Map): bytes kept per network object after --gc-sections"
	awk -v objs="${NETOBJ[*]}" '
		function hex(x,   i, v) { v = 0; x = tolower(substr(x, 3))
			for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
			return v }
		BEGIN { n = split(objs, o, " "); for (i = 1; i <= n; i++) want["build/target/" o[i] ".o"] = o[i] }
		/^Linker script and memory map/ { on = 1; next }
		!on { next }
		/^ \.[a-z_]/ { sec = $1; if (NF == 1) next; addr = $2; size = $3; file = $4 }
		/^                0x/ && NF == 3 { addr = $1; size = $2; file = $3 }
		{ if (file == "" || size !~ /^0x/) next
		  if (sec ~ /^\.(text|rodata|data|bss|tdata|tbss|init_array|fini_array)/ && (file in want))
			bytes[want[file]] += hex(size)
		  file = "" }
		END { for (i = 1; i <= n; i++) { printf "  %-16s %8d\n", o[i], bytes[o[i]]; t += bytes[o[i]] }
		      printf "  %-16s %8d  (own code and data; BearSSL members are counted in the relink above)\n", "total", t }' \
		"$T/lboot-target.map"
	local cache d
	for cache in "${LBOOT_CACHE:-/var/cache/lboot}" "$HOME/.cache/lboot"; do
		for d in "$cache"/kernel-*; do
			[ -f "$d/bzImage" ] && cmp -s "$d/bzImage" "$OUT/bzImage" && [ -f "$d/sizes.txt" ] && break 2
			d=
		done
	done
	echo "== kernel (bzImage $(stat -L -c %s "$OUT/bzImage") bytes): text+data+bss of built-in.a, before compression"
	if [ -n "$d" ]; then
		awk '$2 ~ /^(net|net\/ipv4|net\/ipv6|net\/8021q|drivers\/net|arch\/x86|kernel|mm|fs|drivers)$/ { printf "  %-16s %10d\n", $2, $1 }
			$2 == "net" { n = $1 } $2 == "drivers/net" { dn = $1 }
			END { printf "  %-16s %10d  (net/ + drivers/net/)\n", "networking", n + dn }' "$d/sizes.txt"
		echo "  (from $d/sizes.txt; no TLS in the kernel: BearSSL is in lboot-target)"
	else
		echo "  no sizes.txt beside a cached bzImage equal to $OUT/bzImage (kernel/build.sh)"
	fi
}
want size && sizes
want tput || want boot || exit 0

# --- servers -----------------------------------------------------------------------
command -v atftpd >/dev/null || { echo "# atftpd not installed (scripts/deps.sh)"; exit 1; }
command -v busybox >/dev/null || { echo "# busybox not installed (scripts/deps.sh)"; exit 1; }
net_init
trap bench_cleanup EXIT
S=$NET_IP
mkdir -p "$T/tftp" "$T/www/boot"
head -c $((MIB * 1048576)) /dev/urandom >"$T/tftp/big.bin"
ln "$T/tftp/big.bin" "$T/www/big.bin"
net_nginx "$T/www"
ip netns exec "$NS" atftpd --daemon --no-fork --port 69 --bind-address "$S" --user root.root \
	--logfile "$T/atftpd.log" "$T/tftp" &
ATFTPD=$!
net_wait_http "http://$S/big.bin" || { echo "# nginx did not answer: $(cat "$T/nginx/start.log")"; exit 1; }
sleep 0.3
kill -0 "$ATFTPD" 2>/dev/null || { echo "# atftpd did not start: $(cat "$T/atftpd.log")"; exit 1; }

# --- 2. throughput ---------------------------------------------------------------------
tput() {
	mkdir -p "$T/g"
	cat >"$T/g/init" <<EOS
#!/bin/busybox sh
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs -o size=$((MIB * 2 + 64))m tmp /tmp
ip link set lo up
ip link set eth0 up
ip addr add 192.168.77.2/24 dev eth0
i=0
until ping -c 1 -W 1 $S >/dev/null 2>&1; do
	i=\$((i + 1)); [ \$i -ge 30 ] && { echo "bench: $S does not answer ping"; poweroff -f; }
done
up() { cut -d' ' -f1 /proc/uptime; }
one() { # tool proto options command...
	tool=\$1 proto=\$2 opts=\$3; shift 3
	rm -f /tmp/f
	a=\$(up); "\$@" >/tmp/log 2>&1; rc=\$?; b=\$(up)
	n=\$(stat -c %s /tmp/f 2>/dev/null || echo 0)
	echo "BENCH \$r \$tool \$proto \$opts \$rc \$n \$a \$b"
	[ \$rc = 0 ] || head -n 3 /tmp/log | sed 's/^/bench: /'
	rm -f /tmp/f
}
r=0
while [ \$r -lt $runs ]; do
	r=\$((r + 1))
	order="1 2 3 4 5 6"; [ \$((r % 2)) = 0 ] && order="6 5 4 3 2 1"
	for k in \$order; do
		case \$k in
		1) one lboot tftp rfc1350 /sbin/lboot fetch -q --no-tftp-options tftp://$S/big.bin -o /tmp/f ;;
		2) one busybox tftp rfc1350 tftp -g -r big.bin -l /tmp/f $S ;;
		3) one lboot tftp blksize=1468,windowsize=16 /sbin/lboot fetch -q --blksize 1468 --windowsize 16 tftp://$S/big.bin -o /tmp/f ;;
		4) one busybox tftp blksize=1468 tftp -b 1468 -g -r big.bin -l /tmp/f $S ;;
		5) one lboot tftp blksize=1468 /sbin/lboot fetch -q --blksize 1468 --windowsize 1 tftp://$S/big.bin -o /tmp/f ;;
		6) # HTTP takes well under a second: 5 of each, alternating, for
		   # the 10 ms steps of /proc/uptime
		   for j in 1 2 3 4 5; do
			[ \$(((r + j) % 2)) = 0 ] && one lboot http - /sbin/lboot fetch -q http://$S/big.bin -o /tmp/f
			one busybox http - wget -q -O /tmp/f http://$S/big.bin
			[ \$(((r + j) % 2)) = 1 ] && one lboot http - /sbin/lboot fetch -q http://$S/big.bin -o /tmp/f
		   done ;;
		esac
	done
done
echo BENCH-DONE
poweroff -f
EOS
	chmod +x "$T/g/init"
	"$OUT/lboot" mkinitramfs -o "$T/g.cpio.xz" --busybox --init "$T/g/init" \
		--file "$OUT/lboot-target:/sbin/lboot" 2>/dev/null || { echo "# mkinitramfs for the guest failed"; return; }
	echo "== throughput: $MIB MiB from $S (atftpd $(dpkg-query -W -f='${Version}' atftpd 2>/dev/null)," \
		"nginx) to the guest's tmpfs, virtio-net on a tap, QEMU TCG; $runs round(s)"
	E2E_INITRD=$T/g.cpio.xz E2E_APPEND="quiet" qemu_start "${NIC[@]}"
	# a 512-byte-block transfer under TCG runs near 1 MiB/s: bound it generously
	expect 'BENCH-DONE|bench: .* does not answer' $((runs * MIB * 20 + 120)) || echo "# the guest did not finish (see below)"
	qemu_stop
	local log; log=$(tr -d '\r' <"$T/serial.log")
	[ -n "${BENCH_KEEP_LOG:-}" ] && cp "$T/serial.log" "$BENCH_KEEP_LOG"
	grep -o 'bench: .*' <<<"$log" | sed 's/^/# /'
	grep -o 'BENCH [0-9].*' <<<"$log" | awk -v size=$((MIB * 1048576)) -v runs="$runs" '
		{ key = $3 " " $4 " " $5; if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
		  s = $9 - $8; ok = ($6 == 0 && $7 == size && s > 0)
		  if (!ok) bad[key, $2] = ($6 != 0 ? "fail" : "short")
		  else { tb[key] += size; ts[key] += s; cb[key, $2] += size; cs[key, $2] += s } }
		END {
		  printf "%-8s %-5s %-26s", "tool", "proto", "options"
		  for (r = 1; r <= runs; r++) printf " %8s", "run" r " MiB/s"
		  printf " %8s %7s\n", "mean", "ratio"
		  base["tftp"] = "busybox tftp rfc1350"; base["http"] = "busybox http -"
		  for (i = 1; i <= nk; i++) { k = keys[i]; if (ts[k] > 0) m[k] = tb[k] / 1048576 / ts[k] }
		  for (i = 1; i <= nk; i++) {
			k = keys[i]; split(k, f, " ")
			printf "%-8s %-5s %-26s", f[1], f[2], (f[3] == "-" ? "" : f[3])
			for (r = 1; r <= runs; r++)
				printf " %8s", ((k, r) in bad) ? bad[k, r] : ((k, r) in cs) ? sprintf("%.2f", cb[k, r] / 1048576 / cs[k, r]) : "-"
			b = m[base[f[2]]]
			printf " %8.2f %7s\n", m[k], (b > 0 && m[k] > 0) ? sprintf("%.2f", m[k] / b) : "-"
		  }
		  print "(HTTP: 5 transfers each a round; mean = all bytes / all seconds; ratio = against BusyBox with no options, same protocol)"
		  w = m["lboot tftp blksize=1468,windowsize=16"]; p = m["lboot tftp rfc1350"]; q = m["busybox tftp rfc1350"]
		  if (w > 0 && p > 0) printf "TFTP blksize 1468 + windowsize 16 / plain RFC 1350, lboot: %.2fx (target >= 3)\n", w / p
		  if (w > 0 && q > 0) printf "TFTP lboot blksize 1468 + windowsize 16 / BusyBox plain RFC 1350: %.2fx\n", w / q
		  h = m["lboot http -"]; g = m["busybox http -"]
		  if (h > 0 && g > 0) printf "HTTP lboot / BusyBox wget: %.2fx (target >= 1)\n", h / g
		}'
}
want tput && tput

# --- 3. boot time: network (HTTP) and disk -----------------------------------------------
boot() {
	target_os
	local R=$T/root
	mkdir -p "$R/loader/entries"
	cp "$TARGET_KERNEL" "$T/www/boot/vmlinuz"
	# 10 MB: the decompressor reads its payload by the header's sizes, the
	# zeros after it are loaded and never read
	truncate -s 10000000 "$T/www/boot/vmlinuz"
	cp "$TARGET_INITRD" "$T/www/boot/initrd.img"
	cp "$T/www/boot/vmlinuz" "$T/www/boot/initrd.img" "$R/"
	printf '#!ipxe\nkernel http://%s/boot/vmlinuz console=ttyS0 quiet bench=net\ninitrd http://%s/boot/initrd.img\nboot\n' \
		"$S" "$S" >"$T/www/boot.ipxe"
	printf 'title bench\nlinux /vmlinuz\ninitrd /initrd.img\noptions console=ttyS0 quiet bench=disk\n' \
		>"$R/loader/entries/bench.conf"
	chmod -R a+rX "$T/www"
	mkpart_ext4 "$T/p1.img" 32 "$R" BENCH
	mkdisk_gpt "$T/disk.img" "$T/p1.img:xbootldr:boot"
	# --no-ping: dnsmasq's check that a new address is free holds the
	# OFFER about 3 s, a server setting that would hide lboot's own time
	net_dnsmasq dhcp --dhcp-range=192.168.77.50,192.168.77.99,255.255.255.0,1h --no-ping \
		--dhcp-boot="http://$S/boot.ipxe"
	echo "== boot: lboot's start to the target OS's first line; kernel $(stat -c %s "$R/vmlinuz") bytes" \
		"(Debian's $(stat -c %s "$TARGET_KERNEL") + zeros), initrd $(stat -c %s "$R/initrd.img") bytes"
	printf '%-6s %-6s %12s %14s %16s %14s\n' run from "lboot@host s" "start->kexec s" "start->target s" "qemu->target s"
	local i how
	for i in $(seq "$runs"); do
		for how in net disk; do
			if [ "$how" = net ]; then
				E2E_SERIAL_TS=1 E2E_INITRD=$OUT/initramfs.cpio.xz E2E_APPEND="lboot.timeout=0" qemu_start "${NIC[@]}"
			else
				E2E_SERIAL_TS=1 E2E_INITRD=$OUT/initramfs.cpio.xz E2E_APPEND="lboot.timeout=0" \
					qemu_start -drive "file=$T/disk.img,format=raw,if=virtio,snapshot=on"
			fi
			local t0=$E2E_T0 _
			if ! expect "lboot-target: TARGET-OS-UP" 300; then
				qemu_stop
				printf '%-6s %-6s %12s\n' "$i" "$how" "failed"
				grep -a 'lboot: ' "$T/serial.log" | tr -d '\r' | tail -n 3 | sed 's/^/# /'
				continue
			fi
			for _ in $(seq 20); do grep -aq 'TARGET-OS-UP' "$T/serial.ts" && break; sleep 0.1; done
			[ -n "${BENCH_KEEP_LOG:-}" ] && cp "$T/serial.ts" "$BENCH_KEEP_LOG.boot-$how-$i"
			tr -d '\r' <"$T/serial.ts" | awk -v t0="$t0" -v run="$i" -v how="$how" '
				!s && /lboot [0-9.]+[^ ]* starting \(uptime/ { s = $1; for (k = 1; k <= NF; k++) if ($k == "(uptime") us = $(k + 1) }
				/handing over at uptime/ { for (k = 1; k <= NF; k++) if ($k == "uptime") uk = $(k + 1) }
				!e && /lboot-target: TARGET-OS-UP/ { e = $1 }
				END { printf "%-6s %-6s %12.2f %14s %16.2f %14.2f\n", run, how, s - t0,
					(us != "" && uk != "") ? sprintf("%.2f", uk - us) : "?", e - s, e - t0 }'
			qemu_stop
		done
	done
	echo "(lboot@host: its start line after QEMU started; start->kexec: guest uptime stamps;"
	echo " start->target and qemu->target: host times of the serial lines)"
}
want boot && boot
exit 0
