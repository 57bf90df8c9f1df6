#!/usr/bin/env bash
# tests/cli/t-detect.sh: detect and --cuda auto on a faked GPU machine (sysroot + fake programs on PATH).
. "$(dirname "$0")/../lib.sh"
make_sample
M="$ROOT/tests/fixtures/detect/machines/a100-535-proprietary"
SYS="$TMP/sysroot"
mkdir -p "$SYS/proc/driver/nvidia" "$TMP/bin"
cp "$M/proc_version" "$SYS/proc/driver/nvidia/version"
cat >"$TMP/bin/nvidia-smi" <<SH
#!/bin/sh
case "\$*" in
*--query-gpu*) cat "$M/nvidia-smi-query.csv" ;;
*) cat "$M/nvidia-smi.txt" ;;
esac
SH
cat >"$TMP/bin/python3" <<'SH'
#!/bin/sh
echo "cpython 3 8 10 cpython-38-x86_64-linux-gnu x86_64"
SH
chmod +x "$TMP/bin/"*
export WHEELPICK_SYSROOT="$SYS"
OLDPATH=$PATH
export PATH="$TMP/bin:/usr/bin:/bin"

expect_exit 0 "detect" wp detect
expect_grep "driver" "driver: +NVIDIA 535" "$TMP/out"
expect_grep "cuda from nvidia-smi" "cuda: +12\.2 is the newest the driver runs" "$TMP/out"
expect_grep "the GPU" "A100.*sm_80" "$TMP/out"
expect_exit 0 "detect --json" wp detect --json
expect_json "$TMP/out" "j['driver_version']" 535.104.05
expect_json "$TMP/out" "j['target']['driver']" 535.104.05
wp detect --json >"$TMP/profile.json" 2>/dev/null

# --cuda auto takes the driver's figure and says so
expect_exit 0 "pick with --cuda auto" wp torch==1.8.0 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS" --dry-run --no-deps --json
expect_json "$TMP/out" "j['targets'][0]['cuda']" 12.2
expect_json "$TMP/out" "j['targets'][0]['driver']" 535.104.05
expect_json "$TMP/out" "j['picks'][0]['variant']" cu111
expect_grep "says where CUDA came from" "driver 535.104.05 runs CUDA 12.2" "$TMP/err"

# the saved profile is a target on a machine with no GPU
export PATH=$OLDPATH
unset WHEELPICK_SYSROOT
expect_exit 0 "pick --target profile" wp torch==1.8.0 --target "$TMP/profile.json" --index "$FINDLINKS" --dry-run --no-deps --json
expect_json "$TMP/out" "j['targets'][0]['cuda']" 12.2
expect_json "$TMP/out" "j['targets'][0]['driver']" 535.104.05
expect_json "$TMP/out" "j['targets'][0]['gpus']" "['sm_80']"
# a hand-written profile may give the driver alone, and AMD GPUs
printf '{"python": "3.8", "platform": "linux_x86_64", "driver": "470.57.02"}' >"$TMP/hand.json"
expect_exit 0 "a profile with only a driver" wp torch==1.8.0 --target "$TMP/hand.json" --index "$FINDLINKS" --dry-run --no-deps --json
expect_json "$TMP/out" "j['targets'][0]['cuda']" 11.4
expect_json "$TMP/out" "j['picks'][0]['variant']" cu111
printf '{"python": "3.8", "platform": "linux_x86_64", "driver": "4x"}' >"$TMP/hand.json"
expect_exit 2 "a profile with a bad driver" wp torch==1.8.0 --target "$TMP/hand.json" --index "$FINDLINKS" --dry-run
expect_grep "names the file" "hand.json" "$TMP/err"
expect_exit 2 "a broken profile is a usage error" wp torch --target "$TMP/nonexistent.json" --dry-run
expect_grep "names the file" "nonexistent.json" "$TMP/err"

# an AMD machine: the x86-64 level from /proc/cpuinfo, ROCm from /opt/rocm, gfx from the kfd topology
A="$ROOT/tests/fixtures/detect/machines/amd-mi300x-rocm64"
AMD="$TMP/amd"
mkdir -p "$AMD/proc" "$AMD/opt/rocm/.info"
cp "$A/cpuinfo" "$AMD/proc/cpuinfo"
cp "$A/rocm_version" "$AMD/opt/rocm/.info/version"
for n in 0 1 2; do mkdir -p "$AMD/sys/class/kfd/kfd/topology/nodes/$n"; cp "$A/kfd_node_$n" "$AMD/sys/class/kfd/kfd/topology/nodes/$n/properties"; done
rm -f "$TMP/bin/nvidia-smi"
export WHEELPICK_SYSROOT="$AMD" PATH="$TMP/bin:/usr/bin:/bin"
expect_exit 0 "detect --json on an MI300X machine" wp detect --json
expect_json "$TMP/out" "j['x86_64_level']" v4
expect_json "$TMP/out" "j['rocm']" 6.4.1-120
expect_json "$TMP/out" "j['gfx']" "['gfx942']"
expect_json "$TMP/out" "[j['target'][k] for k in ('accel', 'rocm', 'x86_64_level')]" "['rocm', '6.4', 'v4']"
expect_json "$TMP/out" "j['target']['gfx']" "['gfx942']"
expect_json "$TMP/out" "any('give --rocm 6.4 to pick ROCm builds' in w for w in j['warnings'])" True
wp detect --json >"$TMP/amd.json" 2>/dev/null
expect_exit 0 "detect says what it found" wp detect
expect_grep "the x86-64 level" "^cpu: +x86-64-v4$" "$TMP/out"
expect_grep "the ROCm version" "^rocm: +6\.4\.1-120 " "$TMP/out"
expect_grep "the AMD GPU's gfx target" "^amd gpu 0: gfx942$" "$TMP/out"
expect_grep "and how to pick ROCm builds" "warning: +ROCm 6\.4 .*and gfx942 are here: give --rocm 6\.4" "$TMP/out"
# ROCm builds are taken only when asked for: --cuda auto here is CPU, and says so
expect_exit 0 "pick with --cuda auto on the AMD machine" wp torch==1.8.0 --python 3.8 --platform linux_x86_64 \
	--index "$FINDLINKS" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['variant']" cpu
expect_json "$TMP/out" "j['targets'][0]['gpus']" "['gfx942']"
# the profile it writes is the same target on another machine
export PATH=$OLDPATH
unset WHEELPICK_SYSROOT
expect_exit 1 "an AMD profile as a target: torch 1.8 had ROCm 4.0 only" wp torch==1.8.0 --target "$TMP/amd.json" \
	--index "$FINDLINKS" --dry-run --no-deps
expect_grep "the profile's ROCm and GPU are the target's" "none runs on ROCm 6\.4 .*GPU gfx942" "$TMP/err"
# a CPU without AVX: v2, and ROCm without a GPU is not a ROCm target
sed -E 's/ (avx[a-z0-9_]*|bmi1|bmi2|fma|f16c|movbe|xsave|abm)( |$)/ /g; s/ (avx[a-z0-9_]*|bmi1|bmi2|fma|f16c|movbe|xsave|abm)( |$)/ /g' \
	"$A/cpuinfo" >"$AMD/proc/cpuinfo"
rm -rf "$AMD/sys"
export WHEELPICK_SYSROOT="$AMD" PATH="$TMP/bin:/usr/bin:/bin"
expect_exit 0 "detect --json without AVX or an AMD GPU" wp detect --json
expect_json "$TMP/out" "[j['x86_64_level'], j['rocm'], j['gfx'], j['target']['accel']]" "['v2', '6.4.1-120', [], 'cpu']"
expect_json "$TMP/out" "any('ROCm is installed but no AMD GPU is visible' in w for w in j['warnings'])" True
export PATH=$OLDPATH
unset WHEELPICK_SYSROOT

# no driver at all: CPU builds, said
mkdir -p "$TMP/empty"
export WHEELPICK_SYSROOT="$TMP/empty" PATH="$TMP/bin-none:/usr/bin:/bin"
rm -f "$TMP/bin/nvidia-smi"
export PATH="$TMP/bin:/usr/bin:/bin"
expect_exit 0 "no driver -> CPU" wp torch==1.8.0 --python 3.8 --platform linux_x86_64 --index "$FINDLINKS" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['variant']" cpu
expect_grep "says so" "no NVIDIA driver found: picking CPU builds" "$TMP/err"
done_testing
