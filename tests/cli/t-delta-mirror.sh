#!/usr/bin/env bash
# tests/cli/t-delta-mirror.sh: `mirror DIR PKG... --delta OUT` writes what the run changed in a
# PEP 503/691 mirror tree (the new wheel, its .metadata, the pages that changed, the SBOM) chained
# to the tree the far side holds; `wheelpick apply` lays it on there with the chain, each file and
# the result checked, and leaves the far side's mirror as it was when anything is wrong.
. "$(dirname "$0")/../lib.sh"
FIX="$ROOT/tests/cli/attacks_fixtures.py"
W="$TMP/srv/whl"
mkdir -p "$W" "$TMP/far"
T="--python 3.11 --platform linux_x86_64"
wheel() { "$PYTHON" "$FIX" wheel "$W" "$@" >/dev/null || fail "cannot make wheel $1 $2"; }
links() {
	local f
	for f in "$W"/*.whl; do
		printf '<a href="whl/%s#sha256=%s">x</a>\n' "$(basename "$f")" "$(sha256sum "$f" | cut -c1-64)"
	done >"$TMP/srv/links.html"
}
tree_sums() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', wanted '$3'"; fi; }
for p in alpha bravo charlie; do
	wheel "$p" 1.0 --payload "name = '$p'"
done
wheel app 1.0 --requires "alpha>=1.0" --requires "bravo>=1.0" --requires "charlie>=1.0"
links
IDX="file://$TMP/srv/links.html"
expect_exit 0 "a mirror of four wheels" wp mirror "$TMP/near" app $T --index "$IDX"
expect_eq "it holds 4 wheels" "$(find "$TMP/near/files" -name '*.whl' | wc -l)" 4
cp -a "$TMP/near" "$TMP/far/m" # the first copy crosses whole
expect_exit 0 "the far side's copy verifies" wp verify "$TMP/far/m"
expect_exit 0 "the far side says what it holds" wp verify "$TMP/far/m" --manifest "$TMP/held.json"

# usage, said before anything is fetched
expect_exit 2 "--since without --delta" wp mirror "$TMP/near" app $T --index "$IDX" --since "$TMP/held.json"
expect_exit 2 "--delta with a bad name" wp mirror "$TMP/near" app $T --index "$IDX" --delta "$TMP/d.zip"
expect_exit 2 "--delta of a mirror that does not exist, with no --since" wp mirror "$TMP/none" app $T --index "$IDX" --delta "$TMP/d.tar.zst"
expect_no_file "and nothing was made" "$TMP/none"

# a new project: the re-run adds it, and the delta carries only what changed
wheel delta 1.0 --payload "name = 'delta'"
links
expect_exit 0 "mirror delta too, writing a delta against what the far side holds" \
	wp mirror "$TMP/near" app delta $T --index "$IDX" --refresh --since "$TMP/held.json" --delta "$TMP/d1.tar.zst"
expect_grep "it says what it wrote" "wrote the delta .*d1\.tar\.zst .*file\(s\) carried" "$TMP/out"
tar --zstd -tf "$TMP/d1.tar.zst" | grep -v '/$' | sed 's|^d1/||' | sort >"$TMP/carried"
grep -q '^files/delta/delta-1.0-py3-none-any.whl$' "$TMP/carried" && pass "the new wheel travels" || fail "no new wheel"
grep -q '^files/delta/delta-1.0-py3-none-any.whl.metadata$' "$TMP/carried" && pass "its .metadata travels" || fail "no .metadata"
grep -q '^simple/index.html$' "$TMP/carried" && pass "the changed root page travels" || fail "no root page"
grep -q '^simple/delta/index.json$' "$TMP/carried" && pass "the new project's PEP 691 page travels" || fail "no project page"
grep -q '^wheelpick-delta.json$' "$TMP/carried" && pass "with its manifest" || fail "no manifest"
grep -Eq '^files/(alpha|bravo|charlie|app)/' "$TMP/carried" && fail "an old wheel travels: $(cat "$TMP/carried")" || pass "no old wheel travels"
grep -q '^simple/alpha/' "$TMP/carried" && fail "an unchanged page travels" || pass "unchanged pages stay"
grep -q '^install.sh$' "$TMP/carried" && fail "a mirror delta carries an install.sh" || pass "no install.sh"
tar --zstd -xOf "$TMP/d1.tar.zst" d1/wheelpick-delta.json >"$TMP/d1.json"
"$PYTHON" - "$TMP/d1.json" "$TMP/held.json" <<'EOF' && pass "chained to the far side's manifest" || fail "the chain is wrong"
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
assert d["wheelpick_delta"] == 1 and d["kind"] == "mirror", d.get("kind")
assert d["previous"]["manifest_sha256"] == hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
assert any(f["path"] == "files/alpha/alpha-1.0-py3-none-any.whl" and not f["carried"] for f in d["files"])
EOF

# tampered: a carried file with other bytes; the far side's mirror stays as it was
mkdir -p "$TMP/bad"
tar --zstd -xf "$TMP/d1.tar.zst" -C "$TMP/bad"
printf 'x' >>"$TMP/bad/d1/simple/delta/index.html"
(cd "$TMP/bad" && tar --zstd -cf "$TMP/bad.tar.zst" d1)
expect_exit 0 "verify checks a delta as what it is" wp verify "$TMP/d1.tar.zst"
expect_exit 4 "and finds the changed page" wp verify "$TMP/bad.tar.zst"
expect_grep "naming it" "simple/delta/index.html: sha256 is [0-9a-f]{64}, wheelpick-delta.json says" "$TMP/err"
tree_sums "$TMP/far/m" >"$TMP/before"
expect_exit 4 "a tampered page in the delta is refused" wp apply "$TMP/bad.tar.zst" "$TMP/far/m"
expect_grep "naming it" "index\.html' hashes to [0-9a-f]{64}, but the delta's manifest says" "$TMP/err"
tree_sums "$TMP/far/m" >"$TMP/after"
cmp -s "$TMP/before" "$TMP/after" && pass "the far side's mirror is unchanged" || fail "the mirror changed"
ls -a "$TMP/far" | grep -q '\.\(new\|delta\)-' && fail "staging left beside the mirror" || pass "no staging left"

# the wrong base: another mirror (here the near one, which already has the new project)
expect_exit 4 "applied onto the wrong mirror" wp apply "$TMP/d1.tar.zst" "$TMP/near"
expect_grep "naming both trees" "was made against tree .* but .* is tree" "$TMP/err"

# applied: the far side's mirror is the near one, file for file, and verifies
expect_exit 0 "apply the delta onto the far side's mirror" wp apply "$TMP/d1.tar.zst" "$TMP/far/m"
expect_exit 0 "the result verifies as a mirror" wp verify "$TMP/far/m"
tree_sums "$TMP/near" >"$TMP/s1"
tree_sums "$TMP/far/m" >"$TMP/s2"
cmp -s "$TMP/s1" "$TMP/s2" && pass "the far side now holds exactly the near mirror" || { fail "the trees differ"; diff "$TMP/s1" "$TMP/s2" >&2; }
expect_exit 4 "the same delta again is refused" wp apply "$TMP/d1.tar.zst" "$TMP/far/m"

# --delta alone: against the mirror as it was before the run; in volumes
wheel echo 1.0 --payload "name = 'echo' # $(head -c 6000 /dev/urandom | base64 -w0)"
links
expect_exit 0 "a delta against the mirror before the run, in volumes" \
	wp mirror "$TMP/near" app delta echo $T --index "$IDX" --refresh --delta "$TMP/d2.tar.zst" --split 4K
nv=$(ls "$TMP" | grep -c '^d2\.tar\.zst\.[0-9][0-9][0-9]$')
[ "$nv" -gt 1 ] && pass "in $nv volumes" || fail "not split: $nv"
expect_exit 0 "its volumes apply in turn" wp apply "$TMP/d2.tar.zst.001" "$TMP/far/m"
expect_file "echo is there" "$TMP/far/m/files/echo/echo-1.0-py3-none-any.whl"
expect_exit 0 "and the mirror verifies" wp verify "$TMP/far/m"
tree_sums "$TMP/near" >"$TMP/s1"
tree_sums "$TMP/far/m" >"$TMP/s2"
cmp -s "$TMP/s1" "$TMP/s2" && pass "still the near mirror, file for file" || { fail "the trees differ"; diff "$TMP/s1" "$TMP/s2" >&2; }

# the next month's delta against the last delta (its volumes): chained to the tree it made there
wheel foxtrot 1.0 --payload "name = 'foxtrot'"
links
expect_exit 0 "a delta against the previous delta" \
	wp mirror "$TMP/near" app delta echo foxtrot $T --index "$IDX" --refresh --since "$TMP/d2.tar.zst.001" --delta "$TMP/d3.tar.zst"
tar --zstd -tf "$TMP/d3.tar.zst" | grep -Eq '/files/echo/.' && fail "it carries what the last delta did: $(tar --zstd -tf "$TMP/d3.tar.zst" | tr '\n' ' ')" || pass "only what is new since"
expect_exit 0 "it applies after the last one" wp apply "$TMP/d3.tar.zst" "$TMP/far/m"
expect_exit 0 "and the mirror verifies" wp verify "$TMP/far/m"
tree_sums "$TMP/near" >"$TMP/s1"
tree_sums "$TMP/far/m" >"$TMP/s2"
cmp -s "$TMP/s1" "$TMP/s2" && pass "the near mirror again, file for file" || { fail "the trees differ"; diff "$TMP/s1" "$TMP/s2" >&2; }

done_testing
