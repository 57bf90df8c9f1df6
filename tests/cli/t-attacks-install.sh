#!/usr/bin/env bash
# tests/cli/t-attacks-install.sh: the attack matrix, part 8 (issue 36): the install surface. Wheels
# that name the installer's own files, journals planted in an environment, RECORDs on disk that
# lead through symlinks or out of --target, bundles with tar links and bombs, and the small items.
# Nothing may be written or deleted outside the environment, and a refusal comes before any write.
#   WHEELPICK=build/wheelpick bash tests/cli/t-attacks-install.sh
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attacks-lib.sh"
AI="$ROOT/tests/cli/attacks_install.py"
cd "$TMP" || exit 1
venv() { rm -rf "$1" && "$PYTHON" -m venv --without-pip "$1"; SP=$(echo "$TMP/$1"/lib/python3*/site-packages); }
# mkw DIR NAME VERSION [attacks_install.py wheel options]: sets WF (the wheel's path)
mkw() {
	local d=$1 fn
	shift
	fn=$("$PYTHON" "$AI" wheel "$d" "$@") || { fail "cannot make wheel $2"; return 1; }
	WF="$d/$fn"
}
# snapshot of a tree (paths, types, sizes, link targets), to prove nothing changed
snap() { (cd "$1" && find . -printf '%p %y %s %l\n' | LC_ALL=C sort); }
# the environment holds nothing of ours half-done: no journal, no temp, and a later sound install works
env_sound() {
	local v=$1 sp
	sp=$(echo "$TMP/$v"/lib/python3*/site-packages)
	expect_eq "$2: no journal or temp left" \
		"$(find "$TMP/$v" \( -name '.wheelpick-*journal*' -o -name '.wp-*.tmp' -o -name '*.tmp.*' \) | wc -l)" 0
	expect_exit 0 "$2: a later install works (not stuck)" wp install "$TMP/sound/ok_pkg-1.0-py3-none-any.whl" --python "$TMP/$v/bin/python"
	[ -f "$sp/ok_pkg/__init__.py" ] && pass "$2: the sound wheel is there" || fail "$2: the sound wheel is missing"
}
mkw sound ok-pkg 1.0
PY=$("$PYTHON" -c 'import sys; print("python%d.%d" % sys.version_info[:2])')

# --- 1. no member lands on a name the installer keeps for itself ----------------------------
attack "a wheel member named like the installer's journal, targets file or temps is refused (exit 4), at any depth or scheme"
i=0
for m in .wheelpick-commit.journal .wheelpick-staging.journal .wheelpick-targets \
	.wheelpick-commit.journal.tmp.77 .wheelpick-targets.tmp.1 evil/.wp-1-0-0.tmp \
	evil-1.0.data/purelib/.wheelpick-commit.journal evil-1.0.data/platlib/.wheelpick-targets \
	"evil-1.0.data/data/lib/$PY/site-packages/.wheelpick-commit.journal" evil/.wheelpick-commit.journal/x; do
	i=$((i + 1))
	venv v1
	before=$(snap "$TMP/v1")
	rm -rf w1 && mkw w1 evil 1.0 --file "$m" "$(printf 'wheelpick journal 1\nU/etc/passwd')"
	expect_exit 4 "member '$m'" wp install "$WF" --python "$TMP/v1/bin/python"
	expect_grep "member '$m': said why" "keeps for itself" err
	expect_eq "member '$m': the environment is unchanged" "$(snap "$TMP/v1")" "$before"
done
venv v1
expect_exit 4 "under --target too" wp install "$WF" --target "$TMP/tgt1" --python "$TMP/v1/bin/python"
expect_no_file "nothing of the wheel under --target" "$TMP/tgt1/evil"
rm -rf w1 && mkw w1 evil 1.0 --file .wheelpick-commit.journal "$(printf 'wheelpick journal 1\nU/x')"
expect_exit 4 "under --prefix too" wp install "$WF" --prefix "$TMP/pfx1" --python "$TMP/v1/bin/python"
env_sound v1 "after the refusals"

attack "a console script named like the installer's files, or holding ESC, CR or another control byte, is refused (exit 4)"
venv v1b
for n in .wheelpick-targets $'ev\x1b[2Jil' $'ev\ril' $'a\x01b' $'tab\there'; do
	rm -rf w1b && mkw w1b evil 1.0 --console "$n" "evil:main"
	expect_exit 4 "script name $(printf '%q' "$n")" wp install "$WF" --python "$TMP/v1b/bin/python"
	one_line "one line" "$TMP/err"
	expect_grep "names the entry point" "entry point named" err
	expect_no_grep "no raw escape byte in the message" $'\x1b' err
done
expect_eq "no launcher was written" "$(ls "$TMP/v1b/bin" | grep -c ev)" 0

attack "a wheel that plants another project's .dist-info (directly or through .data) is refused (exit 4)"
venv v1c
for m in victim-1.0.dist-info/RECORD evil-1.0.data/purelib/victim-1.0.dist-info/RECORD \
	"evil-1.0.data/data/lib/$PY/site-packages/victim-2.0.dist-info/RECORD" evil-1.0.data/purelib/evil-1.0.dist-info/RECORD; do
	rm -rf w1c && mkw w1c evil 1.0 --file "$m" "../../../../precious3.txt,,"
	expect_exit 4 "member '$m'" wp install "$WF" --python "$TMP/v1c/bin/python"
	expect_grep "said why" "another project's .dist-info|keeps for itself|more than one .dist-info" err
done
expect_eq "no dist-info planted" "$(ls "$(echo "$TMP"/v1c/lib/python3*/site-packages)" | grep -c dist-info)" 0

attack "a planted commit or staging journal naming paths outside the environment is refused; nothing deleted or moved"
for kind in commit staging; do
	for case in abs-unlink rename-out rename-from-file dotdot rmdir-out; do
		venv v2
		echo precious >"$TMP/victim"
		mkdir -p "$TMP/vdir"
		echo shipped >"$SP/shipped.py"
		rm -f "$SP"/.wheelpick-*.journal
		case $case in
		abs-unlink) args=(U "$TMP/victim") ;;
		rename-out) args=(R "$SP/.wp-1-0-0.tmp" "$TMP/victim") ;;
		rename-from-file) args=(R "$SP/shipped.py" "$SP/../../../bin/evil") ;;
		dotdot) args=(U "$SP/../../../../victim") ;;
		rmdir-out) args=(D "$TMP/vdir") ;;
		esac
		[ "$kind" = staging ] && [ "$case" = abs-unlink ] && args=(R "$TMP/victim" "$SP/x")
		[ "$kind" = staging ] && [ "$case" = rmdir-out ] && args=(M "$TMP/vdir")
		"$PYTHON" "$AI" journal "$SP/.wheelpick-$kind.journal" "$kind" "${args[@]}"
		expect_exit 4 "$kind journal, $case: refused" wp list --installed --python "$TMP/v2/bin/python"
		expect_grep "$kind journal, $case: says it is not ours" "not written by wheelpick" err
		expect_eq "$kind journal, $case: the victim is there" "$(cat "$TMP/victim" 2>&1)" precious
		expect_file "$kind journal, $case: the folder outside is there" "$TMP/vdir"
		expect_eq "$kind journal, $case: the shipped file did not move" "$(cat "$SP/shipped.py" 2>&1)" shipped
		expect_file "$kind journal, $case: the journal is left for a person to read" "$SP/.wheelpick-$kind.journal"
	done
done

attack "a file 'zz/b' and a folder 'zz/b/' in one wheel, or across two wheels of one install, are refused before anything is written"
venv v3
before=$(snap "$TMP/v3")
rm -rf w3 && mkw w3 evil 1.0 --file zz/b "file" --file zz/b/c "in the folder"
expect_exit 4 "one wheel" wp install "$WF" --python "$TMP/v3/bin/python"
expect_grep "says which paths" "zz/b.*zz/b/c" err
expect_eq "one wheel: nothing written" "$(snap "$TMP/v3")" "$before"
rm -rf w3 && mkw w3 evil 1.0 --file evil-1.0.data/purelib/zz/q "file" --file zz/q/deep/c "in the folder"
expect_exit 4 "one wheel, one side through .data/purelib" wp install "$WF" --python "$TMP/v3/bin/python"
expect_eq "through .data: nothing written" "$(snap "$TMP/v3")" "$before"
rm -rf w3 && mkdir w3 && mkw w3 one 1.0 --file zz/b "file" && mkw w3 two 1.0 --file zz/b/c "in the folder"
"$PYTHON" "$AI" wheelhouse w3 one-1.0-py3-none-any.whl two-1.0-py3-none-any.whl
expect_exit 4 "two wheels of one install" wp install w3 --python "$TMP/v3/bin/python"
expect_eq "two wheels: nothing written" "$(snap "$TMP/v3")" "$before"
expect_exit 4 "--dry-run says so too" wp install w3 --dry-run --python "$TMP/v3/bin/python"
env_sound v3 "after the collisions"
venv v3b
echo "a file" >"$SP/zz"
rm -rf w3 && mkw w3 evil 1.0 --file zz/q "under a file on disk"
expect_exit 2 "a file on disk where the wheel needs a folder: refused" wp install "$WF" --python "$TMP/v3b/bin/python"
expect_grep "names it" "zz' is a file" err
env_sound v3b "after the file on disk"

# --- 2. uninstall and upgrade never delete through symlinks -----------------------------------
attack "uninstall: a RECORD row under a folder that is a symlink out of the environment is not removed"
venv v4
mkdir -p "$HOME/src/mylib/deep" "$TMP/outside-di"
echo mine >"$HOME/src/mylib/core.py" && echo mine >"$HOME/src/mylib/deep/x.py"
ln -s "$HOME/src/mylib" "$SP/mylib"
"$PYTHON" "$AI" record "$SP/mylib-1.0.dist-info" "mylib/core.py" "mylib/deep/x.py" "mylib-1.0.dist-info/METADATA" "mylib-1.0.dist-info/RECORD"
expect_exit 0 "uninstall mylib" wp uninstall mylib --python "$TMP/v4/bin/python"
expect_eq "the linked source file is kept" "$(cat "$HOME/src/mylib/core.py" 2>&1)" mine
expect_eq "and the one deeper down" "$(cat "$HOME/src/mylib/deep/x.py" 2>&1)" mine
expect_no_file "the dist-info is gone" "$SP/mylib-1.0.dist-info"
# a link deeper in: pkg/sub -> outside
mkdir -p "$SP/pkg" "$TMP/outside2" && echo mine >"$TMP/outside2/f.py" && echo ours >"$SP/pkg/own.py"
ln -s "$TMP/outside2" "$SP/pkg/sub"
"$PYTHON" "$AI" record "$SP/pkg-1.0.dist-info" "pkg/own.py" "pkg/sub/f.py" "pkg-1.0.dist-info/RECORD"
expect_exit 0 "uninstall pkg" wp uninstall pkg --python "$TMP/v4/bin/python"
expect_eq "a file behind a deeper link is kept" "$(cat "$TMP/outside2/f.py" 2>&1)" mine
expect_no_file "the package's own file went" "$SP/pkg/own.py"
# the .dist-info folder itself a link
echo keep >"$TMP/outside-di/precious.txt"
"$PYTHON" "$AI" record "$TMP/outside-di/linked-1.0.dist-info" "linked-1.0.dist-info/precious.txt" "linked-1.0.dist-info/METADATA" "linked-1.0.dist-info/RECORD"
ln -s "$TMP/outside-di/linked-1.0.dist-info" "$SP/linked-1.0.dist-info"
echo keep >"$TMP/outside-di/linked-1.0.dist-info/precious.txt"
expect_exit 0 "uninstall a project whose .dist-info is a link" wp uninstall linked --python "$TMP/v4/bin/python"
expect_eq "the files behind the linked .dist-info are kept" "$(ls "$TMP/outside-di/linked-1.0.dist-info" | tr '\n' ' ')" "METADATA RECORD precious.txt "
# rows outside by text, and rows naming the installer's own files
echo precious >"$TMP/victim"
echo "t	x" >"$SP/.wheelpick-targets"
"$PYTHON" "$AI" record "$SP/abs-1.0.dist-info" "$TMP/victim" "../../../../victim" ".wheelpick-targets" "abs-1.0.dist-info/RECORD"
expect_exit 0 "uninstall a RECORD with absolute and climbing rows" wp uninstall abs --python "$TMP/v4/bin/python"
expect_eq "the absolute row's file outside is kept" "$(cat "$TMP/victim" 2>&1)" precious
expect_file "the targets file is the installer's, not the RECORD's" "$SP/.wheelpick-targets"

attack "upgrade: the old version's removal does not delete through symlinks either"
venv v5
mkdir -p "$HOME/src2/up" && echo mine >"$HOME/src2/up/core.py"
ln -s "$HOME/src2/up" "$SP/uplink"
"$PYTHON" "$AI" record "$SP/up-1.0.dist-info" "uplink/core.py" "up-1.0.dist-info/METADATA" "up-1.0.dist-info/RECORD"
rm -rf w5 && mkw w5 up 2.0 --file "newdir/n.py" "x = 2"
expect_exit 0 "upgrade up 1.0 -> 2.0" wp install "$WF" --python "$TMP/v5/bin/python"
expect_eq "the file behind the link is kept" "$(cat "$HOME/src2/up/core.py" 2>&1)" mine
expect_no_file "the old dist-info went" "$SP/up-1.0.dist-info"
expect_file "the new one is in" "$SP/up-2.0.dist-info/RECORD"

attack "a wheel writing through a folder that is a symlink out of the environment is refused (exit 2)"
venv v5b
mkdir -p "$TMP/outside3" && ln -s "$TMP/outside3" "$SP/wl"
rm -rf w5b && mkw w5b wl 1.0 --file wl/x.py "x = 1"
expect_exit 2 "refused" wp install "$WF" --python "$TMP/v5b/bin/python"
expect_eq "nothing written behind the link" "$(ls "$TMP/outside3" | wc -l)" 0
mkdir -p "$SP/deep/er" && ln -s "$TMP/outside3" "$SP/deep/er/l"
rm -rf w5b && mkw w5b wl 1.0 --file deep/er/l/sub/x.py "x = 1"
expect_exit 2 "a link deeper down: refused" wp install "$WF" --python "$TMP/v5b/bin/python"
expect_eq "nothing written behind it" "$(find "$TMP/outside3" | wc -l)" 1
mkdir -p "$SP/realdir" && ln -s realdir "$SP/inlink"
rm -rf w5b && mkw w5b wl 1.0 --file inlink/x.py "x = 1"
expect_exit 2 "a link that stays inside: refused too (the commit follows no link)" wp install "$WF" --python "$TMP/v5b/bin/python"
env_sound v5b "after the links"
for mode in hardlink reflink; do
	venv v5c
	rm -rf "$TMP/outside4" && mkdir -p "$TMP/outside4" && ln -s "$TMP/outside4" "$SP/wl"
	rm -rf w5c && mkw w5c wl 1.0 --file wl/x.py "x = 1"
	expect_exit 2 "--link-mode $mode through a symlinked folder: refused" \
		wp install "$WF" --link-mode "$mode" --python "$TMP/v5c/bin/python"
	expect_eq "--link-mode $mode: no link or clone behind the symlink" "$(find "$TMP/outside4" | wc -l)" 1
	env_sound v5c "--link-mode $mode after the link"
done

# --- 3. --target / --prefix removals stay under DIR ------------------------------------------
attack "--target DIR / --prefix DIR: uninstall and upgrade only remove files under DIR"
for scheme in target prefix; do
	venv v6
	echo cfg >"$TMP/v6/keep-me.txt"
	echo precious >"$TMP/victim"
	expect_exit 0 "--$scheme: install" wp install "$TMP/sound/ok_pkg-1.0-py3-none-any.whl" --$scheme "$TMP/d-$scheme" --python "$TMP/v6/bin/python"
	rec=$(echo "$TMP/d-$scheme"/ok_pkg-1.0.dist-info/RECORD "$TMP/d-$scheme"/lib/python3*/site-packages/ok_pkg-1.0.dist-info/RECORD)
	rec=$(for r in $rec; do [ -f "$r" ] && echo "$r"; done)
	printf '%s,,\n%s,,\n../../../../../../../../%s,,\n' "$TMP/v6/keep-me.txt" "$TMP/v6/bin/python" "$TMP/victim" >>"$rec"
	expect_exit 0 "--$scheme: uninstall" wp uninstall ok-pkg --$scheme "$TMP/d-$scheme" --python "$TMP/v6/bin/python"
	expect_eq "--$scheme: a file of the interpreter's venv named by absolute path is kept" "$(cat "$TMP/v6/keep-me.txt" 2>&1)" cfg
	[ -e "$TMP/v6/bin/python" ] && pass "--$scheme: the venv's python is kept" || fail "--$scheme: the venv's python was deleted"
	expect_eq "--$scheme: a climbing row's file is kept" "$(cat "$TMP/victim" 2>&1)" precious
	expect_eq "--$scheme: the package is gone from DIR" "$(find "$TMP/d-$scheme" -name '__init__.py' | wc -l)" 0
done

# --- 4. bundles: no tar links, a ceiling on what they unpack --------------------------------
attack "a bundle whose member is a tar hard link (absolute or relative) carrying data is refused on install and verify; the target is untouched"
mkdir -p work && echo precious >"$TMP/victim" && echo local >work/victim.txt
cp sound/ok_pkg-1.0-py3-none-any.whl .
"$PYTHON" "$AI" wheelhouse sound ok_pkg-1.0-py3-none-any.whl
req=$(cat sound/requirements.txt)
whl=$(base64 -w0 sound/ok_pkg-1.0-py3-none-any.whl)
for link in "$TMP/victim" victim.txt ../victim.txt wh/requirements.txt; do
	for gz in "" --gz; do
		b="$TMP/hl$gz.tar"
		"$PYTHON" "$AI" bundle "$b" wh --hardlink wh/requirements.txt "$link" "OVERWRITTEN" $gz
		venv v7
		cd work || exit 1
		expect_exit 4 "install, hard link to '$link'${gz:+ (gzip)}" wp install "$b" --python "$TMP/v7/bin/python"
		expect_grep "names the member and why" "wh/requirements.txt' is a hard link" "$TMP/err"
		expect_exit 4 "verify, hard link to '$link'" wp verify "$b"
		cd "$TMP" || exit 1
		expect_grep "verify names it" "hard link" err
		expect_eq "the absolute target is untouched" "$(cat "$TMP/victim")" precious
		expect_eq "a file of the working folder is untouched" "$(cat work/victim.txt)" local
	done
done

attack "a bundle holding a symlink member is refused on install and verify"
for link in /etc "$TMP" ../..; do
	"$PYTHON" "$AI" bundle "$TMP/sl.tar" wh --symlink wh/out "$link" --file wh/out/x "written through"
	venv v7
	expect_exit 4 "install, symlink to '$link'" wp install "$TMP/sl.tar" --python "$TMP/v7/bin/python"
	expect_grep "says symlink" "is a symlink" err
	expect_exit 4 "verify, symlink to '$link'" wp verify "$TMP/sl.tar"
done
expect_no_file "nothing written through it" "$TMP/x"

attack "a bundle that unpacks to more than 500 times its size (or declares it) stops early, on install and verify"
"$PYTHON" "$AI" bundle "$TMP/bomb.tar.gz" wh --file wh/requirements.txt "$req" --zeros wh/zeros.bin 60000000 --gz
sz=$(stat -c %s "$TMP/bomb.tar.gz")
[ "$sz" -lt 200000 ] && pass "the bomb is small ($sz bytes)" || fail "the bomb is $sz bytes"
mkdir -p "$TMP/tmpb"
venv v8
TMPDIR="$TMP/tmpb" expect_exit 4 "install refuses the bomb" wp install "$TMP/bomb.tar.gz" --python "$TMP/v8/bin/python"
expect_grep "saying why" "more than 500 times" err
TMPDIR="$TMP/tmpb" expect_exit 4 "verify refuses the bomb" wp verify "$TMP/bomb.tar.gz"
expect_grep "verify says why" "more than 500 times" err
expect_eq "nothing left in TMPDIR" "$(find "$TMP/tmpb" -type f | wc -l)" 0
# a member declaring far more than its bundle could hold, cut short: refused at its header
"$PYTHON" - "$TMP/decl.tar" <<'PY'
import io, sys, tarfile
b = io.BytesIO()
with tarfile.open(fileobj=b, mode="w", format=tarfile.PAX_FORMAT) as t:
    d = tarfile.TarInfo("wh"); d.type = tarfile.DIRTYPE; t.addfile(d)
    ti = tarfile.TarInfo("wh/huge.bin"); ti.size = 1 << 40
    t.fileobj.write(ti.tobuf(tarfile.PAX_FORMAT))
    t.fileobj.write(bytes(4096))
open(sys.argv[1], "wb").write(b.getvalue()[:20000])
PY
expect_exit 4 "a member declaring 1 TiB: install" wp install "$TMP/decl.tar" --python "$TMP/v8/bin/python"
expect_grep "said at its header" "would unpack more than" err

# --- 5. the message of a member that cannot be written (was a use-after-free) ----------------
attack "a bundle member that cannot be written: the message names it (no use-after-free under ASan)"
for pair in "wh/a wh/a/b" "wh/f wh/f/g/h"; do
	set -- $pair
	"$PYTHON" "$AI" bundle "$TMP/uaf.tar" wh --file "$1" "file" --file "$2" "under a file"
	venv v9
	expect_exit 3 "install '$2'" wp install "$TMP/uaf.tar" --python "$TMP/v9/bin/python"
	expect_grep "names '$2'" "cannot unpack '$2'" err
	expect_no_grep "no sanitizer report" "AddressSanitizer|runtime error" err
done

# --- 6. the medium and low items --------------------------------------------------------------
attack "uninstall of a RECORD with 100,000 rows in distinct folders finishes (was quadratic)"
venv v10
"$PYTHON" "$AI" bigrecord "$SP/big-1.0.dist-info" 100000
timeout 120 "$WHEELPICK" uninstall big --python "$TMP/v10/bin/python" >"$TMP/out" 2>"$TMP/err"
expect_eq "exit 0 within the generous bound" "$?" 0
expect_no_file "removed" "$SP/big-1.0.dist-info"

attack "uninstall from an externally managed interpreter (PEP 668) is refused like install; --break-system-packages overrides"
if [ -x /usr/bin/python3 ] && ls /usr/lib/python3*/EXTERNALLY-MANAGED >/dev/null 2>&1; then
	expect_exit 2 "refused" wp uninstall wheelpick-no-such-project --python /usr/bin/python3
	expect_grep "saying why" "externally managed \(PEP 668" err
	expect_exit 1 "--break-system-packages: on to 'not installed'" wp uninstall wheelpick-no-such-project --break-system-packages --python /usr/bin/python3
else
	pass "no externally managed python3 on this machine (skipped)"
fi

attack "one script path from three sources (.data/scripts, console_scripts, gui_scripts) is listed once in RECORD"
venv v11
rm -rf w11 && mkw w11 tri 1.0 --file tri-1.0.data/scripts/tri $'#!python\nprint(1)\n' --console tri tri:main --gui tri tri:main --console tri2 tri:main
expect_exit 0 "install" wp install "$WF" --python "$TMP/v11/bin/python"
expect_eq "bin/tri once" "$(grep -c '^\.\./\.\./\.\./bin/tri,' "$SP/tri-1.0.dist-info/RECORD")" 1
expect_eq "bin/tri2 once" "$(grep -c '^\.\./\.\./\.\./bin/tri2,' "$SP/tri-1.0.dist-info/RECORD")" 1
expect_grep "the launcher won (as pip: written last)" "from tri import main" "$TMP/v11/bin/tri"

attack "a second install of the same wheelhouse writes nothing (already satisfied); --force-reinstall writes it again; a changed file is not 'the same'"
venv v12
rm -rf w12 && mkdir w12 && mkw w12 same-a 1.0 --file same_a/data.txt "a" && mkw w12 same-b 2.0 --console sb same_b:main --file same_b-2.0.data/scripts/sbtool $'#!python\nprint(2)\n'
"$PYTHON" "$AI" wheelhouse w12 same_a-1.0-py3-none-any.whl same_b-2.0-py3-none-any.whl
expect_exit 0 "first install" wp install w12 --python "$TMP/v12/bin/python"
expect_grep "installed both" "^2 projects" out
ino=$(stat -c %i "$SP/same_a/data.txt")
expect_exit 0 "second install" wp install w12 --python "$TMP/v12/bin/python"
expect_grep "says so, per project" "already satisfied: same-a 1.0" out
expect_grep "and for the other" "already satisfied: same-b 2.0" out
expect_grep "nothing written" "^0 projects, 0 files" out
expect_eq "the file was not rewritten (same inode)" "$(stat -c %i "$SP/same_a/data.txt")" "$ino"
expect_exit 0 "--force-reinstall" wp install w12 --force-reinstall --python "$TMP/v12/bin/python"
expect_grep "writes both again" "^2 projects" out
[ "$(stat -c %i "$SP/same_a/data.txt")" != "$ino" ] && pass "rewritten" || fail "--force-reinstall did not rewrite"
echo changed >"$SP/same_a/data.txt" # a RECORD that still says 'a': only its files can tell, so a missing file counts
rm -f "$SP/same_b/__init__.py"
expect_exit 0 "a file gone: installed again" wp install w12 --python "$TMP/v12/bin/python"
expect_grep "same-b written again" "^installed same-b 2.0" out
expect_file "the file is back" "$SP/same_b/__init__.py"
# the installed RECORD's hash differs from the wheel's: not the same build
sed -i 's|^same_a/data.txt,sha256=[^,]*|same_a/data.txt,sha256=AAAA|' "$SP/same_a-1.0.dist-info/RECORD"
expect_exit 0 "another hash in RECORD: installed again" wp install w12 --python "$TMP/v12/bin/python"
expect_grep "same-a written again" "^installed same-a 1.0" out

attack "list --installed shows a PyTorch-style local label as the variant (2.5.1+cu121: cu121)"
venv v13
rm -rf w13 && mkdir w13
for v in 2.5.1+cu121 0.20.1+cpu 2.4.0+rocm6.1 1.0+ubuntu.1; do
	n=p$(echo "$v" | tr -dc 'a-z0-9' | head -c 8)
	mkw w13 "$n" "$v"
	wp install "$WF" --python "$TMP/v13/bin/python" >/dev/null 2>&1 || fail "install $v"
done
expect_exit 0 "list --installed" wp list --installed --python "$TMP/v13/bin/python"
expect_grep "cu121" "^p251cu121 +2\.5\.1\+cu121 +wheelpick +cu121 " out
expect_grep "cpu" "^p0201cpu +0\.20\.1\+cpu +wheelpick +cpu " out
expect_grep "rocm6.1" "\+rocm6\.1 +wheelpick +rocm6\.1 " out
expect_grep "a plain local label is no variant" "\+ubuntu\.1 +wheelpick +- " out
expect_exit 0 "--json" wp list --installed --json --python "$TMP/v13/bin/python"
expect_json "$TMP/out" '[x["variant"] for x in j if x["version"]=="2.5.1+cu121"][0]' cu121

attack "an install killed at any step leaves no .dist-info that pip or importlib would list half-made; the next run cleans it"
KILLAT="$TMP/killat.so"
${CC:-cc} -shared -fPIC -O1 -o "$KILLAT" "$ROOT/tests/cli/killat.c" -ldl || fail "cannot build killat.so"
KILL_ENV=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "LD_PRELOAD=$KILLAT")
rm -rf w14 && mkdir w14 && mkw w14 kone 1.0 --file kone/a.txt a --console kone kone:main && mkw w14 ktwo 2.0 --file ktwo-2.0.dist-info/licenses/LICENSE "MIT"
"$PYTHON" "$AI" wheelhouse w14 kone-1.0-py3-none-any.whl ktwo-2.0-py3-none-any.whl
venv v14
WP_KILL_UNDER="$TMP/v14" WP_KILL_COUNT="$TMP/count" "${KILL_ENV[@]}" "$WHEELPICK" install w14 --python "$TMP/v14/bin/python" >/dev/null 2>&1
n=$(cat "$TMP/count" 2>/dev/null || echo 0)
[ "$n" -gt 5 ] && pass "the count run made $n changes" || fail "the count run made $n changes"
bad=0
for i in $(seq 1 "$n"); do
	venv v14
	(WP_KILL_UNDER="$TMP/v14" WP_KILL_AT=$i exec "${KILL_ENV[@]}" "$WHEELPICK" install w14 --python "$TMP/v14/bin/python" >/dev/null 2>&1) 2>/dev/null
	half=$("$TMP/v14/bin/python" - <<'PY'
import importlib.metadata as m, os, glob, sys
sp = [p for p in sys.path if p.endswith("site-packages")][0]
bad = [d for d in glob.glob(os.path.join(sp, "*.dist-info")) if not os.path.exists(os.path.join(d, "METADATA"))]
bad += [str(d._path) for d in m.distributions() if not d.metadata or d.metadata["Name"] is None]
print(len(bad))
PY
)
	[ "$half" = 0 ] || { bad=$((bad + 1)); echo "    killed at step $i of $n: $half half-made .dist-info" >&2; }
	wp list --installed --python "$TMP/v14/bin/python" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "    killed at $i: the next run failed" >&2; }
	left=$(find "$TMP/v14" -name '.wp-*' | wc -l)
	[ "$left" = 0 ] || { bad=$((bad + 1)); echo "    killed at $i: $left temps left after the next run" >&2; }
done
expect_eq "killed at each of $n steps: no half-made .dist-info, the next run cleans up" "$bad" 0

attack "Ctrl-C (SIGINT, SIGTERM) while an install stages: its temps go at once, not at the next run"
rm -rf w15 && mkw w15 bigpkg 1.0 --pad 150000000
for sig in INT TERM; do
	venv v15
	"$WHEELPICK" install "$WF" --python "$TMP/v15/bin/python" >/dev/null 2>"$TMP/err" &
	pid=$!
	for i in $(seq 1 1000); do
		[ -n "$(find "$TMP/v15" -name '.wp-*.tmp' -size +1M -print -quit 2>/dev/null)" ] && break
		sleep 0.01
	done
	kill -$sig "$pid"
	wait "$pid"
	rc=$?
	if [ -f "$SP/bigpkg-1.0.dist-info/RECORD" ]; then
		pass "SIG$sig came after the commit: the install finished (exit $rc)"
	else
		expect_eq "SIG$sig: exit 128+signal" "$rc" "$((128 + $(kill -l $sig)))"
		expect_eq "SIG$sig: no staged temp left in the environment" "$(find "$TMP/v15" -name '.wp-*' -size +0 | wc -l)" 0
		expect_eq "SIG$sig: no .dist-info" "$(find "$SP" -name '*.dist-info' | wc -l)" 0
	fi
	expect_exit 0 "SIG$sig: the next run installs it" wp install "$WF" --python "$TMP/v15/bin/python"
done

done_matrix
