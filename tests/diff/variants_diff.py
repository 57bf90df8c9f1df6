#!/usr/bin/env python3
"""tests/diff/variants_diff.py: PEP 825 label order against variantlib, PEP 825's reference
implementation (vendored under tests/diff/variantlib_ref/, PROVENANCE.md there).

Writes variants.json files in wheelnext's 0.0.3 format whose namespaces are all static
("install-time": false: what a static namespace supports is what its static-properties list,
in that order, and no plugin runs): labels over 1 to 3 namespaces, static-properties that
sometimes leave out a feature the labels use, default-priorities with and without feature and
property lists. For each file variantlib's get_variants_by_priority and wheelpick (the labels the
target supports, ordered by wp_vorder_cmp) must give the same labels in the same order. Files
variantlib refuses as invalid are not asked, nor two labels with the same properties (variantlib
keeps one of them, by hash). Also reads variantlib's own test vectors
(tests/fixtures/real/variants/variantlib__*.json) where their namespaces are static.

usage: python3 tests/diff/variants_diff.py [--driver build/tests/variants_driver] [--count N]
"""
import argparse
import json
import logging
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "variantlib_ref")
sys.path[:0] = [os.path.join(REF, "shim"), REF, os.path.join(HERE, "packaging_head")]
sys.dont_write_bytecode = True
os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp())  # no user's variantlib config
logging.disable(logging.WARNING)
from variantlib.api import get_variants_by_priority  # noqa: E402
from variantlib.errors import ValidationError  # noqa: E402

NAMESPACES = ["alpha", "beta", "gamma"]
FEATURES = ["f1", "f2", "f3"]
VALUES = ["v1", "v2", "v3", "v4", "v5"]


def gen(rng):
    nss = rng.sample(NAMESPACES, rng.randint(1, 3))
    labels = {"null": {}}
    used = {}
    for i in range(rng.randint(1, 6)):
        props = {}
        for _ in range(rng.randint(1, 3)):
            ns, feat = rng.choice(nss), rng.choice(FEATURES)
            props.setdefault(ns, {})[feat] = sorted(rng.sample(VALUES, rng.randint(1, 2)))
            used.setdefault(ns, set()).add(feat)
        key = json.dumps(props, sort_keys=True)
        if any(json.dumps(p, sort_keys=True) == key for p in labels.values()):
            continue  # two labels of one variant: variantlib keeps one of them, by its hash
        labels["l%d" % i] = props
    static = {}
    for ns in nss:
        feats = sorted(used.get(ns, {"f1"}))
        if rng.random() < 0.25 and len(feats) > 1:
            feats.remove(rng.choice(feats))  # a feature the labels use, not listed
        static[ns] = {f: rng.sample(VALUES, rng.randint(1, 5)) for f in feats}
    prio = {"namespace": rng.sample(nss, len(nss))}
    feat_prio = {}
    for ns in nss:
        if len(static[ns]) > 1 or rng.random() < 0.3:
            fs = list(static[ns])
            rng.shuffle(fs)
            feat_prio[ns] = fs
    if feat_prio or rng.random() < 0.5:
        prio["feature"] = feat_prio
    if rng.random() < 0.5:
        pp = {}
        for ns in nss:
            for f in static[ns]:
                if rng.random() < 0.5:
                    pp.setdefault(ns, {})[f] = rng.sample(VALUES, rng.randint(1, 3))
        prio["property"] = pp
    return {
        "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
        "default-priorities": prio,
        "providers": {ns: {"install-time": False} for ns in nss},
        "static-properties": static,
        "variants": labels,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", default="build/tests/variants_driver")
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--seed", type=int, default=825)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        paths, want = [], []
        docs = []
        for f in args.files:
            with open(f) as fh:
                docs.append((f, json.load(fh)))
        for i in range(args.count):
            docs.append((os.path.join(tmp, "gen%04d-variants.json" % i), gen(rng)))
        refused = 0
        for path, d in docs:
            try:
                order = get_variants_by_priority(variants_json=d)
            except (ValidationError, RuntimeError, ValueError):
                refused += 1
                continue
            if not path.startswith(tmp) and any(not p.get("install-time", True) is False
                                                for p in d.get("providers", {}).values()):
                continue  # a plugin namespace: variantlib would run its code
            if path.startswith(tmp):
                with open(path, "w") as fh:
                    json.dump(d, fh)
            paths.append(path)
            want.append("ok" + "".join(" " + label for label in order))
        if not paths:
            print("variants_diff: nothing to ask")
            return 2
        out = subprocess.run([args.driver] + paths, stdout=subprocess.PIPE, check=True).stdout.decode().split("\n")[:-1]
        if len(out) != len(paths):
            print("driver answered %d lines for %d files" % (len(out), len(paths)))
            return 2
        bad = 0
        for path, exp, got in zip(paths, want, out):
            if exp != got:
                bad += 1
                if bad <= 10:
                    print("MISMATCH %s\n  variantlib %s\n  wheelpick  %s" % (os.path.basename(path), exp, got))
                    if bad <= 3:
                        print(open(path).read())
        print("variants_diff: variantlib (vendored): %d files ordered (%d refused as invalid by variantlib); %d mismatches"
              % (len(paths), refused, bad))
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
