#!/usr/bin/env bash
# bench/run.sh BINARY: the benchmarks behind `make bench`. Writes build-bench/results.md and prints it.
#   BENCH_QUICK=1   a ~1-minute smoke run (small inputs, one run per command)
#   BENCH_CASES=1,3 only these cases (1-14; 2 needs 1, the metadata part of 5 needs 4, 10 needs Ceph)
#   BENCH_RUNS=N    measured runs per command
#   BENCH_HOG=both  each table at the load found, then with a CPU hog on the other core (default);
#                   0: at the load found only; 1: with the hog only (bench/hog.py)
# Everything big is generated under build-bench/ and removed at the end, except the synthetic
# repodata (build-bench/bench-data/, ~300 MB, generated once). The real pages are read in place.
set -euo pipefail
BIN=${1:?usage: bench/run.sh /abs/path/to/wheelpick}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$BIN" ] || { echo "bench: '$BIN' is not an executable" >&2; exit 2; }
for tool in python3 curl zstd openssl; do
	command -v "$tool" >/dev/null || { echo "bench: needs $tool" >&2; exit 2; }
done
# a full run needs about 8 GB at its peak (case 4: 1 + 1 + 2 + 0.25 GB served files, the store's
# and curl's copies; case 1's two 1 GB wheels are gone by then; repodata)
need_gb=10
[ "${BENCH_QUICK:-}" = 1 ] && need_gb=2
mkdir -p "$ROOT/build-bench"
avail_gb=$(df -P -BG "$ROOT/build-bench" | awk 'NR==2 {sub("G", "", $4); print $4}')
if [ "$avail_gb" -lt "$need_gb" ]; then
	echo "bench: only ${avail_gb} GB free under build-bench/, a run needs ${need_gb} GB (try BENCH_QUICK=1)" >&2
	exit 2
fi
# the whole run stops by itself: 40 minutes at most (BENCH_HOG=both, the default, is estimated at
# 30-35 minutes on an idle machine, one mode at about 20-25; the last line of results.md gives each
# case's seconds). Stopped, it still writes what it measured, the summary included.
exec timeout --foreground -k 10 2400 python3 "$ROOT/bench/bench.py" "$BIN"
