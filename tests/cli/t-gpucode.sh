#!/usr/bin/env bash
# tests/cli/t-gpucode.sh: verify --gpu/--target judges the GPU code inside CUDA extension wheels made
# of the gpu-code corpus (tests/fixtures/mkgpuwheels.py): native / ptx-jit / none on GPUs of cc 3.5 to
# 12.1, as verdicts.tsv says, for a wheelhouse, a single wheel and a bundle of them.
. "$(dirname "$0")/../lib.sh"
GPU="$ROOT/tests/fixtures/gpu-code"
"$PYTHON" "$ROOT/tests/fixtures/mkgpuwheels.py" "$TMP/wh" "$TMP/pick" >/dev/null || { fail "mkgpuwheels.py could not write the wheels"; done_testing; exit 1; }
mv "$TMP/wh/wheels.tsv" "$TMP/wheels.tsv"

# every wheel on every GPU of the table: one verify of the wheelhouse per GPU
for cc in $(head -1 "$GPU/verdicts.tsv" | tr '\t' '\n' | sed -n 's/^cc//p'); do
	wp verify "$TMP/wh" --gpu "$cc" --json >"$TMP/v-$cc.json" 2>"$TMP/v-$cc.err"
	echo $? >"$TMP/v-$cc.rc"
done
"$PYTHON" - "$GPU/verdicts.tsv" "$TMP/wheels.tsv" "$TMP" >"$TMP/table-check" 2>&1 <<'PY'
import json, os, sys
verdicts, wheels, tmp = sys.argv[1:4]
rows = [l.rstrip("\n").split("\t") for l in open(verdicts)]
ccs = [c[2:] for c in rows[0][1:]]
table = {r[0]: r[1:] for r in rows[1:]}
wheel_of = dict(l.rstrip("\n").split("\t")[::-1] for l in open(wheels))
word = {"jit": "ptx-jit", "no-gpu-code": "no GPU code"}
bad = n = 0
for i, cc in enumerate(ccs):
    j = json.load(open(os.path.join(tmp, "v-%s.json" % cc)))
    got = {os.path.basename(g["path"]): g["verdict"] for g in j.get("gpu_code", [])}
    sm = "sm_%d" % round(float(cc) * 10)
    if any(g["gpu"] != sm for g in j.get("gpu_code", [])):
        bad += 1; print("cc %s: a verdict for another GPU" % cc)
    for f, vs in table.items():
        want = word.get(vs[i], vs[i])
        have = got.get(wheel_of[f])
        n += 1
        if have != want:
            bad += 1; print("%s on cc %s: %s, the table has %s" % (f, cc, have, want))
    if got.get("gx_two_objects-1.0-cp311-cp311-linux_x86_64.whl") != "none":
        bad += 1; print("cc %s: two objects with no GPU in common: not none" % cc)
    if "gx_pure-1.0-cp311-cp311-linux_x86_64.whl" in got:
        bad += 1; print("cc %s: a pure-Python wheel got a GPU verdict" % cc)
    any_none = any(v == "none" for v in got.values())
    if int(open(os.path.join(tmp, "v-%s.rc" % cc)).read()) != (4 if any_none else 0):
        bad += 1; print("cc %s: exit code does not follow the nones" % cc)
print("ok %d" % n if not bad else "bad")
PY
expect_grep "verify --gpu gives the table's verdict for all 73 wheels on all 18 GPUs" "^ok 1314$" "$TMP/table-check"

W=$TMP/wh/gx_arch_sm80_so-1.0-cp311-cp311-linux_x86_64.whl
expect_exit 0 "sm_80 SASS + PTX: native on 8.6" wp verify "$W" --gpu 8.6
expect_grep "says native and what the code holds" "^gpu gx_arch_sm80_so-1.0-cp311-cp311-linux_x86_64.whl sm_86: native \(sm_80 compute_80\)$" "$TMP/out"
expect_exit 0 "ptx-jit on 9.0 is a note, not a failure" wp verify "$W" --gpu "H100 80GB HBM3"
expect_grep "ptx-jit named" "sm_90: ptx-jit" "$TMP/out"
expect_grep "the note says why" "note: .*runs on sm_90 only by JIT-compiling its PTX" "$TMP/err"
expect_exit 4 "none on 7.5 fails" wp verify "$W" --gpu sm_75
expect_grep "the error names the GPU and the code" "no kernel image for sm_75: no SASS for sm_75 and no PTX at or below it in code built for sm_80, compute_80" "$TMP/err"
# the driver must know the PTX's ISA: CUDA 13.0's compute_120 PTX on a CUDA 12.8 driver cannot JIT
W13=$TMP/wh/gx_c13_arch_sm120_so-1.0-cp311-cp311-linux_x86_64.whl
expect_exit 0 "sm_120 SASS runs on 12.1 (GB10)" wp verify "$W13" --gpu 12.1 --cuda 13.0
expect_grep "native" "sm_121: native" "$TMP/out"
expect_exit 4 "compute_90 PTX of CUDA 13 with a 12.8 driver on sm_100: none" wp verify "$TMP/wh/gx_c13_big_compress_none_so-1.0-cp311-cp311-linux_x86_64.whl" --gpu 10.0 --cuda 12.8
expect_grep "says the driver is too old" "needs a driver for CUDA 13.0 or newer" "$TMP/err"
expect_exit 0 "the same with a 13.0 driver: ptx-jit" wp verify "$TMP/wh/gx_c13_big_compress_none_so-1.0-cp311-cp311-linux_x86_64.whl" --gpu 10.0 --cuda 13.0
expect_exit 2 "--cuda alone is a usage error" wp verify "$W" --cuda 12.8
expect_exit 2 "an unknown GPU is a usage error" wp verify "$W" --gpu sm_99
expect_exit 0 "no GPU words: no GPU check (as before)" wp verify "$W"
expect_no_grep "no GPU lines" "^gpu " "$TMP/out"

# a saved machine (an H200 on driver 580, 'detect --json' as written): its GPUs and its driver
H200="$ROOT/tests/fixtures/detect/machines/h200-580-open-cuda13/wheelpick-detect.json"
expect_exit 4 "--target FILE: the machine's sm_90 has no code in an sm_80 SASS-only wheel" wp verify "$TMP/wh/gx_sass_sm80_so-1.0-cp311-cp311-linux_x86_64.whl" --target "$H200"
expect_grep "named in the error" "no kernel image for sm_90" "$TMP/err"
expect_exit 0 "and the sm_80+PTX wheel runs there by JIT" wp verify "$W" --target "$H200"
expect_grep "ptx-jit on the machine's GPU" "sm_90: ptx-jit" "$TMP/out"

# a small wheelhouse: each wheel judged, the worst fails the run
mkdir -p "$TMP/small"
cp "$W" "$TMP/wh/gx_sass_sm90_so-1.0-cp311-cp311-linux_x86_64.whl" "$TMP/small/"
expect_exit 4 "a two-wheel wheelhouse on 8.6: the sm_90-only wheel fails it" wp verify "$TMP/small" --gpu 8.6
expect_grep "sass_sm90 on 8.6: none" "gx_sass_sm90_so-1.0-cp311-cp311-linux_x86_64.whl sm_86: none" "$TMP/out"
expect_grep "sm_80 one on 8.6: native" "gx_arch_sm80_so-1.0-cp311-cp311-linux_x86_64.whl sm_86: native" "$TMP/out"

# a bundle: the wheels inside it judged, named as BUNDLE:member
expect_exit 0 "a bundle for sm_90" wp bundle "$TMP/b.tar.zst" gx_pickdemo --find-links "$TMP/pick" --cuda 12.8 --gpu 9.0 --python 3.11 --platform linux_x86_64
expect_exit 4 "verify of the bundle on 8.6: its sm_90-only wheel fails" wp verify "$TMP/b.tar.zst" --gpu 8.6 --json
expect_json "$TMP/out" "[(g['path'].endswith('b.tar.zst:b/gx_pickdemo-2.0-cp311-cp311-linux_x86_64.whl'), g['verdict']) for g in j['gpu_code']]" "[(True, 'none')]"
expect_exit 0 "and on 9.0 it passes" wp verify "$TMP/b.tar.zst" --gpu 9.0

# pick: a wheel whose binary has no kernel image for the target's GPU is refused, the next candidate taken
ON86="--find-links $TMP/pick --cuda 12.8 --gpu 8.6 --python 3.11 --platform linux_x86_64"
expect_exit 0 "pick on sm_86: gx_pickdemo 2.0 (sm_90 only) refused, 1.0 picked" wp pick gx_pickdemo $ON86 -d "$TMP/p1"
expect_grep "the refusal says why" "refused gx_pickdemo-2.0-cp311-cp311-linux_x86_64.whl: no kernel image for sm_86 \(no SASS for sm_86 and no PTX at or below it in code built for sm_90\)" "$TMP/err"
expect_grep "the wheelhouse holds 1.0" "^gx-pickdemo==1\.0 " "$TMP/p1/requirements.txt"
expect_no_file "and not 2.0" "$TMP/p1/gx_pickdemo-2.0-cp311-cp311-linux_x86_64.whl"
expect_exit 0 "again, with 2.0 already in the store: refused from what the catalog kept" wp pick gx_pickdemo $ON86 -d "$TMP/p2"
expect_grep "refused again" "refused gx_pickdemo-2.0" "$TMP/err"
expect_grep "1.0 again" "^gx-pickdemo==1\.0 " "$TMP/p2/requirements.txt"
"$PYTHON" -c 'import sqlite3,sys; print(len(sqlite3.connect(sys.argv[1]).execute("select * from gpu_code").fetchall()))' "$WHEELPICK_CATALOG" >"$TMP/rows"
expect_grep "the catalog keeps each file's GPU code once" "^2$" "$TMP/rows"
expect_exit 0 "on sm_90 2.0 is kept" wp pick gx_pickdemo --find-links "$TMP/pick" --cuda 12.8 --gpu 9.0 --python 3.11 --platform linux_x86_64 -d "$TMP/p3"
expect_grep "2.0 on sm_90" "^gx-pickdemo==2\.0 " "$TMP/p3/requirements.txt"
# list and matrix show what the store read of the files it holds
expect_exit 0 "list shows the stored files' GPU code" wp list gx_pickdemo
expect_grep "2.0's code" "^  gx_pickdemo-2.0-cp311-cp311-linux_x86_64.whl: sm_90$" "$TMP/out"
expect_exit 0 "list with a target judges it" wp list gx_pickdemo --cuda 12.8 --gpu 8.6 --python 3.11 --platform linux_x86_64
expect_grep "2.0 none on sm_86" "gx_pickdemo-2.0-cp311-cp311-linux_x86_64.whl: sm_90 -> none on sm_86" "$TMP/out"
expect_grep "1.0 native" "gx_pickdemo-1.0-cp311-cp311-linux_x86_64.whl: sm_80 -> native on sm_86" "$TMP/out"
expect_grep "and 2.0 is not marked as fitting (the binary wins)" "^2\.0 +1$" "$TMP/out"
expect_exit 0 "list --json" wp list gx_pickdemo --json
expect_json "$TMP/out" "[f['gpu_code'] for f in j]" "['sm_90', 'sm_80']"
expect_exit 0 "matrix says it for the target's picks" wp matrix gx_pickdemo $ON86
expect_grep "matrix: the stored 2.0 has no kernel image for sm_86" "GPU code \(files the store holds\): none, gx_pickdemo-2.0-cp311-cp311-linux_x86_64.whl on sm_86" "$TMP/out"

expect_exit 1 "a project whose only build has no code for the GPU: nothing fits (exit 1)" wp pick gx_only90 $ON86 -d "$TMP/p4"
expect_grep "the error names the file and the GPU" "gx_only90-1.0-cp311-cp311-linux_x86_64.whl has no kernel image for sm_86" "$TMP/err"
expect_exit 1 "torch whose arch list says sm_86 but whose binary has sm_90 only: refused" wp pick torch --find-links "$TMP/pick/torch" --cuda 12.8 --gpu 8.6 --python 3.11 --platform manylinux_2_28_x86_64 -d "$TMP/pt"
expect_grep "the binary wins, and the output says so" "PyTorch's arch list for this build \(7\.5, 8\.0, 8\.6, 9\.0, 10\.0, 12\.0\+PTX\) says it serves sm_86, the binary says not, and the binary wins" "$TMP/err"
expect_exit 0 "a CPU target is not judged" wp pick gx_only90 --find-links "$TMP/pick" --cuda cpu --python 3.11 --platform linux_x86_64 -d "$TMP/p5"

# install --gpu: refused before the commit, nothing installed; a GPU it runs on installs
"$PYTHON" -m venv --without-pip "$TMP/venv"
SP=$("$TMP/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
I90=$TMP/pick/inst/gx_inst90-1.0-py3-none-linux_x86_64.whl
I80=$TMP/pick/inst/gx_inst80-1.0-py3-none-linux_x86_64.whl
expect_exit 1 "install --gpu 8.6 of an sm_90-only wheel: refused (exit 1)" wp install --python "$TMP/venv/bin/python" "$I90" "$I80" --gpu 8.6
expect_grep "the refusal names the wheel, the GPU and the code" "'gx_inst90-1.0-py3-none-linux_x86_64.whl' has no kernel image for sm_86 \(no SASS for sm_86 and no PTX at or below it in code built for sm_90\).*nothing was installed" "$TMP/err"
expect_no_file "nothing of it installed" "$SP/gx_inst90"
expect_no_file "nor of the other wheel of the same run" "$SP/gx_inst80"
expect_exit 0 "on 9.0 both install (sm_80's PTX by JIT)" wp install --python "$TMP/venv/bin/python" "$I90" "$I80" --gpu 9.0
expect_file "installed" "$SP/gx_inst90/_C.so"
expect_grep "the JIT one warned" "gx_inst80-1.0-py3-none-linux_x86_64.whl runs on sm_90 only by JIT-compiling its PTX" "$TMP/err"
# --link-mode hardlink: the files come from the unpacked store, and are judged all the same
"$PYTHON" -m venv --without-pip "$TMP/venv2"
SP2=$("$TMP/venv2/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
expect_exit 0 "fill the unpacked store (hardlink, on 9.0)" wp install --python "$TMP/venv2/bin/python" "$I90" --link-mode hardlink --gpu 9.0
"$PYTHON" -m venv --without-pip "$TMP/venv3"
expect_exit 1 "from the filled store on 8.6: refused" wp install --python "$TMP/venv3/bin/python" "$I90" --link-mode hardlink --gpu 8.6
expect_grep "the same reason" "has no kernel image for sm_86" "$TMP/err"
expect_no_file "nothing installed" "$("$TMP/venv3/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')/gx_inst90"
expect_exit 0 "no --gpu: no check (as before)" wp install --python "$TMP/venv/bin/python" "$I90"

# verify of the installed environment: each distribution's shared objects, from its RECORD, on disk
expect_exit 4 "verify --gpu 8.6 of the venv: gx_inst90 has no kernel image" wp verify "$TMP/venv" --gpu 8.6
expect_grep "its line" "^gpu gx_inst90-1.0.dist-info sm_86: none \(sm_90\)$" "$TMP/out"
expect_grep "the other native" "^gpu gx_inst80-1.0.dist-info sm_86: native \(sm_80 compute_80\)$" "$TMP/out"
expect_grep "named an installed environment" "installed environment '.*venv' failed verification" "$TMP/err"
expect_exit 0 "on 9.0: native and ptx-jit" wp verify "$SP" --gpu 9.0
expect_grep "ptx-jit for gx_inst80" "^gpu gx_inst80-1.0.dist-info sm_90: ptx-jit" "$TMP/out"
expect_exit 2 "an environment without --gpu: a usage error that says what to give" wp verify "$TMP/venv"
expect_grep "says --gpu" "checked for its GPU code only: give --gpu or --target" "$TMP/err"
expect_exit 2 "install --cuda alone is a usage error" wp install --python "$TMP/venv/bin/python" "$I90" --cuda 12.8
done_testing
