#!/usr/bin/env bash
# tests/cli/t-wheelhouse.sh: pick -d writes a wheelhouse that real pip installs offline with hashes.
. "$(dirname "$0")/../lib.sh"
make_sample
PY=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
case "$PY" in 3.8|3.11) ;; *) echo "checks: 0 passed, 0 failed (python $PY has no sample wheels)"; exit 0 ;; esac

start_server "$SAMPLE"
expect_exit 0 "pick -d over HTTP" wp torch torchvision --cuda 11.2 --python "$PY" --platform manylinux_2_28_x86_64 \
	--index "$BASE/whl/torch_stable.html" -d "$TMP/wh" --json
expect_json "$TMP/out" "sorted(p['variant'] for p in j['picks'] if p['variant'])" "['cu111', 'cu111']"
expect_json "$TMP/out" "all(p['path'] for p in j['picks'])" True
expect_file "requirements.txt" "$TMP/wh/requirements.txt"
expect_file "pick record" "$TMP/wh/wheelpick.json"
expect_grep "hash-checking format" "^torch==1\.8\.0\+cu111" "$TMP/wh/requirements.txt"
expect_grep "with hashes" "--hash=sha256:[0-9a-f]{64}" "$TMP/wh/requirements.txt"
expect_grep "computed hashes are said" "no sha256 for 5 file" "$TMP/err"

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1
if python3 -m pip install -q --no-index --find-links "$TMP/wh" --require-hashes -r "$TMP/wh/requirements.txt" \
	--target "$TMP/site" --no-warn-conflicts >"$TMP/pip.out" 2>&1; then
	pass "pip installs the wheelhouse offline with --require-hashes"
else
	fail "pip install failed"; cat "$TMP/pip.out" >&2
fi
got=$(PYTHONPATH="$TMP/site" python3 -c 'import torch, torchvision; print(torch.__version__, torchvision.__version__)' 2>&1)
[ "$got" = "1.8.0+cu111 0.9.0+cu111" ] && pass "the installed packages import" || fail "import: $got"

# on a terminal, progress is drawn (one line per transfer and a total); not when piped (above)
if command -v script >/dev/null; then
	rm -rf "$TMP/whp"
	WHEELPICK_CACHE_DIR="$TMP/cache-tty" script -qec "$WHEELPICK torch==1.8.0 --cuda 11.2 --python $PY --platform manylinux_2_28_x86_64 --no-deps --index $BASE/whl/torch_stable.html -d $TMP/whp" "$TMP/tty.log" >/dev/null 2>&1
	expect_grep "progress on a terminal" "total [0-9.]+ (B|kB)" "$TMP/tty.log"
	expect_grep "a line per transfer" "torch-1\.8\.0\+cu111-cp$(echo $PY | tr -d .)" "$TMP/tty.log"
fi
expect_no_grep "no progress when not a terminal" "total [0-9.]+ (B|kB)" "$TMP/out"

# a second run: everything from the cache, and --offline works with the server gone
stop_server
rm -rf "$TMP/wh2"
expect_exit 0 "offline from the cache" wp torch torchvision --cuda 11.2 --python "$PY" --platform manylinux_2_28_x86_64 \
	-d "$TMP/wh2" --offline --json
expect_json "$TMP/out" "len(j['picks'])" 5
cmp -s "$TMP/wh/requirements.txt" "$TMP/wh2/requirements.txt" && pass "same requirements offline" || fail "requirements differ offline"

# integrity: an index that lies about a hash -> exit 4, the file is not left in the wheelhouse
mkdir -p "$TMP/bad/cu111"
cp "$SAMPLE/whl/cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" "$TMP/bad/cu111/"
printf '<a href="cu111/torch-1.8.0%%2Bcu111-cp38-cp38-linux_x86_64.whl#sha256=%064d">x</a>\n' 0 >"$TMP/bad/links.html"
export WHEELPICK_CATALOG="$TMP/bad.sqlite3" WHEELPICK_CACHE_DIR="$TMP/badcache"
expect_exit 4 "a wrong sha256 in the index is exit 4" wp torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 \
	--index "file://$TMP/bad/links.html" -d "$TMP/wh3" --no-deps
expect_grep "names expected and actual" "expected 0{64}, got [0-9a-f]{64}" "$TMP/err"
expect_no_file "nothing left in the wheelhouse" "$TMP/wh3/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"
expect_no_file "no requirements.txt promising it" "$TMP/wh3/requirements.txt"
[ -z "$(find "$TMP/badcache" -type f 2>/dev/null | grep -v '\.sqlite3')" ] && pass "nothing left in the store" || fail "store holds a bad file"

# a wheel whose RECORD lies, with a correct sha256 in the index: caught by the RECORD check
python3 - "$TMP/bad/cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" <<'PYEOF'
import sys, zipfile, shutil, os
src = sys.argv[1]; tmp = src + ".tmp"
with zipfile.ZipFile(src) as zi, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zo:
    for item in zi.infolist():
        data = zi.read(item.filename)
        if item.filename.endswith("__init__.py"):
            data += b"# tampered\n"
        zo.writestr(item, data)
os.replace(tmp, src)
PYEOF
sha=$(sha256sum "$TMP/bad/cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" | cut -d' ' -f1)
printf '<a href="cu111/torch-1.8.0%%2Bcu111-cp38-cp38-linux_x86_64.whl#sha256=%s">x</a>\n' "$sha" >"$TMP/bad/links2.html"
# the same URL now with another hash: trust on first use refuses it...
expect_exit 1 "a changed hash for a known URL is refused" wp torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 \
	--index "file://$TMP/bad/links2.html" --dry-run --no-deps --explain --refresh
expect_grep "said loudly" "different sha256 than first seen" "$TMP/err"
expect_grep "and the refusal says why" "was trusted first for that name.*wheelpick trust" "$TMP/err"
# with --index, only that index counts (the lying page's row is not used behind its back)
expect_exit 0 "trust accepts the change" wp trust
expect_exit 0 "then it is picked" wp torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 \
	--index "file://$TMP/bad/links2.html" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['sha256'][:12]" "${sha:0:12}"
# ...until the user accepts it (a fresh catalog here, so the lying page's row is gone too)
export WHEELPICK_CATALOG="$TMP/bad2.sqlite3"
expect_exit 4 "a RECORD that lies is exit 4" wp torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 \
	--index "file://$TMP/bad/links2.html" -d "$TMP/wh4" --no-deps
expect_grep "names the member" "__init__.py" "$TMP/err"
expect_no_file "not in the wheelhouse" "$TMP/wh4/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"
done_testing
