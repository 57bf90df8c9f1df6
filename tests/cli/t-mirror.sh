#!/usr/bin/env bash
# tests/cli/t-mirror.sh: mirror, bundle and verify through the command line, with real pip as the client.
. "$(dirname "$0")/../lib.sh"
make_sample
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1
PY=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')

expect_exit 0 "a two-target mirror" wp mirror "$TMP/mir" torch==1.8.0 --cuda 11.2 --python 3.8 \
	--platform linux_x86_64 --platform win_amd64 --index "$FINDLINKS"
expect_file "root page" "$TMP/mir/simple/index.html"
expect_file "PEP 691 page" "$TMP/mir/simple/torch/index.json"
expect_grep "only cu111 builds" "torch-1\.8\.0%2Bcu111-cp38-cp38-win_amd64\.whl#sha256=[0-9a-f]{64}" "$TMP/mir/simple/torch/index.html"
expect_no_grep "no cu102 builds" "cu102|1\.7\.1" "$TMP/mir/simple/torch/index.html"
expect_grep "Windows-only dependency for the Windows target" "pywin32" "$TMP/mir/simple/index.html"
expect_exit 0 "verify the mirror" wp verify "$TMP/mir"
# the same mirror with its pages linking by absolute file://localhost/ URLs (wheelpick writes relative
# links; a hand-edited tree may not): verify reads them as the mirror's files, as every file:// URL
cp -r "$TMP/mir" "$TMP/mir-lh"
sed -i "s|\.\./\.\./files/|file://localhost$TMP/mir-lh/files/|g" "$TMP"/mir-lh/simple/*/index.html \
	"$TMP"/mir-lh/simple/*/index.json
expect_grep "its links are file://localhost/" 'href="file://localhost/' "$TMP/mir-lh/simple/torch/index.html"
expect_exit 0 "a mirror linking by file://localhost/ verifies" wp verify "$TMP/mir-lh"

# pip downloads the Windows build from it, served over HTTP
start_server "$TMP/mir"
if python3 -m pip download --no-deps --only-binary=:all: --platform win_amd64 --python-version 3.8 \
	--index-url "$BASE/simple" -d "$TMP/dl" torch==1.8.0+cu111 >"$TMP/pip.out" 2>&1 \
	&& [ -e "$TMP/dl/torch-1.8.0+cu111-cp38-cp38-win_amd64.whl" ]; then
	pass "pip download --platform win_amd64 from the mirror"
else
	fail "pip download from the mirror"; cat "$TMP/pip.out" "$TMP/server.log" >&2
fi
stop_server

# re-running with another target adds; --prune removes what no target needs
expect_exit 0 "re-run adds" wp mirror "$TMP/mir" torch==1.7.1 --cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS"
expect_grep "1.8.0 kept" "torch-1\.8\.0%2Bcu111-cp38-cp38-win_amd64" "$TMP/mir/simple/torch/index.html"
expect_grep "1.7.1 added" "torch-1\.7\.1%2Bcu110-cp38-cp38-linux_x86_64" "$TMP/mir/simple/torch/index.html"
expect_exit 0 "prune" wp mirror "$TMP/mir" torch==1.7.1 --cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS" --prune
expect_no_grep "1.8.0 pruned" "torch-1\.8\.0" "$TMP/mir/simple/torch/index.html"
expect_no_file "and its file" "$TMP/mir/files/torch/torch-1.8.0+cu111-cp38-cp38-win_amd64.whl"

# one flipped byte: verify names the file, exit 4
f=$(ls "$TMP"/mir/files/torch/*.whl | head -1)
printf 'X' | dd of="$f" bs=1 seek=100 conv=notrunc status=none
expect_exit 4 "a corrupted mirror fails verify" wp verify "$TMP/mir"
expect_grep "names the file" "$(basename "$f" | sed "s/+/./")" "$TMP/err"

# a bundle, unpacked in a clean folder, installs with no network
case "$PY" in
3.8|3.11)
	expect_exit 0 "bundle" wp bundle "$TMP/torch-bundle.tar.zst" torch torchvision --cuda 11.2 --python "$PY" \
		--platform manylinux_2_28_x86_64 --index "$FINDLINKS"
	expect_exit 0 "verify the bundle" wp verify "$TMP/torch-bundle.tar.zst"
	mkdir -p "$TMP/unpack"
	tar -C "$TMP/unpack" --zstd -xf "$TMP/torch-bundle.tar.zst"
	sh_path=$(find "$TMP/unpack" -name install.sh | head -1)
	if [ -n "$sh_path" ] && sh "$sh_path" --target "$TMP/site" --no-warn-conflicts >"$TMP/inst.out" 2>&1 \
		&& PYTHONPATH="$TMP/site" python3 -c 'import torch, torchvision' 2>/dev/null; then
		pass "the bundle's install.sh installs offline"
	else
		fail "bundle install"; cat "$TMP/inst.out" >&2
	fi
	;;
esac
expect_exit 2 "mirror without a package" wp mirror "$TMP/x"
expect_exit 3 "verify of a missing path" wp verify "$TMP/nothing-here"

# --- more files than the open-file limit allows at once: fetched batch by batch -----------------
# (each download holds its temp file open until its batch's syncs; a run held every one of them at
# once, and 1,000 new files failed under the common soft limit of 1024 with "Too many open files")
python3 "$ROOT/bench/mkwheel.py" many "$TMP/many" fdpkg 150
expect_exit 0 "150 new wheels fetched and mirrored under ulimit -n 40" bash -c 'ulimit -n 40 && exec "$@"' sh \
	"$WHEELPICK" --catalog "$TMP/many.db" mirror "$TMP/many-mirror" -r "$TMP/many/reqs.txt" \
	--index "file://$TMP/many/links.html" --cuda cpu --python 3.11 --platform linux_x86_64
expect_no_grep "none refused for want of a descriptor" "Too many open files" "$TMP/err"
expect_exit 0 "the mirror verifies" wp verify "$TMP/many-mirror"
expect_grep "with every wheel" "^checked 300 files, 150 wheels" "$TMP/out"
done_testing
