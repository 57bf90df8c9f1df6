#!/usr/bin/env bash
# tests/cli/t-conda.sh: pick --conda over a channel: the CUDA rule for conda builds, the closure, a local channel.
. "$(dirname "$0")/../lib.sh"
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$TMP/chan" "$TMP/forge"
# CH is shaped like the pytorch channel (no python); FORGE has python and pip, as conda-forge does
CH="file://$TMP/chan"
FORGE="file://$TMP/forge"

# an incomplete closure installs nowhere: exit 1 naming what is missing, who needs it, and where it is
expect_exit 1 "conda: a closure without python fails" wp pick 'pytorch==1.8.0' --conda -c "$CH" --cuda 11.2 --python 3.8 \
	--platform linux-64 --dry-run
expect_grep "names the missing dependency and who needs it" "incomplete: 1 dependency is in no channel given: python \(needed by pytorch 1.8.0; channel conda-forge\)" "$TMP/err"
expect_grep "and what to do" "add it with -c conda-forge.*--allow-missing" "$TMP/err"
expect_exit 1 "conda: no channel written either" wp pick 'pytorch==1.8.0' --conda -c "$CH" --cuda 11.2 --python 3.8 \
	--platform linux-64 -d "$TMP/incomplete"
expect_no_file "nothing written" "$TMP/incomplete/linux-64/repodata.json"
expect_exit 0 "conda: --allow-missing writes it anyway" wp pick 'pytorch==1.8.0' --conda -c "$CH" --cuda 11.2 --python 3.8 \
	--platform linux-64 -d "$TMP/incomplete" --allow-missing
expect_grep "and says so" "warning: the closure is incomplete.*python" "$TMP/err"
expect_file "the channel" "$TMP/incomplete/linux-64/repodata.json"
expect_grep "the lock says so too" "^# incomplete \(--allow-missing\): no channel given has python" "$TMP/incomplete/explicit-linux-64.txt"
# once the catalog knows a channel that has it, the message names that channel
expect_exit 0 "conda: crawl the forge" wp update --conda -c "$FORGE"
expect_exit 1 "conda: still incomplete" wp pick 'pytorch==1.8.0' --conda -c "$CH" --cuda 11.2 --python 3.8 --platform linux-64 --dry-run
expect_grep "names the channel that has it" "python \(needed by pytorch 1.8.0; channel $FORGE\).*-c $FORGE" "$TMP/err"
expect_exit 1 "a request no channel given has" wp pick python --conda -c "$CH" --python 3.8 --platform linux-64 --dry-run
expect_grep "names it and the channel" "no channel given has 'python'; add one with -c $FORGE" "$TMP/err"
# from here on both channels, in that order (strict priority)

expect_exit 0 "conda: 11.2 picks the cuda11.1 build" wp pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda 11.2 --python 3.8 \
	--platform linux-64 --dry-run --json
expect_json "$TMP/out" "[p['build'] for p in j['picks'] if p['name']=='pytorch']" "['py3.8_cuda11.1_cudnn8.0.5_0']"
expect_json "$TMP/out" "[p['version'] for p in j['picks'] if p['name']=='cudatoolkit']" "['11.1.1']"
expect_json "$TMP/out" "[p['build'] for p in j['picks'] if p['name']=='pytorch-mutex']" "['cuda']"
expect_json "$TMP/out" "j['missing']" "[]"
expect_json "$TMP/out" "[p['version'] for p in j['picks'] if p['name']=='python']" "['3.8.10']"

expect_exit 0 "conda: 11.0 takes cuda10.2" wp pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda 11.0 --python 3.8 --platform linux-64 --dry-run --json
expect_json "$TMP/out" "[p['build'] for p in j['picks'] if p['name']=='pytorch']" "['py3.8_cuda10.2_cudnn7.6.5_0']"
expect_exit 0 "conda: CPU" wp pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda cpu --python 3.8 --platform linux-64 --dry-run --json
expect_json "$TMP/out" "sorted(p['name'] for p in j['picks'])" "['cpuonly', 'pip', 'python', 'pytorch', 'pytorch-mutex']"
expect_exit 1 "conda: 9.2 has nothing for 1.8.0" wp pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda 9.2 --python 3.8 --platform linux-64 --dry-run
expect_grep "and says what would" "1.7.1" "$TMP/err"
# pytorch is picked first (1.8.0), then torchvision 0.8.2 needs 1.7.1: the set is resolved again with that
expect_exit 0 "conda: a conflict is resolved by going back" wp pick pytorch torchvision==0.8.2 --conda -c "$CH" -c "$FORGE" \
	--cuda 11.0 --python 3.8 --platform linux-64 --dry-run --json
expect_json "$TMP/out" "sorted((p['name'], p['version']) for p in j['picks'] if p['name'] in ('pytorch', 'torchvision'))" "[('pytorch', '1.7.1'), ('torchvision', '0.8.2')]"
expect_exit 2 "a bad MatchSpec" wp pick 'pytorch >=>1' --conda -c "$CH" -c "$FORGE" --cuda 11.2 --python 3.8 --platform linux-64 --dry-run

# the first crawl hashed the repodata alongside the parse: the stored hash finds it unchanged
expect_exit 0 "conda: a second update" wp -v update --conda -c "$CH" -c "$FORGE"
expect_grep "finds the repodata unchanged" "unchanged $CH/linux-64/repodata.json" "$TMP/err"

# the closure, fetched and proven, as a local channel conda can use offline
expect_exit 0 "conda: a local channel" wp pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda 11.2 --python 3.8 --platform linux-64 -d "$TMP/local"
expect_file "repodata" "$TMP/local/linux-64/repodata.json"
expect_file "noarch too" "$TMP/local/noarch/repodata.json"
zstd -qdc "$TMP/local/linux-64/repodata.json.zst" | cmp -s - "$TMP/local/linux-64/repodata.json" &&
	pass "repodata.json.zst holds the same bytes" || fail "repodata.json.zst differs from repodata.json"
zstd -qdc "$TMP/local/noarch/repodata.json.zst" | cmp -s - "$TMP/local/noarch/repodata.json" &&
	pass "noarch's too" || fail "noarch's repodata.json.zst differs"
# CEP 16 shards: decoded (python3-msgpack, zstd), exactly the records of repodata.json
PYMSG=""
for py in python3 /usr/bin/python3; do "$py" -c "import msgpack" 2>/dev/null && { PYMSG=$py; break; }; done
[ -n "$PYMSG" ] && pass "a Python with msgpack: $PYMSG" || fail "no Python with msgpack (python3-msgpack; make deps)"
for sd in linux-64 noarch; do
	expect_exit 0 "the $sd shards hold exactly repodata.json's records" "$PYMSG" "$ROOT/tests/cli/conda_shards_check.py" "$TMP/local/$sd"
done
ls "$TMP/local/linux-64/shards/"*.msgpack.zst >/dev/null 2>&1 && pass "shards in linux-64/shards/" || fail "no shard files"
expect_file "the package" "$TMP/local/linux-64/pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2"
expect_json "$TMP/local/linux-64/repodata.json" "sorted(j['packages'])" "['cudatoolkit-11.1.1-h6406543_8.tar.bz2', 'python-3.8.10-h12debd9_8_cpython.tar.bz2', 'pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2', 'pytorch-mutex-1.0-cuda.tar.bz2']"
expect_json "$TMP/local/noarch/repodata.json" "sorted(j['packages'])" "['pip-24.0-pyhd8ed1ab_0.tar.bz2']"
# the locks beside it: CEP 23 @EXPLICIT (each URL with its sha256, dependencies first) and environment.yml
expect_file "explicit lock" "$TMP/local/explicit-linux-64.txt"
expect_exit 0 "the explicit lock holds the closure in dependency order" python3 "$ROOT/tests/cli/conda_lock_check.py" \
	explicit "$TMP/local/explicit-linux-64.txt" "$TMP/local" pytorch python pip cudatoolkit pytorch-mutex
expect_exit 0 "environment.yml pins it" python3 "$ROOT/tests/cli/conda_lock_check.py" \
	environment "$TMP/local/environment.yml" "$CH" "$FORGE" pytorch=1.8.0=py3.8_cuda11.1_cudnn8.0.5_0 python=3.8.10=h12debd9_8_cpython \
	pip=24.0=pyhd8ed1ab_0 cudatoolkit=11.1.1=h6406543_8 pytorch-mutex=1.0=cuda
# two targets of one subdir with different closures: a file each, named by the target
expect_exit 0 "conda: two targets" wp pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda 11.2 --cuda cpu --python 3.8 \
	--platform linux-64 -d "$TMP/local"
expect_file "the CUDA target's lock" "$TMP/local/explicit-linux-64-cu112-py3.8.txt"
expect_file "the CPU target's lock" "$TMP/local/explicit-linux-64-cpu-py3.8.txt"
expect_file "an environment each" "$TMP/local/environment-linux-64-cpu-py3.8.yml"
expect_no_file "the single-target lock went" "$TMP/local/explicit-linux-64.txt"
expect_no_file "and its environment" "$TMP/local/environment.yml"
expect_grep "the CPU lock has cpuonly" "/cpuonly-1.0-0.tar.bz2#sha256:[0-9a-f]{64}$" "$TMP/local/explicit-linux-64-cpu-py3.8.txt"
expect_no_grep "and no cudatoolkit" "cudatoolkit" "$TMP/local/explicit-linux-64-cpu-py3.8.txt"
expect_grep "the summary says which file is for which machine" "explicit-linux-64-cpu-py3.8.txt.*CPU" "$TMP/out"
expect_json "$TMP/local/linux-64/repodata.json" "j['packages']['pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2']['depends']" "['cudatoolkit >=11.1,<11.2', 'python >=3.8,<3.9.0a0', 'pytorch-mutex 1.0 cuda']"
expect_exit 0 "verify the channel" wp verify "$TMP/local"

# a package whose bytes do not match the repodata's sha256: exit 4, not in the channel
python3 - "$TMP/chan/linux-64/repodata.json" <<'PY'
import json, sys
p = sys.argv[1]; j = json.load(open(p))
j["packages"]["cudatoolkit-10.2.89-hfd86e86_1.tar.bz2"]["sha256"] = "0" * 64
json.dump(j, open(p, "w"))
PY
# the first catalog saw the true hash: trust on first use refuses the changed one before any download
expect_exit 0 "conda: update reads the changed hash" wp update --conda -c "$CH" -c "$FORGE"
expect_grep "said loudly" "1 file\(s\) now have a different sha256 than first seen" "$TMP/err"
expect_exit 1 "conda: a changed hash is refused" wp pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda 11.0 --python 3.8 \
	--platform linux-64 -d "$TMP/local-tofu"
expect_grep "and says why" "cudatoolkit .* now has sha256 0{64} where [0-9a-f]{64} was trusted first for that name; no other build is taken in its place.*wheelpick trust '" "$TMP/err"
expect_no_file "nothing fetched" "$TMP/local-tofu/linux-64/cudatoolkit-10.2.89-hfd86e86_1.tar.bz2"
expect_exit 0 "conda: trust with a pattern that misses" wp trust '%nomatch%'
expect_grep "accepts nothing" "accepted new hashes for 0 file" "$TMP/err"
expect_exit 1 "conda: still refused" wp pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda 11.0 --python 3.8 --platform linux-64 --dry-run
expect_exit 0 "conda: trust the file" wp trust '%/cudatoolkit-10.2.89-%'
expect_grep "accepts it" "accepted new hashes for 1 file" "$TMP/err"
expect_exit 0 "conda: then it is picked" wp pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda 11.0 --python 3.8 --platform linux-64 --dry-run --json
expect_json "$TMP/out" "[p['sha256'] for p in j['picks'] if p['name']=='cudatoolkit']" "['$(printf '0%.0s' $(seq 64))']"
expect_exit 0 "conda: a refresh keeps it accepted" wp update --conda -c "$CH" -c "$FORGE" --force
expect_no_grep "no warning again" "different sha256" "$TMP/err"

export WHEELPICK_CATALOG="$TMP/c2.sqlite3"
expect_exit 4 "a lying repodata hash is exit 4" wp pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda 11.0 --python 3.8 --platform linux-64 -d "$TMP/local2"
expect_no_file "not in the channel" "$TMP/local2/linux-64/cudatoolkit-10.2.89-hfd86e86_1.tar.bz2"

# a record with md5 alone (older repodata), and the wrong one: caught after the download, exit 4
python3 - "$TMP/chan/linux-64/repodata.json" <<'PY'
import json, sys
p = sys.argv[1]; j = json.load(open(p))
r = j["packages"]["cudatoolkit-9.2-0.tar.bz2"]
del r["sha256"]; r["md5"] = "0" * 32
json.dump(j, open(p, "w"))
PY
export WHEELPICK_CATALOG="$TMP/c3.sqlite3"
expect_exit 4 "a wrong md5 is exit 4" wp pick 'pytorch==1.7.1' --conda -c "$CH" -c "$FORGE" --cuda 9.2 --python 3.8 --platform linux-64 -d "$TMP/local3" --refresh
expect_grep "names it" "cudatoolkit-9.2-0.tar.bz2.*md5 mismatch: expected 0{32}" "$TMP/err"
expect_no_file "not in the channel" "$TMP/local3/linux-64/cudatoolkit-9.2-0.tar.bz2"
# matrix --conda (issue 36): each target's conda pick, a row each; a target nothing fits says why
expect_exit 0 "matrix --conda, four targets" wp matrix 'pytorch==1.8.0' --conda --channel "$CH" --channel "$FORGE" \
	--cuda 11.2 --cuda 11.0 --cuda 9.2 --cuda cpu --python 3.8 --platform linux-64
expect_grep "11.2: the cuda11.1 build" "^CUDA 11\.2, Python 3\.8, linux-64 +1\.8\.0 py3\.8_cuda11\.1_cudnn8\.0\.5_0" "$TMP/out"
expect_grep "11.0: cuda10.2" "^CUDA 11\.0, Python 3\.8, linux-64 +1\.8\.0 py3\.8_cuda10\.2_cudnn7\.6\.5_0" "$TMP/out"
expect_grep "9.2: nothing, and why" "nothing: pytorch 1\.8\.0 has cpu, cuda10\.2, cuda11\.1; none runs on CUDA 9\.2" "$TMP/out"
expect_grep "CPU" "^CPU, Python 3\.8, linux-64 +1\.8\.0 py3\.8_cpu_0" "$TMP/out"
expect_no_file "a matrix writes no channel" "$TMP/conda-channel"
expect_exit 0 "matrix --channel alone implies --conda, --json" wp matrix 'pytorch==1.8.0' --channel "$CH" --channel "$FORGE" \
	--cuda 11.2 --cuda 9.2 --python 3.8 --platform linux-64 --json
expect_json "$TMP/out" "[[p['build'] for p in r['picks'] if p['name'] == 'pytorch'] for r in j['rows']]" "[['py3.8_cuda11.1_cudnn8.0.5_0'], []]"
expect_json "$TMP/out" "[r['error'] and r['error']['exit'] for r in j['rows']]" "[None, 1]"
python3 -c 'import jsonschema' 2>/dev/null && { python3 "$ROOT/tests/cli/json_schema_check.py" "$ROOT/docs/schema/matrix-conda.schema.json" "$TMP/out" >"$TMP/schema.log" 2>&1 &&
	pass "matrix --conda --json fits its schema" || { fail "matrix-conda.schema.json"; head -5 "$TMP/schema.log" >&2; }; }
expect_exit 0 "a driver under minor-version compatibility" wp matrix 'pytorch==1.8.0' --conda --channel "$CH" --channel "$FORGE" \
	--driver 450.80.02 --python 3.8 --platform linux-64
expect_grep "cuda11.1 on CUDA 11.0's driver" "1\.8\.0 py3\.8_cuda11\.1" "$TMP/out"
expect_grep "said" "pytorch: by NVIDIA's minor-version compatibility" "$TMP/out"
expect_exit 0 "--cuda-compat strict" wp matrix 'pytorch==1.8.0' --conda --channel "$CH" --channel "$FORGE" \
	--driver 450.80.02 --python 3.8 --platform linux-64 --cuda-compat strict
expect_grep "cuda10.2" "1\.8\.0 py3\.8_cuda10\.2" "$TMP/out"
expect_no_grep "not said under strict" "minor-version" "$TMP/out"
expect_exit 0 "two Pythons" wp matrix pytorch --conda --channel "$CH" --channel "$FORGE" --cuda cpu --python 3.8 --python 3.9 --platform linux-64 --json
expect_json "$TMP/out" "len(j['rows'])" 2

# -q --dry-run prints nothing on success, as pip's and uv's -q (issue 36); --json still prints
expect_exit 0 "conda -q --dry-run" wp -q pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda cpu --python 3.8 --platform linux-64 --dry-run
expect_exit 0 "nothing on stdout" test ! -s "$TMP/out"
expect_exit 0 "conda mirror -q --dry-run" wp -q mirror "$TMP/qm" 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda cpu --python 3.8 --platform linux-64 --dry-run
expect_exit 0 "nothing on stdout either" test ! -s "$TMP/out"
expect_exit 0 "conda -q --dry-run --json" wp -q pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" --cuda cpu --python 3.8 --platform linux-64 --dry-run --json
expect_json "$TMP/out" "sorted(p['name'] for p in j['picks'])[:1]" "['cpuonly']"

done_testing
