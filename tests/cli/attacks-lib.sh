# tests/cli/attacks-lib.sh: helpers of the attack matrix (tests/cli/t-attacks*.sh), sourced after
# tests/lib.sh. Each case starts with `attack "what must hold"`; its checks follow, and the file's
# log gets one line per case: "held  CASE" or "FAIL  CASE" (build*/test-results/cli-t-attacks*.log).
FIX="$ROOT/tests/cli/attacks_fixtures.py"
_case=
_case_fails=0
_cases_held=0
_cases_failed=0
attack() {
	end_attack
	_case=$1
	_case_fails=$_fails
}
end_attack() {
	[ -n "$_case" ] || return 0
	if [ "$_fails" = "$_case_fails" ]; then
		printf 'held  %s\n' "$_case"
		_cases_held=$((_cases_held + 1))
	else
		printf 'FAIL  %s\n' "$_case"
		_cases_failed=$((_cases_failed + 1))
	fi
	_case=
}
done_matrix() {
	end_attack
	echo "matrix: $_cases_held cases held, $_cases_failed failed"
	done_testing
}

# A fresh catalog and cache, named, so that one case's trust and store do not leak into the next.
fresh() { export WHEELPICK_CATALOG="$TMP/$1.sqlite3" WHEELPICK_CACHE_DIR="$TMP/cache-$1"; }
# The fault server's script, swapped in atomically.
script() { printf '%s' "$1" >"$TMP/script.tmp" && mv "$TMP/script.tmp" "$TMP/script.json"; }
# mkwheel DIR NAME VERSION [fixture options]: sets W_FN, W_SHA, W_SIZE
mkwheel() {
	local out
	out=$("$PYTHON" "$FIX" wheel "$@") || { fail "cannot make wheel $2"; return 1; }
	read -r W_FN W_SHA W_SIZE <<<"$out"
}
# sql QUERY: against the current catalog
sql() { sqlite3 "$WHEELPICK_CATALOG" "$1" 2>&1; }
# expect_eq DESC GOT WANT
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', wanted '$3'"; fi; }
# expect_fast DESC SECONDS CMD...: exit code lands in $RC; fails when it took longer
expect_fast() {
	local desc=$1 limit=$2 start
	shift 2
	start=$(date +%s)
	"$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	ELAPSED=$(($(date +%s) - start))
	if [ "$ELAPSED" -le "$limit" ]; then pass "$desc (${ELAPSED} s)"; else fail "$desc: took ${ELAPSED} s, over $limit s"; fi
}
# one_line DESC FILE: the failure is said in one line ("wheelpick: ..."; warnings, notes and the
# progress lines of the transfers before it aside)
one_line() {
	local n
	n=$(grep '^wheelpick: ' "$2" | grep -Evc '^wheelpick: (warning|note): ')
	if [ "$n" = 1 ]; then pass "$1"; else fail "$1: $n lines"; sed 's/^/      | /' "$2" | head -5 >&2; fi
}
# no_crash DESC RC: an exit code the README documents (0-4), never a signal or a sanitizer's
no_crash() { case "$2" in 0 | 1 | 2 | 3 | 4) pass "$1 (exit $2)" ;; *) fail "$1: exit $2"; sed 's/^/      | /' "$TMP/err" | head -5 >&2 ;; esac; }
