#!/usr/bin/env bash
# tests/cli/t-s3.sh: mirrors published to S3-compatible object storage, against a real Ceph RADOS
# Gateway started here (tests/server/ceph.sh), with real pip reading the bucket anonymously.
. "$(dirname "$0")/../lib.sh"
make_sample
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1

# --- a URL is never taken for a folder --------------------------------------------------------
cd "$TMP" || exit 1
expect_exit 2 "mirror refuses a scheme it does not know" wp mirror gs://bucket/prefix torch==1.8.0 --index "$FINDLINKS"
expect_grep "and says which" "does not know 'gs:' URLs" "$TMP/err"
expect_no_file "no folder named 'gs:'" "$TMP/gs:"
expect_exit 2 "bundle refuses a URL" wp bundle s3://bucket/x.tar.zst torch==1.8.0 --index "$FINDLINKS"
expect_no_file "no folder named 's3:'" "$TMP/s3:"
expect_exit 2 "verify refuses a scheme it does not know" wp verify gs://bucket/prefix
expect_exit 2 "mirror --conda refuses one too" wp mirror --conda ftp://h/channel pytorch
expect_exit 2 "a path that looks like a URL is refused, not made" wp mirror gs:/x torch==1.8.0 --index "$FINDLINKS" --dry-run --cuda 11.2 --python 3.8 --platform linux_x86_64 -q
cd - >/dev/null || exit 1

# --- a Ceph RADOS Gateway of our own ---------------------------------------------------------
stop_ceph() { "$ROOT/tests/server/ceph.sh" stop "$TMP/ceph"; }
at_exit stop_ceph
if ! "$ROOT/tests/server/ceph.sh" start "$TMP/ceph" >"$TMP/ceph.out" 2>&1; then
	fail "the Ceph fixture did not start"; cat "$TMP/ceph.out" >&2; done_testing; exit 1
fi
set -a; . "$TMP/ceph/env"; set +a
export WHEELPICK_CACHE="$TMP/cache"
B=$S3_BUCKET
SIG=(--aws-sigv4 "aws:amz:$AWS_REGION:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
# s3ls PREFIX: the keys under it (signed ListObjectsV2 by curl, not by wheelpick), without the prefix, sorted
# (curl 7.88 signs the query as written: sorted, values percent-encoded)
s3ls() {
	curl -sf "${SIG[@]}" "$S3_ENDPOINT/$B?list-type=2&prefix=${1//\//%2F}" | python3 -c '
import sys, re
p = sys.argv[1]
print("\n".join(sorted(k[len(p):] for k in re.findall(r"<Key>([^<]*)</Key>", sys.stdin.read()))))' "$1"
}
# localls DIR: the files of a local mirror, the same way
localls() { (cd "$1" && find . -type f | sed 's|^\./||' | sort); }
T=(--cuda 11.2 --cuda cpu --python 3.8 --platform linux_x86_64 --platform win_amd64 --index "$FINDLINKS")
mirror() { wp --catalog "$TMP/c.db" mirror "$@" --s3-endpoint "$S3_ENDPOINT"; }

# --- publish for four targets: the tree mirror writes on disk, as objects -----------------------
expect_exit 0 "publish a mirror for four targets" mirror "s3://$B/pub" torch==1.8.0 "${T[@]}"
expect_grep "it says what went up" "s3://$B/pub/ at $S3_ENDPOINT: 37 objects \(37 uploaded" "$TMP/err"
expect_exit 0 "the same mirror on disk" wp --catalog "$TMP/c.db" mirror "$TMP/local" torch==1.8.0 "${T[@]}"
s3ls pub/ >"$TMP/s3.list"; localls "$TMP/local" >"$TMP/local.list"
if cmp -s "$TMP/s3.list" "$TMP/local.list"; then pass "the bucket holds exactly the tree on disk"; else
	fail "the bucket differs from the tree on disk"; diff "$TMP/s3.list" "$TMP/local.list" >&2; fi
ct() { curl -s -o /dev/null -w '%{content_type}' "${SIG[@]}" "$S3_ENDPOINT/$B/pub/$1"; }
[ "$(ct simple/torch/index.html)" = "text/html; charset=utf-8" ] && pass "pages are text/html" || fail "page type: $(ct simple/torch/index.html)"
[ "$(ct simple/torch/index.json)" = "application/vnd.pypi.simple.v1+json" ] && pass "PEP 691 pages are application/vnd.pypi.simple.v1+json" || fail "json type: $(ct simple/torch/index.json)"
[ "$(ct files/pywin32/pywin32-306-py3-none-any.whl)" = "application/zip" ] && pass "wheels are application/zip" || fail "wheel type"
expect_exit 0 "verify s3:// reads it back" wp verify "s3://$B/pub" --s3-endpoint "$S3_ENDPOINT"
expect_grep "and checks the wheels and pages" "^ok s3://$B/pub \(mirror\)" "$TMP/out"
curl -s "${SIG[@]}" -H "Range: bytes=0-0" -D "$TMP/h" -o /dev/null "$S3_ENDPOINT/$B/pub/files/pywin32/pywin32-306-py3-none-any.whl"
expect_grep "each object keeps its sha256" "^x-amz-meta-sha256: [0-9a-f]{64}" "$TMP/h"
if grep -rqF "$AWS_SECRET_ACCESS_KEY" "$TMP/out" "$TMP/err" "$TMP/cache" "$TMP/c.db" 2>/dev/null; then
	fail "the secret was written somewhere"; else pass "the secret is written nowhere"; fi

# --- a re-run uploads nothing ---------------------------------------------------------------
expect_exit 0 "a re-run" mirror "s3://$B/pub" torch==1.8.0 "${T[@]}"
expect_grep "uploads nothing" "37 objects \(0 uploaded, 0 bytes; 37 unchanged; 0 removed\)" "$TMP/err"
# with another staging folder, as on another machine (the cache is new)
expect_exit 0 "a re-run from an empty cache" env WHEELPICK_CACHE="$TMP/cache2" "$WHEELPICK" --catalog "$TMP/c.db" mirror \
	"s3://$B/pub" torch==1.8.0 "${T[@]}" --s3-endpoint "$S3_ENDPOINT"
expect_grep "uploads nothing either" "37 objects \(0 uploaded" "$TMP/err"

# --- adding keeps, --prune removes exactly what no page links ----------------------------------
T2=(--cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS")
expect_exit 0 "a re-run for one target adds" mirror "s3://$B/pub" torch==1.7.1 "${T2[@]}"
wp --catalog "$TMP/c.db" mirror "$TMP/local" torch==1.7.1 "${T2[@]}" -q 2>/dev/null
s3ls pub/ >"$TMP/s3.list"; localls "$TMP/local" >"$TMP/local.list"
cmp -s "$TMP/s3.list" "$TMP/local.list" && pass "added as on disk" || { fail "adding differs from disk"; diff "$TMP/s3.list" "$TMP/local.list" >&2; }
grep -q 'torch-1.8.0+cpu-cp38-cp38-win_amd64.whl$' "$TMP/s3.list" && pass "what the first run put stays" || fail "a file was lost"
cp "$TMP/s3.list" "$TMP/before-prune.list"
expect_exit 0 "--prune for one target" mirror "s3://$B/pub" torch==1.7.1 "${T2[@]}" --prune
wp --catalog "$TMP/c.db" mirror "$TMP/local" torch==1.7.1 "${T2[@]}" --prune -q 2>/dev/null
s3ls pub/ >"$TMP/s3.list"; localls "$TMP/local" >"$TMP/local.list"
cmp -s "$TMP/s3.list" "$TMP/local.list" && pass "--prune leaves exactly the tree on disk" || { fail "pruned bucket differs from disk"; diff "$TMP/s3.list" "$TMP/local.list" >&2; }
gone=$(comm -23 "$TMP/before-prune.list" "$TMP/s3.list" | wc -l)
expect_grep "and says how many it removed" "\(.*; $gone removed\)" "$TMP/err"
[ "$gone" -gt 10 ] && pass "the other targets' files and pages went ($gone)" || fail "only $gone objects went"
expect_exit 0 "the pruned mirror verifies" wp verify "s3://$B/pub" --s3-endpoint "$S3_ENDPOINT"

done_testing
