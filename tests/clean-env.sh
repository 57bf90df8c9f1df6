#!/usr/bin/env bash
# tests/clean-env.sh [NAME=VALUE]... CMD [ARG]...: runs CMD with an empty environment but for what
# the test harness sets, so a developer's shell cannot change a result: no WHEELPICK_*, PIP_*, UV_*,
# AWS_*, CONDA_*, PYTHON*, proxy or CA variable of the caller reaches wheelpick, pip or a server.
#
# Kept from the caller: PATH (where the tools are), TMPDIR (where temp folders go), the test
# harness's own knobs (WHEELPICK, the binary under test, and every WP_* variable: WP_TEST_VERBOSE,
# WP_CRASH_KILLS, ...) and the sanitizers' options (make asan, make tsan). Set here: HOME (a folder
# that does not exist; tests/lib.sh gives each test file its own), LANG=C.UTF-8, and
# PYTHONDONTWRITEBYTECODE (no __pycache__ written into the checkout). NAME=VALUE words before CMD
# are added (or override these). tests/lib.sh runs every CLI test file through this;
# tests/run-unit.sh every unit test binary.
set -u
keep=("PATH=${PATH:-/usr/bin:/bin}" "TMPDIR=${TMPDIR:-/tmp}" "HOME=/nonexistent/wheelpick-test-home" "LANG=C.UTF-8"
	"PYTHONDONTWRITEBYTECODE=1" "WP_CLEAN_ENV=1")
while IFS= read -r name; do
	case $name in
	WP_CLEAN_ENV) ;;
	WHEELPICK | WP_* | ASAN_OPTIONS | UBSAN_OPTIONS | LSAN_OPTIONS | TSAN_OPTIONS) keep+=("$name=${!name}") ;;
	esac
done < <(compgen -e)
exec env -i "${keep[@]}" "$@"
