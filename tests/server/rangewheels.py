#!/usr/bin/env python3
# tests/server/rangewheels.py: writes the wheels tests/unit/test_remote_metadata.c reads by range, sound and broken.
"""rangewheels.py ROOT EXPECT: wheels into ROOT, the METADATA each sound one holds into EXPECT/<file>.

Made with zipfile, as real builders do; the broken ones are patched afterwards, byte by byte.
"""
import os
import random
import struct
import sys
import warnings
import zipfile


def metadata(name, version, reqs=()):
    lines = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version,
             "Summary: a wheel for the range-read tests"]
    lines += ["Requires-Dist: " + r for r in reqs]
    return "\n".join(lines) + "\n\nLong description.\n"


WHEEL = "Wheel-Version: 1.0\nGenerator: rangewheels\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def write_wheel(path, dist, md, before=(), after=(), meta_kw=None, compression=zipfile.ZIP_DEFLATED):
    """before/after: (name, bytes, compress_type) members around the dist-info files."""
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data, ct in before:
            z.writestr(zipfile.ZipInfo(name), data, compress_type=ct)
        if md is not None:
            info = zipfile.ZipInfo(dist + "/METADATA")
            info.compress_type = (meta_kw or {}).get("compress_type", zipfile.ZIP_DEFLATED)
            info.extra = (meta_kw or {}).get("extra", b"")
            with z.open(info, "w", force_zip64=(meta_kw or {}).get("force_zip64", False)) as f:
                f.write(md.encode())
        z.writestr(dist + "/WHEEL", WHEEL)
        for name, data, ct in after:
            z.writestr(zipfile.ZipInfo(name), data, compress_type=ct)
        z.writestr(dist + "/RECORD", "".join("%s,,\n" % n for n in z.namelist()) + dist + "/RECORD,,\n")


def expect(edir, fname, md):
    with open(os.path.join(edir, fname), "w", encoding="utf-8") as f:
        f.write(md)


def patch(path, fn):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data = fn(data)
    with open(path, "wb") as f:
        f.write(data)


def eocd_at(data):
    return data.rindex(b"PK\x05\x06")


def main():
    root, edir = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(root, "norange"), exist_ok=True)
    os.makedirs(edir, exist_ok=True)
    rnd = random.Random(1234)
    S, D = zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED
    code = [("demo_pkg/__init__.py", b"print('hello')\n", D)]

    # small: the whole wheel is in the first 64 KiB
    md = metadata("demo-pkg", "1.0", ["numpy>=1.20", "typing-extensions; python_version < \"3.8\""])
    f = "demo_pkg-1.0-py3-none-any.whl"
    write_wheel(os.path.join(root, f), "demo_pkg-1.0.dist-info", md, before=code)
    expect(edir, f, md)
    write_wheel(os.path.join(root, "norange", f), "demo_pkg-1.0.dist-info", md, before=code)

    # big: METADATA first, then 5 MB of random stored bytes: far from the tail
    md = metadata("big-pkg", "2.0", ["torch==2.1.0", "filelock"])
    f = "big_pkg-2.0-py3-none-any.whl"
    blob = rnd.randbytes(5 << 20)
    write_wheel(os.path.join(root, f), "big_pkg-2.0.dist-info", md,
                after=[("big_pkg/blob.bin", blob, S)])
    expect(edir, f, md)

    # many: 20,000 members, so the central directory is larger than the first 64 KiB
    md = metadata("many-pkg", "3.0", ["six"])
    f = "many_pkg-3.0-py3-none-any.whl"
    write_wheel(os.path.join(root, f), "many_pkg-3.0.dist-info", md,
                before=[("many_pkg/m%05d.py" % i, b"x = %d\n" % i, D) for i in range(20000)])
    expect(edir, f, md)

    # zip64 in METADATA's local header only (force_zip64), before a 2 MB member
    md = metadata("zip64-one", "4.0", ["requests[socks]>=2"])
    f = "zip64_one-4.0-py3-none-any.whl"
    write_wheel(os.path.join(root, f), "zip64_one-4.0.dist-info", md,
                after=[("zip64_one/pad.bin", rnd.randbytes(2 << 20), S)],
                meta_kw={"force_zip64": True})
    expect(edir, f, md)

    # a local extra field of 4000 bytes (more than the client's slack), far from the tail
    md = metadata("long-extra", "5.0", ["idna"])
    f = "long_extra-5.0-py3-none-any.whl"
    write_wheel(os.path.join(root, f), "long_extra-5.0.dist-info", md,
                after=[("long_extra/pad.bin", rnd.randbytes(300000), S)],
                meta_kw={"extra": struct.pack("<HH", 0xCAFE, 3996) + bytes(3996)})
    expect(edir, f, md)

    # zip64 everywhere: zip64 end record and locator, saturated EOCD, zip64 extras in the directory
    saved = (zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT)
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 1, 1
    try:
        md = metadata("zip64-all", "4.1", ["attrs"])
        f = "zip64_all-4.1-py3-none-any.whl"
        write_wheel(os.path.join(root, f), "zip64_all-4.1.dist-info", md, before=code,
                    meta_kw={"force_zip64": True})
        expect(edir, f, md)
        # the same with every EOCD field saturated, so only the zip64 record tells
        md = metadata("zip64-sat", "4.2", ["attrs"])
        f = "zip64_sat-4.2-py3-none-any.whl"
        write_wheel(os.path.join(root, f), "zip64_sat-4.2.dist-info", md, before=code,
                    meta_kw={"force_zip64": True})
        expect(edir, f, md)
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = saved

    def saturate(d):
        e = eocd_at(d)
        d[e + 8:e + 20] = struct.pack("<HHII", 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF)
        return d
    patch(os.path.join(root, f), saturate)

    # names: PEP 503 normalisation, a local version, and a vendored dist-info to pass over
    md = metadata("Foo.Bar", "1.0+cu111", ["baz"])
    f = "foo_bar-1.0+cu111-py3-none-any.whl"
    write_wheel(os.path.join(root, f), "Foo.Bar-1.0+cu111.dist-info", md,
                before=[("vendored-9.9.dist-info/METADATA", metadata("vendored", "9.9").encode(), D)])
    expect(edir, f, md)

    # broken ones
    f = os.path.join(root, "bad_crc-1.0-py3-none-any.whl")
    write_wheel(f, "bad_crc-1.0.dist-info", metadata("bad-crc", "1.0"), meta_kw={"compress_type": S})
    patch(f, lambda d: d.replace(b"Summary: a wheel", b"Summary: a whEel", 1))

    write_wheel(os.path.join(root, "no_meta-1.0-py3-none-any.whl"), "no_meta-1.0.dist-info", None)

    f = os.path.join(root, "eocd_oob-1.0-py3-none-any.whl")
    write_wheel(f, "eocd_oob-1.0.dist-info", metadata("eocd-oob", "1.0"))

    def oob(d):
        e = eocd_at(d)
        d[e + 16:e + 20] = struct.pack("<I", 0x7FFFFFF0)
        return d
    patch(f, oob)

    f = os.path.join(root, "truncated-1.0-py3-none-any.whl")
    write_wheel(f, "truncated-1.0.dist-info", metadata("truncated", "1.0"))
    patch(f, lambda d: d[:-10])

    write_wheel(os.path.join(root, "wrong_name-1.0-py3-none-any.whl"), "wrong_name-1.0.dist-info",
                metadata("someone-else", "1.0"))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name, and writes it
        write_wheel(os.path.join(root, "two_meta-1.0-py3-none-any.whl"), "two_meta-1.0.dist-info",
                    metadata("two-meta", "1.0"),
                    after=[("two_meta-1.0.dist-info/METADATA", metadata("two-meta", "1.0").encode(), D)])

    # a server without ranges and a file over the whole-body cap: sparse, never read by the client
    with open(os.path.join(root, "norange", "huge-1.0-py3-none-any.whl"), "wb") as fh:
        fh.truncate(65 << 20)


if __name__ == "__main__":
    main()
