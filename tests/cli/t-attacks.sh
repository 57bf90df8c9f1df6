#!/usr/bin/env bash
# tests/cli/t-attacks.sh: the attack matrix, part 1: sources that lie, trust on first use that
# cannot be sidestepped, metadata that lies, and a store that cannot be corrupted through a
# wheelhouse. One "held/FAIL" line per case in the log (tests/cli/attacks-lib.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attacks-lib.sh"
export WHEELPICK_RETRY_BASE_MS=20
T="--cuda cpu --python 3.8 --platform linux_x86_64"
SRV="$TMP/srv"
BOX="$TMP/box"
mkdir -p "$SRV/idx" "$SRV/w" "$BOX"
script '{}'
start_server "$SRV" "$TMP/script.json"

mkwheel "$SRV/w" good-pkg 1.0
GOOD=$W_FN GOOD_SHA=$W_SHA
mkwheel "$TMP/local" demo-pkg 1.0 --payload 'secret = "a local file"'
LOCAL=$W_FN

# --- sources that lie ---------------------------------------------------------------------

attack "an http page's file:// links (any spelling) are never followed"
fresh s1
cat >"$SRV/idx/file-links.html" <<EOF
<a href="../w/$GOOD#sha256=$GOOD_SHA">$GOOD</a>
<a href="file://$TMP/local/$LOCAL">a</a>
<a href="FILE://$TMP/local/$LOCAL">b</a>
<a href="file:$TMP/local/$LOCAL">c</a>
<a href="file://localhost$TMP/local/$LOCAL">d</a>
<a href="  file://$TMP/local/$LOCAL  ">e</a>
EOF
expect_exit 0 "the page is read" wp update --index "$BASE/idx/file-links.html"
expect_grep "the local links are refused, and said" "(skipped|refused) 5 " "$TMP/err"
expect_eq "no file: URL in the catalog" "$(sql "SELECT count(*) FROM files WHERE lower(url) LIKE 'file:%'")" 0
expect_exit 1 "a pick cannot reach the local file" wp demo-pkg $T --index "$BASE/idx/file-links.html" -d "$BOX/wh1" --no-deps
expect_no_file "nothing copied" "$BOX/wh1/$LOCAL"

attack "a PEP 691 page's file:// URLs are never followed"
fresh s1j
mkdir -p "$SRV/p691/demo-pkg"
cat >"$SRV/p691/demo-pkg/index.json" <<EOF
{"meta": {"api-version": "1.0"}, "name": "demo-pkg", "files": [
 {"filename": "$LOCAL", "url": "file://$TMP/local/$LOCAL", "hashes": {}},
 {"filename": "$GOOD", "url": "../../w/$GOOD", "hashes": {"sha256": "$GOOD_SHA"}}]}
EOF
expect_exit 0 "the page is read" wp update --index "$BASE/p691/demo-pkg/index.json"
expect_eq "no file: URL in the catalog" "$(sql "SELECT count(*) FROM files WHERE lower(url) LIKE 'file:%'")" 0
expect_eq "the honest file is" "$(sql "SELECT count(*) FROM files WHERE filename = '$GOOD'")" 1

attack "a redirect into file:// is refused (page and wheel)"
fresh s2
mkwheel "$SRV/w" redir-pkg 1.0
printf '<a href="../w/%s">x</a>\n' "$W_FN" >"$SRV/idx/redir.html"
script "{\"/w/$W_FN\": {\"redirect\": \"file://$TMP/local/$LOCAL\"},
	\"/idx/moved.html\": {\"redirect\": \"file://$SRV/idx/redir.html\"}}"
expect_exit 3 "a page redirected into file:// is exit 3" wp update --index "$BASE/idx/moved.html"
expect_exit 3 "a wheel redirected into file:// is exit 3" wp redir-pkg $T --index "$BASE/idx/redir.html" -d "$BOX/wh2" --no-deps
expect_grep "naming the URL" "redir_pkg-1.0" "$TMP/err"
expect_no_file "nothing written" "$BOX/wh2/$W_FN"
script '{}'

attack "hrefs with ../, absolute paths, encoded separators, NUL, newlines name no file outside"
fresh s3
E=-1.0-py3-none-any.whl
cat >"$SRV/idx/hostile.html" <<EOF
<a href="../w/$GOOD">ok</a>
<a href="../../../../../../tmp/evil_a$E">a</a>
<a href="..%2F..%2F..%2Fevil_b$E">b</a>
<a href="%2e%2e%2fevil_c$E">c</a>
<a href="..%5C..%5Cevil_d$E">d</a>
<a href="evil_e$E%00.txt">e</a>
<a href="evil_f%0a$E">f</a>
<a href="/abs/path/evil_g$E">g</a>
<a href="%2Ftmp%2Fevil_h$E">h</a>
<a href="evil_i$E;touch \$HOME/pwned">i</a>
<a href="evil_j%0d%0aX-Injected:%201$E">j</a>
EOF
expect_exit 0 "the page is read" wp update --index "$BASE/idx/hostile.html"
expect_eq "every file name in the catalog is one plain segment" \
	"$(sql "SELECT count(*) FROM files WHERE filename GLOB '*[/\\]*' OR filename LIKE '%..%' OR instr(filename, char(10)) OR instr(filename, char(13)) OR instr(filename, char(0))")" 0
expect_exit 0 "the honest file still picks" wp good-pkg $T --index "$BASE/idx/hostile.html" -d "$BOX/in/wh3" --no-deps
expect_eq "the destination holds the wheel and the lock files only" \
	"$(find "$BOX/in" -name 'evil*' | wc -l) $(find / -xdev -name 'evil_[a-j]-1.0*' -not -path "$SRV/*" 2>/dev/null | wc -l)" "0 0"
expect_no_file "no shell text ran" "$HOME/pwned"

attack "names that carry shell text (sdists, wheels) never reach the catalog, requirements or lock files"
fresh s3b
cat >"$SRV/idx/shell.html" <<EOF
<a href="../w/$GOOD">ok</a>
<a href="x%24(touch%20pwned)-1.0-py3-none-any.whl">a</a>
<a href="y%60id%60-1.0.tar.gz">b</a>
<a href="z'%3Bid%3B'-1.0.zip">c</a>
<a href="w-1.0%3Bid.tar.gz">d</a>
EOF
expect_exit 0 "the page is read" wp update --index "$BASE/idx/shell.html"
expect_grep "the names are skipped, and said" "skipped 4 malformed" "$TMP/err"
expect_eq "only the honest file is in the catalog" "$(sql "SELECT filename FROM files")" "$GOOD"

attack "PEP 691 filenames that climb, are absolute, hold NUL or newlines, or differ from the URL are refused"
fresh s4
mkdir -p "$SRV/p691/good-pkg"
cat >"$SRV/p691/good-pkg/index.json" <<EOF
{"meta": {"api-version": "1.0"}, "name": "good-pkg", "files": [
 {"filename": "../../evil_k$E", "url": "../../w/$GOOD", "hashes": {"sha256": "$GOOD_SHA"}},
 {"filename": "/tmp/evil_l$E", "url": "../../w/$GOOD", "hashes": {"sha256": "$GOOD_SHA"}},
 {"filename": "evil_m\u0000$E", "url": "../../w/$GOOD", "hashes": {"sha256": "$GOOD_SHA"}},
 {"filename": "evil_n\n$E", "url": "../../w/$GOOD", "hashes": {"sha256": "$GOOD_SHA"}},
 {"filename": "sub\\\\evil_o$E", "url": "../../w/$GOOD", "hashes": {"sha256": "$GOOD_SHA"}},
 {"filename": "good_pkg-2.0-py3-none-any.whl", "url": "../../w/$GOOD", "hashes": {"sha256": "$GOOD_SHA"}},
 {"filename": "$GOOD", "url": "../../w/$GOOD?from=cdn", "hashes": {"sha256": "$GOOD_SHA"}}]}
EOF
expect_exit 0 "the page is read" wp update --index "$BASE/p691/good-pkg/index.json"
expect_eq "only the honest entry is kept" "$(sql "SELECT filename FROM files")" "$GOOD"
expect_exit 0 "and it picks (1.0: the 2.0 that names another file is gone)" \
	wp good-pkg $T --index "$BASE/p691/good-pkg/index.json" -d "$BOX/wh4" --no-deps
expect_file "into the destination" "$BOX/wh4/$GOOD"

attack "an https page's plain http:// links are refused (and never requested)"
mkdir -p "$TMP/tls"
if (cd "$TMP/tls" &&
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem -days 2 \
		-subj /CN=wp-attacks-ca -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout srv.key -out srv.csr -subj /CN=127.0.0.1 &&
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >srv.ext &&
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 -extfile srv.ext) >/dev/null 2>&1; then
	python3 "$ROOT/tests/server/faultserver.py" --root "$SRV" --port-file "$TMP/tls/port" --log "$TMP/tls.log" \
		--max-seconds 240 --tls "$TMP/tls/srv.pem" "$TMP/tls/srv.key" >/dev/null 2>&1 &
	TLS_PID=$!
	stop_tls() { kill "$TLS_PID" 2>/dev/null; wait "$TLS_PID" 2>/dev/null; }
	at_exit stop_tls
	for i in $(seq 1 100); do [ -s "$TMP/tls/port" ] && break; sleep 0.05; done
	TLS="https://127.0.0.1:$(cat "$TMP/tls/port")"
	fresh s5
	cat >"$SRV/idx/mixed.html" <<EOF
<a href="../w/$GOOD#sha256=$GOOD_SHA">ok</a>
<a href="$BASE/w/plain/demo_pkg-1.0-py3-none-any.whl">plain http</a>
EOF
	: >"$TMP/server.log"
	WHEELPICK_CA_BUNDLE="$TMP/tls/ca.pem" expect_exit 0 "the https page is read" wp update --index "$TLS/idx/mixed.html"
	expect_grep "the http link is refused, and said" "(skipped|refused) 1 " "$TMP/err"
	expect_eq "no http:// URL in the catalog" "$(sql "SELECT count(*) FROM files WHERE url LIKE 'http:%'")" 0
	WHEELPICK_CA_BUNDLE="$TMP/tls/ca.pem" expect_exit 1 "a pick cannot take it" \
		wp demo-pkg $T --index "$TLS/idx/mixed.html" -d "$BOX/wh5" --no-deps
	expect_no_grep "the plain server was never asked" "/w/plain/" "$TMP/server.log"
else
	fail "openssl could not make a test CA"
fi

# --- trust on first use, keyed by project and file name -----------------------------------

mkwheel "$SRV/w" demo-pkg 1.0
DEMO=$W_FN H1=$W_SHA
cp "$SRV/w/$DEMO" "$TMP/demo-original.whl"
mkdir -p "$SRV/w/v2" "$SRV/w/v3" "$SRV/w/nohash" "$SRV/w/nohash2"
mkwheel "$TMP/evil" demo-pkg 1.0 --payload 'import os  # other bytes under the same name'
H2=$W_SHA
cp "$TMP/evil/$DEMO" "$SRV/w/v2/$DEMO"
cp "$TMP/evil/$DEMO" "$SRV/w/v3/Demo_Pkg-1.0.0-py3-none-any.whl"

first_pick() {
	printf '<a href="../w/%s#sha256=%s">x</a>\n' "$DEMO" "$H1" >"$SRV/idx/tofu.html"
	expect_exit 0 "first seen: the honest file" wp demo-pkg $T --index "$BASE/idx/tofu.html" -d "$BOX/tofu" --no-deps --refresh
}
# republished: PAGE LINE; the same name with other bytes must be refused, the wheelhouse left alone
republished() {
	printf '%s\n' "$1" >"$SRV/idx/tofu.html"
	expect_exit 0 "the page is read again" wp update --index "$BASE/idx/tofu.html" --force
	expect_grep "the change is said" "different sha256 than first seen" "$TMP/err"
	expect_exit 1 "the other bytes are refused" wp demo-pkg $T --index "$BASE/idx/tofu.html" -d "$BOX/tofu" --no-deps
	expect_grep "saying why and what to do" "(seen first|first seen).*trust" "$TMP/err"
	cmp -s "$BOX/tofu/$DEMO" "$TMP/demo-original.whl" && pass "the wheelhouse copy is untouched" || fail "the wheelhouse copy changed"
}

attack "the same file name re-published in another folder (v2/) with other bytes is caught"
fresh t1
first_pick
republished "<a href=\"../w/v2/$DEMO#sha256=$H2\">x</a>"

attack "... under a query string"
fresh t2
first_pick
republished "<a href=\"../w/$DEMO?v=2#sha256=$H2\">x</a>"

attack "... under an equivalent spelling (Demo_Pkg-1.0.0)"
fresh t3
first_pick
republished "<a href=\"../w/v3/Demo_Pkg-1.0.0-py3-none-any.whl#sha256=$H2\">x</a>"

attack "... on another host of the same index"
fresh t4
first_pick
republished "<a href=\"http://localhost:$PORT/w/v2/$DEMO#sha256=$H2\">x</a>"

attack "... beside the honest copy on the same page: the honest one is picked"
fresh t5
first_pick
printf '<a href="../w/%s#sha256=%s">x</a>\n<a href="../w/v2/%s#sha256=%s">y</a>\n' "$DEMO" "$H1" "$DEMO" "$H2" >"$SRV/idx/tofu.html"
expect_exit 0 "picked" wp demo-pkg $T --index "$BASE/idx/tofu.html" -d "$BOX/tofu" --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['sha256']" "$H1"

attack "the same name in two variant folders (cu101/, cu102/) is no conflict"
fresh t6
printf '<a href="cu101/x-1.0-cp38-cp38-linux_x86_64.whl#sha256=%064d">a</a>\n<a href="cu102/x-1.0-cp38-cp38-linux_x86_64.whl#sha256=%064d">b</a>\n' 1 2 >"$SRV/idx/variants.html"
expect_exit 0 "read" wp update --index "$BASE/idx/variants.html"
expect_no_grep "no conflict" "different sha256" "$TMP/err"
expect_eq "no row marked" "$(sql "SELECT count(*) FROM files WHERE hash_conflict IS NOT NULL")" 0

attack "trust accepts the new bytes by URL pattern, and only then are they picked"
fresh t7
first_pick
printf '<a href="../w/v2/%s#sha256=%s">x</a>\n' "$DEMO" "$H2" >"$SRV/idx/tofu.html"
expect_exit 0 "read" wp update --index "$BASE/idx/tofu.html" --force
expect_exit 0 "a pattern that misses" wp trust '%/nothing/%'
expect_exit 1 "still refused" wp demo-pkg $T --index "$BASE/idx/tofu.html" --no-deps --dry-run
expect_exit 0 "trusted" wp trust '%/v2/%'
expect_grep "one file" "accepted new hashes for 1 file" "$TMP/err"
expect_exit 0 "now picked" wp demo-pkg $T --index "$BASE/idx/tofu.html" -d "$BOX/tofu7" --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['sha256']" "$H2"
expect_exit 0 "a refresh keeps it accepted" wp update --index "$BASE/idx/tofu.html" --force
expect_no_grep "no warning again" "different sha256" "$TMP/err"

attack "an index without hashes: the hash computed on first fetch holds for the same name elsewhere"
fresh t8
cp "$SRV/w/$DEMO" "$SRV/w/nohash/$DEMO"
cp "$SRV/w/v2/$DEMO" "$SRV/w/nohash2/$DEMO"
printf '<a href="../w/nohash/%s">x</a>\n' "$DEMO" >"$SRV/idx/nohash.html"
# (with dependencies resolved here; tests/cli/t-attacks-outputs.sh holds a --no-deps pick to it too)
expect_exit 0 "first fetch" wp demo-pkg $T --index "$BASE/idx/nohash.html" -d "$BOX/nh"
printf '<a href="../w/nohash2/%s">x</a>\n' "$DEMO" >"$SRV/idx/nohash.html"
expect_exit 4 "the other bytes are an integrity failure" wp demo-pkg $T --index "$BASE/idx/nohash.html" -d "$BOX/nh" --refresh
expect_grep "saying what was seen first" "seen first" "$TMP/err"
# (ops/wheel/pick.c removes a wheelhouse's old copy of a file that failed; the other bytes never land)
{ [ ! -e "$BOX/nh/$DEMO" ] || cmp -s "$BOX/nh/$DEMO" "$TMP/demo-original.whl"; } &&
	pass "the other bytes never reach the wheelhouse" || fail "the wheelhouse holds the other bytes"

attack "a schema 4 catalog is migrated: first-seen hashes move to the new key, conflicts kept"
fresh t9
sqlite3 "$WHEELPICK_CATALOG" <<EOF
PRAGMA user_version = 4;
$(sed -n '/^CREATE TABLE IF NOT EXISTS sources/,/^);/p' "$ROOT/schema.sql")
$(sed -n '/^CREATE TABLE IF NOT EXISTS files/,/^);/p' "$ROOT/schema.sql")
CREATE TABLE seen_hashes (url TEXT PRIMARY KEY, sha256 TEXT NOT NULL, first_seen INTEGER NOT NULL);
CREATE TABLE metadata (url TEXT PRIMARY KEY, requires_python TEXT, requires_dist TEXT NOT NULL);
CREATE TABLE conda_chunks (id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, project TEXT NOT NULL,
	n_files INTEGER NOT NULL, conflicts INTEGER NOT NULL, records BLOB NOT NULL);
CREATE TABLE conda_seen (dir TEXT NOT NULL, project TEXT NOT NULL, hashes BLOB NOT NULL, PRIMARY KEY (dir, project));
INSERT INTO sources (id, url, kind, fetched_at) VALUES (1, '$BASE/idx/tofu.html', 'findlinks', 0);
INSERT INTO files (source_id, project, version, variant, kind, filename, url, sha256, tags)
	VALUES (1, 'demo-pkg', '1.0', '', 'wheel', '$DEMO', '$BASE/w/$DEMO', '$H1', 'py3-none-any');
INSERT INTO seen_hashes VALUES ('$BASE/w/$DEMO', '$H1', 1000);
EOF
printf '<a href="../w/v2/%s#sha256=%s">x</a>\n' "$DEMO" "$H2" >"$SRV/idx/tofu.html"
expect_exit 0 "the old catalog opens and reads the page" wp update --index "$BASE/idx/tofu.html" --force
expect_grep "the first-seen hash survived the migration" "different sha256 than first seen" "$TMP/err"
expect_eq "now schema 7 (the current one)" "$(sql 'PRAGMA user_version')" 7
expect_eq "integrity" "$(sql 'PRAGMA integrity_check')" ok

attack "a mirror re-run refuses an upstream hash change until trust, and the tree is unchanged"
fresh mt
make_sample
MT="--cuda 11.2 --python 3.8 --platform linux_x86_64"
mkdir -p "$TMP/up"
cp -r "$SAMPLE/whl" "$TMP/up/"
printf '%s\n' "$(sed 's/\(torch-1\.8\.0%2Bcu111-cp38-cp38-linux_x86_64\.whl\)"/\1#sha256='"$(sha256sum "$SAMPLE/whl/cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" | cut -c1-64)"'"/' "$SAMPLE/whl/torch_stable.html")" >"$TMP/up/whl/torch_stable.html"
expect_exit 0 "first mirror" wp mirror "$TMP/mt" torch==1.8.0+cu111 --no-deps $MT --index "file://$TMP/up/whl/torch_stable.html"
(cd "$TMP/mt" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$TMP/mt.before"
"$PYTHON" "$FIX" wheel "$TMP/up/whl/cu111" torch 1.8.0+cu111 --tag cp38-cp38-linux_x86_64 --payload 'changed = 1' >/dev/null
sed -i "s/#sha256=[0-9a-f]*/#sha256=$(sha256sum "$TMP/up/whl/cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" | cut -c1-64)/" "$TMP/up/whl/torch_stable.html"
expect_exit 1 "the re-run refuses the changed file" wp mirror "$TMP/mt" torch==1.8.0+cu111 --no-deps $MT \
	--index "file://$TMP/up/whl/torch_stable.html" --refresh
expect_grep "saying trust would accept it" "trust" "$TMP/err"
(cd "$TMP/mt" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$TMP/mt.after"
cmp -s "$TMP/mt.before" "$TMP/mt.after" && pass "the mirror is unchanged" || fail "the mirror changed"
expect_exit 0 "trust" wp trust '%/cu111/torch-1.8.0%'
expect_exit 0 "then the re-run takes it" wp mirror "$TMP/mt" torch==1.8.0+cu111 --no-deps $MT \
	--index "file://$TMP/up/whl/torch_stable.html"
expect_exit 0 "and the tree verifies" wp verify "$TMP/mt"

# --- metadata that lies -------------------------------------------------------------------

mkdir -p "$SRV/simple/meta-a" "$SRV/simple/meta-b" "$SRV/simple/meta-c" "$SRV/w/lie"
mkwheel "$SRV/w" meta-b 1.0
printf '<a href="../../w/%s#sha256=%s">%s</a>\n' "$W_FN" "$W_SHA" "$W_FN" >"$SRV/simple/meta-b/index.html"
mkwheel "$SRV/w" meta-a 1.0 --requires "meta-b>=1.0" --requires-python ">=3.8"
A_FN=$W_FN
printf 'Metadata-Version: 2.1\nName: meta-a\nVersion: 1.0\nRequires-Python: >=3.8\n\n' >"$SRV/w/$A_FN.metadata"
printf '<a href="../../w/%s#sha256=%s" data-dist-info-metadata="true">%s</a>\n' "$W_FN" "$W_SHA" "$W_FN" >"$SRV/simple/meta-a/index.html"
mkwheel "$SRV/w" meta-c 1.0 --requires "meta-b>=1.0"
C_FN=$W_FN
C_SHA=$W_SHA
mkwheel "$SRV/w/lie" meta-c 1.0
printf '<a href="../../w/%s#sha256=%s">%s</a>\n' "$C_FN" "$C_SHA" "$C_FN" >"$SRV/simple/meta-c/index.html"
printf '<a href="meta-a/">meta-a</a>\n<a href="meta-b/">meta-b</a>\n<a href="meta-c/">meta-c</a>\n' >"$SRV/simple/index.html"
META="--index $BASE/simple/ --cuda cpu --python 3.8 --platform linux_x86_64"

attack "a PEP 658 file that hides a dependency: exit 4 once the wheel shows it, and the catalog learns the truth"
fresh m1
expect_exit 4 "the wheel's own METADATA disagrees" wp meta-a $META -d "$BOX/m1"
expect_grep "says so, naming the file" "meta_a-1.0.*(METADATA|metadata).*(differ|disagree|not what)" "$TMP/err"
expect_no_file "no wheelhouse from a wrong resolution" "$BOX/m1/requirements.txt"
expect_eq "the catalog now holds the wheel's own dependencies" \
	"$(sql "SELECT requires_dist FROM metadata WHERE url LIKE '%$A_FN'" | tr -d '\n')" "meta-b>=1.0"
expect_exit 0 "a re-run resolves with them" wp meta-a $META -d "$BOX/m1"
expect_file "and brings the hidden dependency" "$BOX/m1/$(basename "$(ls "$SRV"/w/meta_b-*.whl)")"

attack "Range reads answered from another wheel: exit 4 once the real wheel arrives"
fresh m2
script "{\"/w/$C_FN\": {\"range_from\": \"/w/lie/$C_FN\"}}"
expect_exit 4 "the wheel's own METADATA disagrees" wp meta-c $META -d "$BOX/m2"
expect_grep "says so" "meta_c-1.0.*(METADATA|metadata)" "$TMP/err"
expect_eq "the catalog now holds the wheel's own dependencies" \
	"$(sql "SELECT requires_dist FROM metadata WHERE url LIKE '%$C_FN'" | tr -d '\n')" "meta-b>=1.0"
script '{}'

attack "honest metadata is no failure (PEP 658 and Range alike)"
fresh m3
printf 'Metadata-Version: 2.1\nName: meta-a\nVersion: 1.0\nRequires-Python: >=3.8\nRequires-Dist: meta-b>=1.0\n\n' >"$SRV/w/$A_FN.metadata"
expect_exit 0 "PEP 658 that tells the truth" wp meta-a $META -d "$BOX/m3"
expect_exit 0 "Range reads that tell the truth" wp meta-c $META -d "$BOX/m3"

# --- a store that a wheelhouse cannot corrupt ---------------------------------------------

attack "store objects are read-only"
fresh st
expect_exit 0 "a pick" wp demo-pkg $T --index "$BASE/idx/nohash.html" -d "$BOX/st1" --no-deps
obj=$(find "$TMP/cache-st/files/sha256" -type f | head -1)
expect_eq "mode 0444" "$(stat -c %a "$obj")" 444

attack "an edited wheelhouse file never reaches a later pick: detected (exit 4), then replaced"
printf 'tampered' >>"$BOX/st1/$(ls "$BOX/st1" | grep '\.whl$')"
expect_exit 4 "the next pick sees the changed object" wp demo-pkg $T --index "$BASE/idx/nohash.html" -d "$BOX/st2" --no-deps
expect_grep "and says what happened" "(changed|sha256 mismatch).*(removed|download)" "$TMP/err"
expect_no_file "no corrupt copy handed out" "$BOX/st2/$DEMO"
expect_exit 0 "a re-run downloads it again" wp demo-pkg $T --index "$BASE/idx/nohash.html" -d "$BOX/st2" --no-deps
cmp -s "$BOX/st2/$DEMO" "$SRV/w/nohash2/$DEMO" && pass "with the proven bytes" || fail "the re-run's copy differs"
expect_exit 0 "verify agrees" wp verify "$BOX/st2"

attack "an object changed in the store is caught offline too (exit 4)"
obj=$(find "$TMP/cache-st/files/sha256" -type f | head -1)
chmod u+w "$obj" && printf 'x' >>"$obj"
expect_exit 4 "offline" wp demo-pkg $T --index "$BASE/idx/nohash.html" -d "$BOX/st3" --no-deps --offline
expect_no_file "nothing handed out" "$BOX/st3/$DEMO"

done_matrix
