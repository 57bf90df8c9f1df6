#!/usr/bin/env bash
# tests/cli/t-slow.sh: the attack matrix, part 2: slow and broken servers. Every transfer ends in
# bounded time, a short body is never accepted, and the caps hold. WHEELPICK_TIMEOUT=1 makes a
# stall one second and the overall deadline's grace ten (defaults: 30 s and 300 s).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attacks-lib.sh"
export WHEELPICK_RETRY_BASE_MS=20
T="--cuda cpu --python 3.8 --platform linux_x86_64 --no-deps"
SRV="$TMP/srv"
mkdir -p "$SRV/idx" "$SRV/w"
script '{}'
start_server "$SRV" "$TMP/script.json"
mkwheel "$SRV/w" big-pkg 1.0 --pad 2000000
BIG=$W_FN
printf '<a href="../w/%s#sha256=%s">x</a>\n' "$W_FN" "$W_SHA" >"$SRV/idx/big.html"
mkwheel "$SRV/w" small-pkg 1.0
SMALL=$W_FN
printf '<a href="../w/%s#sha256=%s">x</a>\n' "$W_FN" "$W_SHA" >"$SRV/idx/small.html"
# files in the cache other than partial downloads (kept on purpose, ROOT/partial/<sha256>, for the
# next run to resume: tests/unit/test_store.c); "$TMP" itself may lie under /tmp
leftovers() { find "$WHEELPICK_CACHE_DIR" -type f ! -path "$WHEELPICK_CACHE_DIR/*/partial/*" 2>/dev/null | wc -l; }
# a kept partial is never a whole file: shorter than the one the index names ($1: its size)
partials_short() {
	local f n=0
	while IFS= read -r f; do
		[ "$(stat -c %s "$f")" -lt "$1" ] || { echo "$f is $(stat -c %s "$f") bytes" >&2; n=$((n + 1)); }
	done < <(find "$WHEELPICK_CACHE_DIR" -type f -path "$WHEELPICK_CACHE_DIR/*/partial/*" 2>/dev/null)
	echo "$n"
}

attack "a wheel that drips 20 bytes a second (above the stall limit) ends at the overall deadline"
fresh n1
expect_exit 0 "the page" wp update --index "$BASE/idx/big.html"
script "{\"/w/$BIG\": {\"trickle\": 20}}"
WHEELPICK_TIMEOUT=1 expect_fast "ends in bounded time" 40 wp big-pkg $T --index "$BASE/idx/big.html" -d "$TMP/wh1"
expect_eq "exit 3" "$RC" 3
expect_grep "saying it was too slow" "too slow: [0-9]+ bytes in [0-9]+ s" "$TMP/err"
expect_no_file "nothing in the wheelhouse" "$TMP/wh1/$BIG"
expect_eq "nothing left in the store but a partial download" "$(leftovers)" 0
expect_eq "and that partial is short of the file" "$(partials_short "$(stat -c %s "$SRV/w/$BIG")")" 0

attack "an index page that drips ends at the deadline too (update)"
fresh n2
script '{"/idx/drip.html": {"trickle": 20}}'
cp "$SRV/idx/big.html" "$SRV/idx/drip.html"
for i in $(seq 1 400); do printf '<a href="../w/x%d-1.0-py3-none-any.whl">x</a>\n' "$i"; done >>"$SRV/idx/drip.html"
WHEELPICK_TIMEOUT=1 expect_fast "ends in bounded time" 40 wp update --index "$BASE/idx/drip.html"
expect_eq "exit 3" "$RC" 3
expect_grep "saying so" "too slow" "$TMP/err"

attack "a download that stalls mid-body is resumed from where it stopped, and whole"
fresh n3
# (the server counts requests per path for `times`: this scenario has its own)
mkdir -p "$SRV/w/stall"
cp "$SRV/w/$BIG" "$SRV/w/stall/"
sed 's|\.\./w/|../w/stall/|' "$SRV/idx/big.html" >"$SRV/idx/stall.html"
script "{\"/w/stall/$BIG\": {\"stall_after\": 300000, \"stall_seconds\": 20, \"times\": 1}}"
WHEELPICK_TIMEOUT=1 expect_fast "done in bounded time" 30 wp big-pkg $T --index "$BASE/idx/stall.html" -d "$TMP/wh3"
expect_eq "exit 0" "$RC" 0
expect_grep "resumed with a Range request" "\"Range\":\"bytes=[1-9][0-9]*-\".*\"path\":\"/w/stall/$BIG\"" "$TMP/server.log"
cmp -s "$TMP/wh3/$BIG" "$SRV/w/$BIG" && pass "the file is whole" || fail "the resumed file differs"

attack "a server that always drops mid-body: exit 3 after bounded tries, never a short file"
fresh n4
script "{\"/w/$BIG\": {\"drop_after\": 100000}}"
expect_fast "ends" 60 wp big-pkg $T --index "$BASE/idx/big.html" -d "$TMP/wh4"
expect_eq "exit 3" "$RC" 3
expect_no_file "nothing in the wheelhouse" "$TMP/wh4/$BIG"
expect_eq "nothing in the store but a partial download" "$(leftovers)" 0
expect_eq "and that partial is short of the file" "$(partials_short "$(stat -c %s "$SRV/w/$BIG")")" 0

attack "a server that announces more bytes than it sends: never accepted short"
fresh n5
script "{\"/w/$SMALL\": {\"wrong_length\": 5000}}"
expect_fast "ends" 60 wp small-pkg $T --index "$BASE/idx/small.html" -d "$TMP/wh5"
# the resume at the end is answered 416 "bytes */SIZE": every byte is there, and the sha256 agrees
no_crash "exit 0 or 3" "$RC"
{ [ ! -e "$TMP/wh5/$SMALL" ] || cmp -s "$TMP/wh5/$SMALL" "$SRV/w/$SMALL"; } && pass "a file there is whole" ||
	fail "a short file was accepted"

attack "a gzip-encoded page that expands past the page cap (100 MB of zeros) is refused in bounded memory"
fresh n6
script '{"/idx/bomb.html": {"gzip_bomb": 100}}'
# the cap is --max-page-size (default 2 GiB, for real index roots): 64M here, under the bomb
if [ -x /usr/bin/time ]; then
	expect_exit 3 "exit 3" /usr/bin/time -f '%M' -o "$TMP/rss" "$WHEELPICK" --max-page-size 64M update \
		--index "$BASE/idx/bomb.html"
	rss=$(tail -1 "$TMP/rss")
	[ "${rss:-999999}" -lt 200000 ] && pass "peak memory ${rss} KiB" || fail "peak memory ${rss} KiB"
else
	expect_exit 3 "exit 3" wp --max-page-size 64M update --index "$BASE/idx/bomb.html"
fi
expect_grep "saying it is over the cap" "larger than (the page size limit \()?[0-9]+ bytes" "$TMP/err"
# under the default cap the same bomb is a page of NUL bytes: refused too, in bounded memory
# (past 8 MiB a page goes to a file, not the heap)
if [ -x /usr/bin/time ]; then
	expect_exit 3 "under the default cap: exit 3" /usr/bin/time -f '%M' -o "$TMP/rss" "$WHEELPICK" update \
		--index "$BASE/idx/bomb.html"
	rss=$(tail -1 "$TMP/rss")
	[ "${rss:-999999}" -lt 200000 ] && pass "peak memory ${rss} KiB" || fail "peak memory ${rss} KiB"
	expect_grep "saying what it is" "not an index page|binary data" "$TMP/err"
fi
expect_eq "the catalog holds nothing from it" "$(sql "SELECT count(*) FROM files")" 0

attack "429 with Retry-After: 999999 is capped (at WHEELPICK_TIMEOUT) and said"
fresh n7
script "{\"/w/$SMALL\": {\"status\": [429], \"retry_after\": 999999}}"
expect_exit 0 "the page" wp update --index "$BASE/idx/small.html"
WHEELPICK_TIMEOUT=2 expect_fast "ends in bounded time" 30 wp small-pkg $T --index "$BASE/idx/small.html" -d "$TMP/wh7"
expect_eq "exit 3" "$RC" 3
expect_grep "naming the status and what was asked" "HTTP 429.*asked to wait 999999 s.*waits 2 s at most" "$TMP/err"

attack "503 with a Retry-After date in 2100, then 200: waits the cap, not 75 years"
fresh n8
script "{\"/w/$SMALL\": {\"status\": [503, 200], \"retry_after\": \"Fri, 31 Dec 2100 23:59:59 GMT\"}}"
WHEELPICK_TIMEOUT=2 expect_fast "done in bounded time" 30 wp small-pkg $T --index "$BASE/idx/small.html" -d "$TMP/wh8"
expect_eq "exit 0" "$RC" 0
expect_file "the file" "$TMP/wh8/$SMALL"

done_matrix
