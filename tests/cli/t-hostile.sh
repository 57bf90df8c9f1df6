#!/usr/bin/env bash
# tests/cli/t-hostile.sh: the attack matrix, part 4: special files where files are expected,
# hostile environments, garbage in every WHEELPICK_* variable, huge arguments. Each is a clear
# message (one line, two with a note) and an exit code the README documents; never a crash, a
# hang or a file written where it should not be.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attacks-lib.sh"
make_sample
T="--cuda cpu --python 3.8 --platform linux_x86_64"
expect_exit 0 "a catalog to work from" wp update --index "$FINDLINKS"
CAT=$WHEELPICK_CATALOG
H="$TMP/h"
mkdir -p "$H/dir" "$H/work"
mkfifo "$H/fifo"
ln -s loop "$H/loop"
ln -s "$H/somewhere/c.sqlite3" "$H/dangling"
ln -s "$H/nowhere/c.sqlite3" "$H/dangling-dir"
mkdir -p "$H/somewhere"
printf 'x' >"$H/file"
printf '# a small file that is no catalog\n' >"$H/notes.txt"
# hostile CMD...: no hang (20 s), an exit code 0-4, and when it fails one clear line
hostile() {
	local desc=$1
	shift
	expect_fast "$desc: no hang" 20 timeout 25 "$@"
	no_crash "$desc" "$RC"
	[ "$RC" = 0 ] || one_line "$desc: one line" "$TMP/err"
}

attack "HOME unset: exit 2 (no catalog in the folder the job ran from), unless XDG_CACHE_HOME or WHEELPICK_* say where"
(cd "$H/work" && env -u HOME -u XDG_CACHE_HOME -u WHEELPICK_CATALOG -u WHEELPICK_CACHE_DIR "$WHEELPICK" list torch) >"$TMP/out" 2>"$TMP/err"
expect_eq "exit 2" "$?" 2
expect_grep "saying what to set" "HOME.*(WHEELPICK_CATALOG|--catalog)" "$TMP/err"
expect_eq "nothing written where it ran" "$(ls -A "$H/work" | wc -l)" 0
(cd "$H/work" && env -u HOME -u WHEELPICK_CATALOG -u WHEELPICK_CACHE_DIR XDG_CACHE_HOME=relative "$WHEELPICK" list torch) >"$TMP/out" 2>"$TMP/err"
expect_eq "a relative XDG_CACHE_HOME is no home either" "$?" 2
(cd "$H/work" && env -u XDG_CACHE_HOME -u WHEELPICK_CATALOG -u WHEELPICK_CACHE_DIR HOME= "$WHEELPICK" list torch) >"$TMP/out" 2>"$TMP/err"
expect_eq "nor an empty HOME" "$?" 2
env -u HOME -u WHEELPICK_CATALOG -u WHEELPICK_CACHE_DIR XDG_CACHE_HOME="$H/xdg" "$WHEELPICK" update --index "$FINDLINKS" >"$TMP/out" 2>"$TMP/err"
expect_eq "XDG_CACHE_HOME alone will do" "$?" 0
expect_file "the catalog goes there" "$H/xdg/wheelpick/catalog.sqlite3"
expect_eq "and nothing in the folder it ran from" "$(ls -A "$H/work" | wc -l)" 0

attack "the catalog path is a FIFO, a directory, a device, a symlink loop, a small file that is no catalog: exit 3"
for c in fifo dir /dev/null /dev/zero loop file notes.txt dangling-dir; do
	p=$H/$c
	case $c in /*) p=$c ;; esac
	hostile "catalog $c" env WHEELPICK_CATALOG="$p" "$WHEELPICK" list torch
	expect_eq "catalog $c: exit 3" "$RC" 3
done
expect_eq "the small files are left as they were" "$(cat "$H/file" "$H/notes.txt")" "x# a small file that is no catalog"
WHEELPICK_CATALOG="$H/fifo" wp list torch 2>"$TMP/err" >/dev/null
expect_grep "a FIFO is named so" "catalog '.*fifo' is a FIFO, not a file" "$TMP/err"

attack "a dangling symlink as the catalog: made where it points"
hostile "dangling" env WHEELPICK_CATALOG="$H/dangling" "$WHEELPICK" update --index "$FINDLINKS"
expect_eq "exit 0" "$RC" 0
expect_file "made at the link's target" "$H/somewhere/c.sqlite3"

attack "a catalog this process may not write: read-only here, lists still work, writes say why (exit 3)"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	mkdir -p "$H/ro"
	cp "$CAT" "$H/ro/c.sqlite3"
	chmod 0755 "$H" "$H/ro" "$TMP"
	chmod 0444 "$H/ro/c.sqlite3"
	mkdir -p "$H/ro-cache" && chmod 0777 "$H/ro-cache" # (a dry run makes the store too: ops/wheel/pick.c)
	printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="%s" WHEELPICK_CATALOG="%s" WHEELPICK_CACHE_DIR="%s" "%s" "$@"\n' \
		"$H/ro" "$H/ro/c.sqlite3" "$H/ro-cache" "$WHEELPICK" >"$H/as_nobody"
	chmod +x "$H/as_nobody"
	as_nobody="$H/as_nobody"
	hostile "list" "$as_nobody" list torch --json
	expect_eq "exit 0" "$RC" 0
	expect_json "$TMP/out" "len(j)" 42
	hostile "a dry run from what it holds" "$as_nobody" torch==1.8.0 $T --no-deps --dry-run
	expect_eq "exit 0" "$RC" 0
	hostile "update" "$as_nobody" update --force --index "$FINDLINKS"
	expect_eq "exit 3" "$RC" 3
	expect_grep "saying it may not write" "may not write it" "$TMP/err"
	expect_eq "the file is unchanged" "$(cmp -s "$CAT" "$H/ro/c.sqlite3" && echo same)" same
	# a write stopped half-way (a hot rollback journal, as a killed first conda refresh leaves):
	# reading past it would read a half-written catalog, so it is refused until the owner opens it
	chmod 0644 "$H/ro/c.sqlite3"
	python3 - "$H/ro/c.sqlite3" <<'PY'
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("PRAGMA journal_mode=DELETE")
con.execute("PRAGMA cache_size=1")
con.execute("BEGIN")
con.execute("UPDATE files SET filename = 'half-written-' || filename")
os._exit(0)
PY
	chmod 0444 "$H/ro/c.sqlite3"
	[ -s "$H/ro/c.sqlite3-journal" ] && pass "a hot journal is there" || fail "no hot journal made"
	hostile "list past a hot journal" "$as_nobody" list torch --json
	expect_eq "exit 3" "$RC" 3
	expect_grep "saying a write stopped half-way" "stopped half-way: run any wheelpick command on it once as its owner" "$TMP/err"
	expect_no_grep "nothing half-written shown" "half-written-" "$TMP/out"
	hostile "the owner's list rolls it back" env WHEELPICK_CATALOG="$H/ro/c.sqlite3" "$WHEELPICK" list torch --json
	expect_eq "exit 0" "$RC" 0
	expect_no_grep "the old rows" "half-written-" "$TMP/out"
	hostile "list as another user again" "$as_nobody" list torch --json
	expect_eq "exit 0" "$RC" 0
	expect_json "$TMP/out" "len(j)" 42
else
	fail "needs root and setpriv to run a command as another user"
fi

attack "the cache folder is a file or a FIFO: exit 3, one line"
for c in file fifo; do
	hostile "cache $c" env WHEELPICK_CACHE_DIR="$H/$c" "$WHEELPICK" torch==1.8.0 $T --no-deps -d "$TMP/whc"
	expect_eq "cache $c: exit 3" "$RC" 3
done

attack "the destination is a file, a FIFO, or a wheel's place is a folder: exit 3, nothing else changed"
for d in file fifo; do
	hostile "-d $d" "$WHEELPICK" torch==1.8.0 $T --no-deps -d "$H/$d"
	expect_eq "-d $d: exit 3" "$RC" 3
done
mkdir -p "$TMP/whd/torch-1.8.0+cpu-cp38-cp38-linux_x86_64.whl"
hostile "a folder in the wheel's place" "$WHEELPICK" torch==1.8.0 $T --no-deps -d "$TMP/whd"
expect_eq "exit 3" "$RC" 3
expect_no_file "no requirements promising it" "$TMP/whd/requirements.txt"

attack "--target is a FIFO nobody writes to, a folder, /dev/zero, /dev/null, a loop: exit 2, no hang"
# (WHEELPICK_TIMEOUT=1: a FIFO is given a second, not the default 10)
for t in /dev/zero /dev/null loop nothing-here dir fifo; do
	p=$H/$t
	case $t in /*) p=$t ;; esac
	hostile "--target $t" env WHEELPICK_TIMEOUT=1 "$WHEELPICK" torch --target "$p" --dry-run
	expect_eq "--target $t: exit 2" "$RC" 2
done
expect_grep "a FIFO is named so" "profile '.*fifo'.*FIFO" "$TMP/err"
wp detect --json >"$TMP/me.json" 2>/dev/null
expect_exit 0 "while a pipe with a writer reads as a file (<(...))" wp torch==1.8.0 --no-deps --target <(cat "$TMP/me.json") \
	--cuda cpu --dry-run

attack "garbage in every WHEELPICK_* variable: exit 0-4, one line, never a crash or a hang"
LONG=$(head -c 100000 /dev/zero | tr '\0' 'x')
for v in WHEELPICK_MAX_AGE WHEELPICK_TIMEOUT WHEELPICK_RETRY_BASE_MS WHEELPICK_CUDA WHEELPICK_CUDA_COMPAT WHEELPICK_PYTHON \
	WHEELPICK_PLATFORM WHEELPICK_INDEX WHEELPICK_CHANNEL WHEELPICK_DEST WHEELPICK_CA_BUNDLE WHEELPICK_SYSROOT; do
	# the flag the variable stands for is left out, so that the variable is what decides
	args="torch==1.8.0 --no-deps --refresh --index $FINDLINKS"
	case $v in
	WHEELPICK_CUDA) args="$args --python 3.8 --platform linux_x86_64" ;;
	WHEELPICK_CUDA_COMPAT) args="$args --cuda 11.2 --python 3.8 --platform linux_x86_64" ;;
	WHEELPICK_PYTHON) args="$args --cuda cpu --platform linux_x86_64" ;;
	WHEELPICK_PLATFORM) args="$args --cuda cpu --python 3.8" ;;
	WHEELPICK_INDEX | WHEELPICK_CHANNEL) args="torch==1.8.0 --no-deps $T" ;;
	WHEELPICK_SYSROOT) args="detect" ;;
	*) args="$args $T" ;;
	esac
	# (PATH without the user's tools: detection probes every python on it, which is not the point)
	for val in garbage -1 '%s%n%s%n$(touch pwned)' "$LONG" $'\x01\x1b[2J'; do
		rm -rf "$TMP/whg"
		hostile "$v='${val:0:12}'" env PATH=/usr/bin:/bin "$v=$val" "$WHEELPICK" $args -d "$TMP/whg"
	done
done
expect_no_file "no shell ran" "$TMP/pwned"
expect_no_file "nor in the folder the tests ran from" "$PWD/pwned"
expect_exit 2 "WHEELPICK_TIMEOUT=5m is exit 2 (at the first transfer)" env WHEELPICK_TIMEOUT=5m \
	WHEELPICK_CACHE_DIR="$TMP/cache-t" "$WHEELPICK" torch==1.8.0 --no-deps $T --index "$FINDLINKS" -d "$TMP/wht"
expect_grep "naming the variable" "WHEELPICK_TIMEOUT='5m' is not a whole number" "$TMP/err"
expect_exit 2 "WHEELPICK_MAX_AGE=soon is exit 2" env WHEELPICK_MAX_AGE=soon "$WHEELPICK" list torch
expect_grep "naming the variable" "WHEELPICK_MAX_AGE='soon'" "$TMP/err"

attack "128 KiB arguments (Linux's most for one), and 1 MiB of them: exit 0-4, one line"
BIG=$(head -c 131000 /dev/zero | tr '\0' 'a')
hostile "a package name" "$WHEELPICK" "$BIG" $T --dry-run
hostile "a requirement" "$WHEELPICK" "torch==$BIG" $T --dry-run
hostile "an --index" "$WHEELPICK" torch $T --index "http://127.0.0.1:9/$BIG" --dry-run
hostile "a --catalog" "$WHEELPICK" --catalog "$TMP/$BIG" list torch
hostile "a -d" "$WHEELPICK" torch==1.8.0 --no-deps $T -d "$TMP/$BIG"
hostile "an option name" "$WHEELPICK" "--$BIG"
hostile "eight of them (1 MiB)" "$WHEELPICK" "$BIG" "$BIG" "$BIG" "$BIG" "$BIG" "$BIG" "$BIG" "$BIG" $T --dry-run

done_matrix
