# Sourced by the scripts that build from Debian source packages
# (coreboot/build.sh, scripts/bearssl-src.sh): a PRIVATE apt state in
# $cache/debsrc-apt whose deb-src list is made from the system's own Debian
# archive (deb822 or one-line sources); /etc/apt is never changed.
#   debsrc_init              make the state, apt-get update once a day
#   debsrc_version PKG       the archive's version of source package PKG
#   debsrc_get PKG DIR       apt-get source PKG in DIR (unpacked there)
# Needs $cache (scripts/cache.sh).
debsrc_list() {
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		awk 'BEGIN { RS = ""; FS = "\n" }
		{
			t = u = s = c = k = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^Types:/) t = $i; else if ($i ~ /^URIs:/) u = $i
				else if ($i ~ /^Suites:/) s = $i; else if ($i ~ /^Components:/) c = $i
				else if ($i ~ /^Signed-By:/) k = $i
			}
			if (t !~ /deb/ || u ~ /security/) next
			sub(/^URIs:[ \t]*/, "", u); sub(/^Suites:[ \t]*/, "", s)
			sub(/^Components:[ \t]*/, "", c); sub(/^Signed-By:[ \t]*/, "", k)
			split(s, ss, " "); split(u, uu, " ")
			printf "deb-src %s%s %s %s\n", (k != "" ? "[signed-by=" k "] " : ""), uu[1], ss[1], c
			exit
		}' /etc/apt/sources.list.d/debian.sources
	elif [ -f /etc/apt/sources.list ]; then
		awk '$1 == "deb" && $0 !~ /security/ { $1 = "deb-src"; print; exit }' /etc/apt/sources.list
	fi
}
debsrc_run() {
	_cmd=$1; shift
	"$_cmd" -q -o Dir::Etc::SourceList="$debsrc/sources.list" -o Dir::Etc::SourceParts="$debsrc/parts" \
		-o Dir::State::Lists="$debsrc/lists" -o Dir::Cache="$debsrc/cache" \
		-o APT::Sandbox::User=root "$@"
}
debsrc_init() {
	debsrc=$cache/debsrc-apt
	mkdir -p "$debsrc/parts" "$debsrc/lists/partial" "$debsrc/cache/archives/partial"
	debsrc_list >"$debsrc/sources.list.tmp" && mv "$debsrc/sources.list.tmp" "$debsrc/sources.list"
	[ -s "$debsrc/sources.list" ] || { echo "debsrc: no Debian archive in /etc/apt to take sources from" >&2; return 1; }
	# one update at a time (builds in parallel share the state)
	(
		flock 8
		if ! [ -f "$debsrc/updated" ] || [ -n "$(find "$debsrc/updated" -mmin +1440 2>/dev/null)" ]; then
			debsrc_run apt-get update >&2 && touch "$debsrc/updated"
		fi
	) 8>"$cache/.lock-debsrc-apt"
}
debsrc_version() {
	debsrc_run apt-cache showsrc "$1" 2>/dev/null | awk '/^Version:/ { print $2; exit }'
}
debsrc_get() {
	(cd "$2" && debsrc_run apt-get source "$1" >&2)
}
