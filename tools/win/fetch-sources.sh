#!/bin/sh
# tools/win/fetch-sources.sh: Debian source packages for the Windows prefix, through a private apt
# configuration (its own deb-src list, lists and cache under $1), so the system's sources stay as they are.
# usage: fetch-sources.sh STATE_DIR versions|fetch SRC_DIR PKG...
set -eu
state=$1; mode=$2; shift 2
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/etc/sources.list.d" "$state/etc/preferences.d"
# The same mirror and suite the system's apt uses (a snapshot pin included), as deb-src.
{
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^Types:/ { $0 = "Types: deb-src" } { print }' "$f"; echo
	done
} > "$state/etc/deb-src.sources.new"
if ! grep -q '^URIs:' "$state/etc/deb-src.sources.new" && [ -f /etc/apt/sources.list ]; then
	sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$state/etc/sources.list"
else
	: > "$state/etc/sources.list"
fi
mv "$state/etc/deb-src.sources.new" "$state/etc/sources.list.d/deb-src.sources"
apt() {
	"$@" -o Dir::Etc::sourcelist="$state/etc/sources.list" -o Dir::Etc::sourceparts="$state/etc/sources.list.d" \
		-o Dir::Etc::preferencesparts="$state/etc/preferences.d" -o Dir::State="$state" \
		-o Dir::State::Lists="$state/lists" -o Dir::State::status=/var/lib/dpkg/status \
		-o Dir::Cache="$state/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root
}
# A failed refresh (offline) keeps the lists we had; without any, there is nothing to build from.
if ! apt apt-get -qq update >"$state/update.log" 2>&1; then
	ls "$state/lists/"*Sources* >/dev/null 2>&1 || { cat "$state/update.log" >&2; exit 3; }
	echo "fetch-sources: apt-get update failed; using the lists from before" >&2
fi
case $mode in
versions)  # "package version" for each PACKAGE[=PREFERRED]: the preferred version (the one the system's
	# own library came from, so Linux and Windows builds agree) when the lists offer it, else the newest
	for arg; do
		p=${arg%%=*}; want=; [ "$p" = "$arg" ] || want=${arg#*=}
		v=
		for c in $(apt apt-cache showsrc --only-source "$p" 2>/dev/null | awk '/^Version:/ { print $2 }'); do
			if [ "$c" = "$want" ]; then v=$c; break; fi
			if [ -z "$v" ] || dpkg --compare-versions "$c" gt "$v"; then v=$c; fi
		done
		[ -n "$v" ] || { echo "fetch-sources: no source package '$p' in $state/etc" >&2; exit 3; }
		echo "$p $v"
	done ;;
fetch)  # PACKAGE=VERSION...; prints "package version" as fetched. A mirror may list a version whose
	# files it lacks (a partial security mirror): then the next older version the lists offer.
	dir=$1; shift
	mkdir -p "$dir"
	for pv; do
		p=${pv%%=*}
		got=
		for v in ${pv#*=} $(apt apt-cache showsrc --only-source "$p" 2>/dev/null |
				awk '/^Version:/ { print $2 }' | sort -u -r -V); do
			[ -z "$got" ] || break
			(cd "$dir" && apt apt-get -qq source --download-only "$p=$v" >/dev/null 2>>"$state/source.log") && got=$v
		done
		[ -n "$got" ] || { cat "$state/source.log" >&2; exit 3; }
		echo "$p $got"
	done ;;
esac
