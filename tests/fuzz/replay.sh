#!/usr/bin/env bash
# tests/fuzz/replay.sh: replays every corpus file through its harness's plain (gcc, ASan+UBSan) driver, counts for tests/summary.sh.
# usage: replay.sh BINDIR CORPUSDIR NAME...  (BINDIR/replay_NAME replays CORPUSDIR/NAME/*)
# A file that crashes, trips a sanitizer, leaks or hangs fails; the rest of that corpus still runs.
# Exits non-zero when one failed, unless WP_DEFER_FAIL=1 (make test reports at the end instead).
set -u
bindir=$1 corpus=$2
shift 2
results=${WP_RESULTS:-build/test-results}
mkdir -p "$results"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
timeout_s=${WP_FUZZ_REPLAY_TIMEOUT:-60}

# replay BIN LOG FILE...: sets p (passed), f (failed) and bad (the failed inputs). A crash ends
# the process, so the run resumes after the input that was running.
replay() {
	local bin=$1 log=$2 out rc done_n
	shift 2
	local rest=("$@")
	p=0 f=0 bad=()
	while [ ${#rest[@]} -gt 0 ]; do
		out=$(timeout "$timeout_s" "$bin" "${rest[@]}" 2>>"$log")
		rc=$?
		done_n=$(printf '%s\n' "$out" | grep -c '^ok ')
		p=$((p + done_n))
		[ "$rc" = 0 ] && return
		f=$((f + 1))
		if [ "$done_n" -lt ${#rest[@]} ]; then
			bad+=("${rest[$done_n]}")
			[ "$rc" = 124 ] && bad[-1]="${bad[-1]} (timed out after ${timeout_s}s)"
			rest=("${rest[@]:$((done_n + 1))}")
		else
			bad+=("(at exit: status $rc)")
			return
		fi
	done
}

pass=0 fail=0
for name in "$@"; do
	bin=$bindir/replay_$name
	log=$results/fuzz-$name.log
	: >"$log"
	files=()
	while IFS= read -r x; do files+=("$x"); done < <(find "$corpus/$name" -maxdepth 1 -type f ! -name '.*' 2>/dev/null | LC_ALL=C sort)
	if [ ${#files[@]} = 0 ]; then
		fail=$((fail + 1))
		printf 'FAIL  fuzz_%s (no corpus in %s)\n' "$name" "$corpus/$name"
		continue
	fi
	replay "$bin" "$log" "${files[@]}"
	if [ "$f" != 0 ] && [[ "${bad[-1]}" == "(at exit"* ]]; then
		# LSan found a leak at exit: replay again, checking after each input, to name it
		echo "replay: leak at exit; replaying with WP_REPLAY_LEAK_EACH=1" >>"$log"
		WP_REPLAY_LEAK_EACH=1 replay "$bin" "$log" "${files[@]}"
		[ "$f" = 0 ] && f=1 bad=("(at exit: a leak no single input shows)")
	fi
	pass=$((pass + p)); fail=$((fail + f))
	if [ "$f" = 0 ]; then
		printf 'ok    fuzz_%s (%d inputs)\n' "$name" "$p"
	else
		printf 'FAIL  fuzz_%s (%d inputs passed, %d failed; log %s)\n' "$name" "$p" "$f" "$log"
		for b in "${bad[@]}"; do printf '      failed: %s\n' "$b"; done
		grep -E 'ERROR: |runtime error|invariant failed|SUMMARY|leaked|^ +#[0-9] ' "$log" | head -n 20 | sed 's/^/      /'
	fi
done
echo "$pass $fail 0" >"$results/fuzz.count"
echo "fuzz-replay: $pass passed, $fail failed"
[ "$fail" = 0 ] || [ "${WP_DEFER_FAIL:-0}" = 1 ]
