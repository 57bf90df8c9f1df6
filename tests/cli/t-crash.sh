#!/usr/bin/env bash
# tests/cli/t-crash.sh: the attack matrix, part 5: crashes and concurrency. kill -9 at random
# points of `update --conda` and `pick -d` (WP_CRASH_KILLS each, 30 in make test: a kill costs a
# fraction of a second and 100 add a minute; `make crash` runs 100), then the catalog passes
# PRAGMA integrity_check, a re-run completes, and what the killed runs left is swept and never
# taken up. Two `pick -d` into one folder at once both finish with a sound wheelhouse.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attacks-lib.sh"
KILLS=${WP_CRASH_KILLS:-30}
export WHEELPICK_RETRY_BASE_MS=20
make_sample
SRV="$TMP/srv"
mkdir -p "$SRV/w" "$SRV/idx"
"$PYTHON" "$FIX" big-repodata "$SRV/chan" 60000
mkwheel "$SRV/w" big-pkg 1.0 --pad 4000000
BIG=$W_FN
printf '<a href="../w/%s#sha256=%s">x</a>\n' "$W_FN" "$W_SHA" >"$SRV/idx/big.html"
# the big wheel arrives in 0.1 s steps over 0.2 s, so that kills land in the middle of it
script "{\"/w/$BIG\": {\"trickle\": 20000000}}"
start_server "$SRV" "$TMP/script.json"
CH="$BASE/chan"
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"
# kill_loop N CMD...: start CMD, kill -9 it after 10-300 ms, N times
kill_loop() {
	local n=$1 i pid
	shift
	for i in $(seq 1 "$n"); do
		"$@" >/dev/null 2>&1 &
		pid=$!
		sleep "0.$((RANDOM % 3))$((RANDOM % 10))$((RANDOM % 10 + 1))"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
}

attack "kill -9 during update --conda ($KILLS times, 60,000 records over http): the catalog stays sound"
fresh k1
kill_loop "$KILLS" "$WHEELPICK" update --conda --force -c "$CH"
expect_eq "PRAGMA integrity_check" "$(sql 'PRAGMA integrity_check')" ok
left=$(find "$WHEELPICK_CACHE_DIR/tmp" -name 'wheelpick-repodata.*' 2>/dev/null | wc -l)
echo "    ($left files left by the killed updates)"
sleep 2 # (a lock younger than that may be a crawl's that has not taken it yet)
expect_exit 0 "a re-run completes" wp update --conda --force -c "$CH"
expect_eq "and sweeps what the killed runs left" "$(find "$WHEELPICK_CACHE_DIR/tmp" -name 'wheelpick-repodata.*' | wc -l)" 0
expect_eq "all records are there" "$(sql 'SELECT sum(n_files) FROM conda_chunks')" 60000
expect_eq "integrity after" "$(sql 'PRAGMA integrity_check')" ok

attack "kill -9 during pick -d ($KILLS times): never a partial file under a final name, leftovers swept"
fresh k2
kill_loop "$KILLS" "$WHEELPICK" torch torchvision big-pkg $T --index "$FINDLINKS" --index "$BASE/idx/big.html" -d "$TMP/whk"
for f in "$TMP"/whk/*.whl; do
	[ -e "$f" ] || continue
	"$WHEELPICK" verify "$f" >/dev/null 2>&1 || fail "partial wheel under its final name: $f"
done
pass "every wheel under a final name verifies"
echo "    ($(find "$WHEELPICK_CACHE_DIR/files/tmp" -type f 2>/dev/null | wc -l) store temp files and" \
	"$(find "$TMP/whk" -name '*.tmp.*' 2>/dev/null | wc -l) wheelhouse temp names left by the kills)"
sleep 2
expect_exit 0 "a re-run completes" wp torch torchvision big-pkg $T --index "$FINDLINKS" --index "$BASE/idx/big.html" -d "$TMP/whk"
expect_exit 0 "and the wheelhouse verifies" wp verify "$TMP/whk"
expect_eq "the store's tmp/ is swept" "$(find "$WHEELPICK_CACHE_DIR/files/tmp" -type f | wc -l)" 0
expect_eq "no temp name is left in the wheelhouse" "$(find "$TMP/whk" -name '*.tmp.*' | wc -l)" 0
expect_eq "integrity" "$(sql 'PRAGMA integrity_check')" ok

attack "a killed download's temp file is never taken up by a later process (unique names, locks)"
fresh k3
mkdir -p "$WHEELPICK_CACHE_DIR/files/tmp"
# what a killed run with the PID the next one gets would have left: a name with our PID in it
printf 'garbage' >"$WHEELPICK_CACHE_DIR/files/tmp/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl.tmp.$$.00000000"
touch -d '1 minute ago' "$WHEELPICK_CACHE_DIR/files/tmp/"*
expect_exit 0 "a pick" wp torch==1.8.0 --no-deps $T --index "$FINDLINKS" -d "$TMP/wh3"
expect_exit 0 "whose wheel verifies" wp verify "$TMP/wh3"
expect_eq "the stale file is gone" "$(find "$WHEELPICK_CACHE_DIR/files/tmp" -type f | wc -l)" 0

attack "two pick -d into one folder at once, ten times: both finish, the wheelhouse is sound"
fresh k4
expect_exit 0 "a catalog" wp update --index "$FINDLINKS"
bad=0
for i in $(seq 1 10); do
	rm -rf "$TMP/wh4"
	"$WHEELPICK" torch torchvision $T --index "$FINDLINKS" -d "$TMP/wh4" >/dev/null 2>"$TMP/p1.err" &
	p1=$!
	"$WHEELPICK" torch torchvision $T --index "$FINDLINKS" -d "$TMP/wh4" >/dev/null 2>"$TMP/p2.err"
	r2=$?
	wait $p1
	r1=$?
	if [ "$r1$r2" != 00 ] || ! "$WHEELPICK" verify "$TMP/wh4" >/dev/null 2>&1; then
		bad=$((bad + 1))
		cat "$TMP/p1.err" "$TMP/p2.err" >&2
	fi
done
expect_eq "ten rounds without a failure" "$bad" 0
expect_eq "no temp name left" "$(find "$TMP/wh4" -name '*.tmp.*' | wc -l)" 0

attack "two update --conda of one channel at once: both finish, nothing lost or doubled"
fresh k5
"$WHEELPICK" update --conda --force -c "$CH" >/dev/null 2>"$TMP/u1.err" &
u1=$!
"$WHEELPICK" update --conda --force -c "$CH" >/dev/null 2>"$TMP/u2.err"
r2=$?
wait $u1
expect_eq "both exit 0" "$?$r2" 00
expect_eq "all records, once" "$(sql 'SELECT sum(n_files) FROM conda_chunks')" 60000

done_matrix
