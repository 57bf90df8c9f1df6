#!/usr/bin/env bash
# tests/windows/run.sh: the Windows tests (make test-windows): each tests/windows/t-*.sh runs the
# programs built with mingw-w64 (make win-test-programs) under wine, and counts its checks as the
# CLI tests do (tests/lib.sh), for tests/summary.sh. A missing toolchain, wine or program is a
# failure, never a skip: a machine that cannot run these must not look like one that passed them.
# WP_WIN_ONLY="t-launcher": just those files. WP_WIN_BUILD: where the programs are (build/win).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
results=${WP_RESULTS:-build/test-results}
mkdir -p "$results"
export WP_WIN_BUILD=${WP_WIN_BUILD:-$root/build/win}
# wine's own state (its C: drive, registry) lives in the build folder, made once and kept
export WP_WINEPREFIX=${WP_WINEPREFIX:-$root/build/win-test/wine}
export WHEELPICK=${WHEELPICK:-$root/build-win/wheelpick.exe}  # tests/lib.sh wants it named
export WINEPREFIX=$WP_WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="

setup_fail=()
for tool in wine wineboot wineserver winepath x86_64-w64-mingw32-objdump python3; do
	command -v "$tool" >/dev/null 2>&1 || setup_fail+=("'$tool' is missing (make deps installs it)")
done
for exe in launcher-console.exe launcher-gui.exe tests/fakepython.exe tests/smoke.exe tests/detect/fakeprog.exe \
	tests/detect/nvml.dll tests/detect/nvcuda.dll; do
	[ -f "$WP_WIN_BUILD/$exe" ] || setup_fail+=("'$WP_WIN_BUILD/$exe' is missing (make win-test-programs)")
done
if [ "${#setup_fail[@]}" = 0 ] && [ ! -f "$WINEPREFIX/system.reg" ]; then
	mkdir -p "$WINEPREFIX"
	start=$(date +%s.%N)
	wineboot -i >"$results/windows-wineboot.log" 2>&1 || setup_fail+=("wineboot -i failed (log: $results/windows-wineboot.log)")
	wineserver -w
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
	echo "windows: a new wine prefix in $WINEPREFIX ($secs s)"
fi
if [ "${#setup_fail[@]}" != 0 ]; then
	printf 'FAIL  windows: %s\n' "${setup_fail[@]}"
	echo "0 ${#setup_fail[@]} 0" >"$results/windows.count"
	exit 1
fi

files=0 failed=0 checks_pass=0 checks_fail=0
for t in "$here"/t-*.sh; do
	name=$(basename "$t" .sh)
	if [ -n "${WP_WIN_ONLY:-}" ]; then case " $WP_WIN_ONLY " in *" $name "*) ;; *) continue ;; esac; fi
	log="$results/windows-$name.log"
	files=$((files + 1))
	start=$(date +%s.%N)
	timeout "${WP_WIN_TIMEOUT:-300}" bash "$t" >"$log" 2>&1
	st=$?
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
	p=$(grep -Eo '^checks: [0-9]+ passed' "$log" | grep -Eo '[0-9]+' | tail -1)
	f=$(grep -Eo '^checks: [0-9]+ passed, [0-9]+ failed' "$log" | grep -Eo '[0-9]+ failed' | grep -Eo '[0-9]+' | tail -1)
	checks_pass=$((checks_pass + ${p:-0}))
	checks_fail=$((checks_fail + ${f:-0}))
	if [ "$st" = 0 ]; then printf 'ok    %s (%s checks, %s s)\n' "$name" "${p:-0}" "$secs"; else
		failed=$((failed + 1))
		printf 'FAIL  %s\n' "$name"; tail -n 40 "$log" | sed 's/^/      /'; fi
done
wineserver -k 2>/dev/null  # wine's server outlives its last program by a few seconds otherwise
[ "$files" = 0 ] && { echo "FAIL  windows: no test file ran"; failed=1; }
[ "$failed" -gt "$checks_fail" ] && checks_fail=$failed
echo "$checks_pass $checks_fail 0" >"$results/windows.count"
echo "windows: $((files - failed)) passed, $failed failed ($checks_pass checks passed, $checks_fail failed)"
[ "$failed" = 0 ] || [ "${WP_DEFER_FAIL:-0}" = 1 ]
