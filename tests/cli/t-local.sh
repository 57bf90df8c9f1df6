#!/usr/bin/env bash
# tests/cli/t-local.sh: what a command loads and reads. Libraries load on first use (base/lazylib.c):
# a warm pick loads none of libcurl, libarchive, libxml2, libcrypto, and one that cannot be
# loaded is a one-line error, exit 3. Local sources (file://) are read from disk; a folder reads
# as a find-links page, as pip's --find-links DIR does.
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
expect_no_grep "a local page is read without libcurl" 'file=libcurl\.so' "$TMP/loaded"
expect_no_grep "a plain anchor list is read without libxml2 (index/html.c's own scanner)" 'file=libxml2\.so' "$TMP/loaded"
# markup the scanner leaves to libxml2 (a <div> around the links): loaded then, and only then
{ echo '<div>'; cat "$SAMPLE/whl/torch_stable.html"; echo '</div>'; } >"$SAMPLE/whl/wrapped.html"
expect_exit 0 "a page in other markup is crawled" loaded update --index "file://$SAMPLE/whl/wrapped.html"
expect_grep "with libxml2 (the parser)" 'file=libxml2\.so' "$TMP/loaded"
nfiles() { sqlite3 "$WHEELPICK_CATALOG" "SELECT n_files FROM sources WHERE url = '$1'"; }
n_plain=$(nfiles "$FINDLINKS") n_wrapped=$(nfiles "file://$SAMPLE/whl/wrapped.html")
[ "${n_plain:-0}" -gt 0 ] && [ "$n_plain" = "$n_wrapped" ] && pass "and it reads the same $n_plain links" ||
	fail "links: '$n_plain' plain, '$n_wrapped' wrapped"
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

# a page read over http a moment ago is not read again: a pick naming it (--index URL, as users type
# it every time) loads none of the four, and runs without a loadable libcurl
start_server "$SAMPLE"
export WHEELPICK_CATALOG="$TMP/h.sqlite3"
expect_exit 0 "an index over http is crawled" wp update --index "$BASE/whl/torch_stable.html"
expect_exit 0 "a pick naming it, fresh" loaded torch==1.8.0 $T --no-deps --dry-run --json --index "$BASE/whl/torch_stable.html"
expect_grep "picks cu111" 'torch-1\.8\.0\+cu111-cp38-cp38-linux_x86_64\.whl' "$TMP/out"
expect_no_grep "and loads none of the four" "$LAZY" "$TMP/loaded"
expect_exit 0 "nor needs libcurl" \
	env LD_LIBRARY_PATH="$TMP/badlib" "$WHEELPICK" torch==1.8.0 $T --no-deps --dry-run --json --index "$BASE/whl/torch_stable.html"
# --refresh reads it: that needs libcurl, and says so (the pick goes on from the catalog)
expect_exit 0 "--refresh, without libcurl" \
	env LD_LIBRARY_PATH="$TMP/badlib" "$WHEELPICK" torch==1.8.0 $T --no-deps --dry-run --refresh --index "$BASE/whl/torch_stable.html"
expect_grep "names the library and the package" '^wheelpick: warning: cannot load libcurl\.so\.4 .*install .*libcurl4.*catalog already has' "$TMP/err"
stop_server

# a folder as the index: its files are the links
export WHEELPICK_CATALOG="$TMP/f.sqlite3"
expect_exit 0 "a folder of wheels as --index (a path)" wp torch==1.8.0 $T --no-deps --dry-run --json --index "$SAMPLE/whl/cu111"
expect_json "$TMP/out" "j['picks'][0]['filename']" "torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"
expect_exit 0 "a folder of unlabeled builds" wp update --index "$SAMPLE/whl/cu102"
expect_exit 0 "listed" wp list torch --json
expect_json "$TMP/out" "sorted(set(r['variant'] for r in j if '/cu102/' in r['url']))" "['cu102']"
# the round trip pip users know: a wheelhouse written by wheelpick is an index for wheelpick
export WHEELPICK_CATALOG="$TMP/w.sqlite3"
expect_exit 0 "a wheelhouse" wp torch==1.8.0 torchvision $T --index "$FINDLINKS" -d "$TMP/wh"
export WHEELPICK_CATALOG="$TMP/w2.sqlite3" WHEELPICK_CACHE_DIR="$TMP/cache2"
expect_exit 0 "picked again from that folder, as file://" wp torch torchvision $T --index "file://$TMP/wh" -d "$TMP/wh2"
for f in "$TMP"/wh/*.whl; do
	cmp -s "$f" "$TMP/wh2/$(basename "$f")" && pass "same $(basename "$f")" || fail "$(basename "$f") differs or is missing"
done
mkdir -p "$TMP/empty"
expect_exit 0 "an empty folder is an empty index (as for pip)" wp update --index "$TMP/empty"
mkfifo "$TMP/fifo.html"
expect_exit 3 "a FIFO is refused, not waited on" timeout 20 "$WHEELPICK" update --index "file://$TMP/fifo.html"
expect_grep "as not a regular file" "not a regular file" "$TMP/err"
export WHEELPICK_CATALOG="$TMP/q.sqlite3"
expect_exit 0 "a folder URL with a query" wp update --index "file://$SAMPLE/whl/cu111?x=1"
expect_exit 0 "listed" wp list torch --json
expect_json "$TMP/out" "sorted(set('?' in r['url'] for r in j))" "[False]"
expect_exit 3 "a missing file names it" wp update --index "file://$TMP/nope.html"
expect_grep "and says why" "nope\.html.*No such file" "$TMP/err"
done_testing
