#!/usr/bin/env bash
# tests/cli/t-conda-attest.sh: CEP 27 attestations of a conda package, as CEP 50 serves them (the
# record's attestations_sha256, PKG.sigs.<sha256> beside the package), carried from a channel
# served on 127.0.0.1 into a local channel and a conda bundle, kept in the repodata written, and
# checked by verify: present, those bytes, about this package; signed, with --trusted-root.
. "$(dirname "$0")/../lib.sh"
FX="$ROOT/tests/fixtures/conda-attest"
PKG=demo-1.0-0.tar.bz2
S="$TMP/srv"
mkdir -p "$S/chan/noarch" "$S/chan/linux-64"
cp "$FX/$PKG" "$S/chan/noarch/"
A=$(sha256sum "$FX/$PKG.sigs" | cut -c1-64)
cp "$FX/$PKG.sigs" "$S/chan/noarch/$PKG.sigs.$A"
repodata() { # repodata ATTEST_SHA256: the noarch repodata naming the package (and its attestations)
	"$PYTHON" - "$S/chan/noarch" "$PKG" "$1" <<'EOF'
import hashlib, json, os, sys
d, fn, att = sys.argv[1:4]
data = open(os.path.join(d, fn), "rb").read()
rec = {"name": "demo", "version": "1.0", "build": "0", "build_number": 0, "depends": [], "subdir": "noarch",
       "noarch": "generic", "license": "BSD", "timestamp": 1767225600000, "size": len(data),
       "sha256": hashlib.sha256(data).hexdigest(), "md5": hashlib.md5(data).hexdigest()}
if att:
    rec["attestations_sha256"] = att
json.dump({"info": {"subdir": "noarch"}, "packages": {fn: rec}, "packages.conda": {}, "repodata_version": 1},
          open(os.path.join(d, "repodata.json"), "w"))
EOF
}
repodata "$A"
echo '{"info": {"subdir": "linux-64"}, "packages": {}, "packages.conda": {}, "repodata_version": 1}' >"$S/chan/linux-64/repodata.json"
start_server "$S"
C=(--conda -c "$BASE/chan" --platform linux-64)
TR="$FX/trusted_root.json"
GH=github:example/demo

expect_exit 0 "a channel from one that offers attestations" wp pick demo "${C[@]}" -d "$TMP/local"
CH=$(dirname "$(find "$TMP/local" -name "$PKG" | head -1)")
[ -n "$CH" ] && pass "the package is in the local channel" || fail "no package in $TMP/local"
cmp -s "$CH/$PKG.sigs.$A" "$FX/$PKG.sigs" && pass "its attestations beside it, under the name their sha256 fixes" ||
	fail "no attestations beside the package: $(ls "$CH")"
expect_json "$CH/repodata.json" "j['packages']['$PKG']['attestations_sha256']" "$A"
expect_exit 0 "verify the channel: the attestations are there and about this package" wp verify "$TMP/local" --json
expect_json "$TMP/out" "j['provenance_unchecked']" "1"
expect_exit 0 "verify with the trusted root: signed, logged, in the certificate's time" wp verify "$TMP/local" \
	--trusted-root "$TR" --json
expect_json "$TMP/out" "j['provenance_verified']" "1"
expect_exit 0 "a policy the signer meets" wp verify "$TMP/local" --trusted-root "$TR" --require-provenance "demo=$GH"
expect_exit 4 "a policy naming another publisher" wp verify "$TMP/local" --trusted-root "$TR" \
	--require-provenance "demo=github:someone/else"
expect_grep "naming the signer" "its signer is .*example/demo" "$TMP/err"

# a conda bundle carries them too, and verifies
expect_exit 0 "a conda bundle" wp bundle "$TMP/b.tar.zst" demo "${C[@]}"
tar --zstd -tf "$TMP/b.tar.zst" | grep -q "channel/noarch/$PKG.sigs.$A\$" && pass "the bundle carries the attestations" ||
	fail "the bundle lacks them"
expect_exit 0 "the bundle verifies against the root" wp verify "$TMP/b.tar.zst" --trusted-root "$TR"

# tampering in the channel: other bytes, another package's statement, a missing sidecar
cp -a "$TMP/local" "$TMP/t1"
C1=${CH/$TMP\/local/$TMP/t1}
printf ' ' >>"$C1/$PKG.sigs.$A"
expect_exit 4 "attestations with other bytes than the repodata names" wp verify "$TMP/t1"
expect_grep "saying so" "sha256 is [0-9a-f]{64}, repodata.json's attestations_sha256 says $A" "$TMP/err"
cp -a "$TMP/local" "$TMP/t2"
C2=${CH/$TMP\/local/$TMP/t2}
O=$(sha256sum "$FX/other.sigs" | cut -c1-64)
rm "$C2/$PKG.sigs.$A"
cp "$FX/other.sigs" "$C2/$PKG.sigs.$O"
"$PYTHON" -c "import json,sys; p=sys.argv[1]; j=json.load(open(p)); j['packages']['$PKG']['attestations_sha256']='$O'; json.dump(j,open(p,'w'))" "$C2/repodata.json"
rm -f "$C2/repodata.json.zst" "$C2"/repodata_shards* ; rm -rf "$C2/shards"
expect_exit 4 "a statement about another package (no root needed)" wp verify "$TMP/t2"
expect_grep "naming the digest" "subject digest sha256:[0-9a-f]{64} is not the package's sha256" "$TMP/err"
cp -a "$TMP/local" "$TMP/t3"
C3=${CH/$TMP\/local/$TMP/t3}
rm "$C3/$PKG.sigs.$A"
expect_exit 4 "the repodata names attestations that are gone" wp verify "$TMP/t3"
expect_grep "saying which" "$PKG\.sigs\.$A.* is missing" "$TMP/err"
cp -a "$TMP/local" "$TMP/t4"
C4=${CH/$TMP\/local/$TMP/t4}
"$PYTHON" - "$C4/$PKG.sigs.$A" <<'EOF'
import base64, json, sys
p = sys.argv[1]
j = json.load(open(p))
s = bytearray(base64.b64decode(j[0]["dsseEnvelope"]["signatures"][0]["sig"]))
s[-1] ^= 1
j[0]["dsseEnvelope"]["signatures"][0]["sig"] = base64.b64encode(bytes(s)).decode()
open(p, "w").write(json.dumps(j))
EOF
A4=$(sha256sum "$C4/$PKG.sigs.$A" | cut -c1-64)
mv "$C4/$PKG.sigs.$A" "$C4/$PKG.sigs.$A4"
"$PYTHON" -c "import json,sys; p=sys.argv[1]; j=json.load(open(p)); j['packages']['$PKG']['attestations_sha256']='$A4'; json.dump(j,open(p,'w'))" "$C4/repodata.json"
rm -f "$C4/repodata.json.zst" "$C4"/repodata_shards* ; rm -rf "$C4/shards"
expect_exit 0 "a broken signature is not seen without a root" wp verify "$TMP/t4"
expect_exit 4 "and fails with one" wp verify "$TMP/t4" --trusted-root "$TR"

# the channel serves other bytes under the name: the package goes in without them, exit 4
printf ' ' >>"$S/chan/noarch/$PKG.sigs.$A"
expect_exit 4 "attestations that are not the bytes the record names" env WHEELPICK_CACHE_DIR="$TMP/cache2" \
	"$WHEELPICK" pick demo "${C[@]}" -d "$TMP/local2" --refresh
expect_grep "saying which" "attestations of '.*$PKG' are not the bytes its repodata names" "$TMP/err"
C5=$(dirname "$(find "$TMP/local2" -name "$PKG" | head -1)")
ls "$C5" | grep -q '\.sigs\.' && fail "a sidecar was written" || pass "no sidecar written"
expect_no_grep "and no record names one" "attestations_sha256" "$C5/repodata.json"
expect_exit 0 "what was written verifies" wp verify "$TMP/local2"

# a channel that offers none: nothing carried, nothing required, unless a policy says so
repodata ""
expect_exit 0 "a channel without attestations" wp pick demo "${C[@]}" -d "$TMP/local3" --refresh
expect_exit 0 "verifies" wp verify "$TMP/local3"
expect_exit 4 "but not under a policy for it" wp verify "$TMP/local3" --trusted-root "$TR" --require-provenance "demo=$GH"
expect_grep "saying it has none" "has no attestations" "$TMP/err"
stop_server
done_testing
