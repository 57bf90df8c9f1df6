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
# a wheel under 1 MiB whose one big member (356 KB deflated) still goes to the pool: its
# members are hashed when it is sealed, on a checker thread (the store's deferred tap), not as
# it arrives; a changed byte in that member is refused all the same
python3 - "$D" <<'PY'
import base64, hashlib, os, random, sys, zipfile
d = sys.argv[1]
rnd = random.Random(5)
big = b" ".join(b"w%d" % rnd.randrange(50000) for _ in range(300000))[:900000]
def h(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
for name, flip in (("smallok", False), ("smallbad", True)):
    di = f"{name}-1.0.dist-info"
    files = {f"{name}/__init__.py": b"x = 1\n", f"{name}/data.txt": big,
             f"{di}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode(),
             f"{di}/WHEEL": b"Wheel-Version: 1.0\nGenerator: t-pool\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{di}/RECORD"] = ("".join(f"{n},{h(b)},{len(b)}\n" for n, b in files.items()) + f"{di}/RECORD,,\n").encode()
    if flip:
        files[f"{name}/data.txt"] = big[:1000] + b"Z" + big[1001:]
    with zipfile.ZipFile(os.path.join(d, f"{name}-1.0-py3-none-any.whl"), "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in files.items():
            z.writestr(n, b)
PY
for w in smallok smallbad; do
	printf '<a href="%s#sha256=%s">%s</a>\n' "$w-1.0-py3-none-any.whl" "$(sha "$D/$w-1.0-py3-none-any.whl")" \
		"$w-1.0-py3-none-any.whl" >>"$D/small.html"
done
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

S=(--cuda cpu --python 3.8 --platform linux_x86_64 --no-deps --index "$BASE/small.html")
expect_exit 0 "a wheel under 1 MiB with a pooled member is fetched and proven" wp smallok "${S[@]}" -d "$TMP/sdest"
expect_file "it is in the wheelhouse" "$TMP/sdest/smallok-1.0-py3-none-any.whl"
expect_exit 4 "its changed byte is refused" wp smallbad "${S[@]}" -d "$TMP/sdest2"
expect_grep "naming the member" "member 'smallbad/data.txt'" "$TMP/err"

n=$(wc -l <"$TMP/server.log")
expect_exit 0 "a second pick, the store warm" wp torchlike "${T[@]}" -d "$TMP/dest3"
expect_file "the wheelhouse again" "$TMP/dest3/$good"
[ "$(wc -l <"$TMP/server.log")" = "$n" ] && pass "it asked the server nothing" ||
	fail "it asked the server: $(tail -n +"$((n + 1))" "$TMP/server.log" | head -3)"
done_testing
