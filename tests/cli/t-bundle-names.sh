#!/usr/bin/env bash
# tests/cli/t-bundle-names.sh: a bundle whose file name is not ASCII (its top folder is that name, so
# every member's name is not ASCII either), made, read and unpacked in the C locale wheelpick runs
# in (it calls no setlocale): libarchive translated our UTF-8 names from the C locale's charset and
# refused them ("Can't translate pathname ... to UTF-8"). The names are kept as bytes (pax hdrcharset=BINARY)
# and come back exactly: Python's tarfile and GNU tar read them, and `verify`, `install` and
# `apply` (each unpacks the members itself) take the bundle.
. "$(dirname "$0")/../lib.sh"
# wheelpick calls no setlocale: libarchive runs in the C locale whatever LANG says (C.UTF-8 here)
PYTAG=$("$PYTHON" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
PYVER=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PLAT=manylinux_2_17_$(uname -m)
"$PYTHON" "$ROOT/tests/fixtures/mkwheels.py" install "$TMP/wh" "$PLAT" "$PYTAG"
T="--python $PYVER --platform $PLAT --cuda cpu --index $TMP/wh"
TOP="paquet-été 日本"
D="$TMP/dïr"
mkdir -p "$D" "$TMP/far"
B="$D/$TOP.tar.zst"

# shellcheck disable=SC2086
expect_exit 0 "a bundle named '$TOP'" wp bundle "$B" alpha $T
expect_file "written under its name" "$B"
# the names as a reader sees them, the pax header's charset among them
zstd -dc "$B" | "$PYTHON" -c '
import sys, tarfile
t = tarfile.open(fileobj=sys.stdin.buffer, mode="r|", encoding="utf-8", errors="strict")
for m in t:
    print(m.name, m.pax_headers.get("hdrcharset", "-"))' >"$TMP/names" 2>&1
expect_grep "the top folder is the file's name, byte for byte" "^paquet-été 日本/? " "$TMP/names"
expect_grep "a wheel under it" "^paquet-été 日本/alpha-1\.0-py3-none-any\.whl " "$TMP/names"
expect_grep "install.sh under it" "^paquet-été 日本/install\.sh " "$TMP/names"
expect_no_grep "no member outside it" "^[^p]|^p[^a]" "$TMP/names"
expect_grep "the names are marked as bytes (hdrcharset=BINARY)" " BINARY$" "$TMP/names"
LC_ALL=C.UTF-8 tar --zstd -xf "$B" -C "$TMP/far" 2>"$TMP/tar.err" && pass "GNU tar unpacks it" ||
	fail "GNU tar: $(cat "$TMP/tar.err")"
expect_file "into the folder of that name" "$TMP/far/$TOP/install.sh"
expect_exit 0 "the unpacked folder verifies" wp verify "$TMP/far/$TOP"

# an ASCII-named bundle is written as before: no charset header
# shellcheck disable=SC2086
expect_exit 0 "an ASCII-named bundle" wp bundle "$TMP/plain.tar.zst" alpha $T
zstd -dc "$TMP/plain.tar.zst" | "$PYTHON" -c '
import sys, tarfile
print(sum(1 for m in tarfile.open(fileobj=sys.stdin.buffer, mode="r|") if "hdrcharset" in m.pax_headers))' >"$TMP/n"
expect_grep "has no hdrcharset header" "^0$" "$TMP/n"

# verify unpacks every member and checks it
expect_exit 0 "verify the bundle" wp verify "$B"
expect_grep "names it" "ok .*dïr/paquet-été 日本\.tar\.zst \(bundle\)" "$TMP/out"
zstd -dc "$B" >"$TMP/bad.tar"
"$PYTHON" - "$TMP/bad.tar" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"alpha/__init__.py")  # inside the wheel (stored by name in its zip), so the wheel changes
assert i > 0
b[i] ^= 1
open(sys.argv[1], "wb").write(b)
PY
mv "$TMP/bad.tar" "$D/$TOP 2.tar"
expect_exit 4 "a changed byte inside is exit 4" wp verify "$D/$TOP 2.tar"
expect_grep "naming the wheel" "alpha" "$TMP/err"

# install unpacks it
"$PYTHON" -m venv --without-pip "$TMP/v"
expect_exit 0 "install from it" wp install "$B" --python "$TMP/v/bin/python"
expect_grep "installs alpha" "installed alpha 1\.0" "$TMP/out"
expect_file "alpha is in the environment" "$(echo "$TMP"/v/lib/python*/site-packages/alpha/__init__.py)"

# a delta, named the same way, applied to the folder GNU tar unpacked
# shellcheck disable=SC2086
expect_exit 0 "a delta '$TOP 2'" wp bundle "$D/$TOP 2.tar.zst" alpha gamma $T --since "$B"
expect_exit 0 "apply it" wp apply "$D/$TOP 2.tar.zst" "$TMP/far/$TOP"
expect_file "gamma is there now" "$TMP/far/$TOP/gamma-1.0-py3-none-any.whl"
expect_exit 0 "and the folder verifies" wp verify "$TMP/far/$TOP"
done_testing
