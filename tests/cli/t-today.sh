#!/usr/bin/env bash
# tests/cli/t-today.sh: the picking rule against a replica of PyTorch's index as it ships today
# (tests/fixtures/mkindex.py: per-variant folders cu118 ... cu130, PyPI's unlabeled torch whose
# nvidia-* pins name its CUDA, PEP 658 metadata, Requires-Python only in METADATA), served on
# 127.0.0.1: minor-version compatibility, drivers, GPU architecture lists, unlabeled builds,
# failing sources, list/pick agreement, --json errors and the matrix.
. "$(dirname "$0")/../lib.sh"
python3 "$ROOT/tests/fixtures/mkindex.py" "$TMP/idx" >/dev/null || { fail "mkindex.py could not write the index"; done_testing; exit 1; }
start_server "$TMP/idx"
WHL="$BASE/whl/"
PYPI="$BASE/pypi/simple/"
L="--python 3.12 --platform manylinux_2_28_x86_64"

# --- minor-version compatibility: a 12.4 driver runs today's cu128 builds --------------------
expect_exit 0 "CUDA 12.4" wp torch --cuda 12.4 $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['version']" "2.10.0+cu128"
expect_json "$TMP/out" "'minor-version compatibility' in j['picks'][0]['reason']" True
expect_json "$TMP/out" "'skipped cu130: CUDA 13.0 needs driver 580' in j['picks'][0]['reason']" True
expect_json "$TMP/out" "j['targets'][0]['driver']" "550.54.14"
# strict: nothing newer than 12.4, so the newest version with such a build (2.7.1 has cu118)
expect_exit 0 "--cuda-compat strict keeps the old rule" wp torch --cuda 12.4 --cuda-compat strict $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['version']" "2.7.1+cu118"
expect_json "$TMP/out" "j['targets'][0]['cuda_compat']" "strict"
WHEELPICK_CUDA_COMPAT=strict expect_exit 0 "and so does WHEELPICK_CUDA_COMPAT" wp torch==2.6.0 --cuda 12.4 $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['version']" "2.6.0+cu124"
expect_exit 2 "a compat that is neither" wp torch --cuda 12.4 --cuda-compat loose $L --index "$WHL" --dry-run
# a driver 460 (CUDA 11.2) machine: cu118 runs there
expect_exit 0 "CUDA 11.2 gets cu118" wp torch --cuda 11.2 --python 3.10 --platform manylinux_2_28_x86_64 --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['version']" "2.7.1+cu118"
# --driver: the driver itself; 450.36.06 (CUDA 11.0) is below 11.x's compatibility floor
expect_exit 0 "--driver 535.104.05" wp torch --driver 535.104.05 $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['version']" "2.10.0+cu128"
expect_json "$TMP/out" "j['targets'][0]['cuda']" "12.2"
expect_exit 1 "--driver 450.36.06: no build runs" wp torch==2.7.1 --driver 450.36.06 $L --index "$WHL" --dry-run --no-deps
expect_grep "and the message says what the driver lacks" "450.80.02 for minor-version compatibility" "$TMP/err"
expect_exit 2 "--driver that is not a version" wp torch --driver banana $L --index "$WHL" --dry-run
expect_grep "names it" "driver version 'banana'" "$TMP/err"
# each --cuda and each --driver is a target of its own
expect_exit 0 "--driver beside --cuda: two targets" wp torch --driver 470.57.02 --cuda 12.8 $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "[t['cuda'] for t in j['targets']]" "['12.8', '11.4']"

# --- GPUs: what PyTorch compiled, not what the toolkit could ----------------------------------
expect_exit 0 "Pascal (sm_61) with a 12.8 driver" wp torch --cuda 12.8 --gpu sm_61 $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['version']" "2.10.0+cu126"
expect_json "$TMP/out" "'cu128: no kernels for sm_61' in j['picks'][0]['reason']" True
expect_exit 0 "a GPU by name" wp torch --cuda 12.8 --gpu "NVIDIA GeForce GTX 1080" $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['version']" "2.10.0+cu126"
expect_exit 0 "every GPU of a host must be served" wp torch --cuda 12.8 --gpu A100 --gpu sm_61 $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['version']" "2.10.0+cu126"
expect_json "$TMP/out" "j['targets'][0]['gpus']" "['sm_80', 'sm_61']"
expect_exit 2 "an unknown architecture" wp torch --cuda 12.8 --gpu sm_99 $L --index "$WHL" --dry-run
expect_grep "names the nearest known" "unknown GPU architecture 'sm_99'; known near it: sm_90, sm_100" "$TMP/err"
expect_exit 2 "sm_20 too" wp torch --cuda 12.8 --gpu sm_20 $L --index "$WHL" --dry-run
expect_exit 2 "an unknown GPU name" wp torch --cuda 12.8 --gpu "RTX 3090x" $L --index "$WHL" --dry-run
expect_grep "names the nearest" "RTX 3090" "$TMP/err"

# --- PyPI's unlabeled torch: its METADATA says which build it is ------------------------------
expect_exit 0 "PyPI, CUDA 12.4" wp torch --cuda 12.4 $L --index "$PYPI" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['filename']" "torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64.whl"
expect_json "$TMP/out" "j['picks'][0]['variant']" "cu128"
expect_json "$TMP/out" "'nvidia-* pins' in j['picks'][0]['reason']" True
expect_exit 1 "PyPI has no CPU build for Linux x86_64" wp torch --cuda cpu $L --index "$PYPI" --dry-run --no-deps
expect_grep "and says what there is" "torch 2.10.0 has cu128; none is a CPU build" "$TMP/err"
expect_exit 0 "PyPI, CUDA 11.8, Python 3.9: the newest build that runs is 1.8.0's bundled cu102" \
	wp torch --cuda 11.8 --python 3.9 --platform manylinux_2_28_x86_64 --index "$PYPI" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['filename']" "torch-1.8.0-cp39-cp39-manylinux1_x86_64.whl"
expect_json "$TMP/out" "'2.8.0: cu128: CUDA 12.8 needs driver' in j['picks'][0]['reason']" True
expect_exit 1 "PyPI's Windows wheel is a CPU build: not for a CUDA target" wp torch --cuda 12.8 --python 3.12 --platform win_amd64 --index "$PYPI" --dry-run --no-deps
expect_grep "and says how to ask for it" "only a CPU build is there \(ask for it with --cuda cpu\)" "$TMP/err"
expect_exit 0 "but for a CPU one" wp torch --cuda cpu --python 3.12 --platform win_amd64 --index "$PYPI" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['filename']" "torch-2.10.0-cp312-cp312-win_amd64.whl"
expect_json "$TMP/out" "j['picks'][0]['variant']" "cpu"

# --- dependencies: Requires-Python from METADATA, failing sources -----------------------------
expect_exit 0 "Python 3.9 from the cu118 index" wp torch --cuda 11.8 --python 3.9 --platform manylinux_2_28_x86_64 --index "$BASE/whl/cu118/" --dry-run --json
expect_json "$TMP/out" "[p['version'] for p in j['picks'] if p['project'] == 'networkx']" "['3.2.1']"
expect_json "$TMP/out" "[p['version'] for p in j['picks'] if p['project'] == 'torch']" "['2.7.1+cu118']"
# a dependency page that answers 503: the resolution stops (exit 3), never a smaller set
cat >"$TMP/script.json" <<EOF
{"/whl/cu126/sympy/": {"status": [503]}}
EOF
stop_server
start_server "$TMP/idx" "$TMP/script.json"
export WHEELPICK_CATALOG="$TMP/c503.sqlite3"
expect_exit 3 "a dependency page that fails" wp torch --cuda 12.6 $L --index "$BASE/whl/cu126/" --dry-run
expect_grep "names the page" "sympy/.*503" "$TMP/err"
expect_no_grep "and picks nothing older" "^  torch" "$TMP/out"
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"
WHL="$BASE/whl/"
PYPI="$BASE/pypi/simple/"
# an --index that cannot be reached is exit 3, not "nothing fits"
expect_exit 3 "an unreachable --index" wp torch --cuda 12.4 $L --index "http://127.0.0.1:9/simple/" --dry-run
expect_exit 3 "even with other sources in the catalog" wp torch --cuda 12.4 $L --index "http://127.0.0.1:9/simple/" --index "$WHL" --dry-run
# WHEELPICK_INDEX roots serve dependencies as --index does
export WHEELPICK_CATALOG="$TMP/env.sqlite3"
WHEELPICK_INDEX="$BASE/whl/cu118/" expect_exit 0 "WHEELPICK_INDEX as the source" wp torch --cuda 11.8 --python 3.9 --platform manylinux_2_28_x86_64 --dry-run --json
expect_json "$TMP/out" "[p['version'] for p in j['picks'] if p['project'] == 'networkx']" "['3.2.1']"
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"

# --- list agrees with pick; --index-strategy ---------------------------------------------------
export WHEELPICK_CATALOG="$TMP/two.sqlite3"
expect_exit 0 "crawl PyPI first" wp update --index "$PYPI"
expect_exit 0 "then the whl root" wp update --index "$WHL"
expect_exit 0 "list" wp list torch
expect_grep "sets apart what pick does not use" "not counted: [0-9]+ file\(s\) from sources pick does not use" "$TMP/out"
expect_grep "naming the shadowed source" "whl/torch/ \(shadowed by .*pypi/simple/torch/\)" "$TMP/out"
expect_exit 0 "list --json" wp list torch --json
expect_json "$TMP/out" "all(r['shadowed_by'] for r in j if '/whl/' in r['url'])" True
expect_exit 0 "pick uses the same source" wp torch --cuda 12.4 $L --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['filename']" "torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64.whl"
expect_exit 0 "unsafe-best-match lets every source compete" wp torch --cuda 12.4 $L --dry-run --no-deps --json \
	--index-strategy unsafe-best-match
expect_json "$TMP/out" "j['picks'][0]['version']" "2.10.0+cu128"
expect_exit 2 "an unknown strategy" wp torch --cuda 12.4 $L --dry-run --index-strategy best
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"

# --- --json failures are still one JSON object -------------------------------------------------
expect_exit 1 "nothing fits, as JSON" wp torch==2.10.0 --cuda 11.8 $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['error']['exit']" 1
expect_json "$TMP/out" "j['error']['project']" torch
expect_json "$TMP/out" "len(j['error']['rejected']) > 0 and all(set(r) >= {'filename', 'reason'} for r in j['error']['rejected'])" True
expect_json "$TMP/out" "any('cu126' in r['filename'] and 'needs driver' in r['reason'] for r in j['error']['rejected'])" True
expect_exit 2 "a usage error, as JSON" wp torch --cuda 12.4 --gpu sm_99 $L --dry-run --json
expect_json "$TMP/out" "j['error']['exit']" 2

# --- planning a migration ----------------------------------------------------------------------
expect_exit 0 "matrix" wp matrix torch --cuda 11.2 --cuda 11.8 --cuda 12.4 --python 3.10 --python 3.12 \
	--platform manylinux_2_28_x86_64 --index "$WHL" --no-deps
expect_grep "a row per target" "^CUDA 11.2, Python 3.10, manylinux_2_28_x86_64 +2.7.1\+cu118" "$TMP/out"
expect_grep "12.4 gets cu128" "^CUDA 12.4, Python 3.12, manylinux_2_28_x86_64 +2.10.0\+cu128" "$TMP/out"
expect_exit 0 "matrix --json" wp matrix torch --cuda 9.2 --cuda 12.4 $L --index "$WHL" --no-deps --json
expect_json "$TMP/out" "[r['error'] is None for r in j['rows']]" "[False, True]"
expect_json "$TMP/out" "j['rows'][1]['picks'][0]['version']" "2.10.0+cu128"

# --- other accelerators and Pythons ------------------------------------------------------------
expect_exit 0 "--rocm 6.4" wp torch --rocm 6.4 $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['version']" "2.9.0+rocm6.4"
expect_exit 0 "--python 3.13t: the free-threaded build" wp torch --cuda 12.8 --python 3.13t --platform manylinux_2_28_x86_64 --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "'cp313t' in j['picks'][0]['filename']" True
done_testing
