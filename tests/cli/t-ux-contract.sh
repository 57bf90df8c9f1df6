#!/usr/bin/env bash
# tests/cli/t-ux-contract.sh: the everyday contract: targets for other machines,
# the scripting contract (--json), honest counts, verbs typed by habit, messages that fit.
. "$(dirname "$0")/../lib.sh"
make_sample
printf '{}' >"$TMP/script.json"
cp -r "$SAMPLE" "$TMP/served" # served: a test may change a file there
start_server "$TMP/served" "$TMP/script.json"
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

# --- the scripting contract: --json ------------------------------------------------------------
SCHEMA_PY=
for p in "$PYTHON" /usr/bin/python3; do "$p" -c 'import jsonschema' 2>/dev/null && { SCHEMA_PY=$p; break; }; done
[ -n "$SCHEMA_PY" ] || fail "no python3 with jsonschema (make deps installs python3-jsonschema)"
# schema_ok DESC SCHEMA FILE: FILE is one JSON document that docs/schema/SCHEMA.schema.json accepts
schema_ok() {
	if [ -n "$SCHEMA_PY" ] && "$SCHEMA_PY" "$ROOT/tests/cli/json_schema_check.py" "$ROOT/docs/schema/$2.schema.json" "$3" >"$TMP/schema.log" 2>&1
	then pass "$1"; else fail "$1 (docs/schema/$2.schema.json)"; sed 's/^/      | /' "$TMP/schema.log" | head -20 >&2; fi
}
expect_exit 2 "an unknown option with --json" wp torch --platfrom x --json
expect_json "$TMP/out" "j['error']['exit']" 2
expect_json "$TMP/out" "'--platfrom' in j['error']['message']" True
schema_ok "its error object" error "$TMP/out"
expect_exit 2 "--json and no package" wp --json
schema_ok "an error object too" error "$TMP/out"
expect_exit 2 "--json to a command without it still answers in JSON" wp help --json
schema_ok "the error object" error "$TMP/out"
expect_exit 1 "list nosuch --json: as the text form" wp list nosuchproject --json
expect_json "$TMP/out" "j['error']['exit']" 1
schema_ok "list's error" error "$TMP/out"
expect_exit 1 "nothing fits, --json" wp torch==1.8.0 --cuda 9.2 --python 3.8 --platform linux_x86_64 --index "$FL" --dry-run --json
expect_json "$TMP/out" "j['error']['project']" torch
schema_ok "with what was rejected" error "$TMP/out"
expect_exit 0 "empty arrays print as []" wp torch==1.8.0 $T --index "$FL" --dry-run --no-deps --json
expect_grep "\"notes\": []" '"notes": \[\]' "$TMP/out"
expect_no_grep "no blank lines" '^ *$' "$TMP/out"
schema_ok "pick --json" pick "$TMP/out"
expect_exit 0 "matrix --json" wp matrix torch==1.8.0 --cuda 11.2 --cuda 9.2 --python 3.8 --platform linux_x86_64 --index "$FL" --no-deps --json
expect_json "$TMP/out" "[r['picks'][0]['url'].endswith('cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl') for r in j['rows'][:1]]" "[True]"
expect_json "$TMP/out" "(j['rows'][0]['targets'][0]['cuda'], j['rows'][1]['error']['exit'], j['rows'][1]['targets'][0]['cuda'])" "('11.2', 1, '9.2')"
schema_ok "matrix's rows are pick's objects" matrix "$TMP/out"
expect_exit 0 "list --json" wp list torch --json
schema_ok "list --json" list "$TMP/out"
expect_exit 0 "tags --json" wp tags --python 3.13t --platform manylinux_2_28_x86_64 --json
expect_json "$TMP/out" "(j['tags'][0], j['target'])" "('cp313-cp313t-manylinux_2_28_x86_64', 'CPU, Python 3.13t, manylinux_2_28_x86_64')"
schema_ok "tags --json" tags "$TMP/out"
expect_exit 0 "detect --json" on_gpu_host "$WHEELPICK" detect --json
schema_ok "detect --json" detect "$TMP/out"
expect_exit 0 "a wheelhouse to verify" wp torch==1.8.0 $T --index "$FL" --no-deps -d "$TMP/wh"
expect_exit 0 "verify --json" wp verify "$TMP/wh" --json
expect_json "$TMP/out" "(j['ok'], j['paths'][0]['kind'], j['wheels'], j['problems'], j['error'])" "(True, 'wheelhouse', 1, [], None)"
cp "$TMP/out" "$TMP/verify-ok.json"; schema_ok "verify --json" verify "$TMP/verify-ok.json"
whl=$(ls "$TMP/wh"/*.whl | head -1)
printf 'x' >>"$whl"
expect_exit 4 "verify --json of a changed wheel" wp verify "$TMP/wh" --json
expect_json "$TMP/out" "(j['ok'], j['error']['exit'], any(p['fatal'] for p in j['problems']))" "(False, 4, True)"
schema_ok "verify's failure report" verify "$TMP/out"

# --- exit codes: one table, in the README and the man page --------------------------------------
"$WHEELPICK" --generate-man | awk '/^\.SH EXIT STATUS/{on=1; next} /^\.SH/{on=0} on' |
	awk '/^\.TP/{getline c; getline m; gsub(/\\-/, "-", m); print c " | " m}' >"$TMP/man-exit"
grep -E '^\| [0-9]+ \| ' "$ROOT/README.md" | sed -E 's/^\| ([0-9]+) \| (.*) \|$/\1 | \2/' >"$TMP/readme-exit"
if [ -s "$TMP/man-exit" ] && cmp -s "$TMP/man-exit" "$TMP/readme-exit"; then pass "README's exit table is the man page's"; else
	fail "README's exit table differs from the man page's"; diff "$TMP/man-exit" "$TMP/readme-exit" | head >&2; fi
# --- honest counts: refused files are counted, named, and leave the wheelhouse marked ------------
export WHEELPICK_CATALOG="$TMP/counts.sqlite3"
expect_exit 0 "a first pick records the hashes (the page gives none)" env WHEELPICK_CACHE_DIR="$TMP/cache-c1" \
	"$WHEELPICK" torchvision==0.9.0 $T --index "$FL" -d "$TMP/whc1"
expect_grep "5 of 5" "; 5 of 5 files ready$" "$TMP/err"
# two wheels re-published with other bytes (still valid wheels: a zip comment differs)
for w in numpy-1.24.0-py3-none-any.whl pillow-9.0.0-py3-none-any.whl; do
	"$PYTHON" -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], "a"); z.comment = b"rebuilt"; z.close()' "$TMP/served/whl/$w"
done
expect_exit 4 "a pick where two files are refused" env WHEELPICK_CACHE_DIR="$TMP/cache-c2" \
	"$WHEELPICK" torchvision==0.9.0 $T --index "$FL" -d "$TMP/whc2"
expect_grep "3 of 5 ready, 2 refused" "; 3 of 5 files ready, 2 refused$" "$TMP/err"
expect_no_grep "never 5 of 5" "5 of 5 files ready" "$TMP/err"
expect_grep "where the first hash was seen" "'numpy-1\.24\.0-py3-none-any\.whl' refused: its bytes now hash to [0-9a-f]{64}, but [0-9a-f]{64} was seen first for it, at '$BASE/whl/numpy-1\.24\.0-py3-none-any\.whl' \([0-9]{4}-[0-9]{2}-[0-9]{2}\)" "$TMP/err"
expect_grep "the exact trust command" "accept the new bytes with: wheelpick trust '$BASE/whl/pillow-9\.0\.0-py3-none-any\.whl'$" "$TMP/err"
expect_no_file "no requirements.txt for a partial set" "$TMP/whc2/requirements.txt"
expect_grep "the folder says it is incomplete" "numpy-1\.24\.0-py3-none-any\.whl" "$TMP/whc2/INCOMPLETE.txt"
expect_grep "and a line says so" "'$TMP/whc2' is incomplete: 2 of 5 files are missing .*no requirements\.txt was written" "$TMP/err"
expect_exit 0 "the printed trust command works" "$WHEELPICK" trust "$BASE/whl/numpy-1.24.0-py3-none-any.whl"
expect_exit 0 "and the other" "$WHEELPICK" trust "$BASE/whl/pillow-9.0.0-py3-none-any.whl"
expect_exit 0 "then the pick completes the wheelhouse" env WHEELPICK_CACHE_DIR="$TMP/cache-c2" \
	"$WHEELPICK" torchvision==0.9.0 $T --index "$FL" -d "$TMP/whc2"
expect_file "with its requirements.txt" "$TMP/whc2/requirements.txt"
expect_no_file "and no longer marked" "$TMP/whc2/INCOMPLETE.txt"
# a mirror for two targets that share files counts each file once, in the total and at the end
expect_exit 0 "mirror, two targets sharing typing-extensions" env WHEELPICK_CACHE_DIR="$TMP/cache-c3" \
	"$WHEELPICK" mirror "$TMP/mc" torch==1.8.0 --cuda 11.2 --cuda 10.2 --python 3.8 --platform linux_x86_64 --index "$FL"
expect_grep "3 files to download (their sizes asked of the server)" "^total: 3 files, [0-9.]+ kB to download$" "$TMP/out"
expect_grep "3 of 3 ready" "; 3 of 3 files ready$" "$TMP/err"
expect_no_grep "no file counted twice" "\[4/" "$TMP/err"
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"
# --- verbs typed by habit ------------------------------------------------------------------------
for v in download sync compile show freeze search; do
	expect_exit 2 "'wheelpick $v torch': a usage error, not a pick of '$v'" wp $v torch
	expect_grep "one line saying what wheelpick does instead" "^wheelpick: '$v' is not a wheelpick command; .*'wheelpick [a-z-]+" "$TMP/err"
	[ "$(wc -l <"$TMP/err")" = 1 ] && pass "$v: one line" || fail "$v: $(wc -l <"$TMP/err") lines"
done
expect_grep "show points to list" "'wheelpick list PKG'" "$TMP/err"
expect_exit 2 "sync" wp sync
expect_grep "sync points to install, now that there is one" "'wheelpick install wh'" "$TMP/err"
expect_exit 2 "freeze" wp freeze
expect_grep "freeze points to list --installed" "'wheelpick list --installed'" "$TMP/err"
expect_exit 0 "wheelpick version is --version" wp version
expect_grep "the version" "^wheelpick [0-9]+\.[0-9]+\.[0-9]+$" "$TMP/out"
expect_exit 0 "and it reads no index" env WHEELPICK_INDEX=http://127.0.0.1:9/simple/ "$WHEELPICK" version
# --- messages ------------------------------------------------------------------------------------
# -q: only errors
expect_exit 0 "a pick with -q" env WHEELPICK_CACHE_DIR="$TMP/cache-q" "$WHEELPICK" torch==1.8.0 $T --index "$FL" -d "$TMP/whq" -q
expect_exit 0 "prints nothing on stdout" test ! -s "$TMP/out"
expect_exit 0 "nor on stderr" test ! -s "$TMP/err"
expect_file "and did the job" "$TMP/whq/requirements.txt"
# a refused value from the environment names its variable
expect_exit 2 "WHEELPICK_CUDA=banana" env WHEELPICK_CUDA=banana "$WHEELPICK" torch --python 3.8 --platform linux_x86_64 --dry-run --offline
expect_grep "names the variable" "the environment variable WHEELPICK_CUDA: CUDA version 'banana'" "$TMP/err"
expect_exit 2 "WHEELPICK_PYTHON=3.x" env WHEELPICK_PYTHON=3.x "$WHEELPICK" torch --cuda 11.2 --platform linux_x86_64 --dry-run --offline
expect_grep "names it too" "WHEELPICK_PYTHON: python version '3\.x'" "$TMP/err"
# --offline: 'update' is to be run online first (issue 36: the catalog is all --offline has)
expect_exit 1 "--offline, a project the catalog lacks" wp --catalog "$TMP/empty.sqlite3" torch $T --dry-run --offline
expect_grep "says what to do" "--offline forbids fetching its pages; run 'wheelpick update' online first" "$TMP/err"
# an extra the picked release does not have: pip's warning
expect_exit 0 "torch[cuda]" wp 'torch[cuda]==1.8.0' $T --index "$FL" --dry-run
expect_grep "warns as pip does" "warning: torch 1\.8\.0\+cu111 does not provide the extra 'cuda'" "$TMP/err"
mkdir -p "$TMP/extras"
"$PYTHON" - "$TMP/extras" "$ROOT/tests/fixtures" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import mkwheels as m
meta = m.metadata("extrapkg") + 'Provides-Extra: fast-io\nRequires-Dist: typing-extensions ; extra == "fast_io"\n'
m.build(sys.argv[1] + "/extrapkg-1.0-py3-none-any.whl", "extrapkg", m.std_members("extrapkg", meta=meta))
open(sys.argv[1] + "/index.html", "w").write('<a href="extrapkg-1.0-py3-none-any.whl">extrapkg-1.0-py3-none-any.whl</a>\n')
PY
expect_exit 0 "an extra the release has (spelled otherwise: PEP 685)" wp --catalog "$TMP/extras.sqlite3" 'extrapkg[Fast.IO]' $T \
	--index "file://$TMP/extras/index.html" -f "$FL" --dry-run
expect_no_grep "no warning for it" "does not provide" "$TMP/err"
expect_grep "and it brings its dependency" "typing-extensions 4\.5\.0" "$TMP/out"
# invalid names are refused, not normalised into another; ~= says what it needs
expect_exit 2 "list of an invalid name" wp list -- _torch_
expect_grep "refused" "'_torch_' is not a project name" "$TMP/err"
expect_exit 2 "list of a requirement" wp list 'torch==1.8.0'
expect_grep "says list takes a name" "list takes a project name, not a requirement: 'wheelpick list torch'" "$TMP/err"
expect_exit 2 "a pick of an invalid name" wp '_torch_' $T --dry-run --offline
expect_exit 2 "torch~=2" wp 'torch~=2' $T --dry-run --offline
expect_grep "~= needs two release segments" "~= needs two release segments: '~=2\.0' is >=2\.0 and ==2\.\*" "$TMP/err"
# install hints fit the target
expect_exit 0 "a Windows wheelhouse" env -C "$TMP" WHEELPICK_CACHE_DIR="$TMP/cache-win" "$WHEELPICK" torch==1.8.0 --cuda 11.2 --python 3.8 --platform win_amd64 --index "$FL" --no-deps -d whwin
expect_grep "py -m pip, backslashes" "^  py -m pip install --no-index --find-links whwin --require-hashes -r whwin\\\\requirements\.txt$" "$TMP/out"
expect_no_grep "no python3 line for Windows" "python3 -m pip" "$TMP/out"
expect_exit 0 "Linux and Windows targets in one wheelhouse" env WHEELPICK_CACHE_DIR="$TMP/cache-win" "$WHEELPICK" torch==1.8.0 --cuda 11.2 --python 3.8 --platform win_amd64 --platform linux_x86_64 --index "$FL" --no-deps -d "$TMP/whboth"
expect_grep "a line for each" "^  \(Linux, macOS\) python3 -m pip install" "$TMP/out"
expect_grep "and Windows" "^  \(Windows\) py -m pip install" "$TMP/out"
expect_grep "pylock.toml names only installers that read it" "^# written by wheelpick; install with an installer that reads PEP 751 locks \(uv pip install -r pylock\.toml\); with pip, use requirements\.txt$" "$TMP/whboth/pylock.toml"
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$TMP/chan" "$TMP/forge"
expect_exit 0 "a conda channel written" wp --catalog "$TMP/conda.sqlite3" pick 'pytorch==1.8.0' --conda -c "file://$TMP/chan" --cuda 11.2 --python 3.8 \
	--platform linux-64 -d "$TMP/cchan" --allow-missing
expect_grep "conda's hint overrides the configured channels" "conda install --offline --override-channels -c file://$TMP/cchan" "$TMP/out"
expect_exit 0 "verify a conda channel" wp verify "$TMP/cchan"
expect_grep "speaks of packages" "^checked [0-9]+ files, [1-9][0-9]* packages, [0-9]+ repodata files, [0-9]+ records: 0 problems$" "$TMP/out"
expect_no_grep "not of wheels" "wheels" "$TMP/out"
# mirror ends saying which root serves which target
expect_exit 0 "a mirror for two CUDA targets and CPU" env WHEELPICK_CACHE_DIR="$TMP/cache-m" "$WHEELPICK" mirror "$TMP/mroots" torch==1.8.0 \
	--cuda 11.2 --cuda 10.2 --cuda cpu --python 3.8 --platform linux_x86_64 --index "$FL" --no-deps
expect_grep "the roots" "^serve .*mroots over HTTP; each target's index URL is its root:$" "$TMP/out"
expect_grep "cu111 for 11.2" "^  cu111/ for CUDA 11\.2, Python 3\.8, linux_x86_64$" "$TMP/out"
expect_grep "cu102 for 10.2" "^  cu102/ for CUDA 10\.2, Python 3\.8, linux_x86_64$" "$TMP/out"
expect_grep "cpu for CPU" "^  cpu/ for CPU, Python 3\.8, linux_x86_64$" "$TMP/out"
# list's legend for files at the page root (no label, no folder)
mkdir -p "$TMP/rootpage"
cp "$SAMPLE/whl/cu102/torch-1.8.0-cp38-cp38-linux_x86_64.whl" "$SAMPLE/whl/numpy-1.24.0-py3-none-any.whl" "$TMP/rootpage/"
printf '<a href="torch-1.8.0-cp38-cp38-linux_x86_64.whl">t</a>\n<a href="numpy-1.24.0-py3-none-any.whl">n</a>\n' >"$TMP/rootpage/index.html"
expect_exit 0 "read a page with torch at its root" wp --catalog "$TMP/rootpage.sqlite3" update --index "file://$TMP/rootpage/index.html"
expect_exit 0 "list torch" env COLUMNS=200 "$WHEELPICK" --catalog "$TMP/rootpage.sqlite3" list torch
expect_grep "one file, one version" "^torch: 1 file, 1 version, 1 build$" "$TMP/out"
expect_no_grep "an unlabeled torch is not for every machine" "for every machine" "$TMP/out"
expect_grep "says how its build is told" "\(none\): no label and no folder to say which build \(a pick reads its METADATA" "$TMP/out"
expect_exit 0 "list numpy" env COLUMNS=200 "$WHEELPICK" --catalog "$TMP/rootpage.sqlite3" list numpy
expect_grep "one build for what its tags name" "\(none\): one build for every machine its tags name" "$TMP/out"
# --- detect's warnings for the commonest breakages -----------------------------------------------
# an H100 on driver 470 (CUDA 11.4); python3.13t beside python3; CUDA libraries on LD_LIBRARY_PATH
H="$TMP/h100host"
mkdir -p "$H/sys/proc/driver/nvidia" "$H/bin" "$H/cuda-12.4/lib64" "$H/cudnn/lib"
printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.57.02  Tue Jul 13 16:14:05 UTC 2021\n' >"$H/sys/proc/driver/nvidia/version"
cat >"$H/bin/nvidia-smi" <<'SH'
#!/bin/sh
case "$*" in
*--query-gpu*) echo "NVIDIA H100 80GB HBM3, 9.0, 470.57.02" ;;
*) echo "| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |" ;;
esac
SH
printf '#!/bin/sh\necho "cpython 3 12 3 cpython-312-x86_64-linux-gnu x86_64"\n' >"$H/bin/python3"
printf '#!/bin/sh\necho "cpython 3 13 1 cpython-313t-x86_64-linux-gnu x86_64"\n' >"$H/bin/python3.13t"
chmod +x "$H/bin/"*
: >"$H/cuda-12.4/lib64/libcudart.so.12.4.127"
: >"$H/cudnn/lib/libcudart.so.11.8.89"
: >"$H/cudnn/lib/libcudnn.so.8"
on_h100() { env WHEELPICK_SYSROOT="$H/sys" PATH="$H/bin:/usr/bin:/bin" LD_LIBRARY_PATH="$H/cuda-12.4/lib64:$H/cudnn/lib" "$@"; }
expect_exit 0 "detect on the H100 host" on_h100 "$WHEELPICK" detect --json
expect_json "$TMP/out" "j['gpu_hardware']" True
expect_json "$TMP/out" "[(p['version'], p['free_threaded']) for p in j['pythons'] if p['path'].startswith('$H/')]" "[('3.12.3', False), ('3.13.1', True)]"
expect_json "$TMP/out" "any('H100' in w and 'needs CUDA 11.8 or newer (driver 520.61.05 or newer); driver 470.57.02 runs CUDA 11.4 at most' in w for w in j['warnings'])" True
expect_json "$TMP/out" "any(\"a CUDA 12.4 runtime ('$H/cuda-12.4/lib64'), newer than driver 470.57.02 runs (CUDA 11.4)\" in w for w in j['warnings'])" True
expect_json "$TMP/out" "any(\"'$H/cudnn/lib', which holds libcudnn.so*: it is searched before the libraries of the nvidia-* wheels\" in w for w in j['warnings'])" True
expect_json "$TMP/out" "any('cuda-12.4' in w and 'nvidia-* wheels' in w for w in j['warnings'])" False
schema_ok "detect --json with warnings" detect "$TMP/out"
expect_exit 0 "detect, text" on_h100 "$WHEELPICK" detect
expect_grep "the free-threaded python" "^python: +3\.13\.1t \(free-threaded\) cpython" "$TMP/out"
# the fixture whose sysroot has no /dev/nvidia0 or gpus folder: nvidia-smi's GPU is hardware all the same
expect_exit 0 "detect --json, A100 host" on_gpu_host "$WHEELPICK" detect --json
expect_json "$TMP/out" "(j['gpu_hardware'], len(j['gpus']))" "(True, 2)"
# pick: --gpu and --driver that disagree
expect_exit 1 "an H100 on driver 470" wp torch==1.8.0 --gpu H100 --driver 470.57.02 --python 3.8 --platform linux_x86_64 --index "$FL" --dry-run
expect_grep "says the GPU needs a newer driver" "the GPU 'H100' \(sm_90, Hopper\) cannot run on the target's driver 470\.57\.02 \(CUDA 11\.4 at most\): it needs driver 520\.61\.05 or newer \(CUDA 11\.8\)" "$TMP/err"
expect_exit 1 "a Blackwell with --cuda 12.4" wp torch==1.8.0 --gpu 'RTX 5090' --cuda 12.4 --python 3.8 --platform linux_x86_64 --index "$FL" --dry-run
expect_grep "Blackwell needs 12.8" "'RTX 5090' \(sm_120, Blackwell\) cannot run on the target's CUDA 12\.4 \(CUDA 12\.4 at most\): it needs driver 570\.26 or newer \(CUDA 12\.8\)" "$TMP/err"
expect_exit 2 "an unknown GPU name" wp torch --gpu 'RTX 5090 Ti' --cuda 12.8 --python 3.8 --platform linux_x86_64 --dry-run --offline
expect_grep "refused with did-you-mean" "unknown GPU 'RTX 5090 Ti'; known names near it: GeForce RTX 5090, " "$TMP/err"
# --- conda: an exact build string, a typo, a conflict -------------------------------------------
CC="--catalog $TMP/conda.sqlite3"
expect_exit 0 "read the forge too" wp $CC update --conda -c "file://$TMP/forge"
expect_exit 0 "pytorch=1.8.0=py3.8_cpu_0 on a CUDA target" wp $CC 'pytorch=1.8.0=py3.8_cpu_0' --conda -c "file://$TMP/chan" \
	-c "file://$TMP/forge" --cuda 11.2 --python 3.8 --platform linux-64 --dry-run --json
expect_json "$TMP/out" "sorted((p['name'], p['build']) for p in j['picks'] if p['name'] in ('pytorch', 'pytorch-mutex', 'cpuonly'))" "[('cpuonly', '0'), ('pytorch', 'py3.8_cpu_0'), ('pytorch-mutex', 'cpu')]"
schema_ok "conda --json" conda "$TMP/out"
expect_exit 0 "a glob build is still held to the target" wp $CC 'pytorch=1.8.0=py3.8_*' --conda -c "file://$TMP/chan" \
	-c "file://$TMP/forge" --cuda 11.2 --python 3.8 --platform linux-64 --dry-run --json
expect_json "$TMP/out" "[p['build'] for p in j['picks'] if p['name'] == 'pytorch']" "['py3.8_cuda11.1_cudnn8.0.5_0']"
expect_exit 1 "a conda typo" wp $CC pytroch --conda -c "file://$TMP/chan" --cuda 11.2 --python 3.8 --platform linux-64 --dry-run
expect_grep "did you mean, from the catalog's conda names" "no channel given has 'pytroch'; did you mean 'pytorch'\?" "$TMP/err"
expect_exit 1 "records that exist but conflict" wp $CC 'pytorch==1.8.0' torchvision --conda -c "file://$TMP/chan" -c "file://$TMP/forge" \
	--cuda 11.2 --python 3.8 --platform linux-64 --dry-run
expect_grep "says they conflict" "the channels given have records of 'pytorch 1\.8\.0', but none also meets what the rest of the set needs of it \('pytorch 1\.7\.1'\): the requirements conflict" "$TMP/err"
expect_no_grep "not 'no record' or 'newest is 1.7.1'" "no pytorch record|newest in the catalog|no conda records" "$TMP/err"
# --- lock over a page without hashes ------------------------------------------------------------
mkdir -p "$TMP/lk"
expect_exit 1 "lock: the page gives no hashes (a policy: exit 1, not 3)" env WHEELPICK_CACHE_DIR="$TMP/cache-lk" \
	"$WHEELPICK" --catalog "$TMP/lk.sqlite3" lock torch==1.8.0 $T --index "$FL" -o "$TMP/lk/pylock.toml"
expect_grep "says how" "a lock must name one; give --fetch-hashes to download and hash it" "$TMP/err"
expect_exit 1 "--json: the same exit in the object" env WHEELPICK_CACHE_DIR="$TMP/cache-lk" \
	"$WHEELPICK" --catalog "$TMP/lk.sqlite3" lock torch==1.8.0 $T --index "$FL" -o "$TMP/lk/pylock.toml" --json
expect_json "$TMP/out" "j['error']['exit']" 1
expect_exit 0 "lock --fetch-hashes" env WHEELPICK_CACHE_DIR="$TMP/cache-lk" \
	"$WHEELPICK" --catalog "$TMP/lk.sqlite3" lock torch==1.8.0 $T --index "$FL" -o "$TMP/lk/pylock.toml" --fetch-hashes
expect_grep "says what it downloads" "fetching 2 files the index gives no sha256 for, to hash them \(--fetch-hashes\)" "$TMP/err"
[ "$(grep -c 'hashes = { sha256 = "[0-9a-f]\{64\}" }' "$TMP/lk/pylock.toml" 2>/dev/null)" = 2 ] && pass "two hashes in the lock" ||
	{ fail "the lock names two hashes"; grep -n sha256 "$TMP/lk/pylock.toml" >&2; }
expect_grep "the hash is the file's" "$(sha256sum "$SAMPLE/whl/cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" | cut -d' ' -f1)" "$TMP/lk/pylock.toml"
# --- downloads resume across runs ----------------------------------------------------------------
TW=/whl/cu111/torch-1.8.0%2Bcu111-cp38-cp38-linux_x86_64.whl
TSHA=$(sha256sum "$SAMPLE/whl/cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl" | cut -d' ' -f1)
RC="$TMP/cache-resume"
printf '{"%s": {"trickle": 300}}' "$TW" >"$TMP/script.json"
env WHEELPICK_CACHE_DIR="$RC" "$WHEELPICK" --catalog "$TMP/resume.sqlite3" torch==1.8.0 $T --index "$BASE/simple/" --no-deps \
	-d "$TMP/whr" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for i in $(seq 1 50); do [ -s "$RC/files/partial/$TSHA" ] && break; sleep 0.1; done
sleep 0.5
kill -INT "$pid"
wait "$pid"
st=$?
[ "$st" = 130 ] && pass "Ctrl-C: exit 130" || fail "Ctrl-C: exit $st"
expect_grep "says it was interrupted, and where what arrived is kept" "^wheelpick: interrupted; what had arrived of unfinished downloads is kept in $RC/files/partial, and the next run resumes it$" "$TMP/err"
kept=$(stat -c %s "$RC/files/partial/$TSHA" 2>/dev/null || echo 0)
[ "$kept" -gt 0 ] && [ "$kept" -lt 1023 ] && pass "part of the file is kept ($kept bytes)" || fail "kept $kept bytes"
printf '{}' >"$TMP/script.json"
: >"$TMP/server.log"
expect_exit 0 "the next run" env WHEELPICK_CACHE_DIR="$RC" "$WHEELPICK" --catalog "$TMP/resume.sqlite3" torch==1.8.0 $T --index "$BASE/simple/" --no-deps -d "$TMP/whr"
expect_grep "resumes with a Range request" "\"Range\": ?\"bytes=$kept-\".*\"path\": ?\"$TW\"|\"path\": ?\"$TW\".*\"Range\": ?\"bytes=$kept-\"" "$TMP/server.log"
expect_grep "and says so" "resumed 1 download where an earlier run stopped \($kept B were kept\)" "$TMP/err"
expect_file "the wheelhouse is written" "$TMP/whr/requirements.txt"
expect_exit 0 "the wheel is whole and proven" wp verify "$TMP/whr"
expect_no_file "the partial became the object" "$RC/files/partial/$TSHA"
# a download the network cuts keeps what came, for the next run
# (a path no request has asked for yet: the server numbers each path's requests from the start)
printf '{"/whl/cu110/torch-1.7.1%%2Bcu110-cp38-cp38-linux_x86_64.whl": {"drop_after": 400, "status": [200, 503]}}' >"$TMP/script.json"
expect_exit 3 "a download the network cuts" env WHEELPICK_CACHE_DIR="$TMP/cache-cut" "$WHEELPICK" --catalog "$TMP/resume.sqlite3" torch==1.7.1 $T --index "$BASE/simple/" --no-deps -d "$TMP/whcut"
expect_grep "says what was kept" "kept 400 B of 1 unfinished download in $TMP/cache-cut/files/partial: the next run resumes it" "$TMP/err"
printf '{}' >"$TMP/script.json"
# partials nobody touched for a week go; fresh ones stay
mkdir -p "$RC/files/partial"
old=$(printf 'a%.0s' $(seq 64)); new=$(printf 'b%.0s' $(seq 64))
printf 'x' >"$RC/files/partial/$old"; touch -d '8 days ago' "$RC/files/partial/$old"
printf 'x' >"$RC/files/partial/$new"
expect_exit 0 "a later pick" env WHEELPICK_CACHE_DIR="$RC" "$WHEELPICK" --catalog "$TMP/resume.sqlite3" torch==1.8.0 $T --index "$BASE/simple/" --no-deps -d "$TMP/whr"
expect_no_file "sweeps a week-old partial" "$RC/files/partial/$old"
expect_file "keeps a fresh one" "$RC/files/partial/$new"
done_testing
