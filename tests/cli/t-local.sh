#!/usr/bin/env bash
# tests/cli/t-local.sh: what a command loads. Libraries load on first use (base/lazylib.c): a warm
# pick loads none of libcurl, libarchive, libxml2, libcrypto, and one that cannot be loaded is a
# one-line error, exit 3.
. "$(dirname "$0")/../lib.sh"
make_sample
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"
export WHEELPICK_CATALOG="$TMP/c.sqlite3" WHEELPICK_CACHE_DIR="$TMP/cache"

# loaded: the shared objects the dynamic loader opened for one run (LD_DEBUG=files)
loaded() {
	rm -f "$TMP"/ld.*
	LD_DEBUG=files LD_DEBUG_OUTPUT="$TMP/ld" "$WHEELPICK" "$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	cat "$TMP"/ld.* 2>/dev/null | grep -o 'file=[^ ]*' | sort -u >"$TMP/loaded"
	return $rc
}
LAZY='file=lib(curl|archive|xml2|crypto)\.so'

expect_exit 0 "a page is crawled" loaded update --index "$FINDLINKS"
expect_grep "with libxml2 (the parser)" 'file=libxml2\.so' "$TMP/loaded"
expect_exit 0 "a warm pick --dry-run" loaded torch==1.8.0 $T --no-deps --dry-run
expect_grep "picks cu111" 'torch-1\.8\.0\+cu111-cp38-cp38-linux_x86_64\.whl' "$TMP/out"
expect_no_grep "and loads none of the four" "$LAZY" "$TMP/loaded"
expect_exit 0 "--version" loaded --version
expect_no_grep "loads none either" "$LAZY" "$TMP/loaded"

# a library that cannot be loaded: exit 3 naming it and the package, and only when needed
mkdir -p "$TMP/badlib" && : >"$TMP/badlib/libcurl.so.4"
expect_exit 0 "a pick that needs no network runs without a loadable libcurl" \
	env LD_LIBRARY_PATH="$TMP/badlib" "$WHEELPICK" torch==1.8.0 $T --no-deps --dry-run
expect_exit 3 "an update over http cannot" \
	env LD_LIBRARY_PATH="$TMP/badlib" "$WHEELPICK" update --index http://127.0.0.1:9/simple/torch/
expect_grep "names the library and the package" '^wheelpick: cannot load libcurl\.so\.4 .*install .*libcurl4' "$TMP/err"
[ "$(wc -l <"$TMP/err")" = 1 ] && pass "in one line" || fail "the message is $(wc -l <"$TMP/err") lines"

done_testing
