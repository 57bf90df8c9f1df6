#!/usr/bin/env python3
"""bench/conda_once.py: the conda crawl (issue 42 item 3) against Python's json.load of the same
repodata.json, wall and CPU, alternated, at the load found and (CONDA_HOG=1) with a CPU hog.

usage: conda_once.py REPODATA.json WHEELPICK [WHEELPICK2 ...]   (absolute paths; more binaries:
       old against new, all into fresh catalogs)

Every round runs each command once, in an order that rotates round by round; each crawl goes into
a fresh catalog, removed and flushed (`sync`) before it, untimed, so that no run pays for another's
writeback. Wall by the clock, CPU (user+sys) by wait4's rusage, peak RSS by /usr/bin/time when
there is one. A `.zst` beside the file (REPODATA.json.zst) is crawled too when present. Printed per
command: median and min wall, median CPU; then per crawl the goal's ratio, json.load's wall / the
crawl's CPU (>= 5), with json.load's CPU / the crawl's CPU beside it (what an idle machine would
give), and MB/s of JSON on the crawl's wall (>= 250). CONDA_ROUNDS (default 5); CONDA_HOG=1 keeps
`while :; do :; done` running through the rounds (a build host whose other core is busy). The
load average is printed before and after.
"""
import os
import subprocess
import sys
import tempfile
import time

import hog as hog_  # noqa: E402  (bench/hog.py: the bench's one CPU hog)

TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def rm_db(path):
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


def run(argv, tpath):
    full = ([TIME, "-f", "%M", "-o", tpath] if TIME else []) + argv
    t = time.perf_counter()
    p = subprocess.Popen(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"conda_once: {argv[0]} failed: {err.strip()[-300:]}")
    rss = 0
    if TIME:
        with open(tpath) as f:
            rss = int(f.read().split()[-1])
    return wall, ru.ru_utime + ru.ru_stime, rss


def med(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def fmt(s):
    return f"{s * 1e3:.0f} ms" if s < 1 else f"{s:.2f} s"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    js, bins = sys.argv[1], sys.argv[2:]
    rounds = int(os.environ.get("CONDA_ROUNDS", "5"))
    hog = os.environ.get("CONDA_HOG") == "1"
    work = tempfile.mkdtemp(prefix="condaonce-")
    db, tpath = os.path.join(work, "c.db"), os.path.join(work, "time")
    size = os.path.getsize(js)
    # the channel layout the crawl wants: CHANNEL/linux-64/repodata.json[.zst], linked
    ch = os.path.join(work, "ch", "linux-64")
    os.makedirs(ch)
    os.symlink(js, os.path.join(ch, "repodata.json"))
    inputs = [("json", "repodata.json")]
    if os.path.exists(js + ".zst"):
        os.symlink(js + ".zst", os.path.join(ch, "repodata.json.zst"))
        inputs.append(("zst", "repodata.json.zst"))
    cmds = []
    for i, b in enumerate(bins):
        tag = f"wheelpick{i + 1 if len(bins) > 1 else ''}"
        for kind, name in inputs:
            cmds.append((f"{tag} update --conda ({kind})",
                         [b, "--catalog", db, "-q", "update", "--conda", "--index", f"file://{ch}/{name}"], True))
    cmds.append(("json.load", [sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", js], False))
    h = hog_.start(hog)
    load0 = os.getloadavg()
    res = {c[0]: {"wall": [], "cpu": [], "rss": []} for c in cmds}
    try:
        for r in range(rounds):
            k = r % len(cmds)
            for label, argv, fresh in cmds[k:] + cmds[:k]:
                if fresh:
                    rm_db(db)
                    os.sync()
                w, c, m = run(argv, tpath)
                res[label]["wall"].append(w)
                res[label]["cpu"].append(c)
                res[label]["rss"].append(m)
    finally:
        hog_.stop(h)
        rm_db(db)
    load1 = os.getloadavg()
    jw, jc = med(res["json.load"]["wall"]), med(res["json.load"]["cpu"])
    print(f"conda crawl vs json.load: {size / 1e6:.0f} MB repodata.json, {rounds} alternated rounds"
          f"{', CPU hog on the other core' if hog else ''}; load {load0[0]:.1f} -> {load1[0]:.1f} (2 CPUs, shared)")
    print()
    print("| command | wall: median (min) | CPU user+sys: median (min) | peak RSS | json.load wall / its CPU (goal >= 5) "
          "| json.load CPU / its CPU | MB/s of JSON on its wall (goal >= 250) |")
    print("|---|---|---|---|---|---|---|")
    for label, _, crawl in cmds:
        x = res[label]
        w, c = med(x["wall"]), med(x["cpu"])
        extra = (f"{jw / c:.2f}x | {jc / c:.2f}x | {size / 1e6 / w:.0f}" if crawl else "| |")
        rss = f"{max(x['rss']) / 1024:.0f} MB" if TIME else "?"
        print(f"| {label} | {fmt(w)} ({fmt(min(x['wall']))}) | {fmt(c)} ({fmt(min(x['cpu']))}) | {rss} | {extra} |")


if __name__ == "__main__":
    main()
