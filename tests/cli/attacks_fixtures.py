#!/usr/bin/env python3
"""tests/cli/attacks_fixtures.py: the hostile inputs of the attack matrix (tests/cli/t-attacks*.sh).

Generated at test time (stdlib only; .conda needs the zstd program), deterministic.

  attacks_fixtures.py wheel OUT NAME VERSION [--requires R]... [--requires-python S] [--payload TEXT] [--pad N] [--tag T]
        a small sound wheel (N more bytes of noise, stored); prints "FILENAME SHA256 SIZE"
  attacks_fixtures.py conda-channel OUT
        a conda channel (OUT/linux-64, OUT/noarch) whose packages each carry one attack, with true
        sha256/md5/size in repodata, so only the archive check can refuse them; prints the names
  attacks_fixtures.py climbing-repodata OUT
        a channel whose repodata keys climb out of it (../, absolute, encoded, NUL, backslash)
  attacks_fixtures.py big-repodata OUT N
        a channel with N records (a crash loop needs a refresh that takes a moment)
"""
import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

FIXED = (2021, 3, 12, 0, 0, 0)


def b64(d):
    return base64.urlsafe_b64encode(d).rstrip(b"=").decode()


def wheel_bytes(name, version, requires=(), requires_python=None, payload="x = 1\n", tag="py3-none-any", pad=0):
    dist = "%s-%s" % (name.replace("-", "_"), version)
    mod = name.replace("-", "_")
    files = {}
    files["%s/__init__.py" % mod] = payload.encode()
    if pad:
        import random
        files["%s/pad.bin" % mod] = random.Random(pad).randbytes(pad)
    meta = ["Metadata-Version: 2.1", "Name: %s" % name, "Version: %s" % version]
    if requires_python:
        meta.append("Requires-Python: %s" % requires_python)
    meta += ["Requires-Dist: %s" % r for r in requires]
    files["%s.dist-info/METADATA" % dist] = ("\n".join(meta) + "\n\n").encode()
    files["%s.dist-info/WHEEL" % dist] = ("Wheel-Version: 1.0\nGenerator: attacks\nRoot-Is-Purelib: true\n"
                                          "Tag: %s\n" % tag).encode()
    rec = io.StringIO()
    for n, d in files.items():
        rec.write("%s,sha256=%s,%d\n" % (n, b64(hashlib.sha256(d).digest()), len(d)))
    rec.write("%s.dist-info/RECORD,,\n" % dist)
    files["%s.dist-info/RECORD" % dist] = rec.getvalue().encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            zi = zipfile.ZipInfo(n, FIXED)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_STORED if n.endswith("pad.bin") else zipfile.ZIP_DEFLATED
            z.writestr(zi, d)
    return "%s-%s.whl" % (dist, tag), buf.getvalue(), files["%s.dist-info/METADATA" % dist]


def cmd_wheel(args):
    out, name, version = args[0], args[1], args[2]
    requires, rp, payload, meta_out, pad, tag = [], None, "x = 1\n", None, 0, "py3-none-any"
    i = 3
    while i < len(args):
        if args[i] == "--requires":
            requires.append(args[i + 1])
        elif args[i] == "--requires-python":
            rp = args[i + 1]
        elif args[i] == "--payload":
            payload = args[i + 1]
        elif args[i] == "--metadata-to":
            meta_out = args[i + 1]
        elif args[i] == "--pad":
            pad = int(args[i + 1])
        elif args[i] == "--tag":
            tag = args[i + 1]
        else:
            sys.exit("unknown option %s" % args[i])
        i += 2
    fn, data, meta = wheel_bytes(name, version, requires, rp, payload, tag=tag, pad=pad)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, fn), "wb") as f:
        f.write(data)
    if meta_out:
        with open(meta_out, "wb") as f:
            f.write(meta)
    print(fn, hashlib.sha256(data).hexdigest(), len(data))


# --- conda ---------------------------------------------------------------------------------

def index_json(name, version, build):
    return json.dumps(dict(name=name, version=version, build=build, build_number=0, depends=[],
                           subdir="linux-64", license="BSD", timestamp=1615000000000), sort_keys=True).encode()


def member(name, data=b"", kind=tarfile.REGTYPE, linkname=""):
    ti = tarfile.TarInfo(name)
    ti.type = kind
    ti.linkname = linkname
    ti.mtime = 1615000000
    ti.size = len(data) if kind == tarfile.REGTYPE else 0
    if kind in (tarfile.CHRTYPE, tarfile.BLKTYPE):
        ti.devmajor, ti.devminor = 1, 3
    return ti, data


def tar_bytes(members, mode="w:bz2"):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=tarfile.GNU_FORMAT) as t:
        for ti, data in members:
            t.addfile(ti, io.BytesIO(data) if ti.type == tarfile.REGTYPE else None)
    return buf.getvalue()


def zstd(data):
    return subprocess.run(["zstd", "-q", "-c"], input=data, stdout=subprocess.PIPE, check=True).stdout


def dot_conda(stem, info_members, pkg_members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr("metadata.json", json.dumps({"conda_pkg_format_version": 2}))
        z.writestr("info-%s.tar.zst" % stem, zstd(tar_bytes(info_members, "w")))
        z.writestr("pkg-%s.tar.zst" % stem, zstd(tar_bytes(pkg_members, "w")))
    return buf.getvalue()


# each case: (name, [members]) for a .tar.bz2; the index.json is added unless the case says
CONDA_CASES = {
    "traversal": [member("../../../../tmp/wp-evil", b"owned\n")],
    "absolute": [member("/tmp/wp-evil", b"owned\n")],
    "symlink-out-then-write": [member("lib/out", kind=tarfile.SYMTYPE, linkname="../../../../tmp"),
                               member("lib/out/wp-evil", b"owned\n")],
    "symlink-absolute": [member("lib/etc", kind=tarfile.SYMTYPE, linkname="/etc")],
    "symlink-inside-then-write": [member("lib/in", kind=tarfile.SYMTYPE, linkname="../info"),
                                  member("lib/in/index.json", b"{}")],
    "hardlink-shadow": [member("lib/shadow", kind=tarfile.LNKTYPE, linkname="../../../../etc/shadow")],
    "hardlink-absolute": [member("lib/shadow", kind=tarfile.LNKTYPE, linkname="/etc/shadow")],
    "hardlink-missing": [member("lib/x", kind=tarfile.LNKTYPE, linkname="lib/nothing-before")],
    "device": [member("lib/mem", kind=tarfile.CHRTYPE)],
    "fifo": [member("lib/pipe", kind=tarfile.FIFOTYPE)],
    "duplicate": [member("lib/a.txt", b"one\n"), member("lib/a.txt", b"two\n")],
}


def conda_channel(out):
    sub = os.path.join(out, "linux-64")
    os.makedirs(sub, exist_ok=True)
    os.makedirs(os.path.join(out, "noarch"), exist_ok=True)
    packages, packages_conda, names = {}, {}, []

    def add(table, fn, data, name, version, build):
        with open(os.path.join(sub, fn), "wb") as f:
            f.write(data)
        table[fn] = dict(name=name, version=version, build=build, build_number=0, depends=[], subdir="linux-64",
                         license="BSD", timestamp=1615000000000, md5=hashlib.md5(data).hexdigest(),
                         sha256=hashlib.sha256(data).hexdigest(), size=len(data))
        names.append(name)

    for case, members in CONDA_CASES.items():
        name = "evil-" + case
        ij = member("info/index.json", index_json(name, "1.0", "0"))
        add(packages, "%s-1.0-0.tar.bz2" % name, tar_bytes([ij, member("lib/ok.txt", b"fine\n")] + members),
            name, "1.0", "0")
    # sound ones beside them, so the channel itself is fine: links inside, a hard link to a file
    sound = [member("lib/ok.txt", b"fine\n"), member("lib/libz.so.1", b"ELF\n"),
             member("lib/libz.so", kind=tarfile.SYMTYPE, linkname="libz.so.1"),
             member("bin/z", kind=tarfile.SYMTYPE, linkname="../lib/libz.so"),
             member("lib/copy.txt", kind=tarfile.LNKTYPE, linkname="lib/ok.txt")]
    add(packages, "good-1.0-0.tar.bz2", tar_bytes([member("info/index.json", index_json("good", "1.0", "0"))] + sound),
        "good", "1.0", "0")
    # info/index.json that names another package / version / build than the record
    for case, (n, v, b) in {"index-name": ("other", "1.0", "0"), "index-version": ("evil-index-version", "6.6", "0"),
                            "index-build": ("evil-index-build", "1.0", "9")}.items():
        name = "evil-" + case
        add(packages, "%s-1.0-0.tar.bz2" % name, tar_bytes([member("info/index.json", index_json(n, v, b))]),
            name, "1.0", "0")
    if shutil.which("zstd"):
        # .conda: traversal and a link written through, in the pkg tarball; index.json in the wrong tarball
        add(packages_conda, "good-conda-1.0-0.conda",
            dot_conda("good-conda-1.0-0", [member("info/index.json", index_json("good-conda", "1.0", "0"))], sound),
            "good-conda", "1.0", "0")
        for case, pkg_members, info_has_index in (
                ("conda-traversal", [member("../../evil", b"owned\n")], True),
                ("conda-symlink-write", [member("site", kind=tarfile.SYMTYPE, linkname="/"),
                                         member("site/tmp/wp-evil", b"owned\n")], True),
                ("conda-hardlink", [member("x", kind=tarfile.LNKTYPE, linkname="../../../../etc/shadow")], True),
                ("conda-index-in-pkg", [], False)):
            name = "evil-" + case
            ij = member("info/index.json", index_json(name, "1.0", "0"))
            info = [ij] if info_has_index else [member("info/about.json", b"{}")]
            pkgm = pkg_members + ([] if info_has_index else [ij])
            add(packages_conda, "%s-1.0-0.conda" % name, dot_conda("%s-1.0-0" % name, info, pkgm), name, "1.0", "0")
    with open(os.path.join(sub, "repodata.json"), "w") as f:
        json.dump({"info": {"subdir": "linux-64"}, "packages": packages, "packages.conda": packages_conda,
                   "repodata_version": 1}, f, indent=1)
    with open(os.path.join(out, "noarch", "repodata.json"), "w") as f:
        json.dump({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}, "repodata_version": 1}, f)
    print(" ".join(names))


def climbing_repodata(out):
    sub = os.path.join(out, "linux-64")
    os.makedirs(sub, exist_ok=True)
    os.makedirs(os.path.join(out, "noarch"), exist_ok=True)
    data = tar_bytes([member("info/index.json", index_json("climb", "1.0", "0"))])
    with open(os.path.join(sub, "climb-1.0-0.tar.bz2"), "wb") as f:
        f.write(data)
    rec = dict(name="climb", version="1.0", build="0", build_number=0, depends=[], subdir="linux-64",
               sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    keys = ["../climb-1.0-0.tar.bz2", "../../../../tmp/climb-1.0-0.tar.bz2", "/tmp/climb-1.0-0.tar.bz2",
            "sub/climb-1.0-0.tar.bz2", "..\\climb-1.0-0.tar.bz2", "..%2Fclimb-1.0-0.tar.bz2", "..",
            "climb-1.0-0.tar.bz2\u0000.txt", "climb\n-1.0-0.tar.bz2"]
    packages = {k: dict(rec) for k in keys}
    with open(os.path.join(sub, "repodata.json"), "w") as f:
        json.dump({"info": {"subdir": "linux-64"}, "packages": packages, "packages.conda": {},
                   "repodata_version": 1}, f, indent=1)
    with open(os.path.join(out, "noarch", "repodata.json"), "w") as f:
        json.dump({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}, "repodata_version": 1}, f)


def big_repodata(out, n):
    sub = os.path.join(out, "linux-64")
    os.makedirs(sub, exist_ok=True)
    os.makedirs(os.path.join(out, "noarch"), exist_ok=True)
    packages = {}
    for i in range(n):
        name = "pkg%d" % (i % 997)
        fn = "%s-1.%d-py38_0.tar.bz2" % (name, i)
        packages[fn] = dict(name=name, version="1.%d" % i, build="py38_0", build_number=0,
                            depends=["python >=3.8,<3.9.0a0", "numpy >=1.%d" % (i % 30)], subdir="linux-64",
                            sha256=hashlib.sha256(fn.encode()).hexdigest(), md5=hashlib.md5(fn.encode()).hexdigest(),
                            size=1000 + i, timestamp=1615000000000 + i)
    with open(os.path.join(sub, "repodata.json"), "w") as f:
        json.dump({"info": {"subdir": "linux-64"}, "packages": packages, "packages.conda": {},
                   "repodata_version": 1}, f)
    with open(os.path.join(out, "noarch", "repodata.json"), "w") as f:
        json.dump({"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}, "repodata_version": 1}, f)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "wheel":
        cmd_wheel(args)
    elif cmd == "conda-channel":
        conda_channel(args[0])
    elif cmd == "climbing-repodata":
        climbing_repodata(args[0])
    elif cmd == "big-repodata":
        big_repodata(args[0], int(args[1]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
