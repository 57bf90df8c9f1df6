#!/usr/bin/env bash
# tests/cli/t-hermetic.sh: a test file sees only what the harness sets (tests/clean-env.sh), so
# nothing in a developer's shell changes a result: not here, and not in a test file started with
# hostile values in its environment.
. "$(dirname "$0")/../lib.sh"

# the variables a test file may see: what clean-env.sh keeps or sets, what lib.sh exports, bash's own
allowed='^(PATH|TMPDIR|HOME|LANG|PYTHONDONTWRITEBYTECODE|WHEELPICK|WHEELPICK_CATALOG|WHEELPICK_CACHE_DIR|WP_[A-Z0-9_]+|(A|UB|L|T)SAN_OPTIONS|PWD|OLDPWD|SHLVL|_)$'
env -0 | tr '\0' '\n' | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' | sort -u >"$TMP/names"
grep -Ev "$allowed" "$TMP/names" >"$TMP/extra"
if [ -s "$TMP/extra" ]; then fail "variables the harness did not set: $(tr '\n' ' ' <"$TMP/extra")"; else pass "only what the harness sets"; fi
expect_grep "the catalog is this file's own" "^WHEELPICK_CATALOG=$TMP/" <(env)
expect_grep "and HOME" "^HOME=$TMP/home$" <(env)

# a test file started from a hostile shell: every WHEELPICK_*, PIP_*, UV_*, AWS_*, CONDA_*, proxy
# and Python variable is gone before its first check, and the harness's own knobs are kept
cat >"$TMP/t-probe.sh" <<EOF
. "$ROOT/tests/lib.sh"
env >"\$1"
echo "checks: 1 passed, 0 failed"
EOF
expect_exit 0 "a probe test file runs" env WHEELPICK_CUDA=banana WHEELPICK_INDEX=http://127.0.0.1:9/ WHEELPICK_PYTHON=2.7 \
	PIP_INDEX_URL=http://127.0.0.1:9/ PIP_REQUIRE_VIRTUALENV=1 UV_INDEX=http://127.0.0.1:9/ AWS_ACCESS_KEY_ID=bad \
	CONDA_OVERRIDE_CUDA=1.0 https_proxy=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 PYTHONPATH=/nonexistent \
	SSL_CERT_FILE=/nonexistent NETRC=/nonexistent XDG_CACHE_HOME=/nonexistent LC_ALL=C WP_TEST_KNOB=kept \
	bash "$TMP/t-probe.sh" "$TMP/probe-env"
expect_no_grep "no hostile value reached it" '^(WHEELPICK_(CUDA|INDEX|PYTHON)|PIP_|UV_|AWS_|CONDA_|https_proxy|ALL_PROXY|PYTHONPATH|SSL_CERT_FILE|NETRC|XDG_|LC_ALL)=' "$TMP/probe-env"
expect_grep "the harness's own knobs are kept" '^WP_TEST_KNOB=kept$' "$TMP/probe-env"
expect_grep "LANG is the harness's" '^LANG=C\.UTF-8$' "$TMP/probe-env"
expect_grep "PATH is the caller's" "^PATH=$(printf '%s' "$PATH" | sed 's/[][\.*^$+?(){}|]/\\&/g')\$" "$TMP/probe-env"

# and wheelpick itself: WHEELPICK_PLATFORM=win32 in the caller's shell (which makes `tags` list
# win32's tags) does not reach it
cat >"$TMP/t-tags.sh" <<EOF
. "$ROOT/tests/lib.sh"
"\$WHEELPICK" tags --python 3.11 >"\$1"
echo "checks: 1 passed, 0 failed"
EOF
expect_exit 0 "tags from a probe test file" env WHEELPICK_PLATFORM=win32 bash "$TMP/t-tags.sh" "$TMP/tags"
expect_grep "the tags are this machine's" '^cp311-cp311-' "$TMP/tags"
expect_no_grep "not the caller's win32" 'win32' "$TMP/tags"
done_testing
