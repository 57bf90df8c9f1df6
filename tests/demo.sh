#!/usr/bin/env bash
# tests/demo.sh: `make demo`: the main job, offline, on the sample index the project ships.
set -euo pipefail
W=${1:?usage: demo.sh WHEELPICK}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/build/demo
rm -rf "$OUT"
mkdir -p "$OUT"
export WHEELPICK_CATALOG="$OUT/catalog.sqlite3" WHEELPICK_CACHE_DIR="$OUT/cache"
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL   # the demo is offline and self-contained
python3 "$ROOT/sample/mksample.py" "$OUT/sample"
INDEX="file://$OUT/sample/whl/torch_stable.html"
run() { printf '\n$ %s\n' "$*"; "$@"; }

echo "== The sample index: a miniature torch_stable.html with tiny wheels (sample/mksample.py)"
run "$W" update --index "$INDEX"
run "$W" list torch

echo
echo "== CUDA 11.2: PyTorch never shipped cu112. pip would hand out the ROCm build here;"
echo "== wheelpick picks cu111, the newest CUDA build the driver can run, and says why."
# (the sample is a local folder with no PEP 658 files: what torch needs is read from the wheels
# where they lie; a dry run downloads nothing)
run "$W" torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run

echo
echo "== Nothing fits CUDA 9.2 for 1.8.0: exit 1, and what to ask for instead."
set +e
run "$W" torch==1.8.0 --cuda 9.2 --python 3.8 --platform linux_x86_64 --dry-run
echo "(exit $?)"
set -e

PY=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
echo
echo "== A wheelhouse for this Python ($PY), with dependencies, verified (sha256 + RECORD)"
run "$W" torch torchvision --cuda 11.2 --python "$PY" --platform manylinux_2_28_x86_64 -d "$OUT/wheelhouse"
run cat "$OUT/wheelhouse/requirements.txt"
case "$PY" in
3.8|3.11)
	echo
	echo "== pip installs it with no network, checking every hash"
	run python3 -m pip install -q --disable-pip-version-check --no-warn-conflicts --no-index \
		--find-links "$OUT/wheelhouse" --require-hashes -r "$OUT/wheelhouse/requirements.txt" --target "$OUT/site"
	run env PYTHONPATH="$OUT/site" python3 -c 'import torch, torchvision; print("imported", torch.__version__, torchvision.__version__)'
	;;
esac
echo
echo "demo: done (everything under $OUT)"
