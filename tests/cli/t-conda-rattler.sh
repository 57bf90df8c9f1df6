#!/usr/bin/env bash
# tests/cli/t-conda-rattler.sh: a real conda solver over the same channels as wheelpick. rattler
# (conda's Rust library behind pixi, @conda-org/rattler from npm as WebAssembly under node,
# installed by `make deps` into build/node) solves each conda request over the channels served on
# 127.0.0.1, plus a stand-in channel that serves the target's virtual packages (__glibc, __cuda)
# as ordinary packages (rattler's simpleSolve knows none). Its closure must be wheelpick's, or
# differ only by one of wheelpick's documented policies, which the test then states to rattler as
# a spec and checks that the closures become equal:
#   - the driver rule: wheelpick takes the newest CUDA build the target's driver runs; rattler
#     alone prefers the newest build (here cudatoolkit 11.1 for an 11.0 driver) -> cudatoolkit <=X.Y;
#   - a CPU target takes the CPU build; rattler alone avoids the cpuonly track feature -> cpuonly.
# Then rattler solves over the local channel wheelpick wrote (-d), alone, and over the channel in a
# bundle --conda (the real conda client over it): exactly the same closure.
. "$(dirname "$0")/../lib.sh"
RATTLER_DIR=${WP_RATTLER_DIR:-$ROOT/build/node}
SOLVE="$ROOT/tests/cli/rattler_solve.cjs"
if [ ! -f "$RATTLER_DIR/node_modules/@conda-org/rattler/package.json" ] || ! command -v node >/dev/null; then
	fail "rattler is not installed in $RATTLER_DIR (make deps installs it with npm)"
	done_testing; exit 1
fi
SRV=$TMP/srv
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$SRV/chan" "$SRV/forge"
start_server "$SRV"
CH=$BASE/chan FORGE=$BASE/forge

# the stand-in channel of virtual packages for a target: virt-CUDA/ (cpu: no __cuda)
virt() { # CUDA|cpu
	python3 - "$SRV/virt-$1" "$1" <<'PY'
import json, os, sys
out, cuda = sys.argv[1], sys.argv[2]
def rec(n, v):
    return {"name": n, "version": v, "build": "0", "build_number": 0, "depends": [], "subdir": "linux-64",
            "md5": "0" * 32, "size": 1}
pk = {"__glibc-2.28-0.tar.bz2": rec("__glibc", "2.28")}
if cuda != "cpu":
    pk["__cuda-%s-0.tar.bz2" % cuda] = rec("__cuda", cuda)
for sd, p in (("linux-64", pk), ("noarch", {})):
    os.makedirs(os.path.join(out, sd), exist_ok=True)
    json.dump({"info": {"subdir": sd}, "packages": p, "packages.conda": {}, "repodata_version": 1},
              open(os.path.join(out, sd, "repodata.json"), "w"))
PY
}

# closure NAME VERSION BUILD lines, sorted, without virtual packages: from rattler's JSON lines
closure_rattler() { python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
for r in sorted(rows, key=lambda r: r["name"]):
    if not r["name"].startswith("__"):
        print(r["name"], r["version"], r["build"])'; }
# ... and from wheelpick pick --json
closure_wp() { python3 -c '
import json, sys
j = json.load(sys.stdin)
for p in sorted(j["picks"], key=lambda p: p["name"]):
    print(p["name"], p["version"], p["build"])' <"$1"; }

same=0 policy=0
check() { # NAME CUDA POLICY_SPEC REQUEST...
	local name=$1 cuda=$2 pspec=$3
	shift 3
	local tgt=(--cuda "$cuda" --python 3.8 --platform linux-64)
	virt "$cuda"
	if ! wp pick "$@" --conda -c "$CH" -c "$FORGE" "${tgt[@]}" --dry-run --json >"$TMP/wp.json" 2>"$TMP/wp.err"; then
		fail "$name: wheelpick picks nothing"; sed 's/^/      | /' "$TMP/wp.err" >&2; return
	fi
	closure_wp "$TMP/wp.json" >"$TMP/want"
	if ! node "$SOLVE" "$RATTLER_DIR" linux-64 "$CH" "$FORGE" "$BASE/virt-$cuda" -- "$@" "python 3.8.*" \
		>"$TMP/r.jsonl" 2>"$TMP/r.err"; then
		fail "$name: rattler finds no solution"; sed 's/^/      | /' "$TMP/r.err" >&2; return
	fi
	closure_rattler <"$TMP/r.jsonl" >"$TMP/got"
	if cmp -s "$TMP/want" "$TMP/got"; then
		pass "$name: rattler's closure is wheelpick's"; same=$((same + 1))
	elif [ -n "$pspec" ]; then
		node "$SOLVE" "$RATTLER_DIR" linux-64 "$CH" "$FORGE" "$BASE/virt-$cuda" -- "$@" "python 3.8.*" "$pspec" 2>"$TMP/r.err" |
			closure_rattler >"$TMP/got2"
		if cmp -s "$TMP/want" "$TMP/got2"; then
			pass "$name: the closures differ only by wheelpick's policy ($pspec)"; policy=$((policy + 1))
		else
			fail "$name: rattler's closure differs, and not only by '$pspec'"
			diff "$TMP/want" "$TMP/got2" | sed 's/^/      | /' >&2
		fi
	else
		fail "$name: rattler's closure differs from wheelpick's"; diff "$TMP/want" "$TMP/got" | sed 's/^/      | /' >&2
	fi
	# the local channel wheelpick writes, alone (with the virtual packages): the same closure
	local dest="$SRV/local-$name"
	if ! wp pick "$@" --conda -c "$CH" -c "$FORGE" "${tgt[@]}" -d "$dest" >/dev/null 2>"$TMP/wp.err"; then
		fail "$name: wheelpick writes no local channel"; sed 's/^/      | /' "$TMP/wp.err" >&2; return
	fi
	if node "$SOLVE" "$RATTLER_DIR" linux-64 "$BASE/local-$name" "$BASE/virt-$cuda" -- "$@" "python 3.8.*" \
		>"$TMP/l.jsonl" 2>"$TMP/l.err" && closure_rattler <"$TMP/l.jsonl" | cmp -s "$TMP/want" -; then
		pass "$name: rattler over the local channel solves to the same closure"
	else
		fail "$name: rattler over the local channel"; cat "$TMP/l.err" | sed 's/^/      | /' >&2
		closure_rattler <"$TMP/l.jsonl" | diff "$TMP/want" - | sed 's/^/      | /' >&2
	fi
}

check cu112 11.2 "cudatoolkit <=11.2" 'pytorch==1.8.0'
# the channel inside bundle --conda (what install.sh hands conda offline), unpacked and served
if wp bundle "$TMP/b.tar.gz" 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda 11.2 --python 3.8 --platform linux-64 \
	>/dev/null 2>"$TMP/b.err" && mkdir -p "$SRV/bundle" && tar -xf "$TMP/b.tar.gz" -C "$SRV/bundle" &&
	node "$SOLVE" "$RATTLER_DIR" linux-64 "$BASE/bundle/b/channel" "$BASE/virt-11.2" -- 'pytorch==1.8.0' "python 3.8.*" \
	>"$TMP/b.jsonl" 2>>"$TMP/b.err" && closure_rattler <"$TMP/b.jsonl" | cmp -s "$TMP/want" -; then
	pass "bundle --conda: rattler over the bundle's channel solves to wheelpick's closure"
else
	fail "bundle --conda: rattler over the bundle's channel"; sed 's/^/      | /' "$TMP/b.err" >&2
fi
check cu110 11.0 "cudatoolkit <=11.0" 'pytorch==1.8.0'
check cpu cpu "cpuonly" 'pytorch==1.8.0'
check newest 11.2 "cudatoolkit <=11.2" pytorch
check backtrack 11.0 "cudatoolkit <=11.0" pytorch 'torchvision==0.8.2'
echo "    rattler: $same closures the same, $policy differing only by a documented policy" >&2
[ $((same + policy)) = 5 ] && pass "every request compared" || fail "compared $((same + policy)) of 5"
done_testing
