#!/usr/bin/env bash
# tests/summary.sh: adds up the counts the runners left and prints the closing line CI reads.
set -u
results=${WP_RESULTS:-build/test-results}
pass=0 fail=0
for f in "$results"/*.count; do
	[ -e "$f" ] || continue
	read -r p f2 _ <"$f"
	pass=$((pass + p)); fail=$((fail + f2))
done
echo "tests: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
