#!/usr/bin/env bash
# tests/cli/t-sbom.sh: every output carries sbom.cdx.json, valid against the official CycloneDX 1.6
# schema (tests/fixtures/cyclonedx/), listing exactly its files with their sha256, purl and targets,
# the resolved dependencies and a wheel's own SBOMs (PEP 770); SPDX 2.3 on request; credentials
# never; the same output gives the same SBOM; verify fails an SBOM that lies.
. "$(dirname "$0")/../lib.sh"
make_sample
CHECK="$ROOT/tests/cli/sbom_check.py"
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"
sbom_ok() { # DESC SBOM DIR GLOB...
	local desc=$1
	shift
	if "$PYTHON" "$CHECK" "$@" >"$TMP/check.out" 2>&1; then pass "$desc"; else fail "$desc"; cat "$TMP/check.out" >&2; fi
}
cdx() { "$PYTHON" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# a wheelhouse over HTTP with a token in the index URL: the purl names the index, never the token
start_server "$SAMPLE"
IDX="http://user:s3cret@127.0.0.1:$PORT/whl/torch_stable.html"
expect_exit 0 "pick -d, --sbom both" wp torch==1.8.0 torchvision $T --index "$IDX" -d "$TMP/wh" --sbom both
sbom_ok "the wheelhouse's CycloneDX SBOM is valid and lists exactly its wheels" "$TMP/wh/sbom.cdx.json" "$TMP/wh" '*.whl'
sbom_ok "its SPDX 2.3 SBOM lists them too" "$TMP/wh/sbom.spdx.json" "$TMP/wh" '*.whl'
expect_no_grep "no credentials in the CycloneDX SBOM" "s3cret|user:" "$TMP/wh/sbom.cdx.json"
expect_no_grep "nor in the SPDX one" "s3cret|user:" "$TMP/wh/sbom.spdx.json"
P="[c for c in j['components'] if c['name']=='torch'][0]"
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', wanted '$3'"; fi; }
expect_eq "torch's purl: version, file name, repository" "$(cdx "$TMP/wh/sbom.cdx.json" "$P['purl']")" \
	"pkg:pypi/torch@1.8.0%2Bcu111?file_name=torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl&repository_url=http://127.0.0.1:$PORT/whl/cu111"
expect_eq "its target" "$(cdx "$TMP/wh/sbom.cdx.json" "[p['value'] for p in $P['properties'] if p['name']=='wheelpick:target']")" \
	"['CUDA 11.2, Python 3.8, linux_x86_64']"
expect_eq "its variant and GPU architectures" \
	"$(cdx "$TMP/wh/sbom.cdx.json" "[p['value'] for p in $P['properties'] if p['name'] in ('wheelpick:variant','wheelpick:gpu-archs')]")" \
	"['cu111', '3.7, 5.0, 6.0, 7.0, 7.5, 8.0, 8.6']"
expect_eq "its provenance status (none beside it)" \
	"$(cdx "$TMP/wh/sbom.cdx.json" "[p['value'] for p in $P['properties'] if p['name']=='wheelpick:provenance']")" "['absent']"
expect_eq "torchvision depends on torch, numpy, pillow (as resolved)" \
	"$(cdx "$TMP/wh/sbom.cdx.json" "sorted(d['dependsOn'] for d in j['dependencies'] if d['ref'].startswith('torchvision'))[0]")" \
	"['numpy-1.24.0-py3-none-any.whl', 'pillow-9.0.0-py3-none-any.whl', 'torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl']"
expect_grep "a serial number from the content" '"serialNumber": "urn:uuid:[0-9a-f-]{36}"' "$TMP/wh/sbom.cdx.json"
expect_no_grep "no timestamp without SOURCE_DATE_EPOCH" '"timestamp"' "$TMP/wh/sbom.cdx.json"
expect_exit 0 "verify checks the SBOM against the files" wp verify "$TMP/wh"

# the same output, again elsewhere: the same SBOM bytes; SOURCE_DATE_EPOCH gives its timestamp
expect_exit 0 "again, another folder and cache" env WHEELPICK_CACHE_DIR="$TMP/cache2" "$WHEELPICK" torch==1.8.0 torchvision $T \
	--index "$IDX" -d "$TMP/wh2" --sbom both
cmp -s "$TMP/wh/sbom.cdx.json" "$TMP/wh2/sbom.cdx.json" && pass "the same CycloneDX bytes" || fail "the SBOMs differ"
cmp -s "$TMP/wh/sbom.spdx.json" "$TMP/wh2/sbom.spdx.json" && pass "the same SPDX bytes" || fail "the SPDX SBOMs differ"
expect_exit 0 "with SOURCE_DATE_EPOCH" env SOURCE_DATE_EPOCH=1700000000 "$WHEELPICK" torch==1.8.0 $T --index "$IDX" -d "$TMP/wh3"
expect_grep "the timestamp is SOURCE_DATE_EPOCH's" '"timestamp": "2023-11-14T22:13:20Z"' "$TMP/wh3/sbom.cdx.json"
sbom_ok "and still valid" "$TMP/wh3/sbom.cdx.json" "$TMP/wh3" '*.whl'
expect_no_file "no SPDX unless asked" "$TMP/wh3/sbom.spdx.json"
expect_exit 2 "--sbom takes cyclonedx, spdx or both" wp torch==1.8.0 $T --index "$IDX" -d "$TMP/wh4" --sbom xml
expect_grep "saying so" "--sbom 'xml' is not one of cyclonedx, spdx, both" "$TMP/err"

# verify fails an SBOM that lies: another hash, a file it leaves out, one it adds
cp -r "$TMP/wh" "$TMP/lie"
sed -i 's/"content": "\([0-9a-f]\)/"content": "0\1/' "$TMP/lie/sbom.cdx.json"
expect_exit 4 "an SBOM with another sha256 fails verify" wp verify "$TMP/lie"
expect_grep "naming the file" "gives sha256 0.* for 'numpy-1\.24\.0-py3-none-any\.whl'; the file's is" "$TMP/err"
cp "$TMP/wh/sbom.cdx.json" "$TMP/lie/sbom.cdx.json"
"$PYTHON" - "$TMP/lie/sbom.cdx.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
j["components"] = [c for c in j["components"] if c["name"] != "pillow"]
c = dict(j["components"][0]); c["bom-ref"] = "extra-1.0-py3-none-any.whl"
c["properties"] = [{"name": "wheelpick:path", "value": "extra-1.0-py3-none-any.whl"}]
j["components"].append(c)
json.dump(j, open(sys.argv[1], "w"))
EOF
expect_exit 4 "an SBOM that leaves a wheel out and adds one fails" wp verify "$TMP/lie"
expect_grep "the one left out" "does not list 'pillow-9\.0\.0-py3-none-any\.whl'" "$TMP/err"
expect_grep "the one added" "lists 'extra-1\.0-py3-none-any\.whl', which is not in the output" "$TMP/err"

# PEP 770: a wheel that carries an SBOM under .dist-info/sboms/ is referenced with its hash
mkdir -p "$TMP/w770"
S770=$("$PYTHON" - "$TMP/w770" <<'EOF'
import base64, hashlib, io, os, sys, zipfile
out = sys.argv[1]
name = "sbomdemo-1.0-py3-none-any.whl"
sbom = b'{"bomFormat": "CycloneDX", "specVersion": "1.6", "version": 1}\n'
files = {
    "sbomdemo/__init__.py": b"x = 1\n",
    "sbomdemo-1.0.dist-info/METADATA": b"Metadata-Version: 2.5\nName: sbomdemo\nVersion: 1.0\n",
    "sbomdemo-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: t-sbom\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    "sbomdemo-1.0.dist-info/sboms/bundled.cdx.json": sbom,
}
rec = ""
for n, d in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
    rec += f"{n},sha256={h},{len(d)}\n"
rec += "sbomdemo-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(os.path.join(out, name), "w") as z:
    for n, d in files.items():
        z.writestr(n, d)
    z.writestr("sbomdemo-1.0.dist-info/RECORD", rec)
print(hashlib.sha256(sbom).hexdigest())
EOF
)
expect_exit 0 "a wheel with its own SBOM" wp sbomdemo $T -f "$TMP/w770" -d "$TMP/wh770"
expect_eq "referenced by path and sha256" \
	"$(cdx "$TMP/wh770/sbom.cdx.json" "[(r['url'], r['hashes'][0]['content']) for r in j['components'][0]['externalReferences']]")" \
	"[('sbomdemo-1.0.dist-info/sboms/bundled.cdx.json', '$S770')]"
sbom_ok "valid" "$TMP/wh770/sbom.cdx.json" "$TMP/wh770" '*.whl'

# a provenance file beside a wheel (PEP 740, carried by another part of wheelpick) is noted
touch "$TMP/wh770/sbomdemo-1.0-py3-none-any.whl.provenance"
expect_exit 0 "written again" wp sbomdemo $T -f "$TMP/w770" -d "$TMP/wh770"
expect_eq "provenance present" \
	"$(cdx "$TMP/wh770/sbom.cdx.json" "[p['value'] for p in j['components'][0]['properties'] if p['name']=='wheelpick:provenance']")" "['present']"

# a bundle carries its wheelhouse's SBOM; a mirror lists every file of its tree, across runs
expect_exit 0 "a bundle" wp bundle "$TMP/b.tar.zst" torch==1.8.0 torchvision $T --index "$IDX"
mkdir -p "$TMP/bx" && tar --zstd -xf "$TMP/b.tar.zst" -C "$TMP/bx"
sbom_ok "the bundle's SBOM is valid and lists its wheels" "$TMP/bx/b/sbom.cdx.json" "$TMP/bx/b" '*.whl'
expect_exit 0 "a mirror of torch" wp mirror "$TMP/m" torch==1.8.0 $T --index "$IDX" --no-deps
expect_exit 0 "then torchvision added" wp mirror "$TMP/m" torchvision==0.9.0 $T --index "$IDX"
sbom_ok "the mirror's SBOM lists every file of the tree" "$TMP/m/sbom.cdx.json" "$TMP/m" 'files/*/*.whl'
expect_eq "the first run's torch keeps its target" \
	"$(cdx "$TMP/m/sbom.cdx.json" "[p['value'] for c in j['components'] if c['name']=='torch' for p in c['properties'] if p['name']=='wheelpick:target']")" \
	"['CUDA 11.2, Python 3.8, linux_x86_64']"
expect_exit 0 "the mirror verifies, SBOM and all" wp verify "$TMP/m"

# a conda channel: pkg:conda purls, every package of its repodata
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$TMP/chan" "$TMP/forge" >/dev/null
expect_exit 0 "a conda channel" wp pytorch==1.8.0 --conda -c "file://$TMP/chan" -c "file://$TMP/forge" --cuda 11.2 \
	--python 3.8 --platform linux-64 -d "$TMP/ch"
sbom_ok "the channel's SBOM is valid and lists its packages" "$TMP/ch/sbom.cdx.json" "$TMP/ch" '*/*.tar.bz2' '*/*.conda'
expect_grep "a conda purl" '"purl": "pkg:conda/pytorch@1\.8\.0\?build=py3\.8_cuda11\.1_cudnn8\.0\.5_0&channel=file://.*&subdir=linux-64&type=tar\.bz2"' "$TMP/ch/sbom.cdx.json"
expect_exit 0 "the channel verifies, SBOM and all" wp verify "$TMP/ch"

done_testing
