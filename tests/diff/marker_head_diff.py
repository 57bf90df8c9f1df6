#!/usr/bin/env python3
"""tests/diff/marker_head_diff.py: resolver/marker against packaging HEAD's Marker (vendored).

Thousands of generated PEP 508 markers, spelled with every whitespace byte between and inside
their parts (space and tab are whitespace; a newline, CR, form feed or vertical tab anywhere, a
final newline included, makes a marker invalid in packaging HEAD, whose END is \\Z): both must
accept or refuse, and print accepted markers alike. Then each accepted marker is evaluated on
twelve targets' environments (CPython 3.8 to 3.13 on Linux, Windows, macOS, x86_64 and arm64)
by both. Comparisons are a variable against a string, every operator on every variable (and
some of two strings or two variables, which PEP 508's grammar allows, wheelpick compares by the
Version | String rules, and packaging refuses: parsed and printed only). Both read the living
dependency-specifiers text (revised 2026-01-10): on String fields >= and <= are ==, > and <
False; extras and dependency_groups outside a lock file are an error. Where packaging HEAD
answers otherwise than that text, the text's answer is expected and the case is counted as
"kept" (README, Standards, names each with its line):
  - a Version | String field (platform_release, platform_version) where a side is no version:
    packaging answers False to every operator on platform_release (Specifier.contains of a
    non-version) and treats platform_version as a String field (=== and ~= raise); the text
    says version comparison when both parse or === is used, else "fall back to String field
    comparison logic": != is True, == >= <= compare the strings, ~= is == ("MAY instead
    interpret them as equivalent to =="), === is (case-insensitive) string equality.

usage: python3 tests/diff/marker_head_diff.py [--driver build/tests/pep440_driver] [--count N]
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
from packaging.markers import Marker, InvalidMarker, UndefinedComparison, UndefinedEnvironmentName  # noqa: E402

assert packaging.__file__.startswith(os.path.join(HERE, "packaging_head")), packaging.__file__
sys.path.insert(0, HERE)
import pep440_diff as gen  # noqa: E402

VERSION_VARS = ["python_version", "python_full_version", "implementation_version", "platform_release"]
STRING_VARS = ["os_name", "sys_platform", "platform_machine", "platform_system", "implementation_name",
               "platform_python_implementation", "platform_version"]
VALUES = {"python_version": ["3.8", "3.10", "3.12", "3", "2.7", "3.13"],
          "python_full_version": ["3.11.0", "3.12.1", "3.8.10", "3.13.0rc1"],
          "implementation_version": ["3.12.0", "3.9"], "platform_release": ["6.1.0", "5.15", "6.1.0-17-amd64"],
          "os_name": ["posix", "nt"], "sys_platform": ["linux", "win32", "darwin", "lin"],
          "platform_machine": ["x86_64", "AMD64", "arm64", "aarch64", "x86"], "platform_system": ["Linux", "Windows", "Darwin"],
          "implementation_name": ["cpython", "pypy"], "platform_python_implementation": ["CPython", "PyPy"],
          "platform_version": ["#1 SMP", "", 'a"b']}
WS = [" ", " ", "\t", "  ", "\n", "\r", "\f", "\v", "\r\n", ""]


def targets():
    out = []
    for py in ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]:
        for sysp, system, osn, mach in [("linux", "Linux", "posix", "x86_64"), ("win32", "Windows", "nt", "AMD64")]:
            out.append({"python_version": py, "python_full_version": py + ".0", "implementation_version": py + ".0",
                        "platform_release": "", "os_name": osn, "sys_platform": sysp, "platform_machine": mach,
                        "platform_system": system, "implementation_name": "cpython",
                        "platform_python_implementation": "CPython", "platform_version": "", "extra": ""})
    out[1]["sys_platform"], out[1]["platform_system"], out[1]["platform_machine"] = "darwin", "Darwin", "arm64"
    out[1]["os_name"] = "posix"
    for i, e in enumerate(out):
        # a Debian kernel's release is no version; a plain one is; Windows says "10"
        e["platform_release"] = "10" if e["os_name"] == "nt" else ("6.1.0-17-amd64" if i % 4 == 0 else "6.1.0")
    return out


SET_VARS = ["extras", "dependency_groups"]
VERSION_STRING_VARS = ["platform_release", "platform_version"]  # the text's "Version | String" fields
ALL_OPS = ["==", "!=", "<", "<=", ">", ">=", "~=", "===", "in", "not in"]


def comparison(rng, same_rules):
    if same_rules and rng.random() < 0.03:
        return "%s %s %s" % (repr(rng.choice(["test", "dev"])), rng.choice(["in", "not in"]), rng.choice(SET_VARS))
    var = rng.choice(VERSION_VARS + STRING_VARS)
    op = rng.choice(ALL_OPS)
    val = rng.choice(VALUES[var])
    if op == "~=" and "." not in val and var in VERSION_VARS:
        val += ".0"
    q = "'" if '"' in val else rng.choice(["'", '"'])
    lit = q + val + q
    if not same_rules:
        r = rng.random()
        if r < 0.3:
            other = rng.choice(VALUES[var])
            q2 = "'" if '"' in other else q
            return "%s %s %s" % (lit, op, q2 + other + q2)  # two strings
        if r < 0.4:
            return "%s %s %s" % (var, op, rng.choice(VERSION_VARS + STRING_VARS))  # two variables
    return "%s %s %s" % (lit, op, var) if rng.random() < 0.2 and op in ("in", "not in", "==", "!=") else \
        "%s %s %s" % (var, op, lit)


def marker(rng, same_rules, depth=0):
    parts = []
    for i in range(rng.randint(1, 3)):
        if depth < 2 and rng.random() < 0.2:
            parts.append("(" + marker(rng, same_rules, depth + 1) + ")")
        else:
            parts.append(comparison(rng, same_rules))
    out = parts[0]
    for p in parts[1:]:
        out += " %s %s" % (rng.choice(["and", "or"]), p)
    return out


def respace(rng, m):
    """The same marker with other whitespace: tabs, and sometimes a byte packaging HEAD refuses."""
    out = []
    quote = None
    for ch in m:
        if quote:
            out.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        if ch == " " and rng.random() < 0.5:
            out.append(rng.choice(WS[:4]) if rng.random() < 0.9 else rng.choice(WS))
        else:
            out.append(ch)
    s = "".join(out)
    r = rng.random()
    if r < 0.05:
        s += "\n"
    elif r < 0.08:
        s = rng.choice(WS) + s
    elif r < 0.11:
        s += rng.choice(WS)
    return s


def spec_answer(text, env):
    """The text's answer where packaging HEAD's differs, else None: packaging's _eval_op with
    platform_release's String fallback put back."""
    from packaging import markers as pm
    from packaging.version import Version, InvalidVersion
    from packaging.specifiers import Specifier, InvalidSpecifier
    orig = pm._eval_op
    kept = []

    def eval_op(lhs, op, rhs, *, key):
        o = op.serialize()
        if key not in VERSION_STRING_VARS or not isinstance(rhs, str) or o in ("in", "not in"):
            return orig(lhs, op, rhs, key=key)
        try:
            mine = Specifier(o + rhs).contains(Version(lhs), prereleases=True)
        except (InvalidVersion, InvalidSpecifier):
            if o == "===":
                mine = lhs.lower() == rhs.lower()
            else:
                mine = {"==": lhs == rhs, "!=": lhs != rhs, "<=": lhs == rhs, ">=": lhs == rhs,
                        "<": False, ">": False, "~=": lhs == rhs}[o]
        try:
            theirs = orig(lhs, op, rhs, key=key)
        except UndefinedComparison:
            theirs = None
        if mine != theirs:
            kept.append(1)
        return mine

    pm._eval_op = eval_op
    try:
        res = "1" if Marker(text).evaluate(env) else "0"
    except (UndefinedComparison, UndefinedEnvironmentName):
        res = "error"
    finally:
        pm._eval_op = orig
    return res, bool(kept)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", default="build/tests/pep440_driver")
    ap.add_argument("--seed", type=int, default=508)
    ap.add_argument("--count", type=int, default=2000)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    run = gen.Run(args.driver)
    envs = targets()
    counts = {"parse": 0, "evaluate": 0, "kept": 0}
    for _ in range(args.count):
        same = rng.random() < 0.8
        text = respace(rng, marker(rng, same))
        try:
            m = Marker(text)
            want = "ok\t" + gen.esc(str(m))
        except InvalidMarker:
            m, want = None, "invalid"
        run.add(["M", text], want, "Marker(%r)" % text)
        counts["parse"] += 1
        if m is None or not same:
            continue
        for env in envs:
            res, kept = spec_answer(text, env)
            counts["kept"] += kept
            run.add(["E", text, ";".join("%s=%s" % kv for kv in env.items())], res,
                    "Marker(%r).evaluate(%s %s)" % (text, env["sys_platform"], env["python_version"]))
            counts["evaluate"] += 1
    try:
        bad = run.check()
    except (OSError, subprocess.CalledProcessError) as e:
        print("marker_head_diff: cannot run driver %s: %s" % (args.driver, e))
        return 2
    print("marker_head_diff: packaging %s (vendored), seed %d: %d markers parsed, %d evaluations (%d where the "
          "text's answer is kept over packaging's); %d mismatches"
          % (packaging.__version__, args.seed, counts["parse"], counts["evaluate"], counts["kept"], bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
