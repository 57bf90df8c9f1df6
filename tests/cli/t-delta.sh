#!/usr/bin/env bash
# tests/cli/t-delta.sh: bundle --since OLD writes only what the far side lacks, with a manifest chained
# to the old tree; `wheelpick apply` lays it on there, checking the chain, each file and the result as
# a whole, and leaves the folder as it was when anything is wrong. OLD may be the earlier bundle, its
# volumes, or the far side's `verify --manifest`. Split volumes work for deltas too.
. "$(dirname "$0")/../lib.sh"
FIX="$ROOT/tests/cli/attacks_fixtures.py"
W="$TMP/srv/whl"
mkdir -p "$W" "$TMP/near"
T="--cuda 12.4 --python 3.11 --platform linux_x86_64"
wheel() { "$PYTHON" "$FIX" wheel "$W" "$@" >/dev/null || fail "cannot make wheel $1 $2"; }
links() {
	local f
	for f in "$W"/*.whl; do
		printf '<a href="whl/%s#sha256=%s">x</a>\n' "$(basename "$f" | sed 's/+/%2B/')" "$(sha256sum "$f" | cut -c1-64)"
	done >"$TMP/srv/links.html"
}
tree_sums() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }
# nine dependencies and torch 2.5.1: a 10-wheel bundle
deps=()
for p in alpha bravo charlie delta echo foxtrot golf hotel india; do
	wheel "$p" 1.0 --payload "name = '$p'  # $(printf '%*s' 2000 '' | tr ' ' x)"
	deps+=(--requires "$p>=1.0")
done
wheel torch 2.5.1+cu121 --tag cp311-cp311-linux_x86_64 "${deps[@]}" --payload "v = '2.5.1' # $(printf '%*s' 4000 '' | tr ' ' y)"
links
IDX="file://$TMP/srv/links.html"
expect_exit 0 "the first bundle: torch and what it needs" wp bundle "$TMP/near/old.tar.zst" torch $T --index "$IDX"
n=$(tar --zstd -tf "$TMP/near/old.tar.zst" | grep -c '\.whl$')
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', wanted '$3'"; fi; }
expect_eq "it holds 10 wheels" "$n" 10
mkdir -p "$TMP/far"
tar --zstd -xf "$TMP/near/old.tar.zst" -C "$TMP/far"
expect_exit 0 "the far side's folder verifies" wp verify "$TMP/far/old"

# a new torch build that also needs a new project
wheel juliet 1.0
wheel torch 2.5.2+cu121 --tag cp311-cp311-linux_x86_64 "${deps[@]}" --requires "juliet>=1.0" --payload "v = '2.5.2'"
links
expect_exit 0 "a delta against the old bundle" wp bundle "$TMP/near/d1.tar.zst" torch $T --index "$IDX" --since "$TMP/near/old.tar.zst" --refresh
expect_grep "it says how much it carries" "a delta against .*old\.tar\.zst: [0-9]+ file\(s\) carried" "$TMP/out"
tar --zstd -tf "$TMP/near/d1.tar.zst" | grep '\.whl$' | sed 's|^d1/||' | sort >"$TMP/carried"
printf '%s\n' juliet-1.0-py3-none-any.whl 'torch-2.5.2+cu121-cp311-cp311-linux_x86_64.whl' >"$TMP/want"
cmp -s "$TMP/carried" "$TMP/want" && pass "the delta carries only the new torch and what it newly needs" ||
	{ fail "the delta carries other wheels"; cat "$TMP/carried" >&2; }
old_size=$(stat -c %s "$TMP/near/old.tar.zst") d_size=$(stat -c %s "$TMP/near/d1.tar.zst")
[ "$d_size" -lt "$old_size" ] && pass "smaller than the whole ($d_size < $old_size bytes)" || fail "the delta is not smaller"
tar --zstd -xOf "$TMP/near/d1.tar.zst" d1/wheelpick-delta.json >"$TMP/d1.json"
"$PYTHON" - "$TMP/d1.json" "$TMP/near/old.tar.zst" "$WHEELPICK" <<'EOF' && pass "its manifest is chained to the old tree" || fail "the chain is wrong"
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
assert d["wheelpick_delta"] == 1 and len(d["previous"]["tree"]) == 64 and len(d["previous"]["manifest_sha256"]) == 64
carried = sorted(f["path"] for f in d["files"] if f["carried"])
assert "juliet-1.0-py3-none-any.whl" in carried and not any(p.startswith("alpha") for p in carried), carried
assert any(f["path"].startswith("alpha") and not f["carried"] for f in d["files"])
EOF

# the far side: apply, and the result verifies as a whole
expect_exit 0 "apply the delta" wp apply "$TMP/near/d1.tar.zst" "$TMP/far/old"
expect_grep "saying what it did" "applied .* 2 file\(s\)|applied .*file\(s\) carried, [0-9]+ kept, 1 removed; the tree verifies" "$TMP/out"
expect_file "the new torch is there" "$TMP/far/old/torch-2.5.2+cu121-cp311-cp311-linux_x86_64.whl"
expect_no_file "the old one is gone" "$TMP/far/old/torch-2.5.1+cu121-cp311-cp311-linux_x86_64.whl"
expect_file "juliet is there" "$TMP/far/old/juliet-1.0-py3-none-any.whl"
expect_exit 0 "the result verifies" wp verify "$TMP/far/old"
expect_grep "requirements pin the new torch" "^torch==2\.5\.2\+cu121 " "$TMP/far/old/requirements.txt"
# the same as the whole new bundle, unpacked
expect_exit 0 "the whole new bundle, for comparison" wp bundle "$TMP/near/old.tar.zst" torch $T --index "$IDX"
mkdir -p "$TMP/whole" && tar --zstd -xf "$TMP/near/old.tar.zst" -C "$TMP/whole"
tree_sums "$TMP/whole/old" >"$TMP/s1"
tree_sums "$TMP/far/old" >"$TMP/s2"
cmp -s "$TMP/s1" "$TMP/s2" && pass "the far side now holds exactly the new bundle's files" || { fail "the trees differ"; diff "$TMP/s1" "$TMP/s2" >&2; }
ls -a "$TMP/far" | grep -q '\.\(new\|delta\)-' && fail "staging left beside the folder" || pass "no staging left"

# applied twice, or onto another tree: the chain does not hold, nothing changes
tree_sums "$TMP/far/old" >"$TMP/before"
expect_exit 4 "the same delta again is refused" wp apply "$TMP/near/d1.tar.zst" "$TMP/far/old"
expect_grep "naming the broken chain" "was made against tree .* but .* is tree" "$TMP/err"
expect_grep "and that the folder was left as it was" "was left as it was" "$TMP/err"
tree_sums "$TMP/far/old" >"$TMP/after"
cmp -s "$TMP/before" "$TMP/after" && pass "the folder is unchanged" || fail "the folder changed"

# the far side exports its manifest; a delta made against it; volumes
mkdir -p "$TMP/far2"
tar --zstd -xf "$TMP/near/old.tar.zst" -C "$TMP/far2" # the new whole, as a far side that has it
expect_exit 0 "verify --manifest on the far side" wp verify "$TMP/far2/old" --manifest "$TMP/far2.json"
expect_grep "a manifest" '"wheelpick_manifest": 1' "$TMP/far2.json"
wheel kilo 1.0
wheel torch 2.5.3+cu121 --tag cp311-cp311-linux_x86_64 "${deps[@]}" --requires "juliet>=1.0" --requires "kilo" --payload "v = '2.5.3' # $(printf '%*s' 4000 '' | tr ' ' z)"
links
expect_exit 0 "a delta against the far side's manifest, in volumes" wp bundle "$TMP/near/d2.tar.zst" torch $T \
	--index "$IDX" --since "$TMP/far2.json" --split 2K --refresh
nv=$(ls "$TMP/near" | grep -c '^d2\.tar\.zst\.[0-9][0-9][0-9]$')
[ "$nv" -gt 1 ] && pass "in $nv volumes" || fail "not split: $nv"
expect_exit 0 "the delta's volumes apply (the folder named with a trailing /)" wp apply "$TMP/near/d2.tar.zst.001" "$TMP/far2/old/"
expect_file "torch 2.5.3" "$TMP/far2/old/torch-2.5.3+cu121-cp311-cp311-linux_x86_64.whl"
expect_exit 0 "and verify" wp verify "$TMP/far2/old"

# a tampered delta: a carried file with other bytes; the folder stays as it was
mkdir -p "$TMP/far3" "$TMP/bad"
tar --zstd -xf "$TMP/whole/../near/old.tar.zst" -C "$TMP/far3" 2>/dev/null || tar --zstd -xf "$TMP/near/old.tar.zst" -C "$TMP/far3"
expect_exit 0 "verify --manifest again" wp verify "$TMP/far3/old" --manifest "$TMP/far3.json"
expect_exit 0 "a delta for it" wp bundle "$TMP/near/d3.tar.zst" torch $T --index "$IDX" --since "$TMP/far3.json"
tar --zstd -xf "$TMP/near/d3.tar.zst" -C "$TMP/bad"
printf 'tampered' >>"$TMP/bad/d3/kilo-1.0-py3-none-any.whl"
(cd "$TMP/bad" && tar --zstd -cf "$TMP/near/bad.tar.zst" d3)
tree_sums "$TMP/far3/old" >"$TMP/before"
expect_exit 4 "a tampered carried file is refused" wp apply "$TMP/near/bad.tar.zst" "$TMP/far3/old"
expect_grep "naming it" "kilo-1\.0-py3-none-any\.whl' hashes to [0-9a-f]{64}, but the delta's manifest says" "$TMP/err"
tree_sums "$TMP/far3/old" >"$TMP/after"
cmp -s "$TMP/before" "$TMP/after" && pass "the folder is unchanged" || fail "the folder changed"
ls -a "$TMP/far3" | grep -q '\.\(new\|delta\)-' && fail "staging left beside the folder" || pass "no staging left"
# conda bundles take --since too: a cuda10.2 closure over a cuda11.1 one carries the packages that differ
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$TMP/chan" "$TMP/forge" >/dev/null
C=(--conda -c "file://$TMP/chan" -c "file://$TMP/forge" --python 3.8 --platform linux-64)
expect_exit 0 "a conda bundle" wp bundle "$TMP/near/c.tar.zst" pytorch==1.8.0 "${C[@]}" --cuda 11.2
mkdir -p "$TMP/farc" && tar --zstd -xf "$TMP/near/c.tar.zst" -C "$TMP/farc"
expect_exit 0 "a conda delta" wp bundle "$TMP/near/cd.tar.zst" pytorch==1.8.0 "${C[@]}" --cuda 10.2 --since "$TMP/near/c.tar.zst"
tar --zstd -tf "$TMP/near/cd.tar.zst" | grep '\.tar\.bz2$' | sed 's|.*/||' | sort >"$TMP/ccarried"
printf '%s\n' cudatoolkit-10.2.89-hfd86e86_1.tar.bz2 pytorch-1.8.0-py3.8_cuda10.2_cudnn7.6.5_0.tar.bz2 >"$TMP/cwant"
cmp -s "$TMP/ccarried" "$TMP/cwant" && pass "it carries only the two packages that differ" || { fail "conda delta carries"; cat "$TMP/ccarried" >&2; }
expect_exit 0 "it applies" wp apply "$TMP/near/cd.tar.zst" "$TMP/farc/c"
expect_exit 0 "and the channel with its locks verifies" wp verify "$TMP/farc/c"
expect_grep "the lock names the cuda10.2 build" "pytorch-1\.8\.0-py3\.8_cuda10\.2" "$TMP/farc/c/explicit-linux-64.txt"

expect_exit 2 "apply needs a delta and a folder" wp apply "$TMP/near/d3.tar.zst"
expect_exit 2 "a whole bundle is no delta" wp apply "$TMP/near/old.tar.zst" "$TMP/far3/old"

done_testing
