# Helpers for network boot scenarios on a real (virtual) wire: a network
# namespace with a tap device that QEMU uses, dnsmasq and nginx inside it.
# Sourced after lib.sh (check.sh skips *lib.sh). Needs root.
#
#   net_init [V4ADDR/24] [V6ADDR/64]  netns $NS with tap0 (default
#       192.168.77.1/24), QEMU wrapped to run in it ($QEMU), $NIC (virtio-net
#       on tap0, MAC 52:54:00:77:00:01), cleanup of everything on exit
#   net_dnsmasq NAME ARGS...   dnsmasq in the netns on tap0 (DNS_NS, DNS_IF
#       override both), log $T/NAME.log, pid in DNSMASQ_PIDS (several can
#       run: a proxyDHCP beside a DHCP server)
#   NET_MORE_NS+=(NAME)        more namespaces, deleted on exit too
#   net_dnsmasq_stop           stops every dnsmasq started here
#   net_nginx ROOT [https]     nginx in the netns serving ROOT on port 80 of
#       every address (and 443 with $K/srv.pem when "https" is given)
#   net_pki [NAME]             a test CA and a server certificate for the
#       tap's IPv4 address in $K (NAME.pem / NAME.key for a second CA)
#   net_wait_http URL          until curl gets URL in the netns (5 s)
NET_IP=192.168.77.1
NET_MAC=52:54:00:77:00:01
DNSMASQ_PIDS=()
NET_MORE_NS=()
NGINX=

net_cleanup() {
	local p
	qemu_stop
	for p in "${DNSMASQ_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "${NGINX:-}" ] && kill "$NGINX" 2>/dev/null
	for p in "${DNSMASQ_PIDS[@]}" $NGINX; do wait "$p" 2>/dev/null; done
	[ -n "${NS:-}" ] && ip netns del "$NS" 2>/dev/null
	for p in "${NET_MORE_NS[@]}"; do ip netns del "$p" 2>/dev/null; done
	e2e_dump_on_fail
}

net_init() {
	local v4=${1:-$NET_IP/24} v6=${2:-}
	[ "$(id -u)" = 0 ] || { skip "netns" "needs root for a network namespace and a tap device"; exit 0; }
	local c
	for c in dnsmasq nginx ip openssl curl; do
		command -v $c >/dev/null || { not_ok "$c not installed (scripts/deps.sh)"; exit 1; }
	done
	NET_IP=${v4%/*}
	NS=lboot-e2e-$E2E_NAME-$$
	NS=${NS:0:60}
	K=$T/pki
	mkdir -p "$K" "$T/nginx"
	trap net_cleanup EXIT
	ip netns add "$NS" && ip -n "$NS" link set lo up &&
		ip -n "$NS" tuntap add dev tap0 mode tap && ip -n "$NS" link set tap0 up &&
		ip -n "$NS" addr add "$v4" dev tap0 || { not_ok "netns with tap0"; exit 1; }
	if [ -n "$v6" ]; then
		ip netns exec "$NS" sysctl -qw net.ipv6.conf.tap0.disable_ipv6=0 &&
		ip -n "$NS" addr add "$v6" dev tap0 nodad || { not_ok "IPv6 address on tap0"; exit 1; }
	fi
	printf '#!/bin/sh\nexec ip netns exec %s %s "$@"\n' "$NS" "${QEMU:-qemu-system-x86_64}" >"$T/qemu-ns"
	chmod +x "$T/qemu-ns"
	QEMU=$T/qemu-ns
	NIC=(-netdev tap,id=n0,ifname=tap0,script=no,downscript=no -device "virtio-net-pci,netdev=n0,mac=$NET_MAC")
}

net_dnsmasq() {
	local name=$1; shift
	ip netns exec "${DNS_NS:-$NS}" dnsmasq --no-daemon --conf-file=/dev/null --port=0 --interface="${DNS_IF:-tap0}" \
		--bind-interfaces --dhcp-leasefile="$T/$name.leases" --log-dhcp "$@" >"$T/$name.log" 2>&1 &
	DNSMASQ_PIDS+=($!)
	sleep 0.3
	kill -0 $! 2>/dev/null || { sed 's/^/# /' "$T/$name.log"; not_ok "dnsmasq $name started"; exit 1; }
}

net_dnsmasq_stop() {
	local p
	for p in "${DNSMASQ_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	DNSMASQ_PIDS=()
}

net_nginx() {
	local root=$1 listen="listen 80; listen [::]:80;"
	[ "${2:-}" = https ] &&
		listen="$listen listen 443 ssl; listen [::]:443 ssl; ssl_certificate $K/srv.pem; ssl_certificate_key $K/srv.key;"
	nginx_conf "$root" "$listen"
	ip netns exec "$NS" nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" 2>"$T/nginx/start.log" &
	NGINX=$!
}

net_wait_http() {
	local i
	for i in $(seq 1 50); do
		ip netns exec "$NS" curl -gsfk -o /dev/null "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

net_pki() {
	local ca=${1:-ca}
	if [ ! -f "$K/$ca.pem" ]; then
		openssl req -x509 -newkey rsa:2048 -nodes -keyout "$K/$ca.key" -out "$K/$ca.pem" -days 30 \
			-subj "/CN=lboot e2e $ca" -addext basicConstraints=critical,CA:true 2>/dev/null ||
			{ not_ok "test CA $ca"; exit 1; }
	fi
	[ "$ca" = ca ] || return 0
	openssl req -newkey rsa:2048 -nodes -keyout "$K/srv.key" -out "$K/srv.csr" -subj "/CN=$NET_IP" 2>/dev/null &&
	printf 'subjectAltName=IP:%s\n' "$NET_IP" >"$K/san.cnf" &&
	openssl x509 -req -in "$K/srv.csr" -CA "$K/ca.pem" -CAkey "$K/ca.key" -CAcreateserial -days 30 \
		-out "$K/srv.pem" -extfile "$K/san.cnf" 2>/dev/null || { not_ok "test server certificate"; exit 1; }
}
