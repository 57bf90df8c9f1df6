#!/usr/bin/env python3
"""tests/cli/pylock_check.py: check a pylock.toml against PEP 751's rules (test helper).

usage: pylock_check.py LOCK [--env MARKER-ENV-JSON]...
  Exit 0 when the file is a valid lock, else 1 with one line per problem. With --env (a JSON
  object of marker variables, e.g. {"python_version": "3.10", "sys_platform": "linux", ...}),
  also print, for each environment, the "name==version" entries whose marker holds there, one
  per line after a "env N:" header, and fail when a name narrows to more than one entry (PEP 751:
  "all packages to be installed MUST narrow down to a single entry at install time").

The rules are PEP 751's (lock-version, created-by, packages with a normalised name, a valid
version, marker and requires-python, exactly one kind of source, wheels with hashes); markers,
versions and specifiers are parsed with pip's vendored packaging, so what this accepts is what
pip would read.
"""
import json
import re
import sys
import tomllib

try:
    from pip._vendor.packaging.markers import Marker
    from pip._vendor.packaging.specifiers import SpecifierSet
    from pip._vendor.packaging.version import Version
except ImportError:  # pragma: no cover
    from packaging.markers import Marker
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
HEX_RE = re.compile(r"^[0-9a-f]+$")


def check(doc):
    problems = []
    if doc.get("lock-version") != "1.0":
        problems.append("lock-version must be \"1.0\"")
    if not isinstance(doc.get("created-by"), str):
        problems.append("created-by is required and must be a string")
    for m in doc.get("environments", []):
        try:
            Marker(m)
        except Exception as e:  # noqa: BLE001
            problems.append(f"environments: {m!r}: {e}")
    if "requires-python" in doc:
        try:
            SpecifierSet(doc["requires-python"])
        except Exception as e:  # noqa: BLE001
            problems.append(f"requires-python: {e}")
    pkgs = doc.get("packages")
    if not isinstance(pkgs, list) or not pkgs:
        problems.append("[[packages]] is required")
        pkgs = []
    for i, p in enumerate(pkgs):
        where = f"packages[{i}] ({p.get('name')})"
        name = p.get("name")
        if not isinstance(name, str) or not NAME_RE.match(name):
            problems.append(f"{where}: name must be a normalised project name")
        if "version" in p:
            try:
                Version(p["version"])
            except Exception as e:  # noqa: BLE001
                problems.append(f"{where}: version: {e}")
        if "marker" in p:
            try:
                Marker(p["marker"])
            except Exception as e:  # noqa: BLE001
                problems.append(f"{where}: marker: {e}")
        if "requires-python" in p:
            try:
                SpecifierSet(p["requires-python"])
            except Exception as e:  # noqa: BLE001
                problems.append(f"{where}: requires-python: {e}")
        sources = [k for k in ("vcs", "directory", "archive", "sdist", "wheels") if k in p]
        exclusive = [k for k in sources if k in ("vcs", "directory", "archive")]
        if not sources:
            problems.append(f"{where}: no source (vcs, directory, archive, sdist or wheels)")
        if exclusive and len(sources) > 1:
            problems.append(f"{where}: {exclusive[0]} cannot be given with {sources}")
        files = list(p.get("wheels", [])) + ([p["sdist"]] if "sdist" in p else []) + (
            [p["archive"]] if "archive" in p else [])
        for f in files:
            if "url" not in f and "path" not in f:
                problems.append(f"{where}: a file without url or path")
            h = f.get("hashes")
            if not isinstance(h, dict) or not h:
                problems.append(f"{where}: a file without hashes")
                continue
            for alg, val in h.items():
                if alg != alg.lower() or not isinstance(val, str) or not HEX_RE.match(val):
                    problems.append(f"{where}: hash {alg} = {val!r} is not lowercase hex")
            if "sha256" in h and len(h["sha256"]) != 64:
                problems.append(f"{where}: sha256 is not 64 hex digits")
            if "size" in f and (not isinstance(f["size"], int) or f["size"] < 0):
                problems.append(f"{where}: size must be a non-negative integer")
    return problems


def narrow(doc, env):
    """The entries that apply in env, and the names with more than one."""
    chosen, seen, dup = [], {}, []
    for p in doc.get("packages", []):
        if "marker" in p and not Marker(p["marker"]).evaluate(env):
            continue
        chosen.append(f"{p['name']}=={p.get('version', '')}")
        if p["name"] in seen:
            dup.append(p["name"])
        seen[p["name"]] = True
    return sorted(chosen), dup


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    path, envs = args[0], []
    i = 1
    while i < len(args):
        if args[i] == "--env" and i + 1 < len(args):
            envs.append(json.loads(args[i + 1]))
            i += 2
        else:
            print(f"pylock_check.py: unknown argument {args[i]!r}", file=sys.stderr)
            return 2
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        print(f"{path}: not TOML: {e}")
        return 1
    problems = check(doc)
    for n, env in enumerate(envs):
        chosen, dup = narrow(doc, env)
        print(f"env {n}:")
        for c in chosen:
            print(c)
        for d in dup:
            problems.append(f"env {n}: {d} narrows to more than one entry")
    for p in problems:
        print(f"{path}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
