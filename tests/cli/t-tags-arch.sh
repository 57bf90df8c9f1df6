#!/usr/bin/env bash
# tests/cli/t-tags-arch.sh: end to end through `pick` and `tags`: a riscv64 or loongarch64 machine
# takes its manylinux wheel (PEP 600 names the tag for any arch), and a free-threaded Python takes
# an abi3t wheel (PEP 803), as packaging HEAD's tags say.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$TMP/idx"
for f in rvpkg-1.0-cp312-cp312-manylinux_2_39_riscv64.whl rvpkg-1.0-cp312-cp312-linux_riscv64.whl \
	rvpkg-1.0-cp312-cp312-manylinux_2_28_x86_64.whl lapkg-2.0-cp313-cp313-manylinux_2_36_loongarch64.whl \
	ft-1.0-cp315-abi3.abi3t-win_amd64.whl gil-1.0-cp312-abi3-win_amd64.whl; do
	"$PYTHON" - "$TMP/idx" "$f" <<'PY'
import base64, hashlib, sys, zipfile
out, fn = sys.argv[1], sys.argv[2]
name, ver = fn.split("-")[:2]
tag = "-".join(fn[:-4].split("-")[2:])
di = "%s-%s.dist-info" % (name, ver)
files = {di + "/METADATA": ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, ver)).encode(),
         di + "/WHEEL": ("Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: false\nTag: %s\n" % tag).encode()}
rec = "".join("%s,sha256=%s,%d\n" % (k, base64.urlsafe_b64encode(hashlib.sha256(v).digest()).rstrip(b"=").decode(),
                                     len(v)) for k, v in files.items()) + di + "/RECORD,,\n"
with zipfile.ZipFile("%s/%s" % (out, fn), "w") as z:
    for k, v in files.items():
        z.writestr(k, v)
    z.writestr(di + "/RECORD", rec)
PY
done
I=(--index "file://$TMP/idx/" --cuda cpu --no-deps)

expect_exit 0 "a riscv64 glibc 2.39 machine" wp pick rvpkg --python 3.12 --platform manylinux_2_39_riscv64 "${I[@]}" -d "$TMP/rv"
expect_file "takes its manylinux wheel" "$TMP/rv/rvpkg-1.0-cp312-cp312-manylinux_2_39_riscv64.whl"
expect_no_file "not the linux_riscv64 one" "$TMP/rv/rvpkg-1.0-cp312-cp312-linux_riscv64.whl"
expect_exit 0 "a loongarch64 glibc 2.38 machine" wp pick lapkg --python 3.13 --platform manylinux_2_38_loongarch64 "${I[@]}" --dry-run
expect_grep "takes the 2.36 wheel" "lapkg-2.0-cp313-cp313-manylinux_2_36_loongarch64.whl" "$TMP/out"
expect_exit 0 "free-threaded 3.15t" wp pick ft --python 3.15t --platform win_amd64 "${I[@]}" -d "$TMP/ft"
expect_file "takes the abi3.abi3t wheel" "$TMP/ft/ft-1.0-cp315-abi3.abi3t-win_amd64.whl"
expect_exit 1 "an abi3-only wheel does not load on 3.14t" wp pick gil --python 3.14t --platform win_amd64 "${I[@]}" --dry-run
expect_exit 0 "it does on 3.14" wp pick gil --python 3.14 --platform win_amd64 "${I[@]}" --dry-run

expect_exit 0 "tags for 3.13t" wp tags --python 3.13t --platform win_amd64
n=$(grep -c abi3t "$TMP/out")
[ "$n" = 12 ] && pass "12 abi3t tags, as packaging HEAD" || fail "abi3t tags: $n, not 12"
expect_no_grep "no abi3 tag" "-abi3-" "$TMP/out"
expect_exit 0 "tags for riscv64" wp tags --python 3.12 --platform manylinux_2_39_riscv64
expect_grep "manylinux down to 2_17" "^cp312-cp312-manylinux_2_17_riscv64$" "$TMP/out"
expect_grep "and manylinux2014, its alias" "^cp312-cp312-manylinux2014_riscv64$" "$TMP/out"
done_testing
