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
# the ten slowest command-line test files of this run, last, where they are seen
if [ "$(ls "$results"/cli-*.secs 2>/dev/null | wc -l)" -gt 1 ]; then
	echo "the slowest files:"
	for f in "$results"/cli-*.secs; do n=${f##*/cli-}; echo "$(cat "$f") ${n%.secs}"; done | sort -rn | head -10 |
		awk '{printf "      %6.1f s  %s\n", $1, $2}'
fi
echo "tests: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
