#!/bin/bash
# lboot net (src/net/netif.c) against dnsmasq 2.90 as the DHCP server, in
# private network namespaces (unshare -n): this script's namespace holds the
# server ends, client namespaces (a `unshare -n sleep` each, entered with
# nsenter) hold the client ends of veth pairs:
#   c0 <-> s0   dnsmasq on s0 (DHCP + TFTP), PXE class rules on option 60/93
#   n1 <-> n0   n0 left down: n1 has no carrier
#   q1 <-> q0   (second client namespace) no server at all
#   cv1 <-> br0 <-> pv1   an address server without boot file on br0 and
#               dnsmasq in proxy mode in a third namespace (proxyDHCP, 4011)
# Checks: lease values equal dnsmasq's configuration, the address, route and
# MTU are applied in the kernel (ip addr/route/link) and work (TFTP fetch
# through them), dnsmasq's lease file agrees, the no-carrier link is
# skipped, no server fails within the bound with one clear line, a NAK
# (INIT-REBOOT for a wrong address, dnsmasq authoritative) falls back to
# DISCOVER, HTTP boot identifiers match dnsmasq's HTTPClient rule, the boot
# file comes from a proxyDHCP server asked on UDP 4011, DHCPv6 gives an
# address and the boot file URL (option 59) and parameters (60).
# Prints ok/not ok/skip lines.
cd "$(dirname "$0")/../.." || exit 1
LBOOT=$PWD/out/lboot

. tests/host/netns-lib.sh
netns_enter net "$@"

for b in dnsmasq ip nsenter python3; do
	command -v $b >/dev/null 2>&1 || { echo "skip host/net: $b not installed (scripts/deps.sh)"; exit 0; }
done
ip link add t0 type veth peer name t1 2>/dev/null || { echo "skip host/net: no veth support in this kernel"; exit 0; }
ip link del t0

netns_setup net
trap 'exit 1' INT TERM

# json FILE KEY: one value of the lease (lists joined with spaces)
json() {
	python3 -c 'import json,sys
v = json.load(open(sys.argv[1])).get(sys.argv[2])
print(" ".join(map(str, v)) if isinstance(v, list) else ("" if v is None else v))' "$1" "$2" 2>/dev/null
}

# a client namespace: a sleeping process of its own, entered with nsenter
# (its pid in NS_PID; not a $(...): the sleeper would hold its pipe open)
newns() {
	unshare -n sleep 600 </dev/null >/dev/null 2>&1 &
	NS_PID=$!
	pids+=($NS_PID)
	local me
	me=$(readlink /proc/self/ns/net)
	for i in $(seq 50); do
		[ "$(readlink /proc/$NS_PID/ns/net 2>/dev/null)" != "$me" ] && return 0
		sleep 0.05
	done
	return 1
}
ip link set lo up
newns || { notok "net/netns" "client namespace not created"; exit 1; }
CL=$NS_PID
newns || { notok "net/netns" "client namespace not created"; exit 1; }
CL2=$NS_PID
in_cl() { nsenter -t "$CL" -n "$@"; }
in_cl2() { nsenter -t "$CL2" -n "$@"; }

ip link add c0 type veth peer name s0
ip link add n1 type veth peer name n0
ip link add q1 type veth peer name q0
ip link set c0 netns "$CL"
ip link set n1 netns "$CL"
ip link set q1 netns "$CL2"
ip addr add 10.77.0.1/24 dev s0
ip -6 addr add fd00:77::1/64 dev s0 nodad
ip link set s0 mtu 1400   # the MTU dnsmasq hands out (option 26): one for the LAN
ip link set s0 up
ip link set q0 up
in_cl ip link set lo up
MAC_C0=$(in_cl ip -o link show c0 | sed -n 's/.* link\/ether \([0-9a-f:]*\) .*/\1/p')
[ -n "$MAC_C0" ] || { notok "net/setup" "no MAC for c0"; exit 1; }

mkdir -p "$T/tftp"
head -c 100000 /dev/urandom > "$T/tftp/pxelinux.0"
chmod -R 755 "$T/tftp"
# PXE rules as a fleet writes them for UEFI firmware: the boot file only for
# option 60 PXEClient AND option 93 arch 7; HTTP boot: 60 HTTPClient, a URL
# in 67 and option 60 echoed (UEFI HTTP boot needs it)
dnsmasq --no-daemon --port=0 --interface=s0 --bind-interfaces --user=root \
	--dhcp-range=10.77.0.50,10.77.0.99,255.255.255.0,1h --dhcp-authoritative \
	--dhcp-leasefile="$T/leases" --log-dhcp --log-facility="$T/dnsmasq.log" \
	--dhcp-vendorclass=set:pxe,PXEClient --dhcp-vendorclass=set:http,HTTPClient \
	--dhcp-match=set:efi64,option:client-arch,7 \
	--dhcp-boot=tag:pxe,tag:efi64,pxelinux.0,bootsrv,10.77.0.5 \
	--dhcp-boot=tag:http,http://10.77.0.1/boot.ipxe \
	--dhcp-option=tag:http,60,HTTPClient \
	--dhcp-option=209,pxelinux.cfg/custom --dhcp-option=210,/tftp/ \
	--dhcp-option=6,10.77.0.53,10.77.0.54 --dhcp-option=15,example.test \
	--dhcp-option=26,1400 --dhcp-option=42,10.77.0.123 \
	--dhcp-option-force=175,01:01:01 \
	--dhcp-host="$MAC_C0",node7 \
	--dhcp-range=fd00:77::100,fd00:77::1ff,slaac,64,1h --enable-ra \
	--dhcp-option=option6:bootfile-url,http://[fd00:77::1]/boot.efi \
	--dhcp-option=option6:bootfile-param,console=ttyS0,quiet \
	--dhcp-option=option6:dns-server,[fd00:77::53] \
	--dhcp-option=option6:ntp-server,[fd00:77::123] \
	--enable-tftp --tftp-root="$T/tftp" 2>"$T/dnsmasq.err" &
pids+=($!)
for i in $(seq 50); do grep -q "DHCP, sockets bound" "$T/dnsmasq.err" "$T/dnsmasq.log" 2>/dev/null && break; sleep 0.1; done

# --- links --------------------------------------------------------------------
if in_cl "$LBOOT" net links --json >"$T/links.json" 2>"$T/links.err"; then
	r=$(python3 -c 'import json,sys
l = {x["name"]: x for x in json.load(open(sys.argv[1]))}
print(l["lo"]["dhcp"], l["c0"]["dhcp"], l["n1"]["dhcp"], l["c0"]["mac"], l["c0"]["kind"])' "$T/links.json")
	[ "$r" = "False True True $MAC_C0 veth" ] && ok "net/links" || notok "net/links" "$r"
else
	notok "net/links" "$(cat "$T/links.err")"
fi

# --- a lease, applied ---------------------------------------------------------
t0=$(date +%s%N)
in_cl "$LBOOT" net up --carrier-timeout 1 --timeout 20 --json --resolv-conf "$T/resolv.conf" \
	>"$T/up.json" 2>"$T/up.err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ $rc = 0 ]; then
	ok "net/up"
	echo "# lease in $ms ms (dnsmasq pings a new address first: ~3 s of it)"
else
	notok "net/up" "exit $rc: $(tail -3 "$T/up.err")"
fi
L=$T/up.json
A=$(json "$L" address)
case $A in 10.77.0.[5-9][0-9]) ok "net/lease/address-in-range" ;; *) notok "net/lease/address-in-range" "$A" ;; esac
check() { # name key expected
	local v
	v=$(json "$L" "$2")
	[ "$v" = "$3" ] && ok "net/lease/$1" || notok "net/lease/$1" "$2 is '$v', expected '$3'"
}
check interface interface c0
check prefix prefix 24
check router router 10.77.0.1
check server server 10.77.0.1
check next-server next_server 10.77.0.5
check boot-file boot_file pxelinux.0
check boot-server boot_server bootsrv
check option-209 pxe_config_file pxelinux.cfg/custom
check option-210 pxe_path_prefix /tftp/
check option-175 ipxe_options 010101
check dns dns "10.77.0.53 10.77.0.54"
check ntp ntp 10.77.0.123
check domain domain example.test
check hostname hostname node7
check mtu mtu 1400
check lease-time lease_time 3600
check mac mac "$MAC_C0"
if grep -qx "lboot: net c0: DHCP lease $A/24 from 10.77.0.1, boot file pxelinux.0 on bootsrv" "$T/up.err"; then
	ok "net/log-line"
else
	notok "net/log-line" "$(cat "$T/up.err")"
fi
# the server's side of it
grep -q "$MAC_C0" "$T/leases" && grep -q " $A " "$T/leases" && ok "net/dnsmasq-lease-file" ||
	notok "net/dnsmasq-lease-file" "$(cat "$T/leases")"
grep -q "vendor class: PXEClient:Arch:00007:UNDI:003016" "$T/dnsmasq.log" && grep -q "tags: .*efi64" "$T/dnsmasq.log" &&
	ok "net/pxe-identifiers-match-server-rules" || notok "net/pxe-identifiers-match-server-rules"
# applied in the kernel
in_cl ip -4 -o addr show dev c0 | grep -q "inet $A/24 brd 10.77.0.255 " && ok "net/applied/address" ||
	notok "net/applied/address" "$(in_cl ip -4 -o addr show dev c0)"
r=$(in_cl ip -4 route show default)
[ "$r" = "default via 10.77.0.1 dev c0 proto dhcp src $A " ] || [ "$r" = "default via 10.77.0.1 dev c0 proto dhcp src $A" ] &&
	ok "net/applied/default-route" || notok "net/applied/default-route" "$r"
in_cl ip link show c0 | grep -q " mtu 1400 " && ok "net/applied/mtu" || notok "net/applied/mtu" "$(in_cl ip link show c0 | head -1)"
printf 'search example.test\nnameserver 10.77.0.53\nnameserver 10.77.0.54\n' | cmp -s - "$T/resolv.conf" &&
	ok "net/resolv-conf" || notok "net/resolv-conf" "$(cat "$T/resolv.conf" 2>&1)"
# and it works: the boot file over TFTP through the new address
if in_cl "$LBOOT" fetch -q "tftp://10.77.0.1/pxelinux.0" -o "$T/got" 2>"$T/fetch.err" &&
	cmp -s "$T/got" "$T/tftp/pxelinux.0"; then
	ok "net/applied/tftp-through-lease"
else
	notok "net/applied/tftp-through-lease" "$(cat "$T/fetch.err")"
fi
# the no-carrier link did not hold the lease up, and got none
if ! in_cl ip -4 -o addr show dev n1 | grep -q inet; then ok "net/no-carrier-link-untouched"; else notok "net/no-carrier-link-untouched"; fi

# a second run: the same address again, replacing (not failing on) what is there
if in_cl "$LBOOT" net up --iface c0 --json >"$T/up2.json" 2>"$T/up2.err" && [ "$(json "$T/up2.json" address)" = "$A" ]; then
	ok "net/rerun-same-lease"
else
	notok "net/rerun-same-lease" "$(tail -2 "$T/up2.err")"
fi

# --- no carrier ---------------------------------------------------------------------
t0=$(date +%s%N)
in_cl "$LBOOT" net up --iface n1 --carrier-timeout 1 --timeout 10 >"$T/nc.out" 2>"$T/nc.err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ $rc = 1 ] && grep -qx "lboot: net n1: no carrier after 1.0 s, skipped" "$T/nc.err" &&
	grep -qx "lboot net: no carrier on n1 within 1.0 s" "$T/nc.err" && [ $ms -lt 3000 ]; then
	ok "net/no-carrier-skipped"
else
	notok "net/no-carrier-skipped" "exit $rc after $ms ms: $(cat "$T/nc.err")"
fi

# --- no server: fails within the bound, one clear line ---------------------------------
t0=$(date +%s%N)
in_cl2 "$LBOOT" net up --timeout 5 >"$T/ns.out" 2>"$T/ns.err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
last=$(tail -1 "$T/ns.err")
if [ $rc = 1 ] && [ $ms -ge 4900 ] && [ $ms -lt 6500 ] &&
	[[ $last =~ ^"lboot net: no DHCP answer on q1 within 5.0 s ("[0-9]+" DISCOVERs)"$ ]]; then
	ok "net/no-server-bounded"
	echo "# no server: gave up after $ms ms: $last"
else
	notok "net/no-server-bounded" "exit $rc after $ms ms: $(cat "$T/ns.err")"
fi
if ! in_cl2 ip -4 -o addr show dev q1 | grep -q inet; then ok "net/no-server-no-address"; else notok "net/no-server-no-address"; fi

# --- NAK: INIT-REBOOT for an address not on this network -> DISCOVER ----------------
in_cl "$LBOOT" net up --iface c0 --request-ip 10.99.0.7 --no-apply --json >"$T/nak.json" 2>"$T/nak.err"
rc=$?
if [ $rc = 0 ] && grep -qx "lboot: net c0: NAK from 10.77.0.1 for 10.99.0.7, back to DISCOVER" "$T/nak.err" &&
	[ "$(json "$T/nak.json" address)" = "$A" ] && grep -q "DHCPNAK(s0) 10.99.0.7 $MAC_C0" "$T/dnsmasq.log"; then
	ok "net/nak-then-discover"
else
	notok "net/nak-then-discover" "exit $rc: $(cat "$T/nak.err")"
fi
# INIT-REBOOT for the address it has: one REQUEST, one ACK, no DISCOVER
n0=$(grep -c "DHCPDISCOVER(s0)" "$T/dnsmasq.log")
if in_cl "$LBOOT" net up --iface c0 --request-ip "$A" --no-apply --json >"$T/reboot.json" 2>"$T/reboot.err" &&
	[ "$(json "$T/reboot.json" address)" = "$A" ] && [ "$(grep -c "DHCPDISCOVER(s0)" "$T/dnsmasq.log")" = "$n0" ]; then
	ok "net/init-reboot"
else
	notok "net/init-reboot" "$(cat "$T/reboot.err")"
fi

# --- UEFI HTTP boot identifiers -------------------------------------------------------
if in_cl "$LBOOT" net up --iface c0 --http --no-apply --json >"$T/http.json" 2>"$T/http.err"; then
	bf=$(json "$T/http.json" boot_file)
	vc=$(json "$T/http.json" vendor_class)
	[ "$bf" = "http://10.77.0.1/boot.ipxe" ] && [ "$vc" = HTTPClient ] &&
		grep -q "vendor class: HTTPClient:Arch:00016:UNDI:003001" "$T/dnsmasq.log" &&
		ok "net/http-boot-identifiers" || notok "net/http-boot-identifiers" "boot file '$bf', class '$vc'"
else
	notok "net/http-boot-identifiers" "$(cat "$T/http.err")"
fi

# --- DHCPv6 (dnsmasq on s0 too: stateful range, boot file URL 59, params 60) ---------
if in_cl "$LBOOT" net up --ipv6 --iface c0 --timeout 15 --json >"$T/v6.json" 2>"$T/v6.err"; then
	L=$T/v6.json
	A6=$(json "$L" address)
	case $A6 in fd00:77::1[0-9a-f][0-9a-f]) ok "net/v6/address-in-range" ;; *) notok "net/v6/address-in-range" "$A6" ;; esac
	check v6/boot-file-url boot_file_url "http://[fd00:77::1]/boot.efi"
	check v6/boot-file-param boot_file_param "console=ttyS0 quiet"
	check v6/dns dns fd00:77::53
	check v6/ntp-option-56 ntp fd00:77::123
	check v6/valid valid 3600
	grep -Eqx "lboot: net c0: DHCPv6 lease $A6 from (fd00:77::1|fe80::[0-9a-f:]+), boot file URL http://\[fd00:77::1\]/boot.efi" "$T/v6.err" &&
		ok "net/v6/log-line" || notok "net/v6/log-line" "$(cat "$T/v6.err")"
	in_cl ip -6 -o addr show dev c0 | grep -q "inet6 $A6/128 " && ok "net/v6/applied" ||
		notok "net/v6/applied" "$(in_cl ip -6 -o addr show dev c0)"
	grep -q "DHCPREPLY(s0) $A6 " "$T/dnsmasq.log" && grep -q "vendor class: 343" "$T/dnsmasq.log" &&
		ok "net/v6/dnsmasq-agrees" || notok "net/v6/dnsmasq-agrees"
	# routes come from router advertisements (dnsmasq: on-link prefix and
	# default router in its "slaac" mode; a DHCPv6-only range advertises
	# neither): the kernel's, not ours; then the boot server is reachable
	for i in $(seq 30); do in_cl ip -6 route show default | grep -q . && break; sleep 0.2; done
	if in_cl "$LBOOT" fetch -q "tftp://[fd00:77::1]/pxelinux.0" -o "$T/got6" 2>"$T/fetch6.err" &&
		cmp -s "$T/got6" "$T/tftp/pxelinux.0"; then
		ok "net/v6/tftp-after-lease"
	else
		notok "net/v6/tftp-after-lease" "$(cat "$T/fetch6.err"; in_cl ip -6 route)"
	fi
else
	notok "net/v6" "$(cat "$T/v6.err")"
fi
in_cl2 "$LBOOT" net up --ipv6 --timeout 4 >/dev/null 2>"$T/v6ns.err"
rc=$?
last=$(tail -1 "$T/v6ns.err")
[ $rc = 1 ] && [[ $last =~ ^"lboot net: no DHCPv6 answer on q1 within 4.0 s ("[0-9]+" Solicits)"$ ]] &&
	ok "net/v6/no-server-bounded" || notok "net/v6/no-server-bounded" "exit $rc: $(cat "$T/v6ns.err")"

# --- proxyDHCP: an address server without boot file + dnsmasq in proxy mode ------------
# br0 (10.78.0.1, address server) bridges the client's cv0 and the proxy's
# pv0; the proxy (10.78.0.2, its own namespace) offers no address and, for
# UEFI x64 (option 93 = 7), no boot file either: the client asks it again
# on UDP 4011 from its new address, and the ACK names the boot file.
newns || { notok "net/netns" "client namespace not created"; exit 1; }
CL3=$NS_PID
newns || { notok "net/netns" "proxy namespace not created"; exit 1; }
PX=$NS_PID
if ip link add br0 type bridge 2>/dev/null; then
	ip link add cv1 type veth peer name cv0
	ip link add pv1 type veth peer name pv0
	ip link set cv1 netns "$CL3"
	ip link set pv1 netns "$PX"
	ip link set cv0 master br0
	ip link set pv0 master br0
	ip link set cv0 up
	ip link set pv0 up
	ip addr add 10.78.0.1/24 dev br0
	ip link set br0 up
	nsenter -t "$PX" -n ip addr add 10.78.0.2/24 dev pv1
	nsenter -t "$PX" -n ip link set pv1 up
	dnsmasq --no-daemon --port=0 --interface=br0 --bind-interfaces --user=root --no-ping \
		--dhcp-range=10.78.0.50,10.78.0.99,255.255.255.0,1h --dhcp-leasefile="$T/leases2" \
		--log-dhcp --log-facility="$T/dnsmasq2.log" 2>"$T/dnsmasq2.err" &
	pids+=($!)
	nsenter -t "$PX" -n dnsmasq --no-daemon --port=0 --interface=pv1 --bind-interfaces --user=root \
		--dhcp-range=10.78.0.0,proxy --pxe-service=X86-64_EFI,"lboot network boot",bootx64.efi \
		--dhcp-leasefile="$T/leases3" --log-dhcp --log-facility="$T/proxy.log" 2>"$T/proxy.err" &
	pids+=($!)
	for i in $(seq 50); do grep -q "proxy on subnet" "$T/proxy.log" 2>/dev/null && break; sleep 0.1; done
	sleep 0.5
	if nsenter -t "$CL3" -n "$LBOOT" net up --timeout 15 --json >"$T/proxy.json" 2>"$T/proxy-up.err"; then
		L=$T/proxy.json
		A3=$(json "$L" address)
		check proxy/boot-file boot_file bootx64.efi
		check proxy/next-server next_server 10.78.0.2
		check proxy/server server 10.78.0.1
		grep -qx "lboot: net cv1: DHCP lease $A3/24 from 10.78.0.1, boot file bootx64.efi on 10.78.0.2" "$T/proxy-up.err" &&
			ok "net/proxy/log-line" || notok "net/proxy/log-line" "$(cat "$T/proxy-up.err")"
		# the proxy's own log: an OFFER (53 = 2) without a boot file, then
		# for a second xid (the 4011 REQUEST) an ACK (53 = 5) naming it
		x=$(sed -n 's/.* \([0-9]*\) bootfile name: bootx64.efi$/\1/p' "$T/proxy.log" | head -1)
		if [ -n "$x" ] && grep -q " $x sent size:  1 option: 53 message-type  5" "$T/proxy.log" &&
			grep -q "message-type  2" "$T/proxy.log" &&
			[ "$(grep -c "bootfile name" "$T/proxy.log")" = 1 ]; then
			ok "net/proxy/port-4011-asked"
		else
			notok "net/proxy/port-4011-asked" "$(grep -E 'PXE|bootfile|message-type' "$T/proxy.log")"
		fi
	else
		notok "net/proxy" "$(cat "$T/proxy-up.err")"
	fi
else
	echo "skip net/proxy: no bridge support in this kernel"
fi

# --- usage -----------------------------------------------------------------------------
"$LBOOT" net up --timeout x >/dev/null 2>&1; [ $? = 2 ] && ok "net/usage" || notok "net/usage"
"$LBOOT" net >/dev/null 2>&1; [ $? = 2 ] && ok "net/usage-no-command" || notok "net/usage-no-command"
in_cl "$LBOOT" net up --iface 'nomatch*' >/dev/null 2>"$T/nm.err"
[ $? = 1 ] && [ "$(cat "$T/nm.err")" = 'lboot net: no Ethernet link matches "nomatch*"' ] &&
	ok "net/no-matching-link" || notok "net/no-matching-link" "$(cat "$T/nm.err")"
exit $fail
