#!/usr/bin/env bash
# tests/lint.sh: bans calls that have no bound or no error report (make lint).
set -u
cd "$(dirname "$0")/.."
bad=$(grep -nE '\b(strcpy|strcat|sprintf|vsprintf|gets|atoi|atol|atoll|strtok)\s*\(' \
	$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.c' -o -name '*.h') | grep -v '^tests/fuzz/' || true)
results=${WP_RESULTS:-build/test-results}
mkdir -p "$results" 2>/dev/null
if [ -n "$bad" ]; then
	echo "lint: banned calls (use snprintf, wp_buf, strtol with checks, strtok_r):"
	echo "$bad"
	echo "0 1 0" >"$results/lint.count"
	[ "${WP_DEFER_FAIL:-0}" = 1 ] && exit 0
	exit 1
fi
echo "1 0 0" >"$results/lint.count"
echo "lint: no banned calls"
