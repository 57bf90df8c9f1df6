#!/usr/bin/env bash
# tests/cli/t-install.sh: `wheelpick install` against pip (issue 26). The same wheelhouses go into
# two fresh venvs, one by pip and one by wheelpick, and every file pip's RECORDs name must be the
# same bytes (the venv path aside), the same mode and the same RECORD row: entry-point launchers,
# .data/ scripts ("#!python"), headers and data, a platlib wheel, a PEP 825 variant wheel. Then pip
# reads wheelpick's result (list, show, check, uninstall), upgrades and downgrades replace by
# RECORD, a tampered wheel changes nothing (exit 4), bundles and their volumes install, and a
# kill -9 at random moments leaves the old environment or the new one, never a mix.
#   WHEELPICK=build/wheelpick bash tests/cli/t-install.sh
. "$(dirname "$0")/../lib.sh"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1
CHECK="$ROOT/tests/cli/install_check.py"
PYTAG=$("$PYTHON" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
PLAT=manylinux_2_17_$(uname -m)
"$PYTHON" "$ROOT/tests/fixtures/mkwheels.py" install "$TMP/wh" "$PLAT" "$PYTAG"
"$PYTHON" "$ROOT/tests/fixtures/mkwheels.py" install "$TMP/wh2" "$PLAT" "$PYTAG" v2 600
cd "$TMP" || exit 1
venv() { rm -rf "$1" && "$PYTHON" -m venv --without-pip "$1"; }
pip_in() { local v=$1; shift; "$PYTHON" -m pip --python "$TMP/$v/bin/python" "$@"; }

# --- the same wheelhouse by pip and by wheelpick (venv names of one length: the same launchers) ---
venv vp && venv vw && "$PYTHON" "$CHECK" snapshot vw fresh.json && "$PYTHON" "$CHECK" snapshot vp freshp.json
pip_in vp install -q --no-compile --no-index --find-links wh --require-hashes -r wh/requirements.txt
expect_exit 0 "install a wheelhouse" wp install wh --python "$TMP/vw/bin/python"
expect_grep "says what it installed" "installed alpha 1.0" out
"$PYTHON" "$CHECK" compare vp vw >cmp.out && pass "every file pip's RECORDs name is the same (bytes, mode, row)" ||
	{ fail "wheelpick's install differs from pip's"; head -20 cmp.out >&2; }
[ "$(vw/bin/alpha)" = "alpha main" ] && pass "the console launcher runs its entry point" || fail "bin/alpha: $(vw/bin/alpha 2>&1)"
[ "$(vw/bin/alpha-tool)" = "1.0" ] && pass "the #!python script runs with the venv's interpreter" || fail "alpha-tool"
[ -x vw/lib/python3*/site-packages/beta/lib/libbeta.so.1 ] && pass "executable bits kept" || fail "libbeta not executable"
expect_file "variant.json kept in .dist-info" "$(echo vw/lib/python3*/site-packages/gamma-1.0.dist-info/variant.json)"

# entry points named pip and easy_install get pip's versioned copies (pip3, pip3.X, easy_install-3.X)
venv vx && venv vy
pip_in vx install -q --no-compile --no-index --find-links wh-pipnames --require-hashes -r wh-pipnames/requirements.txt
expect_exit 0 "install entry points named pip and easy_install" wp install wh-pipnames --python "$TMP/vy/bin/python"
"$PYTHON" "$CHECK" compare vx vy >cmp.out && pass "pip's versioned pip and easy_install launchers" ||
	{ fail "launchers named pip differ from pip's"; head -20 cmp.out >&2; }

# --- --link-mode: the wheels unpacked once in the cache, then hard-linked or reflinked ---
for mode in hardlink hardlink reflink; do
	venv vh
	expect_exit 0 "--link-mode $mode" wp install wh --link-mode "$mode" --python "$TMP/vh/bin/python"
	"$PYTHON" "$CHECK" compare vp vh >cmp.out && pass "--link-mode $mode: the same files as pip's" ||
		{ fail "--link-mode $mode differs from pip"; head -20 cmp.out >&2; }
	[ "$mode" = hardlink ] && { [ "$(stat -c %h vh/lib/python3*/site-packages/beta/lib/libbeta.so.1)" -ge 2 ] &&
		pass "hard-linked from the store" || fail "not a hard link"; }
	rm -rf vh
done
[ "$(ls "$WHEELPICK_CACHE_DIR/unpacked" | wc -l)" = 3 ] && pass "one store folder per wheel" || fail "store: $(ls "$WHEELPICK_CACHE_DIR/unpacked")"

# --- pip and importlib.metadata read the result ---
pip_in vw list --format=freeze >pl.out 2>&1
expect_grep "pip list sees alpha" "^alpha==1.0$" pl.out
expect_grep "pip list sees the variant wheel" "^gamma==1.0$" pl.out
pip_in vw check >pc.out 2>&1 && pass "pip check passes" || { fail "pip check"; cat pc.out >&2; }
pip_in vw show alpha >ps.out 2>&1
expect_grep "pip show names the requirement" "Requires: beta" ps.out
got=$(vw/bin/python -c 'import importlib.metadata as m; print(m.version("beta"), sorted(e.name for e in m.entry_points(group="console_scripts")))')
[ "$got" = "2.0 ['alpha', 'alpha-sub']" ] && pass "importlib.metadata: version and entry points" || fail "importlib.metadata: $got"
expect_exit 0 "list --installed" wp list --installed --python "$TMP/vw/bin/python"
expect_grep "with the installer and the variant" "gamma +1.0 +wheelpick +x8664_v1" out
expect_exit 0 "--python takes a venv folder too" wp list --installed --json --python "$TMP/vw"
expect_json out 'sorted(p["name"] for p in j)' "['alpha', 'beta', 'gamma']"
expect_json out '[p["picked_for"] for p in j]' "['this test', 'this test', 'this test']"
pip_in vw uninstall -q -y alpha beta gamma >pu.out 2>&1 && pass "pip uninstall works on wheelpick's result" || { fail "pip uninstall"; cat pu.out >&2; }
WP_SNAPSHOT_NO_TARGETS=1 "$PYTHON" "$CHECK" same vw fresh.json >/dev/null && pass "pip's uninstall leaves the fresh venv" ||
	fail "pip uninstall left files"
rm -f vw/lib/python3*/site-packages/.wheelpick-targets  # pip does not know wheelpick's note

# --- upgrade and downgrade replace by RECORD; wheelpick uninstall ---
expect_exit 0 "install again" wp install wh --python "$TMP/vw/bin/python"
"$PYTHON" "$CHECK" snapshot vw v1.json
pip_in vp install -q --no-compile --no-index --find-links wh2 --require-hashes -r wh2/requirements.txt
expect_exit 0 "upgrade" wp install wh2 --python "$TMP/vw/bin/python"
expect_grep "says what it replaced" "installed alpha 2.0 \(replacing 1.0\)" out
"$PYTHON" "$CHECK" compare vp vw >cmp.out && pass "the upgrade is pip's upgrade" || { fail "upgrade differs"; head -20 cmp.out >&2; }
"$PYTHON" "$CHECK" snapshot vw v2.json
expect_exit 0 "downgrade" wp install wh --python "$TMP/vw/bin/python"
"$PYTHON" "$CHECK" same vw v1.json >/dev/null && pass "the downgrade is the first install exactly" || fail "downgrade differs"
expect_exit 0 "uninstall by RECORD" wp uninstall alpha beta gamma --python "$TMP/vw/bin/python"
"$PYTHON" "$CHECK" same vw fresh.json >/dev/null && pass "uninstall leaves the fresh venv" || fail "uninstall left files"
expect_exit 1 "uninstall of what is not there" wp uninstall alpha --python "$TMP/vw/bin/python"

# pip's own install (byte-compiled: .pyc in its RECORD) removed by wheelpick
venv vp && "$PYTHON" "$CHECK" snapshot vp freshp.json
pip_in vp install -q --no-index --find-links wh --require-hashes -r wh/requirements.txt
expect_exit 0 "uninstall what pip installed" wp uninstall alpha beta gamma --python "$TMP/vp/bin/python"
"$PYTHON" "$CHECK" same vp freshp.json >/dev/null && find vp -name '*.pyc' | grep -q . && fail "pip's .pyc left" ||
	{ "$PYTHON" "$CHECK" same vp freshp.json >/dev/null && pass "pip's install removed, .pyc and all" || fail "files left"; }

# --- tampered wheels change nothing ---
expect_exit 0 "install v1" wp install wh --python "$TMP/vw/bin/python"
cp -r wh wht
"$PYTHON" - wht/alpha-1.0-py3-none-any.whl <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[200] ^= 1; open(p, "wb").write(b)
PY
expect_exit 4 "a wheel whose sha256 is not the pinned one: exit 4" wp install wht --python "$TMP/vw/bin/python"
expect_grep "names the file" "alpha-1.0-py3-none-any.whl' has sha256" err
# a member's bytes changed in a sound zip (its CRC made to match) and the requirement re-pinned:
# only RECORD tells, after every file is staged; the staged files go
"$PYTHON" - wht <<'PY'
import hashlib, re, sys, zipfile
d = sys.argv[1]; f = d + "/requirements.txt"; t = open(f).read()
w = d + "/alpha-1.0-py3-none-any.whl"
src = zipfile.ZipFile(d + "/../wh/alpha-1.0-py3-none-any.whl")
with zipfile.ZipFile(w, "w", zipfile.ZIP_DEFLATED) as out:
    for zi in src.infolist():
        data = src.read(zi)
        if zi.filename == "alpha/sub/mod.py":
            data = data.replace(b"return 3", b"return 4")
        out.writestr(zi, data)
h = hashlib.sha256(open(d + "/alpha-1.0-py3-none-any.whl", "rb").read()).hexdigest()
open(f, "w").write(re.sub(r"(alpha==1.0 \\\n    --hash=sha256:)[0-9a-f]+", r"\g<1>" + h, t))
PY
expect_exit 4 "a member that is not what RECORD says: exit 4" wp install wht --python "$TMP/vw/bin/python"
expect_grep "RECORD names the member" "alpha/sub/mod.py.*sha256 mismatch" err
"$PYTHON" "$CHECK" same vw v1.json >/dev/null && pass "the environment is unchanged, no temp left" || fail "a tampered install changed the environment"

# --- bundles, their volumes, -r with --find-links, refusals ---
mkdir bun && cp -r wh bun/torch-bundle && tar --zstd -cf b.tar.zst -C bun torch-bundle
split -b 20000 -d -a 3 --numeric-suffixes=1 b.tar.zst b.tar.zst.
venv vb
expect_exit 0 "install from bundle volumes" wp install b.tar.zst.001 --python "$TMP/vb/bin/python"
expect_grep "all three" "3 projects" out
venv vb
expect_exit 0 "install from a bundle" wp install b.tar.zst --python "$TMP/vb/bin/python"
venv vr
expect_exit 0 "-r with --find-links" wp install -r wh/requirements.txt --find-links wh --python "$TMP/vr/bin/python"
[ "$(vr/bin/python -c 'import alpha; print(alpha.VERSION)')" = "1.0" ] &&
	pass "-r install imports" || fail "-r install"
# a requirement file's --find-links as a file:// URL of a folder with a space, percent-encoded as pip
# writes it: the folder it names, not "DIR%20WITH%20SPACE" taken as a path
mkdir "wh url" && cp wh/*.whl "wh url/"
WHURL=$("$PYTHON" -c 'import pathlib, sys; print(pathlib.Path(sys.argv[1]).resolve().as_uri())' "wh url")
{ echo "--find-links $WHURL"; cat wh/requirements.txt; } >req-url.txt
expect_grep "the URL is percent-encoded" "^--find-links file:///.*wh%20url$" req-url.txt
venv vr
expect_exit 0 "-r whose --find-links is file:///DIR%20WITH%20SPACE" wp install -r req-url.txt \
	--python "$TMP/vr/bin/python"
expect_grep "all three from it" "3 projects" out
# a wheelhouse for several targets: the requirement file whose Python and platform are this interpreter's
PYV=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
cp -r wh whs && grep -A1 '^gamma' wh/requirements.txt >whs/requirements.txt
cp wh/requirements.txt "whs/requirements-cu124-py$PYV-manylinux_2_28_$(uname -m).txt"
grep -A1 '^gamma' wh/requirements.txt >"whs/requirements-cu118-py3.1-manylinux_2_28_$(uname -m).txt"
venv vt
expect_exit 0 "a multi-target wheelhouse" wp install whs --python "$TMP/vt/bin/python"
expect_grep "the file for this Python and platform" "installed alpha 1.0" out
cp wh/requirements.txt "whs/requirements-cu118-py$PYV-manylinux_2_28_$(uname -m).txt"
expect_exit 2 "two files for this interpreter: asks which" wp install whs --python "$TMP/vt/bin/python"
expect_grep "say which" "say which with -r" err
# PEP 668: Debian's own python3 is externally managed (checked where this machine has one; --dry-run)
if [ -x /usr/bin/python3 ] && ls /usr/lib/python3*/EXTERNALLY-MANAGED >/dev/null 2>&1; then
	expect_exit 2 "an externally managed interpreter is refused" wp install wh --dry-run --python /usr/bin/python3
	expect_grep "saying why and what to do" "externally managed \(PEP 668" err
	expect_exit 0 "unless --break-system-packages" wp install wh --dry-run --break-system-packages --python /usr/bin/python3
fi
venv vd
expect_exit 1 "a wheel whose Requires-Dist nothing meets is refused" wp install wh/alpha-1.0-py3-none-any.whl --python "$TMP/vd/bin/python"
expect_grep "naming the requirement" "requires 'beta', which is neither among the sources nor installed" err
expect_exit 0 "--no-deps installs it anyway" wp install wh/alpha-1.0-py3-none-any.whl --no-deps --python "$TMP/vd/bin/python"
expect_exit 2 "install by name (pip's habit) says how to get it" wp install torch --python "$TMP/vr/bin/python"
expect_grep "pick it, then install" "'wheelpick torch -d wh' picks and downloads it" err
mkdir other && cp wh/gamma-1.0-py3-none-any.whl "other/zeta-1.0-cp27-cp27mu-win_amd64.whl"
expect_exit 1 "a wheel for another machine is refused" wp install other/zeta-1.0-cp27-cp27mu-win_amd64.whl --python "$TMP/vr/bin/python"
expect_grep "with the reason" "not for this interpreter" err
venv vc && venv vq
pip_in vq install -q --no-index --find-links wh --require-hashes -r wh/requirements.txt
expect_exit 0 "--compile" wp install wh --compile --python "$TMP/vc/bin/python"
grep -h pyc vq/lib/python3*/site-packages/alpha-1.0.dist-info/RECORD | tr -d '\r' >pq.rows
grep -h pyc vc/lib/python3*/site-packages/alpha-1.0.dist-info/RECORD | tr -d '\r' >pc.rows
[ -s pq.rows ] && cmp -s pq.rows pc.rows && pass "--compile lists the .pyc as pip does" || { fail ".pyc rows differ"; diff pq.rows pc.rows >&2; }

# --- --prefix and --target as pip lays them out, and nothing outside them ---
for m in prefix target; do
	"$PYTHON" -m pip install -q --no-compile --no-index --find-links wh --require-hashes -r wh/requirements.txt \
		--"$m" "$TMP/p_$m" >/dev/null 2>&1
	expect_exit 0 "--$m" wp install wh --"$m" "$TMP/w_$m" --python "$PYTHON"
	"$PYTHON" - "$TMP/p_$m" "$TMP/w_$m" >tree.out <<'PY'
import os, sys
def tree(r):
    out = {}
    for d, ds, fs in os.walk(r):
        ds[:] = [x for x in ds if x != "__pycache__"]
        for f in fs:
            if f == ".wheelpick-targets":
                continue
            p = os.path.join(d, f)
            out[os.path.relpath(p, r)] = b"" if f in ("INSTALLER", "RECORD") else open(p, "rb").read()
    return out
a, b = tree(sys.argv[1]), tree(sys.argv[2])
print("same" if a == b else "differ: %s" % sorted(set(a) ^ set(b) or [k for k in a if a[k] != b.get(k)]))
PY
	expect_grep "--$m: pip's files, pip's bytes" "^same$" tree.out
done
expect_no_file "no header written into the interpreter's own include folder" \
	"$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/alpha"

# --- a PEP 751 lock as the source (index/pylock.c selects, as packaging's Pylock.select) ---
cp -r wh whp && rm whp/requirements.txt
"$PYTHON" - whp <<'PY'
import hashlib, os, sys
d = sys.argv[1]
out = ['lock-version = "1.0"', 'created-by = "t-install"', '']
for fn in sorted(f for f in os.listdir(d) if f.endswith(".whl") and f != "gamma-1.0-py3-none-any.whl"):
    data = open(os.path.join(d, fn), "rb").read()
    out += ['[[packages]]', 'name = "%s"' % fn.split("-")[0], 'version = "%s"' % fn.split("-")[1], '',
            '[[packages.wheels]]', 'name = "%s"' % fn, 'path = "%s"' % fn, 'size = %d' % len(data),
            'hashes = {sha256 = "%s"}' % hashlib.sha256(data).hexdigest(), '']
open(os.path.join(d, "pylock.toml"), "w").write("\n".join(out))
PY
venv vp && venv vl
pip_in vp install -q --no-compile --no-index --find-links wh --require-hashes -r wh/requirements.txt
expect_exit 0 "install from pylock.toml" wp install whp/pylock.toml --python "$TMP/vl/bin/python"
"$PYTHON" "$CHECK" compare vp vl >cmp.out && pass "the lock's wheels, as pip installs them" || { fail "pylock install differs"; head -20 cmp.out >&2; }
venv vl
expect_exit 0 "a folder with pylock.toml and no requirement file" wp install whp --python "$TMP/vl/bin/python"
# the lock's wheels by percent-encoded file:// URL, in a folder with a space, the lock elsewhere (so
# no wheel lies beside it to be found by name): install and verify read the folder the URL names
mkdir "whp url" lku && cp whp/*.whl "whp url/"
"$PYTHON" - whp/pylock.toml "whp url" lku/pylock.toml <<'PY'
import pathlib, re, sys
base = pathlib.Path(sys.argv[2]).resolve().as_uri()
text = re.sub(r'path = "([^"]+)"', lambda m: 'url = "%s/%s"' % (base, m.group(1)), open(sys.argv[1]).read())
open(sys.argv[3], "w").write(text)
PY
expect_grep "a wheel by percent-encoded URL" '^url = "file:///.*whp%20url/.*\.whl"$' lku/pylock.toml
venv vl
expect_exit 0 "install from a lock whose file:// URLs are percent-encoded" wp install lku/pylock.toml \
	--python "$TMP/vl/bin/python"
expect_exit 0 "verify checks the wheels those URLs name" wp verify lku/pylock.toml
expect_grep "each of them" "checked [1-9][0-9]* files, [1-9][0-9]* wheels.*: 0 problems" out
sed -i '0,/sha256 = "[0-9a-f]/s//sha256 = "0/' whp/pylock.toml
venv vl
expect_exit 4 "a wheel the lock does not pin: exit 4" wp install whp/pylock.toml --python "$TMP/vl/bin/python"
[ -z "$(ls vl/lib/python3*/site-packages)" ] &&
	pass "nothing written" || fail "the refused lock wrote files"
printf 'lock-version = "1.0"\ncreated-by = "t"\n\n[[packages]]\nname = "src"\nversion = "1.0"\n\n[packages.sdist]\nname = "src-1.0.tar.gz"\npath = "src-1.0.tar.gz"\nhashes = {sha256 = "%s"}\n' \
	"$(printf '%064d' 0)" >whp/pylock.sdist.toml
expect_exit 1 "an sdist in the lock is refused by name" wp install whp/pylock.sdist.toml --python "$TMP/vl/bin/python"
expect_grep "saying wheelpick builds nothing, naming it" "it builds nothing: src 1.0 \(sdist 'src-1.0.tar.gz'\)" err

# --- a bundle's install.sh: wheelpick install when a wheelpick is on PATH, pip otherwise ---
make_sample
expect_exit 0 "a bundle to take install.sh from" wp bundle "$TMP/s.tar.zst" torch==1.8.0 --cuda 11.2 --python 3.8 \
	--platform linux_x86_64 --index "$FINDLINKS"
mkdir sb && tar -C sb --zstd -xf s.tar.zst && cp sb/*/install.sh bun/torch-bundle/
venv vs
PATH="$(dirname "$WHEELPICK"):$PATH" PYTHON="$TMP/vs/bin/python" sh bun/torch-bundle/install.sh >is.out 2>&1 &&
	pass "install.sh with wheelpick on PATH" || { fail "install.sh (wheelpick)"; cat is.out >&2; }
expect_grep "says it used wheelpick" "installing with .*/wheelpick" is.out
expect_grep "and wheelpick installed" "3 projects" is.out
WHEELPICK_USE_PIP=1 PYTHON="$PYTHON" sh bun/torch-bundle/install.sh -q --target "$TMP/pt" >is.out 2>&1 &&
	pass "install.sh with pip" || { fail "install.sh (pip)"; cat is.out >&2; }
expect_grep "says it used pip" "installing with pip" is.out
[ "$(PYTHONPATH="$TMP/pt" "$PYTHON" -c 'import alpha, gamma; print(gamma.LABEL)')" = "x8664_v1" ] && pass "pip's install imports" ||
	fail "pip's install"

# --- kill -9 at random moments: the old environment or the new one ---
venv vk
wp install wh --python "$TMP/vk/bin/python" -q && "$PYTHON" "$CHECK" snapshot vk k1.json
t0=$(date +%s%N)
wp install wh2 --python "$TMP/vk/bin/python" -q && "$PYTHON" "$CHECK" snapshot vk k2.json
span=$(( ($(date +%s%N) - t0) / 1000000 + 50 ))   # ms one upgrade takes here: the kills land within it
wp install wh --python "$TMP/vk/bin/python" -q
mixed=0 old=0 new=0 undone=0 finished=0
for i in $(seq 1 10); do
	"$WHEELPICK" install wh2 --python "$TMP/vk/bin/python" -q >/dev/null 2>&1 &
	pid=$!
	ms=$(( RANDOM * span / 32768 ))
	sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	wp list --installed --python "$TMP/vk/bin/python" >/dev/null 2>rec.err
	grep -q "removed what an interrupted run had staged" rec.err && undone=$((undone + 1))
	grep -q "finished the change" rec.err && finished=$((finished + 1))
	case $("$PYTHON" "$CHECK" same vk k1.json k2.json) in
	k1.json) old=$((old + 1)) ;;
	k2.json) new=$((new + 1)); wp install wh --python "$TMP/vk/bin/python" -q ;;
	*) mixed=$((mixed + 1)); "$PYTHON" "$CHECK" same vk k1.json k2.json >&2 ;;
	esac
done
[ "$mixed" = 0 ] && pass "10 kills: $old left the old environment ($undone undone from staging), $new the new one ($finished finished from the journal), none a mix" ||
	fail "$mixed of 10 kills left a mixed environment"
ls vk/lib/python3*/site-packages/.wheelpick-*journal* >/dev/null 2>&1 && fail "a journal was left" || pass "no journal left"

done_testing
