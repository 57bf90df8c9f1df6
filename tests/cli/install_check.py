#!/usr/bin/env python3
"""tests/cli/install_check.py: compare what pip installed with what wheelpick installed.

    install_check.py compare PIP_VENV WP_VENV   every file pip's RECORDs name: bytes equal (the venv
                                                path replaced), modes equal, the same RECORD rows
    install_check.py snapshot VENV OUT.json     every file under VENV (no __pycache__): sha256, mode
    install_check.py same VENV A.json B.json    VENV now equals snapshot A or B exactly; prints which
Prints one line per difference and exits 1 when there is any.
"""
import csv
import glob
import hashlib
import json
import os
import stat
import sys


def records(venv):
    return sorted(glob.glob(os.path.join(venv, "lib", "python*", "site-packages", "*.dist-info", "RECORD")))


def rows(path):
    with open(path, newline="") as f:
        return [r for r in csv.reader(f) if r]


def compare(pv, wv):
    bad = []
    pv, wv = os.path.abspath(pv), os.path.abspath(wv)
    prec = records(pv)
    wrec = [r.replace(wv, pv, 1) for r in records(wv)]
    if [os.path.relpath(r, pv) for r in prec] != [os.path.relpath(r, pv) for r in wrec]:
        bad.append("dist-info folders differ: pip %s, wheelpick %s" % (
            [os.path.relpath(r, pv) for r in prec], [os.path.relpath(r, pv) for r in wrec]))
    n = 0
    for rec in prec:
        lib = os.path.dirname(os.path.dirname(rec))
        wrecord = rec.replace(pv, wv, 1)
        prow = {r[0]: r for r in rows(rec)}
        wrow = {r[0]: r for r in rows(wrecord)} if os.path.exists(wrecord) else {}
        if set(prow) != set(wrow):
            bad.append("%s: RECORD paths differ: only pip %s, only wheelpick %s" % (
                os.path.relpath(rec, pv), sorted(set(prow) - set(wrow)), sorted(set(wrow) - set(prow))))
        for path, r in prow.items():
            p = os.path.normpath(os.path.join(lib, path))
            w = p.replace(pv, wv, 1)
            base = os.path.basename(p)
            if base == "RECORD":
                continue
            n += 1
            if not os.path.exists(w):
                bad.append("%s: missing in wheelpick's environment" % path)
                continue
            pb, wb = open(p, "rb").read(), open(w, "rb").read()
            if base == "INSTALLER":
                if wb != b"wheelpick\n":
                    bad.append("%s: INSTALLER says %r" % (path, wb))
                continue
            if pb.replace(pv.encode(), wv.encode()) != wb:
                bad.append("%s: bytes differ (%d vs %d bytes)" % (path, len(pb), len(wb)))
            pm, wm = stat.S_IMODE(os.stat(p).st_mode), stat.S_IMODE(os.stat(w).st_mode)
            if pm != wm:
                bad.append("%s: mode %o, wheelpick's %o" % (path, pm, wm))
            if path in wrow and pb == wb and wrow[path][1:] != r[1:]:
                bad.append("%s: RECORD row %s, wheelpick's %s" % (path, r[1:], wrow[path][1:]))
    # nothing more than pip put there (the caches aside)
    def tree(root):
        out = set()
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if x != "__pycache__"]
            for f in files:
                if f != ".wheelpick-targets":  # wheelpick's note of what each project was picked for
                    out.add(os.path.relpath(os.path.join(d, f), root))
        return out
    extra = tree(wv) - tree(pv)
    if extra:
        bad.append("wheelpick wrote files pip did not: %s" % sorted(extra))
    for b in bad:
        print(b)
    print("compared %d files" % n)
    return 1 if bad or not n else 0


def snapshot(venv):
    out = {}
    for d, dirs, files in os.walk(venv):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for f in files:
            if f == ".wheelpick-targets" and os.environ.get("WP_SNAPSHOT_NO_TARGETS"):
                continue
            p = os.path.join(d, f)
            st = os.lstat(p)
            out[os.path.relpath(p, venv)] = [hashlib.sha256(open(p, "rb").read()).hexdigest(), stat.S_IMODE(st.st_mode)]
    return out


def main():
    cmd = sys.argv[1]
    if cmd == "compare":
        return compare(sys.argv[2], sys.argv[3])
    if cmd == "snapshot":
        json.dump(snapshot(sys.argv[2]), open(sys.argv[3], "w"))
        return 0
    if cmd == "same":
        now = snapshot(sys.argv[2])
        for name in sys.argv[3:]:
            if now == json.load(open(name)):
                print(os.path.basename(name))
                return 0
        snaps = [json.load(open(n)) for n in sys.argv[3:]]
        print("matches none of %s" % ", ".join(os.path.basename(n) for n in sys.argv[3:]))
        for k in sorted(set(now).union(*snaps)):
            if all(now.get(k) != s.get(k) for s in snaps):
                print("  %s: %s (%s)" % (k, now.get(k), ", ".join(str(s.get(k)) for s in snaps)))
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
