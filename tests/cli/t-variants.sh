#!/usr/bin/env bash
# tests/cli/t-variants.sh: PEP 825 variant wheels through the command line, over a served index of
# small variant wheels (tests/fixtures/mkvariants.py) described by the REAL torch-2.10.0-variants.json:
# the label each described machine gets, the why-line, the CPU-build refusal, variant markers,
# list, profiles, flags, the lock's [packages.variants-json], and a variants.json that lies.
# (A wheelhouse pip installs offline needs ops/wheel/pick.c: tests/cli/pending-variants-wheelhouse.sh.)
. "$(dirname "$0")/../lib.sh"
V10=variants/variant-repack__torch-2.10__torch-2.10.0-variants.json
need_real "$V10"
python3 "$ROOT/tests/fixtures/mkvariants.py" "$TMP/vidx" "$REAL_DATA/$V10"
start_server "$TMP/vidx"
IDX="$BASE/simple/"
P="--python 3.12 --platform manylinux_2_28_x86_64 --index $IDX --dry-run --allow-full-downloads"
picked() { "$PYTHON" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(" ".join("%s:%s" % (p["project"], p["variant"]) for p in j["picks"]))' "$TMP/out"; }
expect_picks() { # DESC WANT
	local got
	got=$(picked 2>&1)
	if [ "$got" = "$2" ]; then pass "$1"; else fail "$1: got '$got', wanted '$2'"; fi
}

# --- NVIDIA ---------------------------------------------------------------------------------
expect_exit 0 "Ampere on a CUDA 12.8 driver" wp pick torch --cuda 12.8 --gpu sm_86 $P --json
expect_picks "cuda12.8, and the nvidia-cublas its variant marker asks for" "torch:cuda12.8 nvidia-cublas:"
expect_json "$TMP/out" "'priority :: order :: 2 before 3 puts it before cuda12.6' in j['picks'][0]['reason']" True
expect_json "$TMP/out" "j['picks'][0]['filename']" "torch-2.10.0-py3-none-manylinux_2_28_x86_64-cuda12.8.whl"

# the variants.json was read once and kept: offline, the same pick
expect_exit 0 "offline, from the catalog's copy" wp pick torch --cuda 12.8 --gpu sm_86 --python 3.12 \
	--platform manylinux_2_28_x86_64 --index "$IDX" --dry-run --offline --no-deps --json
expect_picks "the same label offline" "torch:cuda12.8"
n=$(grep -c "/files/torch-2.10.0-variants.json" "$TMP/server.log")
[ "$n" = 1 ] && pass "the variants.json was fetched once" || fail "the variants.json was fetched $n times"
expect_exit 0 "Ampere on a CUDA 13.0 driver" wp pick torch --cuda 13.0 --gpu sm_86 $P --json
# cuda13.0 carries 120_real, which an sm_86 machine does not support: the property marker is false
expect_picks "cuda13.0, without the dependency its unsupported sm_arch property would bring" "torch:cuda13.0"
expect_exit 0 "Blackwell on a CUDA 13.0 driver" wp pick torch --cuda 13.0 --gpu sm_120 $P --json
expect_picks "cuda13.0 with the dependency of its supported 120_real" "torch:cuda13.0 nvidia-cublas:"
expect_exit 0 "Pascal: only cuda12.6 has sm_60 code" wp pick torch --cuda 12.8 --gpu sm_61 $P --json
expect_picks "cuda12.6" "torch:cuda12.6"
expect_exit 0 "driver 535 (CUDA 12.2) with an H100" wp pick torch --driver 535.104.05 --gpu H100 $P --json
expect_picks "cuda12.8 (lower bound 12.0)" "torch:cuda12.8 nvidia-cublas:"

expect_exit 1 "Jetson Thor: no build has its code; the CPU build is not taken silently" \
	wp pick torch --cuda 13.0 --gpu Thor $P
expect_grep "says only the CPU build fits, and how to ask" "only the CPU build \(null\) fits; ask for it with --cuda cpu" "$TMP/err"
expect_grep "and what the target supports" "it supports 110_real, 110_virtual" "$TMP/err"
expect_exit 1 "a CUDA 11.8 driver: every CUDA build needs 12.0" wp pick torch --cuda 11.8 --gpu sm_90 $P --json
expect_json "$TMP/out" "j['error']['exit']" 1
expect_json "$TMP/out" "'only the CPU build (null) fits' in j['error']['message']" True

# --- the same index as PEP 691 JSON (nginx negotiates), and as a folder ----------------------------
start_nginx "$TMP/vidx"
export WHEELPICK_CATALOG="$TMP/json.sqlite3"
expect_exit 0 "a PEP 691 JSON page lists the variants.json too" wp pick torch --cuda 12.8 --gpu sm_86 --python 3.12 \
	--platform manylinux_2_28_x86_64 --index "$NGINX_BASE/simple/" --dry-run --allow-full-downloads --json
expect_picks "cuda12.8 through JSON" "torch:cuda12.8 nvidia-cublas:"
expect_grep "the JSON page was read" "GET /simple/torch/ " "$TMP/nginx/logs/access.log"
kind=$(sqlite3 "$TMP/json.sqlite3" "SELECT kind FROM sources WHERE url LIKE '%/simple/torch/'")
[ "$kind" = simple-json ] && pass "as PEP 691 JSON" || fail "torch's page was read as '$kind', not simple-json"
export WHEELPICK_CATALOG="$TMP/folder.sqlite3"
expect_exit 0 "a folder of variant wheels" wp pick torch --cuda 12.8 --gpu sm_120 --python 3.12 \
	--platform manylinux_2_28_x86_64 --index "file://$TMP/vidx/files/" --dry-run --no-deps --json
expect_picks "cuda12.8 from the folder (cuda12.6 has no sm_120)" "torch:cuda12.8"
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"

# --- AMD, Intel, CPU --------------------------------------------------------------------------
expect_exit 0 "MI300X with ROCm 7.0" wp pick torch --rocm 7.0 --gfx gfx942 $P --json
expect_picks "rocm7.0" "torch:rocm7.0"
expect_exit 0 "RX 7900 with ROCm 7.1" wp pick torch --rocm 7.1 --gpu gfx1100 $P --json
expect_picks "rocm7.1" "torch:rocm7.1"
expect_exit 1 "gfx1100 with ROCm 6.4: torch 2.10 has 7.0 and 7.1 only" wp pick torch --rocm 6.4 --gfx gfx1100 $P
expect_grep "the ROCm version is named" "amd :: rocm_version" "$TMP/err"
expect_exit 0 "Intel Arc B580 by name" wp pick torch --intel-device-ip bmg-g21 $P --json
expect_picks "xpu" "torch:xpu"
expect_json "$TMP/out" "'intel :: device_ip :: 20.1.0' in j['picks'][0]['reason']" True
expect_exit 0 "no GPU: the null variant" wp pick torch --cuda cpu $P --json
expect_picks "null, without CUDA libraries" "torch:null"

# --- profiles and flags -------------------------------------------------------------------------
printf '{"target": {"python": "3.12", "platform": "manylinux_2_28_x86_64", "accel": "xpu", "intel_device_ips": ["12.56.5"], "x86_64_level": "v3"}}\n' >"$TMP/xpu.json"
expect_exit 0 "a profile with an Intel device IP" wp pick torch --target "$TMP/xpu.json" --index "$IDX" --dry-run --json
expect_picks "xpu (12.56.5 runs its base platform 12.55.8's code)" "torch:xpu"
printf '{"target": {"python": "3.12", "platform": "manylinux_2_28_x86_64", "accel": "xpu", "intel_device_ips": ["x"]}}\n' >"$TMP/bad.json"
expect_exit 2 "a profile with a bad device IP" wp pick torch --target "$TMP/bad.json" --index "$IDX" --dry-run
expect_grep "names the field" "intel_device_ips" "$TMP/err"
# PEP 825 providers draft: a machine described elsewhere by its list of compatible features; this
# build host has no GPU ("accel": "cpu") and runs no provider code, yet the list selects the build
printf '{"target": {"python": "3.12", "platform": "manylinux_2_28_x86_64", "accel": "cpu", "variant_properties": {"nvidia": {"cuda_version_lower_bound": ["12.0"], "sm_arch": ["86_real", "80_real"]}}}}\n' >"$TMP/listed.json"
expect_exit 0 "a profile's list of compatible features" wp pick torch --target "$TMP/listed.json" --index "$IDX" --dry-run --no-deps --json
expect_picks "cuda12.8 from the list alone (cuda13.0 needs a 13.0 lower bound it does not list)" "torch:cuda12.8"
printf '{"target": {"python": "3.12", "platform": "manylinux_2_28_x86_64", "accel": "cuda", "cuda": "12.8", "gpu_sms": [86], "variant_properties": {"x86_64": {"level": ["v1"]}}}}\n' >"$TMP/onlyx86.json"
expect_exit 1 "the list is used alone: a CUDA machine whose list names no nvidia feature" \
	wp pick torch --target "$TMP/onlyx86.json" --index "$IDX" --dry-run --no-deps
expect_grep "says the list names none" "list of compatible features names no value of nvidia" "$TMP/err"
printf '{"target": {"python": "3.12", "platform": "manylinux_2_28_x86_64", "accel": "cpu", "variant_properties": {"nvidia": {"sm_arch": ["86 real"]}}}}\n' >"$TMP/badlist.json"
expect_exit 2 "a value PEP 825 does not allow" wp pick torch --target "$TMP/badlist.json" --index "$IDX" --dry-run
expect_grep "names the property" "nvidia :: sm_arch :: 86 real" "$TMP/err"
# detect --json writes the list its providers compute, and it reads back as the same target
expect_exit 0 "detect --json" wp detect --json
cp "$TMP/out" "$TMP/here.json"
expect_json "$TMP/here.json" "isinstance(j['target']['variant_properties'], dict)" True
expect_exit 0 "this machine's profile read back" wp pick torch --target "$TMP/here.json" --python 3.12 \
	--platform manylinux_2_28_x86_64 --cuda cpu --index "$IDX" --dry-run --no-deps --json
expect_picks "no GPU listed: the null variant" "torch:null"
expect_exit 2 "--x86-64-level v5" wp pick torch --cuda cpu --x86-64-level v5 $P
expect_grep "one line naming the value" "x86-64 level 'v5' is not one of v1, v2, v3, v4" "$TMP/err"
expect_exit 2 "--intel-device-ip nonsense" wp pick torch --intel-device-ip nonsense $P
expect_grep "names the GPU" "Intel GPU 'nonsense'" "$TMP/err"
expect_exit 2 "--gfx 942" wp pick torch --rocm 7.0 --gfx 942 $P
expect_exit 0 "help lists the flags" wp pick --help
expect_grep "--intel-device-ip" "intel-device-ip IP\|NAME" "$TMP/out"
expect_grep "--x86-64-level" "x86-64-level v1\|v2\|v3\|v4" "$TMP/out"

# --- list, lock --------------------------------------------------------------------------------
expect_exit 0 "list shows the labels as builds" wp list torch
expect_grep "a column per label" "cuda12.6 +cuda12.8 +cuda13.0 +null +rocm7.0 +rocm7.1 +xpu" "$TMP/out"
expect_exit 0 "list --json" wp list torch --json
expect_json "$TMP/out" "sorted(f['variant'] for f in j)" "['cuda12.6', 'cuda12.8', 'cuda13.0', 'null', 'rocm7.0', 'rocm7.1', 'xpu']"
expect_exit 0 "list marks what a target takes" wp list torch --cuda 12.8 --gpu sm_86 --python 3.12 --platform manylinux_2_28_x86_64 --json
expect_json "$TMP/out" "sorted(f['variant'] for f in j if f.get('fits'))" "['cuda12.6', 'cuda12.8']"
expect_exit 0 "list marks what an AMD machine takes" wp list torch --rocm 7.1 --gpu gfx1100 --python 3.12 --platform manylinux_2_28_x86_64 --json
expect_json "$TMP/out" "sorted(f['variant'] for f in j if f.get('fits'))" "['rocm7.1']"
expect_exit 0 "list marks what an Intel GPU takes" wp list torch --intel-device-ip lnl-m --python 3.12 --platform manylinux_2_28_x86_64 --json
expect_json "$TMP/out" "sorted(f['variant'] for f in j if f.get('fits'))" "['xpu']"

expect_exit 0 "lock for an Ampere machine" wp lock torch --cuda 12.8 --gpu sm_86 --python 3.12 \
	--platform manylinux_2_28_x86_64 --index "$IDX" --allow-full-downloads -o "$TMP/lock/pylock.toml"
expect_grep "PEP 825's table" '^\[packages\.variants-json\]$' "$TMP/lock/pylock.toml"
expect_grep "with the schema" '^"\$schema" = "https://variants-schema.wheelnext.dev/v0.0.3.json"$' "$TMP/lock/pylock.toml"
expect_grep "and the picked label's properties" '^"cuda12.8" = \{ "nvidia" = \{ "cuda_version_lower_bound" = \["12.0"\]' "$TMP/lock/pylock.toml"
expect_exit 0 "a valid PEP 751 lock" "$PYTHON" "$ROOT/tests/cli/pylock_check.py" "$TMP/lock/pylock.toml"
"$PYTHON" -c 'import tomllib,sys; d=tomllib.load(open(sys.argv[1],"rb")); p=[x for x in d["packages"] if x["name"]=="torch"][0]; print(sorted(p["variants-json"]["variants"]))' \
	"$TMP/lock/pylock.toml" >"$TMP/labels" 2>&1
expect_grep "TOML that parses, every label there" "'cuda12.8', 'cuda13.0', 'null'" "$TMP/labels"

# --- mirror: the variants.json goes with the variant wheels (PEP 825) ------------------------------
export WHEELPICK_CATALOG="$TMP/mirror.sqlite3"
M="--python 3.12 --platform manylinux_2_28_x86_64 --index $IDX --allow-full-downloads"
expect_exit 0 "mirror for an Ampere and an MI300X machine" wp mirror "$TMP/mir" torch --cuda 12.8 --gpu sm_86 $M
expect_exit 0 "a re-run adds the ROCm build" wp mirror "$TMP/mir" torch --rocm 7.0 --gfx gfx942 $M
cmp -s "$TMP/mir/files/torch/torch-2.10.0-variants.json" "$TMP/vidx/files/torch-2.10.0-variants.json" &&
	pass "the variants.json is copied byte for byte" || fail "the mirror's variants.json differs or is missing"
VSHA=$(sha256sum "$TMP/vidx/files/torch-2.10.0-variants.json" | cut -d' ' -f1)
for page in simple/torch cuda12.8/torch rocm7.0/torch; do
	expect_grep "$page/index.html links it with its sha256" "torch-2.10.0-variants.json#sha256=$VSHA" "$TMP/mir/$page/index.html"
	expect_json "$TMP/mir/$page/index.json" "[f['hashes']['sha256'] for f in j['files'] if f['filename'] == 'torch-2.10.0-variants.json']" "['$VSHA']"
done
expect_no_grep "not on the page of another project" "variants.json" "$TMP/mir/cuda12.8/nvidia-cublas/index.html"
expect_json "$TMP/mir/.wheelpick-mirror.json" "[f['sha256'] for f in j['files'] if f['filename'] == 'torch-2.10.0-variants.json']" "['$VSHA']"
expect_exit 0 "verify passes the mirror" wp verify "$TMP/mir"
start_server "$TMP/mir"
MBASE=$BASE
export WHEELPICK_CATALOG="$TMP/from-mirror.sqlite3"
for root in simple cuda12.8; do
	expect_exit 0 "pick from the mirror's $root/" wp pick torch --cuda 12.8 --gpu sm_86 --python 3.12 \
		--platform manylinux_2_28_x86_64 --index "$MBASE/$root/" --dry-run --allow-full-downloads --json
	expect_picks "the same label as from the original index" "torch:cuda12.8 nvidia-cublas:"
done
expect_exit 0 "an AMD pick from the mirror's rocm7.0/" wp pick torch --rocm 7.0 --gfx gfx942 --python 3.12 \
	--platform manylinux_2_28_x86_64 --index "$MBASE/rocm7.0/" --dry-run --allow-full-downloads --json
expect_picks "rocm7.0 from the mirror" "torch:rocm7.0"
stop_server
# nginx serves the mirror's PEP 691 pages to a client that asks for JSON
stop_nginx
start_nginx "$TMP/mir"
export WHEELPICK_CATALOG="$TMP/from-mirror-json.sqlite3"
expect_exit 0 "pick from the mirror's PEP 691 JSON pages" wp pick torch --cuda 12.8 --gpu sm_86 --python 3.12 \
	--platform manylinux_2_28_x86_64 --index "$NGINX_BASE/cuda12.8/" --dry-run --allow-full-downloads --json
expect_picks "the same label through JSON" "torch:cuda12.8 nvidia-cublas:"
kind=$(sqlite3 "$TMP/from-mirror-json.sqlite3" "SELECT kind FROM sources WHERE url LIKE '%/cuda12.8/torch/'")
[ "$kind" = simple-json ] && pass "read as PEP 691 JSON" || fail "the mirror's torch page was read as '$kind', not simple-json"
stop_nginx
export WHEELPICK_CATALOG="$TMP/mirror.sqlite3"
expect_exit 0 "--prune to the CPU build keeps the variants.json" wp mirror "$TMP/mir" torch --cuda cpu $M --prune
expect_file "still there" "$TMP/mir/files/torch/torch-2.10.0-variants.json"
expect_no_file "the ROCm root is gone" "$TMP/mir/rocm7.0/torch/index.html"
expect_exit 0 "verify after --prune" wp verify "$TMP/mir"
# a catalog whose kept copy is not the bytes the index listed is not mirrored
sqlite3 "$TMP/mirror.sqlite3" "UPDATE variants_json SET body = replace(body, '12.0', '11.0')"
expect_exit 4 "a kept variants.json that lost its bytes fails the mirror" wp mirror "$TMP/mir2" torch --cuda cpu $M --offline
expect_grep "naming the file" "torch-2.10.0-variants.json" "$TMP/err"
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"

# --- verify: each variant wheel's variant.json against its name and its release's variants.json -----
# Wheels built the way PyTorch's are, from the real config that disagrees with the published JSON:
# notes naming file, label and both values; the mirror still verifies (ops/verify/variants.c says why).
CFG=variants/variant-repack__torch-2.10__torch_variant_config.toml
need_real "$CFG"
"$PYTHON" "$ROOT/tests/fixtures/mkvariants_config.py" "$TMP/cidx" "$REAL_DATA/$V10" "$REAL_DATA/$CFG"
start_server "$TMP/cidx"
export WHEELPICK_CATALOG="$TMP/config.sqlite3"
C="--python 3.12 --platform manylinux_2_28_x86_64 --index $BASE/simple/ --allow-full-downloads"
expect_exit 0 "mirror wheels built from the real config" wp mirror "$TMP/cmir" torch --cuda 12.8 --gpu sm_86 $C
expect_exit 0 "and the rocm7.1 build" wp mirror "$TMP/cmir" torch --rocm 7.1 --gfx gfx1100 $C
stop_server
expect_exit 0 "the disagreements are notes, not integrity failures" wp verify "$TMP/cmir"
expect_grep "rocm7.1 declared with rocm_version 7.0, named" \
	"torch-2.10.0-py3-none-manylinux_2_28_x86_64-rocm7.1.whl: label 'rocm7.1' differs from torch-2.10.0-variants.json: amd :: rocm_version is 7.0 in the wheel and 7.1 in the variants.json" "$TMP/err"
expect_grep "the 'property' namespace, named" \
	"cuda12.8.whl: label 'cuda12.8': its variant.json is not valid PEP 825 metadata: .*namespace 'property'" "$TMP/err"
# the same wheels in a folder with no variants.json: nothing to decide by but the wheel's own
mkdir -p "$TMP/cfolder"
cp "$TMP/cmir/files/torch/"*-cuda12.8.whl "$TMP/cfolder/"
expect_exit 4 "with no variants.json beside it, an invalid variant.json is fatal" wp verify "$TMP/cfolder"
expect_grep "naming file and label" "cuda12.8.whl: label 'cuda12.8': its variant.json is not valid" "$TMP/err"

# fatal: a wheel under another label's name, a label the variants.json lacks, a variants.json that
# is not variant metadata, a mirror that lost its variants.json
mkdir -p "$TMP/vfolder"
cp "$TMP/vidx/files/torch-2.10.0-py3-none-manylinux_2_28_x86_64-cuda12.8.whl" \
	"$TMP/vfolder/torch-2.10.0-py3-none-manylinux_2_28_x86_64-cuda12.6.whl"
expect_exit 4 "the cuda12.8 build under the cuda12.6 name" wp verify "$TMP/vfolder"
expect_grep "names file and both labels" "cuda12.6.whl: its variant.json names 'cuda12.8', but its file name's label is 'cuda12.6'" "$TMP/err"
rm -f "$TMP/vfolder/"*.whl
cp "$TMP/vidx/files/torch-2.10.0-py3-none-manylinux_2_28_x86_64-rocm7.1.whl" "$TMP/vfolder/"
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["variants"]["rocm7.1"]; json.dump(d, open(sys.argv[2], "w"))' \
	"$TMP/vidx/files/torch-2.10.0-variants.json" "$TMP/vfolder/torch-2.10.0-variants.json"
expect_exit 4 "a label the variants.json beside it does not list" wp verify "$TMP/vfolder"
expect_grep "names the label and the file" "rocm7.1.whl: its label 'rocm7.1' is not in torch-2.10.0-variants.json" "$TMP/err"
printf '{"variants": {}}' >"$TMP/vfolder/torch-2.10.0-variants.json"
expect_exit 4 "a variants.json that is not variant metadata" wp verify "$TMP/vfolder"
expect_grep "names it" "torch-2.10.0-variants.json: .*no \\\$schema" "$TMP/err"
cp -r "$TMP/cmir" "$TMP/cmir2"
rm "$TMP/cmir2/files/torch/torch-2.10.0-variants.json"
expect_exit 4 "a mirror whose variants.json is gone" wp verify "$TMP/cmir2"
expect_grep "says the release has none" "rocm7.1.whl: is a variant wheel, but no torch-2.10.0-variants.json is beside it" "$TMP/err"
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"

# --- a variants.json that is not what the page says ---------------------------------------------
cp -r "$TMP/vidx" "$TMP/lie"
sed -i 's/"12.0"/"11.0"/' "$TMP/lie/files/torch-2.10.0-variants.json"
stop_server
start_server "$TMP/lie"
export WHEELPICK_CATALOG="$TMP/lie.sqlite3"
expect_exit 4 "another sha256 than the page lists is an integrity failure" \
	wp pick torch --cuda 12.8 --gpu sm_86 --python 3.12 --platform manylinux_2_28_x86_64 --index "$BASE/simple/" --dry-run
expect_grep "naming the file" "variants.json '.*torch-2.10.0-variants.json': sha256" "$TMP/err"
printf 'not json' >"$TMP/lie/files/torch-2.10.0-variants.json"
sed -i 's/torch-2.10.0-variants.json#sha256=[0-9a-f]*/torch-2.10.0-variants.json/' "$TMP/lie/simple/torch/index.html"
export WHEELPICK_CATALOG="$TMP/lie2.sqlite3"
expect_exit 3 "a variants.json that is not JSON is a source failure" \
	wp pick torch --cuda 12.8 --gpu sm_86 --python 3.12 --platform manylinux_2_28_x86_64 --index "$BASE/simple/" --dry-run
expect_grep "one line naming it" "torch-2.10.0-variants.json" "$TMP/err"
rm -f "$TMP/lie/files/torch-2.10.0-variants.json"
sed -i '/variants.json/d' "$TMP/lie/simple/torch/index.html"
export WHEELPICK_CATALOG="$TMP/lie3.sqlite3"
expect_exit 1 "variant wheels whose release lists no variants.json are not guessed at" \
	wp pick torch --cuda 12.8 --gpu sm_86 --python 3.12 --platform manylinux_2_28_x86_64 --index "$BASE/simple/" --dry-run --explain
expect_grep "and say why" "lists no variants.json for its release" "$TMP/err"

done_testing
