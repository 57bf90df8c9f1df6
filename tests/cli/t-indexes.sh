#!/usr/bin/env bash
# tests/cli/t-indexes.sh: index URLs as pip and uv read them (issue 25). A root with or without its
# trailing slash is the same root; a pick asks ROOT/<name>/ for what it needs and never reads a
# root of 200,000 projects; -f pages alone leave no index for dependencies, and the message says
# so; a PEP 503 tree on disk is a root, a folder of wheels a links folder; PIP_INDEX_URL, uv's
# variables and pip.conf are where pip and uv users set their index, and the plan says which was
# used; next: after --dry-run replays the command as given.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/indexes-lib.sh"
make_sample
T=(--cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run)

# a root listing 200,000 projects, the sample's pages and files beside it
BIG="$TMP/big"
mkdir -p "$BIG/simple"
ln -s "$SAMPLE/whl" "$BIG/whl"
for d in "$SAMPLE"/simple/*/; do ln -s "$d" "$BIG/simple/$(basename "$d")"; done
python3 - "$BIG/simple/index.html" "$SAMPLE/simple" <<'EOF'
import os, sys
names = sorted(os.listdir(sys.argv[2])) + ["project-%06d" % i for i in range(200000 - 6)]
with open(sys.argv[1], "w") as f:
    f.write("<!DOCTYPE html><html><body>\n")
    f.writelines('<a href="%s/">%s</a>\n' % (n, n) for n in names if n != "index.html")
    f.write("</body></html>\n")
EOF
ln -s "$BIG" "$SAMPLE/big"

P=$(free_port)
idx_nginx "    listen 127.0.0.1:$P;
    root $SAMPLE;"
wait_port "$P" || fail "nginx did not start: $(cat "$TMP/ngx/stderr" "$TMP/ngx/logs/error.log" 2>/dev/null)"
H="http://127.0.0.1:$P"

# --- a root with and without its slash: the same root, never read itself ---
expect_exit 0 "--index ROOT without the slash (pip's habit)" wp torchvision==0.9.0 "${T[@]}" --index "$H/simple" --json
cp "$TMP/out" "$TMP/noslash.json"
expect_json "$TMP/noslash.json" "sorted(p['project'] for p in j['picks'])" \
	"['numpy', 'pillow', 'torch', 'torchvision', 'typing-extensions']"
expect_json "$TMP/noslash.json" "j['index']" "{'from': 'the command line', 'urls': ['$H/simple/'], 'sources': [{'url': '$H/simple/', 'from': 'the command line'}]}"
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', wanted '$3'"; fi; }
expect_eq "the root page was never asked for" "$(asked "$P" /simple/)" 0
expect_eq "nor its slashless form" "$(asked "$P" /simple)" 0
expect_eq "the project's page was, once" "$(asked "$P" /simple/torchvision/)" 1
expect_eq "and a dependency's page" "$(asked "$P" /simple/numpy/)" 1
# (a HEAD for a wheel's size, for the plan's total, is no page asked for)
n=$(grep -vc '"HEAD ' "$NGX_LOG")
expect_exit 0 "the same root with the slash" wp torchvision==0.9.0 "${T[@]}" --index "$H/simple/"
expect_eq "nothing asked again (the same root, fresh pages)" "$(grep -vc '"HEAD ' "$NGX_LOG")" "$n"
expect_eq "one source row for the root's project page" \
	"$(sqlite3 "$WHEELPICK_CATALOG" "SELECT count(*) FROM sources WHERE url LIKE '%/simple/torchvision%'")" 1
expect_grep "the plan's header names the root and where it came from" "^index: $H/simple/ \(from the command line\)" "$TMP/out"
expect_exit 0 "-i / --index-url, pip's spelling" wp torchvision==0.9.0 "${T[@]}" -i "$H/simple"
# a dependency's page older than the freshness limit is asked for again, conditionally
sqlite3 "$WHEELPICK_CATALOG" "UPDATE sources SET fetched_at = fetched_at - 7200 WHERE url = '$H/simple/numpy/'"
expect_exit 0 "a pick two hours after numpy's page was read" wp torchvision==0.9.0 "${T[@]}" --index "$H/simple"
expect_eq "numpy's page asked again" "$(asked "$P" /simple/numpy/)" 2
expect_grep "conditionally: nginx says not modified" "^$P \"GET /simple/numpy/ HTTP/1.1\" 304" "$NGX_LOG"
expect_eq "and the fresh ones not" "$(asked "$P" /simple/pillow/)" 1

# --- a root of 200,000 projects: two picks, the root read at most once (here: never) ---
export WHEELPICK_CATALOG="$TMP/big.sqlite3"
expect_exit 0 "first pick against the big root" wp torchvision==0.9.0 "${T[@]}" --index "$H/big/simple"
expect_exit 0 "second pick against it (--refresh)" wp torchvision==0.9.0 "${T[@]}" --index "$H/big/simple/" --refresh
expect_eq "the 200,000-project root was read 0 times" "$(asked "$P" /big/simple/)" 0
expect_eq "torchvision's page twice (the second conditional)" "$(asked "$P" /big/simple/torchvision/)" 2
expect_exit 1 "a project it does not have" wp no-such-project "${T[@]}" --index "$H/big/simple/"
expect_grep "a 404 for its page is 'no such project', not an error" \
	"'no-such-project' is on none of the indexes in play \(no page at $H/big/simple/no-such-project/\)" "$TMP/err"
expect_no_grep "no HTTP 404 failure" "HTTP 404" "$TMP/err"
expect_eq "the root read once at most, for did-you-mean" "$(( $(asked "$P" /big/simple/) <= 1 ))" 1
r=$(asked "$P" /big/simple/)
expect_exit 1 "another name it does not have" wp torchvisoin "${T[@]}" --index "$H/big/simple/"
expect_grep "did you mean, from the root's list" "did you mean 'torchvision'" "$TMP/err"
expect_eq "the root, stored like any page, not read again inside the hour" "$(asked "$P" /big/simple/)" "$r"
sqlite3 "$WHEELPICK_CATALOG" "UPDATE sources SET fetched_at = fetched_at - 7200 WHERE url = '$H/big/simple/'"
expect_exit 1 "two hours later" wp torchvisoin "${T[@]}" --index "$H/big/simple/"
expect_grep "still a did you mean" "did you mean 'torchvision'" "$TMP/err"
expect_grep "the root asked conditionally: 304" "^$P \"GET /big/simple/ HTTP/1.1\" 304" "$NGX_LOG"

# --- -f pages alone: no index to ask for dependencies, and the message says so ---
export WHEELPICK_CATALOG="$TMP/fl.sqlite3"
grep -E 'torchvision-0\.9\.0' "$SAMPLE/whl/torch_stable.html" >"$SAMPLE/whl/tv-only.html"
expect_exit 1 "-f with a page that lists only torchvision" wp torchvision==0.9.0 "${T[@]}" -f "$H/whl/tv-only.html"
expect_grep "says only --find-links pages are in play" "only --find-links pages \($H/whl/tv-only.html\)" "$TMP/err"
expect_grep "and how to add an index" "add the index that has it with --index-url URL or --extra-index-url URL" "$TMP/err"
expect_exit 0 "-f plus --extra-index-url: the dependencies come from the root" \
	wp torchvision==0.9.0 "${T[@]}" -f "$H/whl/tv-only.html" -i "$H/simple"
expect_exit 0 "--no-index keeps only -f (a page that has it all)" \
	wp torch==1.8.0 "${T[@]}" --no-deps --no-index -f "$H/whl/torch_stable.html" -i "http://127.0.0.1:9/simple/"

printf -- '--index-url http://127.0.0.1:9/simple/\ntorch==1.8.0\n' >"$TMP/noidx.txt"
expect_exit 0 "--no-index also drops a requirements file's --index-url" \
	wp -r "$TMP/noidx.txt" "${T[@]}" --no-deps --no-index -f "$H/whl/torch_stable.html"

# --- trees and folders on disk ---
export WHEELPICK_CATALOG="$TMP/disk.sqlite3"
expect_exit 0 "a PEP 503 tree on disk, as a path without the slash" wp torchvision==0.9.0 "${T[@]}" --index "$SAMPLE/simple"
expect_grep "read as a root" "^index: file://$SAMPLE/simple/ " "$TMP/out"
expect_exit 0 "a folder whose simple/ is a tree (a mirror's top)" wp torchvision==0.9.0 "${T[@]}" --index "file://$SAMPLE"
expect_grep "its simple/ is the root" "^index: file://$SAMPLE/simple/ " "$TMP/out"
expect_exit 0 "a folder of wheels with a slash stays a links folder" \
	wp torch==1.8.0 "${T[@]}" --no-deps --index "$SAMPLE/whl/cu111/"
expect_grep "torch from the folder" "cu111/torch-1.8.0\+cu111-cp38-cp38-linux_x86_64.whl|torch-1.8.0\+cu111-cp38" "$TMP/out"
expect_exit 0 "a mirror written by wheelpick is an index root" \
	wp mirror "$TMP/mir" torchvision==0.9.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --index "$H/simple"
export WHEELPICK_CATALOG="$TMP/frommirror.sqlite3"
expect_exit 0 "pick from file://MIRROR/simple/" wp torchvision==0.9.0 "${T[@]}" --index "file://$TMP/mir/simple/"
expect_grep "torch found through the mirror's pages" "torch 1\.8\.0\+cu111" "$TMP/out"

# --- where the index comes from: pip's and uv's configuration ---
export WHEELPICK_CATALOG="$TMP/conf.sqlite3"
expect_exit 0 "PIP_INDEX_URL" env PIP_INDEX_URL="$H/simple" "$WHEELPICK" torchvision==0.9.0 "${T[@]}"
expect_grep "the header says PIP_INDEX_URL" "^index: $H/simple/ \(from PIP_INDEX_URL\)" "$TMP/out"
printf '[global]\nindex-url = http://127.0.0.1:9/dead/\ntimeout = 20\n[download]\nindex-url = %s/simple\n' "$H" >"$TMP/pip.conf"
expect_exit 0 "pip.conf ([download] over [global])" env PIP_CONFIG_FILE="$TMP/pip.conf" "$WHEELPICK" -v torchvision==0.9.0 "${T[@]}"
expect_grep "the header names the file" "^index: $H/simple/ \(from pip.conf $TMP/pip.conf\)" "$TMP/out"
expect_grep "-v says it too" "index: $H/simple/ \(from pip.conf $TMP/pip.conf\)" "$TMP/err"
expect_exit 0 "PIP_INDEX_URL before pip.conf" env PIP_CONFIG_FILE="$TMP/pip.conf" PIP_INDEX_URL="$H/simple/" \
	"$WHEELPICK" torchvision==0.9.0 "${T[@]}"
expect_grep "from PIP_INDEX_URL" "\(from PIP_INDEX_URL\)" "$TMP/out"
expect_exit 0 "UV_DEFAULT_INDEX before PIP_INDEX_URL" env UV_DEFAULT_INDEX="$H/simple" PIP_INDEX_URL="http://127.0.0.1:9/x/" \
	"$WHEELPICK" torchvision==0.9.0 "${T[@]}"
expect_grep "from UV_DEFAULT_INDEX" "^index: $H/simple/ \(from UV_DEFAULT_INDEX\)" "$TMP/out"
# lock, mirror --dry-run and their --json say the index too
expect_exit 0 "lock with PIP_INDEX_URL" env PIP_INDEX_URL="$H/simple" "$WHEELPICK" lock torchvision==0.9.0 "${T[@]:0:6}" \
	-o "$TMP/pylock.toml"
expect_grep "lock's header says PIP_INDEX_URL" "^index: $H/simple/ \(from PIP_INDEX_URL\)" "$TMP/out"
expect_exit 0 "mirror --dry-run --json with PIP_INDEX_URL" env PIP_INDEX_URL="$H/simple" "$WHEELPICK" mirror "$TMP/m-dry" \
	torchvision==0.9.0 "${T[@]}" --dry-run --json
expect_json "$TMP/out" 'j["index"]["from"]' "PIP_INDEX_URL"
expect_exit 0 "the command line before all of them" env PIP_INDEX_URL="http://127.0.0.1:9/x/" \
	"$WHEELPICK" torchvision==0.9.0 "${T[@]}" --index "$H/simple"
expect_exit 0 "--isolated ignores pip's files and variables" env PIP_CONFIG_FILE="$TMP/pip.conf" \
	PIP_INDEX_URL="http://127.0.0.1:9/x/" "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --isolated --offline
expect_grep "what the picks came from, said (issue 36: not the default, which was not read)" "^index: $H/simple/ \(from the catalog, read before\)$" "$TMP/out"
printf '[global]\ntimeout = soon\n' >"$TMP/bad.conf"
expect_exit 2 "a pip timeout that is no number is a usage error" env PIP_CONFIG_FILE="$TMP/bad.conf" \
	"$WHEELPICK" torchvision==0.9.0 "${T[@]}" --index "$H/simple"
expect_grep "naming the file" "timeout 'soon' \(pip.conf $TMP/bad.conf\)" "$TMP/err"
printf '[global]\ndefault-timeout = later\n' >"$TMP/bad2.conf"
expect_exit 2 "pip's other name for it, default-timeout, is read too" env PIP_CONFIG_FILE="$TMP/bad2.conf" \
	"$WHEELPICK" torchvision==0.9.0 "${T[@]}" --index "$H/simple"
expect_exit 2 "and PIP_DEFAULT_TIMEOUT" env PIP_DEFAULT_TIMEOUT=never "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --index "$H/simple"
expect_grep "naming the variable" "timeout 'never' \(PIP_DEFAULT_TIMEOUT\)" "$TMP/err"

# update reads the root (a whole-index listing) and stores it like any page
export WHEELPICK_CATALOG="$TMP/update.sqlite3"
expect_exit 0 "update with PIP_INDEX_URL" env PIP_INDEX_URL="$H/simple" "$WHEELPICK" update --project torch
expect_eq "the root stored as a source of kind root, with its time" \
	"$(sqlite3 "$WHEELPICK_CATALOG" "SELECT kind, fetched_at > 0 FROM sources WHERE url = '$H/simple/'")" "root|1"
expect_eq "its project followed" "$(sqlite3 "$WHEELPICK_CATALOG" "SELECT count(*) FROM sources WHERE url = '$H/simple/torch/'")" 1
n=$(asked "$P" /simple/torch/)
expect_exit 0 "update again: the root unchanged, its project still followed" env PIP_INDEX_URL="$H/simple" \
	"$WHEELPICK" update --project torch
expect_eq "torch's page asked again" "$(asked "$P" /simple/torch/)" "$((n + 1))"

# --- next: replays the command as given, without --dry-run ---
expect_exit 0 "a dry run with --gpu, --pre and -d" wp torchvision==0.9.0 --cuda 11.2 --gpu sm_86 --python 3.8 \
	--platform linux_x86_64 --pre -d "$TMP/my wheels" --index "$H/simple" --dry-run
expect_grep "next: is the argv without --dry-run, quoted" \
	"^next: wheelpick 'torchvision==0.9.0' --cuda 11.2 --gpu sm_86 --python 3.8 --platform linux_x86_64 --pre -d '$TMP/my wheels' --index $H/simple\$" "$TMP/out"
done_testing
