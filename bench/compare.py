#!/usr/bin/env python3
"""bench/compare.py: two wheelpick binaries side by side on the paths issue 17 changed.

usage: compare.py OLD NEW   (absolute paths; build each with make BUILD=... OPTFLAGS="-O2 -DNDEBUG")

Runs, alternating OLD and NEW run by run with bench.py's harness (same servers, same timing):
a valid 256 MB wheel fetched with its sha256 in the page (and curl + sync as the floor), a 50 MB
wheel deflated like torch's fetched the same way (and bench/floor.c as the floor; "deflated") and
checked by `verify` ("verify"), 16 x
200 KB wheels in one command (and serial curl), the real 2021 page crawled into a fresh catalog,
300,000 conda records (plain, sorted) into a fresh catalog, and bench.py case 7's picks over 100
copies of the 2021 page (CMP_CASES=mid,deflated,verify,tiny,crawl,conda,scale picks some; scale is not in the
default set: its catalogs take a minute to crawl). Prints markdown tables, one per mode of BENCH_HOG
(0: at the load found, the default; 1: with a CPU hog on the other core; both), each with the
per-round new / old ratios of wall and CPU; inputs
live under build-bench/bench-work/ (removed at the end) and build-bench/bench-data/ (kept).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench as B  # noqa: E402
import mkwheel  # noqa: E402


CASES = set(os.environ.get("CMP_CASES", "mid,tiny,crawl,conda").split(","))


def report(cmds, title, pairs, extras):
    """One table per mode of BENCH_HOG that measure() ran (at the load found, with the CPU hog),
    each followed by the per-round new / old ratios of every (old, new) pair: the rounds alternate,
    so round i of each pairs up, and the spread of those ratios is the table's noise."""
    for mode in B.modes(cmds):
        B.emit(f"{title} ({B.MODE_TEXT[mode]})" if len(B.MODES) > 1 else title)
        B.emit()
        B.table(cmds, extras() if callable(extras) else extras)
        for o, n in pairs:
            cells = []
            for k in ("wall", "cpu"):
                rs = sorted(b[k] / max(a[k], 1e-9) for a, b in zip(o.samples, n.samples))
                cells.append(f"{k} {B.statistics.median(rs):.3f}x ({rs[0]:.3f}–{rs[-1]:.3f})")
                cells[-1] += f", medians {B.med(n, k) / B.med(o, k):.3f}x"
            B.emit(f"new / old per round, median (min–max): {n.label}: {'; '.join(cells)}")
        B.emit()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old, new = (os.path.abspath(a) for a in sys.argv[1:])
    B.rm(B.WORK)
    os.makedirs(B.WORK)
    B.legend.update({"OLD": old, "NEW": new, "T": B.WORK, "SHARED": B.SHARED})
    B.emit(f"# old against new; load average at start {B.loadavg()}")
    B.emit()
    try:
        root = B.stand_in_root("srvcmp")
        mid_fn = "midpkg-1.0-py3-none-any.whl"
        mid_sha, _ = mkwheel.big_wheel(os.path.join(root, mid_fn), "midpkg", "1.0", "py3-none-any", B.MID - 4096, seed=4)
        B.page(os.path.join(root, "mid.html"), [(f"{mid_fn}#sha256={mid_sha}", mid_fn, "")])
        small = []
        for i in range(16):
            fn = f"tiny{i:02d}-1.0-py3-none-any.whl"
            sha, _ = mkwheel.big_wheel(os.path.join(root, fn), f"tiny{i:02d}", "1.0", "py3-none-any",
                                       B.SMALL_SIZE - 4096, seed=200 + i)
            small.append((fn, sha))
        B.page(os.path.join(root, "tiny.html"), [(f"{fn}#sha256={sha}", fn, "") for fn, sha in small])
        srv = B.serve(root, "cmp")
        B.legend["SRV"] = srv.base
        tgt = ["--cuda", "cpu", "--python", "3.8", "--platform", "linux_x86_64", "--no-deps"]

        def fetch_cmds(label, pkgs, pg):
            out = []
            for tag, wp in (("old", old), ("new", new)):
                d, env = B.wp_env(f"{tag}-{pg}")
                dest = os.path.join(d, "dest")
                B.run_plain([wp, "update", "--index", f"{srv.base}/{pg}"], env)
                out.append(B.Cmd(f"{tag}: {label}", [wp] + pkgs + tgt + ["--index", f"{srv.base}/{pg}", "-d", dest], env,
                                 B.synced(lambda dest=dest, env=env: B.rm(dest, env["WHEELPICK_CACHE_DIR"]))))
            return out

        cmid = os.path.join(B.WORK, "curl-mid.whl")
        curl_mid = B.Cmd(f"curl, {B.MID // B.MB} MB, then sync FILE (floor)",
                         ["sh", "-c", 'curl -sS --fail -o "$1" "$2" && sync "$1"', "sh", cmid, f"{srv.base}/{mid_fn}"],
                         setup=B.synced(lambda: B.rm(cmid)))
        mids = fetch_cmds(f"valid {B.MID // B.MB} MB wheel, sha256 in the page", ["midpkg"], "mid.html")
        if "mid" in CASES:
            B.measure(mids + [curl_mid], runs=5, warmup=1)
            report(mids + [curl_mid], f"## One valid {B.MID // B.MB} MB wheel", [mids],
                   lambda: {mids[1].label: f"{B.ratio(mids[0], mids[1]):.2f}x old; "
                                           f"{B.ratio(curl_mid, mids[1]):.2f}x curl+sync"})
            B.commands(mids + [curl_mid])

        # issue 29: a 50 MB wheel deflated and shaped like torch's (bench/mkwheel.py torch_wheel),
        # fetched with its sha256 in the page; bench/floor.c beside it; and `verify` of that file
        if CASES & {"deflated", "verify"}:
            dfn = "torchlike-1.0-cp38-cp38-linux_x86_64.whl"
            dpath = os.path.join(root, dfn)
            dsha, _ = mkwheel.torch_wheel(dpath, "torchlike", "1.0", "cp38-cp38-linux_x86_64", 10 * B.MB if B.QUICK
                                          else 50 * B.MB)
            B.page(os.path.join(root, "deflated.html"), [(f"{dfn}#sha256={dsha}", dfn, "")])
        if "deflated" in CASES:
            defl = fetch_cmds("the 50 MB deflated wheel, sha256 in the page", ["torchlike"], "deflated.html")
            fdest = os.path.join(B.WORK, "floor-defl.whl")
            floor = B.Cmd("floor: bench/floor.c (GET, streamed sha256, members inflated and hashed on every core, fsync)",
                          [B.floor_bin(), f"{srv.base}/{dfn}", fdest], setup=B.synced(lambda: B.rm(fdest)))
            B.measure(defl + [floor], runs=7, warmup=1)
            report(defl + [floor], "## One valid 50 MB wheel deflated like torch's (1,629 members, 138 MB inflated)",
                   [defl], lambda: {defl[1].label: f"{B.ratio(defl[0], defl[1]):.2f}x old; "
                                                   f"{B.med(defl[1], 'wall') / B.med(floor, 'wall'):.2f}x the floor",
                                    defl[0].label: f"{B.med(defl[0], 'wall') / B.med(floor, 'wall'):.2f}x the floor"})
            B.commands(defl + [floor])
        if "verify" in CASES:
            vers = [B.Cmd(f"{tag}: verify, the 50 MB deflated wheel", [wp, "verify", dpath]) for tag, wp in
                    (("old", old), ("new", new))]
            B.measure(vers, runs=7, warmup=1)
            report(vers, "## wheelpick verify of the 50 MB deflated wheel (page cache)", [vers],
                   lambda: {vers[1].label: f"{B.ratio(vers[0], vers[1]):.2f}x old"})
            B.commands(vers)

        cdir = os.path.join(B.WORK, "curl-tiny")
        curl_seq = B.Cmd("curl, the same 16 one after another in one process",
                         ["curl", "-sS", "--fail"] + sum((["-o", os.path.join(cdir, fn), f"{srv.base}/{fn}"]
                                                          for fn, _ in small), []),
                         setup=lambda: (B.rm(cdir), os.makedirs(cdir)))
        tinies = fetch_cmds("16 x 200 KB in one command", [fn.split("-")[0] for fn, _ in small], "tiny.html")
        if "tiny" in CASES:
            B.measure(tinies + [curl_seq], runs=7, warmup=1)
            report(tinies + [curl_seq], "## 16 x 200 KB, loopback", [tinies],
                   lambda: {tinies[1].label: f"{B.ratio(tinies[0], tinies[1]):.2f}x old; "
                                             f"{B.ratio(curl_seq, tinies[1]):.2f}x serial curl"})
            B.commands(tinies + [curl_seq])

        crawls = []
        for tag, wp in (("old", old), ("new", new)):
            d, env = B.wp_env(f"crawl-{tag}")
            crawls.append(B.Cmd(f"{tag}: update, the 2021 page into a fresh catalog",
                                [wp, "update", "--index", "file://" + B.PAGE2021], env,
                                lambda env=env: B.rm(env["WHEELPICK_CATALOG"], env["WHEELPICK_CACHE_DIR"])))
        if "crawl" in CASES:
            B.measure(crawls, runs=15, warmup=2)
            report(crawls, "## Crawl of the real 2021 page (1,498 links), fresh catalog", [crawls],
                   lambda: {crawls[1].label: f"{B.ratio(crawls[0], crawls[1]):.2f}x old"})
            B.commands(crawls)

        js = os.path.join(B.DATA, f"repodata-{B.REPODATA_RECORDS}-sorted.json")
        if os.path.exists(js) and "conda" in CASES:
            ch = os.path.join(B.WORK, "ch", "linux-64")
            os.makedirs(ch)
            os.symlink(js, os.path.join(ch, "repodata.json"))
            condas = []
            for tag, wp in (("old", old), ("new", new)):
                d, env = B.wp_env(f"conda-{tag}")
                condas.append(B.Cmd(f"{tag}: update --conda, {B.REPODATA_RECORDS:,} records, plain",
                                    [wp, "update", "--conda", "--index", f"file://{ch}/repodata.json"], env,
                                    B.synced(lambda env=env: B.rm(env["WHEELPICK_CATALOG"], env["WHEELPICK_CACHE_DIR"]))))
            B.measure(condas, runs=3, warmup=0)
            size = os.path.getsize(js)
            report(condas, "## Conda repodata, plain, sorted, fresh catalog", [condas],
                   lambda: {c.label: f"{size / 1e6 / B.med(c, 'wall'):.1f} MB/s" for c in condas})
            B.commands(condas)
        if "scale" in CASES:
            olds, news = B.scale_cmds(old, "old"), B.scale_cmds(new, "new")
            both = [c for pair in zip(olds, news) for c in pair]
            B.measure(both, runs=9, warmup=1)

            def extras():
                out = {n.label: f"{B.ratio(o, n):.2f}x old" for o, n in zip(olds, news)}
                for tag, cs in (("old", olds), ("new", news)):
                    out[cs[2].label] = (out.get(cs[2].label, "") + f"; {B.ratio(cs[3], cs[2]) ** -1:.2f}x its 1 target").lstrip("; ")
                return out
            report(both, f"## Pick at scale: {B.SCALE_COPIES}x the 2021 page, warm catalog", list(zip(olds, news)), extras)
            B.commands(both)
        B.emit("```sh")
        for k, v in B.legend.items():
            B.emit(f"{k}={v}")
        B.emit("```")
        B.emit(f"_load average at the end: {B.loadavg()}_")
    finally:
        for s in B.servers:
            s.stop()
        B.rm(B.WORK)


if __name__ == "__main__":
    main()
