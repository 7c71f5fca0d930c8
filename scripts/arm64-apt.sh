# Sourced by scripts/arm64-sysroot.sh and scripts/arm64-kernel.sh: arm64
# packages from Debian's archive through a PRIVATE apt state in a work
# directory (its own lists and cache, the architectures amd64 and arm64,
# the system's own /etc/apt sources), unpacked with `dpkg-deb -x`: nothing
# is installed, /etc/apt and dpkg's architectures are never touched.
#   arm64_apt WORK apt-get|apt-cache ARGS...   the tool with the private state
#   arm64_apt_update WORK                      make WORK, apt-get update
#   arm64_apt_unpack WORK PKG...               download PKG into WORK/debs,
#       unpack into WORK/root; prints 'name architecture version' per package
arm64_apt() {
	_w=$1 _t=$2
	shift 2
	"$_t" -o Dir::State::Lists="$_w/lists" -o Dir::Cache="$_w" \
		-o Dir::Cache::archives="$_w/archives" -o Dir::Cache::pkgcache= \
		-o Dir::Cache::srcpkgcache= -o Dir::State::status=/dev/null \
		-o APT::Architectures::=amd64 -o APT::Architectures::=arm64 \
		-o Debug::NoLocking=1 -qq "$@"
}

arm64_apt_update() {
	rm -rf "$1"
	mkdir -p "$1/lists/partial" "$1/archives/partial" "$1/debs" "$1/root"
	# apt-get download fetches as the _apt user when run as root
	chown -R _apt "$1/lists" "$1/archives" "$1/debs" 2>/dev/null || true
	echo "arm64: apt-get update (private state in $1)" >&2
	arm64_apt "$1" apt-get update
}

arm64_apt_unpack() {
	_w=$1
	shift
	(cd "$_w/debs" && arm64_apt "$_w" apt-get download "$@") || return 1
	for _d in "$_w"/debs/*.deb; do
		dpkg-deb -x "$_d" "$_w/root" || return 1
		dpkg-deb -W --showformat='${Package} ${Architecture} ${Version}\n' "$_d"
	done
}
