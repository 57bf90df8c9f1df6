#!/usr/bin/env python3
"""tests/diff/pylock_diff.py: index/pylock against packaging HEAD's Pylock (vendored).

Reads every lock given (the real ones: pip's and packaging's examples, uv's export) and a few
thousand generated ones (valid, and broken in the ways packaging's validation names: missing
keys, wrong types, unnormalised names, a wheel whose name or version disagrees with its package,
conflicting sources, hashes missing or not strings, upload-time a date) with Pylock.from_dict and
with wp_pylock_parse: both must accept or both refuse. For each accepted lock, selects for twelve
targets (CPython 3.9 to 3.13 on manylinux x86_64 and aarch64, musllinux, macOS, Windows) with
several extras and dependency-group choices, with Pylock.select and wp_pylock_select: the same
packages, the same source kind and the same file, or both an error of the same kind.

Wheel names with a PEP 825 variant label are left out of the generated locks: wheelpick reads
them (its own locks may name variant wheels), packaging HEAD refuses the lock.

usage: python3 tests/diff/pylock_diff.py [--driver build/tests/pylock_driver] [--count N] [LOCK...]
"""
import argparse
import logging
import os
import random
import subprocess
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "packaging_head"))
sys.dont_write_bytecode = True
import packaging  # noqa: E402
from packaging import tags as ptags  # noqa: E402
from packaging.pylock import (Pylock, PylockValidationError, PylockSelectError, PackageWheel,  # noqa: E402
                              PackageSdist, PackageArchive, PackageDirectory, PackageVcs)
from packaging.markers import UndefinedComparison, UndefinedEnvironmentName  # noqa: E402

assert packaging.__file__.startswith(os.path.join(HERE, "packaging_head")), packaging.__file__


def targets():
    out = []
    plats = {
        "manylinux_x86_64": (["manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64", "linux_x86_64"],
                             {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix", "platform_machine": "x86_64"}),
        "manylinux_aarch64": (["manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "linux_aarch64"],
                              {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix", "platform_machine": "aarch64"}),
        "musllinux_x86_64": (["musllinux_1_2_x86_64", "musllinux_1_1_x86_64", "linux_x86_64"],
                             {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix", "platform_machine": "x86_64"}),
        "macos_arm64": (list(ptags.mac_platforms((14, 0), "arm64")),
                        {"sys_platform": "darwin", "platform_system": "Darwin", "os_name": "posix", "platform_machine": "arm64"}),
        "win_amd64": (["win_amd64"], {"sys_platform": "win32", "platform_system": "Windows", "os_name": "nt", "platform_machine": "AMD64"}),
    }
    combos = [("manylinux_x86_64", (3, 12)), ("manylinux_x86_64", (3, 10)), ("manylinux_x86_64", (3, 9)),
              ("manylinux_x86_64", (3, 13)), ("manylinux_aarch64", (3, 12)), ("manylinux_aarch64", (3, 11)),
              ("musllinux_x86_64", (3, 12)), ("macos_arm64", (3, 12)), ("macos_arm64", (3, 10)),
              ("win_amd64", (3, 12)), ("win_amd64", (3, 11)), ("manylinux_x86_64", (3, 14))]
    for plat, py in combos:
        platforms, env = plats[plat]
        tag_list = list(ptags.cpython_tags(py, platforms=platforms)) + list(
            ptags.compatible_tags(py, "cp%d%d" % py, platforms=platforms))
        e = dict(env)
        e.update({"implementation_name": "cpython", "implementation_version": "%d.%d.0" % py,
                  "platform_python_implementation": "CPython", "python_version": "%d.%d" % py,
                  "python_full_version": "%d.%d.0" % py, "platform_release": "", "platform_version": ""})
        out.append(("%s-py%d.%d" % (plat, *py), e, tag_list))
    return out


CHOICES = [((), None), (("test",), None), ((), ("dev",)), (("test", "gpu"), ()), ((), ())]


def py_select(lock, env, tag_list, extras, groups):
    try:
        picks = list(lock.select(environment=env, tags=tag_list, extras=list(extras),
                                 dependency_groups=None if groups is None else list(groups)))
    except PylockSelectError as e:
        # wheelpick: nothing fits the target (exit 1), or the lock is wrong (two entries of a name)
        return "error parse" if str(e).startswith("Multiple packages") else "error nomatch"
    except (UndefinedComparison, UndefinedEnvironmentName, ValueError):
        return "error parse"
    words = []
    for pkg, src in picks:
        kind = {PackageWheel: "wheel", PackageSdist: "sdist", PackageArchive: "archive",
                PackageDirectory: "directory", PackageVcs: "vcs"}[type(src)]
        name = src.filename if isinstance(src, (PackageWheel, PackageSdist)) else "-"
        words.append("%s:%s:%s" % (pkg.name, kind, name))
    return "ok" + "".join(" " + w for w in words)


# ---- generated locks ----

NAMES = ["attrs", "numpy", "torch", "nvidia-cudnn-cu12", "zope-interface", "six"]
PLAT_TAGS = ["py3-none-any", "py2.py3-none-any", "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64",
             "cp312-cp312-win_amd64", "cp311-cp311-manylinux_2_28_aarch64", "cp310-abi3-manylinux_2_17_x86_64",
             "cp39-cp39-macosx_11_0_arm64", "cp312-cp312-musllinux_1_2_x86_64", "cp313-cp313t-manylinux_2_17_x86_64",
             "cp312-cp312-macosx_10_13_universal2", "pp310-pypy310_pp73-manylinux_2_17_x86_64", "cp314-cp314-linux_x86_64"]
MARKERS = ["sys_platform == 'linux'", "python_version >= '3.11'", "'test' in extras", "'dev' in dependency_groups",
           "'gpu' in extras and platform_machine == 'x86_64'", "os_name == 'nt' or 'Test' in extras",
           "python_full_version < '3.10.0'", "extra == 'x'", "platform_machine == 'aarch64'", "implementation_name == 'pypy'"]
HASH = "'%s'" % ("ab" * 32)


def q(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gen_lock(rng):
    broken = rng.random() < 0.35
    lines = ['lock-version = %s' % rng.choice(['"1.0"'] * 8 + ['"1.1"', '"2.0"', '"0.9"', '1', '"x"'] if broken else ['"1.0"']),
             'created-by = "gen"' if not broken or rng.random() < 0.8 else '']
    if rng.random() < 0.3:
        lines.append("requires-python = %s" % q(rng.choice([">=3.10", "<3.13", ">=3.9,<4", "==3.12.*", ">=3.14"])))
    if rng.random() < 0.2:
        envs = rng.sample(["sys_platform == 'linux'", "sys_platform == 'win32'", "python_version >= '3.11'",
                           "platform_machine == 'arm64'"], rng.randint(1, 2))
        lines.append("environments = [%s]" % ", ".join(q(e) for e in envs))
    if rng.random() < 0.3:
        lines.append('extras = ["test", "gpu"]' if not broken or rng.random() < 0.7 else 'extras = ["Test"]')
    if rng.random() < 0.3:
        lines.append('dependency-groups = ["dev", "docs"]')
    if rng.random() < 0.3:
        lines.append('default-groups = %s' % rng.choice(['["dev"]', '[]', '["docs"]']))
    pkgs = []
    for i in range(rng.randint(0, 5)):
        name = rng.choice(NAMES)
        ver = "%d.%d" % (rng.randint(0, 3), rng.randint(0, 9))
        p = ["[[packages]]", "name = %s" % q(name if not (broken and rng.random() < 0.1) else name.upper())]
        if rng.random() < 0.85:
            p.append("version = %s" % q(ver if not (broken and rng.random() < 0.05) else "not a version"))
        if rng.random() < 0.4:
            p.append("marker = %s" % q(rng.choice(MARKERS)))
        if rng.random() < 0.2:
            p.append("requires-python = %s" % q(rng.choice([">=3.10", "<3.12", ">=3.13"])))
        if rng.random() < 0.2:
            p.append('dependencies = [{name = "six"}]')
        kind = rng.random()
        tail = []
        if kind < 0.65:
            for t in rng.sample(PLAT_TAGS, rng.randint(1, 4)):
                wname = "%s-%s-%s.whl" % (name.replace("-", "_"), ver, t)
                if broken and rng.random() < 0.05:
                    wname = "%s-%s-%s.whl" % ("other", ver, t)
                if broken and rng.random() < 0.05:
                    wname = "%s-9.9-%s.whl" % (name.replace("-", "_"), t)
                where = rng.random()
                fields = []
                if where < 0.4:
                    fields.append("url = %s" % q("https://files.example/p/" + wname.replace("+", "%2B")))
                elif where < 0.7:
                    fields += ["name = %s" % q(wname), "url = %s" % q("https://files.example/x/blob?id=1")]
                elif where < 0.9:
                    fields.append("path = %s" % q("wheels/" + wname))
                elif broken:
                    fields.append("name = %s" % q(wname))
                else:
                    fields.append("path = %s" % q(wname))
                if rng.random() < 0.3:
                    fields.append("upload-time = %s" % rng.choice(["2025-01-25T11:30:10Z", "2025-01-25T11:30:10.164985+00:00"]
                                                                    + (["2025-01-25"] if broken else [])))
                if rng.random() < 0.3:
                    fields.append("size = %s" % rng.choice(["1234", "0"] + (['"12"', "true"] if broken else [])))
                h = rng.random()
                if broken and h < 0.05:
                    pass
                elif broken and h < 0.1:
                    fields.append("hashes = {}")
                elif broken and h < 0.15:
                    fields.append("hashes = {sha256 = 12}")
                else:
                    fields.append("hashes = {sha256 = %s}" % HASH)
                tail.append("[[packages.wheels]]\n" + "\n".join(fields))
            if rng.random() < 0.3:
                sname = "%s-%s.tar.gz" % (name, ver)
                if broken and rng.random() < 0.2:
                    sname = "%s-%s.tar.bz2" % (name, ver)
                tail.append("[packages.sdist]\nname = %s\nurl = %s\nhashes = {sha256 = %s}" % (q(sname), q("https://s/" + sname), HASH))
        elif kind < 0.75:
            sname = "%s-%s.zip" % (name, ver)
            tail.append("[packages.sdist]\nurl = %s\nhashes = {sha256 = %s}" % (q("https://s/" + sname), HASH))
        elif kind < 0.85:
            tail.append("[packages.archive]\nurl = %s\nhashes = {sha256 = %s}" % (q("https://a/%s.tar.gz" % name), HASH))
        elif kind < 0.92:
            tail.append("[packages.directory]\npath = %s\neditable = %s" % (q("./src/" + name), rng.choice(["true", "false"])))
        else:
            tail.append("[packages.vcs]\ntype = \"git\"\nurl = \"https://g/x.git\"\ncommit-id = \"abc\"")
        if broken and rng.random() < 0.1:
            tail.append("[packages.directory]\npath = \"./x\"")
        if rng.random() < 0.1:
            tail.append("[[packages.attestation-identities]]\n" + ("kind = \"GitHub\"" if not broken or rng.random() < 0.5 else "x = 1"))
        pkgs.append("\n".join(p) + "\n" + "\n".join(tail))
    if broken and rng.random() < 0.1:
        return "\n".join(lines) + "\n"
    return "\n".join(lines) + "\n\n" + "\n\n".join(pkgs) + ("\n[tool.gen]\nx = 1\n" if rng.random() < 0.1 else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", default="build/tests/pylock_driver")
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--seed", type=int, default=751)
    ap.add_argument("locks", nargs="*")
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # packaging warns on lock-version 1.1; wheelpick reads it too
    rng = random.Random(args.seed)
    tgts = targets()
    with tempfile.TemporaryDirectory() as tmp:
        paths = list(args.locks)
        for i in range(args.count):
            p = os.path.join(tmp, "gen%05d.toml" % i)
            with open(p, "w") as f:
                f.write(gen_lock(rng))
            paths.append(p)
        cmds, want = [], []
        counts = {"valid": 0, "invalid": 0, "selections": 0}
        for path in paths:
            with open(path, "rb") as f:
                raw = f.read()
            try:
                lock = Pylock.from_dict(tomllib.loads(raw.decode("utf-8")))
            except (PylockValidationError, tomllib.TOMLDecodeError, UnicodeDecodeError):
                lock = None
            cmds.append("lock\t" + path)
            want.append(("valid" if lock else "invalid", path, "read"))
            counts["valid" if lock else "invalid"] += 1
            if not lock:
                continue
            for name, env, tag_list in tgts:
                for extras, groups in CHOICES:
                    cmds.append("reset")
                    for k, v in env.items():
                        cmds.append("env\t%s\t%s" % (k, v))
                    cmds += ["tag\t%s" % t for t in tag_list]
                    cmds += ["extra\t%s" % e for e in extras]
                    if groups is not None:
                        cmds += ["group\t%s" % g for g in groups] if groups else ["groups"]
                    cmds.append("select")
                    want.append((py_select(lock, env, tag_list, extras, groups), path,
                                 "select %s extras=%s groups=%s" % (name, extras, groups)))
                    counts["selections"] += 1
        out = subprocess.run([args.driver], input="\n".join(cmds).encode() + b"\n", stdout=subprocess.PIPE,
                             check=True).stdout.decode("utf-8", "replace").split("\n")[:-1]
        if len(out) != len(want):
            print("driver answered %d lines for %d questions" % (len(out), len(want)))
            return 2
        bad = 0
        for (exp, path, what), got in zip(want, out):
            g = got
            if g.startswith("invalid "):
                g = "invalid"
            elif g.startswith("error "):
                g = " ".join(g.split(" ")[:2])
            if g != exp:
                bad += 1
                if bad <= 25:
                    print("MISMATCH %s %s\n  packaging %s\n  wheelpick %s" % (os.path.basename(path), what, exp, got))
                    if "gen" in path and bad <= 5:
                        print(open(path).read())
        print("pylock_diff: packaging %s (vendored): %d locks (%d given), %d valid, %d invalid, %d selections; %d mismatches"
              % (packaging.__version__, len(paths), len(args.locks), counts["valid"], counts["invalid"],
                 counts["selections"], bad))
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
