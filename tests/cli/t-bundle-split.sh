#!/usr/bin/env bash
# tests/cli/t-bundle-split.sh: bundle --split SIZE writes volumes (.001, .002, ...) each at most SIZE,
# which joined are the very bundle an unsplit run writes; verify checks them as a set and names a
# missing, cut or foreign volume.
. "$(dirname "$0")/../lib.sh"
make_sample
T="--cuda 11.2 --python 3.8 --platform linux_x86_64 --index $FINDLINKS"
mkdir -p "$TMP/one" "$TMP/vol"

# shellcheck disable=SC2086
expect_exit 0 "an unsplit bundle" wp bundle "$TMP/one/t.tar.zst" torch==1.8.0 $T
# shellcheck disable=SC2086
expect_exit 0 "the same bundle in 1K volumes" wp bundle "$TMP/vol/t.tar.zst" torch==1.8.0 $T --split 1K
expect_grep "the summary says how to join them" "cat .*/vol/t.tar.zst.\[0-9\]\[0-9\]\[0-9\] \| tar --zstd -xf -" "$TMP/out"
n=$(ls "$TMP/vol" | grep -c '^t\.tar\.zst\.[0-9][0-9][0-9]$')
[ "$n" -ge 2 ] && pass "$n volumes" || fail "expected several volumes, saw $n"
expect_grep "and how many" "\($n volumes of at most 1024 bytes" "$TMP/out"
expect_no_file "no archive under the base name" "$TMP/vol/t.tar.zst"
big=$(find "$TMP/vol" -name 't.tar.zst.*' -size +1024c | wc -l)
[ "$big" = 0 ] && pass "none is over 1K" || fail "$big volume(s) over 1K"
left=$(ls -a "$TMP/vol" | grep -vc '^t\.tar\.zst\.[0-9][0-9][0-9]$\|^\.\.\?$')
[ "$left" = 0 ] && pass "no temp file left beside them" || fail "leftovers: $(ls -a "$TMP/vol")"
mkdir -p "$TMP/unpack" "$TMP/unpack1"
cat "$TMP"/vol/t.tar.zst.[0-9][0-9][0-9] | tar -C "$TMP/unpack" --zstd -xf - &&
	pass "cat | tar --zstd -x unpacks them" || fail "the README's join does not unpack"
expect_file "install.sh inside" "$TMP/unpack/t/install.sh"
expect_no_grep "wheelpick.json names no local path" '"path":"/' "$TMP/unpack/t/wheelpick.json"
# what a bundle carries beside the wheels: the requirement file install.sh reads, and the PEP 751 lock
expect_grep "requirements.txt, with hashes" "--hash=sha256:[0-9a-f]{64}" "$TMP/unpack/t/requirements.txt"
expect_grep "pylock.toml" "^lock-version = \"1.0\"" "$TMP/unpack/t/pylock.toml"
tar -C "$TMP/unpack1" --zstd -xf "$TMP/one/t.tar.zst"
# (byte for byte the unsplit bundle, wheelpick.json too: it names files by their place in the bundle)
diff -r "$TMP/unpack" "$TMP/unpack1" >/dev/null && pass "joined, they hold what the unsplit bundle holds" ||
	fail "the joined volumes hold other files than the unsplit bundle"

# verify by any volume, or by the base name
expect_exit 0 "verify the first volume" wp verify "$TMP/vol/t.tar.zst.001"
expect_grep "checks the bundle inside" "bundle" "$TMP/out"
expect_exit 0 "verify the last volume" wp verify "$TMP/vol/t.tar.zst.$(printf %03d "$n")"
expect_exit 0 "verify the base name" wp verify "$TMP/vol/t.tar.zst"

# a missing volume, a cut one, a cut last one, a foreign one: exit 4, each named
[ "$n" -ge 3 ] && pass "at least three volumes to take apart" || fail "only $n volumes"
cp -r "$TMP/vol" "$TMP/miss" && rm "$TMP/miss/t.tar.zst.002"
expect_exit 4 "a missing volume" wp verify "$TMP/miss/t.tar.zst.001"
expect_grep "is named" "t\.tar\.zst\.002' is missing" "$TMP/err"
cp -r "$TMP/vol" "$TMP/cut" && truncate -s 500 "$TMP/cut/t.tar.zst.002"
expect_exit 4 "a volume cut short" wp verify "$TMP/cut/t.tar.zst"
expect_grep "is named" "t\.tar\.zst\.002' is 500 bytes where every volume but the last is" "$TMP/err"
last=$(printf %03d "$n")
cp -r "$TMP/vol" "$TMP/cutlast" && truncate -s 100 "$TMP/cutlast/t.tar.zst.$last"
expect_exit 4 "the last volume cut short" wp verify "$TMP/cutlast/t.tar.zst.001"
expect_grep "is named" "t\.tar\.zst\.$last' ends the bundle early" "$TMP/err"
cp -r "$TMP/vol" "$TMP/extra" && head -c 300 /dev/urandom >"$TMP/extra/t.tar.zst.$(printf %03d $((n + 1)))"
expect_exit 4 "a volume that does not belong" wp verify "$TMP/extra/t.tar.zst.001"
expect_grep "is named" "t\.tar\.zst\.$last' is [0-9]+ bytes where every volume but the last is .*do not belong" "$TMP/err"
rm -f "$TMP/extra/t.tar.zst.002"
expect_exit 4 "volumes with a hole" wp verify "$TMP/extra/t.tar.zst"
expect_grep "name the first missing one" "t\.tar\.zst\.002' is missing" "$TMP/err"

# a re-run with larger volumes: fewer of them, and none of the old ones left to be read with them
# shellcheck disable=SC2086
expect_exit 0 "a re-run in 2K volumes" wp bundle "$TMP/vol/t.tar.zst" torch==1.8.0 $T --split 2K
expect_file "two volumes" "$TMP/vol/t.tar.zst.002"
expect_no_file "the old third one is gone" "$TMP/vol/t.tar.zst.003"
expect_exit 0 "it verifies" wp verify "$TMP/vol/t.tar.zst.001"

# sizes people type, and ones that are no size: exit 2 before anything is resolved
# shellcheck disable=SC2086
expect_exit 0 "--split 4000000000 (bytes)" wp bundle "$TMP/b.tar.zst" torch==1.8.0 $T --split 4000000000
expect_file "one volume" "$TMP/b.tar.zst.001"
for bad in 0 10 4X -1 G; do
	# shellcheck disable=SC2086
	expect_exit 2 "--split '$bad' is refused" wp bundle "$TMP/bad.tar.zst" torch==1.8.0 $T --split "$bad"
done
expect_grep "saying what a size looks like" "--split 'G' is not a size of at least 1K.*--split 4G" "$TMP/err"
expect_no_file "nothing written" "$TMP/bad.tar.zst.001"
expect_grep "--help lists it" "--split SIZE" <(wp bundle --help 2>&1)
done_testing
