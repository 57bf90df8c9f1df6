#!/usr/bin/env bash
# tests/run-unit.sh: runs each cmocka unit test binary given, counts results for tests/summary.sh.
# Exits non-zero when one failed, unless WP_DEFER_FAIL=1 (make test reports at the end instead).
set -u
results=${WP_RESULTS:-build/test-results}
mkdir -p "$results"
pass=0 fail=0 cases_pass=0 cases_fail=0
for t in "$@"; do
	name=$(basename "$t")
	log="$results/$name.log"
	start=$(date +%s.%N)
	# with an empty environment but for what tests/clean-env.sh keeps (a unit test sets what it needs)
	"$(dirname "$0")/clean-env.sh" timeout "${WP_UNIT_TIMEOUT:-300}" "$t" >"$log" 2>&1
	st=$?
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" "BEGIN {print b - a}")
	p=$(grep -Eo '^\[  PASSED  \] [0-9]+' "$log" | grep -Eo '[0-9]+$' | awk '{s+=$1} END {print s+0}')
	f=$(grep -Eo '^\[  FAILED  \] [0-9]+ test' "$log" | grep -Eo '[0-9]+' | awk '{s+=$1} END {print s+0}')
	[ "$st" != 0 ] && [ "$f" = 0 ] && f=1   # crashed or timed out: count the binary as one failure
	cases_pass=$((cases_pass + p)); cases_fail=$((cases_fail + f))
	if [ "$st" = 0 ]; then
		pass=$((pass + 1))
		printf 'ok    %-24s %4s tests  %6.2fs\n' "$name" "$p" "$secs"
	else
		fail=$((fail + 1))
		printf 'FAIL  %s\n' "$name"
		tail -n 30 "$log" | sed 's/^/      /'
	fi
done
echo "$cases_pass $cases_fail 0" >"$results/unit.count"
echo "unit: $cases_pass passed, $cases_fail failed ($pass of $((pass + fail)) programs clean)"
[ "$fail" = 0 ] || [ "${WP_DEFER_FAIL:-0}" = 1 ]
