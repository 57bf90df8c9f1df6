#!/usr/bin/env bash
# tests/cli/t-ux3.sh: the everyday details, round three (issue 27): targets for other machines,
# the scripting contract (--json), honest counts, verbs typed by habit, messages that fit.
. "$(dirname "$0")/../lib.sh"
make_sample
printf '{}' >"$TMP/script.json"
start_server "$SAMPLE" "$TMP/script.json"
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"
FL="$BASE/whl/torch_stable.html"

# a build host with an A100 on driver 535 (detect's fixtures: a sysroot and nvidia-smi on PATH)
M="$ROOT/tests/fixtures/detect/machines/a100-535-proprietary"
GPUHOST="$TMP/gpuhost"
mkdir -p "$GPUHOST/sys/proc/driver/nvidia" "$GPUHOST/bin"
cp "$M/proc_version" "$GPUHOST/sys/proc/driver/nvidia/version"
cat >"$GPUHOST/bin/nvidia-smi" <<SH
#!/bin/sh
case "\$*" in
*--query-gpu*) cat "$M/nvidia-smi-query.csv" ;;
*) cat "$M/nvidia-smi.txt" ;;
esac
SH
cat >"$GPUHOST/bin/python3" <<'SH'
#!/bin/sh
echo "cpython 3 8 10 cpython-38-x86_64-linux-gnu x86_64"
SH
chmod +x "$GPUHOST/bin/"*
on_gpu_host() { env WHEELPICK_SYSROOT="$GPUHOST/sys" PATH="$GPUHOST/bin:/usr/bin:/bin" "$@"; }

# --- a target for another machine does not inherit this machine's GPU --------------------------
expect_exit 0 "this machine: its driver and GPU" on_gpu_host "$WHEELPICK" torch==1.8.0 --python 3.8 --platform linux_x86_64 --index "$FL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['variant']" cu111
expect_exit 0 "a tag of this machine's kind is this machine" on_gpu_host "$WHEELPICK" torch==1.8.0 --python 3.8 --platform manylinux2014_x86_64 --index "$FL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['targets'][0]['cuda']" 12.2
expect_exit 0 "Windows from a Linux GPU host: CPU" on_gpu_host "$WHEELPICK" torch==1.8.0 --python 3.8 --platform win_amd64 --index "$FL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['variant']" cpu
expect_json "$TMP/out" "j['targets'][0].get('gpus', [])" "[]"
expect_grep "the note says why" "'win_amd64' is another machine than this one: picking CPU builds, not this machine's GPU" "$TMP/err"
expect_exit 0 "the plan says so" on_gpu_host "$WHEELPICK" torch==1.8.0 --python 3.8 --platform win_amd64 --index "$FL" --dry-run --no-deps
expect_grep "in the target line" "^for CPU \(another machine: its GPU not given\), Python 3\.8, win_amd64:" "$TMP/out"
expect_exit 1 "aarch64 from an x86-64 GPU host: CPU, not 'driver 535'" on_gpu_host "$WHEELPICK" torch==1.8.0 --python 3.8 --platform manylinux2014_aarch64 --index "$FL" --dry-run --no-deps
expect_no_grep "no talk of this machine's driver" "535|sm_80" "$TMP/err"
expect_exit 0 "--cuda describes the other machine's GPU" on_gpu_host "$WHEELPICK" torch==1.8.0 --python 3.8 --platform win_amd64 --cuda 11.2 --index "$FL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['variant']" cu111
expect_exit 0 "--gpu does too (the CUDA taken from here, and said)" on_gpu_host "$WHEELPICK" torch==1.8.0 --python 3.8 --platform win_amd64 --gpu sm_86 --index "$FL" --dry-run --no-deps --json
expect_json "$TMP/out" "j['targets'][0]['gpus']" "['sm_86']"
expect_json "$TMP/out" "j['targets'][0]['cuda']" 12.2
expect_grep "says whose CUDA" "its GPU's CUDA is taken to be this machine's, 12\.2; give --cuda or --driver" "$TMP/err"
done_testing
