#!/usr/bin/env bash
# tests/cli/t-reproducible.sh: the same inputs give byte-identical bundles (wheel and conda, whole
# and in volumes) and mirrors, built on other paths with other catalogs, caches and clocks; the
# member mtime is SOURCE_DATE_EPOCH when given, else 0; no host name, user or time inside.
. "$(dirname "$0")/../lib.sh"
make_sample
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$TMP/chan" "$TMP/forge" >/dev/null
C=(--conda -c "file://$TMP/chan" -c "file://$TMP/forge" --cuda 11.2 --python 3.8 --platform linux-64)

# build N DIR [env...]: a bundle, its volumes, a conda bundle and a mirror under DIR, with a catalog
# and cache of its own (each build fetches everything again)
build() {
	local dir=$1
	shift
	mkdir -p "$dir/out" "$dir/vol" "$dir/conda"
	env WHEELPICK_CATALOG="$dir/c.db" WHEELPICK_CACHE_DIR="$dir/cache" "$@" "$WHEELPICK" bundle "$dir/out/torch.tar.zst" \
		torch==1.8.0 torchvision $T --index "$FINDLINKS" >"$dir/log" 2>&1 &&
	env WHEELPICK_CATALOG="$dir/c.db" WHEELPICK_CACHE_DIR="$dir/cache" "$@" "$WHEELPICK" bundle "$dir/vol/torch.tar.zst" \
		torch==1.8.0 torchvision $T --index "$FINDLINKS" --split 2K >>"$dir/log" 2>&1 &&
	env WHEELPICK_CATALOG="$dir/c.db" WHEELPICK_CACHE_DIR="$dir/cache" "$@" "$WHEELPICK" bundle "$dir/conda/torch.tar.zst" \
		pytorch==1.8.0 "${C[@]}" >>"$dir/log" 2>&1 &&
	env WHEELPICK_CATALOG="$dir/c.db" WHEELPICK_CACHE_DIR="$dir/cache" "$@" "$WHEELPICK" mirror "$dir/m" \
		torch==1.8.0 torchvision $T --index "$FINDLINKS" >>"$dir/log" 2>&1
}
tree_sums() { (cd "$1" && find . -type f ! -name '.wheelpick-lock' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }

build "$TMP/a/one/place" && pass "first build" || { fail "first build"; cat "$TMP/a/one/place/log" >&2; }
sleep 1.1 # another second on the clock
build "$TMP/b" TZ=Asia/Kolkata && pass "second build, elsewhere" || { fail "second build"; cat "$TMP/b/log" >&2; }
cmp "$TMP/a/one/place/out/torch.tar.zst" "$TMP/b/out/torch.tar.zst" && pass "the bundles are byte-identical" ||
	fail "the bundles differ"
n=$(ls "$TMP/b/vol" | grep -c '\.[0-9][0-9][0-9]$')
[ "$n" -gt 1 ] && pass "split into $n volumes" || fail "not split: $n volumes"
for v in "$TMP"/b/vol/torch.tar.zst.*; do
	cmp -s "$v" "$TMP/a/one/place/vol/$(basename "$v")" || fail "volume $(basename "$v") differs"
done
pass "every volume is byte-identical"
cmp "$TMP/a/one/place/conda/torch.tar.zst" "$TMP/b/conda/torch.tar.zst" && pass "the conda bundles are byte-identical" ||
	fail "the conda bundles differ"
tree_sums "$TMP/a/one/place/m" >"$TMP/m1"
tree_sums "$TMP/b/m" >"$TMP/m2"
cmp -s "$TMP/m1" "$TMP/m2" && pass "the mirrors are byte-identical, file by file" || { fail "the mirrors differ"; diff "$TMP/m1" "$TMP/m2" >&2; }

# nothing of the machine inside: no host name, user, build path or today's date
mkdir -p "$TMP/x"
tar --zstd -xf "$TMP/b/out/torch.tar.zst" -C "$TMP/x"
tar --zstd -xf "$TMP/b/conda/torch.tar.zst" -C "$TMP/x"
host=$(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)
today=$(date -u +%Y-%m-%d)
for d in "$TMP/x" "$TMP/b/m"; do
	if grep -rqF -- "$TMP/b" "$d"; then fail "a build path inside $(basename "$d")"; else pass "no build path in $(basename "$d")"; fi
	if [ ${#host} -ge 4 ] && grep -rqwF -- "$host" "$d"; then fail "the host name inside $d"; else pass "no host name in $(basename "$d")"; fi
	if grep -rqF -- "$today" "$d"; then fail "today's date inside $d: $(grep -rlF -- "$today" "$d" | head -3)"; else pass "no date in $(basename "$d")"; fi
done
tar --zstd -tvf "$TMP/b/out/torch.tar.zst" >"$TMP/tv"
awk '$2 != "0/0" || $4 != "1970-01-01" { bad = 1 } END { exit bad }' "$TMP/tv" && pass "owner 0/0, mtime 0" ||
	{ fail "owner or mtime"; head -3 "$TMP/tv" >&2; }

# SOURCE_DATE_EPOCH sets every member's mtime, and still gives the same bytes twice
build "$TMP/c" SOURCE_DATE_EPOCH=1700000000 && pass "a build with SOURCE_DATE_EPOCH" || fail "build with SOURCE_DATE_EPOCH"
build "$TMP/d" SOURCE_DATE_EPOCH=1700000000 && pass "again" || fail "again"
cmp "$TMP/c/out/torch.tar.zst" "$TMP/d/out/torch.tar.zst" && pass "byte-identical under SOURCE_DATE_EPOCH" || fail "differ under SOURCE_DATE_EPOCH"
TZ=UTC tar --zstd -tvf "$TMP/c/out/torch.tar.zst" >"$TMP/tv"
awk '$4 != "2023-11-14" { bad = 1 } END { exit bad }' "$TMP/tv" && pass "every mtime is SOURCE_DATE_EPOCH's" ||
	{ fail "mtime is not SOURCE_DATE_EPOCH"; head -3 "$TMP/tv" >&2; }
expect_exit 2 "a SOURCE_DATE_EPOCH that is no number is refused" env SOURCE_DATE_EPOCH=yesterday "$WHEELPICK" bundle \
	"$TMP/e.tar.zst" torch==1.8.0 $T --index "$FINDLINKS"
expect_grep "naming it" "SOURCE_DATE_EPOCH='yesterday'" "$TMP/err"

done_testing
