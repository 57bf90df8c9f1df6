#!/usr/bin/env python3
"""tests/diff/toml_diff.py: index/toml against Python's tomllib (TOML 1.0, the reference pip and
packaging's pylock tests read with).

Every file given (the real pylock.toml files under tests/fixtures/real/pylock/), and a few
thousand generated documents (valid ones and near misses: duplicate keys, tables defined twice,
bad escapes, leading zeros, text after values, dotted keys that extend a closed table), are read
by both; they must agree on accept or refuse, and on every value when both accept (floats and
date-times are compared by reading wheelpick's text back with tomllib).

usage: python3 tests/diff/toml_diff.py [--driver build/tests/toml_driver] [--count N] [FILE...]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import tomllib


def ours_to_py(v):
    if isinstance(v, dict):
        if len(v) == 1 and next(iter(v)) in ("$i", "$f", "$d") and isinstance(next(iter(v.values())), str):
            k, t = next(iter(v.items()))
            if k == "$i":
                return ("int", int(t))
            return ("text", t)
        return {k: ours_to_py(x) for k, x in v.items()}
    if isinstance(v, list):
        return [ours_to_py(x) for x in v]
    return v


def same(py, ours, path="$"):
    """Compare tomllib's value with the driver's; returns a difference or None."""
    if isinstance(ours, tuple):
        kind, t = ours
        if kind == "int":
            ok = type(py) is int and py == t
        else:
            back = tomllib.loads("x = " + t)["x"]
            ok = (back == py or (back != back and py != py)) and type(back) is type(py)
        return None if ok else "%s: tomllib %r, wheelpick %r" % (path, py, t)
    if isinstance(py, dict):
        if not isinstance(ours, dict) or list(py.keys()) != list(ours.keys()):
            # tomllib's order is insertion order, as ours is
            if not isinstance(ours, dict) or sorted(py.keys()) != sorted(ours.keys()):
                return "%s: keys %r vs %r" % (path, list(py.keys()), list(ours.keys()) if isinstance(ours, dict) else ours)
        for k in py:
            d = same(py[k], ours[k], path + "." + k)
            if d:
                return d
        return None
    if isinstance(py, list):
        if not isinstance(ours, list) or len(py) != len(ours):
            return "%s: array of %d vs %r" % (path, len(py), ours)
        for i, (a, b) in enumerate(zip(py, ours)):
            d = same(a, b, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if type(py) is not type(ours) or py != ours:
        return "%s: tomllib %r, wheelpick %r" % (path, py, ours)
    return None


KEYS = ["a", "b", "name", "version", "wheels", "hashes", "sha256", "\"quoted key\"", "'lit'", "a.b", "x-y", "1", "_"]
STRINGS = ['"plain"', "'literal'", '"esc \\t \\n \\" \\\\ \\u00e9 \\U0001F600"', '""', "''",
           '"""\nmulti\nline"""', "'''\nraw \\n'''", '"""a \\\n   b"""', '"""two ""quotes"" ""\"""',
           '"bad \\x escape"', '"ctl \x01"', '"unterminated', "'''x''''", '"é"', '"\\ud800"']
SCALARS = ["0", "1", "-7", "+3", "1_000", "0x1F", "0o17", "0b101", "00", "1__0", "0x", "3.14", "-0.5e-3",
           "1e10", "inf", "-nan", "1.", ".5", "true", "false", "True", "1979-05-27", "1979-05-27T07:32:00Z",
           "1979-05-27 07:32:00.999-07:00", "07:32:00", "1979-05-27T07:32:00", "1979-13-01",
           "9223372036854775807", "-9223372036854775807", "2025-01-25T11:30:10.164985+00:00"]


# TOML 1.0's own tricky corners, each asked as a document of its own.
HAND = [
    "[fruit]\napple.color = 'red'\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true\n",
    "[fruit]\napple.color = 'red'\n[fruit.apple]\n",
    "[fruit]\napple.color = 'red'\n[fruit.apple.taste]\nx = 1\n",
    "[a.b.c]\nx = 1\n[a]\ny = 2\n",
    "[a.b.c]\nx = 1\n[a]\nb.d = 2\n",
    "[a]\nx = 1\n[a]\ny = 2\n",
    "a = {b = 1}\n[a]\nc = 2\n",
    "a = {b = 1}\n[a.c]\n",
    "a = {b = {c = 1}}\na.b.d = 2\n",
    "a = [1]\n[[a]]\n",
    "[[a]]\nx = 1\n[a]\n",
    "[[a]]\n[a.b]\nx = 1\n[[a]]\n[a.b]\nx = 2\n",
    "[[a.b]]\n[a]\nc = 1\n",
    "a.b = 1\na.b.c = 2\n",
    "a.b = 1\na = 2\n",
    "'a.b' = 1\na.b = 2\n",
    "\"\" = 1\n",
    "a = \"\"\"\n\"\"\"\n",
    "a = '\n",
    "a = \"\"\"\"\"\"\"\n",
    "a = 1 b = 2\n",
    "a = [1, 2,]\n",
    "a = {x = 1,}\n",
    "a = {\nx = 1}\n",
    "a = [\n  1, # one\n  2 # two\n]\n",
    "a = 1979-05-27T00:32:00.999999-07:00\nb = 00:32:00.5\nc = 1979-05-27t07:32:00z\n",
    "a = 1979-05-27 \n",
    "a = 2024-02-30\n",
    "a = +inf\nb = -0.0\nc = 6.626e-34\nd = 1e06\ne = 0.1_1\n",
    "a = 0xDEAD_beef\nb = 0o0\nc = 0b_1\n",
    "a = -0x1\n",
    "a = \"\\u0041\\U0001f600\"\n",
    "key\n= 1\n",
    "= 1\n",
    "a = \n",
    "[]\n",
    "[ a . b ]\nx = 1\n",
    "[[ a ]]\n",
    "[a]]\n",
    "a = 'x'\r\nb = 'y'\r\n",
    "a = 'x'\rb = 'y'\n",
    "a = \"tab\there\"\n",
    "# only a comment",
    "",
    "a = true\nb = false\nc = truer\n",
]


def gen_value(rng, depth=0):
    r = rng.random()
    if depth < 3 and r < 0.15:
        items = [gen_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
        sep = rng.choice([", ", ",\n  ", ","])
        tail = rng.choice(["", ",", " # c\n"])
        return "[" + sep.join(items) + tail + "]"
    if depth < 3 and r < 0.3:
        items = ["%s = %s" % (rng.choice(KEYS), gen_value(rng, depth + 1)) for _ in range(rng.randint(0, 3))]
        return "{" + rng.choice([", ", ","]).join(items) + rng.choice(["", "", ","]) + "}"
    if r < 0.6:
        return rng.choice(STRINGS)
    return rng.choice(SCALARS)


def gen_doc(rng):
    lines = []
    for _ in range(rng.randint(1, 8)):
        r = rng.random()
        if r < 0.15:
            lines.append("[%s]" % rng.choice(KEYS))
        elif r < 0.3:
            lines.append("[[%s]]" % rng.choice(["packages", "packages.wheels", "a", "a.b"]))
        elif r < 0.35:
            lines.append("# comment " + rng.choice(["", "é", "\x01"]))
        elif r < 0.38:
            lines.append("")
        else:
            lines.append("%s%s = %s%s" % (rng.choice(["", "  ", "\t"]), rng.choice(KEYS), gen_value(rng),
                                          rng.choice(["", " # trailing", " junk", ""])))
    return rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["", "\n"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", default="build/tests/toml_driver")
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=751)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        paths = list(args.files)
        for i, doc in enumerate(HAND):
            p = os.path.join(tmp, "hand%03d.toml" % i)
            with open(p, "w", encoding="utf-8", newline="") as f:
                f.write(doc)
            paths.append(p)
        for i in range(args.count):
            p = os.path.join(tmp, "g%05d.toml" % i)
            with open(p, "w", encoding="utf-8", newline="") as f:
                f.write(gen_doc(rng))
            paths.append(p)
        out = subprocess.run([args.driver] + paths, stdout=subprocess.PIPE, check=True).stdout.decode("utf-8", "replace")
        lines = out.split("\n")[:-1]
        if len(lines) != len(paths):
            print("driver answered %d lines for %d files" % (len(lines), len(paths)))
            return 2
        bad = accepted = refused = 0
        for path, line in zip(paths, lines):
            with open(path, "rb") as f:
                data = f.read()
            try:
                py = tomllib.loads(data.decode("utf-8"))
                perr = None
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
                py, perr = None, str(e)
            if line.startswith("ok "):
                if perr is not None:
                    d = "tomllib refuses (%s), wheelpick accepts" % perr
                else:
                    d = same(py, ours_to_py(json.loads(line[3:])))
                    accepted += 1
            else:
                d = None if perr is not None else "tomllib accepts, wheelpick refuses: %s" % line
                refused += perr is not None
            if d:
                bad += 1
                if bad <= 30:
                    print("MISMATCH %s\n  %s\n  document: %r" % (os.path.basename(path), d, data[:300]))
        print("toml_diff: %d documents (%d given), %d read alike, %d refused alike; %d mismatches"
              % (len(paths), len(args.files), accepted, refused, bad))
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
