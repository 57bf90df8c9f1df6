#!/usr/bin/env bash
# tests/cli/t-pick.sh: the picking rule through the command line, with exit codes.
. "$(dirname "$0")/../lib.sh"
make_sample

expect_exit 0 "the founding case" wp pick torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 \
	--index "$FINDLINKS" --dry-run --json --no-deps
expect_json "$TMP/out" "j['picks'][0]['variant']" cu111
expect_json "$TMP/out" "j['picks'][0]['where']" "cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"
expect_json "$TMP/out" "'newest CUDA the driver runs' in j['picks'][0]['reason']" True
expect_json "$TMP/out" "j['targets'][0]['cuda']" 11.2

expect_exit 0 "wheelpick PKG is pick" wp torch==1.7.1 --cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run --no-deps
expect_grep "1.7.1 -> cu110" "cu110/torch-1.7.1\+cu110-cp38-cp38-linux_x86_64.whl" "$TMP/out"
expect_grep "the next command" "^next: wheelpick" "$TMP/out"

expect_exit 0 "cuda 11.0 takes the unlabeled cu102 build" wp torch==1.8.0 --cuda 11.0 --python 3.8 \
	--platform linux_x86_64 --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['where']" "cu102/torch-1.8.0-cp38-cp38-linux_x86_64.whl"

expect_exit 1 "cuda 9.2: nothing fits 1.8.0 (exit 1)" wp torch==1.8.0 --cuda 9.2 --python 3.8 --platform linux_x86_64 --dry-run
expect_grep "says what exists" "torch 1.8.0 has cpu, cu101, cu102, cu111, rocm4.0.1" "$TMP/err"
expect_grep "and what fits instead" "the newest torch that fits .* is 1.7.1 \(cu92\)" "$TMP/err"

expect_exit 0 "--cuda cpu" wp torch==1.8.0 --cuda cpu --python 3.8 --platform win_amd64 --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['filename']" "torch-1.8.0+cpu-cp38-cp38-win_amd64.whl"
expect_exit 0 "--rocm" wp torch --rocm 4.0 --python 3.8 --platform linux_x86_64 --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['variant']" rocm4.0.1

expect_exit 0 "--explain lists rejections" wp torch==1.8.0 --cuda 11.0 --python 3.8 --platform linux_x86_64 --dry-run --no-deps --explain
expect_grep "cu111 rejected with a reason" "cu111/torch-1.8.0\\+cu111-cp38-cp38-linux_x86_64.whl: cu111: CUDA 11.1 needs driver 455.23 or newer, or 450.80.02 for minor-version compatibility" "$TMP/out"
expect_grep "rocm rejected with a reason" "a ROCm build; ask with --rocm" "$TMP/out"

# two targets at once
expect_exit 0 "two platforms" wp torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --platform win_amd64 --dry-run --no-deps --json
expect_json "$TMP/out" "[p['filename'] for p in j['picks']]" "['torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl', 'torch-1.8.0+cu111-cp38-cp38-win_amd64.whl']"

# dependencies for the target, one variant for the set (the sample's wheels lie in a local folder
# with no PEP 658 files: a dry run reads them whole only with --allow-full-downloads)
expect_exit 0 "torchvision brings torch with its variant" wp torchvision==0.9.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run --json --allow-full-downloads
expect_json "$TMP/out" "sorted((p['project'], p['version']) for p in j['picks'])" "[('numpy', '1.24.0'), ('pillow', '9.0.0'), ('torch', '1.8.0+cu111'), ('torchvision', '0.9.0+cu111'), ('typing-extensions', '4.5.0')]"
expect_exit 0 "torchvision 0.8.0 exists only as cu102: torch comes as cu102 too" wp torchvision==0.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run --json --allow-full-downloads
expect_json "$TMP/out" "sorted((p['project'], p['variant']) for p in j['picks'] if p['variant'])" "[('torch', 'cu102'), ('torchvision', 'cu102')]"
expect_json "$TMP/out" "[p['version'] for p in j['picks'] if p['project']=='torch']" "['1.7.0']"
expect_exit 0 "a pinned torch picks the torchvision that fits it" wp torch==1.7.1 torchvision --cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run --json --allow-full-downloads
expect_json "$TMP/out" "sorted((p['project'], p['version']) for p in j['picks'] if p['project'].startswith('torch'))" "[('torch', '1.7.1+cu110'), ('torchvision', '0.8.2+cu110')]"
expect_exit 0 "windows brings the win32-only dependency" wp torch==1.8.0 --cuda 11.2 --python 3.8 --platform win_amd64 --dry-run --json --allow-full-downloads
expect_json "$TMP/out" "'pywin32' in [p['project'] for p in j['picks']]" True
expect_exit 0 "linux does not" wp torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run --json --allow-full-downloads
expect_json "$TMP/out" "'pywin32' in [p['project'] for p in j['picks']]" False

# the dependency-confusion guard: a project comes only from the first index that lists it
mkdir -p "$TMP/other"
cat >"$TMP/other/links.html" <<'HTML'
<a href="cu111/torch-9.9.9%2Bcu111-cp38-cp38-linux_x86_64.whl">a squatter's newer torch</a>
<a href="onlyhere-1.0-py3-none-any.whl">a project only this index has</a>
HTML
expect_exit 0 "torch from the first index only" wp torch onlyhere --no-deps --cuda 11.2 --python 3.8 --platform linux_x86_64 \
	--index "$FINDLINKS" --index "file://$TMP/other/links.html" --dry-run --json
expect_json "$TMP/out" "[p['version'] for p in j['picks'] if p['project']=='torch']" "['1.8.0+cu111']"
expect_json "$TMP/out" "[p['version'] for p in j['picks'] if p['project']=='onlyhere']" "['1.0']"
expect_exit 0 "the other order takes the other torch" wp torch --no-deps --cuda 11.2 --python 3.8 --platform linux_x86_64 \
	--index "file://$TMP/other/links.html" --index "$FINDLINKS" --dry-run --json
expect_json "$TMP/out" "j['picks'][0]['version']" "9.9.9+cu111"
expect_exit 0 "--index-for pins a project to one index" wp torch --no-deps --cuda 11.2 --python 3.8 --platform linux_x86_64 \
	--index "file://$TMP/other/links.html" --index "$FINDLINKS" --index-for "torch=$FINDLINKS" --dry-run --json
expect_json "$TMP/out" "j['picks'][0]['version']" "1.8.0+cu111"
expect_exit 2 "--index-for needs PROJECT=URL" wp torch --index-for torch --cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run

# usage errors: exit 2, one line naming the thing at fault
expect_exit 2 "bad --cuda" wp torch --cuda eleven --dry-run
expect_grep "names the value" "CUDA version 'eleven'" "$TMP/err"
expect_exit 2 "bad --python" wp torch --python 3.x --cuda 11.2 --dry-run
expect_exit 2 "unknown option" wp torch --frobnicate
expect_grep "names the option" "unknown option '--frobnicate'" "$TMP/err"
expect_exit 2 "bad requirement" wp 'torch==>1' --cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run
expect_exit 2 "no package" wp pick --cuda 11.2

# an unreachable source: exit 3 with the URL
rm -f "$WHEELPICK_CATALOG"
expect_exit 3 "unreachable source is exit 3" wp torch --cuda 11.2 --python 3.8 --platform linux_x86_64 \
	--index http://127.0.0.1:9/nothing/torch_stable.html --dry-run
expect_grep "names the URL" "127.0.0.1:9/nothing/torch_stable.html" "$TMP/err"
done_testing
