#!/bin/sh
# tools/win/build-prefix.sh: the static Windows prefix (x86_64-w64-mingw32) of every library
# wheelpick links, built from Debian's source packages with Debian's mingw-w64. Rebuilt only when
# its inputs change: the source versions, these scripts, the toolchain (the stamp records them).
# usage: tools/win/build-prefix.sh [ROOT]   (default build/win-prefix; the prefix is ROOT/x86_64)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
WIN_ROOT=$(mkdir -p "${1:-build/win-prefix}" && cd "${1:-build/win-prefix}" && pwd)
P=$WIN_ROOT/x86_64
JOBS=${JOBS:-2}
. "$here/toolchain.sh"
. "$here/libs.sh"

# Build order (a library after those it links) as "builder:source-package:binary-package": the
# version built is the one the system's own -dev package came from, when the archive still has it
# (Linux and Windows builds then agree), else the newest it has.
LIBS="zlib:zlib:zlib1g-dev bzip2:bzip2:libbz2-dev xz:xz-utils:liblzma-dev zstd:libzstd:libzstd1
sqlite3:sqlite3:libsqlite3-dev libxml2:libxml2:libxml2-dev yajl:yajl:libyajl-dev
msgpack:msgpack-c:libmsgpack-dev curl:curl:libcurl4-openssl-dev libarchive:libarchive:libarchive-dev
openssl:openssl:libssl-dev"

want=
for l in $LIBS; do
	src=${l#*:}; bin=${src#*:}; src=${src%%:*}
	v=$(dpkg-query -W -f='${source:Version}' "$bin" 2>/dev/null || true)
	want="$want $src${v:+=$v}"
done
versions=$("$here/fetch-sources.sh" "$WIN_ROOT/apt" versions $want)
stamp=$( { echo "$versions"; win_toolchain_id; cat "$here"/*.sh; } | sha256sum | cut -d' ' -f1)
if [ -f "$P/.stamp" ] && [ "$(cat "$P/.stamp")" = "$stamp" ]; then
	echo "win-prefix: $P is up to date"
	exit 0
fi

start=$(date +%s)
# WIN_ONLY="curl libarchive": rebuild just those into the prefix as it is (for working on this
# script; the stamp is not written, so the next plain run rebuilds everything)
only=${WIN_ONLY:-}
[ -n "$only" ] || rm -rf "$P" "$WIN_ROOT/work" "$WIN_ROOT/src"
mkdir -p "$P/include" "$P/lib" "$WIN_ROOT/work" "$WIN_ROOT/src"
fetch=$(echo "$versions" | awk '{ printf "%s=%s ", $1, $2 }')
# shellcheck disable=SC2086
"$here/fetch-sources.sh" "$WIN_ROOT/apt" fetch "$WIN_ROOT/src" $fetch > "$P/VERSIONS"
for l in $LIBS; do
	name=${l%%:*}; src=${l#*:}; src=${src%%:*}
	case " ${only:-$name} " in *" $name "*) ;; *) continue ;; esac
	v=$(awk -v p="$src" '$1 == p { print $2 }' "$P/VERSIONS")
	dsc="$WIN_ROOT/src/${src}_$(echo "$v" | sed 's/^[0-9]*://').dsc"
	tree="$WIN_ROOT/work/$name"
	rm -rf "$tree"
	log="$WIN_ROOT/work/$name.log"
	t0=$(date +%s)
	# --no-check: the .dsc came over apt from a signed Sources index whose hashes apt checked
	dpkg-source --no-check -x "$dsc" "$tree" > "$log" 2>&1
	upstream=$(echo "$v" | sed -e 's/^[0-9]*://' -e 's/-[^-]*$//' -e 's/[+~.]dfsg[0-9]*$//')
	# set -e holds inside the subshell only when it is not tested (not in an `if`)
	set +e
	(set -e; cd "$tree"; "build_$name" "$upstream") >> "$log" 2>&1
	rc=$?
	set -e
	if [ "$rc" != 0 ]; then
		tail -n 40 "$log" >&2
		echo "win-prefix: building $name $v failed (log: $log)" >&2
		exit 1
	fi
	echo "win-prefix: $name $v ($(( $(date +%s) - t0 ))s)"
done
# the logs stay (work/*.log); the trees, libtool's .la files and man pages go
rm -rf "$WIN_ROOT/work"/*/ "$WIN_ROOT/work"/*.tar.* "$WIN_ROOT/work"/*.asc "$P"/lib/*.la "$P/share"
[ -n "$only" ] || echo "$stamp" > "$P/.stamp"
echo "win-prefix: built $P in $(( $(date +%s) - start ))s ($(du -sh "$P" | cut -f1))"
