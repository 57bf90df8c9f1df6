#!/usr/bin/env python3
"""bench/read_once.py: issue 42 item 4's rows, two binaries alternated: the warm solve of a dependency
web (bench/solve_scale.py's) and a warm pick over a catalog of 10 sources holding 1,000 copies of the
2021 page, each with wall, CPU and the syscalls strace counts.

usage: read_once.py OLD [NEW]      (OLD makes the catalogs, each binary reads a copy; bench.py case 13
                                   runs it with one)

READ_ONCE_PROJECTS (default 10000): the web's size; READ_ONCE_COPIES (default 100): copies of the page
per source (10 sources; source j holds copies COPIES*j .. COPIES*j+COPIES-1, bench.py scale_page's
scheme, so the first --index holds the oldest releases: the case where a pick used to read the other
sources' rows and skip them); READ_ONCE_ROUNDS (default 5); READ_ONCE_HOG=1: a CPU hog on the other
core throughout; READ_ONCE_HOG=both: each row at the load found, then with the hog (one setup).
Prints markdown (bench/alternate.py's tables) and the strace counts.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench  # noqa: E402  (PAGE2021)
import solve_scale  # noqa: E402  (serve, TARGET)

HOG_BOTH = os.environ.get("READ_ONCE_HOG") == "both"   # then each heading says which mode it is


def sources_pages(work, copies):
    """10 pages; page j = copies copies*j .. copies*j+copies-1 of the 2021 page (bench.py scale_page)."""
    ver = re.compile(r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$")
    with open(bench.PAGE2021) as f:
        hrefs = re.findall(r'href="([^"]*)"', f.read())
    urls = []
    for j in range(10):
        d = os.path.join(work, f"s{j}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "page.html"), "w") as f:
            for k in range(copies * j, copies * j + copies):
                for h in hrefs:
                    folder, _, fn = h.rpartition("/")
                    name, v, rest = fn.split("-", 2)
                    if k:
                        m = ver.match(v)
                        v = f"{m.group(1)}.{m.group(2) or 0}.{int(m.group(3) or 0) + 100 * k}{m.group(4)}"
                    h2 = (folder + "/" if folder else "") + f"{name}-{v}-{rest}"
                    f.write(f'<a href="{h2}">{h2}</a><br>\n')
        urls.append("file://" + os.path.join(d, "page.html"))
    return urls


def strace_counts(argv, env, out):
    """strace -c's counts of the calls a read transaction makes ({} without strace)."""
    if not shutil.which("strace"):
        return {}
    subprocess.run(["strace", "-c", "-f", "-o", out] + argv, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    calls = {}
    for line in open(out):
        f = line.split()
        if len(f) >= 5 and f[-1] in ("fcntl", "newfstatat", "pread64", "total"):
            calls[f[-1]] = int(f[3])
    return calls


def compare(label, runs, work, rounds, hog):
    """runs: (tag, argv, env) per binary, alternated by bench/alternate.py, then counted by strace."""
    def sh(argv, env):
        return " ".join(f"{k}={v}" for k, v in env.items() if k.startswith("WHEELPICK")) + " " + " ".join(argv)
    print(f"### {label}" + ("; CPU hog on the other core: " + ("yes" if hog else "no") if HOG_BOTH else ""))
    print()
    sys.stdout.flush()
    args = [sys.executable, os.path.join(HERE, "alternate.py"), "--rounds", str(rounds)] + (["--hog"] if hog else [])
    subprocess.run(args + [f"{tag}=env {sh(argv, env)}" for tag, argv, env in runs], check=True)
    print()
    for tag, argv, env in runs:
        c = strace_counts(argv, {**os.environ, **env}, os.path.join(work, f"strace-{tag}.txt"))
        print(f"- {tag}, `strace -c -f`: {c.get('fcntl', 0):,} fcntl, {c.get('newfstatat', 0):,} newfstatat, "
              f"{c.get('pread64', 0):,} pread64, {c.get('total', 0):,} calls in all")
    print()


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    bins = [os.path.abspath(a) for a in sys.argv[1:]]
    tags = ["old", "new"] if len(bins) == 2 else ["wheelpick"]
    old = bins[0]
    n = int(os.environ.get("READ_ONCE_PROJECTS", "10000"))
    copies = int(os.environ.get("READ_ONCE_COPIES", "100"))
    rounds = int(os.environ.get("READ_ONCE_ROUNDS", "5"))
    hogs = {"1": [True], "both": [False, True]}.get(os.environ.get("READ_ONCE_HOG", "0"), [False])
    work = tempfile.mkdtemp(prefix="readonce-", dir=os.environ.get("BENCH_WORK"))
    try:
        # the warm solve
        web = os.path.join(work, "web")
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fixtures", "mkweb.py"), web, str(n)], check=True)
        srv, base = solve_scale.serve(web, os.path.join(work, "server.log"))
        try:
            cache = os.path.join(work, "cache")
            cold = os.path.join(work, "solve.db")
            pick = ["pick", "p0", "--index", base + "/index.html", *solve_scale.TARGET, "--dry-run", "--json"]
            subprocess.run([old] + pick, env={**os.environ, "WHEELPICK_CATALOG": cold, "WHEELPICK_CACHE_DIR": cache},
                           stdout=subprocess.DEVNULL, check=True)
            runs = []
            for tag, wp in zip(tags, bins):
                shutil.copy(cold, os.path.join(work, f"solve-{tag}.db"))
                runs.append((tag, [wp] + pick,
                             {"WHEELPICK_CATALOG": os.path.join(work, f"solve-{tag}.db"), "WHEELPICK_CACHE_DIR": cache}))
            for hog in hogs:
                compare(f"warm solve, {n:,} projects", runs, work, rounds, hog)
        finally:
            srv.terminate()
            srv.wait()
        # the warm pick over 10 sources
        urls = sources_pages(os.path.join(work, "pages"), copies)
        cat = os.path.join(work, "pick.db")
        for u in urls:
            subprocess.run([old, "--catalog", cat, "update", "--index", u], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
        subprocess.run(["sqlite3", cat, "PRAGMA wal_checkpoint(TRUNCATE)"], stdout=subprocess.DEVNULL, check=True)
        runs = []
        for tag, wp in zip(tags, bins):
            c = os.path.join(work, f"pick-{tag}.db")
            shutil.copy(cat, c)
            runs.append((tag, [wp, "--catalog", c, "torch", "--cuda", "11.1", "--python", "3.8", "--platform",
                               "linux_x86_64", "--dry-run", "--no-deps"] + [x for u in urls for x in ("--index", u)], {}))
        for hog in hogs:
            compare(f"warm pick, 10 sources x {copies} copies of the 2021 page", runs, work, max(rounds, 9), hog)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
