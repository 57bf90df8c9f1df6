#!/usr/bin/env bash
# tests/cli/t-update-list.sh: crawling the sample index (find-links and PEP 503) and listing it.
. "$(dirname "$0")/../lib.sh"
make_sample

expect_exit 0 "update from a find-links page" wp update --index "$FINDLINKS"
expect_grep "says what it updated" "updated file://" "$TMP/err"
expect_exit 0 "list torch" wp list torch
expect_grep "grid has the variants" "cpu +cu92 +cu101 +cu102 +cu110 +cu111 +rocm3.7 +rocm4.0.1" "$TMP/out"
expect_grep "1.8.0 row: cu102 unlabeled in cu102/ counts as cu102" "^1\.8\.0 +4 +- +4 +4 +- +4 +- +2" "$TMP/out"
expect_exit 0 "list marks what fits a target" wp list torch --cuda 11.2 --python 3.8 --platform linux_x86_64
expect_grep "1.8.0: cu101, cu102, cu111 fit; cpu and rocm do not" "^1\.8\.0 +4 +- +4\* +4\* +- +4\* +- +2$" "$TMP/out"
expect_exit 0 "list --json" wp list torch --json
expect_json "$TMP/out" "len(j)" 42
expect_json "$TMP/out" "sorted({f['variant'] for f in j if f['version'].split('+')[0]=='1.8.0'})" "['cpu', 'cu101', 'cu102', 'cu111', 'rocm4.0.1']"
expect_json "$TMP/out" "all(f['url'].startswith('file:///') for f in j)" True
expect_json "$TMP/out" "[f['url'] for f in j if f['filename']=='torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl'][0].endswith('/whl/cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl')" True

# the resolver's query reads the version index newest first, no sort (the real query's shape, as
# cache/catalog.c wp_catalog_files_by_version sends it)
plan=$(sqlite3 "$WHEELPICK_CATALOG" "EXPLAIN QUERY PLAN SELECT f.id FROM files f JOIN sources s ON s.id = f.source_id WHERE f.project = 'torch' AND +f.kind IN ('wheel', 'sdist') AND f.vkey IS NOT NULL ORDER BY f.vkey DESC" 2>&1)
case "$plan" in *"USING INDEX files_by_version"*) case "$plan" in *"TEMP B-TREE"*) fail "query plan sorts: $plan" ;; *) pass "pick's query reads files_by_version in order" ;; esac ;; *) fail "query plan: $plan" ;; esac

# an unchanged source costs no writes
expect_exit 0 "second update" wp -v update --index "$FINDLINKS"
expect_grep "unchanged the second time" "unchanged file://" "$TMP/err"

# PEP 503 over HTTP: the root page is followed to the projects asked for
start_server "$SAMPLE"
expect_exit 0 "update from a PEP 503 root" wp update --index "$BASE/simple/" --project torchvision --project numpy
expect_grep "followed torchvision" "updated $BASE/simple/torchvision/" "$TMP/err"
expect_no_grep "did not follow torch" "simple/torch/$" "$TMP/err"
expect_exit 0 "list torchvision" wp list torchvision --json
# 38 from the PEP 503 page (with sha256) beside the 38 of the find-links page (without)
expect_json "$TMP/out" "sum(1 for f in j if f['sha256'] and len(f['sha256'])==64)" 38
expect_json "$TMP/out" "len({f['url'] for f in j})" 76
expect_json "$TMP/out" "sum(1 for f in j if f['url'].startswith('http://127.0.0.1'))" 38
# conditional GET: the second fetch sends the validators and gets 304 (or the same bytes)
expect_exit 0 "update again" wp -v update --index "$BASE/simple/" --project torchvision
expect_grep "unchanged over HTTP" "unchanged $BASE/simple/torchvision/" "$TMP/err"
expect_grep "sent If-Modified-Since or If-None-Match" "If-(Modified-Since|None-Match)" "$TMP/server.log"

# a dependency nobody crawled is fetched from the index root on demand (numpy, pillow, typing-extensions)
export WHEELPICK_CATALOG="$TMP/ondemand.sqlite3"
expect_exit 0 "dependencies from the root on demand" wp torchvision==0.9.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 \
	--index "$BASE/simple/" --dry-run --json
expect_json "$TMP/out" "sorted(p['project'] for p in j['picks'])" "['numpy', 'pillow', 'torch', 'torchvision', 'typing-extensions']"
expect_grep "fetched numpy's page" '"path":"/simple/numpy/"' "$TMP/server.log"
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"

# PEP 691 JSON: asked for first (Accept), read when the server answers with it
mkdir -p "$TMP/json/simple/torch"
python3 - "$SAMPLE" "$TMP/json/simple/torch/index.json" <<'PY'
import hashlib, json, os, sys
sample, out = sys.argv[1], sys.argv[2]
files = []
for d in ("cu111", "cpu"):
    for fn in sorted(os.listdir(os.path.join(sample, "whl", d))):
        if fn.startswith("torch-1.8.0"):
            data = open(os.path.join(sample, "whl", d, fn), "rb").read()
            files.append({"filename": fn, "url": "../../../sample/whl/%s/%s" % (d, fn.replace("+", "%2B")),
                          "hashes": {"sha256": hashlib.sha256(data).hexdigest()}, "requires-python": ">=3.6",
                          "yanked": False, "size": len(data)})
json.dump({"meta": {"api-version": "1.1"}, "name": "torch", "files": files}, open(out, "w"))
PY
stop_server
cat >"$TMP/json-script.json" <<JSON
{"/simple/torch/": {"headers": {"Content-Type": "application/vnd.pypi.simple.v1+json"}}}
JSON
mkdir -p "$TMP/jsonroot/simple/torch" && cp "$TMP/json/simple/torch/index.json" "$TMP/jsonroot/simple/torch/index.html"
ln -s "$SAMPLE" "$TMP/jsonroot/sample"
start_server "$TMP/jsonroot" "$TMP/json-script.json"
export WHEELPICK_CATALOG="$TMP/json.sqlite3"
expect_exit 0 "crawl a PEP 691 JSON page" wp -v update --index "$BASE/simple/torch/"
expect_grep "read as PEP 691" "simple-json: 8 files" "$TMP/err"
expect_grep "asked for JSON first" "\"Accept\":\"application/vnd.pypi.simple.v1\+json" "$TMP/server.log"
expect_exit 0 "and picked from" wp torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --no-deps --dry-run --json
expect_json "$TMP/out" "j['picks'][0]['variant'], len(j['picks'][0]['sha256'])" "('cu111', 64)"
stop_server
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"

# the tags a target accepts, exactly as packaging lists them: tests/fixtures/tags, written by
# tests/diff/tags_diff.py from the vendored packaging HEAD (tests/diff/packaging_head), not the host pip's
expect_exit 0 "tags" wp tags --python 3.8 --platform manylinux_2_28_x86_64
grep -v '^#' "$ROOT/tests/fixtures/tags/cp38_manylinux_2_28_x86_64.txt" >"$TMP/tags.want"
cmp -s "$TMP/out" "$TMP/tags.want" && pass "wheelpick tags equals packaging's list" || fail "tags differ from packaging's"

# $WHEELPICK_INDEX replaces the default sources
expect_exit 0 "update from WHEELPICK_INDEX" env WHEELPICK_INDEX="$FINDLINKS" WHEELPICK_CATALOG="$TMP/envidx.sqlite3" "$WHEELPICK" -v update
expect_grep "used it" "(updated|unchanged) $FINDLINKS" "$TMP/err"
expect_no_grep "and nothing else" "download.pytorch.org|conda.anaconda.org" "$TMP/err"

# unknown project for list
expect_exit 1 "list of an unknown project is exit 1" wp list nosuchproject
expect_grep "names the project" "'nosuchproject'" "$TMP/err"
expect_exit 2 "list without a project is exit 2" wp list
done_testing
