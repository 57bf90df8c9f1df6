#!/usr/bin/env python3
"""bench/bigpage.py: an index page past the old 64 MiB ceiling (issue 42 item 6) crawled over
loopback, against curl piped into Python's json.load of the same page (or, BIGPAGE_KIND=html, an
HTML links page, crawled over loopback and as a local file:// page, against curl piped into Python's
html.parser); wall, CPU and peak RSS, alternated, at the load found and (BIGPAGE_HOG=1) with a CPU
hog on the other core.

usage: bigpage.py WHEELPICK [WHEELPICK2 ...]     (absolute paths; more binaries: old against new)

The page: PEP 691 JSON, BIGPAGE_FILES files (default 20,000), each entry padded to ~4 KB by a key
readers ignore (~84 MB), served by a thread of this script (http.server) as
application/vnd.pypi.simple.v1+json. Every round runs each command once, in an order that rotates
round by round, each crawl into a fresh catalog (removed before, untimed). Wall by the clock, CPU
(user+sys) by wait4 (the server's is this script's, not counted), peak RSS by /usr/bin/time. A
binary that refuses the page (exit 3: the old 64 MiB ceiling) is shown with its exit status.
BIGPAGE_ROUNDS (default 3). The HTML page: the same files as <a href> lines, each padded to ~4 KB
by a data-* attribute (~83.5 MB), the fast scanner's; BIGPAGE_ENTITY=1 adds an entity to each
(data-requires-python="&gt;=3.8"), which leaves the page to libxml2.
"""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def make_page(path, n):
    pad = "p" * 4000
    with open(path, "w") as f:
        f.write('{"meta": {"api-version": "1.1"}, "name": "bigproj", "files": [\n')
        for i in range(n):
            fn = f"bigproj-1.{i}-py3-none-any.whl"
            e = {"filename": fn, "url": f"../../files/{fn}", "hashes": {"sha256": "%064x" % i}, "x-pad": pad}
            f.write(("," if i else "") + json.dumps(e) + "\n")
        f.write("]}\n")


def make_html(path, n, entity):
    pad = "p" * 4000
    rp = 'data-requires-python="&gt;=3.8" ' if entity else ""
    with open(path, "w") as f:
        f.write("<!DOCTYPE html><html><body>\n")
        for i in range(n):
            fn = f"bigproj-1.{i}-py3-none-any.whl"
            f.write(f'<a href="files/{fn}#sha256={"%064x" % i}" {rp}data-pad="{pad}">{fn}</a><br/>\n')
        f.write("</body></html>\n")


def serve(root, ctype):
    class H(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=root, **kw)

        def guess_type(self, path):
            return ctype

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    srv.handle_error = lambda *a: None  # a binary that refuses the page hangs up mid-body
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def run(argv, tpath):
    full = ([TIME, "-f", "%M", "-o", tpath] if TIME else []) + argv
    t = time.perf_counter()
    p = subprocess.Popen(full, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    rss = 0
    if TIME:
        with open(tpath) as f:
            rss = int(f.read().split()[-1])
    return wall, ru.ru_utime + ru.ru_stime, rss, os.waitstatus_to_exitcode(status)


def med(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def fmt(s):
    return f"{s * 1e3:.0f} ms" if s < 1 else f"{s:.2f} s"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rounds = int(os.environ.get("BIGPAGE_ROUNDS", "3"))
    hog = os.environ.get("BIGPAGE_HOG") == "1"
    work = tempfile.mkdtemp(prefix="bigpage-")
    html = os.environ.get("BIGPAGE_KIND", "json") == "html"
    entity = os.environ.get("BIGPAGE_ENTITY") == "1"
    nfiles = int(os.environ.get("BIGPAGE_FILES", "20000"))
    page = os.path.join(work, "bigproj.html" if html else "bigproj.json")
    if html:
        make_html(page, nfiles, entity)
    else:
        make_page(page, nfiles)
    size = os.path.getsize(page)
    srv = serve(work, "text/html" if html else "application/vnd.pypi.simple.v1+json")
    url = f"http://127.0.0.1:{srv.server_address[1]}/{os.path.basename(page)}"
    db, tpath = os.path.join(work, "c.db"), os.path.join(work, "time")
    urls = [("URL", url)] + ([("file://PATH", "file://" + page)] if html else [])
    cmds = [(f"wheelpick{i + 1 if len(sys.argv) > 2 else ''} update --index {un}",
             [b, "--catalog", db, "-q", "update", "--index", u], True)
            for un, u in urls for i, b in enumerate(sys.argv[1:])]
    if html:
        peer = ("import sys, html.parser\n"
                "class P(html.parser.HTMLParser):\n"
                "    n = 0\n"
                "    def handle_starttag(self, tag, attrs):\n"
                "        if tag == 'a': self.n += 1; dict(attrs).get('href')\n"
                "p = P(); p.feed(sys.stdin.read()); p.close()")
        cmds.append(("curl URL, piped to python3 html.parser",
                     ["sh", "-c", f"curl -sS --fail {url} | python3 -c \"{peer}\""], False))
    else:
        cmds.append(("curl URL, piped to python3 json.load",
                     ["sh", "-c", f"curl -sS --fail {url} | python3 -c 'import json,sys; json.load(sys.stdin)'"],
                     False))
    h = subprocess.Popen(["sh", "-c", "while :; do :; done"]) if hog else None
    load0 = os.getloadavg()
    res = {c[0]: [] for c in cmds}
    try:
        for r in range(rounds):
            k = r % len(cmds)
            for label, argv, fresh in cmds[k:] + cmds[:k]:
                if fresh:
                    for suffix in ("", "-wal", "-shm", "-journal"):
                        if os.path.exists(db + suffix):
                            os.unlink(db + suffix)
                res[label].append(run(argv, tpath))
    finally:
        if h:
            h.kill()
            h.wait()
        srv.shutdown()
    load1 = os.getloadavg()
    what = ("HTML (libxml2's: an entity in each link)" if entity else "HTML (the fast scanner's)") if html \
        else "PEP 691 JSON"
    print(f"an index page past 64 MiB: {size / 1e6:.1f} MB of {what} over loopback, {rounds} alternated rounds"
          f"{', CPU hog on the other core' if hog else ''}; load {load0[0]:.1f} -> {load1[0]:.1f} (2 CPUs, shared)")
    print()
    print("| command | wall: median (min) | CPU user+sys: median (min) | peak RSS (max) | exit | wall / curl+json.load's "
          "| CPU / curl+json.load's |".replace("json.load", "html.parser" if html else "json.load"))
    print("|---|---|---|---|---|---|---|")
    peer = res[cmds[-1][0]]
    pw, pc = med([x[0] for x in peer]), med([x[1] for x in peer])
    for label, _, _ in cmds:
        xs = res[label]
        w, c = med([x[0] for x in xs]), med([x[1] for x in xs])
        rss = f"{max(x[2] for x in xs) / 1024:.0f} MB" if TIME else "?"
        codes = ",".join(sorted({str(x[3]) for x in xs}))
        print(f"| {label} | {fmt(w)} ({fmt(min(x[0] for x in xs))}) | {fmt(c)} ({fmt(min(x[1] for x in xs))}) | {rss} "
              f"| {codes} | {w / pw:.2f}x | {c / pc:.2f}x |")


if __name__ == "__main__":
    main()
