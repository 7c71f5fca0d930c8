# Sourced by the scripts that keep expensive artefacts outside the tree
# (kernel/build.sh, coreboot/build.sh, tests/os/build.sh):
#   . scripts/cache.sh; lboot_cache NAME
# sets $cache to LBOOT_CACHE (default /var/cache/lboot, or ~/.cache/lboot
# when that cannot be written) and holds $cache/.lock-NAME on fd 9 until the
# script exits: one build of NAME at a time (parallel makes share the cache).
lboot_cache() {
	cache=${LBOOT_CACHE:-/var/cache/lboot}
	mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache=$HOME/.cache/lboot
	mkdir -p "$cache"
	exec 9>"$cache/.lock-$1"
	flock 9
}
