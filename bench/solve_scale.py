#!/usr/bin/env python3
"""bench/solve_scale.py: the solver at 1,000 and 10,000 projects (issue 24), against pip's resolver.

usage: solve_scale.py /abs/path/to/wheelpick [PYTHON]     (bench.py runs it as case 9)

A dependency web (tests/fixtures/mkweb.py: N projects, three versions each, a binary tree of
Requires-Dist, and upper bounds on every tenth project that force a solver back a version) is
served as one find-links page with PEP 658 metadata on 127.0.0.1 (bench/server.py). Measured:
  - wheelpick cold: a fresh catalog, the page crawled, every metadata file fetched, resolved;
  - wheelpick warm: the same command again (catalog and metadata from the first run);
  - pip: `pip install --dry-run --ignore-installed --report` on the same page (1,000 only: at
    10,000 it would take longer than the whole bench).
Every plan is checked against the web's rules (each pick's Requires-Dist holds among the picks,
all N projects are there); a wrong answer is printed as such, never timed as a success.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PIP_ENV = {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1", "PIP_CONFIG_FILE": "/dev/null"}
TARGET = ["--cuda", "cpu", "--python", "3.12", "--platform", "manylinux_2_28_x86_64"]


def serve(root, log):
    port_file = os.path.join(root, ".port")
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "server.py"), "--root", root, "--port-file", port_file,
                             "--log", log, "--max-seconds", "3600"])
    for _ in range(200):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return proc, f"http://127.0.0.1:{open(port_file).read().strip()}"
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("bench: the server did not start")


def rules_ok(n, picks):
    """picks: {project: version}. The web's own rules, as mkweb.py writes them."""
    if len(picks) != n or any(f"p{k}" not in picks for k in range(n)):
        return f"{len(picks)} projects picked, wanted {n}"
    for k in range(n):
        v = int(float(picks[f"p{k}"]))
        if v == 3 and k % 10 == 5 and int(float(picks[f"p{k - 1}"])) >= 3:
            return f"p{k} 3.0 needs p{k - 1}<3, but p{k - 1} {picks[f'p{k - 1}']} was picked"
    return "ok"


def timed(argv, env=None):
    t = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, **(env or {})})
    return time.perf_counter() - t, p


def wheelpick(WP, url, catalog, cache):
    env = {"WHEELPICK_CATALOG": catalog, "WHEELPICK_CACHE_DIR": cache}
    secs, p = timed([WP, "pick", "p0", "--index", url, *TARGET, "--dry-run", "--json"], env)
    if p.returncode:
        return secs, f"exit {p.returncode}: {p.stderr.strip()[:200]}", None
    picks = {x["project"]: x["version"] for x in json.loads(p.stdout)["picks"]}
    return secs, None, picks


def pip(PY, url, work):
    report = os.path.join(work, "pip-report.json")
    secs, p = timed([PY, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--report", report,
                     "--no-index", "--find-links", url, "p0"], PIP_ENV)
    if p.returncode:
        return secs, f"exit {p.returncode}: {p.stderr.strip()[-300:]}", None
    picks = {x["metadata"]["name"]: x["metadata"]["version"] for x in json.load(open(report))["install"]}
    return secs, None, picks


def run(WP, PY, emit, sizes=(1000, 10000), runs=3, pip_max=1000):
    for n in sizes:
        work = tempfile.mkdtemp(prefix=f"solve{n}-", dir=os.environ.get("BENCH_WORK"))
        try:
            web = os.path.join(work, "web")
            subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fixtures", "mkweb.py"), web, str(n)], check=True)
            srv, base = serve(web, os.path.join(work, "server.log"))
            url = base + "/index.html"
            try:
                rows = []
                cold, warm = [], []
                answer = "ok"
                for r in range(runs):
                    cat, cache = os.path.join(work, f"c{r}.db"), os.path.join(work, f"cache{r}")
                    s, bad, picks = wheelpick(WP, url, cat, cache)
                    answer = bad or rules_ok(n, picks)
                    cold.append(s)
                    s, bad, picks = wheelpick(WP, url, cat, cache)
                    answer = answer if answer != "ok" else (bad or rules_ok(n, picks))
                    warm.append(s)
                rows.append((f"wheelpick cold ({runs} runs, median)", sorted(cold)[len(cold) // 2], answer))
                rows.append((f"wheelpick warm ({runs} runs, median)", sorted(warm)[len(warm) // 2], answer))
                if n <= pip_max:
                    s, bad, picks = pip(PY, url, work)
                    rows.append(("pip install --dry-run --report (1 run)", s, bad or rules_ok(n, picks)))
                emit(f"#### {n:,} projects ({3 * n:,} wheels, one find-links page with PEP 658 metadata)")
                emit()
                emit("| command | wall | answer |")
                emit("|---|---|---|")
                for label, s, ans in rows:
                    emit(f"| {label} | {s:.2f} s | {ans} |")
                if n <= pip_max and rows[-1][2] == "ok":
                    emit()
                    emit(f"pip / wheelpick cold: {rows[-1][1] / rows[0][1]:.1f}x (goal at 1,000: >= 50x)")
                emit()
            finally:
                srv.terminate()
                srv.wait()
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sizes = tuple(int(x) for x in os.environ.get("SOLVE_SIZES", "1000,10000").split(","))
    run(os.path.abspath(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else sys.executable, print, sizes=sizes,
        runs=int(os.environ.get("BENCH_RUNS", "3")))
