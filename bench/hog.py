"""bench/hog.py: the bench's one CPU hog (issue 42 item 7): a busy loop on the other core, as on a build host.

Every script of the bench that measures "with a CPU hog" starts this one: `sh -c 'while :; do :; done'`,
not pinned (on 2 cores the scheduler keeps it off the measured command's core when it can, as it
would a compiler), killed at the end. bench.py runs each table's rounds at the load found and then
with the hog (BENCH_HOG=both, the default), or in one mode only (BENCH_HOG=0 or 1).
"""
import contextlib
import ctypes
import signal
import subprocess

COMMAND = ["sh", "-c", "while :; do :; done"]


def _die_with_parent():
    # a run stopped by run.sh's timeout kills the scripts with SIGKILL: their hog must not spin on
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def start(on=True):
    """The hog's process, or None when not on. It is killed when the process that started it dies."""
    return subprocess.Popen(COMMAND, preexec_fn=_die_with_parent) if on else None


def stop(proc):
    if proc is not None:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def cpu_hog(on=True):
    proc = start(on)
    try:
        yield proc
    finally:
        stop(proc)


def loadavg():
    """The 1-minute load average, as text."""
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except OSError:
        return "?"
