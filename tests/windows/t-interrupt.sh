#!/usr/bin/env bash
# tests/windows/t-interrupt.sh: a download run by wheelpick.exe under wine, stopped while a wheel
# trickles in from the loopback fault server: by SIGINT, which wine turns into a console Ctrl-C
# event (CTRL_C_EVENT to the handler SetConsoleCtrlHandler registered: the proof is the handler's
# own line on stderr, which a process merely killed by the signal would not write), and by kill -9.
# Either way the wheelhouse holds no half-written file and no temp name, Ctrl-C is exit 130 as on
# Linux, what arrived is kept in the cache's files\partial, and the next run completes and verifies.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/winlib.sh"
make_sample
EXE=$WHEELPICK
T="--cuda 11.2 --python 3.8 --platform win_amd64"
TORCH=torch-1.8.0+cu111-cp38-cp38-win_amd64.whl
TW=/whl/cu111/torch-1.8.0%2Bcu111-cp38-cp38-win_amd64.whl
TSHA=$(sha256sum "$SAMPLE/whl/cu111/$TORCH" | cut -c1-64)
W_TMP=$(winpath "$TMP")
wwp() { wine "$EXE" "$@" | tr -d '\r'; return "${PIPESTATUS[0]}"; }
# the wheelhouse holds finished wheels and its own files only, every wheel the sample's bytes
whole_only() {
	local f odd=''
	for f in "$2"/* "$2"/.[!.]*; do
		[ -e "$f" ] || continue
		case "$(basename "$f")" in
		requirements.txt | pylock.toml | wheelpick.json | sbom.cdx.json) ;;
		*.whl) cmp -s "$f" "$(find "$SAMPLE/whl" -name "$(basename "$f")" | head -1)" || odd="$odd $(basename "$f")(not whole)" ;;
		*) odd="$odd $(basename "$f")" ;;
		esac
	done
	[ -z "$odd" ] && pass "$1" || fail "$1:$odd"
}
printf '{"%s": {"trickle": 200}}' "$TW" >"$TMP/script.json"
start_server "$SAMPLE" "$TMP/script.json"

# start_run NAME: a run into $TMP/wh-NAME in the background (wine itself: $! is the Windows process),
# back once the torch wheel has begun to arrive in the cache's partial folder
start_run() {
	export WHEELPICK_CATALOG="$W_TMP\\$1.sqlite3" WHEELPICK_CACHE_DIR="$W_TMP\\cache $1"
	wine "$EXE" torch==1.8.0 $T --index "$BASE/simple/" -d "$W_TMP\\wh-$1" >"$TMP/out" 2>"$TMP/err" &
	RUN_PID=$!
	local i
	for i in $(seq 1 200); do [ -s "$TMP/cache $1/files/partial/$TSHA" ] && break; sleep 0.05; done
	[ -s "$TMP/cache $1/files/partial/$TSHA" ] && pass "$1: the torch wheel is arriving" ||
		fail "$1: nothing arrived in '$TMP/cache $1/files/partial' ($(cat "$TMP/err"))"
	sleep 0.5
}

# Ctrl-C
start_run int
kill -INT "$RUN_PID"
wait "$RUN_PID"
st=$?
[ "$st" = 130 ] && pass "Ctrl-C: exit 130" || fail "Ctrl-C: exit $st"
expect_grep "the console control handler ran: its line, naming where what arrived is kept" \
	"^wheelpick: interrupted; what had arrived of unfinished downloads is kept in .*cache int.files.partial, and the next run resumes it" "$TMP/err"
whole_only "no half-written file or temp name in the wheelhouse" "$TMP/wh-int"
kept=$(stat -c %s "$TMP/cache int/files/partial/$TSHA" 2>/dev/null || echo 0)
[ "$kept" -gt 0 ] && [ "$kept" -lt 1023 ] && pass "part of the wheel is kept ($kept bytes)" || fail "kept $kept bytes"
printf '{}' >"$TMP/script.json"
: >"$TMP/server.log"
expect_exit 0 "the next run completes" wwp torch==1.8.0 $T --index "$BASE/simple/" -d "$W_TMP\\wh-int"
expect_grep "saying it resumed" "resumed [0-9]+ downloads? where an earlier run stopped" "$TMP/err"
expect_grep "asking for the rest of the torch wheel only" "\"Range\": ?\"bytes=$kept-\".*\"path\": ?\"$TW\"|\"path\": ?\"$TW\".*\"Range\": ?\"bytes=$kept-\"" "$TMP/server.log"
expect_file "the torch wheel is there" "$TMP/wh-int/$TORCH"
whole_only "every wheel whole" "$TMP/wh-int"
expect_exit 0 "and the wheelhouse verifies" wwp verify "$W_TMP\\wh-int"

# kill -9: no handler runs
printf '{"%s": {"trickle": 200}}' "$TW" >"$TMP/script.json"
: >"$TMP/server.log"
start_run kill
kill -KILL "$RUN_PID"
wait "$RUN_PID"
st=$?
[ "$st" = 137 ] && pass "kill -9: killed (137)" || fail "kill -9: exit $st"
whole_only "no half-written file or temp name in the wheelhouse" "$TMP/wh-kill"
printf '{}' >"$TMP/script.json"
expect_exit 0 "the next run completes" wwp torch==1.8.0 $T --index "$BASE/simple/" -d "$W_TMP\\wh-kill"
expect_file "the torch wheel is there" "$TMP/wh-kill/$TORCH"
whole_only "every wheel whole" "$TMP/wh-kill"
expect_exit 0 "and the wheelhouse verifies" wwp verify "$W_TMP\\wh-kill"
done_testing
