#!/usr/bin/env python3
"""tests/diff/installer_diff.py: `wheelpick install` against pypa/installer (Debian's python3-installer), tree by tree.

pypa/installer's own test vectors (tests/test_core.py, tests/test_scripts.py, tests/test_sources.py),
built as real wheels, go into two fresh venvs whose paths have the same length: one by installer's
install() with a SchemeDictionaryDestination for the venv (the posix launcher kind, the venv's
interpreter, INSTALLER "wheelpick"), one by `wheelpick install`. Every file installer writes must
be there from wheelpick with the same bytes (the venv path aside) and the same executable bit, and
the same RECORD rows; a wheel installer refuses, wheelpick refuses too. Kept, and counted apart:
  - an entry-point launcher's body: wheelpick writes pip's template (distlib's, which t-install
    compares with pip byte for byte), installer its own (the same code, quoted otherwise); the
    shebang lines must be equal, and so the RECORD rows of launchers are compared by path only;
  - REQUESTED, which wheelpick writes for a wheel the user named (as pip does) and installer
    leaves to its caller;
  - a "#!python" script of .data/scripts where the interpreter's path has a space or passes 127
    bytes: installer (and pip) write "#!PATH", which the kernel cannot run; wheelpick writes the
    /bin/sh form installer uses for launchers, so the script runs;
  - a RECORD row of a .data/platlib file when platlib is purelib: installer writes "./plat.py"
    (its relative prefix for another scheme), pip and wheelpick "plat.py", the same file;
  - a __pycache__ member of the wheel: installer skips it with a warning, pip (23.2.1 here) and
    wheelpick install it, RECORD row and all.
A RECORD row of a file under bin/ (whose bytes hold the venv's own path) is compared by path and
size, not hash.

usage: python3 tests/diff/installer_diff.py [--wheelpick build/wheelpick]
"""
import argparse
import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import warnings
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
# The reference is Debian's python3-installer (make deps installs it): pypa/installer's own code,
# packaged, not a copy of it in this tree. The interpreter running this file may be another
# (a pyenv Python ahead of /usr/bin on PATH), so Debian's dist-packages is looked in too.
DEBIAN_DIST = "/usr/lib/python3/dist-packages"
sys.dont_write_bytecode = True
try:
    import installer  # noqa: E402
except ImportError:
    if not os.path.isdir(os.path.join(DEBIAN_DIST, "installer")):
        sys.exit("installer_diff: pypa/installer is missing: apt-get install python3-installer (make deps)")
    sys.path.append(DEBIAN_DIST)
    import installer  # noqa: E402
from installer.destinations import SchemeDictionaryDestination  # noqa: E402
from installer.sources import WheelFile  # noqa: E402



def rec_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel(path, name, version, files, dist_info, root_is_purelib=True, wheel_version="1.0", extra=None):
    """A wheel with a correct RECORD; extra members are added unlisted (signatures)."""
    di = "%s-%s.dist-info" % (name, version)
    members = {k: textwrap.dedent(v).encode() if isinstance(v, str) else v for k, v in files.items()}
    meta = {
        "WHEEL": "Wheel-Version: %s\nGenerator: installer_diff\nRoot-Is-Purelib: %s\nTag: py3-none-any\n"
        % (wheel_version, "true" if root_is_purelib else "false"),
        "METADATA": "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version),
    }
    meta.update(dist_info)
    for k, v in meta.items():
        members["%s/%s" % (di, k)] = textwrap.dedent(v).encode()
    rec = io.StringIO()
    w = csv.writer(rec, lineterminator="\n")
    for k, v in members.items():
        w.writerow([k, rec_hash(v), len(v)])
    w.writerow([di + "/RECORD", "", ""])
    members[di + "/RECORD"] = rec.getvalue().encode()
    for k, v in (extra or {}).items():
        members[di + "/" + k] = v
    fn = os.path.join(path, "%s-%s-py3-none-any.whl" % (name, version))
    with zipfile.ZipFile(fn, "w") as z:
        for k, v in members.items():
            info = zipfile.ZipInfo(k)
            info.external_attr = (0o755 if k.endswith(".sh") or "/scripts/" in k else 0o644) << 16
            z.writestr(info, v)
    return fn


FANCY_EPS = """\
    [console_scripts]
    fancy = fancy:main

    [gui_scripts]
    fancy-gui = fancy:main
"""
FANCY = {"fancy/__init__.py": "def main():\n    print(\"I'm a fancy package\")\n",
         "fancy/__main__.py": "if __name__ == \"__main__\":\n    from . import main\n    main()\n"}

# name, files, dist_info, kwargs, whether installer accepts it, the vector it stands for
VECTORS = [
    ("fancy", FANCY, {"top_level.txt": "fancy\n", "entry_points.txt": FANCY_EPS}, {}, True,
     "test_core::test_calls_destination_correctly"),
    ("noeps", FANCY, {"top_level.txt": "fancy\n"}, {}, True, "test_core::test_no_entrypoints_is_ok"),
    ("plat", FANCY, {"entry_points.txt": FANCY_EPS}, {"root_is_purelib": False}, True,
     "test_core::test_handles_platlib"),
    ("newer", FANCY, {}, {"wheel_version": "1.1"}, True, "test_core::test_accepts_newer_minor_wheel_versions"),
    ("major", FANCY, {}, {"wheel_version": "2.0"}, False, "test_core::test_rejects_newer_major_wheel_versions"),
    ("data", dict(FANCY, **{
        "data-1.0.data/data/share/data.txt": "data\n",
        "data-1.0.data/headers/data.h": "#define X 1\n",
        "data-1.0.data/scripts/data-tool": "#!python\nimport sys\nprint(sys.executable)\n",
        "data-1.0.data/purelib/pure.py": "P = 1\n",
        "data-1.0.data/platlib/plat.py": "Q = 2\n",
    }), {}, {}, True, "test_core::test_handles_data_properly"),
    ("badscheme", dict(FANCY, **{"badscheme-1.0.data/nonsense/x.txt": "x\n"}), {}, {}, False,
     "test_core::test_errors_out_when_given_invalid_scheme_in_data"),
    ("meta", FANCY, {}, {}, True, "test_core::test_ensure_non_executable_for_additional_metadata"),
    ("signed", FANCY, {}, {"extra": {"RECORD.jws": b"{}", "RECORD.p7s": b"\x30\x00"}}, True,
     "test_sources::(RECORD.jws and RECORD.p7s not in RECORD)"),
    ("pyc", dict(FANCY, **{"fancy/__pycache__/__init__.cpython-311.pyc": b"\x00" * 16}), {}, {}, True,
     "test_core::test_skips_pycache_and_warns"),
]
# test_scripts: the interpreter plain, with a space, and past 127 bytes
PATHS = [("plain", "test_scripts::test_script_generate_simple"),
         ("sp ace", "test_scripts::test_script_generate_space_in_executable"),
         ("l" * 120, "test_scripts::(distlib's 127-byte rule: the /bin/sh form)")]


def venv_paths(py):
    code = ("import sysconfig, json, sys; p = sysconfig.get_paths(); "
            "print(json.dumps([p['purelib'], p['platlib'], p['scripts'], p['data'], sys.prefix, "
            "'%d.%d' % sys.version_info[:2]]))")
    import json
    return json.loads(subprocess.check_output([py, "-c", code]))


def by_installer(venv, whl, name):
    py = os.path.join(venv, "bin", "python")
    pure, plat, scripts, data, prefix, xy = venv_paths(py)
    dest = SchemeDictionaryDestination(
        {"purelib": pure, "platlib": plat, "scripts": scripts, "data": data,
         "headers": os.path.join(prefix, "include", "site", "python" + xy, name)},
        interpreter=py, script_kind="posix")
    with WheelFile.open(whl) as src, warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # its __pycache__ warning: counted as kept
        installer.install(src, dest, {"INSTALLER": b"wheelpick\n"})


def tree(root):
    out = {}
    for d, dirs, files in os.walk(root):
        # a __pycache__ a wheel carries is compared too (installer skips it); the interpreter's
        # own (none here: nothing is compiled) would not be
        for f in files:
            p = os.path.join(d, f)
            if os.path.islink(p):
                continue
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = (fh.read(), os.stat(p).st_mode & 0o111 != 0)
    return out


def record_rows(data):
    return {tuple(r) for r in csv.reader(io.StringIO(data.decode())) if r}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheelpick", default="build/wheelpick")
    args = ap.parse_args()
    wp = os.path.abspath(args.wheelpick)
    tmp = tempfile.mkdtemp(prefix="wp-installer-diff.")
    bad, kept, vectors, files = 0, 0, 0, 0
    try:
        for pname, pvector in PATHS:
            for name, fs, di, kw, accepts, vector in VECTORS:
                if pname != "plain" and name not in ("fancy", "data"):
                    continue  # the interpreter's path matters to scripts only
                vectors += 1
                wdir = os.path.join(tmp, "w", pname, name)
                os.makedirs(wdir)
                whl = wheel(wdir, name, "1.0", {k.replace("data-1.0", name + "-1.0"): v for k, v in fs.items()},
                            di, **kw)
                va, vb = os.path.join(tmp, "ia", pname, name), os.path.join(tmp, "wb", pname, name)
                for v in (va, vb):
                    subprocess.check_call([sys.executable, "-m", "venv", "--without-pip", v])
                try:
                    by_installer(va, whl, name)
                    ok_a = True
                except Exception as e:  # noqa: BLE001 (installer's refusals are several classes)
                    ok_a, why_a = False, "%s: %s" % (type(e).__name__, e)
                r = subprocess.run([wp, "install", whl, "--python", os.path.join(vb, "bin", "python")],
                                   capture_output=True, text=True,
                                   env=dict(os.environ, WHEELPICK_CACHE_DIR=os.path.join(tmp, "cache")))
                ok_b = r.returncode == 0
                label = "%s [%s] (%s; %s)" % (name, pname[:12], vector, pvector)
                if (not ok_a and ok_b and accepts and ("RECORD.jws" in why_a or "RECORD.p7s" in why_a)
                        and "not mentioned in RECORD" in why_a):
                    # installer before 0.7 (Debian 12 packages 0.6.0) wants the signature files in
                    # RECORD; the wheel spec says RECORD.jws and RECORD.p7s are not in it.
                    kept += 1
                    print("kept %s: installer %s refuses a signed wheel the spec allows" % (label, installer.__version__))
                    continue
                if ok_a != ok_b or ok_a != accepts:
                    bad += 1
                    print("MISMATCH %s: installer %s, wheelpick exit %d %s" % (
                        label, "installs" if ok_a else "refuses (%s)" % why_a, r.returncode, r.stderr.strip()[:300]))
                    continue
                if not ok_a:
                    continue
                ta, tb = tree(va), tree(vb)
                sa, sb = va.encode(), vb.encode()
                bodies_differ = set()  # bin/ files whose bytes differ on purpose (above)
                records = []
                for rel, (data, ex) in ta.items():
                    if rel not in tb:
                        bad += 1
                        print("MISMATCH %s: %s installed by installer only" % (label, rel))
                        continue
                    files += 1
                    db, eb = tb[rel]
                    db = db.replace(sb, sa)
                    if ex != eb:
                        bad += 1
                        print("MISMATCH %s: %s executable %s vs %s" % (label, rel, ex, eb))
                    if rel.endswith(".dist-info/RECORD"):
                        records.append((rel, data, db))
                        continue
                    if data != db:
                        is_launcher = b"\nimport re\nimport sys\nfrom " in data and "/bin/" in "/" + rel
                        if is_launcher:
                            head_a = data.split(b"# -*- coding")[0]
                            head_b = db.split(b"# -*- coding")[0]
                            if head_a == head_b:
                                kept += 1
                                bodies_differ.add(rel.rsplit("/", 1)[1])
                                continue
                        exe = os.path.join(va, "bin", "python").encode()
                        if data.startswith(b"#!" + exe + b"\n") and (b" " in exe or len(exe) + 3 > 127):
                            q = b"'" + exe + b"'" if b" " in exe else exe
                            sh = b"#!/bin/sh\n" + b"'" * 3 + b"exec' " + q + b' "$0" "$@"\n' + b"' " + b"'" * 3 + b"\n"
                            if db == sh + data.split(b"\n", 1)[1]:
                                kept += 1
                                bodies_differ.add(rel.rsplit("/", 1)[1])
                                continue
                        bad += 1
                        print("MISMATCH %s: %s differs:\n  installer %r\n  wheelpick %r" % (
                            label, rel, data[:200], db[:200]))
                for rel, data, db in records:
                    def norm(rows, theirs):
                        out = set()
                        for row in rows:
                            path = row[0]
                            if path.endswith(".dist-info/REQUESTED") or "/__pycache__/" in "/" + path:
                                continue
                            if theirs and path.startswith("./"):
                                path = path[2:]  # kept: installer's prefix when platlib is purelib
                            if "/bin/" in path:
                                # the venv's own path is in these bytes: path and size, or path
                                # alone where the bytes differ on purpose
                                base = path.rsplit("/", 1)[1]
                                out.add((path,) if base in bodies_differ else (path, row[2]))
                                continue
                            out.add((path,) + tuple(row[1:]))
                        return out
                    ra, rb = norm(record_rows(data), True), norm(record_rows(db), False)
                    if ra != rb:
                        bad += 1
                        print("MISMATCH %s: %s rows differ: installer only %s; wheelpick only %s" % (
                            label, rel, sorted(ra - rb)[:4], sorted(rb - ra)[:4]))
                for rel in tb:
                    if rel not in ta and "/__pycache__/" in rel:
                        kept += 1  # pip installs it too
                    elif rel not in ta and not rel.endswith(".dist-info/REQUESTED"):
                        bad += 1
                        print("MISMATCH %s: %s installed by wheelpick only" % (label, rel))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("installer_diff: pypa/installer %s (Debian's python3-installer): %d vectors installed both ways, %d files compared "
          "(%d kept: pip's launcher body, runnable #!python scripts, a wheel's __pycache__, signed wheels before installer 0.7); %d mismatches" % (installer.__version__, vectors, files, kept, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
