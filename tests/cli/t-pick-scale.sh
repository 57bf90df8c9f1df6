#!/usr/bin/env bash
# tests/cli/t-pick-scale.sh: a pick reads a project's rows newest first, a window at a time, and an
# == pin its own key range (schema 7): it must pick, and explain a refusal, exactly as reading
# every row does (--explain reads them all: the oracle here). A schema 6 catalog opened by this
# wheelpick gets its version keys and picks the same.
. "$(dirname "$0")/../lib.sh"
need_real pytorch_index/torch_stable_2021-03-12.html

# three copies of the real page, each a distinct set of releases (as bench/bench.py case 7 makes
# 100): torch has 2,331 rows, so the windows (256 rows, then twice the last) are crossed
page="$TMP/page3.html"
python3 - "$REAL_DATA/pytorch_index/torch_stable_2021-03-12.html" "$page" 3 <<'PY'
import re, sys
src, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
ver = re.compile(r'^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$')
hrefs = re.findall(r'href="([^"]*)"', open(src).read())
with open(dst, "w") as f:
    for k in range(copies):
        for h in hrefs:
            folder, _, fn = h.rpartition("/")
            name, v, rest = fn.split("-", 2)
            if k:
                m = ver.match(v)
                v = f"{m.group(1)}.{m.group(2) or 0}.{int(m.group(3) or 0) + 100 * k}{m.group(4)}"
            h2 = (folder + "/" if folder else "") + f"{name}-{v}-{rest}"
            f.write(f'<a href="{h2}">{h2}</a><br>\n')
PY
expect_exit 0 "update from the tripled page" wp update --index "file://$page"

cases=(
	"torch --cuda 11.1 --python 3.8 --platform linux_x86_64"
	"torch==1.8.0 --cuda 11.2 --python 3.8 --platform linux_x86_64"
	"torch==1.8.0 --cuda 9.2 --python 3.8 --platform linux_x86_64"
	"torch==1.8.0+cpu --cuda 11.2 --python 3.8 --platform linux_x86_64"
	"torch --cuda 9.2 --python 3.6 --platform linux_x86_64"
	"torch<1.5 --cuda 10.1 --python 3.7 --platform win_amd64"
	"torch --cuda 11.1 --python 3.10 --platform linux_x86_64"
	"torch --cuda 11.1 --python 3.8 --platform linux_x86_64 --gpu sm_35"
	"torch --rocm 4.0 --python 3.8 --platform linux_x86_64"
	"torchaudio --cuda cpu --python 3.9 --platform macosx_11_0_arm64"
	"torchvision==0.2.0 --cuda cpu --python 3.8 --platform linux_x86_64"
	"torch_nightly --cuda 11.1 --python 3.8 --platform linux_x86_64"
)
run_cases() { # $1: a label for the output files; $2...: more options
	local label=$1 i=0 c; shift
	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086
		wp $c --dry-run --no-deps --json "$@" >"$TMP/$label.$i.json" 2>/dev/null
		i=$((i + 1))
	done
}
# compare LABEL LABEL: one line per case, "same" or what differs (the picks, or the refusal's
# message and the files it lists, in order), in one Python run
compare() {
	"$PYTHON" - "$TMP" "$1" "$2" "${#cases[@]}" <<'PY'
import json, sys
tmp, a, b, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def summary(label, i):
    j = json.load(open(f"{tmp}/{label}.{i}.json"))
    if "error" in j:
        e = j["error"]
        return ("error", e.get("exit"), e.get("message"), [r.get("where") for r in e.get("rejected", [])])
    return ("picks", [(p.get("target"), p.get("filename")) for p in j["picks"]])
for i in range(n):
    x, y = summary(a, i), summary(b, i)
    print("same" if x == y else f"differs: {str(x)[:300]} / {str(y)[:300]}")
PY
}
check_same() { # DESC LABEL LABEL
	local i=0 line
	while IFS= read -r line; do
		if [ "$line" = same ]; then pass "$1: ${cases[$i]}"; else fail "$1: ${cases[$i]}: $line"; fi
		i=$((i + 1))
	done < <(compare "$2" "$3")
	[ "$i" = "${#cases[@]}" ] || fail "$1: compared $i of ${#cases[@]} cases"
}
run_cases window
run_cases all --explain
check_same "windowed = every row" window all
expect_grep "a pick at the top" "torch-1.8.200\+cu111-cp38-cp38-linux_x86_64.whl" "$TMP/window.0.json"
expect_grep "the pin reads its range" "torch-1.8.0\+cu111-cp38-cp38-linux_x86_64.whl" "$TMP/window.1.json"

# the catalog as schema 6 left it: no keys, the old index
sqlite3 "$WHEELPICK_CATALOG" "DROP INDEX files_by_version; DROP INDEX files_by_kind; DROP INDEX files_by_source_version; ALTER TABLE files DROP COLUMN vkey;
	CREATE INDEX files_by_project ON files(project, kind); PRAGMA user_version = 6;"
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', wanted '$3'"; fi; }
expect_eq "made a schema 6 catalog" "$(sqlite3 "$WHEELPICK_CATALOG" 'PRAGMA user_version')" 6
run_cases migrated
expect_eq "migrated to schema 7" "$(sqlite3 "$WHEELPICK_CATALOG" 'PRAGMA user_version')" 7
expect_eq "every wheel has its key" "$(sqlite3 "$WHEELPICK_CATALOG" "SELECT count(*) FROM files WHERE vkey IS NULL AND kind = 'wheel'")" 0
expect_eq "the source index is made" "$(sqlite3 "$WHEELPICK_CATALOG" "SELECT count(*) FROM sqlite_master WHERE name = 'files_by_source_version'")" 1
check_same "migrated picks the same" window migrated
done_testing
