#!/bin/bash
# Issue 13, proof 3: real servers on a real (virtual) wire. dnsmasq (DHCP)
# and nginx (HTTPS with a test CA whose certificate names the server's IP)
# in a network namespace with a tap device; QEMU runs in that namespace on
# the tap. The LinuxBoot ROM (lboot mkrom, firmware initramfs built with
# --ca) has no disk: lboot brings the link up, takes dnsmasq's lease whose
# boot file is an https:// iPXE script, checks nginx's certificate against
# the CA built in, and boots the kernel and initrd it names over HTTPS.
# A second ROM without the CA refuses https:// with one line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rom-lib.sh"
e2e_init netboot-https-rom
[ "$(id -u)" = 0 ] || { skip "netns" "needs root for a network namespace and a tap device"; exit 0; }
for c in dnsmasq nginx ip openssl; do
	command -v $c >/dev/null || { not_ok "$c not installed (scripts/deps.sh)"; exit 1; }
done
target_os
NS=lboot-e2e-$$ W=$T/www K=$T/pki
mkdir -p "$W/boot" "$K" "$T/nginx"
cleanup() {
	qemu_stop
	[ -n "${DNSMASQ:-}" ] && kill "$DNSMASQ" 2>/dev/null
	[ -n "${NGINX:-}" ] && kill "$NGINX" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	e2e_dump_on_fail
}
trap cleanup EXIT
ip netns add "$NS" && ip -n "$NS" link set lo up &&
	ip -n "$NS" tuntap add dev tap0 mode tap && ip -n "$NS" link set tap0 up &&
	ip -n "$NS" addr add 192.168.77.1/24 dev tap0 || { not_ok "netns with tap0"; exit 1; }
# a test CA and a server certificate for the IP
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$K/ca.key" -out "$K/ca.pem" -days 30 \
	-subj "/CN=lboot e2e net CA" -addext basicConstraints=critical,CA:true 2>/dev/null &&
openssl req -newkey rsa:2048 -nodes -keyout "$K/srv.key" -out "$K/srv.csr" -subj "/CN=192.168.77.1" 2>/dev/null &&
printf 'subjectAltName=IP:192.168.77.1\n' >"$K/san.cnf" &&
openssl x509 -req -in "$K/srv.csr" -CA "$K/ca.pem" -CAkey "$K/ca.key" -CAcreateserial -days 30 \
	-out "$K/srv.pem" -extfile "$K/san.cnf" 2>/dev/null || { not_ok "test PKI"; exit 1; }
cp "$TARGET_KERNEL" "$W/boot/vmlinuz"
cp "$TARGET_INITRD" "$W/boot/initrd.img"
cat >"$W/boot.ipxe" <<'EOS'
#!ipxe
kernel https://192.168.77.1/boot/vmlinuz console=ttyS0 lboot-test=https-rom quiet
initrd https://192.168.77.1/boot/initrd.img
boot
EOS
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
	server {
		listen 192.168.77.1:443 ssl;
		ssl_certificate $K/srv.pem; ssl_certificate_key $K/srv.key;
		root $W;
	}
}
EOC
ip netns exec "$NS" nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" 2>"$T/nginx/start.log" &
NGINX=$!
ip netns exec "$NS" dnsmasq --no-daemon --conf-file=/dev/null --port=0 --interface=tap0 --bind-interfaces \
	--dhcp-range=192.168.77.50,192.168.77.99,255.255.255.0,1h --dhcp-boot=https://192.168.77.1/boot.ipxe \
	--dhcp-leasefile="$T/leases" --log-dhcp >"$T/dnsmasq.log" 2>&1 &
DNSMASQ=$!
for i in $(seq 1 50); do
	ip netns exec "$NS" curl -sf --cacert "$K/ca.pem" https://192.168.77.1/boot.ipxe >/dev/null 2>&1 && break
	sleep 0.1
done
ip netns exec "$NS" curl -sf --cacert "$K/ca.pem" https://192.168.77.1/boot.ipxe >/dev/null &&
	ok "nginx serves HTTPS with the test CA (curl --cacert)" || not_ok "nginx serves HTTPS with the test CA (curl --cacert)"
# QEMU in the namespace, on the tap
printf '#!/bin/sh\nexec ip netns exec %s qemu-system-x86_64 "$@"\n' "$NS" >"$T/qemu-ns"
chmod +x "$T/qemu-ns"
QEMU=$T/qemu-ns
NIC=(-netdev tap,id=n0,ifname=tap0,script=no,downscript=no -device virtio-net-pci,netdev=n0,mac=52:54:00:77:00:01)
"$OUT/lboot" mkinitramfs -o "$T/fw-ca.cpio.xz" --init "$OUT/lboot-target" --ca "$K/ca.pem" 2>/dev/null ||
	{ not_ok "mkinitramfs --ca"; exit 1; }
rom_build "$T/ca.rom" --kernel "$OUT/bzImage" --initrd "$T/fw-ca.cpio.xz" --cmdline "console=ttyS0,115200 panic=-1 quiet"
E2E_FIRMWARE=$T/ca.rom E2E_VARS=$T/ca-vars.fd qemu_start "${NIC[@]}"
expect 'lboot: net eth0: DHCP lease 192\.168\.77\.[0-9]+/24 from 192\.168\.77\.1' 240 && ok "lease from dnsmasq on the tap" ||
	not_ok "lease from dnsmasq on the tap"
expect 'lboot: net: iPXE script https://192.168.77.1/boot.ipxe' 120 && ok "boot file fetched over HTTPS" ||
	not_ok "boot file fetched over HTTPS"
expect "lboot: kexec 'vmlinuz' kernel=https://192.168.77.1/boot/vmlinuz initrd=https://192.168.77.1/boot/initrd.img" 300 &&
	ok "kernel and initrd over HTTPS, certificate checked against the built-in CA" ||
	not_ok "kernel and initrd over HTTPS, certificate checked against the built-in CA"
expect 'lboot-target: cmdline: .*lboot-test=https-rom' 240 && ok "the ROM booted the target over HTTPS" ||
	not_ok "the ROM booted the target over HTTPS"
grep -q 'DHCPACK(tap0) 192.168.77' "$T/dnsmasq.log" && ok "dnsmasq's log shows the ACK" || not_ok "dnsmasq's log shows the ACK"
qemu_stop
# the plain ROM: no trust anchors built in, https refused with one line
E2E_FIRMWARE=$OUT/lboot.rom E2E_VARS=$OUT/lboot-vars.fd qemu_start "${NIC[@]}"
expect 'lboot: network boot: .*(no trust anchors|trust anchor)' 240 && ok "without a CA built in, https:// is refused with one line" ||
	not_ok "without a CA built in, https:// is refused with one line"
expect_not 'lboot-target: TARGET-OS-UP' && ok "nothing booted unchecked" || not_ok "nothing booted unchecked"
e2e_done
