#!/usr/bin/env bash
# tests/fuzz/fuzz.sh: runs each libFuzzer binary for a while over its seed corpus; new finds go to a scratch dir.
# usage: fuzz.sh BINDIR CORPUSDIR WORKDIR SECONDS NAME...
# Runs every target even when one crashes, then lists crashes (reproducer and first stack lines)
# and exec/s per target; exits non-zero when any target found something.
set -u
bindir=$1 corpus=$2 work=$3 secs=$4
shift 4
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$work"
summary=$work/summary.txt
: >"$summary"
found=0
for name in "$@"; do
	bin=$bindir/fuzz_$name
	new=$work/new/$name art=$work/artifacts/$name log=$work/fuzz-$name.log
	mkdir -p "$new" "$art"
	dict=()
	[ -f "$corpus/../dict/$name.dict" ] && dict=(-dict="$corpus/../dict/$name.dict")
	echo "fuzz: $name for ${secs}s"
	"$bin" -max_total_time="$secs" -timeout=${WP_FUZZ_TIMEOUT:-10} -rss_limit_mb=${WP_FUZZ_RSS_MB:-2048} \
		-print_final_stats=1 -artifact_prefix="$art/" ${WP_FUZZ_ARGS:-} "${dict[@]}" \
		"$new" "$corpus/$name" >"$log" 2>&1
	rc=$?
	execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
	rate=$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}')
	cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1)
	if [ "$rc" = 0 ]; then
		printf '%-12s ok     %8s exec/s  %10s runs  %s  new %s\n' "$name" "${rate:-?}" "${execs:-?}" "${cov:-}" \
			"$(find "$new" -type f | wc -l)" | tee -a "$summary"
	else
		found=1
		printf '%-12s FOUND  %8s exec/s  %10s runs  %s  (exit %s; log %s)\n' "$name" "${rate:-?}" "${execs:-?}" \
			"${cov:-}" "$rc" "$log" | tee -a "$summary"
		for a in "$art"/*; do [ -f "$a" ] && printf '             reproducer: %s\n' "$a" | tee -a "$summary"; done
		grep -E 'ERROR: |runtime error|invariant failed|SUMMARY|^ +#[0-9]+ ' "$log" | head -n 16 | sed 's/^/             /' \
			| tee -a "$summary"
	fi
done
echo "fuzz: summary in $summary"
exit $found
