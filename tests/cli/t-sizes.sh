#!/usr/bin/env bash
# tests/cli/t-sizes.sh: the plan's total when the index gives no sizes (asked of the servers with
# HEAD, shown and never trusted).
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

# --- the plan's total: sizes the index does not give are asked of the servers ------------------
expect_exit 0 "a find-links page gives no sizes" wp torch==1.8.0 $T --index "$FL" --dry-run
expect_grep "the total has them from the servers" "^total: 2 files, $(kb $((TSIZE + TE_SIZE))) to download \(nothing was: --dry-run\)$" "$TMP/out"
[ "$(heads)" = 2 ] && pass "one HEAD per file" || fail "HEAD requests: $(heads)"
expect_no_grep "and no whole wheel asked for it" '"path":"[^"]*\.whl","status":200' "$TMP/server.log"

# a server that refuses HEAD (405) leaves that size unknown, and the total says so
script "{\"$TORCH\": {\"head_status\": 405}}"
expect_exit 0 "a server refuses HEAD" wp torch==1.8.0 $T --index "$FL" --dry-run
expect_grep "at least, and how many are unknown" "^total: 2 files, at least $(kb "$TE_SIZE") to download \(nothing was: --dry-run\) \(size unknown for 1 file: the index gives none and its server did not say\)$" "$TMP/out"
# and one that announces no length
script "{\"$TORCH\": {\"head_no_length\": true}, \"/whl/typing_extensions-4.5.0-py3-none-any.whl\": {\"head_status\": 501}}"
expect_exit 0 "no length, and a 501" wp torch==1.8.0 $T --index "$FL" --dry-run
expect_grep "nothing known" "^total: 2 files to download \(nothing was: --dry-run\) \(size unknown for all: the index gives no sizes and the servers did not say\)$" "$TMP/out"

# a HEAD that lies is shown, never held against the download: the real bytes arrive and verify
script "{\"$TORCH\": {\"head_length\": 10}}"
expect_exit 0 "a lying HEAD (10 bytes)" env WHEELPICK_CACHE_DIR="$TMP/cache-lie" "$WHEELPICK" torch==1.8.0 $T --index "$FL" -d "$TMP/wh-lie"
expect_grep "shown as said" "^total: 2 files, $(kb $((10 + TE_SIZE))) to download$" "$TMP/out"
expect_exit 0 "the wheel is whole and proven" wp verify "$TMP/wh-lie"
cmp -s "$TMP/wh-lie/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" "$TORCH_FILE" && pass "every byte of it" || fail "the wheel differs"
script "{\"$TORCH\": {\"head_length\": 99999999}}"
expect_exit 0 "a lying HEAD (100 MB)" env WHEELPICK_CACHE_DIR="$TMP/cache-lie2" "$WHEELPICK" torch==1.8.0 $T --index "$FL" -d "$TMP/wh-lie2"
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
# file:// is read from the disk
expect_exit 0 "a file:// page" wp torch==1.8.0 $T --index "$FINDLINKS" --dry-run
expect_grep "sizes from the disk" "^total: 2 files, $(kb $((TSIZE + TE_SIZE))) to download" "$TMP/out"


done_testing
