#!/usr/bin/env python3
"""bench/onegb.py BINARY: the 1 GB table of bench case 4 again, with a third row that separates
its candidates for the slow row (BENCHMARKS.md): the sha256 in the page, the catalog shared with
the non-zip file that fails verification (exit 4), and the rows' order. 3 alternating runs each;
inputs under build-bench/bench-work/ (removed at the end)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench as B  # noqa: E402
import mkwheel  # noqa: E402

if len(sys.argv) != 2:
    sys.exit(__doc__)
WP = os.path.abspath(sys.argv[1])
B.rm(B.WORK)
os.makedirs(B.WORK)
root = B.stand_in_root("srv1g")
big_fn = "bigpkg-1.0-py3-none-any.whl"
big_sha, _ = mkwheel.big_wheel(os.path.join(root, big_fn), "bigpkg", "1.0", "py3-none-any", B.BIG - 4096, ("bigdep>=1",))
blob_fn = "blobpkg-1.0-py3-none-any.whl"
blob_sha, _ = mkwheel.random_file(os.path.join(root, blob_fn), B.BIG)
B.page(os.path.join(root, "big.html"), [(big_fn, big_fn, ""), (blob_fn, blob_fn, "")])
B.page(os.path.join(root, "big-sha.html"), [(f"{big_fn}#sha256={big_sha}", big_fn, ""), (f"{blob_fn}#sha256={blob_sha}", blob_fn, "")])
B.page(os.path.join(root, "big-sha-only.html"), [(f"{big_fn}#sha256={big_sha}", big_fn, "")])
srv = B.serve(root, "big")
tgt = ["--cuda", "cpu", "--python", "3.8", "--platform", "linux_x86_64", "--no-deps"]
cmds = []
envs = {}
for name, pg in (("nosha", "big.html"), ("sha", "big-sha.html"), ("shaonly", "big-sha-only.html")):
    d, e = B.wp_env("v-" + name)
    envs[name] = (d, e, pg)
    B.run_plain([WP, "update", "--index", f"{srv.base}/{pg}"], e)
def mk(label, name, pkg="bigpkg", expect=0):
    d, e, pg = envs[name]
    dest = os.path.join(d, "dest")
    return B.Cmd(label, [WP, pkg] + tgt + ["--index", f"{srv.base}/{pg}", "-d", dest], e,
                 B.synced(lambda: B.rm(dest, e["WHEELPICK_CACHE_DIR"])), expect=expect)
wsha = mk("sha256 in the page (catalog shared with the failing non-zip)", "sha")
wnosha = mk("no sha256 in the page", "nosha")
wonly = mk("sha256 in the page, its own catalog, no non-zip run", "shaonly")
wblob = mk("the 1 GB non-zip (exit 4), catalog of the first row", "sha", "blobpkg", 4)
B.measure([wsha, wnosha, wonly, wblob], runs=3, warmup=1)
B.table([wsha, wnosha, wonly, wblob], {})
for s in B.servers:
    s.stop()
B.rm(B.WORK)
