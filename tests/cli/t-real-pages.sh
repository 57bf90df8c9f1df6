#!/usr/bin/env bash
# tests/cli/t-real-pages.sh: the real PyTorch pages and conda repodata (tests/fixtures/real), crawled whole.
. "$(dirname "$0")/../lib.sh"
D="$REAL_DATA"
need_real pytorch_index/torch_stable_2021-03-12.html pytorch_index/whl_simple_2023-10-13/torch/index.html \
	conda_repodata/rattler_pytorch_linux-64_repodata.json

# torch_stable.html of 2021: 1,498 links; every wheel and sdist becomes a row
expect_exit 0 "crawl the 2021 find-links page" wp update --index "file://$D/pytorch_index/torch_stable_2021-03-12.html"
expect_exit 0 "list torch" wp list torch --json
expect_json "$TMP/out" "len(j)" 777
expect_json "$TMP/out" "len([f for f in j if f['variant']=='cu111'])" "$(grep -o 'href="cu111/torch-[^"]*\.whl"' "$D/pytorch_index/torch_stable_2021-03-12.html" | wc -l)"
# (sqlite3 is in the Makefile's DEB_PKGS: without it this fails, it does not skip)
total=$(sqlite3 "$WHEELPICK_CATALOG" "SELECT count(*) FROM files" 2>&1)
[ "$total" -ge 1490 ] 2>/dev/null && pass "every file link stored ($total)" || fail "every file link stored: '$total', wanted 1490 rows or more"

# the same choice as the resolver cases, through the CLI
expect_exit 0 "11.2 -> cu111" wp torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['where']" "cu111/torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl"
expect_exit 1 "9.2 -> nothing for 1.8.0" wp torch==1.8.0 --cuda 9.2 --python 3.8 --platform linux_x86_64 --dry-run --no-deps
expect_grep "the newest with a cu92 build" "is 1.7.1 \(cu92\)" "$TMP/err"

# the 2023 PEP 503 page: 1,494 links, 1,128 with sha256
export WHEELPICK_CATALOG="$TMP/c2.sqlite3"
expect_exit 0 "crawl the 2023 PEP 503 page" wp update --index "file://$D/pytorch_index/whl_simple_2023-10-13/torch/index.html"
expect_exit 0 "list" wp list torch --json
expect_json "$TMP/out" "len(j)" 1494
expect_json "$TMP/out" "sum(1 for f in j if f['sha256'])" 1128
expect_json "$TMP/out" "all(f['url'].startswith('https://download.pytorch.org/whl/') for f in j)" True

# the pytorch conda channel: every record
export WHEELPICK_CATALOG="$TMP/c3.sqlite3"
expect_exit 0 "crawl conda repodata" wp update --conda --index "file://$D/conda_repodata/rattler_pytorch_linux-64_repodata.json"
n=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(sum(1 for r in j.get("packages",{}).values() if r["name"]=="pytorch") + sum(1 for r in j.get("packages.conda",{}).values() if r["name"]=="pytorch"))' "$D/conda_repodata/rattler_pytorch_linux-64_repodata.json")
expect_exit 0 "list --conda" wp list pytorch --conda --json
expect_json "$TMP/out" "len(j)" "$n"
expect_json "$TMP/out" "any(f['variant']=='cu121' for f in j)" True
expect_json "$TMP/out" "all(f['subdir']=='linux-64' for f in j)" True
done_testing
