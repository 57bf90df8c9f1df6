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
expect_exit 2 "bundle refuses a scheme it does not know" wp bundle gs://bucket/x.tar.zst torch==1.8.0 --index "$FINDLINKS"
expect_exit 2 "bundle to s3:// without credentials: said before any work" env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY "$WHEELPICK" bundle s3://bucket/x.tar.zst torch==1.8.0 --index "$FINDLINKS"
expect_grep "naming what to set" "needs credentials: set AWS_ACCESS_KEY_ID" "$TMP/err"
expect_no_grep "nothing was downloaded" "downloaded" "$TMP/err"
expect_no_file "no folder named 's3:'" "$TMP/s3:"
expect_exit 2 "verify refuses a scheme it does not know" wp verify gs://bucket/prefix
expect_exit 2 "mirror --conda refuses one too" wp mirror --conda ftp://h/channel pytorch
expect_exit 2 "a path that looks like a URL is refused, not made" wp mirror gs:/x torch==1.8.0 --index "$FINDLINKS" --dry-run --cuda 11.2 --python 3.8 --platform linux_x86_64 -q
cd - >/dev/null || exit 1

# --- an endpoint that takes the connection and never answers: a bounded wait, exit 3 ----------
python3 -c 'import socket, sys, time; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8); print(s.getsockname()[1], flush=True); time.sleep(60)' >"$TMP/mute.port" &
MUTE=$!
for _ in $(seq 1 50); do [ -s "$TMP/mute.port" ] && break; sleep 0.05; done
t0=$(date +%s)
expect_exit 3 "a mute endpoint fails, not hangs" env AWS_ACCESS_KEY_ID=k AWS_SECRET_ACCESS_KEY=s WHEELPICK_TIMEOUT=1 "$WHEELPICK" verify \
	s3://bucket/p --s3-endpoint "http://127.0.0.1:$(cat "$TMP/mute.port")"
[ $(($(date +%s) - t0)) -le 15 ] && pass "within \$WHEELPICK_TIMEOUT per try" || fail "took $(($(date +%s) - t0)) s"
expect_grep "naming the endpoint" "cannot list 's3://bucket/p/' at 'http://127.0.0.1:" "$TMP/err"
kill "$MUTE" 2>/dev/null; wait "$MUTE" 2>/dev/null

# --- a Ceph RADOS Gateway of our own ---------------------------------------------------------
stop_ceph() { "$ROOT/tests/server/ceph.sh" stop "$TMP/ceph"; }
at_exit stop_ceph
# the memstore holds every object in memory, and the gateway frees deleted ones only hours later
if ! CEPH_MEMSTORE_BYTES=$((2 << 30)) "$ROOT/tests/server/ceph.sh" start "$TMP/ceph" >"$TMP/ceph.out" 2>&1; then
	fail "the Ceph fixture did not start"; cat "$TMP/ceph.out" >&2; done_testing; exit 1
fi
set -a; . "$TMP/ceph/env"; set +a
export WHEELPICK_CACHE_DIR="$TMP/cache"
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
# (sbom.cdx.json among them)
expect_grep "it says what went up" "s3://$B/pub/ at $S3_ENDPOINT: 38 objects \(38 uploaded" "$TMP/err"
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
grep '^checked' "$TMP/out" >"$TMP/checked-whole"
# ListObjectsV2 in pages of 5 keys: the continuation token carries the listing through
expect_exit 0 "verify s3:// with a listing paged every 5 keys" env WHEELPICK_S3_LIST_PAGE=5 "$WHEELPICK" verify "s3://$B/pub" --s3-endpoint "$S3_ENDPOINT"
grep '^checked' "$TMP/out" | cmp -s - "$TMP/checked-whole" && pass "reads every object ($(cat "$TMP/checked-whole"))" || fail "a paged listing read $(grep '^checked' "$TMP/out"), not $(cat "$TMP/checked-whole")"
expect_exit 0 "a re-run paged every 5 keys" env WHEELPICK_S3_LIST_PAGE=5 "$WHEELPICK" --catalog "$TMP/c.db" mirror "s3://$B/pub" torch==1.8.0 "${T[@]}" --s3-endpoint "$S3_ENDPOINT"
expect_grep "sees every object, so uploads nothing" "38 objects \(0 uploaded" "$TMP/err"
curl -s "${SIG[@]}" -H "Range: bytes=0-0" -D "$TMP/h" -o /dev/null "$S3_ENDPOINT/$B/pub/files/pywin32/pywin32-306-py3-none-any.whl"
expect_grep "each object keeps its sha256" "^x-amz-meta-sha256: [0-9a-f]{64}" "$TMP/h"
if grep -rqF "$AWS_SECRET_ACCESS_KEY" "$TMP/out" "$TMP/err" "$TMP/cache" "$TMP/c.db" 2>/dev/null; then
	fail "the secret was written somewhere"; else pass "the secret is written nowhere"; fi

# --- a re-run uploads nothing ---------------------------------------------------------------
expect_exit 0 "a re-run" mirror "s3://$B/pub" torch==1.8.0 "${T[@]}"
expect_grep "uploads nothing" "38 objects \(0 uploaded, 0 bytes; 38 unchanged; 0 removed\)" "$TMP/err"
# with another staging folder, as on another machine (the cache is new)
expect_exit 0 "a re-run from an empty cache" env WHEELPICK_CACHE_DIR="$TMP/cache2" "$WHEELPICK" --catalog "$TMP/c.db" mirror \
	"s3://$B/pub" torch==1.8.0 "${T[@]}" --s3-endpoint "$S3_ENDPOINT"
expect_grep "uploads nothing either" "38 objects \(0 uploaded" "$TMP/err"

# --- over TLS with a private CA: S3 takes the CA as every other transfer does -------------------
# nginx in front of the gateway, with a certificate for 127.0.0.1 from a CA made here (the Host
# header passed as sent, so the SigV4 signature still matches)
C="$TMP/ca"
mkdir -p "$C" "$TMP/ngx/logs"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$C/ca.key" -out "$C/ca.pem" \
	-days 2 -subj /CN=wheelpick-test-ca >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$C/srv.key" -out "$C/srv.csr" \
	-subj /CN=127.0.0.1 >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1\n' >"$C/ext"
openssl x509 -req -in "$C/srv.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial -out "$C/srv.pem" -days 2 \
	-extfile "$C/ext" >/dev/null 2>&1
TP=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMP/ngx/nginx.conf" <<NGX
$([ "$(id -u)" = 0 ] && echo "user root;")
worker_processes 1;
error_log $TMP/ngx/logs/error.log;
pid $TMP/ngx/logs/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $TMP/ngx/logs/body;
  proxy_temp_path $TMP/ngx/logs/proxy;
  fastcgi_temp_path $TMP/ngx/logs/fastcgi;
  uwsgi_temp_path $TMP/ngx/logs/uwsgi;
  scgi_temp_path $TMP/ngx/logs/scgi;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$TP ssl;
    ssl_certificate $C/srv.pem;
    ssl_certificate_key $C/srv.key;
    location / {
      proxy_pass $S3_ENDPOINT;
      proxy_set_header Host \$http_host;
      proxy_http_version 1.1;
      proxy_request_buffering off;
      proxy_buffering off;
    }
  }
}
NGX
/usr/sbin/nginx -p "$TMP/ngx" -c "$TMP/ngx/nginx.conf" -g "daemon off;" </dev/null >/dev/null 2>"$TMP/ngx/stderr" &
NGINX_PID=$!
at_exit stop_nginx
for _ in $(seq 1 100); do
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $TP), 0.2)" 2>/dev/null && break
	sleep 0.05
done
TLS_EP="https://127.0.0.1:$TP"
expect_exit 3 "an https endpoint with an unknown CA: exit 3" env -u WHEELPICK_CA_BUNDLE -u AWS_CA_BUNDLE "$WHEELPICK" \
	verify "s3://$B/pub" --s3-endpoint "$TLS_EP"
expect_grep "saying how to give a private CA" "for a private CA, give its PEM file" "$TMP/err"
expect_exit 0 "WHEELPICK_CA_BUNDLE for S3" env WHEELPICK_CA_BUNDLE="$C/ca.pem" "$WHEELPICK" verify "s3://$B/pub" --s3-endpoint "$TLS_EP"
expect_exit 0 "AWS_CA_BUNDLE, as AWS tools take it" env -u WHEELPICK_CA_BUNDLE AWS_CA_BUNDLE="$C/ca.pem" "$WHEELPICK" \
	verify "s3://$B/pub" --s3-endpoint "$TLS_EP"
# --cert and pip's cert reach the S3 requests as they reach the index's (they were ignored for S3)
expect_exit 0 "mirror to S3 over TLS with --cert CA.pem" env -u WHEELPICK_CA_BUNDLE -u AWS_CA_BUNDLE "$WHEELPICK" \
	--catalog "$TMP/c.db" mirror "s3://$B/pub" torch==1.8.0 "${T[@]}" --s3-endpoint "$TLS_EP" --cert "$C/ca.pem"
expect_grep "and sees the bucket through it" "38 objects \(0 uploaded" "$TMP/err"
expect_exit 0 "mirror to S3 over TLS with PIP_CERT" env -u WHEELPICK_CA_BUNDLE -u AWS_CA_BUNDLE PIP_CERT="$C/ca.pem" \
	PIP_CONFIG_FILE=/dev/null "$WHEELPICK" --catalog "$TMP/c.db" mirror "s3://$B/pub" torch==1.8.0 "${T[@]}" \
	--s3-endpoint "$TLS_EP"
expect_exit 2 "--cert that is no file: exit 2, naming it" env -u WHEELPICK_CA_BUNDLE -u AWS_CA_BUNDLE "$WHEELPICK" \
	--catalog "$TMP/c.db" mirror "s3://$B/pub" torch==1.8.0 "${T[@]}" --s3-endpoint "$TLS_EP" --cert "$TMP/nosuch.pem"
expect_grep "as the index's transfers name it" "nosuch.pem' \(--cert\) is not a readable file" "$TMP/err"
stop_nginx

# --- adding keeps, --prune removes exactly what no page links ----------------------------------
T2=(--cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS")
expect_exit 0 "a re-run for one target adds" wp --catalog "$TMP/c.db" -v mirror "s3://$B/pub" torch==1.7.1 "${T2[@]}" --s3-endpoint "$S3_ENDPOINT"
expect_grep "its new wheels going up while the tree is staged" "the tree staged in .*; [1-9][0-9]* files put meanwhile" "$TMP/err"
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

# --- what the issue names besides: .metadata types, AWS_ENDPOINT_URL, a session token, variants ---
META=$(s3ls pub/ | grep -v '+' | grep -m1 '\.whl\.metadata$') # (a '+' in a URL path RGW takes for a space)
[ -n "$META" ] && [ "$(ct "$META")" = "text/plain; charset=utf-8" ] && pass ".metadata files are text/plain ($META)" || fail ".metadata type: '$META' $(ct "$META")"
expect_exit 0 "the endpoint from AWS_ENDPOINT_URL, as AWS tools take it" env AWS_ENDPOINT_URL="$S3_ENDPOINT" "$WHEELPICK" verify "s3://$B/pub"
expect_grep "reads the same mirror" "^ok s3://$B/pub \(mirror\)" "$TMP/out"
TOKEN=tok-$RANDOM-never-shown
expect_exit 0 "AWS_SESSION_TOKEN goes with the requests (this gateway ignores it)" env AWS_SESSION_TOKEN="$TOKEN" "$WHEELPICK" \
	--catalog "$TMP/c.db" -v mirror "s3://$B/pub" torch==1.7.1 "${T2[@]}" --s3-endpoint "$S3_ENDPOINT"
if grep -rqF "$TOKEN" "$TMP/out" "$TMP/err" "$TMP/cache" "$TMP/c.db" 2>/dev/null; then
	fail "the session token was written somewhere"; else pass "the session token is written nowhere, even with -v"; fi
# PEP 825: a variant release's variants.json goes up with its wheels, as on disk
V10=variants/variant-repack__torch-2.10__torch-2.10.0-variants.json
need_real "$V10"
python3 "$ROOT/tests/fixtures/mkvariants.py" "$TMP/vidx" "$REAL_DATA/$V10" >/dev/null
start_server "$TMP/vidx"
VM=(torch --cuda 12.8 --gpu sm_86 --python 3.12 --platform manylinux_2_28_x86_64 --index "$BASE/simple/" --allow-full-downloads)
expect_exit 0 "publish a mirror of variant wheels" wp --catalog "$TMP/v.db" mirror "s3://$B/var" "${VM[@]}" --s3-endpoint "$S3_ENDPOINT"
wp --catalog "$TMP/v.db" mirror "$TMP/lvar" "${VM[@]}" -q 2>/dev/null
s3ls var/ >"$TMP/s3.list"; localls "$TMP/lvar" >"$TMP/local.list"
cmp -s "$TMP/s3.list" "$TMP/local.list" && grep -q 'files/torch/torch-2.10.0-variants.json' "$TMP/s3.list" &&
	pass "the bucket holds the tree on disk, the variants.json with it" || { fail "the variant mirror differs from disk"; diff "$TMP/s3.list" "$TMP/local.list" >&2; }
expect_exit 0 "and verify s3:// reads it back" wp verify "s3://$B/var" --s3-endpoint "$S3_ENDPOINT"
stop_server

# --- a conda channel, as on disk, and a re-run that adds a build ----------------------------------
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$TMP/chan" "$TMP/forge" >/dev/null
CT=(--conda 'pytorch==1.8.0' -c "file://$TMP/chan" -c "file://$TMP/forge" --python 3.8 --platform linux-64)
for cu in 11.2 10.2; do
	expect_exit 0 "mirror --conda s3:// for CUDA $cu" wp --catalog "$TMP/cc.db" mirror "s3://$B/conda" "${CT[@]}" --cuda $cu --s3-endpoint "$S3_ENDPOINT"
	wp --catalog "$TMP/cc.db" -q mirror "$TMP/lchan" "${CT[@]}" --cuda $cu >/dev/null 2>&1
done
s3ls conda/ >"$TMP/s3.list"; localls "$TMP/lchan" >"$TMP/local.list"
cmp -s "$TMP/s3.list" "$TMP/local.list" && pass "the bucket holds exactly the channel on disk (both builds, repodata, shards)" || {
	fail "the channel differs from disk"; diff "$TMP/s3.list" "$TMP/local.list" >&2; }
grep -q 'pytorch-1.8.0-py3.8_cuda10.2' "$TMP/s3.list" && grep -q 'pytorch-1.8.0-py3.8_cuda11.1' "$TMP/s3.list" && pass "the second run kept the first one's build" || fail "a build was lost"
expect_exit 0 "verify s3:// reads the channel back" wp verify "s3://$B/conda" --s3-endpoint "$S3_ENDPOINT"
expect_grep "as a conda channel" "^ok s3://$B/conda \(conda channel\)" "$TMP/out"
expect_exit 0 "a re-run" wp --catalog "$TMP/cc.db" mirror "s3://$B/conda" "${CT[@]}" --cuda 10.2 --s3-endpoint "$S3_ENDPOINT"
expect_grep "uploads nothing" "objects \(0 uploaded" "$TMP/err"
[ "$(ct ../conda/linux-64/repodata.json)" = application/json ] && pass "repodata is application/json" || fail "repodata type: $(ct ../conda/linux-64/repodata.json)"

# --- a bundle as one object, or as volumes; verify reads it back -------------------------------------
BT=(torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS" --s3-endpoint "$S3_ENDPOINT")
expect_exit 0 "bundle s3://.../torch.tar.zst" wp --catalog "$TMP/c.db" bundle "s3://$B/bundles/torch.tar.zst" "${BT[@]}"
expect_exit 0 "verify s3:// reads the bundle back" wp verify "s3://$B/bundles/torch.tar.zst" --s3-endpoint "$S3_ENDPOINT"
expect_grep "and checks it as a bundle" "^ok s3://$B/bundles/torch.tar.zst \(bundle\)" "$TMP/out"
expect_exit 0 "bundle --split into volumes" wp --catalog "$TMP/c.db" bundle "s3://$B/bundles/split.tar.zst" "${BT[@]}" --split 1500
s3ls bundles/ >"$TMP/s3.list"
grep -q '^split.tar.zst.002$' "$TMP/s3.list" && ! grep -q '^split.tar.zst$' "$TMP/s3.list" && pass "one object per volume" || { fail "volumes"; cat "$TMP/s3.list" >&2; }
expect_exit 0 "verify s3:// reads the volumes back" wp verify "s3://$B/bundles/split.tar.zst" --s3-endpoint "$S3_ENDPOINT"
printf 'not zstd' >"$TMP/v2"
curl -sf -X PUT -T "$TMP/v2" "${SIG[@]}" "$S3_ENDPOINT/$B/bundles/split.tar.zst.002" >/dev/null
expect_exit 4 "a tampered volume fails verify" wp verify "s3://$B/bundles/split.tar.zst" --s3-endpoint "$S3_ENDPOINT"
expect_no_grep "naming objects, not copies" "wheelpick-verify-s3" "$TMP/err"

# --- a wheel past 64 MiB goes up in parts, and reads back whole ---------------------------------
mkdir -p "$TMP/big"
python3 "$ROOT/bench/mkwheel.py" big "$TMP/big/bigpkg-1.0-py3-none-any.whl" bigpkg 1.0 py3-none-any 70000000 >/dev/null
BSHA=$(sha256sum "$TMP/big/bigpkg-1.0-py3-none-any.whl" | cut -d' ' -f1)
echo "<a href=\"bigpkg-1.0-py3-none-any.whl#sha256=$BSHA\">bigpkg-1.0-py3-none-any.whl</a>" >"$TMP/big/links.html"
expect_exit 0 "publish a 70 MB wheel" wp --catalog "$TMP/cbig.db" mirror "s3://$B/big" bigpkg --cuda cpu --python 3.8 \
	--platform linux_x86_64 --index "file://$TMP/big/links.html" --s3-endpoint "$S3_ENDPOINT"
curl -s -I "${SIG[@]}" "$S3_ENDPOINT/$B/big/files/bigpkg/bigpkg-1.0-py3-none-any.whl" >"$TMP/h"
expect_grep "as a multipart upload (2 parts)" '^ETag: "[0-9a-f]{32}-2"' "$TMP/h"
expect_grep "with its sha256 kept" "^x-amz-meta-sha256: $BSHA" "$TMP/h"
expect_exit 0 "verify reads it back whole" wp verify "s3://$B/big" --s3-endpoint "$S3_ENDPOINT"
expect_exit 0 "a re-run" wp --catalog "$TMP/cbig.db" mirror "s3://$B/big" bigpkg --cuda cpu --python 3.8 \
	--platform linux_x86_64 --index "file://$TMP/big/links.html" --s3-endpoint "$S3_ENDPOINT"
expect_grep "uploads nothing (the ETag of parts is no MD5; the manifest vouches)" "objects \(0 uploaded" "$TMP/err"

# --- multipart resumed: an unfinished upload of the key is gone on with, keeping only our parts ------
# (as a killed run or a failed part leaves one; made here by hand: curl signs its own requests)
BIGW="$TMP/big/bigpkg-1.0-py3-none-any.whl"
BIGN=$(stat -c %s "$BIGW") P1=$((64 << 20))
BIGT=(bigpkg --cuda cpu --python 3.8 --platform linux_x86_64 --index "file://$TMP/big/links.html" --s3-endpoint "$S3_ENDPOINT")
# mpu_start KEY [SHA256]: a multipart upload begun as wheelpick begins one; prints its id
mpu_start() { curl -sf -X POST "${SIG[@]}" -H "Content-Type: application/zip" ${2:+-H "x-amz-meta-sha256: $2"} \
	"$S3_ENDPOINT/$B/$1?uploads=" | sed -n 's/.*<UploadId>\([^<]*\)<.*/\1/p'; }
mpu_part() { curl -sf -o /dev/null -X PUT -T "$4" "${SIG[@]}" "$S3_ENDPOINT/$B/$1?partNumber=$3&uploadId=$2"; } # KEY ID N FILE
mpu_count() { curl -sf "${SIG[@]}" "$S3_ENDPOINT/$B?prefix=${1//\//%2F}&uploads=" | grep -o '<Upload>' | wc -l; }
head -c "$P1" /dev/zero >"$TMP/part1.bad"               # part 1 of other bytes (the right size)
tail -c +$((P1 + 1)) "$BIGW" >"$TMP/part2"               # part 2 as it should be
BK=big2/files/bigpkg/bigpkg-1.0-py3-none-any.whl
ID=$(mpu_start "$BK" "$BSHA"); mpu_part "$BK" "$ID" 1 "$TMP/part1.bad" && mpu_part "$BK" "$ID" 2 "$TMP/part2"
ID2=$(mpu_start "$BK" "$BSHA")                             # and a second one with no parts
[ -n "$ID" ] && [ -n "$ID2" ] && [ "$(mpu_count big2/)" = 2 ] && pass "two unfinished uploads of the key, by hand" || fail "could not begin the uploads ($ID, $ID2)"
expect_exit 0 "a run over them" wp --catalog "$TMP/cbig.db" -v mirror "s3://$B/big2" "${BIGT[@]}"
expect_grep "goes on with the one holding our part 2 (part 1's bytes are not ours)" "bigpkg-1.0-py3-none-any.whl \([0-9]+/[0-9]+\): went on with an unfinished upload, 1 of 2 parts already there" "$TMP/err"
sent=$(sed -n 's/.* objects ([0-9]* uploaded, \([0-9]*\) bytes.*/\1/p' "$TMP/err")
[ -n "$sent" ] && [ "$sent" -lt $((BIGN - (BIGN - P1) + (1 << 20))) ] && [ "$sent" -ge "$P1" ] && pass "sends part 1 again, not part 2 ($sent of $BIGN bytes, with the pages)" || fail "sent $sent bytes of a $BIGN-byte wheel"
[ "$(mpu_count big2/)" = 0 ] && pass "and aborts the other: no unfinished upload stays" || fail "$(mpu_count big2/) unfinished uploads stay"
expect_exit 0 "the mirror verifies (part 1 replaced by ours)" wp verify "s3://$B/big2" --s3-endpoint "$S3_ENDPOINT"
# an upload begun for other bytes of the name (its sha256 is not ours): our parts kept, then put afresh
BK=big3/files/bigpkg/bigpkg-1.0-py3-none-any.whl
ID=$(mpu_start "$BK" "$(printf '%064d' 0)"); mpu_part "$BK" "$ID" 2 "$TMP/part2"
expect_exit 0 "a run over an upload begun with another sha256" wp --catalog "$TMP/cbig.db" mirror "s3://$B/big3" "${BIGT[@]}"
curl -s -I "${SIG[@]}" "$S3_ENDPOINT/$B/$BK" >"$TMP/h"
expect_grep "the object keeps our sha256, not the upload's" "^x-amz-meta-sha256: $BSHA" "$TMP/h"
expect_exit 0 "and verifies" wp verify "s3://$B/big3" --s3-endpoint "$S3_ENDPOINT"
# --prune aborts what no run will go on with: an upload of a key no longer in the tree
ID=$(mpu_start big2/files/gone/gone-1.0-py3-none-any.whl)
expect_exit 0 "--prune with an unfinished upload of a key not in the tree" wp --catalog "$TMP/cbig.db" mirror "s3://$B/big2" "${BIGT[@]}" --prune
expect_grep "says it aborted it" "unfinished uploads aborted" "$TMP/err"
[ "$(mpu_count big2/)" = 0 ] && pass "no unfinished upload stays under the prefix" || fail "$(mpu_count big2/) unfinished uploads stay"
# kill -9 while the parts go up: the re-run goes on with what the killed one left, and verifies
"$WHEELPICK" --catalog "$TMP/cbig.db" mirror "s3://$B/big4" "${BIGT[@]}" >"$TMP/k.log" 2>&1 &
pid=$!
BK=big4/files/bigpkg/bigpkg-1.0-py3-none-any.whl
for _ in $(seq 1 1500); do
	id=$(curl -sf "${SIG[@]}" "$S3_ENDPOINT/$B?prefix=${BK//\//%2F}&uploads=" | sed -n 's/.*<UploadId>\([^<]*\)<.*/\1/p')
	[ -n "$id" ] && curl -sf "${SIG[@]}" "$S3_ENDPOINT/$B/$BK?uploadId=$id" | grep -q '<Part>' && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.01
done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
left=$(mpu_count big4/)
expect_exit 0 "a run after kill -9 mid-multipart" wp --catalog "$TMP/cbig.db" -v mirror "s3://$B/big4" "${BIGT[@]}"
if [ "$left" -gt 0 ]; then
	expect_grep "goes on with the killed run's upload" "went on with an unfinished upload, [12] of 2 parts already there" "$TMP/err"
else
	pass "(the kill came after the upload finished: nothing to go on with)"
fi
[ "$(mpu_count big4/)" = 0 ] && pass "no unfinished upload stays after it" || fail "$(mpu_count big4/) unfinished uploads stay"
expect_exit 0 "and the mirror verifies" wp verify "s3://$B/big4" --s3-endpoint "$S3_ENDPOINT"
rm -rf "$TMP/big" "$TMP/part1.bad" "$TMP/part2"

# --- anonymous readers: a canned ACL per object, or a bucket policy ----------------------------
anon() { curl -s -o /dev/null -w '%{http_code}' "$S3_ENDPOINT/$B/$1"; }
[ "$(anon pub/simple/index.html)" = 403 ] && pass "no anonymous read without a policy or ACL" || fail "anonymous read: $(anon pub/simple/index.html)"
expect_exit 0 "publish with --s3-acl public-read" mirror "s3://$B/acl" torch==1.8.0 "${T[@]}" --s3-acl public-read
[ "$(anon acl/simple/torch/index.html)" = 200 ] && pass "--s3-acl public-read: anyone reads the pages" || fail "ACL read: $(anon acl/simple/torch/index.html)"
# a re-run with --s3-acl gives the objects an earlier run put (unchanged now) the ACL asked for, with
# PutObjectAcl, not their bytes again (issue 36: they stayed private); and takes it back the same way
expect_exit 0 "publish without an ACL" mirror "s3://$B/acl2" torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS"
AW=files/torch/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl
[ "$(anon acl2/simple/torch/index.html)" = 403 ] && [ "$(anon "acl2/${AW//+/%2B}")" = 403 ] && pass "its objects are private" \
	|| fail "anonymous read: $(anon acl2/simple/torch/index.html) $(anon "acl2/${AW//+/%2B}")"
for acl in public-read private public-read; do
	want=$([ "$acl" = private ] && echo 403 || echo 200)
	expect_exit 0 "a re-run with --s3-acl $acl" mirror "s3://$B/acl2" torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 \
		--index "$FINDLINKS" --s3-acl "$acl"
	expect_grep "sends no file again, and says it set the ACL" "objects \(0 uploaded, 0 bytes; [0-9]+ unchanged, given the ACL '$acl'" "$TMP/err"
	[ "$(anon acl2/simple/torch/index.html)" = "$want" ] && [ "$(anon "acl2/${AW//+/%2B}")" = "$want" ] \
		&& pass "after --s3-acl $acl anonymous reads answer $want (page and wheel)" \
		|| fail "after --s3-acl $acl: page $(anon acl2/simple/torch/index.html), wheel $(anon "acl2/${AW//+/%2B}")"
done
# the README's way: a bucket policy for anonymous GET, and the website mode serving index.html for prefix/
printf '%s' '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::'"$B"'/*"]}]}' >"$TMP/policy.json"
printf '%s' '<WebsiteConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IndexDocument><Suffix>index.html</Suffix></IndexDocument></WebsiteConfiguration>' >"$TMP/website.xml"
curl -sf -X PUT -T "$TMP/policy.json" "${SIG[@]}" "$S3_ENDPOINT/$B?policy=" >/dev/null && pass "bucket policy set" || fail "bucket policy"
curl -sf -X PUT -T "$TMP/website.xml" "${SIG[@]}" "$S3_ENDPOINT/$B?website=" >/dev/null && pass "website mode set" || fail "website mode"
# pip, anonymously, from each per-variant root of the four-target mirror
pipdl() { # ROOT PLATFORM WANT
	rm -rf "$TMP/dl"
	if python3 -m pip download --no-deps --only-binary=:all: --platform "$2" --python-version 3.8 \
		--index-url "$S3_WEBSITE/$B/acl/$1/" -d "$TMP/dl" "torch==1.8.0" >"$TMP/pip.out" 2>&1 && [ -e "$TMP/dl/$3" ]; then
		pass "pip downloads $3 from $1/ anonymously"
	else
		fail "pip from $1/"; tail -5 "$TMP/pip.out" >&2
	fi
}
pipdl cu111 win_amd64 torch-1.8.0+cu111-cp38-cp38-win_amd64.whl
pipdl cpu linux_x86_64 torch-1.8.0+cpu-cp38-cp38-linux_x86_64.whl
pipdl cpu win_amd64 torch-1.8.0+cpu-cp38-cp38-win_amd64.whl
if python3 -m pip download --no-deps --only-binary=:all: --platform linux_x86_64 --python-version 3.8 \
	--index-url "$S3_WEBSITE/$B/acl/simple/" -d "$TMP/dl2" "torch==1.8.0+cu111" >"$TMP/pip.out" 2>&1; then
	pass "pip downloads from the merged simple/ root"; else fail "pip from simple/"; tail -5 "$TMP/pip.out" >&2; fi

# --- a tampered object fails verify (exit 4); a re-run trusts its manifest as on disk ----------
W8=files/typing-extensions/typing_extensions-4.5.0-py3-none-any.whl
curl -sf "${SIG[@]}" -o "$TMP/w.whl" "$S3_ENDPOINT/$B/acl/$W8"
python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 1; open(p, "wb").write(b)' "$TMP/w.whl"
curl -sf -X PUT -T "$TMP/w.whl" "${SIG[@]}" "$S3_ENDPOINT/$B/acl/$W8" >/dev/null
expect_exit 4 "verify s3:// finds a tampered wheel" wp verify "s3://$B/acl" --s3-endpoint "$S3_ENDPOINT"
expect_grep "and names the object" "s3://$B/acl/$W8: sha256 is" "$TMP/err"
expect_no_grep "never the temporary copy" "wheelpick-verify-s3" "$TMP/err"
printf 'other bytes, another size' >"$TMP/w2.whl"
curl -sf -X PUT -T "$TMP/w2.whl" "${SIG[@]}" "$S3_ENDPOINT/$B/acl/$W8" >/dev/null
expect_exit 0 "a re-run over an object replaced by another size" mirror "s3://$B/acl" torch==1.8.0 "${T[@]}"
expect_grep "puts the run's file back (as on disk: another size is never taken as unchanged)" "objects \(1 uploaded" "$TMP/err"
expect_exit 0 "and the mirror verifies again" wp verify "s3://$B/acl" --s3-endpoint "$S3_ENDPOINT"
curl -sf -X PUT -T "$TMP/w2.whl" "${SIG[@]}" "$S3_ENDPOINT/$B/acl/$W8" >/dev/null
expect_exit 0 "a re-run for another project over it" mirror "s3://$B/acl" numpy --cuda cpu --python 3.8 --platform linux_x86_64 --index "$FINDLINKS"
s3ls acl/ >"$TMP/s3.list"; grep -qx "$W8" "$TMP/s3.list" && pass "keeps it: nothing is deleted without --prune" || fail "the replaced object was deleted"
expect_exit 4 "and verify fails it still" wp verify "s3://$B/acl" --s3-endpoint "$S3_ENDPOINT"

# --- wrong credentials: exit 3 and what to check ------------------------------------------------
expect_exit 3 "a wrong secret exits 3 on publish" env AWS_SECRET_ACCESS_KEY=not-the-secret "$WHEELPICK" --catalog "$TMP/c.db" mirror \
	"s3://$B/pub" torch==1.8.0 "${T[@]}" --s3-endpoint "$S3_ENDPOINT"
expect_grep "saying what to check" "refused the credentials .*SignatureDoesNotMatch.*check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY" "$TMP/err"
expect_no_grep "never the secret" "not-the-secret" "$TMP/err"
expect_exit 3 "an unknown key id exits 3 on verify" env AWS_ACCESS_KEY_ID=AKIANOBODY "$WHEELPICK" verify "s3://$B/pub" --s3-endpoint "$S3_ENDPOINT"
expect_grep "naming the endpoint's reason" "InvalidAccessKeyId" "$TMP/err"
# verify with a wrong secret: the failure first and alone, no "checked 0 files" (issue 36)
expect_exit 3 "a wrong secret exits 3 on verify" env AWS_SECRET_ACCESS_KEY=not-the-secret "$WHEELPICK" verify "s3://$B/pub" --s3-endpoint "$S3_ENDPOINT"
expect_grep "saying what to check" "refused the credentials .*SignatureDoesNotMatch" "$TMP/err"
expect_no_grep "and no summary of nothing checked" "checked" "$TMP/out"
[ "$(wc -l <"$TMP/err")" = 1 ] && pass "one line" || fail "$(wc -l <"$TMP/err") lines on stderr"
expect_exit 3 "a bucket that is not there exits 3" mirror "s3://nobucket/pub" torch==1.8.0 "${T[@]}"
expect_grep "and says so" "bucket 'nobucket' does not exist" "$TMP/err"
# ... before anything is resolved or downloaded (issue 36: everything was downloaded first)
expect_no_grep "before resolving anything" "torch" "$TMP/out"
expect_no_grep "or downloading anything" "downloaded|\[1/" "$TMP/err"
expect_exit 3 "a bundle into a bucket that is not there exits 3" env WHEELPICK_CACHE_DIR="$TMP/cache-nobucket" "$WHEELPICK" \
	--catalog "$TMP/c.db" bundle "s3://nobucket/x.tar.zst" torch==1.8.0 "${T[@]}" --s3-endpoint "$S3_ENDPOINT"
expect_grep "and says so" "bucket 'nobucket' does not exist" "$TMP/err"
expect_no_file "having downloaded nothing" "$TMP/cache-nobucket/files"
expect_exit 2 "no credentials at all: a usage error before anything" env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY "$WHEELPICK" \
	--catalog "$TMP/c.db" mirror "s3://$B/pub" torch==1.8.0 "${T[@]}" --s3-endpoint "$S3_ENDPOINT"
expect_no_grep "before resolving anything" "torch" "$TMP/out"

# --- every PUT carries the sha256 it is signed with, so a store that changes a byte refuses it -----
# (issue 36: the pending list went up UNSIGNED-PAYLOAD: a store that changed it was not caught)
tamper() { # LOG [--flip]: a proxy to the gateway; sets TPORT and TAMPER
	rm -f "$TMP/tamper.port"
	python3 "$ROOT/tests/server/tamperproxy.py" --upstream "${S3_ENDPOINT#http://}" --log "$1" \
		--port-file "$TMP/tamper.port" --max-seconds 200 ${2:-} >/dev/null 2>&1 &
	TAMPER=$!
	for _ in $(seq 1 100); do [ -s "$TMP/tamper.port" ] && break; sleep 0.05; done
	TPORT=$(cat "$TMP/tamper.port")
}
tsum() { python3 - "$1" <<'PY'
import json, sys
puts = [e for e in map(json.loads, open(sys.argv[1])) if e["method"] == "PUT" and "acl" not in e["query"]]
unsigned = [e["path"] for e in puts if len(e["sha256"]) != 64]
kept = [e["path"] for e in puts if e["changed"] and e["status"] < 300]
print("puts=%d unsigned=%d kept=%d %s" % (len(puts), len(unsigned), len(kept), " ".join(unsigned + kept)[:300]))
PY
}
tamper "$TMP/plain.log"
expect_exit 0 "a mirror through a logging proxy" wp --catalog "$TMP/c.db" mirror "s3://$B/signed" torch==1.8.0 --cuda 11.2 \
	--python 3.8 --platform linux_x86_64 --index "$FINDLINKS" --s3-endpoint "http://127.0.0.1:$TPORT"
tsum "$TMP/plain.log" >"$TMP/plain.sum"
grep -q "^puts=[1-9][0-9]* unsigned=0 " "$TMP/plain.sum" && pass "every PUT signed its sha256 ($(cut -d' ' -f1 "$TMP/plain.sum"))" \
	|| fail "PUTs: $(cat "$TMP/plain.sum")"
kill "$TAMPER" 2>/dev/null; wait "$TAMPER" 2>/dev/null
tamper "$TMP/flip.log" --flip
for what in "a mirror" "a re-run of it"; do
	expect_exit 3 "$what through a store that changes a byte of every PUT: exit 3" wp --catalog "$TMP/c.db" mirror \
		"s3://$B/tamper" torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS" \
		--s3-endpoint "http://127.0.0.1:$TPORT"
	expect_grep "the store's refusal named" "XAmzContentSHA256Mismatch|BadDigest" "$TMP/err"
done
tsum "$TMP/flip.log" >"$TMP/flip.sum"
grep -q "^puts=[1-9][0-9]* unsigned=0 kept=0 " "$TMP/flip.sum" && pass "every changed PUT was refused ($(cut -d' ' -f1 "$TMP/flip.sum"))" \
	|| fail "changed PUTs: $(cat "$TMP/flip.sum")"
[ -z "$(s3ls tamper/)" ] && pass "and no changed object is in the bucket" || fail "the bucket holds: $(s3ls tamper/ | head -3)"
kill "$TAMPER" 2>/dev/null; wait "$TAMPER" 2>/dev/null

# --- verify s3:// names objects and pages by their s3:// URLs, never file://s3://... --------------
expect_exit 0 "publish one more" mirror "s3://$B/names" torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS"
curl -sf -X DELETE "${SIG[@]}" "$S3_ENDPOINT/$B/names/${AW//+/%2B}" >/dev/null && pass "a wheel deleted behind its back" || fail "DELETE"
expect_exit 4 "verify s3:// finds the page's link to nothing" wp verify "s3://$B/names" --s3-endpoint "$S3_ENDPOINT"
expect_grep "names the object by its s3:// URL" "s3://$B/names/" "$TMP/err"
expect_no_grep "never file://s3://" "file://s3:|file:///" "$TMP/err"
printf '{' >"$TMP/broken.json"
curl -sf -X PUT -T "$TMP/broken.json" "${SIG[@]}" "$S3_ENDPOINT/$B/names/simple/torch/index.json" >/dev/null
expect_exit 4 "verify s3:// finds a page that does not parse" wp verify "s3://$B/names" --s3-endpoint "$S3_ENDPOINT"
expect_grep "names the page by its s3:// URL" "'s3://$B/names/simple/torch/' is not a PEP 691 page" "$TMP/err"
expect_no_grep "never file://s3://" "file://s3:|file:///" "$TMP/err"

# --- many files under a low open-file limit: a PUT's file is open only while it goes up ----------
# (a default soft RLIMIT_NOFILE is 1024; the uploads opened every file of a rank at once, so a mirror
# of more new files than that failed with "Too many open files")
python3 "$ROOT/bench/mkwheel.py" many "$TMP/many" fdpkg 120
expect_exit 0 "120 new wheels (360 objects) publish under ulimit -n 64" bash -c 'ulimit -n 64 && exec "$@"' sh \
	"$WHEELPICK" --catalog "$TMP/many.db" mirror "s3://$B/many" -r "$TMP/many/reqs.txt" --index "file://$TMP/many/links.html" \
	--cuda cpu --python 3.11 --platform linux_x86_64 --s3-endpoint "$S3_ENDPOINT"
expect_grep "every one of them" "s3://$B/many/ at $S3_ENDPOINT: [0-9]+ objects \([0-9]+ uploaded" "$TMP/err"
expect_no_grep "none refused for want of a descriptor" "Too many open files" "$TMP/err"
expect_exit 0 "and verifies" wp verify "s3://$B/many" --s3-endpoint "$S3_ENDPOINT"

# --- kill -9 at random moments: the bucket always holds a mirror that verifies ------------------
TA=(torch==1.8.0 --cuda 11.2 --cuda cpu --python 3.8 --platform linux_x86_64 --platform win_amd64 --index "$FINDLINKS")
TB=(torch==1.7.1 --cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS")
killed=0 bad=0 mid=0
for i in 0 1 2 3 4 5 6 7; do
	if [ $((i % 2)) = 0 ]; then set -- "${TA[@]}"; else set -- "${TB[@]}"; fi
	"$WHEELPICK" --catalog "$TMP/c.db" -v mirror "s3://$B/pub" "$@" --prune --s3-endpoint "$S3_ENDPOINT" >"$TMP/k.log" 2>&1 &
	pid=$!
	if [ $((i % 3)) = 0 ]; then
		# a moment anywhere in a run (about 100-350 ms here, the publishing in its second half)
		sleep "0.$(printf %03d $((20 + i * 40 + RANDOM % 40)))"
	else
		# a moment inside the publishing: after the K-th object went up (or the run ended)
		k=$((1 + RANDOM % 8))
		for _ in $(seq 1 2000); do
			[ "$(grep -c '\] put ' "$TMP/k.log")" -ge "$k" ] && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.002
		done
	fi
	kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
	wait "$pid" 2>/dev/null
	# a kill after the first PUT and before the summary cut a publish short
	grep -q '\] put ' "$TMP/k.log" && ! grep -q ' objects (' "$TMP/k.log" && mid=$((mid + 1))
	if ! "$WHEELPICK" verify "s3://$B/pub" --s3-endpoint "$S3_ENDPOINT" >"$TMP/kv.out" 2>&1; then
		bad=$((bad + 1)); cat "$TMP/kv.out" >&2
	fi
done
[ "$bad" = 0 ] && pass "after $killed kills in 8 runs ($mid mid-publish), verify s3:// passed every time" || fail "$bad of 8 killed runs left a mirror that fails verify"
[ "$mid" -gt 0 ] && pass "a kill landed mid-publish ($mid)" || fail "no kill landed between the first PUT and the end"
expect_exit 0 "a run after the kills completes" mirror "s3://$B/pub" "${TA[@]}" --prune
expect_exit 0 "and verifies" wp verify "s3://$B/pub" --s3-endpoint "$S3_ENDPOINT"
wp --catalog "$TMP/c.db" mirror "$TMP/localA" "${TA[@]}" -q 2>/dev/null
s3ls pub/ >"$TMP/s3.list"; localls "$TMP/localA" >"$TMP/local.list"
cmp -s "$TMP/s3.list" "$TMP/local.list" && pass "and leaves exactly its tree: what the killed runs left is gone" || {
	fail "after the kills the bucket differs from the tree on disk"; diff "$TMP/s3.list" "$TMP/local.list" >&2; }

# --- a run cut short between its manifest and its removals: the pages it was removing are not lost
# (the new manifest goes up before the removals; a kill between the two left pages that no manifest
# named, so no later --prune removed them: seen once in 8 random kills under ASan)
expect_exit 0 "a mirror of torch 1.7.1 (cu110 pages)" mirror "s3://$B/cut" "${TB[@]}"
tamper "$TMP/nodel.log" "--refuse-delete=/index\.(html|json)$"
expect_exit 3 "a --prune run for 1.8.0 fails at its removals (a store that refuses DELETE)" wp --catalog "$TMP/c.db" \
	mirror "s3://$B/cut" "${TA[@]}" --prune --s3-endpoint "http://127.0.0.1:$TPORT"
kill "$TAMPER" 2>/dev/null; wait "$TAMPER" 2>/dev/null
grep -q '"method": "DELETE"' "$TMP/nodel.log" && pass "it got as far as the removals" || fail "no DELETE was tried"
s3ls cut/ | grep -q '^cu110/torch/index.html$' && pass "the 1.7.1 pages are still in the bucket" \
	|| fail "the cu110 pages went: the test no longer cuts a run between manifest and removals"
expect_exit 0 "the cut-short bucket verifies" wp verify "s3://$B/cut" --s3-endpoint "$S3_ENDPOINT"
expect_exit 0 "a run with --prune after it" mirror "s3://$B/cut" "${TA[@]}" --prune
s3ls cut/ >"$TMP/cut.list"
cmp -s "$TMP/cut.list" "$TMP/local.list" && pass "leaves exactly its tree: the pages the cut run was removing are gone" || {
	fail "after the cut-short run the bucket differs from the tree on disk"; diff "$TMP/cut.list" "$TMP/local.list" >&2; }

done_testing
