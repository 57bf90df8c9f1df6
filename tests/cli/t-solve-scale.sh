#!/usr/bin/env bash
# tests/cli/t-solve-scale.sh: resolutions the size of real environments, on the default 8 MiB
# stack. A 256-line requirements file, or one wheel with 256 Requires-Dist, crashed the recursive
# solver with SIGSEGV and no message; 512 projects were refused. Here a web of 1,200 projects
# (tests/fixtures/mkweb.py: a binary tree of dependencies, upper bounds that force the solver back
# a version) resolves through the command, and every pick is checked against the web's rules.
. "$(dirname "$0")/../lib.sh"
ulimit -s 8192

web="$TMP/web"
"$PYTHON" "$ROOT/tests/fixtures/mkweb.py" "$web" 1200 --hub 300
target=(--cuda cpu --python 3.12 --platform manylinux_2_28_x86_64)

# every pick fits every requirement of every other pick, and each project is where the rules leave it
check_web() { # $1: the --json plan; $2: how many picks
	local got
	got=$("$PYTHON" - "$1" "$2" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
picks = {p["project"]: p["version"] for p in plan["picks"]}
want_n = int(sys.argv[2])
bad = []
if len(plan["picks"]) != want_n:
    bad.append(f"{len(plan['picks'])} picks, wanted {want_n}")
for name, v in picks.items():
    if name == "hub":
        continue
    k = int(name[1:])
    expect = "2.0" if k % 10 == 5 else "3.0"
    if v != expect:
        bad.append(f"{name} {v}, the rules leave {expect}")
print("; ".join(bad[:5]) or "ok")
PY
)
	if [ "$got" = ok ]; then pass "the plan $1 fits the web"; else fail "the plan $1: $got"; fi
}

# 300 lines of -r: one level per line, each a project of the web
for i in $(seq 0 299); do echo "p$i"; done >"$TMP/req.txt"
expect_exit 0 "a 300-line requirements file resolves" \
	wp pick -r "$TMP/req.txt" --index "file://$web/index.html" "${target[@]}" --dry-run --json
cp "$TMP/out" "$TMP/req.json"
check_web "$TMP/req.json" 1200

# one wheel with 300 Requires-Dist
expect_exit 0 "a wheel with 300 Requires-Dist resolves" \
	wp pick hub --index "file://$web/index.html" "${target[@]}" --dry-run --json
cp "$TMP/out" "$TMP/hub.json"
check_web "$TMP/hub.json" 1201
expect_json "$TMP/hub.json" '"newer versions were given up: 3.0 (it conflicts with an earlier pick)" in [p["reason"] for p in j["picks"] if p["project"] == "p5"][0]' \
	True

# the same from the catalog, warm: no page is read again, and the answer is the same
expect_exit 0 "the warm pick resolves" wp pick hub --offline "${target[@]}" --dry-run --json
cp "$TMP/out" "$TMP/warm.json"
check_web "$TMP/warm.json" 1201

# a project the target can never have, under 1,200 others: "nothing fits" naming it, quickly
# (the search jumps back to the picks to blame instead of trying every combination in between)
"$PYTHON" - "$web" <<'PY'
import re, sys
path = sys.argv[1] + "/index.html"
page = open(path).read()
# p1199's files need Python 2 on the page (data-requires-python), so no file of it fits
page = re.sub(r'(<a href="p1199-[^"]*")', r'\1 data-requires-python="&lt;3"', page)
open(path, "w").write(page)
PY
expect_exit 1 "a web one of whose projects cannot be had fails" \
	wp pick hub --index "file://$web/index.html" --refresh "${target[@]}" --dry-run
expect_grep "the message names the project that cannot be had" "p1199" "$TMP/err"
expect_no_grep "not a step limit" "choices; pin versions" "$TMP/err"

done_testing
