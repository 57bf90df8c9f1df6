#!/usr/bin/env bash
# tests/cli/run.sh: runs every tests/cli/t-*.sh against $WHEELPICK and counts checks
# ($WP_CLI_ONLY, names separated by spaces such as "t-faults t-pick", runs only those).
#
# The files are independent (each its own temp folder, servers on ports the kernel chose), so
# they run $WP_CLI_JOBS at a time (default: twice the CPUs, as most of their time is spent
# waiting on servers, pip and sleeps). The files that measure time (stalls, deadlines, kills at a
# moment, the disk full, valgrind) run afterwards one at a time, so a busy machine cannot make
# them fail: SERIAL below. $WP_CLI_SET picks the files: `all` (the default), `fast` (all but
# SERIAL: `make test`) or `slow` (SERIAL alone: `make test-slow`); WP_CLI_ONLY names files
# whatever the set. Results print in name order; then the ten slowest files.
set -u
here=$(cd "$(dirname "$0")" && pwd)
results=${WP_RESULTS:-build/test-results}
mkdir -p "$results"
jobs=${WP_CLI_JOBS:-$(($(nproc 2>/dev/null || echo 2) * 2))}
SERIAL=" t-slow t-crash t-faults t-valgrind t-diskfull "
set_=${WP_CLI_SET:-all}
case $set_ in all | fast | slow) ;; *) echo "run.sh: WP_CLI_SET is all, fast or slow, not '$set_'" >&2; exit 2 ;; esac
# the counts for tests/summary.sh: cli.count, or cli-slow.count for the slow set
count=cli
[ "$set_" = slow ] && count=cli-slow

names=()
for t in "$here"/t-*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ -n "${WP_CLI_ONLY:-}" ]; then
		case " $WP_CLI_ONLY " in *" $name "*) ;; *) continue ;; esac
	else
		case "$set_:$SERIAL" in fast:*" $name "*) continue ;; slow:*" $name "*) ;; slow:*) continue ;; esac
	fi
	names+=("$name")
done

# one file: its log, its exit status and its seconds in $results/cli-NAME.{log,st,secs}
run_one() {
	local name=$1 start st
	start=$(date +%s.%N)
	timeout "${WP_CLI_TIMEOUT:-300}" bash "$here/$name.sh" >"$results/cli-$name.log" 2>&1
	st=$?
	awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f\n", b - a}' >"$results/cli-$name.secs"
	echo "$st" >"$results/cli-$name.st"
}

running=0
for name in "${names[@]}"; do
	case "$SERIAL" in *" $name "*) continue ;; esac
	run_one "$name" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait
for name in "${names[@]}"; do
	case "$SERIAL" in *" $name "*) run_one "$name" ;; esac
done

files=0 failed=0 checks_pass=0 checks_fail=0
for name in "${names[@]}"; do
	log="$results/cli-$name.log"
	files=$((files + 1))
	st=$(cat "$results/cli-$name.st" 2>/dev/null || echo 1)
	# each check prints nothing when it passes; count from the summary line the file writes
	p=$(grep -Eo '^checks: [0-9]+ passed' "$log" | grep -Eo '[0-9]+' | tail -1)
	f=$(grep -Eo '^checks: [0-9]+ passed, [0-9]+ failed' "$log" | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' | tail -1)
	checks_pass=$((checks_pass + ${p:-0}))
	checks_fail=$((checks_fail + ${f:-0}))
	if [ "$st" = 0 ]; then printf 'ok    %s (%s checks, %s s)\n' "$name" "${p:-0}" "$(cat "$results/cli-$name.secs")"; else
		failed=$((failed + 1))
		printf 'FAIL  %s\n' "$name"; tail -n 40 "$log" | sed 's/^/      /'; fi
done
# a file that failed without counting its failures still counts as one
[ "$failed" -gt "$checks_fail" ] && checks_fail=$failed
echo "$checks_pass $checks_fail 0" >"$results/$count.count"
echo "$count: $((files - failed)) passed, $failed failed ($checks_pass checks passed, $checks_fail failed; $jobs at a time)"
# (under make, tests/summary.sh names the ten slowest at the very end instead)
if [ "$files" -gt 1 ] && [ "${WP_DEFER_FAIL:-0}" != 1 ]; then
	echo "cli: the slowest files:"
	for name in "${names[@]}"; do echo "$(cat "$results/cli-$name.secs") $name"; done | sort -rn | head -10 |
		awk '{printf "      %6.1f s  %s\n", $1, $2}'
fi
[ "$failed" = 0 ] || [ "${WP_DEFER_FAIL:-0}" = 1 ]
