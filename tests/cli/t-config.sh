#!/usr/bin/env bash
# tests/cli/t-config.sh: configuration merged exactly as pip merges it, checked against pip itself
# (python3 -m pip, same machine, same fake HOME and variables): 'pip config list' against
# 'wheelpick config list', and pip download's "Looking in indexes"/"Looking in links" lines against
# the ones a pick says with -v, for combinations of files, variables and flags; then uv's documented
# rules (UV_INDEX, UV_DEFAULT_INDEX, uv.toml, UV_NO_CONFIG), and an index that is not needed and
# cannot be reached failing nothing (issue 37).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/indexes-lib.sh"
make_sample
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', wanted '$3'"; fi; }

D=http://127.0.0.1:9   # nothing listens there: pip fails at once after its "Looking in" line
FAKE="$TMP/home"
GLOBAL="$TMP/xdg"       # $XDG_CONFIG_DIRS: pip's (and uv's) global files, without touching /etc
reset_files() { rm -rf "$FAKE" "$GLOBAL" "$TMP/envconf"; mkdir -p "$FAKE/.config/pip" "$FAKE/.pip" "$GLOBAL/pip"; }
# pip's PyPI stands where wheelpick's default stands
DEFAULT="https:\/\/download.pytorch.org\/whl\/torch_stable.html, https:\/\/download.pytorch.org\/whl\/"

# case NAME [VAR=VALUE]... [-- FLAG...]: the same environment and flags for both tools
case_() {
	local name=$1; shift
	local vars=() flags=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
	[ "${1:-}" = "--" ] && shift
	flags=("$@")
	local base=(env -i "PATH=$PATH" "HOME=$FAKE" "XDG_CONFIG_DIRS=$GLOBAL" "LANG=C.UTF-8" "UV_NO_CONFIG=1" "${vars[@]}")
	# pip config list (credentials redacted as pip redacts them in its log lines)
	"${base[@]}" python3 -m pip config list 2>/dev/null |
		sed -E "s#://([^:@/']+):[^@/']*@#://\1:****@#g" | cat >"$TMP/pip.list"
	"${base[@]}" "$WHEELPICK" config list 2>"$TMP/wp.err" | cat >"$TMP/wp.list"
	if diff -u "$TMP/pip.list" "$TMP/wp.list" >"$TMP/diff"; then pass "$name: config list as pip's"; else
		fail "$name: config list differs from pip's"; sed 's/^/      /' "$TMP/diff" >&2; fi
	# pip's "Looking in" lines, and the ones a pick says (its log masks any userinfo as "***")
	"${base[@]}" PIP_RETRIES=0 PIP_DEFAULT_TIMEOUT=1 python3 -m pip download -v --no-deps torch -d "$TMP/dl" \
		"${flags[@]}" 2>&1 | grep -o '^Looking in .*' | sed "s/https:\/\/pypi.org\/simple/$DEFAULT/" |
		sed -E 's#://[^/@ ,]+@#://***@#g' >"$TMP/pip.look"
	"${base[@]}" "$WHEELPICK" -v --catalog "$TMP/c.db" torch --cuda 12.1 --python 3.11 --platform linux_x86_64 \
		--dry-run --offline "${flags[@]}" 2>&1 | grep -o 'Looking in .*' >"$TMP/wp.look"
	if diff -u "$TMP/pip.look" "$TMP/wp.look" >"$TMP/diff"; then pass "$name: indexes as pip looks in them"; else
		fail "$name: 'Looking in' differs from pip's"; sed 's/^/      /' "$TMP/diff" >&2; fi
}

reset_files
printf '[global]\nindex-url = %s/priv/simple\n' "$D" >"$FAKE/.config/pip/pip.conf"
case_ "user file alone"
# issue 37, case a: pip.conf's index-url stays, PIP_EXTRA_INDEX_URL adds to it
printf '[global]\nindex-url = http://alice:s3cret@127.0.0.1:9/priv/simple\n' >"$FAKE/.config/pip/pip.conf"
case_ "pip.conf index-url with credentials + PIP_EXTRA_INDEX_URL" "PIP_EXTRA_INDEX_URL=$D/whl/"
# issue 37, case b: a machine-wide PIP_FIND_LINKS does not hide pip.conf's index
case_ "pip.conf index-url + PIP_FIND_LINKS" "PIP_FIND_LINKS=$D/links/"
case_ "PIP_INDEX_URL replaces the file's index-url" "PIP_INDEX_URL=$D/env/simple"
case_ "--extra-index-url adds after PIP_EXTRA_INDEX_URL" "PIP_EXTRA_INDEX_URL=$D/a/" -- --extra-index-url "$D/b/"
case_ "-i replaces the file's index-url" -- -i "$D/flag/simple"
case_ "-f adds to PIP_FIND_LINKS" "PIP_FIND_LINKS=$D/l1/" -- -f "$D/l2/"

reset_files
printf '[global]\nindex-url = %s/global/simple\n' "$D" >"$GLOBAL/pip/pip.conf"
case_ "global file alone"
printf '[global]\nindex-url = %s/user/simple\n' "$D" >"$FAKE/.config/pip/pip.conf"
case_ "the user's file over the global one"
printf '[download]\nindex-url = %s/global-download/simple\n' "$D" >>"$GLOBAL/pip/pip.conf"
case_ "an earlier file's [download] over a later file's [global]"
printf '[install]\nindex-url = %s/install/simple\n' "$D" >>"$FAKE/.config/pip/pip.conf"
case_ "[install] is not read by a download"

reset_files
printf '[global]\nindex-url = %s/legacy/simple\nextra-index-url = %s/legacy-extra/\n' "$D" "$D" >"$FAKE/.pip/pip.conf"
printf '[global]\nindex-url = %s/modern/simple\n' "$D" >"$FAKE/.config/pip/pip.conf"
case_ "~/.config/pip over the legacy ~/.pip, key by key"
mkdir -p "$TMP/xch/pip"
printf '[global]\nindex-url = %s/xdg-home/simple\n' "$D" >"$TMP/xch/pip/pip.conf"
case_ "XDG_CONFIG_HOME's file" "XDG_CONFIG_HOME=$TMP/xch"

printf '[global]\nextra-index-url = %s/envfile/\n' "$D" >"$TMP/envconf"
case_ "PIP_CONFIG_FILE that exists hides the user's files" "PIP_CONFIG_FILE=$TMP/envconf"
case_ "PIP_CONFIG_FILE that does not exist hides nothing" "PIP_CONFIG_FILE=$TMP/nowhere.conf"
case_ "PIP_CONFIG_FILE=/dev/null reads no file" "PIP_CONFIG_FILE=/dev/null"
case_ "PIP_CONFIG_FILE=/dev/null keeps the variables" "PIP_CONFIG_FILE=/dev/null" "PIP_INDEX_URL=$D/v/simple"

reset_files
printf '# a comment\n[global]\nindex_url: %s/colon/simple\n; another\nextra-index-url =\n    %s/x1/\n    %s/x2/\n' \
	"$D" "$D" "$D" >"$FAKE/.config/pip/pip.conf"
case_ "key: value, '_' in a key, continuation lines"
case_ "PIP_EXTRA_INDEX_URL replaces the file's extra-index-url" "PIP_EXTRA_INDEX_URL=$D/only/"
printf '[global]\nindex-url = %s/a/simple\n' "$D" >"$GLOBAL/pip/pip.conf"
printf '[global]\nindex-url =\nextra-index-url = %s/e/\n' "$D" >"$FAKE/.config/pip/pip.conf"
case_ "an empty value in a later file is no value"

reset_files
case_ "PIP_EXTRA_INDEX_URL alone adds to the default" "PIP_EXTRA_INDEX_URL=$D/whl/"
printf '[global]\nfind-links = %s/links/\nno-index = true\nindex-url = %s/x/simple\n' "$D" "$D" >"$FAKE/.config/pip/pip.conf"
case_ "no-index in the file: only the links"
case_ "PIP_NO_INDEX=0 over the file's no-index" "PIP_NO_INDEX=0"
case_ "--no-index on the command line" -- --no-index -f "$D/flag-links/"
printf '[global]\ntrusted-host = h1 h2\ncert = /nonexistent.pem\n' >"$FAKE/.config/pip/pip.conf"
case_ "trusted-host and cert, listed" "PIP_TRUSTED_HOST=h3"

# --- uv's documented rules (pip has no say here) ---
reset_files
uvwp() { env -i "PATH=$PATH" "HOME=$FAKE" "XDG_CONFIG_DIRS=$GLOBAL" "PIP_CONFIG_FILE=/dev/null" "$@"; }
uvwp UV_INDEX="corp=$D/corp/simple" UV_DEFAULT_INDEX="$D/dflt/simple" UV_EXTRA_INDEX_URL="$D/extra/" \
	"$WHEELPICK" config debug >"$TMP/out" 2>&1
expect_grep "UV_INDEX first" "^  index: $D/corp/simple/ \(from UV_INDEX\)" "$TMP/out"
expect_eq "then UV_EXTRA_INDEX_URL, the default index last" \
	"$(grep -o '^  index: [^ ]*' "$TMP/out" | tr '\n' ' ')" \
	"  index: $D/corp/simple/   index: $D/extra/   index: $D/dflt/simple/ "
uvwp UV_INDEX="corp=$D/corp/simple" "$WHEELPICK" config debug >"$TMP/out" 2>&1
expect_no_grep "a company's uv index: no public default" "download.pytorch.org" "$TMP/out"
mkdir -p "$FAKE/.config/uv" "$GLOBAL/uv"
printf '[[index]]\nname = "u"\nurl = "%s/user-toml/simple"\n' "$D" >"$FAKE/.config/uv/uv.toml"
printf 'index-url = "%s/system-toml/simple"\n[[index]]\nurl = "%s/system-extra/simple"\n' "$D" "$D" \
	>"$GLOBAL/uv/uv.toml"
uvwp "$WHEELPICK" config debug >"$TMP/out" 2>&1
expect_eq "uv.toml: the user's entries before the system's, its index-url last" \
	"$(grep -o '^  index: [^ ]*' "$TMP/out" | tr '\n' ' ')" \
	"  index: $D/user-toml/simple/   index: $D/system-extra/simple/   index: $D/system-toml/simple/ "
uvwp UV_INDEX="$D/env/simple" "$WHEELPICK" config debug >"$TMP/out" 2>&1
expect_grep "UV_INDEX comes before uv.toml's" "^  index: $D/env/simple/ \(from UV_INDEX\)" "$TMP/out"
uvwp UV_NO_CONFIG=1 "$WHEELPICK" config debug >"$TMP/out" 2>&1
expect_no_grep "UV_NO_CONFIG reads no uv.toml" "toml" "$TMP/out"
uvwp "$WHEELPICK" config list --json >"$TMP/out" 2>&1
expect_json "$TMP/out" "[v['origin'].split(':')[-1] for v in j['values'] if v['name'] == 'uv.index-url']" "['1']"
rm -rf "$FAKE/.config/uv" "$GLOBAL/uv"

# --- an index not needed, and not reachable, fails nothing (uv's first-index) ---
P=$(free_port)
idx_nginx "    listen 127.0.0.1:$P;
    root $SAMPLE;"
wait_port "$P" || fail "nginx did not start"
H="http://127.0.0.1:$P"
T=(--catalog "$TMP/c2.db" torchvision==0.9.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run)
# issue 37, case c: a company index with credentials, no internet, the default never asked
expect_exit 0 "UV_INDEX with credentials: the company index has it all" \
	uvwp UV_INDEX="corp=$H/simple" UV_INDEX_CORP_USERNAME=alice UV_INDEX_CORP_PASSWORD=pw "$WHEELPICK" "${T[@]}"
expect_no_grep "download.pytorch.org never asked" "download.pytorch.org" "$TMP/err"
expect_exit 0 "an unreachable default index after one that has it all" \
	uvwp UV_INDEX="corp=$H/simple" UV_DEFAULT_INDEX="http://127.0.0.1:9/dead/simple" "$WHEELPICK" "${T[@]}" --refresh
n0=$(asked "$P" /simple/torchvision/)
expect_exit 3 "an unreachable index asked first fails the run" \
	uvwp UV_INDEX="http://127.0.0.1:9/dead/simple" UV_DEFAULT_INDEX="$H/simple" "$WHEELPICK" "${T[@]}" --refresh
expect_eq "and the index after it is not asked (uv stops at the first failure)" "$(asked "$P" /simple/torchvision/)" "$n0"
expect_exit 3 "unsafe-best-match needs every index" \
	uvwp UV_INDEX="corp=$H/simple" UV_DEFAULT_INDEX="http://127.0.0.1:9/dead/simple" "$WHEELPICK" "${T[@]}" \
	--refresh --index-strategy unsafe-best-match
expect_exit 3 "UV_INDEX_STRATEGY=unsafe-best-match: the same, from uv's variable" \
	uvwp UV_INDEX="corp=$H/simple" UV_DEFAULT_INDEX="http://127.0.0.1:9/dead/simple" \
	UV_INDEX_STRATEGY=unsafe-best-match "$WHEELPICK" "${T[@]}" --refresh
expect_exit 2 "unsafe-first-match, uv's third strategy, is refused, not faked" wp "${T[@]}" \
	--index-strategy unsafe-first-match
expect_exit 0 "the plan says which index each project came from" \
	uvwp UV_INDEX="corp=$H/simple" "$WHEELPICK" "${T[@]}" --json
expect_json "$TMP/out" "j['index']['sources']" "[{'url': '$H/simple/', 'from': 'UV_INDEX'}]"
expect_json "$TMP/out" "sorted({p['index'] for p in j['picks']})" "['$H/simple/']"
# two indexes: torchvision from the first (it has only that), the rest from the second
mkdir -p "$SAMPLE/only-tv"
ln -s "$SAMPLE/simple/torchvision" "$SAMPLE/only-tv/torchvision"
expect_exit 0 "two indexes, each project from the first that has it" \
	wp "${T[@]}" --refresh -i "$H/only-tv" --extra-index-url "$H/simple" --json
expect_json "$TMP/out" "sorted((p['project'], p['index']) for p in j['picks'] if p['project'] in ('torch', 'torchvision'))" \
	"[('torch', '$H/simple/'), ('torchvision', '$H/only-tv/')]"
expect_exit 0 "the text plan says it too" wp "${T[@]}" -i "$H/only-tv" --extra-index-url "$H/simple"
expect_grep "a line per index" "^from $H/only-tv/: torchvision$" "$TMP/out"


# --- --refresh and WHEELPICK_MAX_AGE=0 read every page the resolution reads (issue 37) ---
R=(--catalog "$TMP/fresh.db" torchvision==0.9.0 --cuda 11.2 --python 3.8 --platform linux_x86_64 --dry-run
	--index "$H/simple")
expect_exit 0 "a first pick reads the dependencies' pages" wp "${R[@]}"
before=$(asked "$P" /simple/numpy/)
expect_exit 0 "a second pick within the freshness limit" wp "${R[@]}"
expect_eq "within the limit: numpy's page not asked again" "$(asked "$P" /simple/numpy/)" "$before"
expect_exit 0 "--refresh" wp "${R[@]}" --refresh
expect_eq "--refresh asks a dependency's page again" "$(asked "$P" /simple/numpy/)" "$((before + 1))"
before=$(asked "$P" /simple/numpy/)
expect_exit 0 "WHEELPICK_MAX_AGE=0" env WHEELPICK_MAX_AGE=0 "$WHEELPICK" "${R[@]}"
expect_eq "WHEELPICK_MAX_AGE=0 asks a dependency's page again" "$(asked "$P" /simple/numpy/)" "$((before + 1))"

# --- one table: the man page's ENVIRONMENT and FILES, and the README's table, say the same ---
wp --generate-man >"$TMP/man" 2>/dev/null
sed -n '/^\.SH ENVIRONMENT/,/^\.SH EXIT STATUS/p' "$TMP/man" | sed -n 's/^\.B //p' | sed 's/\\-/-/g' >"$TMP/names"
expect_eq "the man page lists the table's 46 variables and files" "$(wc -l <"$TMP/names")" 46
missing=$(while read -r n; do grep -qF "| \`$n\` |" "$ROOT/README.md" || echo "$n"; done <"$TMP/names")
expect_eq "the README's table has each of them" "$missing" ""
wp config --help >"$TMP/help" 2>&1
missing=$(while read -r n; do grep -qxF "  $n" "$TMP/help" || echo "$n"; done <"$TMP/names")
expect_eq "and 'config --help' lists each of them" "$missing" ""

done_testing
