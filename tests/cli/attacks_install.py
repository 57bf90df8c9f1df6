#!/usr/bin/env python3
"""tests/cli/attacks_install.py: the hostile inputs of the install attack matrix (tests/cli/t-attacks-install.sh).

Generated at test time (stdlib only), deterministic.

  attacks_install.py wheel OUT NAME VERSION [--file PATH TEXT]... [--console NAME TARGET]... [--gui NAME TARGET]... [--pad N]
        a wheel whose RECORD is true for every member (so only the installer's own rules can refuse
        it), with each --file as an extra member (any name: '.data/...' paths, reserved names);
        prints its file name; --pad N adds N bytes of noise (stored) as NAME/pad.bin
  attacks_install.py wheelhouse DIR WHEEL...
        a requirements.txt in DIR pinning each wheel (already in DIR) by sha256
  attacks_install.py bundle OUT TOP [--file NAME TEXT] [--hardlink NAME TARGET DATA] [--symlink NAME TARGET]
                     [--zeros NAME BYTES] [--gz]
        a tar (pax) bundle: its members in order, with TOP/ as the top folder (the names as given)
  attacks_install.py journal OUT KIND [OP PATH [PATH2]]...
        a wheelpick journal (KIND: commit or staging) with the given records (OP: M R U D)
  attacks_install.py record DIST_INFO ROWS...
        write DIST_INFO/RECORD (csv rows as given, "path,," when no comma) and a METADATA
  attacks_install.py bigrecord DIST_INFO N
        RECORD with N rows in N distinct folders (none of them on disk)
"""
import base64
import gzip
import hashlib
import io
import os
import sys
import tarfile
import zipfile

FIXED = (2021, 3, 12, 0, 0, 0)


def b64(d):
    return base64.urlsafe_b64encode(d).rstrip(b"=").decode()


def cmd_wheel(args):
    out, name, version = args[0], args[1], args[2]
    extra, console, gui = [], [], []
    i = 3
    while i < len(args):
        if args[i] == "--pad":
            import random
            extra.append(("%s/pad.bin" % name.replace("-", "_"), random.Random(7).randbytes(int(args[i + 1]))))
            i += 2
        elif args[i] == "--file":
            extra.append((args[i + 1], args[i + 2].encode("utf-8", "surrogateescape")))
            i += 3
        elif args[i] == "--console":
            console.append((args[i + 1], args[i + 2]))
            i += 3
        elif args[i] == "--gui":
            gui.append((args[i + 1], args[i + 2]))
            i += 3
        else:
            sys.exit("unknown option %s" % args[i])
    dist = "%s-%s" % (name.replace("-", "_"), version)
    mod = name.replace("-", "_")
    files = [("%s/__init__.py" % mod, b"def main():\n    return 0\n")]
    files += extra
    if console or gui:
        text = ""
        if console:
            text += "[console_scripts]\n" + "".join("%s = %s\n" % c for c in console)
        if gui:
            text += "[gui_scripts]\n" + "".join("%s = %s\n" % g for g in gui)
        files.append(("%s.dist-info/entry_points.txt" % dist, text.encode("utf-8", "surrogateescape")))
    files.append(("%s.dist-info/METADATA" % dist,
                  ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n\n" % (name, version)).encode()))
    files.append(("%s.dist-info/WHEEL" % dist,
                  b"Wheel-Version: 1.0\nGenerator: attacks\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    rec = io.StringIO()
    for n, d in files:
        rec.write("%s,sha256=%s,%d\n" % (n, b64(hashlib.sha256(d).digest()), len(d)))
    rec.write("%s.dist-info/RECORD,,\n" % dist)
    files.append(("%s.dist-info/RECORD" % dist, rec.getvalue().encode("utf-8", "surrogateescape")))
    fn = "%s-py3-none-any.whl" % dist
    os.makedirs(out, exist_ok=True)
    with zipfile.ZipFile(os.path.join(out, fn), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            zi = zipfile.ZipInfo(n, FIXED)
            zi.external_attr = (0o755 if "/scripts/" in n else 0o644) << 16
            zi.compress_type = zipfile.ZIP_STORED if n.endswith("pad.bin") else zipfile.ZIP_DEFLATED
            z.writestr(zi, d)
    print(fn)


def cmd_wheelhouse(args):
    d = args[0]
    lines = []
    for w in args[1:]:
        name, version = w.split("-")[0], w.split("-")[1]
        h = hashlib.sha256(open(os.path.join(d, w), "rb").read()).hexdigest()
        lines.append("%s==%s \\\n    --hash=sha256:%s\n" % (name.replace("_", "-"), version, h))
    with open(os.path.join(d, "requirements.txt"), "w") as f:
        f.write("".join(lines))


def cmd_bundle(args):
    out, top = args[0], args[1]
    members, gz = [], False
    i = 2
    while i < len(args):
        a = args[i]
        if a == "--file":
            members.append(("f", args[i + 1], args[i + 2].encode()))
            i += 3
        elif a == "--hardlink":
            members.append(("h", args[i + 1], args[i + 2], args[i + 3].encode()))
            i += 4
        elif a == "--symlink":
            members.append(("s", args[i + 1], args[i + 2]))
            i += 3
        elif a == "--zeros":
            members.append(("z", args[i + 1], int(args[i + 2])))
            i += 3
        elif a == "--gz":
            gz = True
            i += 1
        else:
            sys.exit("unknown option %s" % a)
    raw = open(out, "wb")
    f = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if gz else raw
    with tarfile.open(fileobj=f, mode="w", format=tarfile.PAX_FORMAT) as t:
        d = tarfile.TarInfo(top)
        d.type, d.mode, d.mtime = tarfile.DIRTYPE, 0o755, 1615000000
        t.addfile(d)
        for m in members:
            ti = tarfile.TarInfo(m[1])
            ti.mtime, ti.mode = 1615000000, 0o644
            if m[0] == "f":
                ti.size = len(m[2])
                t.addfile(ti, io.BytesIO(m[2]))
            elif m[0] == "h":
                # a hard link that carries data (pax allows it): written, it lands in the target
                ti.type, ti.linkname, ti.size = tarfile.LNKTYPE, m[2], len(m[3])
                t.addfile(ti, io.BytesIO(m[3]))
            elif m[0] == "s":
                ti.type, ti.linkname = tarfile.SYMTYPE, m[2]
                t.addfile(ti)
            else:
                ti.size = m[2]
                t.addfile(ti, Zeros(m[2]))
    if gz:
        f.close()
    raw.close()


class Zeros:
    def __init__(self, n):
        self.n = n

    def read(self, k=-1):
        k = self.n if k < 0 else min(k, self.n)
        self.n -= k
        return bytes(k)


def cmd_journal(args):
    out, kind = args[0], args[1]
    assert kind in ("commit", "staging")
    b = bytearray(b"wheelpick journal 1\n")
    i = 2
    while i < len(args):
        op = args[i]
        b += op.encode() + args[i + 1].encode() + b"\0"
        i += 2
        if op == "R":
            b += args[i].encode() + b"\0"
            i += 1
    with open(out, "wb") as f:
        f.write(bytes(b))


def cmd_record(args):
    di = args[0]
    os.makedirs(di, exist_ok=True)
    base = os.path.basename(di)[: -len(".dist-info")]
    name, version = base.split("-", 1)
    with open(os.path.join(di, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: %s\nVersion: %s\n\n" % (name, version))
    with open(os.path.join(di, "RECORD"), "w") as f:
        for r in args[1:]:
            f.write((r if "," in r else r + ",,") + "\n")


def cmd_bigrecord(args):
    di, n = args[0], int(args[1])
    os.makedirs(di, exist_ok=True)
    base = os.path.basename(di)[: -len(".dist-info")]
    name, version = base.split("-", 1)
    with open(os.path.join(di, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: %s\nVersion: %s\n\n" % (name, version))
    with open(os.path.join(di, "RECORD"), "w") as f:
        for i in range(n):
            f.write("big/d%06d/m.py,,\n" % i)
        f.write("%s/METADATA,,\n%s/RECORD,,\n" % (os.path.basename(di), os.path.basename(di)))


if __name__ == "__main__":
    {"wheel": cmd_wheel, "wheelhouse": cmd_wheelhouse, "bundle": cmd_bundle, "journal": cmd_journal,
     "record": cmd_record, "bigrecord": cmd_bigrecord}[sys.argv[1]](sys.argv[2:])
