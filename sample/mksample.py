#!/usr/bin/env python3
"""sample/mksample.py: writes the small sample index that `make demo` and the tests use.

A miniature of download.pytorch.org: a find-links page modelled on torch_stable.html (relative
hrefs, %2B for '+', old unlabeled files in variant folders, ROCm and CPU builds beside CUDA ones),
PEP 503 pages with sha256 fragments and data-requires-python, and tiny but valid wheels (RECORD
with real hashes) that pip can install. Deterministic: the same bytes every run.

usage: mksample.py OUTDIR
"""
import base64, hashlib, io, os, sys, zipfile

PYS = ["cp38", "cp311"]
FIXED_TIME = (2021, 3, 12, 0, 0, 0)

# (project, version, local, folder, python tags, platforms, requires)
def builds():
    out = []
    def torch(ver, local, folder, plats=("linux_x86_64", "win_amd64"), reqs=("typing-extensions",)):
        out.append(("torch", ver, local, folder, PYS, plats, reqs))
    for v in ("cpu", "cu101", "cu102", "cu111", "rocm4.0.1"):
        plats = ("linux_x86_64",) if v.startswith("rocm") else ("linux_x86_64", "win_amd64")
        torch("1.8.0", "" if v == "cu102" else v, v, plats)
    for v in ("cpu", "cu92", "cu101", "cu102", "cu110"):
        torch("1.7.1", "" if v == "cu102" else v, v)
    torch("1.7.1", "rocm3.7", "rocm3.7", ("linux_x86_64",))
    # torchvision 0.9.0 pairs with torch 1.8.0, 0.8.2 with 1.7.1; 0.8.0 only as cu102.
    for v in ("cpu", "cu101", "cu102", "cu111"):
        out.append(("torchvision", "0.9.0", "" if v == "cu102" else v, v, PYS, ("linux_x86_64", "win_amd64"),
                    ("numpy", "torch==1.8.0", "pillow>=4.1.1")))
    for v in ("cpu", "cu92", "cu101", "cu102", "cu110"):
        out.append(("torchvision", "0.8.2", "" if v == "cu102" else v, v, PYS, ("linux_x86_64", "win_amd64"),
                    ("numpy", "torch==1.7.1", "pillow>=4.1.1")))
    out.append(("torchvision", "0.8.0", "", "cu102", PYS, ("linux_x86_64",), ("numpy", "torch==1.7.0")))
    torch("1.7.0", "", "cu102", ("linux_x86_64",))
    # Pure-Python dependencies, as PyPI would serve them.
    out.append(("numpy", "1.24.0", "", "", ["py3"], ("any",), ()))
    out.append(("pillow", "9.0.0", "", "", ["py3"], ("any",), ()))
    out.append(("typing_extensions", "4.5.0", "", "", ["py3"], ("any",), ()))
    out.append(("pywin32", "306", "", "", ["py3"], ("any",), ()))
    return out

def b64(d):
    return base64.urlsafe_b64encode(d).rstrip(b"=").decode()

def wheel_bytes(project, version, tag, requires):
    dist = f"{project}-{version}"
    mod = project.replace("-", "_")
    files = {}
    files[f"{mod}/__init__.py"] = f'__version__ = "{version}"\n'.encode()
    meta = [f"Metadata-Version: 2.1", f"Name: {project}", f"Version: {version}", "Requires-Python: >=3.6"]
    meta += [f"Requires-Dist: {r}" for r in requires]
    if project == "torch":
        meta.append('Requires-Dist: pywin32 ; sys_platform == "win32"')
    files[f"{dist}.dist-info/METADATA"] = ("\n".join(meta) + "\n\n").encode()
    files[f"{dist}.dist-info/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: wheelpick-sample\n"
                                        f"Root-Is-Purelib: false\nTag: {tag}\n").encode()
    record = io.StringIO()
    for name, data in files.items():
        record.write(f"{name},sha256={b64(hashlib.sha256(data).digest())},{len(data)}\n")
    record.write(f"{dist}.dist-info/RECORD,,\n")
    files[f"{dist}.dist-info/RECORD"] = record.getvalue().encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            zi = zipfile.ZipInfo(name, FIXED_TIME)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return buf.getvalue()

def abi_for(py):
    if py.startswith("py"):
        return "none"
    return py + ("m" if py in ("cp36", "cp37") else "")

def main():
    out = sys.argv[1]
    links = []   # (href, project, filename, sha256, requires_python)
    for project, ver, local, folder, pys, plats, reqs in builds():
        version = ver + (f"+{local}" if local else "")
        for py in pys:
            for plat in plats:
                tag = f"{py}-{abi_for(py)}-{plat}"
                fn = f"{project}-{version}-{tag}.whl"
                data = wheel_bytes(project, version, tag, reqs)
                rel = (folder + "/" if folder else "") + fn.replace("+", "%2B")
                path = os.path.join(out, "whl", folder, fn)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data)
                links.append((rel, project, fn, hashlib.sha256(data).hexdigest()))
    links.sort()
    # find-links page: exactly torch_stable.html's shape (no wrapper, %2B in text and href)
    with open(os.path.join(out, "whl", "torch_stable.html"), "w") as f:
        for rel, _, _, _ in links:
            f.write(f'<a href="{rel}">{rel}</a><br>\n')
    # PEP 503 tree: root + one page per project, root-relative hrefs with sha256 as PyTorch writes them
    simple = os.path.join(out, "simple")
    projects = sorted({p.replace("_", "-").lower() for _, p, _, _ in links})
    os.makedirs(simple, exist_ok=True)
    with open(os.path.join(simple, "index.html"), "w") as f:
        f.write("<!DOCTYPE html>\n<html>\n  <body>\n")
        for p in projects:
            f.write(f'    <a href="{p}/">{p}</a><br/>\n')
        f.write("  </body>\n</html>\n")
    for p in projects:
        os.makedirs(os.path.join(simple, p), exist_ok=True)
        with open(os.path.join(simple, p, "index.html"), "w") as f:
            f.write(f"<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Links for {p}</h1>\n")
            for rel, proj, fn, sha in links:
                if proj.replace("_", "-").lower() == p:
                    f.write(f'    <a href="../../whl/{rel}#sha256={sha}" data-requires-python="&gt;=3.6">{fn}</a><br/>\n')
            f.write("  </body>\n</html>\n")

if __name__ == "__main__":
    main()
