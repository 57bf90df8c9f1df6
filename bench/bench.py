#!/usr/bin/env python3
"""bench/bench.py: the benchmark harness behind `make bench` (bench/run.sh calls it).

usage: bench.py /abs/path/to/wheelpick

Prepares inputs (the real index pages are read from ../shared/data, never copied; synthetic
indexes, wheels and repodata are generated under build-bench/), runs each case several times after
a warm-up, and writes build-bench/results.md: median and min/max of wall time, CPU time (user+sys)
and peak RSS of each command, and against each command's peer the wall and CPU ratios (the median
of the per-round ratios, the commands alternated round by round), each table at the load found and
then with a CPU hog on the other core (BENCH_HOG); at the top, a summary of every row against its
goal in both modes. Nothing fails on speed: the bench reports.

Times come from os.wait4() on the child (wall: time.perf_counter() around fork/exec and wait; CPU
and peak RSS: the child's rusage), not /usr/bin/time, whose %e has a resolution of 10 ms, too
coarse for the few-millisecond cases.

Environment:
  BENCH_QUICK=1      a ~1-minute smoke run: small inputs, one measured run per case
  BENCH_CASES=1,3    run only these cases (1-14; 10 needs ceph-mon, ceph-osd and radosgw: make deps)
  BENCH_RUNS=N       measured runs per command (default 5; quick 1)
  BENCH_HOG=both     every table's rounds at the load found, then again with a CPU hog on the other
                     core (bench/hog.py), the default; 0: at the load found only; 1: with the hog only
  WP_SHARED_DATA     the shared data folder (default ../shared/data next to the repo)
"""
import hashlib
import os
import platform
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import hog as hog_  # noqa: E402  (the one CPU hog)
import mkwheel  # noqa: E402

QUICK = os.environ.get("BENCH_QUICK") == "1"
RUNS = int(os.environ.get("BENCH_RUNS", "1" if QUICK else "5"))
CASES = {c.strip() for c in os.environ.get("BENCH_CASES", "1,2,3,4,5,6,7,8,9,10,11,12,13,14").split(",") if c.strip()}
# BENCH_HOG: "both" by default for `make bench` (main() below); the scripts that import this module
# for its helpers (compare.py, onepass.py) measure at the load found unless BENCH_HOG says otherwise
HOG = os.environ.get("BENCH_HOG", "")
if HOG not in ("", "0", "1", "both"):
    sys.exit(f"bench: BENCH_HOG={HOG!r}: say 0, 1 or both")
MODES = {"": ["found"], "0": ["found"], "1": ["hog"], "both": ["found", "hog"]}[HOG]   # "found": at the load found
MODE_TEXT = {"found": "at the load found", "hog": "with a CPU hog on the other core"}


def heavy(n):
    """Rounds per mode for the tables whose commands take seconds to minutes (a fresh venv, a Ceph
    bucket, an emulated WAN): n with one mode, n - 1 (at least 1) with both, so that a run of both
    modes stays within run.sh's 40 minutes."""
    return n if len(MODES) == 1 else max(1, n - 1)


SHARED = os.path.abspath(os.environ.get("WP_SHARED_DATA", os.path.join(ROOT, "..", "shared", "data")))
PAGE2021 = os.path.join(SHARED, "pytorch_index", "torch_stable_2021-03-12.html")
PAGE2023 = os.path.join(SHARED, "pytorch_index", "whl_simple_2023-10-13", "torch", "index.html")
BUILD = os.path.join(ROOT, "build-bench")
DATA = os.path.join(BUILD, "bench-data")      # generated once, kept (repodata: ~250 MB, ~40 MB zst)
WORK = os.path.join(BUILD, "bench-work")      # per run, removed at the end (big files live here)
RESULTS = os.path.join(BUILD, "results.md")

MB = 1 << 20
REPODATA_RECORDS = 30_000 if QUICK else 300_000
BIG = 100 * MB if QUICK else 1024 * MB         # the big single file
HUGE = 200 * MB if QUICK else 2048 * MB        # the peak-memory file
MANY_N, MANY_SIZE = 16, (1 * MB if QUICK else 10 * MB)
SMALL_SIZE = 200 * 1024                        # 16 small wheels
MID = 64 * MB if QUICK else 256 * MB           # the mid-size valid wheel against curl + sync
WAN_LATENCY_MS, WAN_RATE = 50, 40              # emulated remote server: per request latency, MB/s per response

PIP_ENV = {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1", "PIP_CONFIG_FILE": "/dev/null"}
# Both tools read pip's environment: an index or find-links set on the machine (this one has
# PIP_FIND_LINKS=/opt/wheels) would join every command's sources, and a wheelpick pick with no
# --index then reads only those (case 7 found no torch). The bench serves its own.
for _k in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX"):
    os.environ.pop(_k, None)

out_lines = []
legend = {}


def emit(line=""):
    out_lines.append(line)
    print(line, flush=True)


def note(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- running and measuring

class Cmd:
    """One measured command: argv (or a list of argvs run one after another), env additions,
    a setup callable run untimed before each run, and the exit status it must give."""

    def __init__(self, label, argv, env=None, setup=None, expect=0, cwd=None, show=None):
        self.label = label
        self.argvs = argv if argv and isinstance(argv[0], list) else [argv]
        self.env = env or {}
        self.setup = setup
        self.expect = expect
        self.cwd = cwd
        self.show = show      # how to print it, when a loop of argvs is shown as one shell line
        self.samples = []      # the measured runs of the mode being reported (see modes())
        self.by_mode = {}      # mode -> its measured runs
        self.loads = {}        # mode -> (load average at the start of its rounds, at the end)
        self.peer = None       # the Cmd its ratios are taken against (peer / it), if any
        self.rss = []

    def shell(self):
        if self.show:
            return self.show
        envs = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items() if k in SHOWN_ENV)
        lines = [" ".join(shlex.quote(a) for a in argv) for argv in self.argvs]
        text = "; ".join(lines)
        return abbreviate((envs + " " if envs else "") + text)


SHOWN_ENV = ("WHEELPICK_CATALOG", "WHEELPICK_CACHE_DIR", "WHEELPICK_MAX_AGE") + tuple(PIP_ENV)


def abbreviate(s):
    for k, v in sorted(legend.items(), key=lambda kv: -len(kv[1])):
        s = s.replace(v, "$" + k)
    return s


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def run_once(cmd, wrap=False):
    """One run of cmd (all its argvs). wrap: under /usr/bin/time, for the peak RSS. wait4()'s
    ru_maxrss cannot be used for that: exec keeps the high-water mark of the forking process, so
    every child would report at least this harness's own RSS."""
    if cmd.setup:
        cmd.setup()
    env = dict(os.environ)
    env.update(cmd.env)
    wall = user = sys_ = 0.0
    rss = 0
    errpath = os.path.join(WORK, "last.err")
    tpath = os.path.join(WORK, "last.time")
    for argv in cmd.argvs:
        full = ([TIME, "-f", "%M", "-o", tpath] if wrap and TIME else []) + argv
        with open(errpath, "wb") as ef:
            t0 = time.perf_counter()
            p = subprocess.Popen(full, env=env, cwd=cmd.cwd, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=ef)
            _, status, ru = os.wait4(p.pid, 0)
            t1 = time.perf_counter()
        rc = os.waitstatus_to_exitcode(status)
        wall += t1 - t0
        user += ru.ru_utime
        sys_ += ru.ru_stime
        if wrap and TIME:
            with open(tpath) as tf:
                rss = max(rss, int(tf.read().split()[-1]))
        else:
            rss = max(rss, ru.ru_maxrss)
        if rc != cmd.expect:
            with open(errpath, errors="replace") as ef:
                tail = ef.read()[-2000:]
            raise SystemExit(f"bench: '{cmd.label}' exited {rc}, expected {cmd.expect}:\n"
                             f"  {' '.join(shlex.quote(a) for a in argv)}\n{tail}")
    return {"wall": wall, "cpu": user + sys_, "user": user, "sys": sys_, "rss": rss}


def measure(cmds, runs=None, warmup=1):
    """For each mode of BENCH_HOG (at the load found, then with the CPU hog on the other core):
    warm-up runs of each command (first mode only), then `runs` rounds, each running every command
    once in an order that rotates round by round (A B C, B C A, ...). Wall and CPU come from
    unwrapped runs (the /usr/bin/time wrapper costs a few ms), peak RSS from wrapped ones: the
    warm-ups plus extra runs up to 3, or, for commands that take over a second (or have no
    warm-up), from the measured runs themselves, all wrapped. The runs of each mode are kept apart
    (c.by_mode); modes() hands them to the reporting code one mode at a time."""
    runs = runs or RUNS
    for c in cmds:
        c.rss = []
        c.slow = warmup == 0
        c.by_mode = {}
    for i, mode in enumerate(MODES):
        with hog_.cpu_hog(mode == "hog"):
            load0 = hog_.loadavg()
            if i == 0:
                for c in cmds:
                    for _ in range(warmup):
                        s = run_once(c, wrap=True)
                        c.rss.append(s["rss"])
                        c.slow = c.slow or s["wall"] > 1.0
            for c in cmds:
                c.samples = []
            for r in range(runs):
                k = r % len(cmds)
                for c in cmds[k:] + cmds[:k]:
                    s = run_once(c, wrap=c.slow)
                    c.samples.append(s)
                    if c.slow:
                        c.rss.append(s["rss"])
            load1 = hog_.loadavg()
        for c in cmds:
            c.by_mode[mode] = c.samples
            c.loads[mode] = (load0, load1)
    for c in cmds:
        while len(c.rss) < min(3, runs + warmup):
            c.rss.append(run_once(c, wrap=True)["rss"])
        c.samples = c.by_mode[MODES[0]]   # callers that do not go through modes() report the first mode
    CUR_MODE[0] = MODES[0]
    return cmds


CUR_MODE = [MODES[0]]


def modes(cmds):
    """Iterate over the modes measured, each time pointing every command's samples at that mode's
    runs, so that the code after measure() reports each mode as it used to report one."""
    for mode in MODES:
        CUR_MODE[0] = mode
        for c in cmds:
            c.samples = c.by_mode.get(mode, c.samples)
        yield mode


def med(c, k):
    return statistics.median(s[k] for s in c.samples)


def spread(c, k):
    return min(s[k] for s in c.samples), max(s[k] for s in c.samples)


def fmt_t(x):
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.2f} s"


def fmt_rss(kb):
    return f"{kb / 1024:.1f} MB"


def round_ratios(c, k):
    """Per-round peer / c of measure k (the runs alternated, so round i of each pairs up)."""
    return [p[k] / max(o[k], 1e-9) for p, o in zip(c.peer.samples, c.samples)]


def peer_cells(c):
    """wall ratio and CPU ratio against c's peer: the median of the per-round peer / c, and the
    ratio of the medians; above 1, c is the faster (wall) or the cheaper (CPU)."""
    if c.peer is None or not c.samples or not c.peer.samples:
        return "", ""
    out = []
    for k in ("wall", "cpu"):
        rs = round_ratios(c, k)
        out.append(f"{statistics.median(rs):.2f}x ({min(rs):.2f}–{max(rs):.2f})")
    return tuple(out)


def row(c, extra=""):
    w0, w1 = spread(c, "wall")
    c0, c1 = spread(c, "cpu")
    rss = c.rss or [s["rss"] for s in c.samples]
    rw, rc = peer_cells(c)
    peer = c.peer.label if c.peer else ""
    return (f"| {c.label} | {len(c.samples)} | {fmt_t(med(c, 'wall'))} ({fmt_t(w0)} – {fmt_t(w1)}) | "
            f"{fmt_t(med(c, 'cpu'))} ({fmt_t(c0)} – {fmt_t(c1)}) | {fmt_rss(statistics.median(rss))} "
            f"({fmt_rss(min(rss))} – {fmt_rss(max(rss))}; {len(rss)}) | {peer} | {rw} | {rc} | {extra} |")


def mode_line(cmds):
    mode = CUR_MODE[0]
    l0, l1 = cmds[0].loads.get(mode, ("?", "?"))
    return (f"_{MODE_TEXT[mode]}: load average {l0} at the start of this table's rounds, {l1} at the end "
            f"({os.cpu_count()} CPUs)_")


def table(cmds, extras=None):
    extras = extras or {}
    emit(mode_line(cmds))
    emit()
    emit("| command | runs | wall: median (min – max) | CPU user+sys: median (min – max) | peak RSS: median (min – max; runs) "
         "| peer | peer / it, wall: median of rounds (min–max) | peer / it, CPU | notes |")
    emit("|---|---|---|---|---|---|---|---|---|")
    for c in cmds:
        emit(row(c, extras.get(c.label, "")))
    emit()


# the summary at the top of results.md: row -> {"case", "goal", mode -> (wall cell, CPU cell, verdict)}
SUMMARY = {}


def goal(case, name, goal_text, ours, peer=None, met=None, wall=None, cpu=None):
    """One row of the summary, for the mode being reported. With a peer: the ratios peer / ours
    (wall and CPU, medians of the per-round ratios); without: ours' median wall and CPU (seconds).
    met: a function of those two numbers giving True or False, or None (a row with no goal).
    wall/cpu: the two numbers, when the caller computed them (then ratios if peer is given as
    True, else seconds); a string instead of a number is shown as it is."""
    if wall is None:
        if peer is not None:
            ours.peer, saved = peer, ours.peer
            wall = statistics.median(round_ratios(ours, "wall"))
            cpu = statistics.median(round_ratios(ours, "cpu"))
            ours.peer = saved
        else:
            wall, cpu = med(ours, "wall"), med(ours, "cpu")
    ok = None
    if met is not None and isinstance(wall, (int, float)) and isinstance(cpu, (int, float)):
        ok = met(wall, cpu)

    def cell(x):
        if not isinstance(x, (int, float)):
            return x
        return f"{x:.2f}x" if peer is not None else fmt_t(x)
    r = SUMMARY.setdefault(name, {"case": case, "goal": goal_text})
    r[CUR_MODE[0]] = (cell(wall), cell(cpu), "n/a" if met is None else
                      ("?" if ok is None else ("**met**" if ok else "**not met**")))


def summary_lines():
    lines = ["## Summary: each row against its goal", "",
             "Ratios are peer / wheelpick, the median of the per-round ratios (the commands alternated): above 1, "
             "wheelpick is the faster (wall) or spends less CPU (user+sys by wait4). A row without a peer gives "
             f"wheelpick's median wall and CPU. One column group per mode of this run (BENCH_HOG={HOG}): "
             + " and ".join(MODE_TEXT[m] for m in MODES) + " (the hog: `sh -c 'while :; do :; done'`).", ""]
    head = "| case | row | goal |"
    rule = "|---|---|---|"
    for m in MODES:
        head += f" {MODE_TEXT[m]}: wall | CPU | goal |"
        rule += "---|---|---|"
    lines += [head, rule]
    for name, r in SUMMARY.items():
        cells = [str(r["case"]), name, r["goal"]]
        for m in MODES:
            cells += r.get(m, ("–", "–", "not measured"))
        lines.append("| " + " | ".join(str(x).replace("|", "/") for x in cells) + " |")
    lines.append("")
    return lines


def commands(cmds):
    emit("Commands:")
    emit()
    emit("```sh")
    for c in cmds:
        emit(f"# {c.label}")
        emit(c.shell())
    emit("```")
    emit()


def ratio(anchor, ours):
    """anchor's median wall / ours': how many times faster ours is."""
    return med(anchor, "wall") / med(ours, "wall")


def pair_ratios(anchor, ours):
    rs = [a["wall"] / b["wall"] for a, b in zip(anchor.samples, ours.samples)]
    return min(rs), max(rs)


def verdict(ok, text):
    return f"**{'met' if ok else 'NOT met'}** ({text})"


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


# ---------------------------------------------------------------- servers

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, proc, what):
    for _ in range(200):
        if proc.poll() is not None:
            raise SystemExit(f"bench: {what} exited at start (status {proc.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"bench: {what} did not listen on {port}")


class Server:
    """nginx (sendfile) when installed, else bench/server.py; either logs one line per request:
    METHOD PATH STATUS BYTES."""

    def __init__(self, root, name, latency_ms=0, rate_mbps=0):
        self.root = root
        self.dir = os.path.join(WORK, "srv-" + name)
        os.makedirs(self.dir, exist_ok=True)
        self.log = os.path.join(self.dir, "access.log")
        nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
        if nginx and not latency_ms and not rate_mbps:
            self.kind = "nginx"
            self.port = free_port()
            conf = os.path.join(self.dir, "nginx.conf")
            d = self.dir
            with open(conf, "w") as f:
                f.write(("user root;\n" if os.geteuid() == 0 else "") +
                        f"worker_processes 1;\nerror_log {d}/error.log;\npid {d}/nginx.pid;\n"
                        f"events {{ worker_connections 256; }}\n"
                        f"http {{\n  log_format b '$request_method $request_uri $status $body_bytes_sent';\n"
                        f"  access_log {d}/access.log b;\n"
                        f"  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n"
                        f"  fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n"
                        f"  types {{ text/html html; application/json json; }}\n  default_type application/octet-stream;\n"
                        f"  sendfile on;\n  tcp_nopush on;\n  keepalive_requests 10000;\n"
                        f"  server {{\n    listen 127.0.0.1:{self.port};\n    root {root};\n  }}\n}}\n")
            self.proc = subprocess.Popen([nginx, "-p", d, "-c", conf, "-g", "daemon off;"],
                                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "stderr"), "wb"))
            wait_port(self.port, self.proc, "nginx")
        else:
            self.kind = "bench/server.py" + (f" (latency {latency_ms} ms, {rate_mbps} MB/s per response)"
                                             if latency_ms or rate_mbps else "")
            pf = os.path.join(self.dir, "port")
            self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "server.py"), "--root", root,
                                          "--port-file", pf, "--log", self.log, "--latency-ms", str(latency_ms),
                                          "--rate-mbps", str(rate_mbps), "--max-seconds", "900"],
                                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "stderr"), "wb"))
            for _ in range(200):
                if os.path.exists(pf):
                    break
                time.sleep(0.05)
            self.port = int(open(pf).read())
            wait_port(self.port, self.proc, "bench/server.py")
        self.base = f"http://127.0.0.1:{self.port}"

    def log_mark(self):
        return os.path.getsize(self.log) if os.path.exists(self.log) else 0

    def log_since(self, mark):
        time.sleep(0.1)  # nginx writes its log line after the response
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            f.seek(mark)
            return [ln.split() for ln in f.read().splitlines() if ln.strip()]

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


servers = []


def serve(root, name, **kw):
    s = Server(root, name, **kw)
    servers.append(s)
    return s


# ---------------------------------------------------------------- helpers

def rm(*paths):
    for p in paths:
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            for suffix in ("", "-wal", "-shm", "-journal"):
                try:
                    os.unlink(p + suffix)
                except FileNotFoundError:
                    pass


def wp_env(name):
    """A private catalog, cache and HOME for one wheelpick setup."""
    d = os.path.join(WORK, "wp-" + name)
    os.makedirs(os.path.join(d, "home"), exist_ok=True)
    return d, {"WHEELPICK_CATALOG": os.path.join(d, "catalog.sqlite3"), "WHEELPICK_CACHE_DIR": os.path.join(d, "cache"),
               "HOME": os.path.join(d, "home")}


def run_plain(argv, env=None, expect=0):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(argv, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if expect is not None and p.returncode != expect:
        raise SystemExit(f"bench: {' '.join(argv)} exited {p.returncode}:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p


def real_python():
    # pyenv and similar put a shell script in front of python3; pip is measured through the real binary
    return subprocess.run(["python3", "-c", "import sys; print(sys.executable)"], capture_output=True,
                          text=True).stdout.strip() or sys.executable


def wheel_links(page, pattern):
    import re
    with open(page) as f:
        return sorted(set(re.findall(r'href="([^"#]*' + pattern + r'[^"#]*)"', f.read())))


def stand_in_root(name):
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    return d


def page(path, entries):
    """A find-links page: entries are (href, text, extra attributes)."""
    with open(path, "w") as f:
        for href, text, attrs in entries:
            f.write(f'<a href="{href}"{attrs}>{text}</a><br>\n')


def file_sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(4 * MB)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


CASE_TIMES = []   # [case, start time, seconds or None]: how long each case took, in the last line


def case_clock():
    if CASE_TIMES and CASE_TIMES[-1][2] is None:
        CASE_TIMES[-1][2] = time.time() - CASE_TIMES[-1][1]


def cp_header(n, title):
    case_clock()
    CASE_TIMES.append([n, time.time(), None])
    note(f"case {n}")
    emit(f"## Case {n}: {title}")
    emit()
    emit(f"_load average at start: {loadavg()}_")
    emit()


# ---------------------------------------------------------------- the cases

def floor_note(parts):
    """The physical floor under a figure: the sum of the named parts (label, seconds), each
    measured in the same table."""
    total = sum(t for _, t in parts)
    return f"floor {fmt_t(total)} = " + " + ".join(f"{name} {fmt_t(t)}" for name, t in parts), total


def floor_bin():
    """bench/floor.c built once per run (libcrypto, ISA-L): the single-process floor of case 1."""
    out = os.path.join(WORK, "floor")
    if not os.path.exists(out):
        run_plain(["cc", "-O2", "-o", out, os.path.join(HERE, "floor.c"), "-lcrypto", "-lisal", "-lpthread"])
    return out


def case1(WP, PY):
    cp_header(1, "the whole job: pick from the real 2021 page over 127.0.0.1 and fetch a valid wheel "
                 "(50 MB deflated like torch's, 50 MB stored, 1 GB stored)")
    srv_root = stand_in_root("srv2021")
    srv_root_s = stand_in_root("srv2021stored")
    os.symlink(PAGE2021, os.path.join(srv_root, "torch_stable.html"))
    os.symlink(PAGE2021, os.path.join(srv_root_s, "torch_stable.html"))
    made = []
    big_rel = {}
    # what each tool picks is big: wheelpick takes +cu111, pip's real command (no local label) takes
    # the build it orders first (+rocm4.0.1); the other builds of the release are small stand-ins.
    # srv2021 serves them deflated and shaped like torch (the main rows); srv2021stored as one stored
    # member (the second row: its RECORD check is only a second hash)
    size1 = 10 * MB if QUICK else 50 * MB
    for href in wheel_links(PAGE2021, r"torch-1\.8\.0[^\"]*-cp38-cp38-linux_x86_64\.whl"):
        rel = urllib.parse.unquote(href)
        fn = os.path.basename(rel)
        version, tag = fn[len("torch-"):].split("-", 1)
        tag = tag[:-len(".whl")]
        dst, dst_s = os.path.join(srv_root, rel), os.path.join(srv_root_s, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.makedirs(os.path.dirname(dst_s), exist_ok=True)
        if version in ("1.8.0+cu111", "1.8.0+rocm4.0.1"):
            mkwheel.torch_wheel(dst, "torch", version, tag, size1, ("typing-extensions",))
            mkwheel.big_wheel(dst_s, "torch", version, tag, size1 - 4096, ("typing-extensions",))
            big_rel[version] = rel
        else:
            with open(dst, "wb") as f:
                f.write(mkwheel.small_wheel("torch", version, tag, ("typing-extensions",)))
            shutil.copyfile(dst, dst_s)
        made.append(rel)
    srv = serve(srv_root, "2021")
    srv_s = serve(srv_root_s, "2021stored")
    legend["BASE"] = srv.base
    legend["BASES"] = srv_s.base
    url = srv.base + "/torch_stable.html"
    url_s = srv_s.base + "/torch_stable.html"
    d, env = wp_env("job")
    ds, env_s = wp_env("job-stored")
    dest = os.path.join(d, "dest")
    dest_s = os.path.join(ds, "dest")
    pdest = os.path.join(WORK, "pip-dest")
    wp_args = [WP, "torch==1.8.0", "--cuda", "11.2", "--python", "3.8", "--platform", "linux_x86_64", "--no-deps",
               "--index", url, "-d", dest]
    wp_args_s = [a if a != url else url_s for a in wp_args[:-1]] + [dest_s]
    # pip's real command: the requirement as users type it; --no-index so that it does not spend
    # seconds retrying an unreachable PyPI
    pip_args = [PY, "-m", "pip", "download", "torch==1.8.0", "--no-deps", "--only-binary=:all:",
                "--python-version", "3.8", "--platform", "linux_x86_64", "--find-links", url, "-d", pdest, "--no-index"]
    pip_args_s = [a if a != url else url_s for a in pip_args]
    cu111 = os.path.join(srv_root, big_rel["1.8.0+cu111"])
    cu111_url = srv.base + "/" + urllib.parse.quote(big_rel["1.8.0+cu111"])
    cdest = os.path.join(WORK, "curl1.whl")
    fdest = os.path.join(WORK, "floor1.whl")
    warm = Cmd("wheelpick, warm (catalog and file cache from the run before)", wp_args, env, lambda: rm(dest))
    warm_cat = Cmd("wheelpick, warm catalog, empty file cache", wp_args, env,
                   synced(lambda: rm(dest, env["WHEELPICK_CACHE_DIR"])))
    cold = Cmd("wheelpick, cold (no catalog, no cache)", wp_args, env,
               synced(lambda: rm(dest, env["WHEELPICK_CATALOG"], env["WHEELPICK_CACHE_DIR"])))
    pip = Cmd("pip download (anchor; its real command)", pip_args, PIP_ENV, synced(lambda: rm(pdest)))
    cold_s = Cmd("wheelpick, cold, the stored wheel", wp_args_s, env_s,
                 synced(lambda: rm(dest_s, env_s["WHEELPICK_CATALOG"], env_s["WHEELPICK_CACHE_DIR"])))
    pip_s = Cmd("pip download (anchor), the stored wheel", pip_args_s, PIP_ENV, synced(lambda: rm(pdest)))
    # the parts of the floor, measured in the same rounds
    d0, env0 = wp_env("job-floor")
    start = Cmd("floor part: wheelpick --version (process start)", [WP, "--version"], env0)
    crawl = Cmd("floor part: wheelpick update, the page into a fresh catalog", [WP, "update", "--index", url], env0,
                lambda: rm(env0["WHEELPICK_CATALOG"], env0["WHEELPICK_CACHE_DIR"]))
    fl_prog = Cmd(f"floor part: bench/floor.c, the {size1 // MB} MB deflated wheel: GET, streamed sha256, every member "
                  f"inflated (ISA-L) and hashed on every core, fsync", [floor_bin(), cu111_url, fdest],
                  setup=synced(lambda: rm(fdest)))
    dgst = Cmd(f"floor part: openssl dgst -sha256 of the {size1 // MB} MB wheel (one hash pass, page cache)",
               ["openssl", "dgst", "-sha256", cu111])
    curl = Cmd(f"floor part: curl -o, the {size1 // MB} MB wheel", curl_cmd(cu111_url, cdest),
               setup=synced(lambda: rm(cdest)))
    curl_sync = Cmd(f"floor part: curl -o, then sync FILE", ["sh", "-c", 'curl -sS --fail -o "$1" "$2" && sync "$1"', "sh",
                    cdest, cu111_url], setup=synced(lambda: rm(cdest)))
    allc = [pip, cold, warm_cat, warm, pip_s, cold_s, start, crawl, fl_prog, dgst, curl, curl_sync]
    measure(allc)
    want = "torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"
    got_wp = sorted(f for f in os.listdir(dest) if f.endswith(".whl"))
    got_pip = sorted(os.listdir(pdest))
    if got_wp != [want]:
        raise SystemExit(f"bench: case 1 fetched the wrong thing: wheelpick {got_wp}")
    for c in (cold, warm_cat, warm):
        c.peer = pip
    cold_s.peer = pip_s
    for _ in modes(allc):
        r_warm, r_cold, r_wc, r_s = ratio(pip, warm), ratio(pip, cold), ratio(pip, warm_cat), ratio(pip_s, cold_s)
        lo_w, hi_w = pair_ratios(pip, warm)
        lo_c, hi_c = pair_ratios(pip, cold)
        lo_s, hi_s = pair_ratios(pip_s, cold_s)
        # the deflated job's floor: what wheelpick must do before the download (start, the crawl), and
        # bench/floor.c for the rest (the download, its hash, every member inflated and hashed, fsync)
        fl_text, fl = floor_note([("start", med(start, "wall")), ("crawl", med(crawl, "wall")),
                                  ("bench/floor.c", med(fl_prog, "wall"))])
        sync_cost = max(0.0, med(curl_sync, "wall") - med(curl, "wall"))
        fl_text_s, fl_s = floor_note([("start", med(start, "wall")), ("crawl", med(crawl, "wall")),
                                      ("sha256 pass", med(dgst, "wall")), ("durable write (curl+sync - curl)", sync_cost)])
        table(allc, {
            pip.label: f"fetched {', '.join(got_pip)}",
            cold.label: f"{r_cold:.1f}x faster than pip (pairs {lo_c:.1f}–{hi_c:.1f}); target 4x: "
                        + verdict(r_cold >= 4, f"{r_cold:.1f}x") + f"; {fl_text}: {med(cold, 'wall') / fl:.2f}x the floor, "
                        "target 1.1x: " + verdict(med(cold, 'wall') / fl <= 1.1, f"{med(cold, 'wall') / fl:.2f}x") +
                        f" (pip / floor = {med(pip, 'wall') / fl:.1f}x)",
            warm_cat.label: f"{r_wc:.1f}x faster than pip",
            warm.label: f"{r_warm:.1f}x faster than pip (pairs {lo_w:.1f}–{hi_w:.1f})",
            cold_s.label: f"{r_s:.1f}x faster than pip on the stored wheel (pairs {lo_s:.1f}–{hi_s:.1f}); target 10x: "
                          + verdict(r_s >= 10, f"{r_s:.1f}x") + f"; {fl_text_s}: {med(cold_s, 'wall') / fl_s:.2f}x that floor "
                          f"(pip / floor = {med(pip_s, 'wall') / fl_s:.1f}x)",
        })
        goal(1, f"whole job, cold: the real 2021 page + a {size1 // MB} MB deflated wheel, against pip's real command",
             ">= 4x pip", cold, pip, lambda w, c: w >= 4)
        fl_cpu = med(start, "cpu") + med(crawl, "cpu") + med(fl_prog, "cpu")
        goal(1, "the same against its floor (process start + crawl + bench/floor.c), floor / wheelpick",
             "<= 1.1x the floor (>= 0.91 here)", cold, True, lambda w, c: w >= 1 / 1.1,
             wall=fl / med(cold, "wall"), cpu=fl_cpu / med(cold, "cpu"))
        goal(1, f"whole job, cold, the {size1 // MB} MB stored wheel, against pip", ">= 10x pip", cold_s, pip_s,
             lambda w, c: w >= 10)
        goal(1, "whole job, warm catalog and file cache, against pip", "(report)", warm, pip)
    emit(f"Served: the real page (1,498 links) next to {len(made)} stand-in wheels for the torch 1.8.0 cp38 "
         f"linux_x86_64 builds: the two the tools pick (+cu111 for wheelpick, the one pip orders first for pip) are "
         f"valid {size1 // MB} MB wheels shaped like torch's (bench/mkwheel.py torch_wheel: a few thousand .py files and "
         f"seven shared objects, all deflated at zipfile's default level, a correct RECORD) at $BASE, and the same two "
         f"as one stored member of random bytes (bench/mkwheel.py big_wheel) at $BASES; the rest tiny; other links "
         f"404. Server: {srv.kind}. wheelpick fetched `{want}`; pip's real command fetched `{', '.join(got_pip)}`.")
    emit()
    commands(allc)

    # the same job with a 1 GB wheel: cold wheelpick against pip, side by side
    if not QUICK:
        srv_big = stand_in_root("srv2021big")
        os.symlink(PAGE2021, os.path.join(srv_big, "torch_stable.html"))
        for version, rel in big_rel.items():
            tag = "cp38-cp38-linux_x86_64"
            dst = os.path.join(srv_big, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            mkwheel.big_wheel(dst, "torch", version, tag, 1024 * MB - 4096, ("typing-extensions",))
        sb = serve(srv_big, "2021big")
        legend["BASEBIG"] = sb.base
        ub = sb.base + "/torch_stable.html"
        db, envb = wp_env("jobbig")
        destb = os.path.join(db, "dest")
        big_cu111 = os.path.join(srv_big, big_rel["1.8.0+cu111"])
        cbig = os.path.join(WORK, "curlbig.whl")
        coldb = Cmd("wheelpick, cold, 1 GB wheel", [a if a != url else ub for a in wp_args[:-1]] + [destb], envb,
                    synced(lambda: rm(destb, envb["WHEELPICK_CATALOG"], envb["WHEELPICK_CACHE_DIR"])))
        pipb = Cmd("pip download (anchor; its real command), 1 GB wheel", [a if a != url else ub for a in pip_args],
                   PIP_ENV, synced(lambda: rm(pdest)))
        curlb_sync = Cmd("floor part: curl -o, then sync FILE, 1 GB", ["sh", "-c", 'curl -sS --fail -o "$1" "$2" && sync "$1"',
                         "sh", cbig, sb.base + "/" + urllib.parse.quote(big_rel["1.8.0+cu111"])], setup=synced(lambda: rm(cbig)))
        dgstb = Cmd("floor part: openssl dgst -sha256 of the 1 GB wheel", ["openssl", "dgst", "-sha256", big_cu111])
        bc = [pipb, coldb, curlb_sync, dgstb]
        measure(bc, runs=2, warmup=0)
        coldb.peer = curlb_sync
        for _ in modes(bc):
            rb = ratio(pipb, coldb)
            # the least a durable, hashed download costs: the transfer and its sync, with the hash
            # overlapped on the second core at best (max), or after it at worst (sum)
            flo = max(med(curlb_sync, "wall"), med(dgstb, "wall"))
            emit("### The same job, 1 GB wheel")
            emit()
            table(bc, {
                coldb.label: f"{rb:.1f}x faster than pip; floor {fmt_t(flo)} = max(curl+sync {fmt_t(med(curlb_sync, 'wall'))}, "
                             f"one sha256 pass {fmt_t(med(dgstb, 'wall'))}): {med(coldb, 'wall') / flo:.2f}x the floor",
            })
            goal(1, "whole job, cold, a 1 GB stored wheel, against pip", "(report)", coldb, pipb)
            goal(1, "the same against curl -o + sync of the wheel", "(report)", coldb, curlb_sync)
        commands(bc)
        rm(srv_big, pdest, destb, envb["WHEELPICK_CACHE_DIR"], cbig)
    return srv_s, url_s


def case2_server():
    """Case 2 without case 1 (BENCH_CASES=2): the real 2021 page on nginx with small stand-ins for
    the torch 1.8.0 cp38 builds, so that the HEAD a text plan may send is answered as in case 1
    (a dry run never reads the wheel's bytes)."""
    root = stand_in_root("srv2021small")
    os.symlink(PAGE2021, os.path.join(root, "torch_stable.html"))
    for href in wheel_links(PAGE2021, r"torch-1\.8\.0[^\"]*-cp38-cp38-linux_x86_64\.whl"):
        rel = urllib.parse.unquote(href)
        version, tag = os.path.basename(rel)[len("torch-"):].split("-", 1)
        dst = os.path.join(root, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(mkwheel.small_wheel("torch", version, tag[:-len(".whl")], ("typing-extensions",)))
    srv = serve(root, "2021small")
    legend["BASES"] = srv.base
    return srv, srv.base + "/torch_stable.html"


def case2(WP, srv, url):
    cp_header(2, "`pick --dry-run --no-deps` on a warm catalog (the real 2021 page crawled)")
    d, env = wp_env("dry")
    run_plain([WP, "update", "--index", url], env)
    args = [WP, "torch==1.8.0", "--cuda", "11.2", "--python", "3.8", "--platform", "linux_x86_64", "--no-deps",
            "--dry-run"]
    floor = Cmd("wheelpick --version (process start, anchor)", [WP, "--version"], env)
    dry = Cmd("wheelpick pick --dry-run --no-deps, warm catalog", args, env)
    dry_idx = Cmd("same with --index URL (source fresh: no request)", args + ["--index", url], env)
    dry_json = Cmd("same with --json", args + ["--json"], env)
    # the floor under any process that loads the same shared libraries: an empty C program
    empties = []
    cc = shutil.which("cc")
    if cc:
        src = os.path.join(WORK, "empty.c")
        with open(src, "w") as f:
            f.write("int main(void) { return 0; }\n")
        # wheelpick links these three and loads libcurl, libarchive, libxml2 and libcrypto on first
        # use (base/lazylib.c); "all" links the seven, which is what every start cost before that
        linked = run_plain(["pkg-config", "--libs", "sqlite3", "yajl", "zlib"]).stdout.split()
        every = run_plain(["pkg-config", "--libs", "libcurl", "libxml-2.0", "libarchive", "sqlite3", "libcrypto",
                           "yajl", "zlib"]).stdout.split()
        for name, extra, what in (("empty-nolibs", [], ""),
                                  ("empty-samelibs", ["-Wl,--no-as-needed"] + linked + ["-lpthread", "-ldl"],
                                   " (the libraries wheelpick links: "),
                                  ("empty-alllibs", ["-Wl,--no-as-needed"] + every + ["-lpthread", "-ldl"],
                                   " (all seven it uses, linked: ")):
            exe = os.path.join(WORK, name)
            run_plain([cc, "-O2", src, "-o", exe] + extra)
            nlib = sum(1 for ln in run_plain(["ldd", exe]).stdout.splitlines() if "=>" in ln)
            empties.append(Cmd(f"anchor: empty C program, {nlib} shared librar{'y' if nlib == 1 else 'ies'}" +
                               (what + " ".join(extra[1:]) + ")" if extra else ""), [exe]))
    nwp = sum(1 for ln in run_plain(["ldd", WP]).stdout.splitlines() if "=>" in ln)
    floor.label = f"wheelpick --version (process start: {nwp} shared libraries)"
    allc = empties + [floor, dry, dry_idx, dry_json]
    measure(allc, runs=max(RUNS, 3 if QUICK else 20), warmup=2)
    for c in (dry, dry_idx, dry_json):
        c.peer = floor
    for _ in modes(allc):
        m = med(dry, "wall")
        table(allc, {
            dry.label: "target a few ms incl. process start: " + verdict(m < 0.010, f"{fmt_t(m)}; "
                                                                  f"process start alone {fmt_t(med(floor, 'wall'))}"),
        })
        goal(2, "pick --dry-run --no-deps, warm catalog (the 2021 page)", "< 10 ms wall, process start included", dry,
             met=lambda w, c: w < 0.010)
    if empties:
        emit("The empty programs are built by the harness: `cc -O2 empty.c -o empty-nolibs`, "
             "`cc -O2 empty.c -o empty-samelibs -Wl,--no-as-needed $(pkg-config --libs sqlite3 yajl zlib) "
             "-lpthread -ldl` and the same with `libcurl libxml-2.0 libarchive libcrypto` added (empty-alllibs), "
             "where empty.c is `int main(void) { return 0; }`. wheelpick links the first three libraries and "
             "loads the other four when a command first needs them.")
        emit()
    commands(allc)


HREF_SCRIPT = ("import sys\nfrom html.parser import HTMLParser\n"
               "class P(HTMLParser):\n  n = 0\n"
               "  def handle_starttag(self, t, a):\n    if t == 'a' and dict(a).get('href'): P.n += 1\n"
               "p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read()); print(P.n)\n")


def case3(WP, PY):
    cp_header(3, "crawling into a fresh catalog")
    d, env = wp_env("crawl")
    fresh = lambda: rm(env["WHEELPICK_CATALOG"], env["WHEELPICK_CACHE_DIR"])  # noqa: E731
    u21 = Cmd("wheelpick update: 2021 find-links page (1,498 links)", [WP, "update", "--index", "file://" + PAGE2021],
              env, fresh)
    a21 = Cmd("anchor: Python html.parser counting the hrefs of the same page", [PY, "-c", HREF_SCRIPT, PAGE2021])
    u23 = Cmd("wheelpick update: 2023 PEP 503 torch page", [WP, "update", "--index", "file://" + PAGE2023], env, fresh)
    a23 = Cmd("anchor: Python html.parser, 2023 torch page", [PY, "-c", HREF_SCRIPT, PAGE2023])
    measure([u21, a21, u23, a23], runs=max(RUNS, 3 if QUICK else 10), warmup=1)
    run_plain([WP, "update", "--index", "file://" + PAGE2023], env)
    n23 = len(run_plain([WP, "list", "torch", "--json"], env).stdout.split('"filename"')) - 1
    u21.peer, u23.peer = a21, a23
    for _ in modes([u21, a21, u23, a23]):
        m21 = med(u21, "wall")
        sz21, sz23 = os.path.getsize(PAGE2021), os.path.getsize(PAGE2023)
        emit("### Index pages")
        emit()
        table([u21, a21, u23, a23], {
            u21.label: f"{sz21 / 1e6 / m21:.1f} MB/s; target < 20 ms: " + verdict(m21 < 0.020, fmt_t(m21)),
            u23.label: f"{n23} files in the catalog; {sz23 / 1e6 / med(u23, 'wall'):.1f} MB/s",
        })
        goal(3, "crawl of the real 2021 page (1,498 links) into a fresh catalog (the C floor: case 13)", "< 20 ms wall",
             u21, met=lambda w, c: w < 0.020)
    commands([u21, a21, u23, a23])

    # synthetic repodata: sorted by file name as conda-index writes it, and the same records shuffled
    os.makedirs(DATA, exist_ok=True)
    files = {}
    for order in ("sorted", "shuffled"):
        js = os.path.join(DATA, f"repodata-{REPODATA_RECORDS}-{order}.json")
        if not os.path.exists(js):
            note(f"generating {REPODATA_RECORDS} conda records, {order} (kept in {DATA})")
            run_plain([PY, os.path.join(HERE, "gen_repodata.py"), str(REPODATA_RECORDS), js + ".tmp", order])
            os.rename(js + ".tmp", js)
        files[order] = js
    js = files["sorted"]
    zst = js + ".zst"
    if not os.path.exists(zst):
        run_plain(["zstd", "-q", "-T0", "-3", js, "-o", zst + ".tmp"])
        os.rename(zst + ".tmp", zst)
    ch = os.path.join(WORK, "channel")
    for sub, src, name in (("plain", js, "repodata.json"), ("zst", zst, "repodata.json.zst"),
                           ("shuffled", files["shuffled"], "repodata.json")):
        os.makedirs(os.path.join(ch, sub, "linux-64"), exist_ok=True)
        os.symlink(src, os.path.join(ch, sub, "linux-64", name))
    legend["CH"] = ch
    # each run writes a ~200 MB catalog: flush the last run's (untimed) so that no run pays for
    # another's writeback, as in case 4
    plain = Cmd(f"wheelpick update --conda: repodata.json, {REPODATA_RECORDS:,} records",
                [WP, "update", "--conda", "--index", f"file://{ch}/plain/linux-64/repodata.json"], env, synced(fresh))
    zcmd = Cmd(f"wheelpick update --conda: repodata.json.zst, {REPODATA_RECORDS:,} records",
               [WP, "update", "--conda", "--index", f"file://{ch}/zst/linux-64/repodata.json.zst"], env,
               synced(fresh))
    shuf = Cmd("wheelpick update --conda: the same records shuffled (worst case)",
               [WP, "update", "--conda", "--index", f"file://{ch}/shuffled/linux-64/repodata.json"], env,
               synced(fresh))
    pyjs = Cmd("anchor: Python json.load of the same repodata.json",
               [PY, "-c", "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['packages'])+len(d['packages.conda']))", js])
    # a few seconds a run on this machine; no warm-up (generating the files warmed the page cache);
    # json.load alternates with them, so that the ratio compares runs made under the same load
    measure([plain, zcmd, shuf, pyjs], runs=1 if QUICK else 3, warmup=0)
    fresh()
    run_plain([WP, "update", "--conda", "--index", f"file://{ch}/plain/linux-64/repodata.json"], env)
    size, zsize = os.path.getsize(js), os.path.getsize(zst)
    catsize = sum(os.path.getsize(env["WHEELPICK_CATALOG"] + x) for x in ("", "-wal")
                  if os.path.exists(env["WHEELPICK_CATALOG"] + x))
    for c in (plain, zcmd, shuf):
        c.peer = pyjs
    for _ in modes([plain, zcmd, shuf, pyjs]):
        emit("### Synthetic conda repodata")
        emit()

        def mbps(c):
            return size / 1e6 / med(c, "wall")

        def target(c):
            # issue 29: >= 5x Python's json.load of the same file in the same run, >= 250 MB/s, < 100 MB;
            # issue 42 item 3: the crawl's CPU (parser, writer, hasher) <= json.load's wall / 5
            x = ratio(pyjs, c)
            lo, hi = pair_ratios(pyjs, c)
            g = med(pyjs, "wall") / med(c, "cpu")
            return (f"{x:.1f}x json.load (pairs {lo:.1f}-{hi:.1f}); json.load's wall / its CPU (item 3, >= 5): "
                    + verdict(g >= 5, f"{g:.2f}x") + f"; json.load's CPU / its CPU {med(pyjs, 'cpu') / med(c, 'cpu'):.2f}x"
                    + "; target >= 250 MB/s: " + verdict(mbps(c) >= 250, f"{mbps(c):.1f} MB/s") + "; peak < 100 MB: "
                    + verdict(max(c.rss) < 100 * 1024, fmt_rss(max(c.rss))))

        table([plain, zcmd, shuf, pyjs], {
            plain.label: f"{mbps(plain):.1f} MB/s of JSON; " + target(plain),
            zcmd.label: f"{mbps(zcmd):.1f} MB/s of JSON ({zsize / 1e6:.0f} MB compressed); " + target(zcmd),
            shuf.label: f"{mbps(shuf):.1f} MB/s of JSON; " + target(shuf),
            pyjs.label: f"{mbps(pyjs):.1f} MB/s",
        })
        for c, what in ((plain, "repodata.json"), (zcmd, "repodata.json.zst")):
            g, mb = med(pyjs, "wall") / med(c, "cpu"), mbps(c)
            goal(3, f"conda crawl, {REPODATA_RECORDS:,} records, {what}, against json.load",
                 "json.load's wall / the crawl's CPU >= 5 (item 3); >= 250 MB/s of JSON on its wall",
                 c, pyjs, lambda w, cp, ok=(g >= 5 and mb >= 250): ok)
    emit(f"repodata.json: {size / 1e6:.0f} MB, {REPODATA_RECORDS:,} records (bench/gen_repodata.py, "
         f"pretty-printed and sorted by file name like conda-index output; the shuffled file has the same "
         f"records in random order); .zst: {zsize / 1e6:.0f} MB (`zstd -3`). "
         f"Catalog after one crawl of the plain file into a fresh catalog: {catsize / 1e6:.0f} MB. "
         f"MB/s = uncompressed JSON bytes / median wall time.")
    emit()
    commands([plain, zcmd, shuf, pyjs])
    # issue 42 item 6: a page past the old 64 MiB ceiling, its memory and its cost against curl +
    # json.load, alternated, at the load found and with the hog (bench/bigpage.py starts its own)
    for mode in modes([]):
        out = subprocess.run([PY, os.path.join(HERE, "bigpage.py"), WP], capture_output=True, text=True,
                             check=True, env={**os.environ, "BIGPAGE_HOG": "1" if mode == "hog" else "0",
                                              "BIGPAGE_ROUNDS": "1" if QUICK else "3"}).stdout
        for line in out.splitlines():
            emit(line)
        emit()
        rows = md_rows(out)
        wp = next((r for r in rows if r[0].startswith("wheelpick")), None)
        if wp and len(wp) >= 7:
            rss = parse_num(wp[3])
            goal(3, "an index page past 64 MiB (84 MB of PEP 691 JSON), against curl piped to json.load",
                 "streamed, memory bounded: peak RSS < 64 MB, exit 0 (item 6)", None, True,
                 lambda w, c, ok=(rss is not None and rss < 64 and wp[4].strip() == "0"): ok,
                 wall=inv(parse_num(wp[5])), cpu=inv(parse_num(wp[6])))


def md_rows(text):
    """The cells of every body row of the markdown tables in text (header and rule rows left out)."""
    rows, prev = [], ""
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cells = [x.strip() for x in line.strip().strip("|").split("|")]
            if prev.startswith("|"):
                rows.append(cells)
        prev = line
    return [r for r in rows if r]


def parse_num(cell):
    """The first number in a cell ('1.23 s', '456 ms', '1.05x (0.9, 1.1)', '29 MB'); seconds for
    times, as written otherwise; None when there is none."""
    import re
    m = re.search(r"([0-9]+(?:\.[0-9]+)?)\s*(ms|s\b)?", cell or "")
    if not m:
        return None
    x = float(m.group(1))
    return x / 1000 if m.group(2) == "ms" else x


def inv(x):
    return 1 / x if x else "?"


def synced(fn):
    """setup for big-file runs: remove the last run's output, then flush dirty pages (untimed), so
    that no run pays for the previous run's writeback."""
    def setup():
        fn()
        os.sync()
    return setup


def curl_cmd(url, out):
    return ["curl", "-sS", "--fail", "-o", out, url]


def case4(WP, PY):
    cp_header(4, "fetching over loopback")
    root = stand_in_root("srvbig")
    legend["T"] = WORK
    note(f"generating a {BIG // MB} MB valid wheel, a {BIG // MB} MB non-zip, a {HUGE // MB} MB non-zip, "
         f"{MANY_N} x {MANY_SIZE // MB} MB wheels")
    big_fn = "bigpkg-1.0-py3-none-any.whl"
    big_sha, big_size = mkwheel.big_wheel(os.path.join(root, big_fn), "bigpkg", "1.0", "py3-none-any",
                                          BIG - 4096, ("bigdep>=1",))
    blob_fn = "blobpkg-1.0-py3-none-any.whl"
    blob_sha, _ = mkwheel.random_file(os.path.join(root, blob_fn), BIG)
    huge_fn = "hugepkg-1.0-py3-none-any.whl"
    # a valid wheel: the peak memory of the whole check, streamed verification included
    huge_sha, _ = mkwheel.big_wheel(os.path.join(root, huge_fn), "hugepkg", "1.0", "py3-none-any", HUGE - 4096, seed=3)
    mid_fn = "midpkg-1.0-py3-none-any.whl"
    mid_sha, mid_size = mkwheel.big_wheel(os.path.join(root, mid_fn), "midpkg", "1.0", "py3-none-any", MID - 4096,
                                          seed=4)
    dep_fn = "bigdep-1.0-py3-none-any.whl"
    with open(os.path.join(root, dep_fn), "wb") as f:
        f.write(mkwheel.small_wheel("bigdep", "1.0", "py3-none-any"))
    many = []
    for i in range(MANY_N):
        fn = f"many{i:02d}-1.0-py3-none-any.whl"
        sha, _ = mkwheel.big_wheel(os.path.join(root, fn), f"many{i:02d}", "1.0", "py3-none-any",
                                   MANY_SIZE - 4096, seed=100 + i)
        many.append((fn, sha))
    page(os.path.join(root, "big.html"), [(big_fn, big_fn, ""), (blob_fn, blob_fn, ""), (huge_fn, huge_fn, ""),
                                          (dep_fn, dep_fn, "")])
    page(os.path.join(root, "mid-sha.html"), [(f"{mid_fn}#sha256={mid_sha}", mid_fn, "")])
    small = []
    for i in range(MANY_N):
        fn = f"tiny{i:02d}-1.0-py3-none-any.whl"
        sha, _ = mkwheel.big_wheel(os.path.join(root, fn), f"tiny{i:02d}", "1.0", "py3-none-any", SMALL_SIZE - 4096,
                                   seed=200 + i)
        small.append((fn, sha))
    page(os.path.join(root, "tiny.html"), [(f"{fn}#sha256={sha}", fn, "") for fn, sha in small])
    page(os.path.join(root, "big-sha.html"), [(f"{big_fn}#sha256={big_sha}", big_fn, ""),
                                              (f"{blob_fn}#sha256={blob_sha}", blob_fn, ""),
                                              (f"{dep_fn}#sha256={file_sha(os.path.join(root, dep_fn))}", dep_fn, "")])
    page(os.path.join(root, "many.html"), [(f"{fn}#sha256={sha}", fn, "") for fn, sha in many])
    srv = serve(root, "big")
    legend["BIG"] = srv.base
    tgt = ["--cuda", "cpu", "--python", "3.8", "--platform", "linux_x86_64", "--no-deps"]

    # one big file against curl
    d1, e_nosha = wp_env("big-nosha")
    d2, e_sha = wp_env("big-sha")
    dest1, dest2 = os.path.join(d1, "dest"), os.path.join(d2, "dest")
    cdest = os.path.join(WORK, "curl-dest")
    os.makedirs(cdest, exist_ok=True)
    for e, pg in ((e_nosha, "big.html"), (e_sha, "big-sha.html")):
        run_plain([WP, "update", "--index", f"{srv.base}/{pg}"], e)
    # the page without hashes: wheelpick holds a file to the hash of its first fetch; fetch once so
    # the measured runs are all "second and later" downloads with a known hash
    curl = Cmd(f"curl, {BIG // MB} MB (anchor)", curl_cmd(f"{srv.base}/{big_fn}", os.path.join(cdest, big_fn)),
               setup=synced(lambda: rm(os.path.join(cdest, big_fn))))
    cfile = os.path.join(cdest, big_fn)
    curl_sync = Cmd(f"curl, {BIG // MB} MB, then sync FILE (anchor with the same durability)",
                    ["sh", "-c", f'curl -sS --fail -o "$1" "$2" && sync "$1"', "sh", cfile, f"{srv.base}/{big_fn}"],
                    setup=synced(lambda: rm(cfile)))
    wsha = Cmd(f"wheelpick -d, valid {BIG // MB} MB wheel, sha256 in the page",
               [WP, "bigpkg"] + tgt + ["--index", f"{srv.base}/big-sha.html", "-d", dest2], e_sha,
               synced(lambda: rm(dest2, e_sha["WHEELPICK_CACHE_DIR"])))
    wnosha = Cmd(f"wheelpick -d, valid {BIG // MB} MB wheel, no sha256 in the page",
                 [WP, "bigpkg"] + tgt + ["--index", f"{srv.base}/big.html", "-d", dest1], e_nosha,
                 synced(lambda: rm(dest1, e_nosha["WHEELPICK_CACHE_DIR"])))
    wblob = Cmd(f"wheelpick -d, {BIG // MB} MB non-zip 'wheel' (transfer + sha256; exit 4 at verification)",
                [WP, "blobpkg"] + tgt + ["--index", f"{srv.base}/big-sha.html", "-d", dest2], e_sha,
                synced(lambda: rm(dest2, e_sha["WHEELPICK_CACHE_DIR"])), expect=4)
    dgst = Cmd(f"openssl dgst -sha256 of the {BIG // MB} MB wheel (hash cost alone, page cache)",
               ["openssl", "dgst", "-sha256", os.path.join(root, big_fn)])
    measure([curl, curl_sync, wsha, wnosha, wblob, dgst], runs=1 if QUICK else 2, warmup=1)
    wsha.peer, wnosha.peer, wblob.peer, dgst.peer = curl_sync, curl, curl, curl
    for _ in modes([curl, curl_sync, wsha, wnosha, wblob, dgst]):
        rs, rn, rb = ratio(curl, wsha), ratio(curl, wnosha), ratio(curl, wblob)
        hash_share = med(dgst, "wall") / med(curl, "wall")
        sha_cost = (med(wsha, "wall") / med(wnosha, "wall") - 1) * 100
        emit(f"### One {BIG // MB} MB file against curl")
        emit()
        rsy = ratio(curl_sync, wsha)
        table([curl, curl_sync, wsha, wnosha, wblob, dgst], {
            curl_sync.label: f"{big_size / 1e6 / med(curl_sync, 'wall'):.0f} MB/s; wheelpick (sha256 in the page) is {rsy:.2f}x this",
            curl.label: f"{big_size / 1e6 / med(curl, 'wall'):.0f} MB/s",
            wsha.label: f"{big_size / 1e6 / med(wsha, 'wall'):.0f} MB/s; {rs:.2f}x curl; target >= 0.9x: "
                        + verdict(rs >= 0.9, f"{rs:.2f}x"),
            wnosha.label: f"{big_size / 1e6 / med(wnosha, 'wall'):.0f} MB/s; {rn:.2f}x curl; the page with sha256 costs "
                          f"{sha_cost:+.1f}% wall against this; target <= 10%: " + verdict(sha_cost <= 10, f"{sha_cost:+.1f}%"),
            wblob.label: f"{BIG / 1e6 / med(wblob, 'wall'):.0f} MB/s; {rb:.2f}x curl; target >= 0.9x: "
                         + verdict(rb >= 0.9, f"{rb:.2f}x"),
            dgst.label: f"{big_size / 1e6 / med(dgst, 'wall'):.0f} MB/s; {med(dgst, 'wall') / med(wsha, 'wall') * 100:.0f}% of "
                        f"wheelpick's wall (sha256 in the page), {hash_share * 100:.0f}% of curl's",
        })
        goal(4, f"verified {BIG // MB} MB wheel, sha256 in the page, against curl -o + sync",
             ">= 0.95x curl + sync (wall), CPU <= 1.2x curl's (item 2)", wsha, curl_sync,
             lambda w, c: w >= 0.95 and c >= 1 / 1.2)
        goal(4, f"{BIG // MB} MB non-zip (transfer + sha256), against curl -o", ">= 0.9x curl", wblob, curl,
             lambda w, c: w >= 0.9)
    emit("sha256 cost: wheelpick's store hashes every download while streaming whether or not the page gives a "
         "hash, so the page with and without `#sha256=` differ only in what the hash is compared to; the hash "
         "itself is priced by `openssl dgst` on the same bytes (same libcrypto), relative to curl's transfer. "
         "The valid wheel is also checked against its RECORD (every member re-read and hashed) after the download.")
    emit()
    commands([curl, curl_sync, wsha, wnosha, wblob, dgst])

    # a mid-size valid wheel against the durable download's least cost
    dm_, e_mid = wp_env("mid")
    destm_ = os.path.join(dm_, "dest")
    run_plain([WP, "update", "--index", f"{srv.base}/mid-sha.html"], e_mid)
    cmid = os.path.join(cdest, mid_fn)
    curl_mid = Cmd(f"curl, {MID // MB} MB, then sync FILE (anchor)",
                   ["sh", "-c", 'curl -sS --fail -o "$1" "$2" && sync "$1"', "sh", cmid, f"{srv.base}/{mid_fn}"],
                   setup=synced(lambda: rm(cmid)))
    wmid = Cmd(f"wheelpick -d, valid {MID // MB} MB wheel, sha256 in the page",
               [WP, "midpkg"] + tgt + ["--index", f"{srv.base}/mid-sha.html", "-d", destm_], e_mid,
               synced(lambda: rm(destm_, e_mid["WHEELPICK_CACHE_DIR"])))
    dmid = Cmd(f"openssl dgst -sha256 of the {MID // MB} MB wheel (one hash pass)",
               ["openssl", "dgst", "-sha256", os.path.join(root, mid_fn)])
    measure([curl_mid, wmid, dmid], runs=1 if QUICK else 3, warmup=1)
    wmid.peer = curl_mid
    for _ in modes([curl_mid, wmid, dmid]):
        rm_ = ratio(curl_mid, wmid)
        emit(f"### One valid {MID // MB} MB wheel against curl + sync")
        emit()
        table([curl_mid, wmid, dmid], {
            wmid.label: f"{mid_size / 1e6 / med(wmid, 'wall'):.0f} MB/s; {rm_:.2f}x curl+sync; target >= 0.9x: "
                        + verdict(rm_ >= 0.9, f"{rm_:.2f}x") + f"; floor: curl+sync {fmt_t(med(curl_mid, 'wall'))} "
                        f"(wheelpick hashes each byte twice, the file and its member, {fmt_t(2 * med(dmid, 'wall'))} of CPU)",
        })
        goal(4, f"verified {MID // MB} MB wheel, against curl -o + sync", ">= 0.9x curl + sync", wmid, curl_mid,
             lambda w, c: w >= 0.9)
    commands([curl_mid, wmid, dmid])
    rm(destm_, e_mid["WHEELPICK_CACHE_DIR"], cmid)

    # peak memory for a huge file
    d3, e_huge = wp_env("huge")
    dest3 = os.path.join(d3, "dest")
    run_plain([WP, "update", "--index", f"{srv.base}/big.html"], e_huge)
    huge = Cmd(f"wheelpick -d, valid {HUGE // MB} MB wheel",
               [WP, "hugepkg"] + tgt + ["--index", f"{srv.base}/big.html", "-d", dest3], e_huge,
               synced(lambda: rm(dest3, e_huge["WHEELPICK_CACHE_DIR"])))
    curlh = Cmd(f"curl, {HUGE // MB} MB (anchor)", curl_cmd(f"{srv.base}/{huge_fn}", os.path.join(cdest, huge_fn)),
                setup=synced(lambda: rm(os.path.join(cdest, huge_fn))))
    measure([curlh, huge], runs=1, warmup=0)
    rm(os.path.join(cdest, huge_fn), dest3, e_huge["WHEELPICK_CACHE_DIR"])
    huge.peer = curlh
    for _ in modes([curlh, huge]):
        hr = max(huge.rss)
        emit(f"### Peak memory, one {HUGE // MB} MB file")
        emit()
        table([curlh, huge], {huge.label: "peak RSS < 32 MB: " + verdict(hr < 32 * 1024, fmt_rss(hr))})
        goal(4, f"verified {HUGE // MB} MB wheel: peak RSS (wall and CPU against curl -o)", "peak RSS < 32 MB",
             huge, curlh, lambda w, c, ok=hr < 32 * 1024: ok)
    commands([curlh, huge])

    # 16 files at once against one by one
    for label, s, files, pgname, what in (
            ("loopback (nginx)", srv, many, "many.html", f"{MANY_SIZE // MB} MB"),
            ("loopback (nginx)", srv, small, "tiny.html", f"{SMALL_SIZE // 1024} KB"),
            (f"emulated remote server ({WAN_LATENCY_MS} ms per request, {WAN_RATE} MB/s per response)",
             serve(root, "wan", latency_ms=WAN_LATENCY_MS, rate_mbps=WAN_RATE), many, "many.html",
             f"{MANY_SIZE // MB} MB")):
        tag = ("lo" if s is srv else "wan") + pgname.split(".")[0]
        if s is not srv:
            legend["WAN"] = s.base
        many_ = many
        many = files
        dm, em = wp_env("many-" + tag)
        destm = os.path.join(dm, "dest")
        run_plain([WP, "update", "--index", f"{s.base}/{pgname}"], em)
        names = [fn.split("-")[0] for fn, _ in many]
        base_args = tgt + ["--index", f"{s.base}/{pgname}", "-d", destm]
        reset = lambda destm=destm, em=em: rm(destm, em["WHEELPICK_CACHE_DIR"])  # noqa: E731
        together = Cmd(f"wheelpick, {MANY_N} x {what} in one command", [WP] + names + base_args, em, reset)
        onebyone = Cmd(f"wheelpick, the same {MANY_N} one command each, one after another",
                       [[WP, n] + base_args for n in names], em, reset,
                       show=abbreviate(f"for p in {' '.join(names)}; do WHEELPICK_CATALOG={em['WHEELPICK_CATALOG']} "
                                       f"WHEELPICK_CACHE_DIR={em['WHEELPICK_CACHE_DIR']} {WP} $p "
                                       + " ".join(shlex.quote(a) for a in base_args) + "; done"))
        cdir = os.path.join(WORK, "curl-many")
        curl_seq = Cmd(f"curl, the same {MANY_N} one after another in one process (anchor)",
                       ["curl", "-sS", "--fail"] + sum((["-o", os.path.join(cdir, fn), f"{s.base}/{fn}"]
                                                        for fn, _ in many), []),
                       setup=lambda cdir=cdir: (rm(cdir), os.makedirs(cdir)))
        curl_par = Cmd(f"curl --parallel, the same {MANY_N} (anchor)",
                       ["curl", "-sS", "--fail", "--parallel", "--parallel-max", "8"]
                       + sum((["-o", os.path.join(cdir, fn), f"{s.base}/{fn}"] for fn, _ in many), []),
                       setup=lambda cdir=cdir: (rm(cdir), os.makedirs(cdir)))
        measure([onebyone, together, curl_seq, curl_par], runs=1 if QUICK else (3 if s is srv else heavy(3)),
                warmup=1 if s is srv else 0)
        together.peer, onebyone.peer, curl_par.peer = curl_seq, curl_seq, curl_seq
        for _ in modes([onebyone, together, curl_seq, curl_par]):
            r = ratio(onebyone, together)
            lo, hi = pair_ratios(onebyone, together)
            emit(f"### {MANY_N} x {what}: {label}")
            emit()
            rs = ratio(curl_seq, together)
            table([onebyone, together, curl_seq, curl_par], {
                together.label: f"{r:.2f}x faster than one by one (pairs {lo:.2f}–{hi:.2f}); {rs:.2f}x serial curl, "
                                f"target not slower (>= 1x): " + verdict(rs >= 1, f"{rs:.2f}x")
                                + f"; floor (no tool fetches faster): curl --parallel {fmt_t(med(curl_par, 'wall'))}",
                curl_par.label: f"{ratio(curl_seq, curl_par):.2f}x the speed of curl one after another",
            })
            if s is srv:
                goal(4, f"{MANY_N} x {what} over loopback in one command, against serial curl",
                     ">= 1x serial curl (item 1)", together, curl_seq, lambda w, c: w >= 1)
            else:
                goal(4, f"{MANY_N} x {what} from an emulated remote host, against curl --parallel", "(report)",
                     together, curl_par)
        emit(f"Server: {s.kind}. wheelpick makes each file durable (synced) before it returns; curl does not.")
        emit()
        commands([onebyone, together, curl_seq, curl_par])
        rm(cdir, destm, em["WHEELPICK_CACHE_DIR"])
        many = many_
    return srv, root, big_fn, big_sha, dep_fn


def case5(WP, PY, big):
    cp_header(5, "resolving with dependencies")
    d, env = wp_env("tv")
    sample = os.path.join(WORK, "sample")
    run_plain([PY, os.path.join(ROOT, "sample", "mksample.py"), sample])
    legend["SAMPLE"] = sample
    fl = f"file://{sample}/whl/torch_stable.html"
    # the sample's local page gives no PEP 658 files: a dry run reads the (local) wheels' own
    # METADATA only when allowed to, since a remote index would make that a full download
    run_plain([WP, "torchvision", "--cuda", "11.2", "--python", "3.8", "--platform", "linux_x86_64", "--dry-run",
               "--allow-full-downloads", "--index", fl], env)
    tv = Cmd("wheelpick torchvision --dry-run, warm catalog (closure: 5 projects)",
             [WP, "torchvision", "--cuda", "11.2", "--python", "3.8", "--platform", "linux_x86_64", "--dry-run"], env)
    ptarget = os.path.join(WORK, "pip-target")
    pipr = Cmd("anchor: pip install --dry-run of the same closure (exact labels)",
               [PY, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-index", "--find-links", fl,
                "--only-binary=:all:", "--python-version", "3.8", "--platform", "linux_x86_64", "--target", ptarget,
                "torchvision==0.9.0+cu111", "torch==1.8.0+cu111"], PIP_ENV, lambda: rm(ptarget))
    measure([tv, pipr], runs=max(RUNS, 3 if QUICK else 10), warmup=1)
    out = run_plain([WP, "torchvision", "--cuda", "11.2", "--python", "3.8", "--platform", "linux_x86_64",
                     "--dry-run", "--json"], env).stdout
    import json
    picks = sorted(f"{p['project']} {p['version']}" for p in json.loads(out)["picks"])
    tv.peer = pipr
    for _ in modes([tv, pipr]):
        table([tv, pipr], {tv.label: f"{ratio(pipr, tv):.1f}x faster than pip's resolution; picks: {', '.join(picks)}"})
        goal(5, "torchvision closure, --dry-run, warm catalog, against pip install --dry-run", "(report)", tv, pipr)
    commands([tv, pipr])

    # metadata of a large remote wheel
    if big is None:
        emit("(metadata case skipped: it needs case 4's big wheel)")
        return
    srv, root, big_fn, big_sha, dep_fn = big
    # the same wheel behind a PEP 658 page: .metadata next to it, data-core-metadata with its hash
    import zipfile
    with zipfile.ZipFile(os.path.join(root, big_fn)) as z:
        meta = z.read("bigpkg-1.0.dist-info/METADATA")
    with open(os.path.join(root, big_fn + ".metadata"), "wb") as f:
        f.write(meta)
    msha = hashlib.sha256(meta).hexdigest()
    dsha = file_sha(os.path.join(root, dep_fn))
    page(os.path.join(root, "meta.html"), [(big_fn, big_fn, ""), (dep_fn, dep_fn, "")])
    page(os.path.join(root, "meta658.html"),
         [(f"{big_fn}#sha256={big_sha}", big_fn, f' data-core-metadata="sha256={msha}" data-dist-info-metadata="sha256={msha}"'),
          (f"{dep_fn}#sha256={dsha}", dep_fn, "")])
    emit(f"### Metadata of a large remote wheel ({os.path.getsize(os.path.join(root, big_fn)) / 1e6:.0f} MB, "
         "Requires-Dist: bigdep)")
    emit()
    shown = []
    tgt = ["--cuda", "cpu", "--python", "3.8", "--platform", "linux_x86_64"]
    for label, pg, kind in (("wheelpick --dry-run, find-links page without PEP 658", "meta.html", "wp"),
                            ("wheelpick --dry-run, page with PEP 658 data-core-metadata", "meta658.html", "wp"),
                            ("anchor: pip install --dry-run, page without PEP 658", "meta.html", "pip"),
                            ("anchor: pip install --dry-run, page with PEP 658", "meta658.html", "pip")):
        dd, e = wp_env(f"meta-{kind}-{pg.split('.')[0]}")
        if kind == "wp":
            c = Cmd(label, [WP, "bigpkg"] + tgt + ["--dry-run", "--index", f"{srv.base}/{pg}"], e,
                    lambda e=e: rm(e["WHEELPICK_CATALOG"], e["WHEELPICK_CACHE_DIR"]))
        else:
            c = Cmd(label, [PY, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-index",
                            "--find-links", f"{srv.base}/{pg}", "--only-binary=:all:", "--python-version", "3.8",
                            "--platform", "linux_x86_64", "--target", ptarget, "bigpkg"], PIP_ENV, lambda: rm(ptarget))
        shown.append(c)
    shown[0].peer, shown[1].peer = shown[2], shown[3]
    # one cold run of each per mode (the requests are the point), in one round
    logs = {}
    for mode in MODES:
        with hog_.cpu_hog(mode == "hog"):
            load0 = hog_.loadavg()
            for c in shown:
                mark = srv.log_mark()
                x = run_once(c, wrap=True)
                c.by_mode[mode] = [x]
                c.rss.append(x["rss"])
                logs[(mode, c.label)] = srv.log_since(mark)
            load1 = hog_.loadavg()
        for c in shown:
            c.loads[mode] = (load0, load1)
    for mode in modes(shown):
        emit(mode_line(shown))
        emit()
        emit("| command | wall | CPU user+sys | peer | peer / it, wall | peer / it, CPU | requests to the server "
             "| bytes served | what was fetched |")
        emit("|---|---|---|---|---|---|---|---|---|")
        for c in shown:
            reqs = logs[(mode, c.label)]
            nbytes = sum(int(r[3]) for r in reqs if len(r) >= 4 and r[3].isdigit())
            what = ", ".join(f"{r[0]} {r[1].split('/')[-1]} {r[2]}" for r in reqs)
            rw, rc = peer_cells(c)
            emit(f"| {c.label} | {fmt_t(med(c, 'wall'))} | {fmt_t(med(c, 'cpu'))} | "
                 f"{c.peer.label if c.peer else ''} | {rw} | {rc} | {len(reqs)} | {nbytes / 1e6:.1f} MB | "
                 f"{what} |")
        emit()
        goal(5, "dry run needing a large remote wheel's metadata, PEP 658 page, against pip", "(report)",
             shown[1], shown[3])
        rm(ptarget)
    emit("One cold run each (fresh catalog and cache), requests and bytes from the server's access log.")
    emit()
    commands(shown)


def case6(WP, PY):
    """issue 6: a two-target mirror of torch+torchvision from a warm cache, against the pip download
    loop users run today for the same targets (one pip run per target)."""
    cp_header(6, "a two-target mirror (torch + torchvision) from a warm cache, against a pip download loop")
    d, env = wp_env("mirror")
    sample = os.path.join(WORK, "sample6")
    run_plain([PY, os.path.join(ROOT, "sample", "mksample.py"), sample])
    fl = f"file://{sample}/whl/torch_stable.html"
    mdir = os.path.join(WORK, "mirror-out")
    pdir = os.path.join(WORK, "pip-loop")
    targets = ["--cuda", "11.2", "--python", "3.8", "--platform", "linux_x86_64", "--platform", "win_amd64"]
    # warm: the catalog and the file cache hold everything once
    run_plain([WP, "mirror", mdir, "torch", "torchvision", "--index", fl] + targets, env)
    wp = Cmd("wheelpick mirror, 2 targets (linux_x86_64, win_amd64), warm cache",
             [WP, "mirror", mdir, "torch", "torchvision", "--index", fl] + targets, env, lambda: rm(mdir))
    loop = []
    for plat in ("linux_x86_64", "win_amd64"):
        loop.append([PY, "-m", "pip", "download", "--no-index", "--find-links", fl, "--only-binary=:all:",
                     "--python-version", "3.8", "--platform", plat, "-d", os.path.join(pdir, plat),
                     "torch==1.8.0+cu111", "torchvision==0.9.0+cu111"])
    pip = Cmd("anchor: pip download, once per target (exact +cu111 labels given by hand)", loop, PIP_ENV,
              lambda: rm(pdir))
    measure([wp, pip], runs=max(RUNS, 3 if QUICK else 5), warmup=1)
    nfiles = sum(len(fs) for _, _, fs in os.walk(os.path.join(mdir, "files")))
    npages = sum(1 for _, _, fs in os.walk(os.path.join(mdir, "simple")) for f in fs)
    npip = sum(len(fs) for _, _, fs in os.walk(pdir))
    wp.peer = pip
    for _ in modes([wp, pip]):
        table([wp, pip], {wp.label: f"{ratio(pip, wp):.1f}x faster; wrote {nfiles} files (wheels and .metadata) and "
                                    f"{npages} index pages (HTML + JSON)",
                          pip.label: f"{npip} wheels, no index (pip found no pywin32 for win_amd64: it evaluates markers "
                                     "on this Linux machine)"})
        goal(6, "two-target mirror (torch + torchvision), warm cache, against a pip download loop", "(report)", wp, pip)
    commands([wp, pip])


def case8(WP, PY):
    """issue 26: installing a wheelhouse of many deflated wheels into a fresh venv: wheelpick install
    against pip install --no-index (byte-compiling, its default, and --no-compile), over a floor of
    parallel extraction of the same wheels plus one sync."""
    cp_header(8, "install a wheelhouse of deflated wheels into a fresh venv, against pip and a floor")
    sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
    import mkwheels
    import random
    nw, nf, size = (6, 200, 8000) if QUICK else (22, 700, 30000)
    wh = os.path.join(WORK, "install-wh")
    rm(wh)
    os.makedirs(wh)
    rnd = random.Random(26)
    words = [bytes(rnd.choice(b"abcdefghijklmnopqrstuvwxyz_ ") for _ in range(rnd.randint(3, 12))) for _ in range(4000)]
    lines = []
    for w in range(nw):
        name = "benchpkg%02d" % w
        members = []
        for i in range(nf):
            body = b"\n".join(b"x_%d = '%s'" % (k, b" ".join(rnd.choice(words) for _ in range(6)))
                              for k in range(size // 60))
            members.append(("%s/m%04d.py" % (name, i), body + b"\n", 0o100644))
        eps = "[console_scripts]\n%s = %s.m0000:main\n" % (name, name)
        fn = "%s-1.0-py3-none-any.whl" % name
        sha = mkwheels.any_wheel(os.path.join(wh, fn), name, "1.0", members, entry_points=eps)
        lines.append("%s==1.0 --hash=sha256:%s\n" % (name, sha))
    with open(os.path.join(wh, "requirements.txt"), "w") as f:
        f.write("# written by wheelpick for:\n#   the bench\n" + "".join(lines))
    venv = os.path.join(WORK, "install-venv")
    vpy = os.path.join(venv, "bin", "python")

    def fresh():
        rm(venv)
        run_plain([PY, "-m", "venv", "--without-pip", venv])
    floor_dir = os.path.join(WORK, "install-floor")
    floor_py = ("import os, sys, zipfile, concurrent.futures as cf\n"
                "wh, out = sys.argv[1], sys.argv[2]\n"
                "def one(p):\n    zipfile.ZipFile(p).extractall(out)\n"
                "with cf.ProcessPoolExecutor(os.cpu_count()) as ex:\n"
                "    list(ex.map(one, [os.path.join(wh, f) for f in os.listdir(wh) if f.endswith('.whl')]))\n"
                "os.sync()\n")
    wp = Cmd("wheelpick install (verified, atomic, no byte-compiling)", [WP, "install", wh, "--python", vpy], {}, fresh)
    pip = Cmd("anchor: pip install --no-index --require-hashes (byte-compiles)",
              [PY, "-m", "pip", "--python", vpy, "install", "-q", "--no-index", "--find-links", wh, "--require-hashes",
               "-r", os.path.join(wh, "requirements.txt")], PIP_ENV, fresh)
    pipnc = Cmd("pip install --no-compile",
                [PY, "-m", "pip", "--python", vpy, "install", "-q", "--no-compile", "--no-index", "--find-links", wh,
                 "--require-hashes", "-r", os.path.join(wh, "requirements.txt")], PIP_ENV, fresh)
    if shutil.which("unzip"):
        # the issue's floor: unzip (C) on every CPU, then one sync of that file system (as install syncs)
        floor = Cmd("floor: parallel unzip of the same wheels + sync",
                    ["sh", "-c", f"ls {shlex.quote(wh)}/*.whl | xargs -P {os.cpu_count()} -n 1 unzip -q -o -d "
                                 f"{shlex.quote(floor_dir)}; sync -f {shlex.quote(floor_dir)}"], {}, lambda: rm(floor_dir))
    else:
        floor = Cmd("floor: parallel extraction of the same wheels (Python zipfile, no unzip here) + sync",
                    [PY, "-c", floor_py, wh, floor_dir], {}, lambda: rm(floor_dir))
    wenv = {"WHEELPICK_CACHE_DIR": os.path.join(WORK, "install-cache")}
    fresh()
    run_plain([WP, "install", wh, "--link-mode", "hardlink", "--python", vpy], wenv)  # fills the store
    again = Cmd("wheelpick install --link-mode hardlink, the wheels already unpacked in the cache",
                [WP, "install", wh, "--link-mode", "hardlink", "--python", vpy], wenv, fresh)
    measure([wp, pip, pipnc, floor, again], runs=1 if QUICK else heavy(3), warmup=0 if QUICK else 1)
    wp.peer, again.peer, pipnc.peer = pip, pip, pip
    for _ in modes([wp, pip, pipnc, floor, again]):
        table([wp, pip, pipnc, floor, again], {
            wp.label: f"{ratio(pip, wp):.1f}x pip, {ratio(pipnc, wp):.1f}x pip --no-compile, "
                      f"{med(wp, 'wall') / max(med(floor, 'wall'), 1e-9):.2f}x the floor; {nw} wheels, {nw * nf} files",
            again.label: f"{ratio(pip, again):.1f}x pip"})
        goal(8, "install a wheelhouse into a fresh venv, against pip install (byte-compiles)", "(report)", wp, pip)
        goal(8, "the same against pip install --no-compile", "(report)", wp, pipnc)
        goal(8, "the same against its floor (parallel unzip + sync)", "(report)", wp, floor)
    commands([wp, pip, pipnc, floor, again])
    rm(os.path.join(WORK, "install-cache"))
    rm(wh, venv, floor_dir)


SCALE_COPIES = 10 if QUICK else 100
SCALE_TARGETS = ["--cuda", "10.2", "--cuda", "11.1", "--cuda", "11.0", "--cuda", "cpu", "--python", "3.6", "--python", "3.7",
                 "--python", "3.8", "--python", "3.9", "--platform", "linux_x86_64"]


def scale_page(dst, copies):
    """The real 2021 page `copies` times over, each copy a distinct set of releases: copy k adds 100*k
    to every version's third release number (1.8.0+cu111 -> 1.8.9900+cu111 in copy 99; the page's
    own never pass 31), so folders, tags, local labels and major.minor (which PyTorch's tables and
    the CUDA rule read) stay as they were, and the URLs differ. Returns the number of links."""
    import re
    ver = re.compile(r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$")
    with open(PAGE2021) as f:
        hrefs = re.findall(r'href="([^"]*)"', f.read())
    n = 0
    with open(dst, "w") as f:
        for k in range(copies):
            for h in hrefs:
                folder, _, fn = h.rpartition("/")
                name, v, rest = fn.split("-", 2)
                if k:
                    m = ver.match(v)
                    v = f"{m.group(1)}.{m.group(2) or 0}.{int(m.group(3) or 0) + 100 * k}{m.group(4)}"
                h2 = (folder + "/" if folder else "") + f"{name}-{v}-{rest}"
                f.write(f'<a href="{h2}">{h2}</a><br>\n')
                n += 1
    return n


def scale_cmds(WP, tag=""):
    """case 7's commands for one binary over one catalog (crawled here, once): the warm pick, the
    same with an == pin, and a mirror --dry-run for 16 targets and for 1."""
    page = os.path.join(DATA, f"torch_stable_2021-03-12-x{SCALE_COPIES}.html")
    if not os.path.exists(page):
        os.makedirs(DATA, exist_ok=True)
        scale_page(page + ".tmp", SCALE_COPIES)
        os.replace(page + ".tmp", page)
    d, env = wp_env("scale" + tag)
    legend["SCALEPAGE"] = page
    run_plain([WP, "update", "--index", "file://" + page], env)
    one = ["--cuda", "11.1", "--python", "3.8", "--platform", "linux_x86_64"]
    mdir = os.path.join(d, "mirror")
    p = f"{tag}: " if tag else ""
    return [
        Cmd(f"{p}wheelpick torch --dry-run --no-deps, warm", [WP, "torch"] + one + ["--dry-run", "--no-deps"], env),
        Cmd(f"{p}wheelpick torch==1.8.0 --dry-run --no-deps, warm", [WP, "torch==1.8.0"] + one + ["--dry-run", "--no-deps"], env),
        Cmd(f"{p}mirror --dry-run torch, 16 targets", [WP, "mirror", mdir, "torch", "--dry-run", "--no-deps"] + SCALE_TARGETS, env),
        Cmd(f"{p}mirror --dry-run torch, 1 target", [WP, "mirror", mdir, "torch", "--dry-run", "--no-deps"] + one, env),
    ]


def case11(WP, PY):
    """issue 29: a valid 1 GB wheel fetched and verified (sha256 in the page, RECORD) against curl -o and
    a sync of the file, the same durability; >= 0.95x in every run of three, runs alternated."""
    cp_header(11, f"one verified {BIG // MB} MB wheel against curl + sync, every run")
    root = stand_in_root("srv1g")
    fn = "bigpkg-1.0-py3-none-any.whl"
    note(f"generating a {BIG // MB} MB valid wheel")
    sha, size = mkwheel.big_wheel(os.path.join(root, fn), "bigpkg", "1.0", "py3-none-any", BIG - 4096, ("bigdep>=1",))
    page(os.path.join(root, "big-sha.html"), [(f"{fn}#sha256={sha}", fn, "")])
    srv = serve(root, "1g")
    legend["BIG1"] = srv.base
    d, env = wp_env("1g")
    dest = os.path.join(d, "dest")
    run_plain([WP, "update", "--index", f"{srv.base}/big-sha.html"], env)
    cfile = os.path.join(WORK, "curl-1g.whl")
    curl_sync = Cmd(f"curl, {BIG // MB} MB, then sync FILE (anchor with the same durability)",
                    ["sh", "-c", 'curl -sS --fail -o "$1" "$2" && sync "$1"', "sh", cfile, f"{srv.base}/{fn}"],
                    setup=synced(lambda: rm(cfile)))
    wsha = Cmd(f"wheelpick -d, valid {BIG // MB} MB wheel, sha256 in the page",
               [WP, "bigpkg", "--cuda", "cpu", "--python", "3.8", "--platform", "linux_x86_64", "--no-deps", "--index",
                f"{srv.base}/big-sha.html", "-d", dest], env, synced(lambda: rm(dest, env["WHEELPICK_CACHE_DIR"])))
    measure([curl_sync, wsha], runs=1 if QUICK else 3, warmup=1)
    wsha.peer = curl_sync
    for _ in modes([curl_sync, wsha]):
        rs = [a["wall"] / b["wall"] for a, b in zip(curl_sync.samples, wsha.samples)]
        emit(f"### One valid {BIG // MB} MB wheel against curl + sync, run by run")
        emit()
        table([curl_sync, wsha], {
            curl_sync.label: f"{size / 1e6 / med(curl_sync, 'wall'):.0f} MB/s",
            wsha.label: f"{size / 1e6 / med(wsha, 'wall'):.0f} MB/s; run by run {', '.join(f'{r:.2f}x' for r in rs)} "
                        f"curl + sync; target >= 0.95x in every run: " + verdict(min(rs) >= 0.95, f"lowest {min(rs):.2f}x"),
        })
        goal(11, f"verified {BIG // MB} MB wheel against curl -o + sync, every run", ">= 0.95x in every run",
             wsha, curl_sync, lambda w, c, ok=min(rs) >= 0.95: ok)
    commands([curl_sync, wsha])
    srv.stop()
    rm(root, d, cfile)


class HttpServerModule:
    """`python3 -m http.server` as people run it to serve a wheelhouse on a LAN: HTTP/1.0 (a connection
    per answer) and a listen backlog of 5."""

    def __init__(self, root, name):
        self.dir = os.path.join(WORK, "srv-" + name)
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_port()
        self.kind = "python3 -m http.server (HTTP/1.0, listen backlog 5)"
        self.proc = subprocess.Popen([sys.executable, "-m", "http.server", str(self.port), "--bind", "127.0.0.1",
                                      "--directory", root], stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(self.dir, "stderr"), "wb"))
        wait_port(self.port, self.proc, "python3 -m http.server")
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self):
        Server.stop(self)


def case12(WP, PY):
    """issue 36: 16 small wheels from `python3 -m http.server` against the same from nginx; with -q, and
    without it (the plan's HEAD probe for sizes first). Target: within 1.5x of nginx."""
    cp_header(12, f"{MANY_N} small wheels ({SMALL_SIZE // 1024} KB) from python3 -m http.server against nginx")
    root = stand_in_root("srvsmall")
    small = []
    for i in range(MANY_N):
        fn = f"tiny{i:02d}-1.0-py3-none-any.whl"
        sha, _ = mkwheel.big_wheel(os.path.join(root, fn), f"tiny{i:02d}", "1.0", "py3-none-any", SMALL_SIZE - 4096,
                                   seed=200 + i)
        small.append((fn, sha))
    # no sha256 in the page and no sizes: the plan asks the servers with HEAD when not -q
    page(os.path.join(root, "tiny.html"), [(fn, fn, "") for fn, _ in small])
    ng = serve(root, "small-nginx")
    if ng.kind != "nginx":
        emit("(case 12 skipped: it needs nginx)")
        emit()
        return
    hs = HttpServerModule(root, "small-httpserver")
    servers.append(hs)
    legend["NGX"] = ng.base
    legend["HTTPSRV"] = hs.base
    tgt = ["--cuda", "cpu", "--python", "3.8", "--platform", "linux_x86_64", "--no-deps"]
    names = [fn.split("-")[0] for fn, _ in small]
    cmds = {}
    for tag, s in (("nginx", ng), ("http.server", hs)):
        d, env = wp_env("small-" + tag.replace(".", ""))
        dest = os.path.join(d, "dest")
        run_plain([WP, "update", "--index", f"{s.base}/tiny.html"], env)
        for q in (True, False):
            label = f"wheelpick {'-q ' if q else ''}-d, {MANY_N} x {SMALL_SIZE // 1024} KB from {tag}" + \
                    ("" if q else " (HEAD for sizes first)")
            cmds[(tag, q)] = Cmd(label, [WP] + (["-q"] if q else []) + names + tgt + ["--index", f"{s.base}/tiny.html",
                                                                                      "-d", dest], env,
                                 lambda dest=dest, env=env: rm(dest, env["WHEELPICK_CACHE_DIR"]))
    order = [cmds[("nginx", True)], cmds[("http.server", True)], cmds[("nginx", False)], cmds[("http.server", False)]]
    measure(order, runs=max(RUNS, 5), warmup=1)
    for q in (True, False):
        cmds[("http.server", q)].peer = cmds[("nginx", q)]
    for _ in modes(order):
        extras = {}
        for q in (True, False):
            a, b = cmds[("nginx", q)], cmds[("http.server", q)]
            r = med(b, "wall") / med(a, "wall")
            extras[b.label] = f"{r:.2f}x nginx's wall; target <= 1.5x: " + verdict(r <= 1.5, f"{r:.2f}x")
            goal(12, f"{MANY_N} small wheels from python3 -m http.server{', -q' if q else ''}, against nginx "
                     "(nginx / http.server)", "<= 1.5x nginx's wall (>= 0.67 here)", b, a, lambda w, c: w >= 1 / 1.5)
        table(order, extras)
    emit(f"Servers: nginx ({ng.base}) and {hs.kind} ({hs.base}), the same files; the page gives no sha256 "
         "and no sizes. Before issue 36 the http.server rows took 1.05 s (-q) and 2.1 s: a SYN dropped by its "
         "full listen queue waited the kernel's 1 s retransmit, once for the HEADs and once for the GETs.")
    emit()
    commands(order)
    ng.stop()
    hs.stop()
    rm(root)


def case7(WP, PY):
    """issue 17: a warm pick and a mirror dry run over a catalog holding 100 copies of the 2021 page."""
    cp_header(7, f"pick at scale: a catalog holding {SCALE_COPIES}x the real 2021 page")
    cmds = scale_cmds(WP)
    pick, pin, m16, m1 = cmds
    measure(cmds, runs=max(RUNS, 3 if QUICK else 9), warmup=1)
    m16.peer = m1
    for _ in modes(cmds):
        r = med(m16, "wall") / med(m1, "wall")
        table(cmds, {
            pick.label: "goal < 25 ms: " + verdict(med(pick, "wall") < 0.025, fmt_t(med(pick, "wall"))),
            pin.label: "(the pin is the oldest copy's release: the version order in SQL reaches it at once)",
            m16.label: f"{r:.2f}x one target; goal <= 2x: " + verdict(r <= 2, f"{r:.2f}x"),
        })
        goal(7, f"warm pick, {SCALE_COPIES}x the 2021 page in one catalog", "< 25 ms wall", pick,
             met=lambda w, c: w < 0.025)
        goal(7, f"16-target mirror --dry-run at {SCALE_COPIES}x, against one target (one / sixteen)",
             "16 targets <= 2x one (>= 0.5 here)", m16, m1, lambda w, c: w >= 0.5)
    emit(f"The catalog: {SCALE_COPIES} copies of the real page ({SCALE_COPIES * 1499:,} links; torch: "
         f"{SCALE_COPIES * 777:,} files), copy k's versions with 100*k added to the third release number "
         "(bench.py scale_page). The 16 targets: --cuda 10.2, 11.1, 11.0, cpu x --python 3.6-3.9, linux_x86_64.")
    emit()
    commands(cmds)


def case9(WP, PY):
    """issue 24: the solver at 1,000 and 10,000 projects against pip's resolver, on bench/solve_scale.py's
    dependency web: wheelpick cold (fresh catalog: crawl, every metadata file, solve) and warm (the
    same command again), and pip install --dry-run --report at 1,000 (at 10,000 it would take longer
    than the whole bench), alternated. Every plan is checked against the web's rules."""
    import json
    import solve_scale
    cp_header(9, "the solver at scale: dependency webs of 1,000 and 10,000 projects")
    sizes, pip_max = ((100,), 100) if QUICK else ((1000, 10000), 1000)
    for n in sizes:
        work = os.path.join(WORK, f"solve{n}")
        os.makedirs(work)
        web = os.path.join(work, "web")
        run_plain([sys.executable, os.path.join(ROOT, "tests", "fixtures", "mkweb.py"), web, str(n)])
        srv, base = solve_scale.serve(web, os.path.join(work, "server.log"))
        try:
            url = base + "/index.html"
            argv = [WP, "pick", "p0", "--index", url, *solve_scale.TARGET, "--dry-run", "--json"]
            dc, ec = wp_env(f"solve{n}-cold")
            dw, ew = wp_env(f"solve{n}-warm")
            run_plain(argv, ew)   # the warm command's catalog and metadata
            cold = Cmd("wheelpick cold (fresh catalog: crawl, metadata, solve)", argv, ec,
                       lambda ec=ec: rm(ec["WHEELPICK_CATALOG"], ec["WHEELPICK_CACHE_DIR"]))
            warm = Cmd("wheelpick warm (the same command again)", argv, ew)
            cmds = [cold, warm]
            report = os.path.join(work, "pip-report.json")
            pip = None
            if n <= pip_max:
                pip = Cmd("anchor: pip install --dry-run --report", [PY, "-m", "pip", "install", "--dry-run",
                                                                     "--ignore-installed", "--quiet", "--report", report,
                                                                     "--no-index", "--find-links", url, "p0"], PIP_ENV)
                cmds = [pip] + cmds
                cold.peer = warm.peer = pip
            # pip takes tens of seconds at 1,000: one round per mode, no warm-up (the server and the
            # page cache are warm from the run above), as before; wheelpick alone: three
            measure(cmds, runs=1 if QUICK or pip else 3, warmup=0 if pip else 1)
            picks = {x["project"]: x["version"] for x in json.loads(run_plain(argv, ew).stdout)["picks"]}
            answers = {warm.label: solve_scale.rules_ok(n, picks)}
            picks = {x["project"]: x["version"] for x in json.loads(run_plain(argv, ec).stdout)["picks"]}
            answers[cold.label] = solve_scale.rules_ok(n, picks)
            if pip:
                answers[pip.label] = solve_scale.rules_ok(n, {x["metadata"]["name"]: x["metadata"]["version"]
                                                              for x in json.load(open(report))["install"]})
            emit(f"### {n:,} projects ({3 * n:,} wheels, one find-links page with PEP 658 metadata)")
            emit()
            for _ in modes(cmds):
                table(cmds, {c.label: f"answer: {answers[c.label]}" for c in cmds})
                if pip:
                    goal(9, f"solve {n:,} projects, cold, against pip", ">= 50x pip (at 1,000)", cold, pip,
                         lambda w, c: w >= 50)
                goal(9, f"warm solve, {n:,} projects", "<= 1.1 s wall at 10,000 (item 4)" if n >= 10000 else "(report)",
                     warm, met=(lambda w, c: w <= 1.1) if n >= 10000 else None)
            commands(cmds)
        finally:
            srv.terminate()
            srv.wait()
            rm(work)


def ceph_idle(ceph, most=30.0):
    """Wait (at most `most` seconds) until the Ceph daemons under ceph/ used under 5% of a CPU for
    two half-seconds in a row: what a removal leaves them to do is not the next command's to pay."""
    def cpu():
        t = 0
        for f in ("mon.pid", "osd.pid", "rgw.pid"):
            try:
                with open(os.path.join(ceph, f)) as pf, open(f"/proc/{pf.read().strip()}/stat") as st:
                    fields = st.read().rsplit(")", 1)[1].split()
                    t += int(fields[11]) + int(fields[12])
            except (OSError, ValueError, IndexError):
                pass
        return t / os.sysconf("SC_CLK_TCK")
    quiet, prev, end = 0, cpu(), time.time() + most
    while quiet < 2 and time.time() < end:
        time.sleep(0.5)
        now = cpu()
        quiet = quiet + 1 if now - prev < 0.025 else 0
        prev = now


S3_N, S3_SIZE = (100, 1 * MB) if QUICK else (1000, 2 * MB)   # case 10: files published, each of this size
S3_PARALLEL = 16


def sections(text):
    """(heading, body) for each '### ' section of a script's markdown output."""
    out, head, body = [], "", []
    for line in text.splitlines():
        if line.startswith("### "):
            if head or body:
                out.append((head, "\n".join(body)))
            head, body = line[4:], []
        else:
            body.append(line)
    out.append((head, "\n".join(body)))
    return out


def case13(WP, PY):
    """issue 42 items 4 and 5: the warm solve and the warm pick over 10 sources (bench/read_once.py: wall,
    CPU and syscalls), and the crawl against bench/crawl_floor.c (bench/crawl_floor.py), each at the
    load found and with the CPU hog (bench/hog.py, started by the scripts)."""
    cp_header(13, "SQLite read once, and the crawl against its floor")
    env = {**os.environ, "BENCH_WORK": WORK, "WP_SHARED_DATA": SHARED}
    if QUICK:
        env.update(READ_ONCE_PROJECTS="300", READ_ONCE_COPIES="3", READ_ONCE_ROUNDS="1", CRAWL_ROUNDS="3")
    # read_once.py builds a 10,000-project web and ten 100-copy catalogs: once, for both modes
    out = subprocess.run([sys.executable, os.path.join(HERE, "read_once.py"), WP], env={**env, "READ_ONCE_HOG": HOG},
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        emit(line)
    emit()
    for head, body in sections(out):
        rows = md_rows(body)
        CUR_MODE[0] = "hog" if head.endswith("CPU hog on the other core: yes") or HOG == "1" else "found"
        if not rows or len(rows[0]) < 3:
            continue
        name = head.split(";")[0]
        if name.startswith("warm solve"):
            tenk = "10,000" in name
            goal(13, name, "<= 1.1 s wall at 10,000 projects (item 4)" if tenk else "(report)", None,
                 met=(lambda w, c: w <= 1.1) if tenk else None, wall=parse_num(rows[0][1]), cpu=parse_num(rows[0][2]))
        elif name.startswith("warm pick"):
            goal(13, name, "< 25 ms wall (item 4)", None, met=lambda w, c: w < 0.025,
                 wall=parse_num(rows[0][1]), cpu=parse_num(rows[0][2]))
    for mode in modes([]):
        out = subprocess.run([sys.executable, os.path.join(HERE, "crawl_floor.py"), WP],
                             env={**env, "CRAWL_HOG": "1" if mode == "hog" else "0"},
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            emit(line)
        emit()
        wp = next((r for r in md_rows(out) if r[0].startswith("wheelpick")), None)
        if wp and len(wp) >= 5:
            goal(13, "crawl of the 2021 page into a fresh catalog, against bench/crawl_floor.c (floor / wheelpick)",
                 "<= 1.5x the floor (>= 0.67 here; item 5)", None, True, lambda w, c: w >= 1 / 1.5,
                 wall=inv(parse_num(wp[3])), cpu=inv(parse_num(wp[4])))


def case14(WP, PY):
    """issue 42 item 2: one pass per byte. A verified 1 GB stored wheel and a torch-shaped deflated one
    against curl -o + sync, install (copy) against unzip + sync and install --link-mode hardlink against
    cp -al + sync (bench/onepass.py: wall and CPU ratios, alternated, at the load found and with the
    CPU hog, as BENCH_HOG says)."""
    cp_header(14, "one pass per byte: verified downloads and install, wall and CPU, with and without a CPU hog")
    env = {**os.environ, "ONEPASS_ROWS": "stored,deflated,install,hardlink", "ONEPASS_HOG": HOG}
    if QUICK:
        env.update(ONEPASS_MB="100", ONEPASS_DEFLATED_MB="20", ONEPASS_ROUNDS="1")
    out = subprocess.run([sys.executable, os.path.join(HERE, "onepass.py"), WP], env=env,
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        emit(line)
    emit()
    goals = (("verified", "stored", ">= 0.95x curl + sync with the hog, CPU <= 1.2x curl's (item 2)",
              lambda w, c: w >= 0.95 and c >= 1 / 1.2),
             ("verified", "deflated", "(report; item 2's goal is the stored row's)", None),
             ("install (copy)", "", "(report)", None),
             ("install --link-mode hardlink", "", "(report)", None))
    for head, body in sections(out):
        mode = "hog" if head.endswith("CPU hog on the other core: yes") else "found"
        if mode not in MODES:
            continue
        rows = md_rows(body)
        wp = next((r for r in rows if r[0].startswith("wheelpick")), None)
        for first, kind, text, met in goals:
            if head.startswith(first) and kind in head and wp and len(wp) >= 5:
                CUR_MODE[0] = mode
                goal(14, head.split(";")[0], text, None, True, met, wall=parse_num(wp[3]), cpu=inv(parse_num(wp[4])))
                break


def case10(WP, PY):
    """issue 30: publishing a mirror of many files to S3-compatible storage (a Ceph RADOS Gateway on
    127.0.0.1, tests/server/ceph.sh), against the same wheels PUT by parallel `curl --aws-sigv4`."""
    total_mb = S3_N * S3_SIZE // MB
    cp_header(10, f"publish a mirror of {S3_N} wheels ({total_mb} MB; 10 targets) to S3 (Ceph RGW, 127.0.0.1), against "
                 f"{S3_PARALLEL} parallel curl --aws-sigv4 PUTs of the same wheels")
    import mkwheel
    ceph = os.path.join(WORK, "ceph")
    # one live bucket (see new_bucket), and room for the one being written
    env_ceph = dict(os.environ, CEPH_MEMSTORE_BYTES=str(2 * S3_N * S3_SIZE + 1024 * MB))
    run_plain([os.path.join(ROOT, "tests", "server", "ceph.sh"), "start", ceph], env_ceph)
    try:
        conf = {}
        with open(os.path.join(ceph, "env")) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                conf[k] = v
        ep = conf["S3_ENDPOINT"]
        s3env = {k: conf[k] for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION")}
        sig = ["--aws-sigv4", f"aws:amz:{conf['AWS_REGION']}:s3", "--user",
               f"{conf['AWS_ACCESS_KEY_ID']}:{conf['AWS_SECRET_ACCESS_KEY']}", "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"]
        whl = os.path.join(WORK, "s3-wheels")
        os.makedirs(whl)
        # S3_N files as 10 targets (5 Pythons x 2 platforms) of S3_N / 10 projects, one wheel each, as a
        # fleet's mirror is (at this branch's base the solver, recursing once per requirement,
        # overflowed its stack near 250 top-level requirements: a thousand one-wheel projects crashed)
        pys = ["38", "39", "310", "311", "312"]
        arches = ["x86_64", "aarch64"]
        entries, names, shas = [], [], {}
        for i in range(S3_N // 10):
            name = f"s3bench{i:04d}"
            names.append(name)
            for v in pys:
                for a in arches:
                    tag = f"cp{v}-cp{v}-manylinux_2_17_{a}"
                    fn = f"{name}-1.0-{tag}.whl"
                    sha, _ = mkwheel.big_wheel(os.path.join(whl, fn), name, "1.0", tag, S3_SIZE - 4096,
                                               seed=len(entries))
                    entries.append((f"{fn}#sha256={sha}", fn, ""))
                    shas[fn] = sha
        page(os.path.join(whl, "links.html"), entries)
        reqs = os.path.join(WORK, "s3-reqs.txt")
        with open(reqs, "w") as f:
            f.write("\n".join(names) + "\n")
        d, env = wp_env("s3")
        env.update(s3env)
        fl = f"file://{whl}/links.html"
        target = ["--cuda", "cpu"] + [a for v in pys for a in ("--python", f"{v[0]}.{v[1:]}")] + \
                 ["--platform", "manylinux_2_17_x86_64", "--platform", "manylinux_2_17_aarch64"]
        # warm: the catalog and the file store hold every wheel; each run publishes into a new bucket
        # ... and the same tree on disk: the objects of the same-objects anchor below
        local = os.path.join(WORK, "s3-local")
        run_plain([WP, "mirror", local, "-r", reqs, "--index", fl] + target, env)
        state = {"n": 0}

        def new_bucket(kind):
            def setup():
                # one live bucket in all: the last run's is removed first, whichever command made it.
                # The memstore is in RAM and the OSD holds about twice its bytes: with one 2 GB bucket
                # per command (three) it grew past 12 GB and pushed the files the next command reads
                # out of the page cache of this 24 GB machine (wheelpick's store, read least lately)
                prev = state.pop("live", None)
                state["n"] += 1
                b = f"{kind}{state['n']}"
                if prev:  # --bypass-gc: the gateway's garbage collector would keep the bytes for hours
                    run_plain(["radosgw-admin", "-c", os.path.join(ceph, "ceph.conf"), "-n", "client.rgw", "bucket", "rm",
                               f"--bucket={prev}", "--purge-objects", "--bypass-gc"])
                run_plain(["curl", "-sf", "-X", "PUT"] + sig + [f"{ep}/{b}"])
                state["live"] = state[kind] = b
                ceph_idle(ceph)
            return setup

        # each run publishes into a new bucket (made in the untimed setup), named in $BUCKET
        wp_sh = " ".join([shlex.quote(WP), "mirror", '"s3://$BUCKET/mirror"', "-r", shlex.quote(reqs), "--index",
                          shlex.quote(fl), "--s3-endpoint", ep] + target)
        # one curl, its own parallel transfers: -T with a {a,b,...} glob PUTs each file to URL/<name>
        files = sorted(n for n in os.listdir(whl) if n.endswith(".whl"))
        curl_sh = ("curl -sf -o /dev/null --parallel --parallel-max %d %s -T '{%s}' \"%s/$BUCKET/files/\""
                   % (S3_PARALLEL, " ".join(shlex.quote(a) for a in sig), ",".join(files), ep))
        def signed_puts(name, puts):
            """One curl putting each (key, file, sha256) of puts, its sha256 signed as
            x-amz-content-sha256 (the gateway checks every byte against it), 16 at once: a config
            block per file, the bucket filled in when it runs."""
            cfg = os.path.join(WORK, name)
            with open(cfg, "w") as f:
                f.write("next\n".join(
                    f'url = "{ep}/@BUCKET@/{key}"\nupload-file = "{path}"\noutput = "/dev/null"\nfail\nsilent\n'
                    f'aws-sigv4 = "aws:amz:{conf["AWS_REGION"]}:s3"\n'
                    f'user = "{conf["AWS_ACCESS_KEY_ID"]}:{conf["AWS_SECRET_ACCESS_KEY"]}"\n'
                    f'header = "x-amz-content-sha256: {sha}"\n' for key, path, sha in puts))
            return 'sed "s/@BUCKET@/$BUCKET/" %s | curl --parallel --parallel-max %d -K -' % (shlex.quote(cfg), S3_PARALLEL)

        # the like-for-like anchor: the wheels, each PUT signing its file's sha256 as wheelpick's do
        cs_sh = signed_puts("s3-curl-signed.cfg", [(f"files/{n}", n, shas[n]) for n in files])
        # the same-objects anchor: every object wheelpick's run puts (the tree it writes on disk: the
        # wheels, each wheel's .metadata, the pages, the manifest), each sha256 signed, all at once
        # (no order of files before pages): what the store costs for these objects, without wheelpick
        tree = sorted(os.path.relpath(os.path.join(dp, n), local) for dp, _, ns in os.walk(local) for n in ns)
        ct_sh = signed_puts("s3-curl-tree.cfg", [(f"mirror/{rel}", os.path.join(local, rel),
                                                  file_sha(os.path.join(local, rel))) for rel in tree])
        wp = Cmd(f"wheelpick mirror s3:// ({S3_N} wheels, {total_mb} MB, warm store, {S3_PARALLEL} at once)",
                 ["sh", "-c", wp_sh], env)
        cs = Cmd(f"anchor: curl --aws-sigv4 --parallel -T, {S3_PARALLEL} at once, wheels only, each file's sha256 signed",
                 ["sh", "-c", cs_sh], cwd=whl)
        cu = Cmd(f"anchor: curl --aws-sigv4 --parallel -T, {S3_PARALLEL} at once, wheels only, UNSIGNED-PAYLOAD",
                 ["sh", "-c", curl_sh], cwd=whl)
        ct = Cmd(f"anchor: curl --aws-sigv4 --parallel, {S3_PARALLEL} at once, the same {len(tree):,} objects as "
                 "wheelpick, each sha256 signed", ["sh", "-c", ct_sh])
        for c, kind in ((wp, "wp"), (cs, "curls"), (cu, "curl"), (ct, "curlt")):
            make = new_bucket(kind)

            def setup(c=c, kind=kind, make=make):
                make()
                c.env["BUCKET"] = state[kind]
            c.setup = setup
        wp.show = abbreviate(wp_sh)
        cu.show = abbreviate(f"cd {whl} && " + curl_sh.replace(",".join(files), ",".join(files[:2]) + ",..."))
        cs.show = abbreviate(f"cd {whl} && {cs_sh}  # the .cfg: url, upload-file, sigv4, x-amz-content-sha256 per file")
        ct.show = abbreviate(f"{ct_sh}  # the .cfg: one block per file of the tree on disk, as for the anchor above")
        measure([wp, cs, cu, ct], runs=max(1, min(RUNS, heavy(3))), warmup=1)
        wp.peer = cs
        for _ in modes([wp, cs, cu, ct]):
            r, ru, rt = ratio(cs, wp), ratio(cu, wp), ratio(ct, wp)
            table([wp, cs, cu, ct], {
                wp.label: f"{r:.2f}x the like-for-like curl's speed, {ru:.2f}x the unsigned one's, {rt:.2f}x the same "
                          f"objects' (it also stages the tree, makes each wheel's .metadata and the pages, and puts "
                          f"files, pages, roots and manifest in that order); goal: at least 0.9x the like-for-like: "
                          f"{verdict(r >= 0.9, f'{r:.2f}x')}",
                cs.label: "the wheels alone, no pages; the gateway hashes every byte, as for wheelpick",
                cu.label: "the wheels alone, no pages; the gateway checks nothing",
                ct.label: "what the store alone costs for wheelpick's objects: their bytes made beforehand"})
            goal(10, f"mirror of {S3_N} wheels to S3 (Ceph RGW), against curl --aws-sigv4, each sha256 signed",
                 ">= 0.9x the like-for-like curl", wp, cs, lambda w, c: w >= 0.9)
        commands([wp, cs, cu, ct])
    finally:
        run_plain([os.path.join(ROOT, "tests", "server", "ceph.sh"), "stop", ceph], expect=None)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    WP = os.path.abspath(sys.argv[1])
    if not os.access(WP, os.X_OK):
        sys.exit(f"bench: {WP} is not an executable")
    for p in (PAGE2021, PAGE2023):
        if not os.path.exists(p):
            sys.exit(f"bench: {p} missing (set WP_SHARED_DATA)")
    # timeout(1) in run.sh sends SIGTERM: leave through the finally below, which stops the servers
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    global HOG, MODES
    if not HOG:
        HOG, MODES[:] = "both", ["found", "hog"]
    CUR_MODE[0] = MODES[0]
    PY = real_python()
    rm(WORK)
    os.makedirs(WORK)
    legend.update({"WP": WP, "SHARED": SHARED, "T": WORK, "PY": PY})
    t_start = time.time()
    emit("# wheelpick benchmark results")
    emit()
    emit(f"- machine: {os.cpu_count()} CPUs, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB, "
         f"{platform.platform()}; load average at start {loadavg()}")
    emit(f"- mode: {'BENCH_QUICK=1 (smoke run: small inputs, 1 run)' if QUICK else 'full'}; "
         f"measured runs per command: {RUNS} unless the table says otherwise; a warm-up first unless runs say 1")
    emit("- wall: time.perf_counter() around fork/exec/wait of the command; CPU: user+sys from wait4(); "
         "peak RSS: `/usr/bin/time -f %M` (" + ("present" if TIME else "MISSING: RSS from wait4(), inflated by the harness") +
         ") in separate or slow runs, see bench/bench.py measure(); commands alternate within each table")
    git = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h %cI"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.split("\n")
    if not git and os.environ.get("BENCH_SOURCE"):
        # an exported tree (git archive) has no history: the exporter says what it is
        emit(f"- source: {os.environ['BENCH_SOURCE']}")
    else:
        emit(f"- source: commit {git or '?'}; tracked files changed since: {sum(1 for x in dirty if x.strip())}")
    emit(f"- curl: {run_plain(['curl', '--version']).stdout.splitlines()[0]}")
    emit(f"- pip: {run_plain([PY, '-m', 'pip', '--version'], PIP_ENV).stdout.strip()}")
    emit(f"- CPU hog (BENCH_HOG={HOG}): every table's rounds " + " and then ".join(MODE_TEXT[m] for m in MODES)
         + " (bench/hog.py: `sh -c 'while :; do :; done'`, not pinned); each table gives the load average at "
         "the start and the end of its rounds")
    emit()
    summary_at = len(out_lines)
    try:
        srv = url = big = None
        if CASES & {"1", "2"}:
            srv, url = case1(WP, PY) if "1" in CASES else case2_server()
            if "2" in CASES:
                case2(WP, srv, url)
        if "3" in CASES:
            case3(WP, PY)
        if "4" in CASES:
            big = case4(WP, PY)
        if "5" in CASES:
            case5(WP, PY, big)
        if "6" in CASES:
            case6(WP, PY)
        if "7" in CASES:
            case7(WP, PY)
        if "8" in CASES:
            case8(WP, PY)
        if "9" in CASES:
            case9(WP, PY)
        if "10" in CASES:
            case10(WP, PY)
        if "11" in CASES:
            case11(WP, PY)
        if "12" in CASES:
            case12(WP, PY)
        if "13" in CASES:
            case13(WP, PY)
        if "14" in CASES:
            case14(WP, PY)
        emit("Legend for the commands above:")
        emit()
        emit("```sh")
        for k, v in legend.items():
            emit(f"{k}={shlex.quote(v)}")
        emit("```")
        emit()
        case_clock()
        emit(f"_total {time.time() - t_start:.0f} s (BENCH_HOG={HOG}; per case: "
             + ", ".join(f"{n}: {t:.0f} s" for n, _, t in CASE_TIMES) + f"); load average at the end: {loadavg()}_")
    finally:
        for s in servers:
            s.stop()
        os.makedirs(BUILD, exist_ok=True)
        summary = summary_lines()
        print("\n".join(summary), flush=True)
        out_lines[summary_at:summary_at] = summary
        with open(RESULTS, "w") as f:
            f.write("\n".join(out_lines) + "\n")
        if os.environ.get("BENCH_KEEP") != "1":
            rm(WORK)
    note(f"results in {RESULTS}")


if __name__ == "__main__":
    main()
