#!/usr/bin/env bash
# tests/cli/t-ux.sh: a tool that feels native to pip, uv and conda users (issue 19): help, global
# options anywhere, -v/-q, "did you mean", requirements and constraints files, per-command help,
# the man page and shell completions, progress (summary first; a bar on a terminal, a line per
# file elsewhere), dry runs that download no wheel, a list that fits the terminal, plain messages.
. "$(dirname "$0")/../lib.sh"
make_sample
printf '{}' >"$TMP/script.json"
start_server "$SAMPLE" "$TMP/script.json"
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"
FL="$BASE/whl/torch_stable.html"
sha() { sha256sum "$SAMPLE/whl/$1" | cut -d' ' -f1; }

# --- help --------------------------------------------------------------------------------------
expect_exit 0 "wheelpick help" wp help
expect_grep "lists the commands" "^  list +show the versions" "$TMP/out"
expect_no_file "help reads no catalog" "$WHEELPICK_CATALOG"
expect_exit 0 "help COMMAND" wp help list
expect_grep "the command's usage" "^usage: wheelpick list PKG" "$TMP/out"
expect_exit 0 "--help after the command is the same" wp list --help
expect_grep "list's usage names its target options" "^usage: wheelpick list PKG .*--cuda X.Y.*--platform TAG" "$TMP/out"
expect_exit 2 "help of no command" wp help lsit
expect_grep "did you mean the command" "'lsit' is not a command; did you mean 'list'" "$TMP/err"
expect_exit 0 "help for the implicit pick" wp torch --help
expect_grep "pick's help" "^usage: wheelpick \[pick\]" "$TMP/out"

# --- global options anywhere on the line --------------------------------------------------------
expect_exit 0 "-v after the package" wp torch==1.8.0 $T --index "$FL" --dry-run --no-deps -v
expect_grep "-v: timings on each line" "^wheelpick: \[[0-9]+\.[0-9]+ s\] " "$TMP/err"
expect_grep "-v: the sources read" "\] (updated|unchanged) $FL" "$TMP/err"
expect_grep "-v: each decision" "\] picked cu111/torch-1\.8\.0\+cu111-cp38-cp38-linux_x86_64\.whl for target 0: " "$TMP/err"
expect_grep "-v: how long it took" "\] pick: done in [0-9.]+ s" "$TMP/err"
expect_exit 0 "--catalog after the command" wp list torch --catalog "$WHEELPICK_CATALOG"
expect_exit 0 "--catalog=PATH in the middle" wp torch==1.8.0 --catalog="$WHEELPICK_CATALOG" $T --dry-run --no-deps --json
expect_json "$TMP/out" "j['picks'][0]['variant']" cu111
expect_exit 0 "a value that reads like -v stays a value" wp tags --python 3.8 --platform linux_x86_64 -v
expect_grep "tags printed" "^cp38-cp38-linux_x86_64$" "$TMP/out"

# "updated URL" is -v material: a second run says nothing of its sources; -q says nothing at all
rm -f "$TMP/ux.sqlite3"
expect_exit 0 "a pick with --index" wp --catalog "$TMP/ux.sqlite3" torch==1.8.0 $T --index "$FL" --dry-run --no-deps
expect_no_grep "no 'updated URL' at the normal level" "updated " "$TMP/err"
expect_exit 0 "the same pick again" wp --catalog "$TMP/ux.sqlite3" torch==1.8.0 $T --index "$FL" --dry-run --no-deps
expect_no_grep "still nothing said of the sources" "updated |unchanged " "$TMP/err"
expect_exit 0 "-q at the end" wp torch==1.8.0 --cuda 11.2 --python 3.8 --index "$FL" --dry-run --no-deps -q
expect_exit 0 "-q: no notes" test ! -s "$TMP/err"
expect_exit 1 "-q still shows errors" wp torch==1.8.0 --cuda 9.2 --python 3.8 --platform linux_x86_64 --dry-run -q
expect_grep "the error" "torch 1\.8\.0 has cpu" "$TMP/err"

# --- did you mean ------------------------------------------------------------------------------
expect_exit 2 "a command typo" wp lsit torch
expect_grep "names the command" "'lsit' is not a command; did you mean 'wheelpick list'\? \(to pick a package named lsit: 'wheelpick pick lsit'\)" "$TMP/err"
expect_exit 2 "an option typo" wp torch --platfrom linux_x86_64
expect_grep "names the option" "unknown option '--platfrom' for pick; did you mean '--platform'\?" "$TMP/err"
expect_exit 2 "another command's option" wp torch --prune
expect_grep "says whose it is" "unknown option '--prune' for pick: it is an option of 'mirror'" "$TMP/err"
expect_exit 2 "mirror takes no --dest" wp mirror "$TMP/m" torch -d "$TMP/x"
expect_grep "mirror's DIR is its first word" "unknown option '-d' for mirror: it is an option of 'pick'" "$TMP/err"
expect_exit 2 "--platform linux" wp torch $T --platform linux --dry-run
expect_grep "the tags it could mean" "--platform 'linux' is not a wheel platform tag; did you mean 'manylinux_2_28_x86_64', 'manylinux_2_28_aarch64', 'manylinux_2_17_x86_64' or 'linux_x86_64'\?" "$TMP/err"
expect_exit 2 "--platform manylinux2014 (no architecture)" wp torch --cuda 11.2 --python 3.8 --platform manylinux2014 --dry-run
expect_grep "with the architectures" "did you mean 'manylinux2014_x86_64' or 'manylinux2014_aarch64'\?" "$TMP/err"
expect_exit 2 "--platform win64" wp torch --cuda 11.2 --python 3.8 --platform win64 --dry-run
expect_grep "Windows" "did you mean 'win_amd64'" "$TMP/err"
expect_exit 2 "--platform linux with --conda" wp pytorch --conda --python 3.8 --platform linux --dry-run
expect_grep "conda subdirs" "did you mean 'linux-64' or 'linux-aarch64'\?" "$TMP/err"
expect_exit 2 "list --platform checks too" wp list torch --platform macos
expect_grep "mac tags" "did you mean 'macosx_11_0_arm64' or 'macosx_10_15_x86_64'\?" "$TMP/err"
expect_exit 2 "torch=2.9 (conda's spelling)" wp 'torch=1.8' $T --dry-run
expect_grep "pip's spelling" "requirement 'torch=1\.8': did you mean 'torch==1\.8'\?" "$TMP/err"
expect_exit 2 "an unquoted conda spec" wp pytorch '1.8.*' --conda --python 3.8 --platform linux-64 --dry-run
expect_grep "say to quote it" "'1\.8\.\*' looks like the version of 'pytorch': quote the whole spec, 'pytorch 1\.8\.\*'" "$TMP/err"
expect_exit 2 "the same habit for wheels" wp torch 1.8.0 $T --dry-run
expect_grep "one requirement" "write them as one requirement, 'torch==1\.8\.0'" "$TMP/err"
expect_exit 1 "a project typo (from the catalog)" wp torhc $T --dry-run --offline
expect_grep "did you mean the project" "the catalog has nothing for 'torhc'.*did you mean 'torch'\?" "$TMP/err"
expect_exit 1 "list of a project typo" wp list torchvison
expect_grep "list says so too" "no files for 'torchvison'; did you mean 'torchvision'\?" "$TMP/err"
expect_exit 1 "a project only the index root lists" wp --catalog "$TMP/root.sqlite3" pilow $T --index "$BASE/simple/" --dry-run --no-deps
expect_grep "named from the root's list" "did you mean 'pillow'\?" "$TMP/err"

# --- requirements and constraints files (pip's format) -----------------------------------------
T8=torch-1.8.0+cu111-cp38-cp38-linux_x86_64.whl
T102=torch-1.8.0-cp38-cp38-linux_x86_64.whl
mkdir -p "$TMP/req/sub"
cat >"$TMP/req/requirements.txt" <<EOF
# pip-compile style, with an index line pip honours and wheelpick too
--index-url \${WP_UX_BASE}/simple/
-r sub/more.txt
torch==1.8.0 \\
    --hash=sha256:$(sha cu102/$T102) \\
    --hash=sha256:$(sha cu102/torch-1.8.0-cp38-cp38-win_amd64.whl) \\
    --hash=sha256:$(sha cu101/torch-1.8.0+cu101-cp38-cp38-linux_x86_64.whl)
EOF
cat >"$TMP/req/sub/more.txt" <<EOF
typing-extensions==4.5.0 ; python_version >= "3.6" --hash=sha256:$(sha typing_extensions-4.5.0-py3-none-any.whl)
pywin32==306 ; sys_platform == "win32" --hash=sha256:$(sha pywin32-306-py3-none-any.whl)  # Windows only
EOF
export WP_UX_BASE="$BASE"
expect_exit 0 "-r requirements.txt" wp -r "$TMP/req/requirements.txt" $T --dry-run --json
expect_json "$TMP/out" "sorted(p['filename'] for p in j['picks'])" "['$T102', 'typing_extensions-4.5.0-py3-none-any.whl']"
expect_json "$TMP/out" "[p['variant'] for p in j['picks'] if p['project']=='torch']" "['cu102']"
expect_exit 0 "the marker brings pywin32 on Windows" wp -r "$TMP/req/requirements.txt" --cuda 11.2 --python 3.8 --platform win_amd64 --dry-run --json
expect_json "$TMP/out" "'pywin32' in [p['project'] for p in j['picks']]" True
# a hash no file has: nothing fits, and the message says why
printf -- '--index-url %s/simple/\ntorch==1.8.0 --hash=sha256:%s\n' "$BASE" "$(printf '0%.0s' $(seq 64))" >"$TMP/req/bad.txt"
expect_exit 1 "a hash no file has" wp -r "$TMP/req/bad.txt" $T --dry-run
expect_grep "says which" "no file of torch has a sha256 among the --hash values given for it" "$TMP/err"
printf 'torch==1.8.0 --hash=sha256:%s\nnumpy\n' "$(sha cu102/$T102)" >"$TMP/req/half.txt"
expect_exit 2 "hash-checking needs every line hashed, as pip" wp -r "$TMP/req/half.txt" $T --index "$BASE/simple/" --dry-run
expect_grep "names the line" "half\.txt:2: 'numpy' has no --hash; .*half\.txt:1 has a --hash" "$TMP/err"
printf -- '--trusted-host example.test\ntorch\n' >"$TMP/req/trusted.txt"
expect_exit 2 "an option wheelpick refuses" wp -r "$TMP/req/trusted.txt" $T --dry-run
expect_grep "file, line, and why" "trusted\.txt:1: --trusted-host turns off TLS checks" "$TMP/err"
printf -- '-r loop.txt\n' >"$TMP/req/loop.txt"
expect_exit 2 "a file that includes itself" wp -r "$TMP/req/loop.txt" $T --dry-run
expect_grep "is refused" "includes itself" "$TMP/err"
expect_exit 2 "--require-hashes with a bare requirement" wp torch --require-hashes -r "$TMP/req/requirements.txt" $T --dry-run
expect_grep "as pip" "'torch' on the command line has no --hash" "$TMP/err"
# pip's -c: constraints bind what is pulled in, and pull nothing in
printf '# constraints\ntorch<1.8\npillow<99\n' >"$TMP/req/constraints.txt"
expect_exit 0 "-c constraints.txt" wp torchvision -c "$TMP/req/constraints.txt" $T --index "$BASE/simple/" --dry-run --json
expect_json "$TMP/out" "sorted((p['project'], p['version'].split('+')[0]) for p in j['picks'] if p['project'].startswith('torch'))" "[('torch', '1.7.1'), ('torchvision', '0.8.2')]"
expect_exit 0 "--constraint, and nothing pulled in" wp torch --constraint "$TMP/req/constraints.txt" $T --index "$BASE/simple/" --dry-run --json --no-deps
expect_json "$TMP/out" "[(p['project'], p['version']) for p in j['picks']]" "[('torch', '1.7.1+cu110')]"
expect_exit 1 "a constraint against the request" wp torch==1.8.0 -c "$TMP/req/constraints.txt" $T --index "$BASE/simple/" --dry-run
expect_grep "names the constraint" "the constraints \(-c\) hold torch to <1\.8" "$TMP/err"

# --- each command's --help lists what it accepts -----------------------------------------------
expect_exit 0 "mirror --help" wp mirror --help
expect_no_grep "mirror has no --dest" "--dest" "$TMP/out"
expect_grep "mirror has --prune" "--prune" "$TMP/out"
expect_exit 0 "pick --help" wp pick --help
expect_no_grep "pick has no --prune" "--prune" "$TMP/out"
expect_grep "pick has -r" "-r, --requirement FILE" "$TMP/out"
expect_grep "pick has --allow-full-downloads" "--allow-full-downloads" "$TMP/out"
expect_exit 0 "bundle --help" wp bundle --help
expect_no_grep "bundle has no --dry-run or --explain" "--dry-run|--explain" "$TMP/out"
expect_grep "bundle has --conda (a channel and its locks)" "--conda .*bundle conda packages" "$TMP/out"
expect_exit 0 "list --help" wp list --help
expect_grep "list has --all" "--all" "$TMP/out"
for c in update detect tags verify trust lock matrix; do
	wp $c --help >"$TMP/help-$c" 2>&1 || fail "$c --help"
done
cat "$TMP"/help-* >"$TMP/all-help"
wp help >>"$TMP/all-help"
for c in pick mirror bundle list; do wp $c --help >>"$TMP/all-help"; done
expect_no_grep "no jargon in help" "has no variant|WPE_|catalog rows|variant" "$TMP/all-help"

# --- the man page and completions, written from the same tables --------------------------------
"$WHEELPICK" --generate-man >"$TMP/wheelpick.1"
expect_exit 0 "the man page renders" env MANWIDTH=100 man -l "$TMP/wheelpick.1"
expect_grep "with every command" "^   mirror$" "$TMP/out"
expect_grep "and their options" "--allow-full-downloads" "$TMP/out"
expect_grep "and the exit codes" "^EXIT STATUS" "$TMP/out"
expect_exit 0 "groff has no complaint" sh -c "groff -ww -man -z '$TMP/wheelpick.1' 2>&1 | (! grep .)"
for sh in bash zsh fish; do "$WHEELPICK" --generate-completion $sh >"$TMP/comp.$sh" || fail "generate $sh"; done
expect_exit 2 "an unknown shell" wp --generate-completion tcsh
expect_exit 0 "bash completion loads" bash -c ". '$TMP/comp.bash' && complete -p wheelpick"
expect_grep "with its function" "complete -F _wheelpick wheelpick" "$TMP/out"
complete_bash() { bash -c ". '$TMP/comp.bash'; COMP_WORDS=($1); COMP_CWORD=$2; _wheelpick; printf '%s\n' \"\${COMPREPLY[@]}\""; }
expect_exit 0 "bash: mirror's options" complete_bash "wheelpick mirror --pr" 2
expect_grep "--prune for mirror" "^--prune$" "$TMP/out"
expect_exit 0 "bash: pick's options" complete_bash "wheelpick torch --pr" 2
expect_no_grep "no --prune for pick" "^--prune$" "$TMP/out"
expect_grep "but --pre" "^--pre$" "$TMP/out"
expect_exit 0 "bash: commands" complete_bash "wheelpick mi" 1
expect_grep "mirror and matrix" "^mirror$" "$TMP/out"
expect_exit 0 "bash: platform values" complete_bash "wheelpick torch --platform manylinux_2_28" 3
expect_grep "a tag" "^manylinux_2_28_x86_64$" "$TMP/out"
expect_exit 0 "bash: global options anywhere" complete_bash "wheelpick list torch --ver" 3
expect_grep "--verbose" "^--verbose$" "$TMP/out"
expect_exit 0 "bash: project names from the catalog" complete_bash "$WHEELPICK torchv" 1
expect_grep "torchvision" "^torchvision$" "$TMP/out"
expect_exit 0 "zsh reads its script" zsh -n "$TMP/comp.zsh"
# zsh's completion system runs only in an interactive shell; its builtins are stood in for here,
# each printing what it was given, so the function's answers can be read
cat >"$TMP/zt.zsh" <<'ZSH'
compadd() { while [[ $# -gt 0 && $1 != -- ]]; do shift; done; shift; print -l -- "$@"; }
_describe() { print -l -- ${(P)2%%:*}; }
_files() { print FILES; }
words=(${=2}); CURRENT=$3
source $1
ZSH
expect_exit 0 "zsh: mirror's options" zsh "$TMP/zt.zsh" "$TMP/comp.zsh" "wheelpick mirror --pr" 3
expect_grep "--prune for mirror" "^--prune$" "$TMP/out"
expect_exit 0 "zsh: pick's options" zsh "$TMP/zt.zsh" "$TMP/comp.zsh" "wheelpick torch --pr" 3
expect_no_grep "no --prune for pick" "^--prune$" "$TMP/out"
expect_exit 0 "zsh: a value" zsh "$TMP/zt.zsh" "$TMP/comp.zsh" "wheelpick torch --cuda-compat x" 4
expect_grep "strict" "^strict$" "$TMP/out"
expect_exit 0 "fish reads its script" fish -n "$TMP/comp.fish"
expect_exit 0 "fish completes mirror's options" fish -c "source '$TMP/comp.fish'; complete -C 'wheelpick mirror --pr'"
expect_grep "fish: --prune" "^--prune" "$TMP/out"
# make install puts them where man, bash-completion, zsh and fish look
mkdir -p "$TMP/build/completions"
cp "$WHEELPICK" "$TMP/build/wheelpick"
cp "$TMP/wheelpick.1" "$TMP/build/wheelpick.1"
cp "$TMP/comp.bash" "$TMP/build/completions/wheelpick.bash"
cp "$TMP/comp.zsh" "$TMP/build/completions/_wheelpick"
cp "$TMP/comp.fish" "$TMP/build/completions/wheelpick.fish"
B="$TMP/build"
expect_exit 0 "make install" make -s -C "$ROOT" install BUILD="$B" DESTDIR="$TMP/inst" PREFIX=/usr \
	-o "$B/wheelpick" -o "$B/wheelpick.1" -o "$B/completions/wheelpick.bash" -o "$B/completions/_wheelpick" \
	-o "$B/completions/wheelpick.fish"
for f in bin/wheelpick share/man/man1/wheelpick.1 share/bash-completion/completions/wheelpick \
	share/zsh/site-functions/_wheelpick share/fish/vendor_completions.d/wheelpick.fish; do
	expect_file "installed $f" "$TMP/inst/usr/$f"
done

# --- progress: the summary first, then a bar on a terminal, a line per file elsewhere ----------
VISION=/whl/cu111/torchvision-0.9.0%2Bcu111-cp38-cp38-linux_x86_64.whl
printf '{"%s": {"trickle": 600}}' "$VISION" >"$TMP/script.json"
cmd="$WHEELPICK torchvision==0.9.0 $T --index $FL -d $TMP/wh-tty"
COLUMNS=100 WHEELPICK_CACHE_DIR="$TMP/cache-tty" script -qec "$cmd" "$TMP/tty.log" >/dev/null 2>&1
tr '\r' '\n' <"$TMP/tty.log" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' >"$TMP/tty.txt"
expect_grep "a bar with bytes, rate and time left" "^\[[#> ]+\] [0-9.]+ (B|kB) / [0-9.]+ (B|kB), [0-9.]+ (B|kB)/s, [0-9]+:[0-9]{2} left, [0-9]/[0-9] files" "$TMP/tty.txt"
expect_grep "a line per finished file" "^  \[[0-9]/[0-9]\] torchvision-0\.9\.0\+cu111-cp38-cp38-linux_x86_64\.whl \([0-9.]+ kB\)" "$TMP/tty.txt"
expect_grep "and the total" "^  total [0-9.]+ kB downloaded in" "$TMP/tty.txt"
summary=$(grep -n "^total: [0-9]+ files\|^total: " "$TMP/tty.txt" | head -1 | cut -d: -f1)
why=$(grep -n "^    why: torchvision 0\.9\.0" "$TMP/tty.txt" | head -1 | cut -d: -f1)
first=$(grep -nE "^\[[#> ]+\]|^  \[1/" "$TMP/tty.txt" | head -1 | cut -d: -f1)
if [ -n "$summary" ] && [ -n "$why" ] && [ -n "$first" ] && [ "$why" -lt "$first" ] && [ "$summary" -lt "$first" ]; then
	pass "what, why and size come before the downloads"
else
	fail "summary first: why at line '$why', total at '$summary', first progress at '$first'"
	sed 's/^/      | /' "$TMP/tty.txt" | head -30 >&2
fi
expect_file "and the wheelhouse is written" "$TMP/wh-tty/requirements.txt"
printf '{}' >"$TMP/script.json"
expect_exit 0 "off a terminal" env WHEELPICK_CACHE_DIR="$TMP/cache-pipe" "$WHEELPICK" torchvision==0.9.0 $T --index "$FL" -d "$TMP/wh-pipe"
expect_grep "a line per finished file" "^  \[[0-9]/5\] torch-1\.8\.0\+cu111-cp38-cp38-linux_x86_64\.whl \([0-9.]+ kB\)" "$TMP/err"
expect_grep "and the total" "^  total [0-9.]+ kB downloaded in [0-9.]+ s .*; 5 of 5 files ready" "$TMP/err"
expect_no_grep "no bar, no escapes" $'\x1b|\r' "$TMP/err"
expect_grep "the summary on stdout" "^total: 5 files" "$TMP/out"
expect_exit 0 "a second run: already downloaded" env WHEELPICK_CACHE_DIR="$TMP/cache-pipe" "$WHEELPICK" torchvision==0.9.0 $T --index "$FL" -d "$TMP/wh-pipe"
expect_grep "says so per file" "^  \[[0-9]/5\] .* already downloaded$" "$TMP/err"
expect_exit 0 "-q: no progress" env WHEELPICK_CACHE_DIR="$TMP/cache-pipe" "$WHEELPICK" torchvision==0.9.0 $T --index "$FL" -d "$TMP/wh-pipe" -q
expect_exit 0 "nothing on stderr" test ! -s "$TMP/err"

# --- a dry run downloads no wheel unless told so -----------------------------------------------
# (a local folder's wheels are read where they lie: their METADATA says what they need, and the
# cache is left as it was)
rm -f "$TMP/dry.sqlite3"
expect_exit 0 "a local folder index without metadata files" env WHEELPICK_CACHE_DIR="$TMP/cache-dry" \
	"$WHEELPICK" --catalog "$TMP/dry.sqlite3" torchvision==0.9.0 $T --index "file://$SAMPLE/whl/torch_stable.html" --dry-run
expect_grep "its dependencies read from the wheels in place" "torch 1\.8\.0\+cu111" "$TMP/out"
n=$(find "$TMP/cache-dry" -type f 2>/dev/null | wc -l)
[ "$n" = 0 ] && pass "nothing was downloaded or stored" || fail "the dry run stored $n file(s)"
expect_exit 0 "--allow-full-downloads" env WHEELPICK_CACHE_DIR="$TMP/cache-dry" \
	"$WHEELPICK" --catalog "$TMP/dry.sqlite3" torchvision==0.9.0 $T --index "file://$SAMPLE/whl/torch_stable.html" --dry-run --allow-full-downloads
expect_grep "and then it picks" "torchvision 0\.9\.0\+cu111" "$TMP/out"
expect_exit 0 "over HTTP, ranges do: no flag needed" wp --catalog "$TMP/dry2.sqlite3" torchvision==0.9.0 $T --index "$BASE/simple/" --dry-run
expect_grep "the next command" "^next: wheelpick --catalog [^ ]+ 'torchvision==0\.9\.0'" "$TMP/out"

# --- list fits the terminal --------------------------------------------------------------------
expect_exit 0 "list, 80 columns" env COLUMNS=80 "$WHEELPICK" list torch
expect_grep "a grid when it fits" "^version +cpu +cu92 +cu101 +cu102 +cu110 +cu111 +rocm3\.7 +rocm4\.0\.1$" "$TMP/out"
expect_grep "newest first" "^1\.8\.0 " "$TMP/out"
[ "$(grep -nE '^1\.8\.0 ' "$TMP/out" | cut -d: -f1)" -lt "$(grep -nE '^1\.7\.1 ' "$TMP/out" | cut -d: -f1)" ] &&
	pass "1.8.0 above 1.7.1" || fail "not newest first"
expect_grep "a legend" "^builds: cuXY for CUDA X\.Y " "$TMP/out"
expect_grep "that names every kind of build" "(cpu|^ ) *for no GPU" "$TMP/out"
expect_exit 0 "list, 40 columns" env COLUMNS=40 "$WHEELPICK" list torch --cuda 11.2 --python 3.8 --platform linux_x86_64
expect_grep "builds as rows" "^build +versions \(newest first\)" "$TMP/out"
expect_grep "the newest CUDA first, marked" "^cu111 +1\.8\.0\*$" "$TMP/out"
expect_grep "how to see the grid" "see it with --all" "$TMP/out"
long=$(awk 'length > 40' "$TMP/out" | grep -cv " (shadowed by ")
[ "$long" = 0 ] && pass "rows fit 40 columns" || fail "$long row line(s) wider than 40 columns"
expect_exit 0 "--all: the grid anyway" env COLUMNS=40 "$WHEELPICK" list torch --all
expect_grep "the grid" "^version +cpu +cu92" "$TMP/out"

# --- messages for people -----------------------------------------------------------------------
expect_exit 1 "list of an unknown project" wp list nosuchproject
expect_grep "says the next command" "wheelpick update --index URL" "$TMP/err"
expect_exit 0 "README: coming from pip, uv, conda" grep -q "^## Coming from pip, uv or conda" "$ROOT/README.md"
done_testing
