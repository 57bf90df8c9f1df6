#!/usr/bin/env bash
# tests/windows/t-smoke.sh: the static Windows prefix works: smoke.exe (tests/windows/smoke.c),
# linked against every library in it, passes each of its checks under wine (loopback HTTP through
# libcurl to a Python server, SQLite in WAL mode, tar.gz/zst/bz2/xz written and read back by
# libarchive, sha256 by BCrypt and libcrypto, libxml2, yajl, msgpack-c) and imports only
# Windows' own DLLs.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/winlib.sh"
SMOKE=$WIN/tests/smoke.exe

expect_system_dlls "smoke.exe is static" "$SMOKE"
expect_subsystem "smoke.exe is a console program" "$SMOKE" "Windows CUI"

mkdir -p "$TMP/www" "$TMP/win tmp"
echo "wheelpick smoke $$ body" >"$TMP/www/hello.txt"
python3 -u -m http.server --bind 127.0.0.1 0 --directory "$TMP/www" >"$TMP/http.out" 2>"$TMP/http.err" &
HTTP_PID=$!
stop_http() { kill "$HTTP_PID" 2>/dev/null; wait "$HTTP_PID" 2>/dev/null; }
at_exit stop_http
for _ in $(seq 1 100); do
	port=$(grep -Eo 'port [0-9]+' "$TMP/http.out" | grep -Eo '[0-9]+' | head -1)
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] && pass "http.server started" || fail "http.server did not start: $(cat "$TMP/http.err")"

wine "$SMOKE" "http://127.0.0.1:$port/hello.txt" "wheelpick smoke $$ body" "$(winpath "$TMP/win tmp")" \
	>"$TMP/smoke.crlf" 2>"$TMP/smoke.err"
st=$?
tr -d '\r' <"$TMP/smoke.crlf" >"$TMP/smoke.out"  # a Windows program's text-mode stdout
sed 's/^/      smoke: /' "$TMP/smoke.out"
[ "$st" = 0 ] && pass "smoke.exe exits 0" || fail "smoke.exe exits $st: $(grep FAIL "$TMP/smoke.out" | head -5) $(head -c 500 "$TMP/smoke.err")"
for c in curl-schannel curl-get curl-body sqlite-wal sqlite-query sqlite-wal-file archive-tar-gz archive-tar-zst \
	archive-tar-bz2 archive-tar-xz sha256-bcrypt sha256-libcrypto zlib libxml2-html yajl msgpack; do
	expect_grep "smoke check $c ran and passed" "^ok $c\$" "$TMP/smoke.out"
done
expect_no_grep "no smoke check failed" "^FAIL" "$TMP/smoke.out"
expect_grep "the request reached the server" "GET /hello.txt" "$TMP/http.err"
done_testing
