#!/usr/bin/env bash
# tests/cli/t-pool.sh: a deflated wheel's members are inflated and hashed on a pool of threads as
# the download writes them (issue 29). A torch-shaped wheel (bench/mkwheel.py torch_wheel: many .py
# files, a few big shared objects, all deflated) is taken; the same with one byte of a member
# changed (the page's sha256 is the changed file's, so only RECORD can catch it) is refused with
# exit 4 naming the member; `verify` says the same of both files; and a second pick with the store
# warm asks the server nothing at all.
. "$(dirname "$0")/../lib.sh"
D="$TMP/srv"
mkdir -p "$D"
good=torchlike-1.0-cp38-cp38-linux_x86_64.whl
bad=torchbad-1.0-cp38-cp38-linux_x86_64.whl
python3 "$ROOT/bench/mkwheel.py" torch "$D/$good" torchlike 1.0 cp38-cp38-linux_x86_64 5000000 >/dev/null
python3 "$ROOT/bench/mkwheel.py" torch "$D/$bad" torchbad 1.0 cp38-cp38-linux_x86_64 5000000 >/dev/null
# a byte two thirds in (a shared object's deflated data, past the first MiB: the pool's)
python3 - "$D/$bad" <<'PY'
import sys, zipfile
p = sys.argv[1]
z = zipfile.ZipFile(p)
m = max(z.infolist(), key=lambda i: i.compress_size)
at = m.header_offset + 30 + len(m.filename.encode()) + len(m.extra) + m.compress_size * 2 // 3
b = bytearray(open(p, "rb").read())
b[at] ^= 0x20
open(p, "wb").write(bytes(b))
print(m.filename, file=open(p + ".member", "w"))
PY
member=$(cat "$D/$bad.member")
sha() { sha256sum "$1" | cut -d' ' -f1; }
printf '<a href="%s#sha256=%s">%s</a>\n<a href="%s#sha256=%s">%s</a>\n' \
	"$good" "$(sha "$D/$good")" "$good" "$bad" "$(sha "$D/$bad")" "$bad" >"$D/index.html"
start_server "$D"
T=(--cuda cpu --python 3.8 --platform linux_x86_64 --no-deps --index "$BASE/index.html")

expect_exit 0 "the deflated wheel is fetched and proven" wp torchlike "${T[@]}" -d "$TMP/dest"
expect_file "it is in the wheelhouse" "$TMP/dest/$good"
expect_exit 4 "a member's changed byte is refused" wp torchbad "${T[@]}" -d "$TMP/dest2"
expect_grep "naming the member" "member '$member'" "$TMP/err"
expect_no_file "nothing in the wheelhouse" "$TMP/dest2/$bad"

expect_exit 0 "verify: the good file" wp verify "$TMP/dest/$good"
expect_exit 4 "verify: the changed one" wp verify "$D/$bad"
cat "$TMP/out" "$TMP/err" >"$TMP/both"
expect_grep "verify names the member" "member '$member'" "$TMP/both"

n=$(wc -l <"$TMP/server.log")
expect_exit 0 "a second pick, the store warm" wp torchlike "${T[@]}" -d "$TMP/dest3"
expect_file "the wheelhouse again" "$TMP/dest3/$good"
[ "$(wc -l <"$TMP/server.log")" = "$n" ] && pass "it asked the server nothing" ||
	fail "it asked the server: $(tail -n +"$((n + 1))" "$TMP/server.log" | head -3)"
done_testing
