#!/usr/bin/env python3
"""tests/fuzz/mkseeds.py: (re)writes the seed corpora in tests/fuzz/corpus/<target>/ (seed-* files only).

Most seeds are written here by hand; a few dozen short strings come from the real files vendored
in tests/fixtures/real (WP_TEST_REAL_DATA names another tree of the same layout), and the wheels and
conda packages from
tests/fixtures/mkwheels.py (the zstd program is needed for .conda and .zst). Files that
libFuzzer merged in (hex names) and crash-* reproducers are left alone.
"""
import bz2
import gzip
import json
import lzma
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")
# the real files (see tests/fixtures/real/PROVENANCE.md); a missing one stops the script, by name
REAL_DATA = os.environ.get("WP_TEST_REAL_DATA") or os.path.join(ROOT, "tests", "fixtures", "real")
PV = os.path.join(REAL_DATA, "packaging_vectors", "packaging-24.2")
rnd = random.Random(7)


def unescape(s):
    return s.encode("latin-1", "backslashreplace").decode("unicode_escape")


def need(path):
    if not os.path.exists(path):
        sys.exit("mkseeds: missing input '%s'" % path)
    return path


def tsv_col(name, col, limit=None, base=PV):
    with open(need(os.path.join(base, name)), encoding="utf-8") as f:
        rows = f.read().splitlines()[1:]
    out = []
    for r in rows:
        parts = r.split("\t")
        if len(parts) > col:
            out.append(unescape(parts[col]))
    return out[:limit] if limit else out


def lines(path, limit=None):
    with open(need(path), encoding="utf-8") as f:
        out = [l for l in f.read().splitlines() if l and not l.startswith("#")]
    return out[:limit] if limit else out


def write(target, seeds):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.startswith("seed-"):
            os.unlink(os.path.join(d, f))
    seen = set()
    n = 0
    for s in seeds:
        b = s if isinstance(s, bytes) else s.encode("utf-8")
        if b in seen:
            continue
        seen.add(b)
        n += 1
        with open(os.path.join(d, "seed-%03d" % n), "wb") as f:
            f.write(b)
    print("%-12s %3d seeds" % (target, n))


def pairs(xs):
    return ["%s\n%s" % (a, b) for a, b in zip(xs, xs[1:])]


def versions():
    norm = tsv_col("versions_normalized.tsv", 0, 40)
    srt = lines(os.path.join(PV, "versions_sorted.txt"))
    bad = tsv_col("versions_invalid.tsv", 0)
    mine = ["1.8.0+cu111", "1.8.0+rocm4.0.1", "2.1.0+cpu.cxx11.abi", "2.0.0+cu117.with.pypi.cudnn",
            "v1!2.3.4rc5.post6.dev7+ubuntu-1_2.3", "1.0+1.2.3.4.5", "00001.0002", "1.0.0.0.0.0.0.0.0",
            "9999999999999999999", "1" * 40, "1.*", "1.0+", " 1.0 ", "1.0-1", "1.0_post_1", "1.0.DEV",
            "1.0-r5", "1.0-c2", "1.0PREVIEW3", "2.7.0.dev20250116+cu126", "", "\t\n"]
    return pairs(srt) + norm + bad + pairs(mine) + ["1.8.0+cu111\n1.8.0+rocm4.0.1", "1.0\n1.0.0+0"]


def specifiers():
    rows = list(zip(tsv_col("specifier_contains.tsv", 1), tsv_col("specifier_contains.tsv", 0)))
    rnd.shuffle(rows)
    out = ["%s\n%s" % r for r in rows[:40]]
    out += tsv_col("specifiers_invalid.tsv", 0, 20)
    out += tsv_col("specifierset_str.tsv", 0, 10)
    out += [">=1.8,<2\n1.9.0+cu111", "~=2.2\n2.3.0rc1", "==1.8.*\n1.8.0+cu102", "!=1.8.*,>=1.7\n1.8.1",
            "===foobar\nfoobar", "===1.0\n1.0", "~=1.4.5.0\n1.4.5.9", ">1.7.post2\n1.7.post3",
            "<1.7.0.dev0\n1.7.0a1", "==1.0+local\n1.0+local", " >= 1.0 , < 2.0 \n1.5", "", ",,", "==v1.0"]
    return out


def markers():
    out = tsv_col("markers_evaluate.tsv", 0) + tsv_col("markers_invalid.tsv", 0) + tsv_col("markers_str.tsv", 0)
    gen = lines(os.path.join(PV, "markers_valid_generated.txt"))
    rnd.shuffle(gen)
    out += gen[:30]
    out += ["platform_system == 'Linux' and platform_machine == 'x86_64'",
            "python_version >= '3.8' and (sys_platform == 'linux' or sys_platform == 'darwin')",
            "extra == 'Foo_Bar' or extra == \"gpu\"", "'linux' in sys_platform", "'x86' not in platform_machine",
            "platform_release >= '6'", "python_full_version ~= '3.8.0'", "implementation_name === 'cpython'",
            "((((python_version > '2'))))", "os.name == 'posix'", "python_implementation == 'CPython'",
            "platform_version < 'a' and platform_release != ''", "'3.8' == python_version",
            "python_version == '3.8' and", "(" * 70 + "os_name == 'nt'" + ")" * 70, "os_name == 'nt' or" * 3]
    return out


def requirements():
    req = [l.split("Requires-Dist: ", 1)[1] for l in
           lines(os.path.join(REAL_DATA, "wheel_metadata", "torch-2.7.0.dev20250116+cu126_METADATA_Requires-Dist.txt"))
           if "Requires-Dist: " in l][:20]
    return req + ["torch", "torch>=1.8,<2", "Torch_Vision[extra1,Extra2] (>=0.9) ; python_version >= '3.6'",
                  "torch @ https://download.pytorch.org/whl/cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl",
                  "torch @ file:///tmp/t.whl ; sys_platform == 'linux'", "name[] ==1.0", "name[a,a,b]",
                  "name ; extra == 'x'", "name==1.0;python_version<'3'", "na.me-_x (==1.*, !=1.0.1)",
                  "name @ url;os_name=='a'", "name @", "name[", "name (>=1.0", "-name", "name>=1.0,", "",
                  "nvidia-cudnn-cu12==9.1.0.70; platform_system == 'Linux' and platform_machine == 'x86_64'"]


def wheelnames():
    out = tsv_col("wheel_filenames_valid.tsv", 0) + tsv_col("wheel_filenames_invalid.tsv", 0)
    out += ["torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl", "torch-2.0.1-cp38-cp38-manylinux2014_aarch64.whl",
            "torch-1.13.0%2Bcu117-cp310-cp310-win_amd64.whl", "foo-1.0-1000abc-py2.py3-none-any.macosx_11_0_arm64.whl",
            "Foo.Bar-1.0-py3-none-any.whl", "foo-1.0--none-any.whl", "foo-1.0-py3-none-.whl", "foo_bar-1.0.tar.gz",
            "torch-2.0.0.zip", "demo-pkg-1.0.post1.tar.bz2", "x-1.tgz", "a-b-c-1.0rc1.tar.xz", "-1.0.tar.gz",
            "foo-1.0-py3-none-any.WHL", "foo-v1.0-1-py3-none-any.whl"]
    return out


def condavers():
    # conda's parse of rattler's test-data/versions.txt: "VERSION=PARSE", in the order of that file
    vs = [l.split("=", 1)[0] for l in
          lines(os.path.join(REAL_DATA, "conda_repodata", "conda_versions", "rattler_parsed_versions_by_conda.txt"))]
    rnd.shuffle(vs)
    out = pairs(vs[:40])
    out += pairs(["1.0", "1.0.0", "1.0a1", "1.0dev", "1.0post1", "1.0_", "1.0.2_", "1!0.1", "0.4.1+1.2",
                  "1.0-1", "1.0_1-2", "1.1.*", "2.0.0*", "1.0.DEV", "", "1!", "+1", "1..0", "1.0+", "1@0"])
    return out


def urls():
    b = "https://download.pytorch.org/whl/torch_stable.html"
    return ["%s\ncu111/torch-1.8.0%%2Bcu111-cp38-cp38-linux_x86_64.whl" % b,
            "%s\n/whl/cu117/torch-1.13.0%%2Bcu117-cp310-cp310-win_amd64.whl#sha256=%s" % (b, "a0" * 32),
            "https://h/simple/demo/\n../../packages/demo-1.0.tar.gz#md5=%s" % ("0F" * 16),
            "https://h/a/b/c/d;p?q\ng;x?y#s", "https://h/a/b/c/d;p?q\n../../../g",
            "https://h/a/b/c/d;p?q\n//other/x.whl", "file:///srv/idx/\nsub/x-1.0-py3-none-any.whl",
            "http://h/p/\n  x y\t.whl  ", "https://h/\njavascript:alert(1)", "https://h/\nfile.whl#egg=x&sha256=zz",
            "not-absolute\nx.whl", "https://h/\n%2e%2e/%2e/x.whl", "HTTPS://H/A/\n./a/./b/../c.whl?x=1",
            "https://h/\nhttps://h2/%ZZ.whl", "https://h/\n\x01.whl", "https://h/\n\xc3\xa9.whl", "https://h/d/\n"]


PAGE_FL = """<!DOCTYPE html>
<html><body>
<a href="cpu/torch-1.8.0%2Bcpu-cp38-cp38-linux_x86_64.whl">cpu/torch-1.8.0%2Bcpu-cp38-cp38-linux_x86_64.whl</a><br>
<a href="cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl">cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl</a><br>
<a href="cu102/torch-1.8.0-cp38-cp38-linux_x86_64.whl">cu102/torch-1.8.0-cp38-cp38-linux_x86_64.whl</a><br>
<a href="rocm4.0.1/torch-1.8.0%2Brocm4.0.1-cp38-cp38-linux_x86_64.whl">rocm</a><br>
<a href="torchvision-0.9.0.tar.gz">sdist</a>
<a href="../docs/">not a file</a>
</body></html>
"""

PAGE_503 = """<!DOCTYPE html>
<html><head><meta name="pypi:repository-version" content="1.1"><base href="https://files.example.org/"></head>
<body><h1>Links for torch</h1>
<a href="/whl/cu118/torch-2.1.0%2Bcu118-cp311-cp311-linux_x86_64.whl#sha256=SHA_A" data-requires-python="&gt;=3.8.0" data-dist-info-metadata="sha256=SHA_C">torch-2.1.0+cu118-cp311-cp311-linux_x86_64.whl</a><br/>
<a href="/whl/torch-2.1.0-cp311-none-macosx_11_0_arm64.whl#md5=MD5_E" data-yanked="">torch-2.1.0-cp311-none-macosx_11_0_arm64.whl</a><br/>
<a href="/whl/torch-2.0.0.tar.gz" data-yanked="bad &amp; broken" data-core-metadata="true">x</a>
<a href="/whl/torch-9.whl#sha256=nothex">broken hash</a>
</body></html>
<!--TIMESTAMP 1751116657-->
""".replace("SHA_A", "ab" * 32).replace("SHA_C", "cd" * 32).replace("MD5_E", "ef" * 16)

PAGE_ROOT = """<!DOCTYPE html><html><body>
<a href="/whl/torch/">torch</a>
<a href="/whl/torchvision/">torchvision</a>
<a href="nvidia-cudnn-cu12/">nvidia-cudnn-cu12</a>
<a href="https://other/simple/Foo.Bar/"></a>
<a href="/whl/bad name/">bad name!</a>
</body></html>
"""


def htmls():
    out = [PAGE_FL, PAGE_503, PAGE_ROOT,
           "<html><body><h1>Links for demo</h1></body></html>",
           "<html><head><meta name=\"pypi:repository-version\" content=\"2.0\"></head><body></body></html>",
           "<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center></body></html>",
           "<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>",
           "<a href='x-1.0-py3-none-any.whl'>x</a><a href=y-2.0.zip>y</a><A HREF=\"z-3.0.tar.gz\">z",
           "<div>" * 50 + "<a href=\"deep-1.0-py3-none-any.whl\">d</a>" + "</div>" * 50,
           "<html><base href=\"../rel/\"><a href=\"a-1.0-py3-none-any.whl\">a</a></html>",
           "<html><a href=\"a-1.0-py3-none-any.whl#sha256=%s&md5=%s\">a</a><!-- <a href=\"c.whl\"> --></html>"
           % ("A" * 64, "b" * 32),
           b"\x00\x01\x02PK\x03\x04binary", b"\xef\xbb\xbf<html><a href=\"\xc3\xa9-1.0.tar.gz\">\xe9</a></html>"]
    return out


def pep691s():
    demo = os.path.join(ROOT, "tests", "fixtures", "index", "pep691_demo.json")
    out = []
    small = {"meta": {"api-version": "1.0"}, "name": "torch",
             "files": [{"filename": "torch-2.1.0+cu118-cp311-cp311-linux_x86_64.whl",
                        "url": "/whl/cu118/torch-2.1.0%2Bcu118-cp311-cp311-linux_x86_64.whl",
                        "hashes": {"sha256": "ab" * 32}, "requires-python": ">=3.8", "yanked": False,
                        "core-metadata": {"sha256": "cd" * 32}, "size": 2000000000},
                       {"filename": "torch-2.1.0.tar.gz", "url": "https://h/x/torch-2.1.0.tar.gz",
                        "hashes": {"md5": "EF" * 16}, "yanked": "reason", "dist-info-metadata": True}]}
    out.append(json.dumps(small))
    out.append(json.dumps(small, indent=1))
    out.append(json.dumps({"meta": {"api-version": "1.1"}, "projects": [{"name": "torch"}, {"name": "Foo.Bar"},
                                                                         {"name": 3}, {"name": "bad name"}]}))
    out += ['{"meta":{"api-version":"2.0"},"files":[]}', '{"meta":{"api-version":"1.0"},"files":[]}',
            '{"files":[]}', '[]', '{', '{"meta":{"api-version":"1.0"},"files":[{"filename":"a-1.0.tar.gz",'
            '"url":"a-1.0.tar.gz","hashes":{"sha256":"%s"},"size":-1,"yanked":null}]}' % ("0" * 64),
            '{"meta":{"api-version":"1.0"},"files":' + "[" * 70 + "]" * 70 + "}",
            '{"meta":{"api-version":"1.0"},"files":[{"filename":"\\u00e9-1.0.tar.gz","url":"\\ud800x.whl","hashes":{}}]}',
            '{"meta":{"api-version":"1.0"},"name":"x","files":[{"filename":"x-1.0-py3-none-any.whl","url":"x","hashes":{"sha256":"%s"},"size":1e400}]}' % ("f" * 64)]
    for p in (demo, os.path.join(ROOT, "tests", "fixtures", "index", "pep691_root.json")):
        if os.path.exists(p) and os.path.getsize(p) < 8192:
            with open(p, "rb") as f:
                out.append(f.read())
    return out


def provenances():
    # the real provenance and trusted roots (tests/fixtures/provenance/PROVENANCE.md), and a few
    # broken ones and policy lines
    d = os.path.join(ROOT, "tests", "fixtures", "provenance")
    out = []
    for name in ("pypi_attestations-0.0.19.tar.gz.provenance", "rfc8785-0.1.2-py3-none-any.whl.provenance",
                 "trusted_root.json"):
        with open(need(os.path.join(d, name)), "rb") as f:
            out.append(f.read())
    out += ['{"version":1,"attestation_bundles":[]}', '{"version":1,"attestation_bundles":[{"attestations":[{}]}]}',
            '{"version":1,"attestation_bundles":[{"attestations":[{"version":1,"envelope":{"statement":"e30=",'
            '"signature":"AA=="},"verification_material":{"certificate":"MAA=","transparency_entries":[{}]}}],'
            '"publisher":{"kind":"GitHub","repository":"a/b","workflow":"w.yml"}}]}',
            "torch=github:pytorch/pytorch\n# c\nx=email:a@b\ny=gitlab:g/p@.gitlab-ci.yml\n", "bad\n", ""]
    return out


def repodatas():
    rd = {"info": {"subdir": "linux-64"},
          "packages": {"pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2": {
              "build": "py3.8_cuda11.1_cudnn8.0.5_0", "build_number": 0, "name": "pytorch", "version": "1.8.0",
              "depends": ["cudatoolkit >=11.1,<11.2", "python >=3.8,<3.9.0a0"], "constrains": ["cpuonly <0"],
              "license": "BSD", "md5": "d7c89558ba9fa0495403155b64376d81", "sha256": "fe" * 32,
              "size": 1234, "subdir": "linux-64", "timestamp": 1578324546067, "track_features": "cuda"}},
          "packages.conda": {"cpuonly-2.0-0.conda": {"build": "0", "build_number": 0, "name": "cpuonly",
                                                     "version": "2.0", "depends": [], "noarch": "generic",
                                                     "subdir": "noarch"}},
          "removed": [], "repodata_version": 1}
    plain = json.dumps(rd).encode()
    out = [plain, json.dumps(rd, indent=1).encode(),
           json.dumps({"info": {"subdir": "noarch", "base_url": "https://mirror/ch/noarch"}, "packages": {
               "x-1-0.tar.bz2": {"name": "x", "version": "1", "build": "0", "md5": "zz", "size": "big"}}}).encode(),
           b'{"packages":{"a-1-0.tar.bz2":{"name":7}},"packages.conda":{}}', b"{}", b"[]", b'{"packages":{',
           b'{"packages":' + b"[" * 70 + b"]" * 70 + b"}", b'{"packages":{"":{"name":"","version":"","build":""}}}',
           bz2.compress(plain), gzip.compress(plain, mtime=0), lzma.compress(plain),
           bz2.compress(plain)[:-20], gzip.compress(b"{}" * 2000, mtime=0)]
    if shutil.which("zstd"):
        out.append(subprocess.run(["zstd", "-q", "-c", "-"], input=plain, capture_output=True, check=True).stdout)
    return out


METADATA = """Metadata-Version: 2.1
Name: demo-pkg
Version: 1.0
Summary: A tiny package for
  wheelpick's tests
Requires-Python: >=3.8
Requires-Dist: numpy>=1.20
Requires-Dist: requests[socks]<3,>=2.0; extra == "http"
Provides-Extra: http
Description-Content-Type: text/plain

demo-pkg
========
The body: Name: not-a-header
"""


def metadatas():
    return [METADATA, METADATA.replace("\n", "\r\n"),
            "Metadata-Version: 2.1\nName: torch\nVersion: 2.1.0+cu118\nDescription: one\n        |two\n",
            "Metadata-Version: 1.0\nName: x\n", "Name: x\nVersion: 1\n", "Metadata-Version: 2.1\nName x\nVersion: 1\n",
            "Metadata-Version: 2.1\nName: a\nVersion: 1\n\tcontinued first\n", "",
            "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.36.2)\nRoot-Is-Purelib: false\nTag: cp38-cp38-linux_x86_64\n",
            "Wheel-Version: 1.9\nRoot-Is-Purelib: true\nTag: py2-none-any\nTag: py3-none-any\nBuild: 1\n",
            "Wheel-Version: 2.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
            "Wheel-Version: 1.0\nRoot-Is-Purelib: maybe\n", b"Metadata-Version: 2.1\nName: \xff\x00x\nVersion: 1\n"]


def wheels_and_condas(tmp):
    mk = os.path.join(ROOT, "tests", "fixtures", "mkwheels.py")
    subprocess.run([sys.executable, mk, tmp], check=True, capture_output=True)
    wheels, condas = [], []
    for name in sorted(os.listdir(tmp)):
        p = os.path.join(tmp, name)
        if os.path.getsize(p) > 4096:
            continue  # the zip bombs: the unit tests cover them, and big seeds slow the fuzzer
        with open(p, "rb") as f:
            data = f.read()
        if name.endswith(".whl"):
            wheels.append(data if name == "demo_pkg-1.0-py3-none-any.whl" else name.encode() + b"\n" + data)
        else:
            condas.append(data)
    return wheels, condas


def pack_uint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def pack_int(v):
    """zigzag: 0, -1, 1, -2 ... as 0, 1, 2, 3 ..."""
    return pack_uint(v * 2 if v >= 0 else -v * 2 - 1)


def pack_str(s):
    if s is None:
        return b"\0"
    b = s.encode()
    return pack_uint(len(b) + 1) + b + b"\0"


def condapacks():
    """Blobs as cache/condapack.c writes them: mode byte 0 (rows) or 1 (first-seen list)."""
    def row(fn, url, elide=False, hc=None, size=-1):
        fields = [fn] + ([] if elide else [url]) + ["1.0", "", "ab" * 32, None, None, None, None, None,
                                                    "py38_0", "linux-64", '["python >=3.8"]', None, None, hc]
        return (pack_uint(1 if elide else 0) + pack_str(fields[0]) + b"".join(pack_str(f) for f in fields[1:])
                + pack_int(size) + pack_int(0) + pack_int(1600000000000))
    base = "https://conda.example/c/linux-64/"
    rows = (b"\0\x01" + row("a-1-0.tar.bz2", base + "a-1-0.tar.bz2", size=10)
            + row("a-2-0.conda", None, elide=True, hc="cd" * 32) + row("b", "https://x/y?b", size=2**40))
    seen = b"\x01\x01" + b"".join(pack_str(leaf) + pack_str("ef" * 32) + pack_int(1700000000)
                                 for leaf in ("a-1-0.tar.bz2", "a-2-0.conda", "b"))
    return [rows, rows[:40], b"\0\x01", b"\0\x02", seen, seen[:30], b"\x01\x01", b"\x01\x01\x00",
            b"\0\x01\x01\x00", b"\0\x01" + b"\xff" * 11]


def fatbins():
    """Three small corpus binaries (tests/fixtures/gpu-code, PROVENANCE.md there) and containers made by hand."""
    gpu = os.path.join(ROOT, "tests", "fixtures", "gpu-code")
    seeds = []
    for f in ("cuda13.0/c13_sm100f.so", "cuda11.8/rdc_sm80.so", "cuda11.8/three_tus_mixed.so"):
        with gzip.open(os.path.join(gpu, f + ".gz"), "rb") as g:
            seeds.append(g.read())

    def container(version, kind, arch, flags, payload=32):
        entry = (kind.to_bytes(2, "little") + b"\x01\x01" + (64).to_bytes(4, "little")
                 + payload.to_bytes(8, "little") + bytes(8) + b"\x07\x00\x01\x00"
                 + arch.to_bytes(4, "little") + bytes(8) + flags.to_bytes(8, "little") + bytes(16))
        body = entry + bytes(payload)
        return (b"\x50\xed\x55\xba" + version.to_bytes(2, "little") + (16).to_bytes(2, "little")
                + len(body).to_bytes(8, "little") + body)
    seeds += [container(1, 2, 86, 0x11), container(1, 1, 90, 0x102011), container(2, 2, 80, 0),
              container(1, 3, 80, 0), container(1, 2, 100, 0x208011) + container(1, 1, 120, 0x8011),
              b"\x50\xed\x55\xba\x01\x00\x10\x00" + bytes(8), b"\xb1\x43\x62\x46\x01\x00\x00\x00" + bytes(16)]
    return seeds


def main():
    # the seeds taken from real files first (in the same order: they share rnd), so that a missing
    # file stops the script before it rewrites any corpus
    real = [("version", versions()), ("specifier", specifiers()), ("marker", markers()),
            ("requirement", requirements()), ("wheelname", wheelnames()), ("condaver", condavers())]
    for target, seeds in real:
        write(target, seeds)
    write("url", urls())
    write("html", htmls())
    write("pep691", pep691s())
    write("provenance", provenances())
    write("repodata", repodatas())
    write("metadata", metadatas())
    write("condapack", condapacks())
    write("fatbin", fatbins())
    with tempfile.TemporaryDirectory() as tmp:
        wheels, condas = wheels_and_condas(tmp)
    write("wheel", wheels)
    write("conda", condas + [b"", b"BZh91AY&SY", b"PK\x03\x04"])


if __name__ == "__main__":
    main()
