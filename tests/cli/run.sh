#!/usr/bin/env bash
# tests/cli/run.sh: runs every tests/cli/t-*.sh against $WHEELPICK and counts checks
# ($WP_CLI_ONLY, names separated by spaces such as "t-faults t-pick", runs only those).
set -u
here=$(cd "$(dirname "$0")" && pwd)
results=${WP_RESULTS:-build/test-results}
mkdir -p "$results"
files=0 failed=0 checks_pass=0 checks_fail=0
for t in "$here"/t-*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	case " ${WP_CLI_ONLY:-$name} " in *" $name "*) ;; *) continue ;; esac
	log="$results/cli-$name.log"
	files=$((files + 1))
	if timeout "${WP_CLI_TIMEOUT:-300}" bash "$t" >"$log" 2>&1; then st=ok; else st=FAIL; failed=$((failed + 1)); fi
	# each check prints nothing when it passes; count from the summary line the file writes
	p=$(grep -Eo '^checks: [0-9]+ passed' "$log" | grep -Eo '[0-9]+' | tail -1)
	f=$(grep -Eo '^checks: [0-9]+ passed, [0-9]+ failed' "$log" | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' | tail -1)
	checks_pass=$((checks_pass + ${p:-0}))
	checks_fail=$((checks_fail + ${f:-0}))
	if [ "$st" = ok ]; then printf 'ok    %s (%s checks)\n' "$name" "${p:-0}"; else
		printf 'FAIL  %s\n' "$name"; tail -n 40 "$log" | sed 's/^/      /'; fi
done
# a file that failed without counting its failures still counts as one
[ "$failed" -gt "$checks_fail" ] && checks_fail=$failed
echo "$checks_pass $checks_fail 0" >"$results/cli.count"
echo "cli: $((files - failed)) passed, $failed failed ($checks_pass checks passed, $checks_fail failed)"
[ "$failed" = 0 ] || [ "${WP_DEFER_FAIL:-0}" = 1 ]
