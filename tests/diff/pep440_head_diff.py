#!/usr/bin/env python3
"""tests/diff/pep440_head_diff.py: resolver/specifier against packaging HEAD (26.4.dev0), vendored.

pep440_diff.py asks pip's packaging (21.3) what the two agree on. This one asks packaging HEAD
(tests/diff/packaging_head/, see PROVENANCE.md there) the questions where wheelpick follows HEAD's
reading, and where 21.3 cannot be asked:
  - '===' is string equality against the candidate as written, case aside: '===1.1' does not take
    '1.01', '===1.0,===1.0.0' are two specifiers, a candidate spelled 'V1.0' is not '1.0';
  - '>V' and '<V' where V is a pre-, dev- or post-release (packaging 26: '>1.0.dev1' takes
    '1.0.post0', '<1.0.post1' takes '1.0a1'), and their local-version rule;
  - every other operator over the same near versions.
Candidates are passed as text (the driver parses them, keeping the text as written), with
prereleases=True or False: with None, packaging 26 admits a pre-release into contains() where
wheelpick keeps 24.2's rule (wheelpick always asks with an explicit answer when it picks).

usage: python3 tests/diff/pep440_head_diff.py [--driver build/tests/pep440_driver] [--seed N] [--count N]
Exit status: 0 when every answer agrees, 1 on any mismatch (each one printed), 2 on a setup error.
"""
import argparse
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "packaging_head"))
sys.dont_write_bytecode = True
import packaging  # noqa: E402
from packaging.version import Version, InvalidVersion  # noqa: E402
from packaging.specifiers import Specifier, SpecifierSet, InvalidSpecifier  # noqa: E402

assert packaging.__file__.startswith(os.path.join(HERE, "packaging_head")), packaging.__file__
sys.path.insert(0, HERE)
import pep440_diff as gen  # noqa: E402  (the generator's helpers; its own packaging is not used)


def parses(text):
    try:
        v = Version(text)
    except InvalidVersion:
        return None
    return None if gen.too_big(v) else v


def family(rng, base):
    """Texts near base: its pre, dev, post and local relatives, spelled in many ways."""
    rel = base.split("+")[0]
    r = rng.random()
    if r < 0.3:
        return rel + gen.suffixes(rng)
    if r < 0.5:
        return rel + rng.choice(["", ".0", ".00"]) + gen.suffixes(rng)
    if r < 0.7:
        v = Version(rel)
        parts = list(v.release)
        if rng.random() < 0.5:
            parts[-1] += rng.choice([-1, 1]) if parts[-1] > 0 else 1
        return ".".join(map(str, parts)) + gen.suffixes(rng)
    if r < 0.85:
        # another spelling of the same text: case, leading zeros, 'v', separators
        t = gen.case(rng, rel)
        if rng.random() < 0.3:
            t = "v" + t
        if rng.random() < 0.3:
            t = t.replace(".", ".0", 1)
        return t + ("+" + gen.case(rng, rng.choice(["cu118", "CPU", "local.1"])) if rng.random() < 0.3 else "")
    return gen.version_text(rng).strip()


def exclusive_spec(rng):
    op = rng.choice(["<", ">", "<", ">", "<=", ">=", "==", "!=", "~="])
    rel = gen.release(rng, 2 if op == "~=" else 1)
    suf = ""
    kind = rng.random()
    if kind < 0.3:
        suf += rng.choice(["a", "b", "rc"]) + str(rng.randint(0, 3))
    if rng.random() < 0.4:
        suf += ".post" + str(rng.randint(0, 3))
    if rng.random() < 0.4:
        suf += ".dev" + str(rng.randint(0, 3))
    if op in ("==", "!=") and rng.random() < 0.3:
        suf += "+" + rng.choice(["cu118", "local"])
    return op + rel + suf


def arbitrary_spec(rng):
    t = gen.version_text(rng, epoch=rng.random() < 0.2).strip()
    t = t.replace(";", "").replace(")", "")
    if rng.random() < 0.2:
        t = gen.case(rng, rng.choice(["foobar", "1.0-custom", "2.0.0.final", "nightly"]))
    return "===" + t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", default="build/tests/pep440_driver")
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--count", type=int, default=2000)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    run = gen.Run(args.driver)
    counts = {"exclusive": 0, "arbitrary": 0, "set": 0, "set str": 0}

    def ask(kind, spec_text, cand):
        v = parses(cand)
        if v is None or cand != cand.strip():
            return
        pre = rng.choice([True, False])
        if kind == "set":
            want = SpecifierSet(spec_text).contains(cand, prereleases=pre)
            run.add(["T", spec_text, cand, "true" if pre else "false"], str(int(want)),
                    "SpecifierSet(%r).contains(%r, prereleases=%s)" % (spec_text, cand, pre))
        else:
            want = Specifier(spec_text).contains(cand, prereleases=pre)
            run.add(["I", spec_text, cand, "true" if pre else "false"], str(int(want)),
                    "Specifier(%r).contains(%r, prereleases=%s)" % (spec_text, cand, pre))
        counts[kind] += 1

    specs = []
    for _ in range(args.count):
        text = exclusive_spec(rng)
        try:
            sp = Specifier(text)
        except InvalidSpecifier:
            continue
        if gen.too_big(Version(sp.version)):
            continue
        specs.append(text)
        for _ in range(3):
            ask("exclusive", text, family(rng, sp.version))

    for _ in range(args.count):
        text = arbitrary_spec(rng)
        try:
            Specifier(text)
        except InvalidSpecifier:
            continue
        body = text[3:]
        specs.append(text)
        for cand in (body, gen.case(rng, body), family(rng, body) if parses(body) else body, "v" + body):
            ask("arbitrary", text, cand)

    for _ in range(args.count):
        members = rng.sample(specs, rng.randint(1, 3))
        if rng.random() < 0.3:
            # the same version under two spellings: packaging HEAD keeps both for ===
            a = rng.choice(specs)
            if a.startswith("==="):
                members = [a, a + ".0", a.upper()]
        text = ",".join(members)
        try:
            ss = SpecifierSet(text)
        except InvalidSpecifier:
            continue
        run.add(["Z", text], gen.esc(str(ss)), "str(SpecifierSet(%r))" % text)
        counts["set str"] += 1
        base = rng.choice(members).lstrip("=<>!~")
        ask("set", text, family(rng, base) if parses(base) else base)

    try:
        bad = run.check()
    except (OSError, subprocess.CalledProcessError) as e:
        print("pep440_head_diff: cannot run driver %s: %s (make %s)" % (args.driver, e, args.driver))
        return 2
    total = sum(counts.values())
    print("pep440_head_diff: packaging %s (vendored), seed %d: %s; %d queries, %d mismatches"
          % (packaging.__version__, args.seed, ", ".join("%d %s" % (n, k) for k, n in counts.items()), total, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
