#!/usr/bin/env python3
"""tests/diff/pep440_diff.py: differential test of resolver/version + resolver/specifier against pip's packaging.

Generates a few thousand random PEP 440 versions (every spelling: case, separators, 'v', epochs,
implicit post releases, local labels, surrounding whitespace), version pairs, specifiers and
specifier sets, asks pip's vendored packaging (pip._vendor.packaging, 21.3 on this machine) and
the C driver tests/diff/pep440_driver.c the same questions, and reports every disagreement.

wheelpick follows packaging 24.2 (tests/unit/test_version.c and test_specifier.c check its own
vectors). The generator stays inside the ground where 21.3 and 24.2 agree:
  - only valid versions (no LegacyVersion / LegacySpecifier), numbers of at most 18 digits
    (wheelpick's documented cap), ASCII only;
  - no '.*' after a pre/post/dev part (21.3's pattern takes "==1.0a1.*", 24.2 refuses it);
  - no ';' or ')' in '===' text (24.2's pattern stops there, 21.3's does not);
  - '==X.*' and '~=X' only with X in normal form and without epochs, and not where the candidate's
    release is shorter than X's prefix while it has a pre/post/dev part (24.2 pads before it
    shortens, 21.3 after; 24.2 also normalises X and splits epochs);
  - with prereleases=None, no '<'/'>' naming a pre-release (21.3's Specifier.prereleases ignores
    those two operators) and no '===' (21.3 reads a non-version there as LegacyVersion).

usage (from the repository root):
  gcc -std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -I. -O1 -g \\
      -fsanitize=address,undefined tests/diff/pep440_driver.c resolver/version.c resolver/specifier.c \\
      base/*.c -o build/pep440_driver
  python3 tests/diff/pep440_diff.py [--driver build/pep440_driver] [--seed N] [--count N]
Exit status: 0 when every answer agrees, 1 on any mismatch (each one printed), 2 on a setup error.
"""
import argparse
import random
import subprocess
import sys

try:
    from pip._vendor.packaging.version import Version, InvalidVersion
    from pip._vendor.packaging.specifiers import Specifier, SpecifierSet, InvalidSpecifier
    from pip._vendor.packaging import __version__ as PACKAGING_VERSION
except ImportError:  # pragma: no cover
    from packaging.version import Version, InvalidVersion
    from packaging.specifiers import Specifier, SpecifierSet, InvalidSpecifier
    from packaging import __version__ as PACKAGING_VERSION

PRE_SPELLINGS = ["a", "alpha", "b", "beta", "c", "rc", "pre", "preview"]
POST_SPELLINGS = ["post", "rev", "r"]
SEPS = ["", ".", "-", "_"]
SPACES = [" ", "\t", "\n", "\r", "\f", "\v"]


def esc(s):
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def unesc(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            c = s[i + 1]
            if c == "x":
                out.append(chr(int(s[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append({"t": "\t", "n": "\n", "\\": "\\"}.get(c, c))
            i += 2
            continue
        out.append(s[i])
        i += 1
    return "".join(out)


def case(rng, s):
    r = rng.random()
    if r < 0.15:
        return s.upper()
    if r < 0.25:
        return "".join(c.upper() if rng.random() < 0.5 else c for c in s)
    return s


def num(rng):
    r = rng.random()
    if r < 0.6:
        return str(rng.randint(0, 12))
    if r < 0.8:
        return str(rng.randint(0, 2025))
    if r < 0.9:
        return "0" * rng.randint(1, 3) + str(rng.randint(0, 99))  # leading zeros
    return str(rng.randint(0, 10 ** rng.randint(1, 18) - 1))


def release(rng, min_parts=1):
    return ".".join(num(rng) for _ in range(rng.randint(min_parts, max(min_parts, 4))))


def suffixes(rng, allow_local=True):
    s = ""
    if rng.random() < 0.3:
        s += rng.choice(SEPS) + case(rng, rng.choice(PRE_SPELLINGS))
        if rng.random() < 0.8:
            s += rng.choice(SEPS) + num(rng)
    if rng.random() < 0.25:
        if rng.random() < 0.3:
            s += "-" + num(rng)
        else:
            s += rng.choice(SEPS) + case(rng, rng.choice(POST_SPELLINGS))
            if rng.random() < 0.8:
                s += rng.choice(SEPS) + num(rng)
    if rng.random() < 0.25:
        s += rng.choice(SEPS) + case(rng, "dev")
        if rng.random() < 0.8:
            s += rng.choice(SEPS) + num(rng)
    if allow_local and rng.random() < 0.3:
        parts = []
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if r < 0.3:
                parts.append(num(rng))
            elif r < 0.6:
                parts.append(rng.choice(["cu111", "cu102", "cpu", "rocm4", "cxx11", "abi", "with", "pypi", "cudnn", "xpu"]))
            else:
                parts.append("".join(rng.choice("abcdefxyz0123456789") for _ in range(rng.randint(1, 5))))
        s += "+" + "".join((rng.choice(["-", "_", "."]) if i else "") + case(rng, p) for i, p in enumerate(parts))
    return s


def version_text(rng, allow_local=True, min_parts=1, epoch=True):
    s = ""
    if rng.random() < 0.08:
        s += rng.choice(["v", "V"])
    if epoch and rng.random() < 0.1:
        s += num(rng) + "!"
    s += release(rng, min_parts) + suffixes(rng, allow_local)
    if rng.random() < 0.1:
        s = "".join(rng.choice(SPACES) for _ in range(rng.randint(1, 2))) + s
    if rng.random() < 0.1:
        s += "".join(rng.choice(SPACES) for _ in range(rng.randint(1, 2)))
    return s


def mutate(rng, s):
    """A nearby string, often invalid: the parser must agree on those too."""
    i = rng.randint(0, len(s))
    r = rng.random()
    if r < 0.4:
        return s[:i] + rng.choice("+-_.!*abcdrpvx0123 ") + s[i:]
    if r < 0.7 and s:
        return s[:i] + s[i + 1:]
    return s + rng.choice(["+", "-", ".", "..", "+a+", "!", ".*", "dev-", "a-", "post-"])


def parses(text):
    try:
        return Version(text)
    except InvalidVersion:
        return None


def too_big(v):
    nums = [v.epoch] + list(v.release) + [x for x in (v.post, v.dev) if x is not None]
    if v.pre is not None:
        nums.append(v.pre[1])
    return any(x >= 10 ** 18 for x in nums)


def suffixed(v):
    return v.pre is not None or v.post is not None or v.dev is not None


class Run:
    def __init__(self, driver):
        self.driver = driver
        self.queries = []   # (line, expected, description)

    def add(self, fields, expected, what):
        self.queries.append(("\t".join(esc(f) for f in fields), expected, what))

    def check(self):
        data = "".join(q[0] + "\n" for q in self.queries).encode()
        out = subprocess.run([self.driver], input=data, stdout=subprocess.PIPE, check=True).stdout.decode()
        lines = out.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) != len(self.queries):
            print("driver answered %d lines for %d queries" % (len(lines), len(self.queries)))
            return len(self.queries)
        bad = 0
        for (line, expected, what), got in zip(self.queries, lines):
            if got != expected:
                bad += 1
                if bad <= 50:
                    print("MISMATCH %s\n  query    %r\n  packaging %r\n  wheelpick %r" % (what, line, expected, got))
        return bad


def version_answer(v):
    return "\t".join(["ok", str(v), str(int(v.is_prerelease)), str(int(v.is_devrelease)),
                      str(int(v.is_postrelease)), v.public, v.base_version, v.local or "-"])


def spec_agrees(spec, v, pre):
    """False where packaging 21.3 and 24.2 are known to answer differently (see the docstring)."""
    op, text = spec.operator, spec.version
    if op == "===":
        return pre is not None
    sv = Version(text[:-2] if text.endswith(".*") else text)
    if op in ("<", ">") and pre is None and sv.is_prerelease:
        return False
    if text.endswith(".*") or op == "~=":
        if text.endswith(".*"):
            if text[:-2] != str(sv) or sv.epoch or v.epoch:
                return False
            plen = len(sv.release)
        else:
            if text != str(sv) or sv.epoch or v.epoch:
                return False
            plen = len(sv.release) - 1
        if len(v.release) < plen and suffixed(v):
            return False
    return True


def specifier_text(rng):
    op = rng.choice(["~=", "==", "!=", "<=", ">=", "<", ">", "==", "!=", "==="])
    if op == "===":
        text = version_text(rng).strip()
        while ";" in text or ")" in text:
            text = text.replace(";", "").replace(")", "")
    elif op in ("==", "!="):
        if rng.random() < 0.35:
            text = ("v" if rng.random() < 0.05 else "") + release(rng) + ".*"
        else:
            text = version_text(rng)
    elif op == "~=":
        text = version_text(rng, allow_local=False, min_parts=2)
    else:
        text = version_text(rng, allow_local=False)
    if rng.random() < 0.15:
        text = " " + text
    if rng.random() < 0.2:
        text = mutate(rng, text)
    return op + text


def normal_spec(rng, versions):
    """A specifier naming one of the versions in normal form, so it matches often."""
    v = rng.choice(versions)
    op = rng.choice(["~=", "==", "!=", "<=", ">=", "<", ">", "==", "!="])
    if op in ("==", "!=") and rng.random() < 0.4:
        rel = list(v.release)[:rng.randint(1, len(v.release))]
        return op + ".".join(map(str, rel)) + ".*"
    text = v.public if op not in ("==", "!=") else str(v)
    if op == "~=" and len(v.release) < 2:
        text = str(v.release[0]) + ".0"
    return op + text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", default="build/pep440_driver")
    ap.add_argument("--seed", type=int, default=440)
    ap.add_argument("--count", type=int, default=3000)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    run = Run(args.driver)
    counts = {"version": 0, "compare": 0, "specifier": 0, "contains": 0, "set contains": 0}

    versions = []
    for _ in range(args.count):
        text = version_text(rng)
        if rng.random() < 0.25:
            text = mutate(rng, text)
        v = parses(text)
        if v is not None and too_big(v):
            continue
        run.add(["V", text], version_answer(v) if v is not None else "invalid", "Version(%r)" % text)
        counts["version"] += 1
        if v is not None:
            versions.append(v)

    # near neighbours make the order interesting: the same release with other suffixes
    for _ in range(args.count):
        a = rng.choice(versions)
        b = rng.choice(versions)
        if rng.random() < 0.5:
            b = parses(".".join(map(str, a.release)) + suffixes(rng)) or b
            if too_big(b):
                continue
        c = (a > b) - (a < b)
        run.add(["C", str(a), str(b)], str(c), "cmp(%s, %s)" % (a, b))
        counts["compare"] += 1

    specs = []
    for _ in range(args.count):
        text = specifier_text(rng) if rng.random() < 0.6 else normal_spec(rng, versions)
        try:
            sp = Specifier(text)
        except InvalidSpecifier:
            sp = None
        if sp is not None:
            t = sp.version[:-2] if sp.version.endswith(".*") else sp.version
            if sp.operator != "===" and too_big(Version(t)):
                continue
            if sp.operator in ("==", "!=") and sp.version.endswith(".*") and not t.replace(".", "").isdigit():
                continue  # "==1.0a1.*": 21.3 only
            if sp.operator == "===":
                continue  # 21.3 and 24.2 read === text differently (see the docstring)
            specs.append(sp)
            if sp.operator in ("<", ">") and Version(t).is_prerelease:
                continue  # prereleases: 24.2 counts < and >, 21.3 does not
            run.add(["S", text], "ok\t%s\t%d" % (esc(str(sp)), sp.prereleases), "Specifier(%r)" % text)
        else:
            if ("===" in text and (";" in text or ")" in text)) or ".*" in text:
                continue  # the two patterns differ there
            run.add(["S", text], "invalid", "Specifier(%r)" % text)
        counts["specifier"] += 1

    for _ in range(args.count * 2):
        sp = rng.choice(specs)
        v = rng.choice(versions)
        if rng.random() < 0.4:
            base = sp.version[:-2] if sp.version.endswith(".*") else sp.version
            near = parses(base.split("+")[0].rstrip(".*") + suffixes(rng))
            if near is not None and not too_big(near):
                v = near
        pre = rng.choice([None, True, False])
        if not spec_agrees(sp, v, pre):
            continue
        want = sp.contains(v, prereleases=pre)
        run.add(["I", str(sp), str(v), {None: "none", True: "true", False: "false"}[pre]], str(int(want)),
                "%r.contains(%s, prereleases=%s)" % (str(sp), v, pre))
        counts["contains"] += 1

    for _ in range(args.count):
        members = rng.sample(specs, rng.randint(0, 3))
        v = rng.choice(versions)
        pre = rng.choice([None, True, False])
        if not all(spec_agrees(s, v, pre) for s in members):
            continue
        text = ",".join(str(s) for s in members)
        want = SpecifierSet(text).contains(v, prereleases=pre)
        run.add(["T", text, str(v), {None: "none", True: "true", False: "false"}[pre]], str(int(want)),
                "SpecifierSet(%r).contains(%s, prereleases=%s)" % (text, v, pre))
        counts["set contains"] += 1

    try:
        bad = run.check()
    except (OSError, subprocess.CalledProcessError) as e:
        print("pep440_diff: cannot run driver %s: %s (build it first, see the top of this file)" % (args.driver, e))
        return 2
    total = sum(counts.values())
    print("pep440_diff: packaging %s, seed %d: %s; %d queries, %d mismatches"
          % (PACKAGING_VERSION, args.seed, ", ".join("%d %s" % (n, k) for k, n in counts.items()), total, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
