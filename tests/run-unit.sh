#!/usr/bin/env bash
# tests/run-unit.sh: runs each cmocka unit test binary given, counts results for tests/summary.sh.
# Exits non-zero when one failed, unless WP_DEFER_FAIL=1 (make test reports at the end instead).
set -u
results=${WP_RESULTS:-build/test-results}
mkdir -p "$results"
pass=0 fail=0
for t in "$@"; do
	name=$(basename "$t")
	log="$results/$name.log"
	if timeout "${WP_UNIT_TIMEOUT:-300}" "$t" >"$log" 2>&1; then
		pass=$((pass + 1))
		printf 'ok    %s (%s)\n' "$name" "$(grep -Eo '[0-9]+ test\(s\) run' "$log" | head -1)"
	else
		fail=$((fail + 1))
		printf 'FAIL  %s\n' "$name"
		tail -n 30 "$log" | sed 's/^/      /'
	fi
done
echo "$pass $fail 0" >"$results/unit.count"
echo "unit: $pass passed, $fail failed"
[ "$fail" = 0 ] || [ "${WP_DEFER_FAIL:-0}" = 1 ]
