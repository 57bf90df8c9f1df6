#!/usr/bin/env python3
"""bench/onepass.py: issue 42 item 2's rows, each binary against its peer, wall and CPU, alternated,
at the load found and then with a CPU hog on the other core (item 7).

usage: onepass.py BINARY [BINARY...]    (more binaries: older builds, measured in the same rounds)

Rows (ONEPASS_ROWS, default "stored,deflated"):
  stored    a valid 1 GB wheel with one stored member, sha256 in the page and RECORD checked,
            against `curl -o FILE URL && sync FILE` (the same durability)
  deflated  a torch-shaped wheel (ONEPASS_DEFLATED_MB compressed, default 300, deflated members),
            the same way
  install   `wheelpick install` of the deflated wheel (copy) into a fresh target folder, against
            `python3 -m zipfile -e` + sync (unzip, the same bytes written)
  hardlink  `wheelpick install --link-mode hardlink` of it (its unpacked store warm) into a fresh
            target folder, against `cp -al` of that unpacked store + sync
ONEPASS_ROUNDS (default 3); ONEPASS_HOG=0|1|both (default both); ONEPASS_MB (default 1024);
ONEPASS_PERF=DIR: then one `perf record` of each command, reported by thread, object and symbol.
Every round runs each command once, in an order that rotates round by round; each run's setup
(remove the last output, `sync`) is untimed. Wall by the clock, CPU (user+sys, with children) by
wait4. Ratios are per round (peer / tool for wall and tool / peer for CPU), then the median.
Inputs live under build-bench/bench-work/onepass/ and are removed at the end.
"""
import os
import shutil
import subprocess
import sys
import time

import hog as hog_  # noqa: E402  (bench/hog.py: the bench's one CPU hog)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench as B  # noqa: E402
import mkwheel  # noqa: E402

MB = 1 << 20


def med(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def timed(argv, env):
    t = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        raise SystemExit(f"onepass: exit {rc}: {' '.join(argv)}\n{err[-2000:]}")
    return wall, ru.ru_utime + ru.ru_stime


def compare(title, cmds, rounds, hog):
    """cmds: [(label, argv, env, setup)]; the first is the peer every ratio is taken against."""
    h = hog_.start(hog)
    load0 = os.getloadavg()[0]
    walls = [[] for _ in cmds]
    cpus = [[] for _ in cmds]
    try:
        for _, argv, env, setup in cmds:      # one untimed warm-up each
            setup()
            timed(argv, env)
        for r in range(rounds):
            order = list(range(len(cmds)))
            order = order[r % len(order):] + order[:r % len(order)]
            for k in order:
                _, argv, env, setup = cmds[k]
                setup()
                w, c = timed(argv, env)
                walls[k].append(w)
                cpus[k].append(c)
    finally:
        hog_.stop(h)
    load1 = os.getloadavg()[0]
    print(f"### {title}; CPU hog on the other core: {'yes' if hog else 'no'}")
    print()
    print(f"{rounds} rounds, alternated; load average {load0:.2f} before, {load1:.2f} after")
    print()
    peer = cmds[0][0]
    print(f"| command | wall median (min) | CPU median (min) | {peer} / it, wall (per round) | it / {peer}, CPU |")
    print("|---|---|---|---|---|")
    for k, (label, _, _, _) in enumerate(cmds):
        rw = [walls[0][r] / walls[k][r] for r in range(rounds)]
        rc = [cpus[k][r] / max(cpus[0][r], 1e-6) for r in range(rounds)]
        print(f"| {label} | {med(walls[k]):.2f} s ({min(walls[k]):.2f}) | {med(cpus[k]):.2f} s ({min(cpus[k]):.2f}) "
              f"| {med(rw):.2f}x ({', '.join(f'{x:.2f}' for x in rw)}) | {med(rc):.2f}x |")
    print()
    sys.stdout.flush()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bins = [os.path.abspath(b) for b in sys.argv[1:]]
    rows = [r.strip() for r in os.environ.get("ONEPASS_ROWS", "stored,deflated").split(",") if r.strip()]
    rounds = int(os.environ.get("ONEPASS_ROUNDS", "3"))
    hogs = {"0": [False], "1": [True]}.get(os.environ.get("ONEPASS_HOG", "both"), [False, True])
    size = int(os.environ.get("ONEPASS_MB", "1024")) * MB
    dmb = int(os.environ.get("ONEPASS_DEFLATED_MB", "300"))
    work = os.path.join(B.WORK, "onepass")
    B.rm(work)
    os.makedirs(work)
    root = os.path.join(work, "srv")
    os.makedirs(root)
    tgt = ["--cuda", "cpu", "--python", "3.8", "--platform", "linux_x86_64", "--no-deps"]
    wheels = {}
    if "stored" in rows:
        fn = "bigpkg-1.0-py3-none-any.whl"
        sha, _ = mkwheel.big_wheel(os.path.join(root, fn), "bigpkg", "1.0", "py3-none-any", size - 4096, ("bigdep>=1",))
        wheels["stored"] = ("bigpkg", fn, sha)
    if "deflated" in rows or "install" in rows or "hardlink" in rows:
        fn = "torchlike-1.0-py3-none-any.whl"
        sha, _ = mkwheel.torch_wheel(os.path.join(root, fn), "torchlike", "1.0", "py3-none-any", dmb * MB)
        wheels["deflated"] = ("torchlike", fn, sha)
    for kind, (proj, fn, sha) in wheels.items():
        B.page(os.path.join(root, f"{kind}.html"), [(f"{fn}#sha256={sha}", fn, "")])
    srv = B.serve(root, "onepass")
    try:
        for kind in [r for r in rows if r in ("stored", "deflated")]:
            proj, fn, sha = wheels[kind]
            mb = os.path.getsize(os.path.join(root, fn)) / 1e6
            cfile = os.path.join(work, "curl.whl")

            def curl_setup(cfile=cfile):
                B.rm(cfile)
                os.sync()
            cmds = [("curl -o + sync", ["sh", "-c", 'curl -sS --fail -o "$1" "$2" && sync "$1"', "sh", cfile,
                                        f"{srv.base}/{fn}"], dict(os.environ), curl_setup)]
            for i, wp in enumerate(bins):
                d = os.path.join(work, f"wp{i}-{kind}")
                os.makedirs(os.path.join(d, "home"), exist_ok=True)
                env = {**os.environ, "WHEELPICK_CATALOG": os.path.join(d, "catalog.sqlite3"),
                       "WHEELPICK_CACHE_DIR": os.path.join(d, "cache"), "HOME": os.path.join(d, "home")}
                B.run_plain([wp, "update", "--index", f"{srv.base}/{kind}.html"], env)
                dest = os.path.join(d, "dest")

                def setup(dest=dest, cache=env["WHEELPICK_CACHE_DIR"]):
                    B.rm(dest, cache)
                    os.sync()
                label = "wheelpick" if i == 0 else f"wheelpick {i + 1} ({wp})"
                cmds.append((label, [wp, proj] + tgt + ["--index", f"{srv.base}/{kind}.html", "-d", dest], env, setup))
            for hog in hogs:
                compare(f"verified {mb:.0f} MB wheel ({kind} members), sha256 in the page, against curl -o + sync",
                        cmds, rounds, hog)
            if os.environ.get("ONEPASS_PERF"):
                perf(cmds, kind, os.environ["ONEPASS_PERF"])
        if "install" in rows:
            install_row(bins, work, root, wheels["deflated"], rounds, hogs)
        if "hardlink" in rows:
            hardlink_row(bins, work, root, wheels["deflated"], rounds, hogs)
    finally:
        for s in B.servers:
            s.stop()
        B.rm(work, os.path.join(B.WORK, "srv-onepass"))


def perf(cmds, kind, out):
    """ONEPASS_PERF=DIR: one `perf record` of each command (DIR/KIND-N.data) and its report by
    shared object and symbol (DIR/KIND-N.txt): where the CPU goes."""
    os.makedirs(out, exist_ok=True)
    for i, (label, argv, env, setup) in enumerate(cmds):
        setup()
        data = os.path.join(out, f"{kind}-{i}.data")
        subprocess.run(["perf", "record", "-q", "-F", "1999", "-o", data, "--"] + argv, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        with open(os.path.join(out, f"{kind}-{i}.txt"), "w") as f:
            f.write(f"# {label}\n")
            f.flush()
            subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "comm,dso,sym", "--stdio"],
                           stdout=f, stderr=subprocess.DEVNULL)


def install_row(bins, work, root, wheel, rounds, hogs):
    proj, fn, sha = wheel
    whl = os.path.join(root, fn)
    py = B.real_python()
    out = os.path.join(work, "unzip-out")

    def unzip_setup():
        B.rm(out)
        os.sync()
    cmds = [("python3 -m zipfile -e + sync", ["sh", "-c", '"$1" -m zipfile -e "$2" "$3" && sync -f "$3"', "sh", py, whl, out],
             dict(os.environ), unzip_setup)]
    for i, wp in enumerate(bins):
        d = os.path.join(work, f"wpi{i}")
        os.makedirs(os.path.join(d, "home"), exist_ok=True)
        env = {**os.environ, "WHEELPICK_CATALOG": os.path.join(d, "catalog.sqlite3"),
               "WHEELPICK_CACHE_DIR": os.path.join(d, "cache"), "HOME": os.path.join(d, "home")}
        tgt = os.path.join(d, "target")

        def setup(tgt=tgt):
            B.rm(tgt)
            os.makedirs(tgt)
            os.sync()
        label = "wheelpick install --target" + ("" if i == 0 else f" {i + 1} ({wp})")
        cmds.append((label, [wp, "install", whl, "--target", tgt], env, setup))
    for hog in hogs:
        compare(f"install (copy) of the {os.path.getsize(whl) / 1e6:.0f} MB deflated wheel against unzip + sync",
                cmds, rounds, hog)


def hardlink_row(bins, work, root, wheel, rounds, hogs):
    proj, fn, sha = wheel
    whl = os.path.join(root, fn)
    cmds = []
    store = None
    for i, wp in enumerate(bins):
        d = os.path.join(work, f"wph{i}")
        os.makedirs(os.path.join(d, "home"), exist_ok=True)
        env = {**os.environ, "WHEELPICK_CATALOG": os.path.join(d, "catalog.sqlite3"),
               "WHEELPICK_CACHE_DIR": os.path.join(d, "cache"), "HOME": os.path.join(d, "home")}
        tgt = os.path.join(d, "target")
        B.run_plain([wp, "install", whl, "--target", os.path.join(d, "first"), "--link-mode", "hardlink"], env)
        if store is None:
            store = os.path.join(env["WHEELPICK_CACHE_DIR"], "unpacked", sha)
            if not os.path.isdir(store):
                raise SystemExit(f"onepass: no unpacked store at {store}")

        def setup(tgt=tgt):
            B.rm(tgt)
            os.sync()
        label = "wheelpick install --link-mode hardlink" + ("" if i == 0 else f" {i + 1} ({wp})")
        cmds.append((label, [wp, "install", whl, "--target", tgt, "--link-mode", "hardlink"], env, setup))
    out = os.path.join(work, "cp-al")

    def cp_setup():
        B.rm(out)
        os.sync()
    cmds.insert(0, ("cp -al + sync", ["sh", "-c", 'cp -al "$1" "$2" && sync -f "$2"', "sh", store, out], dict(os.environ),
                    cp_setup))
    for hog in hogs:
        compare(f"install --link-mode hardlink of the {os.path.getsize(whl) / 1e6:.0f} MB wheel "
                f"({sum(len(f) for _, _, f in os.walk(store))} files) against cp -al + sync", cmds, rounds, hog)


if __name__ == "__main__":
    main()
