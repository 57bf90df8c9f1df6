#!/usr/bin/env bash
# tests/windows/t-defaults.sh: wheelpick.exe's Windows defaults under wine: with no
# WHEELPICK_CACHE_DIR or WHEELPICK_CATALOG, both live under %LOCALAPPDATA%\wheelpick; pip's files
# are read where pip reads them on Windows (%ProgramData%\pip\pip.ini, then %APPDATA%\pip\pip.ini;
# PIP_CONFIG_FILE=nul reads none), uv's at %APPDATA%\uv\uv.toml. Wine sets APPDATA, LOCALAPPDATA
# and ProgramData itself when a program starts, so they are set in cmd.exe, which then starts
# wheelpick.exe with them (the test's paths have no spaces: cmd's quoting is not under test here).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/winlib.sh"
make_sample
unset WHEELPICK_CACHE_DIR WHEELPICK_CATALOG
EXE_W=$(winpath "$WHEELPICK")
W=$(winpath "$TMP")
case "$EXE_W$W" in *" "*) fail "a space in '$EXE_W' or '$W': cmd /c below cannot take it"; done_testing; exit 1 ;; esac
mkdir -p "$TMP/appdata/pip" "$TMP/pd/pip" "$TMP/local"
printf '[global]\nindex-url = https://global.example.test/simple\n' >"$TMP/pd/pip/pip.ini"
SETS="set APPDATA=$W\\appdata&& set LOCALAPPDATA=$W\\local&& set ProgramData=$W\\pd&& "

# wcmd SETS ARGS...: wheelpick.exe started by cmd.exe after SETS ("set X=Y&& ..."); stdout without CRs
wcmd() {
	local pre=$1; shift
	wine cmd /c "$pre$EXE_W $*" | tr -d '\r'
	return "${PIPESTATUS[0]}"
}

# the global file alone, then the user's over it (pip's order: global, user, site, PIP_CONFIG_FILE)
expect_exit 0 "config list with the global pip.ini" wcmd "$SETS" config list
expect_grep "ProgramData's pip.ini is read" "^global\.index-url='https://global\.example\.test/simple'" "$TMP/out"
printf '[global]\nindex-url = https://user.example.test/simple\n' >"$TMP/appdata/pip/pip.ini"
expect_exit 0 "config list with the user's pip.ini" wcmd "$SETS" config list
expect_grep "APPDATA's pip.ini is read" "^global\.index-url='https://user\.example\.test/simple'" "$TMP/out"
expect_exit 0 "config debug" wcmd "$SETS" config debug
expect_grep "the user file is where pip reads it" "^  .*\\\\appdata\\\\pip\\\\pip\.ini, exists: True" "$TMP/out"
expect_grep "the global file is where pip reads it" "^  .*\\\\pd\\\\pip\\\\pip\.ini, exists: True" "$TMP/out"
expect_grep "the user's index-url is in effect" "index: https://user\.example\.test/simple/ \(from pip.conf .*appdata.pip.pip\.ini\)" "$TMP/out"
expect_grep "the catalog under LOCALAPPDATA" "catalog: .*\\\\local\\\\wheelpick\\\\catalog\.sqlite3$" "$TMP/out"
expect_grep "the cache under LOCALAPPDATA" "cache-dir: .*\\\\local\\\\wheelpick$" "$TMP/out"
expect_no_grep "no pip.conf name on Windows" "pip\.conf," "$TMP/out"
expect_exit 0 "PIP_CONFIG_FILE=nul" wcmd "${SETS}set PIP_CONFIG_FILE=nul&& " config debug
expect_no_grep "nul: no pip file is read" "example\.test" "$TMP/out"
mkdir -p "$TMP/appdata/uv"
printf 'index-url = "https://uv.example.test/simple"\n' >"$TMP/appdata/uv/uv.toml"
expect_exit 0 "config debug with uv.toml" wcmd "$SETS" config debug
expect_grep "APPDATA's uv.toml is read" "^  .*\\\\appdata\\\\uv\\\\uv\.toml, exists: True" "$TMP/out"
rm -rf "$TMP/appdata/uv"

# a run with the defaults: the catalog and the downloaded files land under LOCALAPPDATA
expect_exit 0 "a wheelhouse with the default cache" wcmd "$SETS" torch==1.8.0 --cuda 11.2 --python 3.8 \
	--platform win_amd64 --no-deps --index "$FINDLINKS" -d "$W\\wh"
expect_file "the wheel" "$TMP/wh/torch-1.8.0+cu111-cp38-cp38-win_amd64.whl"
expect_file "the catalog is in LOCALAPPDATA\\wheelpick" "$TMP/local/wheelpick/catalog.sqlite3"
n=$(find "$TMP/local/wheelpick" -type f -name '*.whl' 2>/dev/null | wc -l)
n2=$(find "$TMP/local/wheelpick" -type f 2>/dev/null | wc -l)
[ "$n2" -gt 1 ] && pass "files cached under LOCALAPPDATA\\wheelpick ($n2 files, $n named .whl)" ||
	fail "nothing but the catalog under '$TMP/local/wheelpick': $(find "$TMP/local" | head)"
expect_no_file "nothing under HOME" "$HOME/.cache/wheelpick"

# no LOCALAPPDATA: a usage error that names it
expect_exit 2 "no LOCALAPPDATA is a usage error" wcmd "set LOCALAPPDATA=&& " torch==1.8.0 --cuda 11.2 \
	--python 3.8 --platform win_amd64 --index "$FINDLINKS" --dry-run
expect_grep "names LOCALAPPDATA" "LOCALAPPDATA is unset or not absolute" "$TMP/err"
done_testing
