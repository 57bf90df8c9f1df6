#!/usr/bin/env python3
"""tests/cli/sbom_check.py SBOM [DIR [GLOB...]]: validate a CycloneDX 1.6 SBOM against the official
schema vendored in tests/fixtures/cyclonedx/ (draft-07; its references to spdx.schema.json and
jsf-0.82.schema.json resolved to the files beside it: nothing is fetched; formats such as date-time
checked), then, with DIR, that its components are exactly DIR's files matching the globs (default
*.whl), each with the sha256 of its bytes, a purl and at least one target. With an .spdx.json
file, checks SPDX 2.3's required fields instead (no schema is vendored for it). Prints each problem
and exits 1 when there is one."""
import fnmatch
import hashlib
import json
import os
import sys

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = os.path.join(HERE, "..", "fixtures", "cyclonedx")
problems = []


def schema_check(doc):
    def load(name):
        with open(os.path.join(SCHEMAS, name)) as f:
            return json.load(f)
    bom = load("bom-1.6.schema.json")
    reg = Registry()
    for name in ("spdx.schema.json", "jsf-0.82.schema.json"):
        res = Resource.from_contents(load(name), default_specification=DRAFT7)
        reg = reg.with_resource("http://cyclonedx.org/schema/" + name, res)
    v = jsonschema.Draft7Validator(bom, registry=reg, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    for e in sorted(v.iter_errors(doc), key=lambda e: list(e.path)):
        problems.append(f"schema: at {'/'.join(map(str, e.path)) or '(root)'}: {e.message[:300]}")


def files_of(d, globs):
    out = {}
    for root, _, names in os.walk(d):
        for n in names:
            rel = os.path.relpath(os.path.join(root, n), d)
            if any(fnmatch.fnmatch(rel, g) for g in globs):
                with open(os.path.join(root, n), "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
    return out


def cdx_files(doc):
    out = {}
    for c in doc.get("components", []):
        props = {}
        for p in c.get("properties", []):
            props.setdefault(p["name"], []).append(p["value"])
        path = props.get("wheelpick:path", [c.get("bom-ref")])[0]
        sha = [h["content"] for h in c.get("hashes", []) if h["alg"] == "SHA-256"]
        out[path] = sha[0] if sha else None
        if not c.get("purl", "").startswith(("pkg:pypi/", "pkg:conda/")):
            problems.append(f"{path}: no pypi or conda purl: {c.get('purl')}")
        if "@" in c.get("purl", "").split("?")[1 if "?" in c.get("purl", "") else 0].split("://", 1)[-1].split("/")[0]:
            problems.append(f"{path}: credentials in the purl: {c['purl']}")
        if not props.get("wheelpick:target"):
            problems.append(f"{path}: no target")
        if not props.get("wheelpick:provenance"):
            problems.append(f"{path}: no provenance status")
    return out


def spdx_check(doc):
    for k in ("spdxVersion", "dataLicense", "SPDXID", "name", "documentNamespace", "creationInfo", "packages"):
        if k not in doc:
            problems.append(f"spdx: no {k}")
    if doc.get("spdxVersion") != "SPDX-2.3":
        problems.append(f"spdx: version {doc.get('spdxVersion')}")
    out = {}
    for p in doc.get("packages", []):
        for k in ("SPDXID", "name", "downloadLocation"):
            if k not in p:
                problems.append(f"spdx package without {k}")
        sha = [c["checksumValue"] for c in p.get("checksums", []) if c["algorithm"] == "SHA256"]
        out[p.get("packageFileName")] = sha[0] if sha else None
    return out


def main():
    path = sys.argv[1]
    with open(path) as f:
        doc = json.load(f)
    if path.endswith(".spdx.json"):
        listed = spdx_check(doc)
    else:
        schema_check(doc)
        listed = cdx_files(doc)
    if len(sys.argv) > 2:
        have = files_of(sys.argv[2], sys.argv[3:] or ["*.whl"])
        for p in sorted(set(have) - set(listed)):
            problems.append(f"{p}: in the output, not in the SBOM")
        for p in sorted(set(listed) - set(have)):
            problems.append(f"{p}: in the SBOM, not in the output")
        for p in sorted(set(have) & set(listed)):
            if have[p] != listed[p]:
                problems.append(f"{p}: the SBOM says sha256 {listed[p]}, the file is {have[p]}")
    for p in problems:
        print(f"{path}: {p}")
    sys.exit(1 if problems else 0)


main()
