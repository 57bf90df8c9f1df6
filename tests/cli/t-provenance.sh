#!/usr/bin/env bash
# tests/cli/t-provenance.sh: PEP 740 provenance from an index to a wheelhouse and a mirror, and
# `verify --trusted-root` checking it offline: a wheel published by a GitHub workflow (example/demo,
# release.yml) with a CA, a log and a trusted root of our own (tests/fixtures/provenance/synthetic/),
# served by the fault server as a PEP 691 page with a "provenance" URL and as a PEP 503 page with
# data-provenance. The real attestations' distributions are not vendored: the unit test checks
# them by digest, and here they are shown to pass every check up to the file's bytes.
. "$(dirname "$0")/../lib.sh"
P="$ROOT/tests/fixtures/provenance"
SYN="$P/synthetic"
WHL=demo-1.0-py3-none-any.whl
TR="$SYN/trusted_root.json"
STAGING="$P/trusted_root.staging.json"
PROD="$P/trusted_root.json"
GH=github:example/demo@release.yml
T="--cuda cpu --python 3.11 --platform manylinux_2_28_x86_64 --no-deps"
for f in "synthetic/$WHL" "synthetic/$WHL.provenance" "synthetic/$WHL.provenance.expired" synthetic/trusted_root.json \
	trusted_root.json trusted_root.staging.json rfc8785-0.1.2-py3-none-any.whl.provenance \
	pypi_attestations-0.0.19.tar.gz.provenance; do
	[ -r "$P/$f" ] || { fail "missing test input '$P/$f'"; done_testing; exit 1; }
done

# the index: /json/demo/ (PEP 691) and /html/demo/ (PEP 503), the files under /files/
S="$TMP/served"
mkdir -p "$S/files" "$S/json/demo" "$S/html/demo" "$S/plain/demo" "$S/gone/demo" "$S/plain/other"
cp "$SYN/$WHL" "$SYN/$WHL.provenance" "$S/files/"
SHA=$(sha256sum "$SYN/$WHL" | cut -d' ' -f1)
ROOT="$ROOT" "$PYTHON" - "$S" "$WHL" "$SHA" <<'PY'
import json, sys
root, whl, sha = sys.argv[1:]
f = {"filename": whl, "url": "../../files/" + whl, "hashes": {"sha256": sha}, "provenance": "../../files/" + whl + ".provenance"}
json.dump({"meta": {"api-version": "1.3"}, "name": "demo", "files": [f]}, open(root + "/json/demo/index.html", "w"))
open(root + "/html/demo/index.html", "w").write(
    '<!DOCTYPE html><html><body><a href="../../files/%s#sha256=%s" data-provenance="../../files/%s.provenance">%s</a></body></html>\n'
    % (whl, sha, whl, whl))
open(root + "/gone/demo/index.html", "w").write(
    '<!DOCTYPE html><html><body><a href="../../files/%s#sha256=%s" data-provenance="../../files/nope.provenance">%s</a></body></html>\n'
    % (whl, sha, whl))
open(root + "/plain/demo/index.html", "w").write(
    '<!DOCTYPE html><html><body><a href="../../files/%s#sha256=%s">%s</a></body></html>\n' % (whl, sha, whl))
import importlib.util, os
spec = importlib.util.spec_from_file_location("mkwheels", os.path.join(os.environ["ROOT"], "tests/fixtures/mkwheels.py"))
mk = importlib.util.module_from_spec(spec); spec.loader.exec_module(mk)
osha = mk.any_wheel(root + "/files/other-1.0-py3-none-any.whl", "other", "1.0", [("other/__init__.py", b"", 0o644)])
open(root + "/plain/other/index.html", "w").write(
    '<!DOCTYPE html><html><body><a href="../../files/other-1.0-py3-none-any.whl#sha256=%s">o</a></body></html>\n' % osha)
PY
printf '%s' '{"/json/demo/": {"headers": {"Content-Type": "application/vnd.pypi.simple.v1+json"}}}' >"$TMP/script.json"
start_server "$S" "$TMP/script.json"

# --- a PEP 691 page's "provenance": fetched, carried beside the wheel --------------------------
expect_exit 0 "pick from a PEP 691 page that offers provenance" wp demo==1.0 $T --index "$BASE/json/" -d "$TMP/wh"
expect_file "the wheel" "$TMP/wh/$WHL"
cmp -s "$TMP/wh/$WHL.provenance" "$SYN/$WHL.provenance" && pass "its provenance beside it, byte for byte" ||
	fail "no provenance, or other bytes, beside the wheel"
expect_grep "the server was asked for it" "\"path\":\"/files/$WHL.provenance\"" "$TMP/server.log"

# --- verify: offline, against the trusted root the user gives -----------------------------------
stop_server # nothing below may need the network
expect_exit 0 "verify without a trusted root" wp verify "$TMP/wh"
expect_grep "says the provenance was not checked, and how to" "1 file carries PEP 740 provenance, not checked: give --trusted-root FILE" "$TMP/err"
expect_exit 0 "verify --trusted-root (the synthetic root)" wp verify "$TMP/wh" --trusted-root "$TR"
expect_grep "says it verified" "^provenance: 1 file verified against '$TR'$" "$TMP/out"
expect_exit 0 "verify --json counts it" wp verify "$TMP/wh" --trusted-root "$TR" --json
expect_json "$TMP/out" 'j["provenance_verified"]' 1
expect_json "$TMP/out" '[(p["status"], p["signer"], p["issuer"], p["signed_at"]) for p in j["provenance"]]' \
	"[('verified', 'https://github.com/example/demo', 'https://token.actions.githubusercontent.com', 1767225660)]"
if "$PYTHON" "$ROOT/tests/cli/json_schema_check.py" "$ROOT/docs/schema/verify.schema.json" "$TMP/out" >"$TMP/schema.log" 2>&1; then
	pass "the report fits docs/schema/verify.schema.json"
else fail "the report does not fit docs/schema/verify.schema.json: $(head -3 "$TMP/schema.log")"; fi
expect_exit 0 "verify -v says who signed each file, and when" wp -v verify "$TMP/wh" --trusted-root "$TR"
expect_grep "the signer, its issuer, its workflow run and the time" \
	"^provenance: .*/$WHL: signed by https://github.com/example/demo \(issuer https://token.actions.githubusercontent.com, .*release.yml@refs/tags/v1.0\) at 2026-01-01T00:01:00Z$" "$TMP/out"
expect_exit 4 "another trusted root (Sigstore production's) does not vouch for it" wp verify "$TMP/wh" --trusted-root "$PROD"
expect_grep "naming the chain" "certificate does not chain to the trusted root" "$TMP/err"
expect_exit 4 "nor Sigstore staging's" wp verify "$TMP/wh" --trusted-root "$STAGING"

# a policy names the publisher
expect_exit 0 "the policy's identity: the repository and its workflow" wp verify "$TMP/wh" --trusted-root "$TR" --require-provenance demo=$GH
expect_grep "and says it held" "policy held" "$TMP/out"
expect_exit 0 "the repository alone" wp verify "$TMP/wh" --trusted-root "$TR" --require-provenance demo=github:example/demo
expect_exit 4 "another identity under a policy" wp verify "$TMP/wh" --trusted-root "$TR" --require-provenance DEMO=github:pytorch/pytorch
expect_grep "names the signer and the policy" "its signer is https://github.com/example/demo .*not github:pytorch/pytorch that the policy requires for 'demo'" "$TMP/err"
expect_exit 4 "another workflow of the same repository" wp verify "$TMP/wh" --trusted-root "$TR" \
	--require-provenance demo=github:example/demo@nightly.yml
expect_grep "names both" "its signer is https://github.com/example/demo \(issuer https://token.actions.githubusercontent.com\), not github:example/demo@nightly.yml" "$TMP/err"
expect_exit 4 "the same path on another forge" wp verify "$TMP/wh" --trusted-root "$TR" --require-provenance demo=gitlab:example/demo
printf '# who publishes what\ndemo=github:example/other@release.yml\n' >"$TMP/policy.txt"
expect_exit 4 "a policy file" wp verify "$TMP/wh" --trusted-root "$TR" --require-provenance "$TMP/policy.txt"
expect_grep "its rule" "not github:example/other@release.yml that the policy" "$TMP/err"
printf '# who publishes what\ntorch=github:pytorch/pytorch\ndemo=%s\n' "$GH" >"$TMP/policy-ok.txt"
expect_exit 0 "a policy file whose rule holds" wp verify "$TMP/wh" --trusted-root "$TR" --require-provenance "$TMP/policy-ok.txt"
expect_exit 0 "a policy for another project only" wp verify "$TMP/wh" --trusted-root "$TR" --require-provenance torch=github:pytorch/pytorch
expect_exit 2 "a policy without a trusted root (wheelpick ships none)" wp verify "$TMP/wh" --require-provenance demo=$GH
expect_grep "says so" "needs --trusted-root FILE" "$TMP/err"
expect_exit 2 "a policy that is not one" wp verify "$TMP/wh" --trusted-root "$TR" --require-provenance "demo=svn:x"

# tampered: one byte of the provenance, or the trusted root
cp -r "$TMP/wh" "$TMP/wh-bad"
"$PYTHON" - "$TMP/wh-bad/$WHL.provenance" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read())
i = b.index(b'"signature":"') + 30
b[i] = ord('A') if b[i] != ord('A') else ord('B')
open(p, "wb").write(b)
PY
expect_exit 4 "a tampered signature" wp verify "$TMP/wh-bad" --trusted-root "$TR"
expect_grep "names the check" "signature over the statement \(DSSE\) does not verify" "$TMP/err"
head -c 2000 "$SYN/$WHL.provenance" >"$TMP/wh-bad/$WHL.provenance"
expect_exit 4 "a truncated provenance" wp verify "$TMP/wh-bad" --trusted-root "$TR"
expect_exit 4 "a truncated trusted root" wp verify "$TMP/wh" --trusted-root <(head -c 1200 "$TR")
expect_grep "names it" "trusted root '" "$TMP/err"
expect_exit 3 "a trusted root that is not there" wp verify "$TMP/wh" --trusted-root "$TMP/nope.json"
# missing: an error only under a policy
rm "$TMP/wh-bad/$WHL.provenance"
expect_exit 0 "no provenance, no policy" wp verify "$TMP/wh-bad" --trusted-root "$TR"
expect_exit 4 "no provenance under a policy" wp verify "$TMP/wh-bad" --trusted-root "$TR" --require-provenance demo=$GH
expect_grep "says what is missing" "has no provenance \($WHL.provenance\), and the policy requires 'demo'" "$TMP/err"
# every signature holds (the log's signed entry timestamp binds the later time), but the certificate had expired
cp "$SYN/$WHL.provenance.expired" "$TMP/wh-bad/$WHL.provenance"
expect_exit 4 "a certificate that had expired when the log took the entry" wp verify "$TMP/wh-bad" --trusted-root "$TR"
expect_grep "says so" "signing time 2026-01-01T01:00:00Z .* is outside the certificate's validity" "$TMP/err"

# real attestations (tests/fixtures/provenance/PROVENANCE.md; their distributions are not vendored, so
# none can verify here: the unit test checks them by digest): each passes the certificate's validity,
# the chain to its Sigstore root and the DSSE signature, and is refused only for naming another file
cp -r "$TMP/wh" "$TMP/wh-real" # the picked wheelhouse: nothing else in it is wrong
cp "$P/rfc8785-0.1.2-py3-none-any.whl.provenance" "$TMP/wh-real/$WHL.provenance"
expect_exit 4 "a real (staging) attestation beside another wheel" wp verify "$TMP/wh-real" --trusted-root "$STAGING"
expect_grep "refused for its subject alone" "the statement's subject is 'rfc8785-0.1.2-py3-none-any.whl', not the file '$WHL'" "$TMP/err"
expect_grep "and nothing else" "^checked .*: 1 problems$" "$TMP/out"
expect_exit 4 "under the production root it does not chain" wp verify "$TMP/wh-real" --trusted-root "$PROD"
expect_grep "and says so" "certificate does not chain to the trusted root" "$TMP/err"
cp -r "$TMP/wh" "$TMP/sd-real" && rm "$TMP/sd-real/$WHL.provenance" # (it does not chain to production's root)
printf 'not the sdist\n' >"$TMP/sd-real/pypi_attestations-0.0.19.tar.gz"
cp "$P/pypi_attestations-0.0.19.tar.gz.provenance" "$TMP/sd-real/"
expect_exit 4 "a real (production, GitHub-published) attestation beside other bytes of its file's name" \
	wp verify "$TMP/sd-real" --trusted-root "$PROD"
expect_grep "refused for the digest alone" "subject digest sha256:9bb1add04b1b4e182be6b0b80931593f7a291eb49d69b4fd728a5d4cbcdc4bd3 is not the file's sha256" "$TMP/err"
expect_no_grep "its chain, signature and log entry held" "chain|DSSE|validity|inclusion|checkpoint|log entry" "$TMP/err"

# --- a PEP 503 page's data-provenance, and a page without it ------------------------------------
start_server "$S" "$TMP/script.json"
expect_exit 0 "pick from a PEP 503 page with data-provenance" env WHEELPICK_CATALOG="$TMP/c2.db" WHEELPICK_CACHE_DIR="$TMP/cache2" \
	"$WHEELPICK" demo==1.0 $T --index "$BASE/html/" -d "$TMP/wh2"
cmp -s "$TMP/wh2/$WHL.provenance" "$SYN/$WHL.provenance" && pass "carried from data-provenance" || fail "data-provenance not carried"
expect_exit 0 "a page that offers none" env WHEELPICK_CATALOG="$TMP/c3.db" WHEELPICK_CACHE_DIR="$TMP/cache3" \
	"$WHEELPICK" demo==1.0 $T --index "$BASE/plain/" -d "$TMP/wh3"
expect_no_file "carries none" "$TMP/wh3/$WHL.provenance"
expect_exit 0 "a provenance URL that answers 404: the pick goes on" env WHEELPICK_CATALOG="$TMP/c6.db" WHEELPICK_CACHE_DIR="$TMP/cache6" \
	"$WHEELPICK" demo==1.0 $T --index "$BASE/gone/" -d "$TMP/wh6"
expect_grep "and says what could not be carried" "'$WHL': its index offers PEP 740 provenance, which could not be carried: .*404" "$TMP/err"
expect_no_file "nothing half-written" "$TMP/wh6/$WHL.provenance"
expect_exit 4 "which a policy then refuses" wp verify "$TMP/wh6" --trusted-root "$TR" --require-provenance demo=$GH
# a later pick into the same folder that no longer has the wheel takes its provenance away too
cp -r "$TMP/wh" "$TMP/wh7"
expect_exit 0 "another pick into a wheelhouse that had the wheel" "$WHEELPICK" other==1.0 $T --index "$BASE/plain/" -d "$TMP/wh7"
expect_no_file "the old wheel goes" "$TMP/wh7/$WHL"
expect_no_file "and its provenance with it" "$TMP/wh7/$WHL.provenance"

# --- a mirror re-publishes it under the same keys, and verify checks it there ---------------------
expect_exit 0 "mirror a project whose index offers provenance" env WHEELPICK_CATALOG="$TMP/c2.db" WHEELPICK_CACHE_DIR="$TMP/cache2" \
	"$WHEELPICK" mirror "$TMP/m" demo==1.0 $T --index "$BASE/json/"
cmp -s "$TMP/m/files/demo/$WHL.provenance" "$SYN/$WHL.provenance" && pass "beside the file in the mirror" || fail "not in the mirror"
expect_json "$TMP/m/simple/demo/index.json" 'j["files"][0]["provenance"]' "../../files/demo/$WHL.provenance"
expect_json "$TMP/m/simple/demo/index.json" 'j["meta"]["api-version"]' 1.3
expect_grep "and data-provenance in the HTML page" "data-provenance=\"../../files/demo/$WHL.provenance\"" "$TMP/m/simple/demo/index.html"
expect_exit 0 "verify the mirror against the root" wp verify "$TMP/m" --trusted-root "$TR" --require-provenance demo=$GH
expect_grep "its provenance checked" "^provenance: 1 file verified" "$TMP/out"
cp -r "$TMP/m" "$TMP/m-bad"
"$PYTHON" - "$TMP/m-bad/simple/demo/index.json" <<'PY'
import json, sys
p = sys.argv[1]; j = json.load(open(p))
j["files"][0]["provenance"] = "https://elsewhere.example/p"
json.dump(j, open(p, "w"))
PY
expect_exit 4 "a page whose provenance points elsewhere" wp verify "$TMP/m-bad"
rm "$TMP/m/files/demo/$WHL.provenance"
expect_exit 4 "a mirror page announcing provenance that is gone" wp verify "$TMP/m"
expect_grep "names it" "$WHL.provenance.*is missing" "$TMP/err"
stop_server
# a client of the mirror (wheelpick itself here) reads it back through the PEP 691 key
expect_exit 0 "mirror again, then pick from the mirror" env WHEELPICK_CATALOG="$TMP/c2.db" WHEELPICK_CACHE_DIR="$TMP/cache2" \
	"$WHEELPICK" mirror "$TMP/m2" demo==1.0 $T --index "$BASE/json/" --offline
expect_exit 0 "pick from the mirror" env WHEELPICK_CATALOG="$TMP/c5.db" WHEELPICK_CACHE_DIR="$TMP/cache5" \
	"$WHEELPICK" demo==1.0 $T --index "file://$TMP/m2/simple/" -d "$TMP/wh5"
cmp -s "$TMP/wh5/$WHL.provenance" "$SYN/$WHL.provenance" && pass "carried from the mirror" || fail "not carried from the mirror"
# a mirror's delta carries provenance: the far side's copy lacks it (the one removed above), the
# near side's re-run puts it back, and the delta of that run brings it across
cp -r "$TMP/m" "$TMP/m-near" && cp -r "$TMP/m" "$TMP/m-far"
expect_exit 0 "a mirror re-run that writes a delta" env WHEELPICK_CATALOG="$TMP/c2.db" WHEELPICK_CACHE_DIR="$TMP/cache2" \
	"$WHEELPICK" mirror "$TMP/m-near" demo==1.0 $T --index "$BASE/json/" --offline --delta "$TMP/md.tar.zst"
tar --zstd -tf "$TMP/md.tar.zst" | grep -q "files/demo/$WHL.provenance$" && pass "the delta carries the provenance" ||
	fail "no provenance in the mirror's delta: $(tar --zstd -tf "$TMP/md.tar.zst" | tr '\n' ' ')"
tar --zstd -tf "$TMP/md.tar.zst" | grep -q "files/demo/$WHL$" && fail "the wheel the far side has travels" || pass "the wheel stays"
expect_exit 0 "applied onto the far side's mirror" wp apply "$TMP/md.tar.zst" "$TMP/m-far"
expect_exit 0 "which verifies against the root, under a policy" wp verify "$TMP/m-far" --trusted-root "$TR" \
	--require-provenance demo=$GH
# a bundle carries it too, and verify checks it inside
expect_exit 0 "a bundle" env WHEELPICK_CATALOG="$TMP/c2.db" WHEELPICK_CACHE_DIR="$TMP/cache2" \
	"$WHEELPICK" bundle "$TMP/b.tar.zst" demo==1.0 $T --index "$BASE/json/" --offline
mkdir -p "$TMP/b" && tar --zstd -xf "$TMP/b.tar.zst" -C "$TMP/b"
[ -n "$(find "$TMP/b" -name "$WHL.provenance")" ] && pass "the bundle holds the provenance" || fail "no provenance in the bundle"
expect_exit 0 "verify the bundle against the root, under a policy" wp verify "$TMP/b.tar.zst" --trusted-root "$TR" \
	--require-provenance demo=$GH
expect_grep "its provenance checked" "^provenance: 1 file verified" "$TMP/out"
expect_exit 4 "the bundle, another root" wp verify "$TMP/b.tar.zst" --trusted-root "$PROD"
# offline, from the store: the provenance came with the object
expect_exit 0 "an offline pick from the store" env WHEELPICK_CATALOG="$TMP/c2.db" WHEELPICK_CACHE_DIR="$TMP/cache2" \
	"$WHEELPICK" demo==1.0 $T --index "$BASE/html/" -d "$TMP/wh4" --offline
cmp -s "$TMP/wh4/$WHL.provenance" "$SYN/$WHL.provenance" && pass "still carried offline" || fail "not carried offline"

done_testing
