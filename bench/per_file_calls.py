#!/usr/bin/env python3
"""bench/per_file_calls.py: the system calls one downloaded small wheel costs (issue 42 item 1).

usage: per_file_calls.py WHEELPICK [WHEELPICK ...]   (absolute paths; strace must be installed)

For each binary: 16 wheels of 200 KB (bench/mkwheel.py, as compare.py's "tiny" case) into a fresh
store and wheelhouse, fetched in one command from a local server, once with the first wheel only
and once with all 16, under `strace -f`. Per file is (calls with 16 - calls with 1) / 15, so the
run's fixed costs (start, catalog, libraries, the wheelhouse's own files) drop out. Printed per
binary: all calls, failed ones, changes to a folder (a successful mkdir, rename, link, unlink, file
creation, fsetxattr or fchmod), syncs (fsync, fdatasync, syncfs) and threads started.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench as B  # noqa: E402
import mkwheel  # noqa: E402

META = re.compile(r"^\d+ +(mkdir|rename|link|unlink|fsetxattr|fchmod)\(|^\d+ +openat\(.*O_CREAT")
SYNC = re.compile(r"^\d+ +(fsync|fdatasync|syncfs)\(")
THREAD = re.compile(r"^\d+ +clone3?\(")


def count(trace):
    tot = err = meta = syncs = threads = 0
    with open(trace) as f:
        for ln in f:
            if "resumed>" in ln or ln.startswith(("+++", "---")) or " +++ " in ln or " --- " in ln:
                continue
            tot += 1
            failed = "= -1 " in ln
            err += failed
            meta += bool(META.search(ln)) and not failed
            syncs += bool(SYNC.search(ln))
            threads += bool(THREAD.search(ln)) and not failed
    return tot, err, meta, syncs, threads


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    B.rm(B.WORK)
    os.makedirs(B.WORK)
    try:
        root = B.stand_in_root("srvcalls")
        small = []
        for i in range(16):
            fn = f"tiny{i:02d}-1.0-py3-none-any.whl"
            sha, _ = mkwheel.big_wheel(os.path.join(root, fn), f"tiny{i:02d}", "1.0", "py3-none-any",
                                       B.SMALL_SIZE - 4096, seed=200 + i)
            small.append((fn, sha))
        B.page(os.path.join(root, "tiny.html"), [(f"{fn}#sha256={sha}", fn, "") for fn, sha in small])
        srv = B.serve(root, "calls")
        tgt = ["--cuda", "cpu", "--python", "3.8", "--platform", "linux_x86_64", "--no-deps", "-q"]
        B.emit(f"| binary | calls per file | failed | folder changes | syncs | threads |")
        B.emit("|---|---|---|---|---|---|")
        for k, wp in enumerate(sys.argv[1:]):
            d, env = B.wp_env(f"calls{k}")
            B.run_plain([wp, "update", "--index", f"{srv.base}/tiny.html"], env)
            got = {}
            for n in (1, 16):
                B.rm(os.path.join(d, "dest"), os.path.join(env["WHEELPICK_CACHE_DIR"], "files"))
                trace = os.path.join(d, f"trace{n}")
                pkgs = [fn.split("-")[0] for fn, _ in small[:n]]
                B.run_plain(["strace", "-f", "-qq", "-o", trace, wp] + pkgs + tgt +
                            ["--index", f"{srv.base}/tiny.html", "-d", os.path.join(d, "dest")], env)
                got[n] = count(trace)
            per = [(b - a) / 15 for a, b in zip(got[1], got[16])]
            B.emit(f"| `{wp}` | " + " | ".join(f"{x:.1f}" for x in per) + " |")
    finally:
        for s in B.servers:
            s.stop()
        B.rm(B.WORK)


if __name__ == "__main__":
    main()
