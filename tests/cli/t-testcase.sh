#!/usr/bin/env bash
# tests/cli/t-testcase.sh: pick --write-testcase writes a tests/solve case that replays the
# resolution with no network (build/tests/test_solve_cases FILE), for a pick and for a failure.
. "$(dirname "$0")/../lib.sh"
python3 "$ROOT/tests/fixtures/mkindex.py" "$TMP/idx" >/dev/null || { fail "mkindex.py could not write the index"; done_testing; exit 1; }
start_server "$TMP/idx"
REPLAY="$(dirname "$WHEELPICK")/tests/test_solve_cases"
[ -x "$REPLAY" ] || { fail "'$REPLAY' missing: make $(dirname "$WHEELPICK")/tests/test_solve_cases first"; done_testing; exit 1; }
TOKEN=tc-s3cr3t-token
T=(--cuda 12.4 --python 3.12 --platform manylinux_2_28_x86_64 --platform win_amd64 --dry-run)

# a pick with its dependencies, for two targets, from an index whose URL carries credentials
expect_exit 0 "pick writes a testcase" wp torch "${T[@]}" --index "http://alice:$TOKEN@127.0.0.1:$PORT/whl/" \
	--write-testcase "$TMP/pick.t"
expect_file "the case" "$TMP/pick.t"
expect_no_grep "no credentials in it" "$TOKEN|alice" "$TMP/pick.t"
expect_no_grep "no temporary file left beside it" "." <(ls -A "$TMP" | grep -v '^pick\.t$' | grep 'pick\.t')
expect_grep "both targets" "^target +python=3.12 platform=win_amd64 cuda=12.4$" "$TMP/pick.t"
expect_grep "the request" "^request +torch$" "$TMP/pick.t"
expect_grep "the files the index offered, the ones not picked too" "^file +cpu/torch-2.10.0%2Bcpu-cp310-cp310-win_amd64.whl variant=cpu sha256=[0-9a-f]{64}$" "$TMP/pick.t"
expect_grep "where each came from, without userinfo" "^# http://127.0.0.1:$PORT/whl/cu128/torch-2.10.0%2Bcu128-cp312-cp312-win_amd64.whl$" "$TMP/pick.t"
expect_grep "the dependencies the metadata gave" "^dep +cu128/torch-2.10.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl nvidia-cudnn-cu12==9.10.2.21" "$TMP/pick.t"
expect_grep "what was picked, per target" "^expect +@1 cu128/torch-2.10.0%2Bcu128-cp312-cp312-win_amd64.whl$" "$TMP/pick.t"
expect_exit 0 "the case replays" "$REPLAY" "$TMP/pick.t"
expect_grep "as one passing case" "^\\[ +OK +\\] .*/pick.t$" "$TMP/out"

# a requirement's own URL keeps no credentials either (the request is written as given, masked)
expect_exit 2 "a direct URL is refused, and the case still written" wp "sympy @ http://bob:$TOKEN@127.0.0.1:$PORT/whl/sympy-1.14.0-py3-none-any.whl" \
	"${T[@]}" --no-deps --index "http://127.0.0.1:$PORT/whl/" --write-testcase "$TMP/direct.t"
expect_grep "the request, masked" "^request +sympy @ http://\*\*\*@127.0.0.1:$PORT/whl/sympy" "$TMP/direct.t"
expect_no_grep "without the token" "$TOKEN" "$TMP/direct.t"
expect_grep "the failure it met" "^exit +usage$" "$TMP/direct.t"

# the replay checks what it says: another torch expected fails it
sed 's|^expect \{1,\}@1 cu128/torch-2.10.0%2Bcu128-cp312-cp312-win_amd64.whl$|expect     @1 cpu/torch-2.10.0%2Bcpu-cp312-cp312-win_amd64.whl|' \
	"$TMP/pick.t" >"$TMP/edited.t"
expect_grep "(the edit took)" "^expect +@1 cpu/torch" "$TMP/edited.t"
expect_exit 1 "an edited expect line fails the replay" "$REPLAY" "$TMP/edited.t"
expect_grep "and says what was picked instead" "expected 'cpu/torch-2.10.0\+cpu-cp312-cp312-win_amd64.whl' for target 1" "$TMP/err"

# nothing fits: the case records the failure, and replays it
expect_exit 1 "a pick where nothing fits still writes its case" wp torch==2.4.0 torchvision==0.20.0 "${T[@]}" \
	--index "http://127.0.0.1:$PORT/whl/" --write-testcase "$TMP/fail.t"
expect_grep "the failure expected" "^exit +nomatch$" "$TMP/fail.t"
expect_grep "with the head of its message" "^message +no torch release matches '==2.4.0'$" "$TMP/fail.t"
expect_no_grep "and nothing picked" "^expect" "$TMP/fail.t"
expect_exit 0 "the failure replays" "$REPLAY" "$TMP/fail.t"
sed 's/^exit .*/expect     none/' "$TMP/fail.t" | grep -v '^message' >"$TMP/fail-edited.t"
expect_exit 1 "a case expecting success instead fails the replay" "$REPLAY" "$TMP/fail-edited.t"

# lock resolves the same way, and writes the same kind of case
expect_exit 0 "lock writes a testcase" wp lock torch --cuda 12.4 --python 3.12 --platform manylinux_2_28_x86_64 \
	--index "http://127.0.0.1:$PORT/whl/" -o "$TMP/pylock.toml" --write-testcase "$TMP/lock.t"
expect_grep "with the lock's pick" "^expect +cu128/torch-2.10.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl$" "$TMP/lock.t"
expect_exit 0 "the lock's case replays" "$REPLAY" "$TMP/lock.t"

# the file is written whole or not at all; a case that cannot be written fails a good pick
expect_exit 3 "an unwritable testcase path: exit 3" wp torch "${T[@]}" --index "http://127.0.0.1:$PORT/whl/" \
	--write-testcase "$TMP/no/such/dir/case.t"
expect_grep "naming the path" "$TMP/no/such/dir" "$TMP/err"
expect_exit 2 "--lock resolves nothing: no testcase to write" wp "${T[@]}" --lock "$TMP/none.toml" --write-testcase "$TMP/x.t"
expect_exit 2 "conda resolves through another solver" wp pytorch --conda --write-testcase "$TMP/x.t" --dry-run

stop_server
done_testing
