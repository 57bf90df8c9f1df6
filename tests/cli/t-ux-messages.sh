#!/usr/bin/env bash
# tests/cli/t-ux-messages.sh: messages and quiet: what -q means for a dry run,
# messages that say what happened (a version given up, a constraint that chose a version), options
# before the command word, --json everywhere, the headers and notes that name the right things.
. "$(dirname "$0")/../lib.sh"
make_sample
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"
FL=$FINDLINKS

# --- -q: a dry run prints nothing on success (as pip's and uv's -q); --json still prints ---------
expect_exit 0 "-q --dry-run" wp -q torch==1.8.0 $T --index "$FL" --dry-run
expect_exit 0 "nothing on stdout" test ! -s "$TMP/out"
expect_exit 0 "nothing on stderr" test ! -s "$TMP/err"
expect_exit 0 "-q at the end, with deps" wp torch torchvision $T --index "$FL" --dry-run -q
expect_exit 0 "still nothing on stdout" test ! -s "$TMP/out"
expect_exit 0 "--quiet with --explain" wp --quiet torch==1.8.0 $T --index "$FL" -n --explain
expect_exit 0 "nothing either" test ! -s "$TMP/out"
expect_exit 0 "-q --dry-run --json still prints the plan" wp -q torch==1.8.0 $T --index "$FL" --dry-run --json
expect_json "$TMP/out" "j['picks'][0]['variant']" cu111
expect_exit 0 "mirror -q --dry-run" wp mirror "$TMP/m" torch==1.8.0 $T --index "$FL" --dry-run -q
expect_exit 0 "mirror: nothing on stdout" test ! -s "$TMP/out"
expect_exit 1 "-q: a failure still says why" wp -q torch==1.8.0 --cuda 9.2 --python 3.8 --platform linux_x86_64 --index "$FL" --dry-run
expect_grep "the error" "torch 1\.8\.0 has" "$TMP/err"
expect_exit 0 "without -q the plan is there" wp torch==1.8.0 $T --index "$FL" --dry-run
expect_grep "the plan" "^  torch 1\.8\.0\+cu111" "$TMP/out"

# --- --explain: a version the solver gave up is not "outside ''" --------------------------------
expect_exit 0 "torch given up at 1.8.0 for torchvision 0.8.2" wp torch torchvision==0.8.2 $T --index "$FL" --dry-run --explain
expect_no_grep "no empty specifier" "outside ''" "$TMP/out"
expect_grep "says it was given up, and why" "torch-1\.8\.0\+cu111-cp38-cp38-linux_x86_64\.whl: 1\.8\.0\+cu111 was tried and given up: what the rest of the set needs rules it out" "$TMP/out"
expect_exit 0 "with a specifier of the user's too" wp 'torch>=1.0' torchvision==0.8.2 $T --index "$FL" --dry-run --explain
expect_no_grep "1.8.0 is not outside '>=1.0'" "1\.8\.0[^ ]* is outside '>=1\.0'" "$TMP/out"
expect_grep "given up instead" "1\.8\.0\+cpu was tried and given up" "$TMP/out"
expect_exit 0 "--json --explain" wp torch torchvision==0.8.2 $T --index "$FL" --dry-run --explain --json
expect_json "$TMP/out" "[r['why'] for p in j['picks'] for r in p.get('rejected', []) if \"''\" in r['why']]" "[]"

# --- the why-line says when another package's requirement chose the version ---------------------
expect_exit 0 "torchvision 0.8.2 holds torch to 1.7.1" wp torchvision==0.8.2 torch $T --index "$FL" --dry-run
expect_grep "names the package and its specifier" "why: torch 1\.7\.1 .*torchvision 0\.8\.2 requires torch==1\.7\.1, which rules out newer versions" "$TMP/out"
expect_exit 0 "asked in the other order" wp torch torchvision==0.8.2 $T --index "$FL" --dry-run
expect_grep "the same" "why: torch 1\.7\.1 .*torchvision 0\.8\.2 requires torch==1\.7\.1" "$TMP/out"
expect_no_grep "1.8.0 was not given up for its own dependencies" "1\.8\.0 \(its dependencies cannot be met\)" "$TMP/out"
printf 'torch<1.8\n' >"$TMP/cons.txt"
expect_exit 0 "a constraints file holds torch" wp torch $T --index "$FL" --dry-run -c "$TMP/cons.txt"
expect_grep "the constraints are named" "why: torch 1\.7\.1 .*the constraints \(-c\) hold torch to <1\.8, which rules out newer versions" "$TMP/out"
expect_exit 0 "the newest, held by nothing" wp torch $T --index "$FL" --dry-run
expect_no_grep "nothing said of a requirement" "rules out newer versions" "$TMP/out"
expect_exit 0 "torchvision 0.9.0 needs torch 1.8.0, the newest anyway" wp torchvision==0.9.0 $T --index "$FL" --dry-run
expect_no_grep "not when no newer version was ruled out" "rules out newer versions" "$TMP/out"

# --- options before the command word do not hide the command ----------------------------------
# nothing here may reach a network: no index is given and the catalog is empty, so a command word
# read as a package would be looked up at download.pytorch.org (and fail, exit 3, naming it)
OFFNET="env WHEELPICK_INDEX=http://127.0.0.1:9/nowhere/"
expect_exit 0 "--json detect" $OFFNET "$WHEELPICK" --json detect
expect_json "$TMP/out" "'gpu_hardware' in j" True
expect_exit 0 "--json -v detect" $OFFNET "$WHEELPICK" --json -v detect
expect_json "$TMP/out" "'cuda' in j" True
expect_exit 2 "--dry-run list torch: list has no --dry-run, said as a usage error" $OFFNET "$WHEELPICK" --dry-run list torch
expect_grep "names the option and whose it is" "unknown option '--dry-run' for list" "$TMP/err"
expect_no_grep "no network" "127\.0\.0\.1:9|download\.pytorch" "$TMP/err"
expect_exit 0 "--catalog, --json before list" wp --json --index "$FL" list torch
expect_json "$TMP/out" "j[0]['version'].startswith('1.')" True
expect_exit 0 "--python X (an option with a value) before tags" wp --python 3.8 --platform linux_x86_64 tags
expect_grep "tags for 3.8" "^cp38-cp38-linux_x86_64$" "$TMP/out"
expect_exit 0 "an option's value that names a command is a value" wp --index "$FL" --dry-run torch==1.8.0 $T
expect_grep "still a pick" "torch 1\.8\.0\+cu111" "$TMP/out"
expect_exit 0 "options before a package still pick it" wp --cuda 11.2 --python 3.8 --platform linux_x86_64 torch==1.8.0 --index "$FL" --dry-run
expect_grep "picked" "torch 1\.8\.0\+cu111" "$TMP/out"
expect_exit 0 "--json matrix" wp --json matrix torch==1.8.0 $T --index "$FL" --no-deps
expect_json "$TMP/out" "j['rows'][0]['picks'][0]['variant']" cu111

# --- --json for install, uninstall, update, trust and --version ---------------------------------
SCHEMA_PY=
for p in "$PYTHON" /usr/bin/python3; do "$p" -c 'import jsonschema' 2>/dev/null && { SCHEMA_PY=$p; break; }; done
[ -n "$SCHEMA_PY" ] || fail "no python3 with jsonschema (make deps installs python3-jsonschema)"
# schema_ok DESC SCHEMA FILE: FILE is one JSON document that docs/schema/SCHEMA.schema.json accepts
schema_ok() {
	if [ -n "$SCHEMA_PY" ] && "$SCHEMA_PY" "$ROOT/tests/cli/json_schema_check.py" "$ROOT/docs/schema/$2.schema.json" "$3" >"$TMP/schema.log" 2>&1
	then pass "$1"; else fail "$1 (docs/schema/$2.schema.json)"; sed 's/^/      | /' "$TMP/schema.log" | head -20 >&2; fi
}
expect_exit 0 "--version --json" wp --version --json
expect_json "$TMP/out" "(j['name'], j['version'] == '$("$WHEELPICK" --version | cut -d' ' -f2)')" "('wheelpick', True)"
expect_exit 0 "--json --version" wp --json --version
expect_json "$TMP/out" "j['name']" wheelpick
schema_ok "its schema" version "$TMP/out"
expect_exit 0 "update --json" wp update --json --index "$FL" --force
expect_json "$TMP/out" "(j['sources'], any('torch_stable.html' in m for m in j['messages']))" "(['$FL'], True)"
schema_ok "update's schema" update "$TMP/out"
expect_exit 3 "update --json, a source that cannot be read" wp update --json --index "file://$TMP/nope.html"
expect_json "$TMP/out" "j['error']['exit']" 3
expect_exit 0 "trust --json" wp trust --json
expect_json "$TMP/out" "j['accepted']" 0
schema_ok "trust's schema" trust "$TMP/out"
expect_exit 0 "a wheelhouse to install" wp numpy pillow --cuda cpu --python 3.11 --platform linux_x86_64 --index "file://$SAMPLE/simple/" -d "$TMP/wh" -q
expect_exit 0 "install --json" wp install "$TMP/wh" --target "$TMP/tgt" --json
expect_json "$TMP/out" "sorted((p['name'], p['version']) for p in j['installed'])" "[('numpy', '1.24.0'), ('pillow', '9.0.0')]"
expect_json "$TMP/out" "(j['dry_run'], j['files'] > 0)" "(False, True)"
schema_ok "install's schema" install "$TMP/out"
expect_exit 0 "install --dry-run --json" wp install "$TMP/wh" --target "$TMP/tgt2" --json --dry-run
expect_json "$TMP/out" "(j['dry_run'], len(j['would_install']))" "(True, 2)"
schema_ok "the dry run's too" install "$TMP/out"
expect_exit 0 "uninstall --json" wp uninstall numpy --target "$TMP/tgt" --json
expect_json "$TMP/out" "j['uninstalled']" "[{'name': 'numpy', 'version': '1.24.0'}]"
schema_ok "uninstall's schema" uninstall "$TMP/out"
expect_exit 1 "uninstall --json of what is not there" wp uninstall nosuchproject --target "$TMP/tgt" --json
expect_json "$TMP/out" "j['error']['exit'] == 1 and 'nosuchproject' in j['error']['message']" True
expect_exit 2 "install --json, no source" wp install --json
expect_json "$TMP/out" "j['error']['exit']" 2

# --- did you mean: the tag one edit away first ----------------------------------------------------
expect_exit 2 "--platform manylinux_2_28_x86" wp torch --platform manylinux_2_28_x86 --cuda cpu --python 3.8 -n
expect_grep "x86_64 first, i686 after" "did you mean 'manylinux_2_28_x86_64', 'manylinux_2_28_i686'" "$TMP/err"
expect_exit 2 "--platform manylinux2014_x86" wp torch --platform manylinux2014_x86 --cuda cpu --python 3.8 -n
expect_grep "its own family completed first" "did you mean 'manylinux2014_x86_64'" "$TMP/err"
expect_exit 2 "--platform linux" wp torch --platform linux --cuda cpu --python 3.8 -n
expect_grep "a guess keeps its order" "did you mean 'manylinux_2_28_x86_64', 'manylinux_2_28_aarch64'" "$TMP/err"

# --- a pylock for another Python or platform names the target and what the lock requires ---------
expect_exit 0 "a lock for Python 3.8 on Linux" wp lock numpy --cuda cpu --python 3.8 --platform linux_x86_64 --index "file://$SAMPLE/simple/" -o "$TMP/pylock.toml"
expect_exit 1 "picked for Python 3.11" wp pick --lock "$TMP/pylock.toml" --cuda cpu --python 3.11 --platform linux_x86_64 -n
expect_no_grep "no doubled colon" ": :" "$TMP/err"
expect_grep "the target's Python and platform, and the lock's environment" "for target 1 \(CPU, Python 3\.11, linux_x86_64\): the target satisfies none of the environments the lock was made for: 'python_version == \"3\.8\" and sys_platform == \"linux\"" "$TMP/err"
expect_exit 1 "picked for Windows, second of two targets" wp pick --lock "$TMP/pylock.toml" --cuda cpu --python 3.8 --platform linux_x86_64 --platform win_amd64 -n
expect_grep "target 2 named" "for target 2 \(CPU, Python 3\.8, win_amd64\): the target satisfies none" "$TMP/err"
expect_exit 1 "--json says the same" wp pick --lock "$TMP/pylock.toml" --cuda cpu --python 3.11 --platform linux_x86_64 -n --json
expect_json "$TMP/out" "('Python 3.11' in j['error']['message'], ': :' in j['error']['message'])" "(True, False)"

# --- --offline with an empty catalog: nothing was fetched, so no page is said to be missing ------
OC="--catalog $TMP/empty.sqlite3"
expect_exit 1 "--offline, an --index root, empty catalog" wp $OC torch --offline $T -n --index "file://$SAMPLE/simple/"
expect_no_grep "no page is said to be missing" "no page at|is on none of the indexes" "$TMP/err"
expect_grep "says the catalog has nothing and --offline forbids fetching" "the catalog has nothing for 'torch', and --offline forbids fetching its pages; run 'wheelpick update --index file://$SAMPLE/simple/' online first" "$TMP/err"
expect_exit 1 "--offline with a find-links page" wp $OC torchvision --offline $T -n -f "$FL"
expect_grep "the same" "the catalog has nothing for 'torchvision', and --offline forbids fetching" "$TMP/err"
expect_no_grep "not 'on none of the pages given'" "none of the pages given" "$TMP/err"
expect_exit 1 "--offline, no index at all" wp $OC torch --offline $T -n
expect_grep "run update online" "--offline forbids fetching its pages; run 'wheelpick update' online first" "$TMP/err"
expect_exit 1 "lock --offline" wp $OC lock numpy --offline $T --index "file://$SAMPLE/simple/"
expect_grep "lock says it too" "the catalog has nothing for 'numpy', and --offline forbids" "$TMP/err"
expect_exit 0 "matrix --offline, empty catalog" wp $OC matrix torch --offline $T --index "file://$SAMPLE/simple/"
expect_grep "the row says the catalog has nothing and --offline forbids fetching" "nothing: the catalog has nothing for 'torch', and --offline forbids fetching its pages; run 'wheelpick update --index file://$SAMPLE/simple/' online first" "$TMP/out"
expect_no_grep "not the old 'add its index' advice" "has no files for|add its index with" "$TMP/out"
expect_exit 0 "matrix --offline --json" wp $OC matrix torch --offline $T --index "file://$SAMPLE/simple/" --json
expect_json "$TMP/out" "'--offline forbids fetching' in j['rows'][0]['error']['message']" True
expect_exit 1 "pick --conda --offline, empty catalog" wp $OC pick --conda pytorch --offline -c conda-forge --cuda cpu -n
expect_grep "the conda job says it too" "the catalog has nothing for 'pytorch' from the channels given, and --offline forbids fetching their repodata; run 'wheelpick update --conda -c conda-forge' online first" "$TMP/err"
expect_no_grep "not 'no channel given has'" "no channel given has" "$TMP/err"
expect_exit 0 "online, the page is read" wp $OC torch==1.8.0 $T -n --index "$FL"
expect_exit 0 "and then --offline picks from the catalog" wp $OC torch==1.8.0 --offline $T -n --index "$FL"

# --- matrix --cuda-compat strict never says a pick relies on minor-version compatibility ----------
D="--driver 450.80.02 --python 3.8 --platform linux_x86_64"
expect_exit 0 "matrix, driver 450.80.02 (CUDA 11.0), minor compat" wp matrix torch==1.8.0 $D --index "$FL" --no-deps
expect_grep "cu111 by minor-version compatibility" "1\.8\.0\+cu111" "$TMP/out"
expect_grep "and says so" "torch: by NVIDIA's minor-version compatibility" "$TMP/out"
expect_exit 0 "the same, --cuda-compat strict" wp matrix torch==1.8.0 $D --index "$FL" --no-deps --cuda-compat strict
expect_grep "cu102: not newer than the driver's CUDA" "1\.8\.0 \(cu102\)" "$TMP/out"
expect_no_grep "no talk of minor-version compatibility" "minor-version" "$TMP/out"
expect_exit 0 "strict, two packages and two targets" wp matrix torch==1.8.0 torchvision==0.9.0 --cuda 11.2 --driver 450.80.02 --python 3.8 --platform linux_x86_64 --index "$FL" --cuda-compat strict
expect_no_grep "none of them" "minor-version" "$TMP/out"
expect_exit 0 "WHEELPICK_CUDA_COMPAT=strict" env WHEELPICK_CUDA_COMPAT=strict "$WHEELPICK" matrix torch==1.8.0 $D --index "$FL" --no-deps
expect_no_grep "the variable too" "minor-version" "$TMP/out"
expect_exit 0 "a CUDA 11.2 driver takes cu111 on its own" wp matrix torch==1.8.0 $T --index "$FL" --no-deps
expect_no_grep "not by compatibility" "minor-version" "$TMP/out"

# --- update --index ROOT of a company index that holds only dependencies (no torch) -------------
mkdir -p "$TMP/deps"
cp -r "$SAMPLE/simple/numpy" "$SAMPLE/simple/pillow" "$TMP/deps/"
printf '<!DOCTYPE html><html><body><a href="numpy/">numpy</a><a href="pillow/">pillow</a></body></html>\n' >"$TMP/deps/index.html"
printf '{}' >"$TMP/script.json"
start_server "$TMP/deps" "$TMP/script.json"
DC="--catalog $TMP/deps.sqlite3"
for root in "file://$TMP/deps/" "$BASE/"; do
	rm -f "$TMP/deps.sqlite3"
	expect_exit 0 "update --index $root (no torch there)" wp $DC update --index "$root"
	expect_no_grep "torch's pages not asked for" "torch" "$TMP/err"
	expect_grep "what it has is read" "updated ${root}numpy/" "$TMP/err"
	expect_exit 0 "again, the root unchanged" wp $DC update --index "$root"
	expect_no_grep "still no torch pages" "torch" "$TMP/err"
	expect_exit 0 "and once more, --json" wp $DC update --index "$root" --json
	expect_json "$TMP/out" "j['sources']" "['$root']"
	expect_exit 0 "list numpy from the catalog" wp $DC list numpy
	expect_grep "numpy is there" "1\.24\.0" "$TMP/out"
done
expect_exit 3 "--project torch asked of that root: an answer that it has none" wp $DC update --index "$BASE/" -p torch
expect_grep "names the page" "torch/" "$TMP/err"
rm -f "$TMP/s.sqlite3"
expect_exit 0 "a root with torch: the defaults, as before" wp --catalog "$TMP/s.sqlite3" update --index "file://$SAMPLE/simple/"
expect_grep "torch read" "updated file://$SAMPLE/simple/torch/" "$TMP/err"
expect_no_grep "not every project it lists" "simple/numpy/" "$TMP/err"
expect_exit 0 "a pick reads numpy's page under that root" wp --catalog "$TMP/s.sqlite3" torchvision==0.9.0 $T -n --index "file://$SAMPLE/simple/"
expect_exit 0 "again, unchanged: its torch pages followed, no failure" wp --catalog "$TMP/s.sqlite3" -v update --index "file://$SAMPLE/simple/"
expect_grep "torch's page asked again" "unchanged file://$SAMPLE/simple/torch/" "$TMP/err"
expect_no_grep "not every page a pick read under it" "simple/numpy/" "$TMP/err"
rm -f "$TMP/deps.sqlite3"
expect_exit 0 "a root of dependencies, read" wp $DC update --index "file://$TMP/deps/"
expect_exit 0 "and again, -v" wp $DC -v update --index "file://$TMP/deps/"
expect_grep "its pages followed though the root is unchanged" "unchanged file://$TMP/deps/numpy/" "$TMP/err"

# --- the plan's header names the sources the picks came from --------------------------------------
HC="--catalog $TMP/hdr.sqlite3"
expect_exit 0 "update from a file:// page" wp $HC update --index "$FL"
expect_exit 0 "a pick with no index given: the catalog's page, not the default" wp $HC torch==1.8.0 $T -n
expect_grep "names the file:// page" "^index: $FL \(from the catalog, read before\)$" "$TMP/out"
expect_no_grep "not the default" "download\.pytorch\.org" "$TMP/out"
expect_exit 0 "--json too" wp $HC torch==1.8.0 $T -n --json
expect_json "$TMP/out" "(j['index']['urls'], j['index']['from'])" "(['$FL'], 'the catalog, read before')"
printf -- '--index-url %s\ntorch==1.8.0\n' "$FL" >"$TMP/req-idx.txt"
expect_exit 0 "a requirement file's --index-url" wp -r "$TMP/req-idx.txt" $T -n
expect_grep "named with where it came from" "^index: $FL \(from the requirement file's index options\)$" "$TMP/out"
expect_exit 0 "an --index given: as before" wp torch==1.8.0 $T -n --index "$FL"
expect_grep "the command line's" "^index: $FL \(from the command line\)$" "$TMP/out"
expect_exit 0 "a root given whose pages link the same files another source lists" wp torchvision==0.9.0 $T -n --index "file://$SAMPLE/simple/"
expect_grep "the root in force named" "^index: file://$SAMPLE/simple/ \(from the command line\)$" "$TMP/out"
expect_exit 0 "pick --lock: no index read" wp pick --lock "$TMP/pylock.toml" --cuda cpu --python 3.8 --platform linux_x86_64 -n
expect_grep "says the lock's URLs" "^index: none read \(from $TMP/pylock\.toml: the files are its own URLs\)$" "$TMP/out"
expect_exit 0 "mirror --dry-run names the catalog's page too" wp $HC mirror "$TMP/hm" torch==1.8.0 $T -n
expect_grep "the same header" "^index: $FL \(from the catalog, read before\)$" "$TMP/out"

done_testing
