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
# --- real machines (issue 40): each a replayed fixture machine of tests/fixtures/detect/machines -------
# on_machine NAME CMD...: CMD on that machine: its sysroot (/proc, /sys), its nvidia-smi on PATH and its
# fake NVML and libcuda (tests/fixtures/detect/fake_*.c, answering what nvml.txt / libcuda.txt say)
export PATH=$OLDPATH
unset WHEELPICK_SYSROOT
FX="$ROOT/tests/fixtures/detect"
mkdir -p "$TMP/fakelibs"
${CC:-cc} -shared -fPIC -O1 -o "$TMP/fakelibs/libnvidia-ml.so.1" "$FX/fake_nvml.c" &&
	${CC:-cc} -shared -fPIC -O1 -o "$TMP/fakelibs/libcuda.so.1" "$FX/fake_libcuda.c" ||
	fail "cannot build the fake NVIDIA libraries"
build_machine() {
	local m="$FX/machines/$1" d="$TMP/m-$1"
	rm -rf "$d"; mkdir -p "$d/root/etc" "$d/bin" "$d/lib"
	echo 2.28 >"$d/root/etc/wheelpick-glibc"
	printf '#!/bin/sh\necho "cpython 3 12 3 cpython-312-x86_64-linux-gnu x86_64"\n' >"$d/bin/python3"
	[ -f "$m/proc_version" ] && mkdir -p "$d/root/proc/driver/nvidia" && cp "$m/proc_version" "$d/root/proc/driver/nvidia/version"
	if [ -f "$m/pci_devices" ]; then
		while read -r slot vendor device class; do
			mkdir -p "$d/root/sys/bus/pci/devices/$slot"
			echo "$vendor" >"$d/root/sys/bus/pci/devices/$slot/vendor"
			echo "$device" >"$d/root/sys/bus/pci/devices/$slot/device"
			echo "$class" >"$d/root/sys/bus/pci/devices/$slot/class"
		done <"$m/pci_devices"
	fi
	if [ -f "$m/nvidia-smi.txt" ]; then
		cat >"$d/bin/nvidia-smi" <<SH
#!/bin/sh
case "\$*" in
*--query-gpu*) cat "$m/nvidia-smi-query.csv" 2>/dev/null; exit $(cat "$m/nvidia-smi-query.rc" 2>/dev/null || echo 0) ;;
*) cat "$m/nvidia-smi.txt"; exit $(cat "$m/nvidia-smi.rc" 2>/dev/null || echo 0) ;;
esac
SH
	fi
	[ -f "$m/nvml.txt" ] && cp "$TMP/fakelibs/libnvidia-ml.so.1" "$m/nvml.txt" "$d/lib/"
	[ -f "$m/libcuda.txt" ] && cp "$TMP/fakelibs/libcuda.so.1" "$m/libcuda.txt" "$d/lib/"
	chmod +x "$d/bin/"*
}
on_machine() {
	local d="$TMP/m-$1"; shift
	env WHEELPICK_SYSROOT="$d/root" WHEELPICK_NVIDIA_LIBDIR="$d/lib" PATH="$d/bin:/usr/bin:/bin" "$@"
}
python3 "$ROOT/tests/fixtures/mkindex.py" "$TMP/idx" >/dev/null || fail "mkindex.py could not write the index"
start_server "$TMP/idx"
WHL="$BASE/whl/"
L="--python 3.12 --platform manylinux_2_28_x86_64"

# 1. the user-space driver without its kernel module: no CUDA claimed, what is missing said, CPU picked
build_machine userspace-no-module-a100
expect_exit 0 "detect: user-space driver, no kernel module" on_machine userspace-no-module-a100 "$WHEELPICK" detect
expect_grep "says the module is not loaded" "^driver: +installed, kernel module not loaded \(nvmlInit_v2 gave NVML_ERROR_DRIVER_NOT_LOADED; cuInit gave CUDA_ERROR_NO_DEVICE" "$TMP/out"
expect_no_grep "claims no CUDA" "^cuda:" "$TMP/out"
expect_grep "names what is missing" "kernel module 'nvidia' is not loaded \(no /proc/driver/nvidia/version or /sys/module/nvidia\)" "$TMP/out"
expect_grep "and what libcuda is for" "give --cuda 12\.2 to pick for this driver once its module is loaded" "$TMP/out"
expect_grep "target CPU" "^target: +CPU" "$TMP/out"
expect_exit 0 "pick --cuda auto there is CPU" on_machine userspace-no-module-a100 "$WHEELPICK" torch $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['targets'][0]['accelerator']" cpu
expect_json "$TMP/out" "j['targets'][0].get('driver')" None
expect_grep "and says why" "kernel module is not loaded \(nvmlInit_v2 gave NVML_ERROR_DRIVER_NOT_LOADED" "$TMP/err"
expect_exit 0 "the user describes the driver: CUDA" on_machine userspace-no-module-a100 "$WHEELPICK" torch --cuda 12.2 $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['targets'][0]['accelerator']" cuda
# the same machine as the host (no sysroot), its libraries on LD_LIBRARY_PATH: where libcuda's
# cuDriverGetVersion made "cuda: 12.2 (from libcuda)" beside "driver: none found" (only where this host
# has no NVIDIA kernel module of its own)
if [ ! -e /proc/driver/nvidia/version ] && [ ! -e /sys/module/nvidia ]; then
	d="$TMP/m-userspace-no-module-a100"
	expect_exit 0 "detect on a host with libcuda and no module" env -u WHEELPICK_SYSROOT LD_LIBRARY_PATH="$d/lib" \
		PATH="$d/bin:/usr/bin:/bin" "$WHEELPICK" detect
	expect_no_grep "libcuda's CUDA is not claimed" "^cuda:" "$TMP/out"
	expect_grep "and the module is named" "^driver: +installed, kernel module not loaded \(nvmlInit_v2 gave NVML_ERROR_DRIVER_NOT_LOADED; cuInit gave CUDA_ERROR_NO_DEVICE" "$TMP/out"
	expect_grep "target CPU" "^target: +CPU" "$TMP/out"
fi

# 2. driver 610's banner: "KMD Version" and "CUDA UMD Version"
build_machine rtx5060-610-umd
expect_exit 0 "detect --json, driver 610" on_machine rtx5060-610-umd "$WHEELPICK" detect --json
expect_json "$TMP/out" "(j['cuda']['version'], j['cuda']['source'])" "('13.3', 'nvidia-smi')"
expect_json "$TMP/out" "[g['compute_capability'] for g in j['gpus']]" "['12.0']"

# 3. NVML first
build_machine rtx5090-nvml-575
expect_exit 0 "detect --json, NVML" on_machine rtx5090-nvml-575 "$WHEELPICK" detect --json
expect_json "$TMP/out" "(j['cuda']['source'], j['gpu_source'], [g['name'] for g in j['gpus']])" "('nvml', 'nvml', ['NVIDIA GeForce RTX 5090', 'NVIDIA GeForce RTX 5090'])"
expect_json "$TMP/out" "j['target']['gpu_sms']" "[120, 120]"

# 4. no driver yet: the GPU from the PCI bus, CUDA builds for it, and the driver to install
build_machine rtx5090-pci-no-driver
expect_exit 0 "detect, a GPU with no driver yet" on_machine rtx5090-pci-no-driver "$WHEELPICK" detect
expect_grep "driver none yet" "^driver: +none yet" "$TMP/out"
expect_grep "the GPU from its PCI id" "^gpu 0: +NVIDIA GeForce RTX 5090, sm_120 \(from its PCI id\)" "$TMP/out"
expect_grep "target" "^target: +CUDA up to [0-9.]+ \(driver: none yet\)" "$TMP/out"
expect_grep "the minimum driver for the GPU" "needs driver 570\.26 or newer \(CUDA 12\.8\)" "$TMP/out"
on_machine rtx5090-pci-no-driver "$WHEELPICK" detect --json >"$TMP/noneyet.json" 2>/dev/null
expect_exit 0 "pick for it" on_machine rtx5090-pci-no-driver "$WHEELPICK" torch $L --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['variant'] in ('cu128', 'cu129', 'cu130')" True
expect_json "$TMP/out" "(j['targets'][0]['driver'], j['targets'][0]['driver_none_yet'], j['targets'][0]['gpus'])" "(None, True, ['sm_120'])"
V=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['picks'][0]['variant'])" "$TMP/out" 2>/dev/null)
case "$V" in cu128) NEED=570.26 ;; cu129) NEED=575.51.03 ;; *) NEED=580.65.06 ;; esac
expect_grep "the driver the pick needs" "no NVIDIA driver yet: the CUDA [0-9.]+ builds picked need driver ${NEED//./\\.} or newer" "$TMP/err"
expect_exit 0 "the profile says the same elsewhere" wp torch --target "$TMP/noneyet.json" --index "$WHL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['variant']" "$V"
expect_grep "with the advice" "no NVIDIA driver yet: the CUDA" "$TMP/err"

# 5. a GPU no described driver runs is an error, not a warning and a pick
expect_exit 1 "RTX 5090 with --cuda 12.6" wp torch --gpu 'RTX 5090' --cuda 12.6 $L --index "$WHL" --dry-run --no-deps
expect_grep "names the GPU, the driver given and the one needed" "the GPU 'RTX 5090' \(sm_120, Blackwell\) cannot run on the target's CUDA 12\.6 \(CUDA 12\.6 at most\): it needs driver 570\.26 or newer \(CUDA 12\.8\)" "$TMP/err"
expect_exit 1 "and with --driver" wp torch --gpu 'RTX 5090' --driver 560.35.03 $L --index "$WHL" --dry-run --no-deps
expect_grep "names the driver" "cannot run on the target's driver 560\.35\.03" "$TMP/err"
expect_exit 0 "--cuda 12.8 runs it" wp torch --gpu 'RTX 5090' --cuda 12.8 $L --index "$WHL" --dry-run --no-deps
build_machine rtx5090-560-too-old
expect_exit 1 "the machine whose driver is too old for its GPU" on_machine rtx5090-560-too-old "$WHEELPICK" torch $L --index "$WHL" --dry-run --no-deps
expect_grep "says so" "the GPU sm_120 \(Blackwell\) cannot run on the target's driver 560\.35\.03 \(CUDA 12\.6 at most\): it needs driver 570\.26" "$TMP/err"
done_testing
