#!/usr/bin/env python3
"""bench/crawl_floor.py: `wheelpick update` of the real 2021 page into a fresh catalog against
bench/crawl_floor.c, the floor that stores the same rows durably (issue 42 item 5: <= 1.5x).

usage: crawl_floor.py WHEELPICK [WHEELPICK2 ...]     (absolute paths; more binaries: old against new)

Every round runs each command once, in an order that rotates round by round, each into a fresh
database (removed before, not timed). Wall by the clock, CPU (user+sys) by wait4's rusage. Printed
per command: median and min wall, median CPU, and the median of the per-round ratios to the floor
(wall and CPU). CRAWL_ROUNDS (default 15); CRAWL_HOG=1 keeps a CPU hog (`while :; do :; done`)
running through the rounds, as on a build host whose other core is busy. The load average is
printed before and after.
"""
import os
import subprocess
import sys
import tempfile
import time

import hog as hog_  # noqa: E402  (bench/hog.py: the bench's one CPU hog)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench  # noqa: E402  (PAGE2021: ../shared/data, or WP_SHARED_DATA)

PAGE = bench.PAGE2021


def rm_db(path):
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


def run(argv, env=None):
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"crawl_floor: {argv[0]} failed: {err.strip()[:300]}")
    return wall, ru.ru_utime + ru.ru_stime


def med(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rounds = int(os.environ.get("CRAWL_ROUNDS", "15"))
    work = tempfile.mkdtemp(prefix="crawlfloor-")
    floor = os.path.join(work, "crawl_floor")
    subprocess.run(["cc", "-O2", "-o", floor, os.path.join(HERE, "crawl_floor.c"), "-lsqlite3", "-lcrypto"], check=True)
    schema = os.path.join(ROOT, "schema.sql")
    cmds = [("floor (bench/crawl_floor.c)", lambda db: [floor, PAGE, schema, db], None)]
    for i, wp in enumerate(sys.argv[1:]):
        env = {**os.environ, "WHEELPICK_CACHE_DIR": os.path.join(work, f"cache{i}")}
        cmds.append((f"wheelpick update ({wp})", lambda db, wp=wp: [wp, "--catalog", db, "update", "--index",
                                                                    "file://" + PAGE], env))
    hog = hog_.start(os.environ.get("CRAWL_HOG") == "1")
    load0 = os.getloadavg()
    walls = [[] for _ in cmds]
    cpus = [[] for _ in cmds]
    try:
        for warm in range(2):  # page cache and the binaries' pages, not counted
            for label, argv, env in cmds:
                db = os.path.join(work, "w.db")
                rm_db(db)
                run(argv(db), env)
        for r in range(rounds):
            order = list(range(len(cmds)))
            order = order[r % len(order):] + order[:r % len(order)]
            for k in order:
                label, argv, env = cmds[k]
                db = os.path.join(work, f"c{k}.db")
                rm_db(db)
                w, c = run(argv(db), env)
                walls[k].append(w)
                cpus[k].append(c)
    finally:
        hog_.stop(hog)
    load1 = os.getloadavg()
    print(f"{rounds} rounds, alternated; hog on the other core: {'yes' if hog else 'no'}; "
          f"load average {load0[0]:.2f} before, {load1[0]:.2f} after; page {PAGE}")
    print()
    print("| command | wall median (min) | CPU median | / floor, wall (median of rounds) | / floor, CPU |")
    print("|---|---|---|---|---|")
    for k, (label, _, _) in enumerate(cmds):
        rw = med([walls[k][r] / walls[0][r] for r in range(rounds)])
        rc = med([cpus[k][r] / cpus[0][r] for r in range(rounds)])
        print(f"| {label} | {med(walls[k]) * 1e3:.1f} ms ({min(walls[k]) * 1e3:.1f}) | {med(cpus[k]) * 1e3:.1f} ms "
              f"| {rw:.2f}x | {rc:.2f}x |")
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
