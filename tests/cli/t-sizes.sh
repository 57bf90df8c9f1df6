#!/usr/bin/env bash
# tests/cli/t-sizes.sh: the plan's total when the index gives no sizes (asked of the servers with
# HEAD, shown and never trusted), and downloads resumed across runs under their validators
# (If-Range with the ETag or Last-Modified date the kept part came under).
. "$(dirname "$0")/../lib.sh"
make_sample
export WHEELPICK_RETRY_BASE_MS=20
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"
TORCH=/whl/cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
TORCH_FILE="$SAMPLE/whl/cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"
TSIZE=$(stat -c %s "$TORCH_FILE")
TE_SIZE=$(stat -c %s "$SAMPLE/whl/typing_extensions-4.5.0-py3-none-any.whl")
script() { printf '%s' "$1" >"$TMP/script.tmp" && mv "$TMP/script.tmp" "$TMP/script.json"; }
heads() { [ -f "$TMP/server.log.head" ] && wc -l <"$TMP/server.log.head" || echo 0; }
script '{}'
cp -r "$SAMPLE" "$TMP/served" # a test changes a file there
start_server "$TMP/served" "$TMP/script.json"
FL="$BASE/whl/torch_stable.html"
kb() { python3 -c "print('%.1f kB' % ($1 / 1000))"; }
human() { python3 -c "n = $1; print('%d B' % n if n < 1000 else '%.1f kB' % (n / 1000))"; }

# --- the plan's total: sizes the index does not give are asked of the servers ------------------
expect_exit 0 "a find-links page gives no sizes" wp torch==1.8.0 $T --index "$FL" --dry-run
expect_grep "the total has them from the servers" "^total: 2 files, $(kb $((TSIZE + TE_SIZE))) to download \(nothing was: --dry-run\)$" "$TMP/out"
[ "$(heads)" = 2 ] && pass "one HEAD per file" || fail "HEAD requests: $(heads)"
expect_no_grep "and no whole wheel asked for it" '"path":"[^"]*\.whl","status":200' "$TMP/server.log"

# what the servers said is kept in the catalog: the next plan of the same files asks nothing (a
# text --dry-run on a find-links page was a HEAD per file, and libcurl loaded, every run) ...
: >"$TMP/server.log.head"
expect_exit 0 "the same dry run again" wp torch==1.8.0 $T --index "$FL" --dry-run
expect_grep "the same total" "^total: 2 files, $(kb $((TSIZE + TE_SIZE))) to download \(nothing was: --dry-run\)$" "$TMP/out"
[ "$(heads)" = 0 ] && pass "no HEAD: the sizes were kept" || fail "HEAD requests: $(heads)"
# ... until the page is read again with other contents: its files may be other bytes now
printf '<!-- changed -->\n' >>"$TMP/served/whl/torch_stable.html"
expect_exit 0 "the page changed, read again" wp torch==1.8.0 $T --index "$FL" --dry-run --refresh
[ "$(heads)" = 2 ] && pass "a HEAD per file again" || fail "HEAD requests: $(heads)"

# a server that refuses HEAD (405) leaves that size unknown, and the total says so (each case
# with a catalog of its own: none kept from the runs above)
script "{\"$TORCH\": {\"head_status\": 405}}"
expect_exit 0 "a server refuses HEAD" env WHEELPICK_CATALOG="$TMP/c405.sqlite3" "$WHEELPICK" torch==1.8.0 $T --index "$FL" --dry-run
expect_grep "at least, and how many are unknown" "^total: 2 files, at least $(kb "$TE_SIZE") to download \(nothing was: --dry-run\) \(size unknown for 1 file: the index gives none and its server did not say\)$" "$TMP/out"
# an unknown size is not kept: the next run asks that one again, and only that one
: >"$TMP/server.log.head"
expect_exit 0 "again" env WHEELPICK_CATALOG="$TMP/c405.sqlite3" "$WHEELPICK" torch==1.8.0 $T --index "$FL" --dry-run
[ "$(heads)" = 1 ] && pass "one HEAD: the size nobody said" || fail "HEAD requests: $(heads)"
# and one that announces no length
script "{\"$TORCH\": {\"head_no_length\": true}, \"/whl/typing_extensions-4.5.0-py3-none-any.whl\": {\"head_status\": 501}}"
expect_exit 0 "no length, and a 501" env WHEELPICK_CATALOG="$TMP/c501.sqlite3" "$WHEELPICK" torch==1.8.0 $T --index "$FL" --dry-run
expect_grep "nothing known" "^total: 2 files to download \(nothing was: --dry-run\) \(size unknown for all: the index gives no sizes and the servers did not say\)$" "$TMP/out"

# a HEAD that lies is shown, never held against the download: the real bytes arrive and verify
script "{\"$TORCH\": {\"head_length\": 10}}"
expect_exit 0 "a lying HEAD (10 bytes)" env WHEELPICK_CATALOG="$TMP/clie.sqlite3" WHEELPICK_CACHE_DIR="$TMP/cache-lie" "$WHEELPICK" torch==1.8.0 $T --index "$FL" -d "$TMP/wh-lie"
expect_grep "shown as said" "^total: 2 files, $(kb $((10 + TE_SIZE))) to download$" "$TMP/out"
expect_exit 0 "the wheel is whole and proven" wp verify "$TMP/wh-lie"
cmp -s "$TMP/wh-lie/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" "$TORCH_FILE" && pass "every byte of it" || fail "the wheel differs"
# kept, it is still only shown: a fresh cache downloads the whole file under the kept lie
expect_exit 0 "the kept lie, a fresh cache" env WHEELPICK_CATALOG="$TMP/clie.sqlite3" WHEELPICK_CACHE_DIR="$TMP/cache-lie1" "$WHEELPICK" torch==1.8.0 $T --index "$FL" -d "$TMP/wh-lie1"
expect_grep "shown as kept" "^total: 2 files, $(kb $((10 + TE_SIZE))) to download$" "$TMP/out"
cmp -s "$TMP/wh-lie1/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" "$TORCH_FILE" && pass "every byte of it" || fail "the wheel differs"
script "{\"$TORCH\": {\"head_length\": 99999999}}"
expect_exit 0 "a lying HEAD (100 MB)" env WHEELPICK_CATALOG="$TMP/clie2.sqlite3" WHEELPICK_CACHE_DIR="$TMP/cache-lie2" "$WHEELPICK" torch==1.8.0 $T --index "$FL" -d "$TMP/wh-lie2"
expect_exit 0 "the wheel is whole and proven" wp verify "$TMP/wh-lie2"
script '{}'

# nothing is asked: with --offline, with --json, and when the index gives every size (PEP 691)
: >"$TMP/server.log.head"
expect_exit 0 "--offline" wp torch==1.8.0 $T --index "$FL" --dry-run --offline
expect_grep "says the index gives none" "^total: 2 files to download \(nothing was: --dry-run\) \(the index gives no sizes\)$" "$TMP/out"
expect_exit 0 "--json" wp torch==1.8.0 $T --index "$FL" --dry-run --json
[ "$(heads)" = 0 ] && pass "no HEAD for --offline or --json" || fail "HEAD requests: $(heads)"
mkdir -p "$TMP/served/json/torch"
python3 - "$TMP/served" "$TMP/served/json/torch/index.html" <<'PY'
import hashlib, json, os, sys
root, out = sys.argv[1], sys.argv[2]
fn = "torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"
data = open(os.path.join(root, "whl", "cu111", fn), "rb").read()
files = [{"filename": fn, "url": "../../whl/cu111/" + fn.replace("+", "%2B"), "hashes": {"sha256": hashlib.sha256(data).hexdigest()},
          "yanked": False, "size": len(data)}]
json.dump({"meta": {"api-version": "1.1"}, "name": "torch", "files": files}, open(out, "w"))
PY
script '{"/json/torch/": {"headers": {"Content-Type": "application/vnd.pypi.simple.v1+json"}}}'
expect_exit 0 "a PEP 691 page with sizes" env WHEELPICK_CATALOG="$TMP/json.sqlite3" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$BASE/json/torch/" --dry-run
expect_grep "the index's size" "^total: 1 file, $(kb "$TSIZE") to download" "$TMP/out"
[ "$(heads)" = 0 ] && pass "no HEAD when every size is known" || fail "HEAD requests: $(heads)"
script '{}'
# a file already in the store is measured there, not asked for
expect_exit 0 "a pick into the store" env WHEELPICK_CACHE_DIR="$TMP/cache-st" "$WHEELPICK" torch==1.8.0 $T --index "$BASE/simple/" -d "$TMP/wh-st"
: >"$TMP/server.log.head"
expect_exit 0 "the same pick again" env WHEELPICK_CACHE_DIR="$TMP/cache-st" "$WHEELPICK" torch==1.8.0 $T --index "$BASE/simple/" --dry-run
expect_grep "the total from the store" "^total: 2 files, $(kb $((TSIZE + TE_SIZE))) to download" "$TMP/out"
[ "$(heads)" = 0 ] && pass "no HEAD for files in the store" || fail "HEAD requests: $(heads)"
# file:// is read from the disk
expect_exit 0 "a file:// page" wp torch==1.8.0 $T --index "$FINDLINKS" --dry-run
expect_grep "sizes from the disk" "^total: 2 files, $(kb $((TSIZE + TE_SIZE))) to download" "$TMP/out"

# --- downloads resumed across runs, under the validator their bytes came under ------------------
TSHA=$(sha256sum "$TORCH_FILE" | cut -d' ' -f1)
SIMPLE="$BASE/simple/"
# each case on a server of its own (it numbers each path's requests from its start), with its own
# catalog and cache: cut it after 400 bytes, then 503s
scenario() {
	stop_server
	start_server "$TMP/served" "$TMP/script.json"
	FL="$BASE/whl/torch_stable.html" SIMPLE="$BASE/simple/"
	export WHEELPICK_CATALOG="$TMP/$1.sqlite3"
	C="$TMP/cache-$1"
}
cut() { script "{\"$TORCH\": {$1\"drop_after\": 400, \"status\": [200, 503]}}"; }
logged() { grep "\"path\":\"${TORCH//+/\\+}\"" "$TMP/server.log" | tail -1; }
# the index gives the sha256: a cut keeps what came, and its ETag beside it
: >"$TMP/server.log"
cut '"etag": "\"v1\"", '
scenario etag
expect_exit 3 "a cut download" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$SIMPLE" -d "$TMP/wh-etag"
expect_grep "keeps what came" "kept 400 B of 1 unfinished download" "$TMP/err"
expect_grep "and the ETag it came under" '^"v1"$' "$C/files/partial/$TSHA.v"
script '{"'"$TORCH"'": {"etag": "\"v1\""}}'
: >"$TMP/server.log"
expect_exit 0 "the next run" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$SIMPLE" -d "$TMP/wh-etag"
# the total counts what came in this run, not the 400 bytes kept from the last (issue 36)
expect_grep "the total downloaded leaves out the kept part" "^  total $(human $((TSIZE - 400))) downloaded in" "$TMP/err"
expect_grep "the file's own line names its whole size" "^  \[1/1\] torch-1.8.0\+cu111-cp38-cp38-linux_x86_64.whl \($(human "$TSIZE")\)" "$TMP/err"
logged >"$TMP/req"
expect_grep "resumes with Range and If-Range" '"If-Range":"\\"v1\\"","Range":"bytes=400-".*"status":206' "$TMP/req"
expect_exit 0 "the wheel is whole and proven" wp verify "$TMP/wh-etag"
expect_no_file "the partial became the object" "$C/files/partial/$TSHA"
expect_no_file "and its validator went with it" "$C/files/partial/$TSHA.v"

# a 206 whose bytes start later than its Content-Range says (with a Content-Length that counts
# them, or none) is refused: nothing of it is kept, the whole file comes instead (issue 36: the
# wrong bytes were kept, and the next run resumed after them); and when the server cuts that too,
# the partial left for the next run holds none of the wrong bytes
for how in '' '"no_length": true, '; do
	cut ''
	scenario "skip${how:+-nl}"
	expect_exit 3 "a cut download (kept: 400 bytes)" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$SIMPLE" -d "$TMP/wh-skip"
	script "{\"$TORCH\": {$how\"range_skip\": 100}}"
	: >"$TMP/server.log"
	expect_exit 0 "the next run, answered by a 206 whose bytes start 100 later${how:+ (no Content-Length)}" \
		env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$SIMPLE" -d "$TMP/wh-skip"
	grep "\"path\":\"${TORCH//+/\\+}\"" "$TMP/server.log" >"$TMP/req"
	expect_grep "asked to resume at 400" '"Range":"bytes=400-".*"status":206' "$TMP/req"
	expect_grep "then asked for the whole file" '"headers":\{"Accept[^}]*\},"method":"GET".*"status":200' "$TMP/req"
	cmp -s "$TMP/wh-skip/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" "$TORCH_FILE" && pass "every byte of it" || fail "the wheel differs"
	expect_exit 0 "and proven" wp verify "$TMP/wh-skip"
	rm -rf "$TMP/wh-skip"
done
cut ''
scenario skip-cut
expect_exit 3 "a cut download (kept: 400 bytes)" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$SIMPLE" -d "$TMP/wh-skip"
script "{\"$TORCH\": {\"range_skip\": 100, \"status\": [200, 503]}}"
scenario skip-cut # the same cache; a fresh server numbers the GETs from 0
: >"$TMP/server.log"
expect_exit 3 "the next run: a lying 206, then 503s" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$SIMPLE" -d "$TMP/wh-skip"
expect_grep "its 206 came" '"Range":"bytes=400-".*"status":206' "$TMP/server.log"
expect_no_file "keeps no partial with the wrong bytes" "$C/files/partial/$TSHA"
script '{}'

# no validator at all (no ETag, no Last-Modified): resumed by the sha256 alone, as before
cut '"no_validators": true, '
scenario none
expect_exit 3 "a cut download, no validators" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$SIMPLE" -d "$TMP/wh-none"
expect_no_file "no validator kept" "$C/files/partial/$TSHA.v"
script '{"'"$TORCH"'": {"no_validators": true}}'
: >"$TMP/server.log"
expect_exit 0 "the next run" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$SIMPLE" -d "$TMP/wh-none"
logged >"$TMP/req"
expect_grep "resumes with Range alone" '"headers":\{[^}]*"Range":"bytes=400-".*"status":206' "$TMP/req"
expect_no_grep "no If-Range" 'If-Range' "$TMP/req"
expect_exit 0 "the wheel is whole and proven" wp verify "$TMP/wh-none"

# the index gives no sha256 (find-links): kept by URL only under a strong ETag ...
cut ''
scenario lm
expect_exit 3 "a cut download, Last-Modified only, no sha256" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$FL" -d "$TMP/wh-lm"
expect_no_grep "nothing kept: no hash and no strong ETag to prove a resume" "kept .* unfinished" "$TMP/err"
[ -z "$(ls "$C/files/partial" 2>/dev/null)" ] && pass "the partial folder is empty" || fail "left: $(ls "$C/files/partial")"
cut '"etag": "\"v1\"", '
scenario url
expect_exit 3 "a cut download, strong ETag, no sha256" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$FL" -d "$TMP/wh-url"
expect_grep "keeps what came" "kept 400 B of 1 unfinished download" "$TMP/err"
script '{"'"$TORCH"'": {"etag": "\"v1\""}}'
: >"$TMP/server.log"
expect_exit 0 "the next run" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$FL" -d "$TMP/wh-url"
logged >"$TMP/req"
expect_grep "resumes under the ETag" '"If-Range":"\\"v1\\"","Range":"bytes=400-".*"status":206' "$TMP/req"
cmp -s "$TMP/wh-url/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" "$TORCH_FILE" && pass "every byte of it" || fail "the wheel differs"
# ... and when the server's file changed since, its 200 starts the download over
cut '"etag": "\"v1\"", '
scenario changed
expect_exit 3 "a cut download of v1" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$FL" -d "$TMP/wh-ch"
# v2: the same wheel, written again with other timestamps (its first bytes differ, it still verifies)
python3 - "$TMP/served/whl/cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" <<'PY'
import sys, zipfile, io
path = sys.argv[1]
src = zipfile.ZipFile(path)
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as out:
    for info in src.infolist():
        data = src.read(info)
        info.date_time = (2001, 2, 3, 4, 5, 6)
        out.writestr(info, data)
open(path, "wb").write(buf.getvalue())
PY
cmp -s -n 400 "$TMP/served/whl/cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" "$TORCH_FILE" && fail "v2's first bytes are v1's" || pass "v2 differs in its first 400 bytes"
script '{"'"$TORCH"'": {"etag": "\"v2\""}}'
: >"$TMP/server.log"
expect_exit 0 "the next run, v2 served" env WHEELPICK_CACHE_DIR="$C" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$FL" -d "$TMP/wh-ch"
logged >"$TMP/req"
expect_grep "asked to resume v1, answered whole" '"If-Range":"\\"v1\\"","Range":"bytes=400-".*"status":200' "$TMP/req"
cmp -s "$TMP/wh-ch/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" "$TMP/served/whl/cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" \
	&& pass "the wheel is v2, whole" || fail "the wheel is not v2"
expect_exit 0 "and proven" wp verify "$TMP/wh-ch"
cp "$TORCH_FILE" "$TMP/served/whl/cu111/"
script '{}'
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"

# a week-old partial goes with its validator; a validator whose partial is gone goes too
P="$TMP/cache-etag/files/partial"
mkdir -p "$P"
old=$(printf 'a%.0s' $(seq 64)); orphan=$(printf 'c%.0s' $(seq 64))
printf 'x' >"$P/$old"; printf '"v"\n' >"$P/$old.v"; touch -d '8 days ago' "$P/$old" "$P/$old.v"
printf '"v"\n' >"$P/$orphan.v"
expect_exit 0 "a later pick" env WHEELPICK_CACHE_DIR="$TMP/cache-etag" "$WHEELPICK" torch==1.8.0 $T --no-deps --index "$SIMPLE" -d "$TMP/wh-etag"
expect_no_file "the week-old partial is swept" "$P/$old"
expect_no_file "with its validator" "$P/$old.v"
expect_no_file "an orphan validator is swept" "$P/$orphan.v"

done_testing
