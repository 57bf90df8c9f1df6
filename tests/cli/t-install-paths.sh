#!/usr/bin/env bash
# tests/cli/t-install-paths.sh: scripts `wheelpick install` writes run from any environment path
# (a space, past the kernel's 127-byte shebang), with the interpreter quoted as pypa/installer's
# vector test_script_generate_space_in_executable has it; a wheel signed with RECORD.jws or
# RECORD.p7s (which RECORD cannot list, the wheel spec says) installs.
#   WHEELPICK=build/wheelpick bash tests/cli/t-install-paths.sh
. "$(dirname "$0")/../lib.sh"
PYTAG=$("$PYTHON" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
PLAT=manylinux_2_17_$(uname -m)
"$PYTHON" "$ROOT/tests/fixtures/mkwheels.py" install "$TMP/wh" "$PLAT" "$PYTAG"
cd "$TMP" || exit 1
venv() { rm -rf "$1" && "$PYTHON" -m venv --without-pip "$1"; }

# --- an environment whose path has a space: the /bin/sh form, the path single-quoted ---
sp="$TMP/sp ace/it's/v"
venv "$sp"
expect_exit 0 "install into a venv whose path has a space and a quote" wp install wh --python "$sp/bin/python"
want_exec="'''exec' '$TMP/sp ace/it'\"'\"'s/v/bin/python' \"\$0\" \"\$@\""
[ "$(sed -n 1p "$sp/bin/alpha")" = "#!/bin/sh" ] && [ "$(sed -n 2p "$sp/bin/alpha")" = "$want_exec" ] &&
	[ "$(sed -n 3p "$sp/bin/alpha")" = "' '''" ] && pass "the launcher's shebang is pypa/installer's, shlex-quoted" ||
	{ fail "launcher shebang"; head -3 "$sp/bin/alpha" >&2; }
[ "$("$sp/bin/alpha" 2>&1)" = "alpha main" ] && pass "the console launcher runs from a path with a space" ||
	fail "bin/alpha: $("$sp/bin/alpha" 2>&1)"
[ "$("$sp/bin/alpha-tool" 2>&1)" = "1.0" ] && pass "the #!python script runs from a path with a space" ||
	fail "alpha-tool: $("$sp/bin/alpha-tool" 2>&1)"

# --- a path past 127 bytes with no space: the /bin/sh form, the path as it is ---
long="$TMP/$(printf 'l%.0s' $(seq 1 130))/v"
venv "$long"
expect_exit 0 "install into a venv past 127 bytes" wp install wh --python "$long/bin/python"
[ "$(sed -n 2p "$long/bin/alpha")" = "'''exec' $long/bin/python \"\$0\" \"\$@\"" ] &&
	pass "a long plain path is not quoted (shlex.quote leaves it)" || { fail "long shebang"; head -3 "$long/bin/alpha" >&2; }
[ "$("$long/bin/alpha" 2>&1)" = "alpha main" ] && pass "the console launcher runs from a long path" ||
	fail "long bin/alpha: $("$long/bin/alpha" 2>&1)"
[ "$("$long/bin/alpha-tool" 2>&1)" = "1.0" ] && pass "the #!python script runs from a long path" ||
	fail "long alpha-tool: $("$long/bin/alpha-tool" 2>&1)"

# --- RECORD.jws and RECORD.p7s are not in RECORD and need not be ---
mkdir -p sig
"$PYTHON" - "$TMP/sig" <<'PY'
import base64, hashlib, sys, zipfile
out = sys.argv[1]
for sig in ("RECORD.jws", "RECORD.p7s"):
    name = "signed" + sig[-3:]
    di = "%s-1.0.dist-info" % name
    files = {
        "%s/__init__.py" % name: b"V = 1\n",
        di + "/METADATA": b"Metadata-Version: 2.1\nName: %s\nVersion: 1.0\n" % name.encode(),
        di + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    rec = ""
    for p, b in files.items():
        h = base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
        rec += "%s,sha256=%s,%d\n" % (p, h, len(b))
    rec += di + "/RECORD,,\n"
    with zipfile.ZipFile("%s/%s-1.0-py3-none-any.whl" % (out, name), "w") as z:
        for p, b in files.items():
            z.writestr(p, b)
        z.writestr(di + "/RECORD", rec)
        z.writestr(di + "/" + sig, b"{}")
PY
venv vs
expect_exit 0 "a wheel with RECORD.jws (not in RECORD) installs" wp install sig/signedjws-1.0-py3-none-any.whl --python "$TMP/vs/bin/python"
expect_exit 0 "a wheel with RECORD.p7s (not in RECORD) installs" wp install sig/signedp7s-1.0-py3-none-any.whl --python "$TMP/vs/bin/python"
expect_file "RECORD.jws is installed with the dist-info" "$(echo vs/lib/python3*/site-packages/signedjws-1.0.dist-info/RECORD.jws)"
[ "$(vs/bin/python -c 'import signedjws, signedp7s; print(signedjws.V + signedp7s.V)')" = 2 ] &&
	pass "both import" || fail "signed wheels do not import"
expect_exit 0 "verify accepts a wheel whose RECORD.jws RECORD does not list" wp verify sig/signedjws-1.0-py3-none-any.whl

done_testing
