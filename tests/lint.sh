#!/usr/bin/env bash
# tests/lint.sh: bans calls that have no bound or no error report (make lint).
set -u
cd "$(dirname "$0")/.."
bad=$(grep -nE '\b(strcpy|strcat|sprintf|vsprintf|gets|atoi|atol|atoll|strtok)\s*\(' \
	$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.c' -o -name '*.h') | grep -v '^tests/fuzz/' || true)
results=${WP_RESULTS:-build/test-results}
mkdir -p "$results" 2>/dev/null
if [ -n "$bad" ]; then
	echo "lint: banned calls (use snprintf, wp_buf, strtol with checks, strtok_r):"
	echo "$bad"
	echo "0 1 0" >"$results/lint.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
	exit 1
fi
echo "1 0 0" >"$results/lint.count"
echo "lint: no banned calls"

# A clone of the project alone must pass: no test names the team's data folder beside the checkout
# (its small real files are vendored under tests/fixtures/real/ with PROVENANCE.md); bench/ may.
outside=$(git grep -nE '\.\./shared|/work/shared|WP_SHARED_DATA' -- 'tests/*.c' 'tests/*.h' 'tests/*.py' 'tests/*.sh' \
	'mk/*.mk' Makefile ':!tests/lint.sh' 2>/dev/null || true)
if [ -n "$outside" ]; then
	echo "lint: tests that reach outside the repository for data (vendor it under tests/fixtures/real/):"
	echo "$outside"
	echo "0 1 0" >"$results/vendored.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] || exit 1
else
	echo "1 0 0" >"$results/vendored.count"
	echo "lint: no test reads data from outside the repository"
fi

# CI runs the README's test commands: every `make test*` line of .ci/run is in README's set-up block.
ci_missing=""
for t in $(sed -n 's/^make \(test[a-z-]*\)$/\1/p' .ci/run 2>/dev/null); do
	sed -n '/^## Set up/,/^## /p' README.md | grep -q "^make $t " || ci_missing="$ci_missing make $t"
done
if [ -n "$ci_missing" ]; then
	echo "lint: .ci/run runs test commands README's set-up block does not show:$ci_missing"
	echo "0 1 0" >"$results/ci.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] || exit 1
else
	echo "1 0 0" >"$results/ci.count"
	echo "lint: README shows each test command .ci/run runs"
fi

# The layers (ARCHITECTURE.md): each folder includes only the folders below it, so the include
# graph has no cycle. cli -> ops -> {env, cache, verify, net, index, resolver} -> base.
allowed() {
	case $1 in
	base) echo "base" ;;
	resolver) echo "base resolver" ;;
	index) echo "base resolver index" ;;
	net) echo "base net" ;;
	verify) echo "base resolver verify" ;;
	cache) echo "base resolver verify cache" ;;
	env) echo "base resolver env" ;;
	ops) echo "base resolver index net verify cache env ops" ;;
	cli) echo "base resolver index net verify cache env ops cli" ;;
	*) echo "" ;;
	esac
}
# A third-party library's headers belong to one layer each, so swapping or faking it touches one folder.
lib_folders() {
	case $1 in
	curl) echo "net" ;;
	sqlite3) echo "cache" ;;
	libxml) echo "index" ;;
	openssl) echo "verify" ;;
	zlib) echo "verify" ;;
	archive) echo "verify index ops" ;;
	yajl) echo "base" ;;
	msgpack) echo "base" ;;
	esac
}
layer_bad=""
for f in $(git ls-files 'base/*.[ch]' 'resolver/*.[ch]' 'index/*.[ch]' 'net/*.[ch]' 'verify/*.[ch]' 'cache/*.[ch]' 'env/*.[ch]' 'ops/*.[ch]' 'cli/*.[ch]'); do
	dir=${f%%/*}
	ok=" $(allowed "$dir") "
	while IFS= read -r inc; do
		to=${inc%%/*}
		case "$ok" in *" $to "*) ;; *) layer_bad="$layer_bad$f includes $inc ($dir may include: $(allowed "$dir"))"$'\n' ;; esac
	done < <(sed -n 's/^#include "\([a-z_]*\/[^"]*\)".*/\1/p' "$f")
	while IFS= read -r inc; do
		lib=${inc%%[/.]*}
		case $lib in sqlite3 | zlib | msgpack) ;; archive_entry) lib=archive ;; esac
		folders=$(lib_folders "$lib")
		[ -z "$folders" ] && continue
		case " $folders " in *" $dir "*) ;; *) layer_bad="$layer_bad$f includes <$inc> (only $folders may)"$'\n' ;; esac
	done < <(sed -n 's/^#include <\(curl\/[^>]*\|sqlite3.h\|libxml\/[^>]*\|openssl\/[^>]*\|zlib.h\|msgpack.h\|archive[^>]*\|yajl\/[^>]*\)>.*/\1/p' "$f")
done
if [ -n "$layer_bad" ]; then
	echo "lint: includes that point up or across the layers:"
	printf '%s' "$layer_bad"
	echo "0 1 0" >"$results/layers.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
	exit 1
fi
echo "1 0 0" >"$results/layers.count"
echo "lint: every include points down the layers"
