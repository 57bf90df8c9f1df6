#!/usr/bin/env bash
# tests/windows/t-wheelpick.sh: wheelpick.exe itself under wine, over the same sample index the
# Linux CLI tests use (sample/mksample.py: small generated wheels and a find-links page shaped like
# the 2021 torch_stable page, linked files as file:// URLs): the seed job, a wheelhouse with hashes,
# verify (and a changed byte: exit 4), a mirror, a bundle (one named with non-ASCII letters, and its
# delta applied), a path with a space and a non-ASCII letter, and the documented exit codes. Every
# path handed to the program is a Windows one (Z:\...).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/winlib.sh"
make_sample
EXE=$WHEELPICK
T="--cuda 11.2 --python 3.8 --platform win_amd64"

# wwp ARGS...: wheelpick.exe with its own catalog and cache given as Windows paths; stdout without
# the CRs a Windows program's text mode adds
wwp() { wine "$EXE" "$@" | tr -d '\r'; return "${PIPESTATUS[0]}"; }
W_TMP=$(winpath "$TMP")
[ -n "$W_TMP" ] && pass "winepath maps the test folder" || fail "winepath gave nothing for '$TMP'"
export WHEELPICK_CATALOG="$W_TMP\\catalog.sqlite3" WHEELPICK_CACHE_DIR="$W_TMP\\cache"
expect_system_dlls "wheelpick.exe is static" "$EXE"
expect_subsystem "wheelpick.exe is a console program" "$EXE" "Windows CUI"

# the seed job: torch 1.8.0 for CUDA 11.2 on Windows is the cu111 build
expect_exit 0 "the seed job picks" wwp torch==1.8.0 $T --index "$FINDLINKS" --dry-run --no-deps --json
expect_json "$TMP/out" "[p['filename'] for p in j['picks']]" "['torch-1.8.0+cu111-cp38-cp38-win_amd64.whl']"
expect_json "$TMP/out" "[p['variant'] for p in j['picks']]" "['cu111']"

# a wheelhouse with hashes, in a folder whose name has a space and a non-ASCII letter
WH="$TMP/dir with space/wheelhöuse"
W_WH=$(winpath "$WH")
expect_exit 0 "-d writes a wheelhouse" wwp torch==1.8.0 $T --index "$FINDLINKS" -d "$W_WH" --json
expect_file "the torch wheel is in it" "$WH/torch-1.8.0+cu111-cp38-cp38-win_amd64.whl"
expect_file "requirements.txt" "$WH/requirements.txt"
expect_grep "pinned to cu111" "^torch==1\.8\.0\+cu111" "$WH/requirements.txt"
expect_grep "with hashes" "--hash=sha256:[0-9a-f]{64}" "$WH/requirements.txt"
sha=$(sha256sum "$WH/torch-1.8.0+cu111-cp38-cp38-win_amd64.whl" | cut -d' ' -f1)
expect_grep "the hash is the file's" "sha256:$sha" "$WH/requirements.txt"
expect_grep "the Windows-only dependency too" "^pywin32==" "$WH/requirements.txt"
expect_exit 0 "verify the wheelhouse" wwp verify "$W_WH"

# one changed byte in a copy: exit 4, naming the file
cp -r "$WH" "$TMP/dir with space/bad wh"
f="$TMP/dir with space/bad wh/torch-1.8.0+cu111-cp38-cp38-win_amd64.whl"
printf 'X' | dd of="$f" bs=1 seek=100 conv=notrunc status=none
expect_exit 4 "verify of a changed wheelhouse is exit 4" wwp verify "$(winpath "$TMP/dir with space/bad wh")"
expect_grep "names the file" "torch-1\.8\.0.cu111-cp38-cp38-win_amd64" "$TMP/err"

# a mirror, and its verify
MIR="$TMP/mirror ü"
expect_exit 0 "a mirror" wwp mirror "$(winpath "$MIR")" torch==1.8.0 $T --index "$FINDLINKS"
expect_file "root page" "$MIR/simple/index.html"
expect_file "PEP 691 page" "$MIR/simple/torch/index.json"
expect_grep "the cu111 build" "torch-1\.8\.0%2Bcu111-cp38-cp38-win_amd64\.whl#sha256=[0-9a-f]{64}" "$MIR/simple/torch/index.html"
expect_file "the file" "$MIR/files/torch/torch-1.8.0+cu111-cp38-cp38-win_amd64.whl"
expect_exit 0 "verify the mirror" wwp verify "$(winpath "$MIR")"

# a bundle, and its verify; its members read back by Linux tar
B="$TMP/dir with space/torch bundle.tar.zst"
expect_exit 0 "a bundle" wwp bundle "$(winpath "$B")" torch==1.8.0 $T --index "$FINDLINKS"
expect_file "the bundle" "$B"
expect_exit 0 "verify the bundle" wwp verify "$(winpath "$B")"
tar --zstd -tf "$B" >"$TMP/members" 2>&1
expect_grep "the bundle holds the wheel" "torch-1\.8\.0\+cu111-cp38-cp38-win_amd64\.whl" "$TMP/members"
expect_no_grep "no backslash in a member name" '\\' "$TMP/members"
expect_grep "the top folder is the file's name, no drive, no folders" "^torch bundle/install\.sh$" "$TMP/members"

# a bundle whose file name is not ASCII: its top folder is that name, byte for byte (the names kept
# as UTF-8 bytes, pax hdrcharset=BINARY, not through Windows' ANSI code page), and verify and apply
# unpack it (through the OS seam, UTF-16 at the API)
NB="$TMP/dïr/paquet-été 日本.tar.zst"
mkdir -p "$TMP/dïr"
expect_exit 0 "a bundle named 'paquet-été 日本'" wwp bundle "$(winpath "$NB")" torch==1.8.0 $T --index "$FINDLINKS" --no-deps
expect_file "written under its name" "$NB"
zstd -dc "$NB" | python3 -c '
import sys, tarfile
for m in tarfile.open(fileobj=sys.stdin.buffer, mode="r|", encoding="utf-8", errors="strict"):
    print(m.name)' >"$TMP/nmembers" 2>&1
expect_grep "its top folder is that name" "^paquet-été 日本/install\.sh$" "$TMP/nmembers"
expect_grep "the wheel under it" "^paquet-été 日本/torch-1\.8\.0\+cu111-cp38-cp38-win_amd64\.whl$" "$TMP/nmembers"
expect_no_grep "no member outside it" "^[^p]" "$TMP/nmembers"
expect_exit 0 "verify it" wwp verify "$(winpath "$NB")"
expect_grep "naming it" "ok .*paquet-été 日本\.tar\.zst \(bundle\)" "$TMP/out"
mkdir -p "$TMP/far"
tar --zstd -xf "$NB" -C "$TMP/far" && pass "Linux tar unpacks it" || fail "Linux tar cannot unpack it"
expect_exit 0 "verify the unpacked folder" wwp verify "$(winpath "$TMP/far/paquet-été 日本")"
expect_exit 0 "a delta named 'paquet-été 日本 2'" wwp bundle "$(winpath "$TMP/dïr/paquet-été 日本 2.tar.zst")" \
	torch==1.8.0 $T --index "$FINDLINKS" --since "$(winpath "$NB")"
expect_exit 0 "apply it to the unpacked folder" wwp apply "$(winpath "$TMP/dïr/paquet-été 日本 2.tar.zst")" \
	"$(winpath "$TMP/far/paquet-été 日本")"
expect_file "with the dependencies the delta carried" "$TMP/far/paquet-été 日本/typing_extensions-4.5.0-py3-none-any.whl"
expect_exit 0 "which still verifies" wwp verify "$(winpath "$TMP/far/paquet-été 日本")"
ls "$TMP/far" >"$TMP/far.ls"
expect_grep "apply kept the folder's name" "^paquet-été 日本$" "$TMP/far.ls"

# install from a bundle whose path and top folder are not ASCII, into a Windows venv (the volumes
# opened and the members unpacked through the OS seam)
python3 "$ROOT/tests/fixtures/mkwheels.py" install "$TMP/iwh" win_amd64 cp311 >/dev/null
IB="$TMP/dïr/wheels ü 日本.tar.zst"
expect_exit 0 "a bundle of a Windows wheel, named with non-ASCII letters" wwp bundle "$(winpath "$IB")" alpha \
	--python 3.11 --platform win_amd64 --cuda cpu --index "$(winpath "$TMP/iwh")"
IV="$TMP/dïr/venv ü"
mkvenv "$IV"
expect_exit 0 "install from it into a Windows venv" wwp install "$(winpath "$IB")" --python "$(winpath "$IV")"
expect_grep "installs alpha" "installed alpha 1\.0" "$TMP/out"
expect_file "alpha is in the venv" "$IV/Lib/site-packages/alpha/__init__.py"

# one wheel, and one conda package of each format, by Windows paths in a folder named with a
# non-ASCII letter: a file's name is what follows the last '\', and libarchive is handed the file
# through the OS seam (its own archive_read_open_filename reads a path in the ANSI code page)
ONE="$TMP/dïr/one"
mkdir -p "$ONE"
python3 "$ROOT/tests/fixtures/mkwheels.py" "$TMP/mk" >/dev/null 2>&1
cp "$TMP/mk/demo-conda-1.0-py_0.tar.bz2" "$TMP/mk/demo-conda-1.0-py_0.conda" "$ONE/"
cp "$WH/torch-1.8.0+cu111-cp38-cp38-win_amd64.whl" "$ONE/"
expect_exit 0 "verify one wheel by its Windows path" wwp verify "$(winpath "$ONE/torch-1.8.0+cu111-cp38-cp38-win_amd64.whl")"
expect_exit 0 "verify a .tar.bz2 conda package there" wwp verify "$(winpath "$ONE/demo-conda-1.0-py_0.tar.bz2")"
expect_exit 0 "verify a .conda package there" wwp verify "$(winpath "$ONE/demo-conda-1.0-py_0.conda")"

# over HTTP from the loopback server the Linux tests use (libcurl in wheelpick.exe: HTTP/1.1)
start_server "$SAMPLE"
# its own cache and catalog, so the wheels cross the wire rather than come from the store
WHEELPICK_CACHE_DIR="$W_TMP\\http cache" WHEELPICK_CATALOG="$W_TMP\\http.sqlite3" \
	expect_exit 0 "-d over HTTP" wwp torch==1.8.0 $T --index "$BASE/whl/torch_stable.html" -d "$W_TMP\\http wh" --json
expect_json "$TMP/out" "sorted(p['filename'] for p in j['picks'])" \
	"['pywin32-306-py3-none-any.whl', 'torch-1.8.0+cu111-cp38-cp38-win_amd64.whl', 'typing_extensions-4.5.0-py3-none-any.whl']"
cmp -s "$WH/torch-1.8.0+cu111-cp38-cp38-win_amd64.whl" "$TMP/http wh/torch-1.8.0+cu111-cp38-cp38-win_amd64.whl" &&
	pass "the same bytes over HTTP" || fail "the wheel over HTTP differs or is missing"
expect_grep "the server saw the page asked for" "torch_stable\.html" "$TMP/server.log"
expect_grep "and the wheel downloaded" "torch-1\.8\.0(\+|%2B)cu111-cp38-cp38-win_amd64\.whl" "$TMP/server.log"
stop_server

# documented exit codes
expect_exit 2 "an unknown option is a usage error" wwp --no-such-option
expect_exit 2 "mirror without a package is a usage error" wwp mirror "$(winpath "$TMP/x")"
expect_exit 3 "verify of a missing path" wwp verify "$W_TMP\\nothing here"
expect_exit 1 "nothing fits: a version that does not exist" wwp torch==9.9.9 $T --index "$FINDLINKS" --dry-run --no-deps
done_testing
