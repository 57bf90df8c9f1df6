#!/usr/bin/env bash
# tests/cli/t-trust.sh: no silent substitution. A pick from a company index, then from a mirror
# where the cu121 build has other bytes under the same name: every run stops (exit 1), naming
# both sources, both hashes and the trust command, and never takes cu118 in its place.
. "$(dirname "$0")/../lib.sh"
FIX="$ROOT/tests/cli/attacks_fixtures.py"
SRV="$TMP/srv"
mkdir -p "$SRV/company/whl" "$SRV/mirror/whl"
T="--cuda 12.4 --python 3.11 --platform linux_x86_64"
# wheel DIR VERSION [fixture options]: a torch wheel; sets W_FN and W_SHA
wheel() {
	local out
	out=$("$PYTHON" "$FIX" wheel "$1" torch "$2" --tag cp311-cp311-linux_x86_64 "${@:3}") || { fail "cannot make torch $2"; return 1; }
	read -r W_FN W_SHA _ <<<"$out"
}
# links DIR: a find-links page over the wheels in DIR/whl (a '+' written as %2B, as PyTorch's pages do)
links() {
	local f
	for f in "$1"/whl/*.whl; do
		printf '<a href="whl/%s#sha256=%s">%s</a>\n' "$(basename "$f" | sed 's/+/%2B/')" \
			"$(sha256sum "$f" | cut -c1-64)" "$(basename "$f")"
	done >"$1/links.html"
}
for v in cu121 cu118 cpu; do
	wheel "$SRV/company/whl" "2.5.1+$v"
	cp "$SRV/company/whl/$W_FN" "$SRV/mirror/whl/"
done
wheel "$SRV/company/whl" 2.5.1+cu121
GOOD=$W_SHA FN=$W_FN
rm "$SRV/mirror/whl/$FN"
wheel "$SRV/mirror/whl" 2.5.1+cu121 --payload 'rebuilt = 1  # other bytes under the same name'
EVIL=$W_SHA
[ "$GOOD" != "$EVIL" ] && pass "the mirror's cu121 has other bytes" || fail "the fixture's two cu121 builds are one"
links "$SRV/company"
links "$SRV/mirror"
start_server "$SRV"
CO="$BASE/company/links.html" MI="$BASE/mirror/links.html"
URL_CO="$BASE/company/whl/torch-2.5.1%2Bcu121-cp311-cp311-linux_x86_64.whl"
URL_MI="$BASE/mirror/whl/torch-2.5.1%2Bcu121-cp311-cp311-linux_x86_64.whl"

expect_exit 0 "run 1, the company index: cu121" wp torch==2.5.1 $T --index "$CO" -d "$TMP/wh" --json
expect_json "$TMP/out" "j['picks'][0]['variant'], j['picks'][0]['sha256']" "('cu121', '$GOOD')"
cp "$TMP/wh/requirements.txt" "$TMP/req.before"

for run in 2 3 4; do
	expect_exit 1 "run $run from the mirror stops (exit 1)" wp torch==2.5.1 $T --index "$MI" -d "$TMP/wh"
	expect_grep "run $run names the new hash" "$EVIL" "$TMP/err"
	expect_grep "run $run names the trusted hash" "$GOOD" "$TMP/err"
	expect_grep "run $run names the mirror's file" "at '$URL_MI'" "$TMP/err"
	expect_grep "run $run names where the trusted bytes were seen" "first seen at '$URL_CO'" "$TMP/err"
	expect_grep "run $run gives the command that trusts the new bytes" "wheelpick trust '$URL_MI'" "$TMP/err"
	expect_no_grep "run $run never picks another build" "cu118" "$TMP/out"
	cmp -s "$TMP/req.before" "$TMP/wh/requirements.txt" && pass "run $run leaves requirements.txt as it was" ||
		fail "run $run rewrote requirements.txt"
done
expect_exit 1 "a dry run stops too" wp torch==2.5.1 $T --index "$MI" --dry-run
expect_exit 1 "with --json, exit 1" wp torch==2.5.1 $T --index "$MI" --dry-run --json
expect_json "$TMP/out" "j['error']['exit']" 1
expect_exit 1 "an unpinned pick stops at the same file" wp torch $T --index "$MI" --dry-run
expect_exit 1 "lock stops" wp lock torch==2.5.1 $T --index "$MI" -o "$TMP/pylock.toml"
expect_no_file "and writes no lock" "$TMP/pylock.toml"
expect_exit 1 "mirror stops" wp mirror "$TMP/mirror" torch==2.5.1 $T --index "$MI"
expect_exit 0 "asking for cu118 by name is the user's choice" wp torch==2.5.1+cu118 $T --index "$MI" --dry-run
expect_exit 0 "the company index still picks cu121" wp torch==2.5.1 $T --index "$CO" --dry-run --json
expect_json "$TMP/out" "j['picks'][0]['sha256']" "$GOOD"

expect_exit 0 "the printed trust command" wp trust "$URL_MI"
expect_exit 0 "then the mirror's cu121 is picked" wp torch==2.5.1 $T --index "$MI" -d "$TMP/wh" --json
expect_json "$TMP/out" "j['picks'][0]['variant'], j['picks'][0]['sha256']" "('cu121', '$EVIL')"
expect_grep "requirements.txt pins cu121" "^torch==2\.5\.1\+cu121 " "$TMP/wh/requirements.txt"
expect_exit 0 "and again" wp torch==2.5.1 $T --index "$MI" --dry-run

# conda: the same record re-published by a mirror of the channel with other bytes stops the pick
# too; cuda10.2 is never taken in place of cuda11.1
export WHEELPICK_CATALOG="$TMP/conda.sqlite3"
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$TMP/chan" "$TMP/forge" >/dev/null
cp -r "$TMP/chan" "$TMP/chanmirror"
"$PYTHON" - "$TMP/chanmirror/linux-64/repodata.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["packages"]["pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2"]["sha256"] = "e" * 64
json.dump(d, open(sys.argv[1], "w"))
EOF
rm -f "$TMP/chanmirror/linux-64/repodata.json.zst" "$TMP/chanmirror/linux-64/repodata_shards.msgpack.zst"
C="--conda --cuda 11.2 --python 3.8 --platform linux-64 --dry-run"
expect_exit 0 "conda, from the channel: the cuda11.1 build" wp pytorch==1.8.0 $C -c "file://$TMP/chan" -c "file://$TMP/forge"
expect_grep "cuda11.1" "pytorch 1\.8\.0 py3\.8_cuda11\.1" "$TMP/out"
for run in 2 3; do
	expect_exit 1 "conda run $run from the mirror stops (exit 1)" wp pytorch==1.8.0 $C -c "file://$TMP/chanmirror" -c "file://$TMP/forge"
	expect_grep "conda run $run names both hashes" "now has sha256 e{64} where [0-9a-f]{64} was trusted first" "$TMP/err"
	expect_grep "conda run $run gives the trust command" "wheelpick trust 'file://$TMP/chanmirror/linux-64/pytorch-1\.8\.0-py3\.8_cuda11\.1" "$TMP/err"
	expect_no_grep "conda run $run takes no other build" "cuda10\.2|_cpu_" "$TMP/out"
done
expect_exit 0 "conda: trust the mirror's record" wp trust "file://$TMP/chanmirror/linux-64/pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2"
expect_exit 0 "then it is picked" wp pytorch==1.8.0 $C -c "file://$TMP/chanmirror" -c "file://$TMP/forge"
expect_grep "the cuda11.1 build" "pytorch 1\.8\.0 py3\.8_cuda11\.1" "$TMP/out"

done_testing
