#!/usr/bin/env python3
"""tests/diff/conda_version_diff.py: resolver/condaver against conda's own VersionOrder (vendored).

conda/models/version.py is vendored byte for byte under tests/diff/conda_ref/ (PROVENANCE.md
there). Pairs of versions are ordered by both: pairs drawn from the 28,000 real versions conda
parsed (tests/fixtures/real/conda_repodata/conda_versions/), their near neighbours, and generated
ones stressing conda's corners: a last part of '_' or '-' only (1.0__, 1.0--: conda's openssl rule
strips one '_' and the rest is a component of its own, which starts with no digit and so gets a
0 in front), '*', 'dev', 'post', epochs and local parts. Both must refuse the same versions.

usage: python3 tests/diff/conda_version_diff.py [--driver build/tests/pep440_driver] [--count N]
"""
import argparse
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "conda_ref"))
sys.dont_write_bytecode = True
from conda.models.version import VersionOrder  # noqa: E402
from conda.exceptions import InvalidVersionSpec  # noqa: E402

sys.path.insert(0, HERE)
import pep440_diff as gen  # noqa: E402

REAL = os.path.join(os.environ.get("WP_TEST_REAL_DATA") or os.path.join(ROOT, "tests", "fixtures", "real"),
                    "conda_repodata", "conda_versions", "rattler_parsed_versions_by_conda.txt")


def order(a, b):
    try:
        va, vb = VersionOrder(a), VersionOrder(b)
    except InvalidVersionSpec:
        return "invalid"
    return str((va > vb) - (va < vb))


def generated(rng):
    parts = []
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if r < 0.5:
            parts.append(str(rng.randint(0, 12)))
        elif r < 0.7:
            parts.append(str(rng.randint(0, 3)) + rng.choice(["a", "b", "rc", "dev", "post", "_alpha", ""]) + str(rng.randint(0, 3)))
        else:
            parts.append(rng.choice(["a", "dev", "post", "*", "rc1", "0a", "x"]))
    v = rng.choice([".", "_", ".", "-"]).join(parts)
    r = rng.random()
    if r < 0.35:
        v += rng.choice(["_", "__", "___", "-", "--", "-_", "_-"])
    elif r < 0.45:
        v = v + "+" + rng.choice(["1", "a", "1.2", "x_y", "cuda"]) + rng.choice(["", "_", "__"])
    if rng.random() < 0.1:
        v = str(rng.randint(0, 2)) + "!" + v
    if rng.random() < 0.1:
        v = v.upper()
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", default="build/tests/pep440_driver")
    ap.add_argument("--seed", type=int, default=1996)
    ap.add_argument("--count", type=int, default=6000)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    real = []
    with open(REAL, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or "=" not in line:
                continue
            real.append(line.split("=", 1)[0].strip())
    if len(real) < 28000:
        print("conda_version_diff: %s holds %d versions, want 28,000 or more" % (REAL, len(real)))
        return 2
    run = gen.Run(args.driver)
    counts = {"real pairs": 0, "generated pairs": 0, "trailing _ or - pairs": 0}
    for _ in range(args.count):
        a, b = rng.choice(real), rng.choice(real)
        run.add(["K", a, b], order(a, b), "VersionOrder(%r) vs (%r)" % (a, b))
        counts["real pairs"] += 1
    for _ in range(args.count):
        a = generated(rng)
        b = generated(rng) if rng.random() < 0.5 else rng.choice(real)
        if rng.random() < 0.5:
            b = a.rstrip("_-") + rng.choice(["", ".0", "_", ".0_", "a", ".*", "0"])
        key = "trailing _ or - pairs" if a[-1] in "_-" or b[-1:] in ("_", "-") else "generated pairs"
        run.add(["K", a, b], order(a, b), "VersionOrder(%r) vs (%r)" % (a, b))
        counts[key] += 1
    try:
        bad = run.check()
    except (OSError, subprocess.CalledProcessError) as e:
        print("conda_version_diff: cannot run driver %s: %s" % (args.driver, e))
        return 2
    print("conda_version_diff: conda's VersionOrder (vendored), seed %d: %s; %d mismatches"
          % (args.seed, ", ".join("%d %s" % (n, k) for k, n in counts.items()), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
