#!/usr/bin/env python3
"""bench/gen_repodata.py: a synthetic conda repodata.json, shaped like conda-forge's linux-64.

usage: gen_repodata.py RECORDS OUT.json [sorted|shuffled]

Records are realistic in shape and size (about 1 KB each, like conda-forge): name, version, build,
build_number, depends (3-15 entries with version constraints), constrains on some, license,
md5, sha256, size, subdir, timestamp, arch/platform on older ones. About two thirds go under
"packages" (.tar.bz2) and one third under "packages.conda". Deterministic (seeded), pretty-printed
like conda-index's output. "sorted" (the default) orders each section by file name, as conda-index
writes it (json.dump with sort_keys), so a package's records are together; "shuffled" writes the
same records in the order they were drawn: the worst case for a reader that groups by package.
"""
import hashlib
import json
import random
import sys

LICENSES = ["MIT", "BSD-3-Clause", "Apache-2.0", "GPL-3.0-or-later", "LGPL-2.1-or-later", "PSF-2.0", "MPL-2.0"]
PY = ["3.8", "3.9", "3.10", "3.11", "3.12"]


def main():
    n = int(sys.argv[1])
    out = sys.argv[2]
    order = sys.argv[3] if len(sys.argv) > 3 else "sorted"
    if order not in ("sorted", "shuffled"):
        sys.exit("order must be sorted or shuffled")
    rnd = random.Random(20240101)
    names = [f"pkg-{i:05d}" for i in range(max(50, n // 40))] + ["python", "numpy", "libgcc-ng", "libstdcxx-ng",
                                                                   "openssl", "zlib", "pytorch", "cudatoolkit"]
    commons = ["libgcc-ng >=12", "libstdcxx-ng >=12", "libzlib >=1.2.13,<2.0.0a0", "openssl >=3.1.4,<4.0a0",
               "python_abi 3.11.* *_cp311", "numpy >=1.23.5,<2.0a0", "__glibc >=2.17,<3.0.a0",
               "libblas >=3.9.0,<4.0a0", "liblapack >=3.9.0,<4.0a0", "cuda-version >=11.8,<12"]
    with open(out, "w", buffering=1 << 20) as f:
        f.write('{\n  "info": {\n    "subdir": "linux-64"\n  },\n')
        for section, share in (("packages", 2), ("packages.conda", 1)):
            count = n * share // 3 if section == "packages" else n - n * 2 // 3
            ext = ".tar.bz2" if section == "packages" else ".conda"
            f.write(f'  "{section}": {{')
            entries = []
            for i in range(count):
                name = rnd.choice(names)
                version = f"{rnd.randint(0, 30)}.{rnd.randint(0, 40)}.{rnd.randint(0, 20)}"
                py = rnd.choice(PY)
                bn = rnd.randint(0, 12)
                build = f"py{py.replace('.', '')}h{rnd.getrandbits(32):08x}_{bn}"
                deps = rnd.sample(commons, rnd.randint(2, 8))
                deps += [f"{rnd.choice(names)} >={rnd.randint(0, 9)}.{rnd.randint(0, 9)}" for _ in range(rnd.randint(1, 7))]
                deps.append(f"python >={py},<{py}.0a0")
                seed = f"{section}{i}".encode()
                rec = {
                    "build": build,
                    "build_number": bn,
                    "depends": deps,
                    "license": rnd.choice(LICENSES),
                    "license_family": "OTHER",
                    "md5": hashlib.md5(seed).hexdigest(),
                    "name": name,
                    "sha256": hashlib.sha256(seed).hexdigest(),
                    "size": rnd.randint(5_000, 900_000_000),
                    "subdir": "linux-64",
                    "timestamp": 1500000000000 + rnd.randint(0, 250000000000),
                    "version": version,
                }
                if rnd.random() < 0.3:
                    rec["constrains"] = [f"{rnd.choice(names)} >={rnd.randint(0, 5)}" for _ in range(rnd.randint(1, 3))]
                if rnd.random() < 0.2:
                    rec["arch"] = "x86_64"
                    rec["platform"] = "linux"
                if rnd.random() < 0.05:
                    rec["track_features"] = "cuda"
                fn = f"{name}-{version}-{build}{ext}"
                # pretty-printed as conda-index writes it (indent 2, sorted keys)
                entries.append((fn, json.dumps(rec, indent=2, sort_keys=True).replace("\n", "\n    ")))
            if order == "sorted":
                entries.sort(key=lambda e: e[0])
            for i, (fn, text) in enumerate(entries):
                f.write(f'{"," if i else ""}\n    "{fn}": {text}')
            f.write("\n  },\n")
        f.write('  "removed": [],\n  "repodata_version": 1\n}\n')


if __name__ == "__main__":
    main()
