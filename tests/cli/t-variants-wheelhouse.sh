#!/usr/bin/env bash
# tests/cli/t-variants-wheelhouse.sh: issue 15 item 5 and its "done when": a wheelhouse built from
# PEP 825 variant wheels installs offline with this machine's pip. pip (23.2 here, and every
# release without PEP 825) skips a file name with a variant label, so pick -d writes each variant
# wheel also under its plain name (same bytes, same sha256); and pip's packaging cannot parse the
# variant markers in the wheel's Requires-Dist, so the printed command adds --no-deps (the
# requirement files pin the closure the markers chose).
#   WHEELPICK=build/wheelpick bash tests/cli/t-variants-wheelhouse.sh
. "$(dirname "$0")/../lib.sh"
V10=variants/variant-repack__torch-2.10__torch-2.10.0-variants.json
need_real "$V10"
PY=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
"$PYTHON" "$ROOT/tests/fixtures/mkvariants.py" "$TMP/vidx" "$REAL_DATA/$V10"
start_server "$TMP/vidx"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1

expect_exit 0 "pick -d from variant wheels" wp pick torch --cuda 12.8 --gpu sm_86 --python "$PY" \
	--platform manylinux_2_28_x86_64 --index "$BASE/simple/" -d "$TMP/wh"
expect_file "the variant wheel itself" "$TMP/wh/torch-2.10.0-py3-none-manylinux_2_28_x86_64-cuda12.8.whl"
expect_file "its plain-name copy for pip" "$TMP/wh/torch-2.10.0-py3-none-manylinux_2_28_x86_64.whl"
cmp -s "$TMP/wh/torch-2.10.0-py3-none-manylinux_2_28_x86_64-cuda12.8.whl" \
	"$TMP/wh/torch-2.10.0-py3-none-manylinux_2_28_x86_64.whl" && pass "the same bytes" || fail "the copy differs"
expect_grep "said so" "torch-2.10.0-py3-none-manylinux_2_28_x86_64.whl" "$TMP/err"
expect_grep "the install command skips the unreadable markers" "--no-deps" "$TMP/out"
if "$PYTHON" -m pip install -q --no-deps --no-index --find-links "$TMP/wh" --require-hashes -r "$TMP/wh/requirements.txt" \
	--target "$TMP/site" >"$TMP/pip.out" 2>&1; then
	pass "this machine's pip installs the variant wheelhouse offline"
else
	fail "pip install failed"; tail -5 "$TMP/pip.out" >&2
fi
got=$(PYTHONPATH="$TMP/site" "$PYTHON" -c 'import torch, nvidia_cublas; print(torch.LABEL)' 2>&1)
[ "$got" = "cuda12.8" ] && pass "the cuda12.8 build, with its nvidia-cublas" || fail "import: $got"
expect_exit 0 "verify passes the wheelhouse" wp verify "$TMP/wh"

# issue 36: a reused wheelhouse verifies after every round of picks into it. A plain-name copy an
# earlier round wrote (one variant's bytes) stayed when a later round's targets clashed on that
# plain name (no copy written), pinned by no requirement: verify failed until a round that took a
# single variant overwrote it.
R=(--python "$PY" --platform manylinux_2_28_x86_64 --index "$BASE/simple/")
rounds=(
	"--cuda 12.8 --gpu sm_86"
	"--cuda 12.6 --cuda 13.0 --gpu sm_86"
	"--cuda 13.0 --xpu"
	"--cuda 13.0 --cuda cpu"
	"--cuda cpu"
	"--cuda 12.8 --cuda cpu"
	"--xpu"
	"--cuda 13.0 --gpu sm_90"
	"--cuda 12.6 --xpu --cuda cpu"
	"--cuda 12.8 --gpu sm_86"
)
rm -rf "$TMP/reuse"
for r in "${rounds[@]}"; do
	# shellcheck disable=SC2086
	expect_exit 0 "pick -d into the same folder: $r" wp pick torch $r "${R[@]}" -d "$TMP/reuse" -q
	expect_exit 0 "it verifies after: $r" wp verify "$TMP/reuse"
done
# the same rounds in another order (the failure depended on what came before)
rm -rf "$TMP/reuse2"
for k in 3 1 8 5 0 2 6 9 4 7; do
	# shellcheck disable=SC2086
	wp pick torch ${rounds[$k]} "${R[@]}" -d "$TMP/reuse2" -q >/dev/null 2>&1
	expect_exit 0 "verifies, round order ${k}" wp verify "$TMP/reuse2"
done

done_testing
