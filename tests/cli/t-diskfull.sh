#!/usr/bin/env bash
# tests/cli/t-diskfull.sh: a full disk and an unwritable cache give a clear error and leave the old state.
. "$(dirname "$0")/../lib.sh"
make_sample
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"

# a real full file system when this machine lets root mount a small tmpfs; else a file-size limit
# (write() then fails with EFBIG instead of ENOSPC: the same code path)
FULL="$TMP/full"
mkdir -p "$FULL"
if [ -z "${WP_TEST_NO_MOUNT:-}" ] && mount -t tmpfs -o size=256k tmpfs "$FULL" 2>/dev/null; then
	at_exit "umount $FULL"
	limited() { "$@"; }
	fill() { head -c 10M /dev/zero >"$FULL/filler" 2>/dev/null || true; }
	echo "    (a 256 KiB tmpfs)"
else
	# stdout and stderr go through pipes: a regular file could not be written under the limit
	limited() { (ulimit -f 0; trap '' XFSZ; exec "$@") 2> >(cat >&2) | cat; return "${PIPESTATUS[0]}"; }
	fill() { :; }
	echo "    (no mount here: a zero file-size limit instead)"
fi

# the store on the full disk: exit 3 naming the path, nothing half-written in the wheelhouse
expect_exit 0 "a good catalog first" wp update --index "$FINDLINKS"
export WHEELPICK_CACHE_DIR="$FULL/cache"
mkdir -p "$FULL/cache/files/sha256" "$FULL/cache/files/tmp"
fill
limited "$WHEELPICK" torch==1.8.0 $T --no-deps -d "$TMP/wh" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 3 ] && pass "a full disk under the store is exit 3" || { fail "full store: exit $rc"; cat "$TMP/err" >&2; }
expect_grep "says what and where" "'[^']+'.*(no space|too large|cannot write|disk is full|I/O error)|(no space|too large|cannot write|disk is full).*'" "$TMP/err"
expect_no_file "no wheel in the wheelhouse" "$TMP/wh/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"
rm -f "$FULL/filler"

# the catalog on the full disk: the update fails, the old rows stay
export WHEELPICK_CACHE_DIR="$TMP/cache"
cp "$WHEELPICK_CATALOG" "$FULL/cat.sqlite3"
fill
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    for i in range(30000):
        f.write("<a href=\"cpu/big%d-1.0-py3-none-any.whl\">x</a>\n" % i)' "$TMP/big.html"
limited "$WHEELPICK" --catalog "$FULL/cat.sqlite3" update --index "file://$TMP/big.html" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 3 ] && pass "a full disk under the catalog is exit 3" || { fail "full catalog: exit $rc"; cat "$TMP/err" >&2; }
expect_grep "a clear message" "(disk is full|too large|cannot|catalog)" "$TMP/err"
rm -f "$FULL/filler"
expect_exit 0 "the old catalog still answers" wp --catalog "$FULL/cat.sqlite3" list torch --json
expect_json "$TMP/out" "len(j)" 42
ic=$(sqlite3 "$FULL/cat.sqlite3" "PRAGMA integrity_check" 2>&1)
[ "$ic" = ok ] && pass "integrity_check ok" || fail "integrity_check: $ic"

# a cache folder that cannot be created (its parent is a file): exit 3 naming it
echo x >"$TMP/afile"
export WHEELPICK_CACHE_DIR="$TMP/afile/cache"
expect_exit 3 "an unusable cache folder is exit 3" wp torch==1.8.0 $T --no-deps -d "$TMP/wh2"
expect_grep "names the folder" "$TMP/afile" "$TMP/err"
done_testing
