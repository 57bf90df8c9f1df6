#!/usr/bin/env python3
"""bench/alternate.py: two or more shell commands timed in alternation, wall and CPU, on a busy machine.

usage: alternate.py [--rounds N] [--hog] 'LABEL=COMMAND' 'LABEL=COMMAND' ...

Each round runs every command once (`sh -c 'exec COMMAND'`, output discarded), in an order that
rotates round by round, after one untimed warm-up round. Wall by the clock, CPU (user+sys, the
command and its children) by wait4's rusage. Printed: per command the median and min wall and the
median CPU, and against the first command the median and min-max of the per-round ratios (the
spread is the noise). --hog keeps a CPU hog (`while :; do :; done`) running through the rounds (a
build host whose other core is busy). The load
average is printed before and after: on a shared machine CPU time is the steadier figure.
"""
import os
import subprocess
import sys
import time

import hog as hog_  # noqa: E402  (bench/hog.py: the bench's one CPU hog)


def run(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(["sh", "-c", "exec " + cmd], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"alternate: exit {os.waitstatus_to_exitcode(status)}: {cmd}")
    return wall, ru.ru_utime + ru.ru_stime


def med(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def fmt(s):
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def main():
    args = sys.argv[1:]
    rounds, hog = 9, False
    while args and args[0].startswith("--"):
        if args[0] == "--rounds":
            rounds = int(args[1])
            args = args[2:]
        elif args[0] == "--hog":
            hog = True
            args = args[1:]
        else:
            sys.exit(__doc__)
    cmds = [a.split("=", 1) for a in args]
    if len(cmds) < 1 or any(len(c) != 2 for c in cmds):
        sys.exit(__doc__)
    h = hog_.start(hog)
    load0 = os.getloadavg()
    walls = [[] for _ in cmds]
    cpus = [[] for _ in cmds]
    try:
        for _, c in cmds:
            run(c)
        for r in range(rounds):
            order = list(range(len(cmds)))
            order = order[r % len(order):] + order[:r % len(order)]
            for k in order:
                w, c = run(cmds[k][1])
                walls[k].append(w)
                cpus[k].append(c)
    finally:
        hog_.stop(h)
    load1 = os.getloadavg()
    print(f"{rounds} rounds, alternated; CPU hog: {'yes' if hog else 'no'}; load average {load0[0]:.2f} before, "
          f"{load1[0]:.2f} after")
    print()
    print(f"| command | wall median (min) | CPU median (min) | / {cmds[0][0]}, wall: median of rounds (min–max) "
          f"| / {cmds[0][0]}, CPU: median of rounds (min–max) |")
    print("|---|---|---|---|---|")
    for k, (label, _) in enumerate(cmds):
        rw = [walls[k][r] / walls[0][r] for r in range(rounds)]
        rc = [cpus[k][r] / max(cpus[0][r], 1e-6) for r in range(rounds)]
        print(f"| {label} | {fmt(med(walls[k]))} ({fmt(min(walls[k]))}) | {fmt(med(cpus[k]))} ({fmt(min(cpus[k]))}) "
              f"| {med(rw):.3f}x ({min(rw):.3f}–{max(rw):.3f}) | {med(rc):.3f}x ({min(rc):.3f}–{max(rc):.3f}) |")


if __name__ == "__main__":
    main()
