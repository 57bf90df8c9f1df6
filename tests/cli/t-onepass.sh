#!/usr/bin/env bash
# tests/cli/t-onepass.sh: a downloaded wheel's file sha256 and its members' RECORD hashes, taken in
# one pass (issue 42 item 2), still catch what each caught: a stored or deflated member that is not
# what RECORD says is refused even when the page's sha256 is the file's, and a file that is not the
# page's sha256 is refused; big wheels (the tap thread, the two-lane hash) and small ones alike.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$TMP/srv"
python3 - "$TMP/srv" <<'PY'
import base64, hashlib, os, sys, zipfile
out = sys.argv[1]
def b64(d):
    return base64.urlsafe_b64encode(d).rstrip(b"=").decode()
def wheel(name, size, method, flip=False):
    """name-1.0-py3-none-any.whl with one member of size bytes (method: zipfile's); flip: one byte
    of it changed after RECORD was written (the zip itself sound: its CRC is of the changed bytes)."""
    data = bytearray((i * 2654435761 >> 13) & 0xff for i in range(min(size, 1 << 16))) * (size // (1 << 16) + 1)
    data = bytes(data[:size])
    rec = f"{name}/blob.bin,sha256={b64(hashlib.sha256(data).digest())},{len(data)}\n"
    if flip:
        k = size // 2 + 3
        data = data[:k] + bytes([data[k] ^ 1]) + data[k + 1:]
    di = f"{name}-1.0.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n\n".encode()
    whl = f"Wheel-Version: 1.0\nGenerator: t-onepass\nRoot-Is-Purelib: true\nTag: py3-none-any\n".encode()
    for fn, d in ((f"{di}/METADATA", meta), (f"{di}/WHEEL", whl)):
        rec += f"{fn},sha256={b64(hashlib.sha256(d).digest())},{len(d)}\n"
    rec += f"{di}/RECORD,,\n"
    fn = f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(out, fn), "w", method) as z:
        z.writestr(f"{name}/blob.bin", data)
        z.writestr(f"{di}/METADATA", meta)
        z.writestr(f"{di}/WHEEL", whl)
        z.writestr(f"{di}/RECORD", rec)
    sha = hashlib.sha256(open(os.path.join(out, fn), "rb").read()).hexdigest()
    return fn, sha
S, D = zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED
cases = {
    "goodbig": wheel("goodbig", 20 << 20, S),
    "goodsmall": wheel("goodsmall", 300 << 10, S),
    "gooddeflated": wheel("gooddeflated", 20 << 20, D),
    "badbig": wheel("badbig", 20 << 20, S, True),
    "badsmall": wheel("badsmall", 300 << 10, S, True),
    "baddeflated": wheel("baddeflated", 20 << 20, D, True),
    "wronghash": wheel("wronghash", 20 << 20, S),
}
for name, (fn, sha) in cases.items():
    if name == "wronghash":
        sha = sha[:10] + ("0" if sha[10] != "0" else "1") + sha[11:]
    with open(os.path.join(out, f"{name}.html"), "w") as f:
        f.write(f'<a href="{fn}#sha256={sha}">{fn}</a>\n')
PY
start_server "$TMP/srv"
pick() { wp "$1" --cuda cpu --python 3.8 --platform linux_x86_64 --no-deps --index "$BASE/$1.html" -d "$TMP/d-$1"; }

for p in goodbig goodsmall gooddeflated; do
	expect_exit 0 "$p: a sound wheel whose page gives its sha256 is taken" pick $p
	expect_exit 0 "$p: and verifies on its own" wp verify "$TMP/d-$p/$p-1.0-py3-none-any.whl"
done
# the object in the store is named by the sha256 the stream took: the page's
sha=$(sha256sum "$TMP/srv/goodbig-1.0-py3-none-any.whl" | cut -d' ' -f1)
expect_file "the store holds it under its sha256" "$WHEELPICK_CACHE_DIR/files/sha256/${sha:0:2}/${sha:2}"

for p in badbig badsmall baddeflated; do
	expect_exit 4 "$p: a member that is not what RECORD says is refused (the page's sha256 is the file's)" pick $p
	expect_grep "$p: RECORD names the member" "$p/blob.bin.*sha256 mismatch: RECORD says" "$TMP/err"
	expect_no_file "$p: nothing lands in the wheelhouse" "$TMP/d-$p/$p-1.0-py3-none-any.whl"
done

expect_exit 4 "a file that is not the page's sha256 is refused" pick wronghash
expect_grep "the file's sha256 is named" "wronghash-1.0-py3-none-any.whl.*sha256 mismatch: expected" "$TMP/err"
expect_no_file "nothing lands" "$TMP/d-wronghash/wronghash-1.0-py3-none-any.whl"
# install (copy): one inflate per byte (ISA-L), the sha256 of the inflated bytes against RECORD; the
# CRC-32 is checked only for the .dist-info files, so a changed member must be caught by RECORD
for p in badbig baddeflated; do
	expect_exit 4 "$p: install refuses a member that is not what RECORD says" \
		wp install "$TMP/srv/$p-1.0-py3-none-any.whl" --target "$TMP/t-$p"
	expect_grep "$p: install names the member" "$p/blob.bin.*sha256 mismatch: RECORD says" "$TMP/err"
	expect_no_file "$p: nothing installed" "$TMP/t-$p/$p/blob.bin"
done
expect_exit 0 "a sound deflated wheel installs" wp install "$TMP/srv/gooddeflated-1.0-py3-none-any.whl" --target "$TMP/t-good"
python3 - "$TMP/srv/gooddeflated-1.0-py3-none-any.whl" "$TMP/t-good/gooddeflated/blob.bin" <<'PY' && pass "its member's bytes are the wheel's" || fail "installed bytes differ"
import sys, zipfile
sys.exit(zipfile.ZipFile(sys.argv[1]).read("gooddeflated/blob.bin") != open(sys.argv[2], "rb").read())
PY
# a byte of the deflated data changed in the file (the CRC left as it was): refused, whatever
# notices first (the inflate, or RECORD's hash)
cp "$TMP/srv/gooddeflated-1.0-py3-none-any.whl" "$TMP/damaged-1.0-py3-none-any.whl"
python3 - "$TMP/damaged-1.0-py3-none-any.whl" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(200000)
    b = f.read(1)
    f.seek(200000)
    f.write(bytes([b[0] ^ 0x40]))
PY
mkdir -p "$TMP/dmg" && mv "$TMP/damaged-1.0-py3-none-any.whl" "$TMP/dmg/gooddeflated-1.0-py3-none-any.whl"
expect_exit 4 "a damaged deflated member is refused by install" \
	wp install "$TMP/dmg/gooddeflated-1.0-py3-none-any.whl" --target "$TMP/t-dmg"
expect_grep "and named" "gooddeflated/blob.bin" "$TMP/err"
expect_no_file "nothing installed" "$TMP/t-dmg/gooddeflated/blob.bin"
done_testing
