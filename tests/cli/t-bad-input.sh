#!/usr/bin/env bash
# tests/cli/t-bad-input.sh: pages that are not indexes, hostile bytes, a newer catalog, an interrupted crawl.
. "$(dirname "$0")/../lib.sh"
make_sample
expect_exit 0 "a good crawl first" wp update --index "$FINDLINKS"
rows() { sqlite3 "$WHEELPICK_CATALOG" "SELECT count(*) FROM files" 2>/dev/null; }
good=$(rows)

# an error page / bot challenge is not an index: exit 3, nothing written
mkdir -p "$TMP/pages"
cat >"$TMP/pages/challenge.html" <<'HTML'
<!DOCTYPE html><html><head><title>Just a moment...</title></head>
<body><p>Checking your browser before accessing download.pytorch.org.</p></body></html>
HTML
expect_exit 3 "a bot challenge page is exit 3" wp update --index "file://$TMP/pages/challenge.html"
expect_grep "names the page" "challenge.html" "$TMP/err"
[ "$(rows)" = "$good" ] && pass "catalog unchanged" || fail "catalog changed: $(rows) rows, was $good"

# binary junk
head -c 65536 /dev/urandom >"$TMP/pages/junk.html"
expect_exit 3 "binary junk is exit 3" wp update --index "file://$TMP/pages/junk.html"
[ "$(rows)" = "$good" ] && pass "catalog unchanged" || fail "catalog changed after junk"

# malformed links are skipped and counted; good ones kept
cat >"$TMP/pages/mixed.html" <<'HTML'
<a href="cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl">ok</a>
<a href="cu111/torch-1.8.0%2Bcu111-cp39-cp39-linux_x86_64.whl#sha256=nothex">bad hash</a>
<a href="javascript:alert(1)">js</a>
<a href="cu111/%00evil.whl">nul</a>
<a href="cu111/not-a-wheel-name.whl">bad name</a>
HTML
expect_exit 0 "a page with malformed links" wp update --index "file://$TMP/pages/mixed.html"
expect_grep "counted in a warning" "skipped [0-9]+ malformed link" "$TMP/err"

# a million links: bounded time, no crash
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1000000):
        f.write("<a href=\"cpu/pkg%d-1.0-py3-none-any.whl\">x</a>\n" % i)' "$TMP/pages/million.html"
start=$(date +%s)
expect_exit 0 "a page with a million links" timeout 120 "$WHEELPICK" --catalog "$TMP/million.sqlite3" update --index "file://$TMP/pages/million.html"
echo "    (a million links took $(( $(date +%s) - start )) s)"

# deep nesting
python3 -c 'import sys; open(sys.argv[1],"w").write("<div>"*200000 + "<a href=\"x-1.0-py3-none-any.whl\">x</a>")' "$TMP/pages/deep.html"
timeout 60 "$WHEELPICK" --catalog "$TMP/deep.sqlite3" update --index "file://$TMP/pages/deep.html" >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] && pass "deep nesting: exit $rc, no crash" || fail "deep nesting: exit $rc"

# a catalog from a newer wheelpick is refused
sqlite3 "$TMP/newer.sqlite3" "PRAGMA user_version = 99; CREATE TABLE x(y);"
expect_exit 3 "a newer catalog is refused" wp --catalog "$TMP/newer.sqlite3" list torch
expect_grep "says what to do" "newer wheelpick .* upgrade wheelpick or use --catalog" "$TMP/err"
# an older catalog is brought forward in place, its rows kept
cp "$WHEELPICK_CATALOG" "$TMP/old.sqlite3"
n_before=$(sqlite3 "$TMP/old.sqlite3" "SELECT count(*) FROM files WHERE project='torch'")
# schema 1 as it was: trust on first use kept by URL in seen_hashes, and an index on file names
sqlite3 "$TMP/old.sqlite3" "PRAGMA user_version = 1; CREATE INDEX files_by_filename ON files(filename);
	CREATE TABLE IF NOT EXISTS seen_hashes (url TEXT PRIMARY KEY, sha256 TEXT NOT NULL, first_seen INTEGER NOT NULL);"
expect_exit 0 "a schema 1 catalog opens" wp --catalog "$TMP/old.sqlite3" list torch --json
expect_json "$TMP/out" "len(j)" "$n_before"
# to the version a new catalog gets (whatever schema.sql says now)
wp --catalog "$TMP/fresh.sqlite3" list torch >/dev/null 2>&1
current=$(sqlite3 "$TMP/fresh.sqlite3" 'PRAGMA user_version')
[ "$current" -ge 4 ] && [ "$(sqlite3 "$TMP/old.sqlite3" 'PRAGMA user_version')" = "$current" ] &&
	pass "migrated to schema $current" || fail "not migrated to schema $current"
[ -z "$(sqlite3 "$TMP/old.sqlite3" "SELECT name FROM sqlite_master WHERE name='files_by_filename'")" ] \
	&& pass "the unused index is gone" || fail "index still there"
# a file that is not a catalog
echo "hello" >"$TMP/notdb.sqlite3"
expect_exit 3 "not a catalog" wp --catalog "$TMP/notdb.sqlite3" list torch

# kill -9 during crawls, many times: the catalog stays consistent and answers
for i in $(seq 1 100); do
	"$WHEELPICK" --catalog "$TMP/kill.sqlite3" update --force --index "$FINDLINKS" --index "file://$TMP/pages/million.html" >/dev/null 2>&1 &
	pid=$!
	sleep "0.0$((RANDOM % 9 + 1))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
done
ic=$(sqlite3 "$TMP/kill.sqlite3" "PRAGMA integrity_check" 2>&1)
[ "$ic" = ok ] && pass "integrity_check ok after 100 kill -9" || fail "integrity_check: $ic"
expect_exit 0 "the catalog answers after the kills" wp --catalog "$TMP/kill.sqlite3" update --index "$FINDLINKS"
expect_exit 0 "and lists" wp --catalog "$TMP/kill.sqlite3" list torch --json
expect_json "$TMP/out" "len(j)" 42

# kill -9 during pick -d: never a partial file under a final name; a rerun completes
export WHEELPICK_CATALOG="$TMP/pk.sqlite3" WHEELPICK_CACHE_DIR="$TMP/pkcache"
for i in $(seq 1 100); do
	"$WHEELPICK" torch torchvision --cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS" \
		-d "$TMP/whk" >/dev/null 2>&1 &
	pid=$!
	sleep "0.$((RANDOM % 2))$((RANDOM % 10))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
done
ls "$TMP"/whk/*.whl >/dev/null 2>&1 && { wp verify "$TMP"/whk/*.whl >/dev/null 2>"$TMP/verr" \
	&& pass "every wheel under a final name verifies after the kills" || { fail "a partial wheel"; cat "$TMP/verr" >&2; }; } \
	|| pass "no wheel landed before the kills (nothing partial)"
expect_exit 0 "a rerun completes" wp torch torchvision --cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS" -d "$TMP/whk"
expect_exit 0 "and the wheelhouse verifies" wp verify "$TMP/whk"
ic=$(sqlite3 "$TMP/pk.sqlite3" "PRAGMA integrity_check" 2>&1)
[ "$ic" = ok ] && pass "catalog integrity after killed picks" || fail "integrity_check: $ic"

# an update while picks run: the picks see the old rows or the new, never none
( for i in 1 2 3 4 5; do "$WHEELPICK" update --force --index "$FINDLINKS" >/dev/null 2>&1; done ) &
upd=$!
ok=0
for i in $(seq 1 10); do
	"$WHEELPICK" torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --no-deps --dry-run --json >"$TMP/p.json" 2>/dev/null \
		&& grep -q '"variant": "cu111"' "$TMP/p.json" && ok=$((ok + 1))
done
wait "$upd"
[ "$ok" = 10 ] && pass "10 picks during 5 updates all answered cu111" || fail "only $ok of 10 picks answered during updates"
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3" WHEELPICK_CACHE_DIR="$TMP/cache"

# two updates at once: both finish, no lost rows. Twenty times over a new catalog, where both
# race to create it (switching it to WAL once answered "database is locked" about one time in 30)
bad=0
for i in $(seq 1 20); do
	rm -f "$TMP"/two.sqlite3*
	wp --catalog "$TMP/two.sqlite3" update --force --index "$FINDLINKS" >/dev/null 2>"$TMP/two1.err" &
	wp --catalog "$TMP/two.sqlite3" update --force --index "$FINDLINKS" >/dev/null 2>"$TMP/two2.err"
	r2=$?
	wait $!
	r1=$?
	[ "$r1$r2" = 00 ] || { bad=$((bad + 1)); cat "$TMP/two1.err" "$TMP/two2.err" >&2; }
done
[ "$bad" = 0 ] && pass "two concurrent updates both succeed, 20 times" || fail "concurrent updates failed $bad of 20 times"
[ "$(sqlite3 "$TMP/two.sqlite3" 'SELECT count(*) FROM files')" = 84 ] && pass "no lost or doubled rows" || fail "rows: $(sqlite3 "$TMP/two.sqlite3" 'SELECT count(*) FROM files')"

# an unwritable catalog folder: a clear error
expect_exit 3 "a catalog under a file" wp --catalog "$TMP/pages/junk.html/c.sqlite3" list torch
done_testing
