#!/usr/bin/env python3
"""tests/diff/tags_diff.py: writes (or --check's) tests/fixtures/tags/*.txt from packaging HEAD (vendored).

Each fixture is the tag list packaging's cpython_tags + compatible_tags(interpreter=cpXY) yields
for a target machine; tests/unit/test_tags.c compares resolver/tags.c against them. The platform
ladder comes from packaging's own _manylinux / _musllinux / mac_platforms code with the machine's
glibc, musl or macOS version patched in, so nothing here re-implements packaging's rules.

usage: python3 tests/diff/tags_diff.py [--check]   (run from the repository root)
"""
import os
import re
import sys

# packaging HEAD, vendored (tests/diff/packaging_head): its macOS formats list "fat3" as CPython
# does, where pip's 21.3 wrote "fat32"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "packaging_head"))
sys.dont_write_bytecode = True
from packaging import tags, _manylinux, _musllinux  # noqa: E402
from packaging import __version__ as PACKAGING_VERSION  # noqa: E402

OUT = os.path.join("tests", "fixtures", "tags")

# name, python (major, minor), abi ("" = packaging's default), platform, exact, glibc, musl
TARGETS = [
    ("cp38_manylinux_2_28_x86_64", (3, 8), "", "manylinux_2_28_x86_64", 0, (0, 0), (0, 0)),
    ("cp37_manylinux2014_x86_64", (3, 7), "", "manylinux2014_x86_64", 0, (0, 0), (0, 0)),
    ("cp311_manylinux_2_17_aarch64", (3, 11), "", "manylinux_2_17_aarch64", 0, (0, 0), (0, 0)),
    ("cp310_musllinux_1_2_x86_64", (3, 10), "", "musllinux_1_2_x86_64", 0, (0, 0), (0, 0)),
    ("cp39_macosx_11_0_arm64", (3, 9), "", "macosx_11_0_arm64", 0, (0, 0), (0, 0)),
    ("cp38_macosx_10_15_x86_64", (3, 8), "", "macosx_10_15_x86_64", 0, (0, 0), (0, 0)),
    ("cp312_macosx_14_0_x86_64", (3, 12), "", "macosx_14_0_x86_64", 0, (0, 0), (0, 0)),
    ("cp310_win_amd64", (3, 10), "", "win_amd64", 0, (0, 0), (0, 0)),
    ("cp39_win32", (3, 9), "", "win32", 0, (0, 0), (0, 0)),
    ("cp36_linux_x86_64_exact", (3, 6), "", "linux_x86_64", 1, (0, 0), (0, 0)),
    ("cp27_manylinux1_x86_64", (2, 7), "", "manylinux1_x86_64", 0, (0, 0), (0, 0)),
    ("cp313_manylinux_2_5_i686", (3, 13), "", "manylinux_2_5_i686", 0, (0, 0), (0, 0)),
    ("cp39_abi_cp39d_manylinux_2_17_ppc64le", (3, 9), "cp39d", "manylinux_2_17_ppc64le", 0, (0, 0), (0, 0)),
    ("cp311_linux_aarch64_glibc_2_31", (3, 11), "", "linux_aarch64", 0, (2, 31), (0, 0)),
    ("cp312_linux_x86_64_musl_1_1", (3, 12), "", "linux_x86_64", 0, (0, 0), (1, 1)),
    ("cp310_manylinux_2_12_aarch64", (3, 10), "", "manylinux_2_12_aarch64", 0, (0, 0), (0, 0)),
    # PEP 600 arches packaging HEAD allows beyond the 2014 set
    ("cp312_manylinux_2_39_riscv64", (3, 12), "", "manylinux_2_39_riscv64", 0, (0, 0), (0, 0)),
    ("cp313_manylinux_2_38_loongarch64", (3, 13), "", "manylinux_2_38_loongarch64", 0, (0, 0), (0, 0)),
    ("cp312_musllinux_1_2_riscv64", (3, 12), "", "musllinux_1_2_riscv64", 0, (0, 0), (0, 0)),
    ("cp312_linux_riscv64_glibc_2_35", (3, 12), "", "linux_riscv64", 0, (2, 35), (0, 0)),
    # free-threaded builds: abi3t where a GIL build has abi3 (PEP 803)
    ("cp313t_win_amd64", (3, 13), "cp313t", "win_amd64", 0, (0, 0), (0, 0)),
    ("cp315t_manylinux_2_28_x86_64", (3, 15), "cp315t", "manylinux_2_28_x86_64", 0, (0, 0), (0, 0)),
    ("cp314td_musllinux_1_2_aarch64", (3, 14), "cp314td", "musllinux_1_2_aarch64", 0, (0, 0), (0, 0)),
]

# packaging's own list of arches, plus the two it proves from the interpreter's ELF header
# (armhf, i686), which a target naming the tag asserts; wheelpick goes further and accepts any
# arch (README, Standards), which test_tags checks apart from these fixtures
_MANYLINUX_ARCHES = set(_manylinux._ALLOWED_ARCHS) | {"i686", "armv7l"}


def manylinux(glibc, arch):
    _manylinux._get_glibc_version = lambda: _manylinux._GLibCVersion(*glibc)
    _manylinux._have_compatible_abi = lambda exe, archs: archs[0] in _MANYLINUX_ARCHES
    return list(_manylinux.platform_tags([arch]))


def musllinux(musl, arch):
    _musllinux._get_musl_version = lambda exe: _musllinux._MuslVersion(*musl)
    return list(_musllinux.platform_tags([arch]))


def ladder(platform, exact, glibc, musl):
    if exact:
        return [platform]
    m = re.fullmatch(r"manylinux_(\d+)_(\d+)_(.+)", platform)
    if m:
        return manylinux((int(m[1]), int(m[2])), m[3]) + ["linux_" + m[3]]
    m = re.fullmatch(r"manylinux(2014|2010|1)_(.+)", platform)
    if m:
        minor = {"2014": 17, "2010": 12, "1": 5}[m[1]]
        return manylinux((2, minor), m[2]) + ["linux_" + m[2]]
    m = re.fullmatch(r"musllinux_(\d+)_(\d+)_(.+)", platform)
    if m:
        return musllinux((int(m[1]), int(m[2])), m[3]) + ["linux_" + m[3]]
    m = re.fullmatch(r"linux_(.+)", platform)
    if m:
        if glibc[0]:
            return manylinux(glibc, m[1]) + [platform]
        if musl[0]:
            return musllinux(musl, m[1]) + [platform]
        return [platform]
    m = re.fullmatch(r"macosx_(\d+)_(\d+)_(.+)", platform)
    if m:
        return list(tags.mac_platforms((int(m[1]), int(m[2])), m[3]))
    return [platform]


def tag_list(py, abi, platforms):
    abis = [abi] if abi else None
    interp = "cp%d%d" % py
    out = [str(t) for t in tags.cpython_tags(py, abis, platforms)]
    out += [str(t) for t in tags.compatible_tags(py, interp, platforms)]
    seen, uniq = set(), []
    for t in out:
        if t not in seen:
            seen.add(t)
            uniq.append(t)
    return uniq


def render(target):
    name, py, abi, platform, exact, glibc, musl = target
    lines = [
        "# generated by tests/diff/tags_diff.py from packaging %s; do not edit" % PACKAGING_VERSION,
        "# target py=%d.%d abi=%s platform=%s exact=%d glibc=%d.%d musl=%d.%d"
        % (py[0], py[1], abi, platform, exact, glibc[0], glibc[1], musl[0], musl[1]),
    ]
    lines += tag_list(py, abi, ladder(platform, exact, glibc, musl))
    return "\n".join(lines) + "\n"


def head_linux_first(target):
    """packaging >= 26.3's order for a Linux machine (_linux_platforms: linux_ARCH, then the
    manylinux and musllinux tags); None for a target that is no Linux ladder. wheelpick keeps
    linux_ARCH last (README, Standards): the two lists must hold the same tags."""
    name, py, abi, platform, exact, glibc, musl = target
    lad = ladder(platform, exact, glibc, musl)
    lin = [p for p in lad if p.startswith("linux_")]
    if exact or not lin or len(lad) == 1:
        return None
    return tag_list(py, abi, lin + [p for p in lad if not p.startswith("linux_")])


def main():
    check = "--check" in sys.argv[1:]
    os.makedirs(OUT, exist_ok=True)
    bad = 0
    for target in TARGETS:
        path = os.path.join(OUT, target[0] + ".txt")
        text = render(target)
        if check:
            try:
                with open(path) as f:
                    old = f.read()
            except OSError:
                old = None
            if old != text:
                print("differs: %s" % path)
                bad += 1
        else:
            with open(path, "w") as f:
                f.write(text)
    # the one deliberate difference: the order of linux_ARCH, never the set of tags
    reordered = 0
    for target in TARGETS:
        head = head_linux_first(target)
        if head is None:
            continue
        ours = render(target).splitlines()[2:]
        if sorted(head) != sorted(ours):
            print("tag sets differ from packaging HEAD's linux-first order: %s" % target[0])
            bad += 1
        elif head != ours:
            reordered += 1
    if check:
        print("%d of %d fixtures differ; %d Linux lists differ from packaging >= 26.3 only by where linux_ARCH "
              "stands" % (bad, len(TARGETS), reordered))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
