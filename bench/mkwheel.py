#!/usr/bin/env python3
"""bench/mkwheel.py: valid wheels for the benchmarks.

small_wheel(): a tiny wheel with a real RECORD (sample/mksample.py's writer).
big_wheel(): a wheel with one STORED (not deflated) member of N incompressible bytes and a correct RECORD,
written streaming (constant memory); returns (sha256 hex, size).

usage: mkwheel.py big OUT.whl PROJECT VERSION TAG MEMBER_BYTES [REQUIRES...]
"""
import base64
import hashlib
import importlib.util
import io
import os
import random
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXED_TIME = (2021, 3, 12, 0, 0, 0)


def _mksample():
    spec = importlib.util.spec_from_file_location("mksample", os.path.join(HERE, "..", "sample", "mksample.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def small_wheel(project, version, tag, requires=()):
    return _mksample().wheel_bytes(project, version, tag, list(requires))


def chunks(size, seed, step=4 << 20):
    """size bytes that do not compress: one random block, each chunk stamped with its index
    (random.randbytes for every chunk is too slow for gigabytes on this machine)."""
    block = random.Random(seed).randbytes(step)
    i = 0
    while size:
        n = min(size, step)
        yield (i.to_bytes(16, "little") + block[16:])[:n]
        size -= n
        i += 1


def b64(d):
    return base64.urlsafe_b64encode(d).rstrip(b"=").decode()


def big_wheel(out, project, version, tag, member_bytes, requires=(), seed=1):
    dist = f"{project}-{version}"
    mod = project.replace("-", "_")
    meta = [f"Metadata-Version: 2.1", f"Name: {project}", f"Version: {version}"]
    meta += [f"Requires-Dist: {r}" for r in requires]
    small = {
        f"{mod}/__init__.py": f'__version__ = "{version}"\n'.encode(),
        f"{dist}.dist-info/METADATA": ("\n".join(meta) + "\n\n").encode(),
        f"{dist}.dist-info/WHEEL": (f"Wheel-Version: 1.0\nGenerator: wheelpick-bench\n"
                                    f"Root-Is-Purelib: false\nTag: {tag}\n").encode(),
    }
    record = io.StringIO()
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        zi = zipfile.ZipInfo(f"{mod}/blob.bin", FIXED_TIME)
        zi.external_attr = 0o644 << 16
        zi.compress_type = zipfile.ZIP_STORED
        zi.file_size = member_bytes
        h = hashlib.sha256()
        with z.open(zi, "w", force_zip64=member_bytes >= (1 << 31)) as w:
            for chunk in chunks(member_bytes, seed):
                h.update(chunk)
                w.write(chunk)
        record.write(f"{mod}/blob.bin,sha256={b64(h.digest())},{member_bytes}\n")
        for name, data in small.items():
            zi = zipfile.ZipInfo(name, FIXED_TIME)
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data)
            record.write(f"{name},sha256={b64(hashlib.sha256(data).digest())},{len(data)}\n")
        record.write(f"{dist}.dist-info/RECORD,,\n")
        zi = zipfile.ZipInfo(f"{dist}.dist-info/RECORD", FIXED_TIME)
        zi.external_attr = 0o644 << 16
        z.writestr(zi, record.getvalue().encode())
    h = hashlib.sha256()
    with open(tmp, "rb") as f:
        while True:
            b = f.read(4 << 20)
            if not b:
                break
            h.update(b)
    os.rename(tmp, out)
    return h.hexdigest(), os.path.getsize(out)


def random_file(out, size, seed=2):
    """size random bytes (not a zip); returns (sha256 hex, size)."""
    h = hashlib.sha256()
    with open(out + ".tmp", "wb") as f:
        for chunk in chunks(size, seed):
            h.update(chunk)
            f.write(chunk)
    os.rename(out + ".tmp", out)
    return h.hexdigest(), size


if __name__ == "__main__":
    if len(sys.argv) >= 7 and sys.argv[1] == "big":
        print(*big_wheel(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7:]))
    else:
        sys.exit(__doc__)
