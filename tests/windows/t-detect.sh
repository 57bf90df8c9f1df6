#!/usr/bin/env bash
# tests/windows/t-detect.sh: `wheelpick.exe detect` and a pick that detects its target, under wine,
# on the Windows fixture machines of tests/fixtures/detect/windows/ (its README says what each
# is). A machine's pieces are put where Windows keeps them, in this test's own wine prefix:
# sys32/ into C:\windows\system32, nvsmi/ into C:\Program Files\NVIDIA Corporation\NVSMI, cudatk/
# into C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA, tmp/ into a temp folder; NAME.fake
# becomes the fake program or library (tests/fixtures/detect/fake_winprog.c, fake_nvml.c,
# fake_libcuda.c, built with mingw-w64); `path` lists folders put first on PATH, `env` variables
# set; @TMP@ and @PF@ in them (and in the answer files) are the temp folder and Program Files.
# Everything put into the prefix is taken out again after each machine.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/winlib.sh"
make_sample
EXE=$WHEELPICK
FX=$ROOT/tests/fixtures/detect/windows
DRIVE_C=$WINEPREFIX/drive_c
SYS32=$DRIVE_C/windows/system32
PF=$DRIVE_C/Program\ Files
W_PF='C:\Program Files'
W_TMP=$(winpath "$TMP")
[ -n "$W_TMP" ] && pass "winepath maps the test folder" || fail "winepath gave nothing for '$TMP'"
export WHEELPICK_CATALOG="$W_TMP\\catalog.sqlite3" WHEELPICK_CACHE_DIR="$W_TMP\\cache"
for f in fakeprog.exe nvml.dll nvcuda.dll; do
	[ -f "$WIN/tests/detect/$f" ] || fail "'$WIN/tests/detect/$f' is missing (make win-test-programs)"
done

placed=() # files put into wine's system32
unplace() {
	local f
	for f in "${placed[@]}"; do rm -f "$f"; done
	placed=()
	rm -f "$SYS32/calls.log" # what the fakes there were asked
	rm -rf "$PF/NVIDIA Corporation" "$PF/NVIDIA GPU Computing Toolkit" "$TMP/m"
}
at_exit unplace

# copy_tree SRC DEST [track]: SRC's files into DEST, NAME.fake as the built fake, @TMP@ and @PF@
# replaced in text files
copy_tree() {
	local src=$1 dest=$2 track=${3:-} f rel out
	while IFS= read -r -d '' f; do
		rel=${f#"$src"/}
		out=$dest/${rel%.fake}
		mkdir -p "$(dirname "$out")"
		case "$rel" in
		*.dll.fake) cp "$WIN/tests/detect/$(basename "$out")" "$out" ;;
		*.exe.fake) cp "$WIN/tests/detect/fakeprog.exe" "$out" ;;
		*.txt | *.csv | *.json) W_M=$W_MACHINE W_PF=$W_PF perl -pe 's/\@TMP\@/$ENV{W_M}/g; s/\@PF\@/$ENV{W_PF}/g' "$f" >"$out" ;;
		*) cp "$f" "$out" ;;
		esac
		[ -n "$track" ] && placed+=("$out")
	done < <(find "$src" -type f -print0)
}

# machine NAME: its pieces put in place; WPATH and ENVS (NAME=value words) for the runs
machine() {
	local m=$FX/$1 line
	unplace
	mkdir -p "$TMP/m"
	W_MACHINE=$(winpath "$TMP/m")
	[ -d "$m/sys32" ] && copy_tree "$m/sys32" "$SYS32" track
	[ -d "$m/nvsmi" ] && copy_tree "$m/nvsmi" "$PF/NVIDIA Corporation/NVSMI"
	[ -d "$m/cudatk" ] && copy_tree "$m/cudatk" "$PF/NVIDIA GPU Computing Toolkit/CUDA"
	[ -d "$m/tmp" ] && copy_tree "$m/tmp" "$TMP/m"
	WPATH='' ENVS=()
	subst() { W_M=$W_MACHINE W_PF=$W_PF perl -pe 's/\@TMP\@/$ENV{W_M}/g; s/\@PF\@/$ENV{W_PF}/g' "$1"; }
	if [ -f "$m/path" ]; then
		while IFS= read -r line; do WPATH+="${WPATH:+;}$line"; done < <(subst "$m/path")
	fi
	if [ -f "$m/env" ]; then
		while IFS= read -r line; do ENVS+=("$line"); done < <(subst "$m/env")
	fi
}

# wwp ARGS...: wheelpick.exe on the machine placed (its PATH first, its variables set); stdout
# without the CRs of a Windows program's text mode
wwp() { env "${ENVS[@]}" WINEPATH="$WPATH" wine "$EXE" "$@" | tr -d '\r'; return "${PIPESTATUS[0]}"; }
det() { expect_exit 0 "$1: detect --json" wwp detect --json && cp "$TMP/out" "$TMP/$1.json"; }
pick() {
	expect_exit "${2:-0}" "$1: pick with detection" wwp torch==1.8.0 --index "$FINDLINKS" --dry-run --no-deps --json
	cp "$TMP/out" "$TMP/$1.pick.json"
}
J() { expect_json "$TMP/$CUR.json" "$@"; }
P() { expect_json "$TMP/$CUR.pick.json" "$@"; }

# 1. the 2021 seed machine: driver 461.09 (CUDA 11.2), an RTX 3080; a DCH driver keeps nvml.dll and
# nvidia-smi.exe in System32; NVML answers everything, so nvidia-smi is not run
CUR=rtx3080-461-nvml
machine $CUR
det $CUR
J "j['os'], j['machine']" "('Windows', 'AMD64')"
J "j['driver_version'], j['driver_source'], j['driver_state']" "('461.09', 'nvml', 'loaded')"
J "j['cuda']['version'], j['cuda']['source']" "('11.2', 'nvml')"
J "[(g['name'], g['compute_capability']) for g in j['gpus']]" "[('GeForce RTX 3080', '8.6')]"
J "[(p['path'].split('\\\\')[-2:], p['version'], p['default']) for p in j['pythons']]" "[(['Python38', 'python.exe'], '3.8.10', True)]"
J "j['target']['platform'], j['target']['accel'], j['target']['cuda'], j['target']['python']" "('win_amd64', 'cuda', '11.2', '3.8.10')"
J "j['warnings']" "[]"
expect_no_file "NVML answered: nvidia-smi.exe was not run" "$SYS32/calls.log"
pick $CUR
P "[p['filename'] for p in j['picks']]" "['torch-1.8.0+cu111-cp38-cp38-win_amd64.whl']"
expect_exit 0 "$CUR: detect in words" wwp detect
expect_grep "$CUR: the driver in words" "^driver: +NVIDIA 461\.09 \(nvml\)" "$TMP/out"
expect_grep "$CUR: the target in words" "^target: .*CUDA 11\.2.*win_amd64" "$TMP/out"

# 2. a 2020 machine whose driver, 451.82 (CUDA 11.0), is below Windows' floor for CUDA 11 minor
# version compatibility (452.39; Linux's is 450.80.02, which it would pass): cu111 does not run
# there, so torch 1.8.0 is the cu102 build. nvidia-smi.exe only in the NVSMI folder (not on PATH),
# too old for the compute_cap field; the Pythons only through the py launcher
CUR=gtx1080-451-nvsmi
machine $CUR
det $CUR
J "j['driver_version'], j['driver_source'], j['driver_state']" "('451.82', 'nvidia-smi', 'loaded')"
J "j['cuda']['version'], j['cuda']['source']" "('11.0', 'nvidia-smi')"
J "[(g['name'], g['compute_capability']) for g in j['gpus']]" "[('GeForce GTX 1080', None)]"
J "[(p['version'], p['default']) for p in j['pythons']]" "[('3.8.6', True), ('3.7.9', False)]"
J "any(\"py launcher's default\" in w and 'Python38' in w for w in j['warnings'])" "True"
J "j['target']['python'], j['target']['platform']" "('3.8.6', 'win_amd64')"
expect_grep "$CUR: nvidia-smi.exe asked for compute_cap, then without it" \
	"^nvidia-smi\.exe \[--query-gpu=name,driver_version\]" "$PF/NVIDIA Corporation/NVSMI/calls.log"
expect_grep "$CUR: py -0p asked" "^py\.exe \[-0p\]" "$TMP/m/launcher/calls.log"
pick $CUR
P "[p['filename'] for p in j['picks']]" "['torch-1.8.0-cp38-cp38-win_amd64.whl']"
P "[p['variant'] for p in j['picks']]" "['cu102']"

# 3. no NVIDIA at all: CPU builds, said
CUR=no-nvidia
machine $CUR
det $CUR
J "j['driver_version'], j['driver_state'], j['cuda'], j['gpus']" "(None, 'none', None, [])"
J "j['target']['accel'], j['target']['platform']" "('cpu', 'win_amd64')"
J "any('no NVIDIA driver found' in w for w in j['warnings'])" "True"
pick $CUR
P "[p['variant'] for p in j['picks']]" "['cpu']"

# 4. driver 472.12 (CUDA 11.4) told by nml.dll in the NVSMI folder; toolkits 10.2, 11.1 and 12.1
# installed, CUDA_PATH the 11.1 one, PATH putting 10.2's bin first; python.exe 3.11 on PATH (the
# default) and 3.8 through the launcher's newer list format
CUR=rtx3080-472-cuda-path
machine $CUR
det $CUR
J "j['driver_version'], j['driver_source'], j['cuda']['version']" "('472.12', 'nvml', '11.4')"
J "[t['path'] for t in j['toolkits'] if t['source'] == 'CUDA_PATH']" "['C:\\\\Program Files\\\\NVIDIA GPU Computing Toolkit\\\\CUDA\\\\v11.1']"
J "sorted((t['version'], t['source']) for t in j['toolkits'])" \
	"[('10.2.89', 'CUDA_PATH_Vx_y'), ('11.1.105', 'CUDA_PATH'), ('12.1.105', 'CUDA_PATH_Vx_y'), ('9.2.148', 'version.txt')]"
J "[w for w in j['warnings'] if w.startswith('PATH puts')] == [w for w in j['warnings'] if 'v10.2\\\\bin' in w and '(CUDA 10.2)' in w and 'v11.1\\\\bin' in w]" "True"
J "sum(w.startswith('PATH puts') for w in j['warnings'])" "1"
J "any(w.startswith('CUDA_PATH names the CUDA 11.1 toolkit') and 'not the CUDA the driver runs (11.4, driver 472.12)' in w for w in j['warnings'])" "True"
J "any('driver 472.12 is too old for the CUDA 12.1 toolkit' in w and '>= 531.14' in w for w in j['warnings'])" "True"
J "[(p['version'], p['soabi'], p['default']) for p in j['pythons']]" "[('3.11.4', 'cp311-win_amd64', True), ('3.8.10', '', False)]"
J "j['target']['python'], j['target']['abi'], j['target']['platform']" "('3.11.4', '', 'win_amd64')"
pick $CUR
P "[p['filename'] for p in j['picks']]" "['torch-1.8.0+cu111-cp311-cp311-win_amd64.whl']"

# 5. the driver's files are there but it does not answer: nvcuda.dll's cuInit gives
# CUDA_ERROR_NO_DEVICE (its cuDriverGetVersion still says 11.2), nvidia-smi.exe fails (status 9):
# no CUDA is claimed, and the target is CPU builds
CUR=nvcuda-no-device
machine $CUR
det $CUR
J "j['driver_state'], j['cuda'], j['driver_version']" "('not loaded', None, None)"
J "j['driver_failure']" "cuInit gave CUDA_ERROR_NO_DEVICE; nvidia-smi exited with status 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."
J "any(w.startswith(\"NVIDIA's driver is installed (nvcuda.dll (CUDA 11.2), nvidia-smi.exe) but did not answer\") for w in j['warnings'])" "True"
J "j['target']['accel']" "cpu"
pick $CUR
P "[p['variant'] for p in j['picks']]" "['cpu']"

# 6. a 32-bit Python (its sysconfig platform win32) on 64-bit Windows, no NVIDIA: the target is
# win32, for which the sample index has no torch build (nothing fits: exit 1)
CUR=python32-on-x64
machine $CUR
det $CUR
J "j['machine'], [(p['version'], p['machine']) for p in j['pythons']]" "('AMD64', [('3.8.10', 'x86')])"
J "j['target']['platform']" "win32"
expect_grep "$CUR: the probe asks the interpreter's own platform" "sysconfig\.get_platform\(\)" "$TMP/m/Python38-32/calls.log"
pick $CUR 1

unplace
expect_no_file "the fakes are out of System32 again" "$SYS32/nvml.dll"
done_testing
