# Sourced by the host tests that run real servers on 127.0.0.1 in a private
# network namespace (fetch, https, net, ntp): nothing outside sees them, and
# privileged ports are theirs.
#
# netns_enter NAME "$@": run the calling script again inside `unshare -n`
# (once), with lo up; without root or namespaces, "skip host/NAME: ..." and
# exit 0.
netns_enter() {
	local name=$1
	shift
	if [ -z "${LBOOT_IN_NETNS:-}" ]; then
		if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
			echo "skip host/$name: needs root and network namespaces (unshare -n)"
			exit 0
		fi
		LBOOT_IN_NETNS=1 exec unshare -n bash "$0" "$@"
	fi
	ip link set lo up || { echo "not ok $name/netns: lo up"; exit 1; }
}

# netns_setup NAME: T, a temporary directory (mode 755: servers that drop
# privileges read it); pids, the servers killed on exit; fail; ok, notok.
netns_setup() {
	T=$(mktemp -d "/tmp/lboot-$1.XXXXXX")
	chmod 755 "$T"
	pids=()
	trap netns_cleanup EXIT
	fail=0
}
netns_cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
ok() { echo "ok $1"; }
notok() { echo "not ok $1${2:+: $2}"; fail=1; }
