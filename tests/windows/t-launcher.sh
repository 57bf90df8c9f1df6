#!/usr/bin/env bash
# tests/windows/t-launcher.sh: the entry-point launcher (tools/win/launcher.c) under wine, with
# fakepython.exe as the interpreter: it writes the arguments it received, so a wrong script path,
# a mangled argument or a lost exit code fails here.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/winlib.sh"
CON=$WIN/launcher-console.exe
GUI=$WIN/launcher-gui.exe
FAKE=$WIN/tests/fakepython.exe

expect_subsystem "console launcher: console subsystem" "$CON" "Windows CUI"
expect_subsystem "GUI launcher: windows subsystem" "$GUI" "Windows GUI"
expect_system_dlls "console launcher imports only system DLLs" "$CON"
expect_system_dlls "GUI launcher imports only system DLLs" "$GUI"
expect_system_dlls "fakepython imports only system DLLs" "$FAKE"

# make_script LAUNCHER DEST SHEBANG-LINE [EOL]: pip's layout, the launcher, "#!...", a zip with __main__.py
make_script() {
	mkdir -p "$(dirname "$2")"
	python3 - "$@" <<'PY'
import io, sys, zipfile
launcher, dest, shebang = sys.argv[1:4]
eol = sys.argv[4].encode() if len(sys.argv) > 4 else b"\n"
z = io.BytesIO()
with zipfile.ZipFile(z, "w") as f:
    f.writestr("__main__.py", "import sys\nfrom tool import main\nsys.exit(main())\n")
with open(dest, "wb") as out:
    out.write(open(launcher, "rb").read() + shebang.encode("utf-8") + eol + z.getvalue())
PY
}

# A Python whose path has a space and a non-ASCII letter; an environment likewise.
PYDIR="$TMP/Py thon ü"
mkdir -p "$PYDIR"
cp "$FAKE" "$PYDIR/python.exe"
PY_W=$(winpath "$PYDIR/python.exe")
SCRIPTS="$TMP/env dir/é 日本/Scripts"
TOOL="$SCRIPTS/tool.exe"
make_script "$CON" "$TOOL" "#!\"$PY_W\""
TOOL_W=$(winpath "$TOOL")
export FAKEPY_OUT
FAKEPY_OUT=$(winpath "$TMP/argv.txt")

# expect_argv DESC WANT...: the arguments fakepython received, one per line
expect_argv() {
	local desc=$1; shift
	printf '<%s>\n' "$@" >"$TMP/argv.want"
	if [ -f "$TMP/argv.txt" ] && cmp -s "$TMP/argv.want" "$TMP/argv.txt"; then pass "$desc"; else
		fail "$desc: the interpreter received other arguments"
		diff "$TMP/argv.want" "$TMP/argv.txt" 2>&1 | sed 's/^/      /' >&2
	fi
	rm -f "$TMP/argv.txt"
}

# The arguments the MSVCRT rules make hard: spaces, quotes, backslashes before quotes and at the
# end, an empty one, non-ASCII, a tab, a lone quote and a lone backslash.
ARGS=(plain 'with space' 'q"uote' 'tr\' 'tr sp\' '' 'é日本' 'x\\"y' 'a\\b' '"' '\' '--opt=1 2' $'tab\tx' 'C:\Program Files\x\')
expect_exit 0 "console launcher runs the interpreter" wine "$TOOL" "${ARGS[@]}"
expect_argv "interpreter, the .exe as the script, then each argument unchanged" "$PY_W" "$TOOL_W" "${ARGS[@]}"

expect_exit 0 "no arguments" wine "$TOOL"
expect_argv "no arguments: the interpreter and the script only" "$PY_W" "$TOOL_W"

for code in 1 42 255; do
	FAKEPY_EXIT=$code expect_exit "$code" "the interpreter's exit code $code is the launcher's" wine "$TOOL" x
done

printf 'line one\nline two\n' >"$TMP/stdin"
FAKEPY_ECHO=1 wine "$TOOL" <"$TMP/stdin" >"$TMP/echo.out" 2>"$TMP/echo.err"
st=$?
[ "$st" = 0 ] && pass "echo run exits 0" || fail "echo run exits $st"
if cmp -s "$TMP/stdin" "$TMP/echo.out"; then pass "stdin reaches the interpreter, its stdout comes back"; else
	fail "stdin/stdout not passed through: got '$(head -c 200 "$TMP/echo.out")'"; fi
expect_grep "the interpreter's stderr comes back" "fakepython-stderr" "$TMP/echo.err"
rm -f "$TMP/argv.txt"

# CRLF after the shebang (a script written on Windows), and options on the shebang line
make_script "$CON" "$SCRIPTS/crlf.exe" "#!\"$PY_W\"" $'\r\n'
expect_exit 0 "a CRLF shebang line" wine "$SCRIPTS/crlf.exe" 'a b'
expect_argv "a CRLF shebang line: no CR in the interpreter's path" "$PY_W" "$(winpath "$SCRIPTS/crlf.exe")" 'a b'
make_script "$CON" "$SCRIPTS/opts.exe" "#!\"$PY_W\" -E -s"
expect_exit 0 "shebang options" wine "$SCRIPTS/opts.exe" x
expect_argv "shebang options come before the script" "$PY_W" -E -s "$(winpath "$SCRIPTS/opts.exe")" x

# An unquoted interpreter path (no spaces), and a relative one: beside the .exe, as in a venv's Scripts\.
mkdir -p "$TMP/py"
cp "$FAKE" "$TMP/py/python.exe"
make_script "$CON" "$SCRIPTS/unquoted.exe" "#!$(winpath "$TMP/py/python.exe")"
expect_exit 0 "an unquoted shebang" wine "$SCRIPTS/unquoted.exe" y
expect_argv "an unquoted shebang: that interpreter" "$(winpath "$TMP/py/python.exe")" "$(winpath "$SCRIPTS/unquoted.exe")" y
cp "$FAKE" "$SCRIPTS/python.exe"
make_script "$CON" "$SCRIPTS/rel.exe" "#!python.exe"
expect_exit 0 "a relative shebang" wine "$SCRIPTS/rel.exe" z
expect_argv "a relative shebang: the interpreter beside the .exe" "$(winpath "$SCRIPTS/python.exe")" "$(winpath "$SCRIPTS/rel.exe")" z

# The GUI launcher: same contract, windows subsystem.
make_script "$GUI" "$SCRIPTS/gui tool.exe" "#!\"$PY_W\""
FAKEPY_EXIT=7 expect_exit 7 "GUI launcher passes the exit code" wine "$SCRIPTS/gui tool.exe" 'g "1"' 'é\'
expect_argv "GUI launcher: interpreter, script, arguments" "$PY_W" "$(winpath "$SCRIPTS/gui tool.exe")" 'g "1"' 'é\'

# Failures of its own: nothing appended, an interpreter that is not there.
cp "$CON" "$SCRIPTS/bare.exe"
expect_exit 101 "a launcher with no script appended exits 101" wine "$SCRIPTS/bare.exe"
expect_grep "... and says so" "no '#!python' line and zip archive appended" "$TMP/err"
make_script "$CON" "$SCRIPTS/gone.exe" "#!\"$(winpath "$TMP/no such")\\python.exe\""
expect_exit 103 "a missing interpreter exits 103" wine "$SCRIPTS/gone.exe"
expect_grep "... and names it" "cannot start the interpreter.*no such" "$TMP/err"

# The stand-in is strict: given a script that is not a zip with __main__.py, it fails as CPython would.
FAKEPY_EXIT=0 expect_exit 2 "fakepython refuses a script that is not the zip" wine "$PYDIR/python.exe" "$(winpath "$CON")"
done_testing
