#!/usr/bin/env python3
"""bench/mkwheel.py: valid wheels for the benchmarks.

small_wheel(): a tiny wheel with a real RECORD (sample/mksample.py's writer).
big_wheel(): a wheel with one STORED (not deflated) member of N incompressible bytes and a correct RECORD,
written streaming (constant memory); returns (sha256 hex, size).

torch_wheel(): a wheel shaped like torch's, compressed as real wheels are: a few thousand .py files and a
few large shared objects (bytes that deflate about 2.7:1, as libtorch's do), every member deflated
(zipfile's default level, as `wheel` writes them), about COMPRESSED bytes in all; returns (sha256 hex, size).

many(): N tiny wheels of N projects (PREFIX000, PREFIX001, ...) in DIR, with DIR/links.html (a find-links
page with each sha256) and DIR/reqs.txt naming every project.

usage: mkwheel.py big OUT.whl PROJECT VERSION TAG MEMBER_BYTES [REQUIRES...]
       mkwheel.py torch OUT.whl PROJECT VERSION TAG COMPRESSED_BYTES [REQUIRES...]
       mkwheel.py many DIR PREFIX N
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


def _so_blocks(seed, n=4, size=1 << 20):
    """n blocks of bytes like a shared object's: runs of fresh bytes between symbols, opcodes and
    constants that recur within deflate's 32 KiB window. Each is about 2.7:1 under zlib level 6."""
    r = random.Random(seed)
    vocab = [r.randbytes(r.randint(3, 20)) for _ in range(800)]
    blocks = []
    for _ in range(n):
        parts, have = [], 0
        while have < size:
            if r.random() < 0.25:
                b = r.randbytes(r.randint(1, 6))
            else:
                b = vocab[int(r.random() ** 2 * len(vocab))]
            parts.append(b)
            have += len(b)
        blocks.append(b"".join(parts)[:size])
    return blocks


def _py_text(r, words, n):
    """n bytes of Python-like source."""
    lines, have = [], 0
    while have < n:
        ind = "    " * r.randint(0, 3)
        k = r.randint(2, 9)
        line = ind + " ".join(r.choice(words) for _ in range(k))
        lines.append(line)
        have += len(line) + 1
    return ("\n".join(lines) + "\n").encode()[:max(n, 1)]


def torch_wheel(out, project, version, tag, compressed, requires=(), seed=3):
    r = random.Random(seed)
    dist = f"{project}-{version}"
    mod = project.replace("-", "_")
    meta = [f"Metadata-Version: 2.1", f"Name: {project}", f"Version: {version}"]
    meta += [f"Requires-Dist: {q}" for q in requires]
    words = ["self", "def", "return", "import", "torch", "tensor", "None", "if", "else", "for", "in", "x", "y",
             "dim", "dtype", "device", "_C", "kwargs", "args", "=", "(", ")", ":", ",", "grad", "shape"]
    words += ["".join(r.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(r.randint(3, 12))) for _ in range(600)]
    py_total = max(compressed // 5, 64 << 10)  # text deflates ~4:1: about 5% of the compressed bytes
    files = []
    left, i = py_total, 0
    while left > 0:
        n = min(left, int(r.lognormvariate(8.3, 1.0)) + 60)
        sub = r.choice(("", "nn/", "nn/modules/", "autograd/", "distributed/", "utils/", "testing/", "_C/", "jit/"))
        files.append((f"{mod}/{sub}m{i:04d}.py", n))
        left -= n
        i += 1
    so_bytes = int((compressed - py_total // 4) * 2.7)
    shares = (("lib/libtorch_cpu.so", 0.46), ("lib/libtorch_cuda.so", 0.30), ("lib/libtorch_python.so", 0.1),
              ("lib/libc10.so", 0.06), ("lib/libc10_cuda.so", 0.04), ("lib/libcaffe2_nvrtc.so", 0.02),
              ("lib/libshm.so", 0.02))
    blocks = _so_blocks(seed)
    record = io.StringIO()
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as z:
        def add(name, data):
            zi = zipfile.ZipInfo(name, FIXED_TIME)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
            record.write(f"{name},sha256={b64(hashlib.sha256(data).digest())},{len(data)}\n")
        add(f"{mod}/__init__.py", f'__version__ = "{version}"\n'.encode())
        order = files + [(f"{mod}/{n}", -int(so_bytes * f)) for n, f in shares]
        r.shuffle(order)  # torch's zip interleaves its folders; the big objects are not all at the end
        for name, n in order:
            if n > 0:
                add(name, _py_text(r, words, n))
                continue
            size = -n
            zi = zipfile.ZipInfo(name, FIXED_TIME)
            zi.external_attr = 0o755 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            h = hashlib.sha256()
            with z.open(zi, "w", force_zip64=size >= (1 << 31)) as w:
                k = 0
                while k * (1 << 20) < size:
                    blk = blocks[k % len(blocks)]
                    chunk = (k.to_bytes(8, "little") + blk[8:])[:size - k * (1 << 20)]
                    h.update(chunk)
                    w.write(chunk)
                    k += 1
            record.write(f"{name},sha256={b64(h.digest())},{size}\n")
        add(f"{dist}.dist-info/METADATA", ("\n".join(meta) + "\n\n").encode())
        add(f"{dist}.dist-info/WHEEL", (f"Wheel-Version: 1.0\nGenerator: wheelpick-bench\n"
                                        f"Root-Is-Purelib: false\nTag: {tag}\n").encode())
        record.write(f"{dist}.dist-info/RECORD,,\n")
        zi = zipfile.ZipInfo(f"{dist}.dist-info/RECORD", FIXED_TIME)
        zi.external_attr = 0o644 << 16
        zi.compress_type = zipfile.ZIP_DEFLATED
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


def many(folder, prefix, n):
    os.makedirs(folder, exist_ok=True)
    links, names = [], []
    for i in range(n):
        name = f"{prefix}{i:03d}"
        fn = f"{name}-1.0-py3-none-any.whl"
        b = small_wheel(name, "1.0", "py3-none-any")
        with open(os.path.join(folder, fn), "wb") as f:
            f.write(b)
        links.append(f'<a href="{fn}#sha256={hashlib.sha256(b).hexdigest()}">{fn}</a><br>\n')
        names.append(name + "\n")
    with open(os.path.join(folder, "links.html"), "w") as f:
        f.write("".join(links))
    with open(os.path.join(folder, "reqs.txt"), "w") as f:
        f.write("".join(names))


if __name__ == "__main__":
    if len(sys.argv) >= 7 and sys.argv[1] == "big":
        print(*big_wheel(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7:]))
    elif len(sys.argv) >= 7 and sys.argv[1] == "torch":
        print(*torch_wheel(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7:]))
    elif len(sys.argv) == 5 and sys.argv[1] == "many":
        many(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(__doc__)
