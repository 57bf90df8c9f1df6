#!/usr/bin/env bash
# tests/cli/t-pylock.sh: pylock.toml as an input: `verify pylock.toml` (PEP 751 as packaging reads
# it, and the files it names on disk), and `pick --lock pylock.toml -d DIR`, which fetches exactly
# the wheels the lock selects for the target (by url from a server on 127.0.0.1, or by path beside
# the lock), proves them by the lock's sha256, and refuses what wheelpick cannot honor.
. "$(dirname "$0")/../lib.sh"
need_real pylock/pypa-packaging__pylock.spec-example.toml pylock/pypa-pip__pylock.invalid.toml \
	pylock/pypa-pip__pylock.directory.toml pylock/Comfy-Org__comfy-cli__pylock.toml pylock/pypa-pip__pylock.toml
python3 "$ROOT/tests/fixtures/mkwheels.py" "$TMP/w" >/dev/null 2>&1 || { fail "mkwheels.py could not write the wheels"; done_testing; exit 1; }
mkdir -p "$TMP/srv/files" "$TMP/lock/wheels"
cp "$TMP/w/demo_pkg-1.0-py3-none-any.whl" "$TMP/srv/files/"
cp "$TMP/w/demo_dirs-1.0-py3-none-any.whl" "$TMP/lock/wheels/"
start_server "$TMP/srv"
sha() { sha256sum "$1" | cut -d' ' -f1; }
size() { stat -c %s "$1"; }
PKG=$TMP/srv/files/demo_pkg-1.0-py3-none-any.whl
DIRS=$TMP/lock/wheels/demo_dirs-1.0-py3-none-any.whl
TARGET=(--cuda cpu --python 3.12 --platform manylinux_2_28_x86_64)

write_lock() { # FILE PKG_SHA
	cat >"$1" <<TOML
lock-version = "1.0"
created-by = "t-pylock"
requires-python = ">=3.9"

[[packages]]
name = "demo-pkg"
version = "1.0"
wheels = [{ url = "$BASE/files/demo_pkg-1.0-py3-none-any.whl", size = $(size "$PKG"), hashes = { sha256 = "$2" } }]

[[packages]]
name = "demo-dirs"
version = "1.0"
marker = "sys_platform == 'linux'"
[[packages.wheels]]
path = "wheels/demo_dirs-1.0-py3-none-any.whl"
hashes = { sha256 = "$(sha "$DIRS")" }

[[packages]]
name = "winonly"
version = "1.0"
marker = "sys_platform == 'win32'"
directory = { path = "./src/winonly" }

[[packages]]
name = "gpu-extra"
version = "2.0"
marker = "'gpu' in extras"
vcs = { type = "git", url = "https://example.invalid/x.git", commit-id = "abc" }
TOML
}
write_lock "$TMP/lock/pylock.toml" "$(sha "$PKG")"

# --- verify ---------------------------------------------------------------------------------------
expect_exit 0 "verify: a valid lock whose local wheel matches" wp verify "$TMP/lock/pylock.toml"
wp verify "$TMP/lock/pylock.toml" >"$TMP/v.out" 2>&1
expect_grep "verify says what it checked" '^ok .*pylock.toml \(pylock.toml\)' "$TMP/v.out"
expect_exit 0 "verify: PEP 751's own example" wp verify "$REAL_DATA/pylock/pypa-packaging__pylock.spec-example.toml"
expect_exit 0 "verify: uv's export of a real project (48 packages)" wp verify "$REAL_DATA/pylock/Comfy-Org__comfy-cli__pylock.toml"
expect_exit 0 "verify: pip's directory lock" wp verify "$REAL_DATA/pylock/pypa-pip__pylock.directory.toml"
expect_exit 2 "verify: pip's invalid lock is refused" wp verify "$REAL_DATA/pylock/pypa-pip__pylock.invalid.toml"
wp verify "$REAL_DATA/pylock/pypa-pip__pylock.invalid.toml" >"$TMP/inv.out" 2>&1
expect_grep "naming what PEP 751 misses, as packaging does" "Missing required value in 'lock-version'" "$TMP/inv.out"
cp "$TMP/w/demo_pkg-1.0-py3-none-any.whl" "$DIRS.new" && mv "$DIRS.new" "$DIRS"
expect_exit 4 "verify: a local wheel that is not the one locked" wp verify "$TMP/lock/pylock.toml"
cp "$TMP/w/demo_dirs-1.0-py3-none-any.whl" "$DIRS"
printf 'lock-version = "1.0"\ncreated-by = "x"\n[[packages]]\nname = "Demo_Pkg"\nversion = "1.0"\ndirectory = { path = "." }\n' >"$TMP/bad.toml"
expect_exit 2 "verify: an unnormalised name" wp verify "$TMP/bad.toml"
printf 'lock-version = "1.0"\ncreated-by = "x"\npackages = [\n' >"$TMP/notoml.toml"
expect_exit 2 "verify: not TOML" wp verify "$TMP/notoml.toml"
# a wheel on another machine (file://HOST/...) cannot be checked here: a problem naming the URL, not
# an "ok" that checked nothing
HOSTURL=file://build-host/w/demo_pkg-1.0-py3-none-any.whl
cat >"$TMP/host.toml" <<TOML
lock-version = "1.0"
created-by = "x"
[[packages]]
name = "demo-pkg"
version = "1.0"
wheels = [{ url = "$HOSTURL", hashes = { sha256 = "$(sha "$PKG")" } }]
TOML
expect_exit 4 "verify: a wheel at file://HOST/ is a problem" wp verify "$TMP/host.toml"
expect_grep "naming the URL" "'$HOSTURL' is not a local file URL" "$TMP/err"

# --- pick --lock ------------------------------------------------------------------------------------
expect_exit 0 "pick --lock fetches what the lock selects for the target" \
	wp pick --lock "$TMP/lock/pylock.toml" "${TARGET[@]}" -d "$TMP/wh"
expect_file "the wheel named by url" "$TMP/wh/demo_pkg-1.0-py3-none-any.whl"
expect_file "the wheel named by path" "$TMP/wh/demo_dirs-1.0-py3-none-any.whl"
expect_grep "requirements.txt pins it by the lock's sha256" "^demo-pkg==1.0" "$TMP/wh/requirements.txt"
expect_grep "the lock's sha256" "--hash=sha256:$(sha "$PKG")" "$TMP/wh/requirements.txt"
n=$(ls "$TMP/wh"/*.whl | wc -l)
[ "$n" = 2 ] && pass "nothing the markers leave out (win32, the gpu extra)" || fail "want 2 wheels, got $n"
# --lock-extra gpu: the lock's 'gpu' in extras marker now holds, and that package is a VCS checkout
expect_exit 1 "--lock-extra selects what the extra's marker adds (here a vcs source, refused)" \
	wp pick --lock "$TMP/lock/pylock.toml" --lock-extra gpu "${TARGET[@]}" -d "$TMP/wh-gpu"
wp pick --lock "$TMP/lock/pylock.toml" --lock-extra gpu "${TARGET[@]}" -d "$TMP/wh-gpu" >"$TMP/gpu.out" 2>&1
expect_grep "naming it" "packages\[3\] 'gpu-extra' comes from a VCS checkout" "$TMP/gpu.out"
expect_exit 0 "the wheelhouse verifies" wp verify "$TMP/wh"
expect_exit 0 "--dry-run fetches nothing" wp pick --lock "$TMP/lock/pylock.toml" "${TARGET[@]}" --dry-run
# a Windows target selects the directory package: refused, naming it
expect_exit 1 "a directory source is refused" wp pick --lock "$TMP/lock/pylock.toml" --cuda cpu --python 3.12 \
	--platform win_amd64 -d "$TMP/wh-win"
wp pick --lock "$TMP/lock/pylock.toml" --cuda cpu --python 3.12 --platform win_amd64 -d "$TMP/wh-win" >"$TMP/win.out" 2>&1
expect_grep "the refusal names the package and why" "packages\[2\] 'winonly' comes from a local directory.*builds nothing" "$TMP/win.out"
expect_exit 1 "requires-python the target does not meet" wp pick --lock "$TMP/lock/pylock.toml" --cuda cpu \
	--python 3.8 --platform manylinux_2_28_x86_64 -d "$TMP/wh38"
write_lock "$TMP/lock/bad-sha.toml" "$(printf '0%.0s' $(seq 64))"
expect_exit 4 "a wheel whose bytes are not the locked sha256" wp pick --lock "$TMP/lock/bad-sha.toml" "${TARGET[@]}" -d "$TMP/wh-bad"
expect_no_file "and nothing is left of it" "$TMP/wh-bad/demo_pkg-1.0-py3-none-any.whl"
# a lock whose size is not its file's is an integrity failure, whether the file is downloaded or the
# store already holds the bytes of its sha256 (issue 36: the store's copy was taken unchecked)
sed "s/size = $(size "$PKG")/size = $(($(size "$PKG") + 1))/" "$TMP/lock/pylock.toml" >"$TMP/lock/bad-size.toml"
sed "s/size = $(size "$PKG")/size = 7/" "$TMP/lock/pylock.toml" >"$TMP/lock/small-size.toml"
for c in fresh stored; do
	export WHEELPICK_CACHE_DIR="$TMP/cache-size-$c"
	[ "$c" = stored ] && { wp -q pick --lock "$TMP/lock/pylock.toml" "${TARGET[@]}" -d "$TMP/wh-size-ok" >/dev/null 2>&1 \
		&& pass "the store holds the locked wheel" || fail "the good lock failed"; }
	for l in bad-size small-size; do
		expect_exit 4 "$l.toml, the file $c: exit 4" wp pick --lock "$TMP/lock/$l.toml" "${TARGET[@]}" -d "$TMP/wh-$l-$c"
		expect_no_file "and the wheel is not written" "$TMP/wh-$l-$c/demo_pkg-1.0-py3-none-any.whl"
	done
	expect_grep "the stored case names both sizes" "$( [ "$c" = stored ] && echo "of a file of $(size "$PKG") bytes, but its size is given as 7" || echo "7")" "$TMP/err"
done
unset WHEELPICK_CACHE_DIR

# a lock naming a file that is not a wheel (a secret on this machine, with its true sha256 and size)
# gets an error that quotes none of its bytes (issue 36): text, /etc/passwd itself, binary, HTML
printf 'SECRETUSER:TOKEN-9f2c1a:0:0:root:/root:/bin/bash\n' >"$TMP/secret.txt"
printf '\x01\x02SECRETBIN\x00\xff\x10TOKEN-9f2c1a' >"$TMP/secret.bin"
printf '<!DOCTYPE html><title>SECRETPAGE TOKEN-9f2c1a</title>' >"$TMP/secret.html"
for f in "$TMP/secret.txt" /etc/passwd "$TMP/secret.bin" "$TMP/secret.html"; do
	cat >"$TMP/lock/secret.toml" <<TOML
lock-version = "1.0"
created-by = "t-pylock"
[[packages]]
name = "demo-pkg"
version = "1.0"
wheels = [{ name = "demo_pkg-1.0-py3-none-any.whl", url = "file://$f", size = $(size "$f"), hashes = { sha256 = "$(sha "$f")" } }]
TOML
	expect_exit 4 "a lock naming $(basename "$f") as a wheel: exit 4" wp pick --lock "$TMP/lock/secret.toml" "${TARGET[@]}" -d "$TMP/wh-secret"
	expect_grep "says it is no zip" "is not a zip archive \(it is " "$TMP/err"
	expect_no_grep "and quotes none of its bytes" "SECRET|TOKEN|root:|<!DOCTYPE|<title" "$TMP/err"
done
expect_exit 2 "--lock with packages too" wp pick --lock "$TMP/lock/pylock.toml" torch "${TARGET[@]}" -d "$TMP/wh2"
expect_exit 2 "an invalid lock" wp pick --lock "$REAL_DATA/pylock/pypa-pip__pylock.invalid.toml" "${TARGET[@]}" -d "$TMP/wh3"
# pip's own lock (an sdist, an archive, a wheel by path): its files are not beside it here, and the
# message names the first missing one (it was refused whole before, sdist and archive alike)
expect_exit 3 "pip's lock whose files are not here" wp pick --lock "$REAL_DATA/pylock/pypa-pip__pylock.toml" \
	"${TARGET[@]}" -d "$TMP/wh4"
expect_grep "names the package and the path" "packages\[0\] 'simple': sdist path .*simple-2.0.tar.gz" "$TMP/err"

# --- sdist and archive entries: carried as files, proven by sha256, never built -------------------
# the shape of pip's lock (sdist by name and path, archive with no version, a wheel), files beside it
mkdir -p "$TMP/pl/locks" "$TMP/pl/packages" "$TMP/pl/src/simple-2.0" "$TMP/pl/src/simple2-3.0"
echo 'from setuptools import setup; setup(name="simple", version="2.0")' >"$TMP/pl/src/simple-2.0/setup.py"
echo 'from setuptools import setup; setup(name="simple2", version="3.0")' >"$TMP/pl/src/simple2-3.0/setup.py"
tar -czf "$TMP/pl/packages/simple-2.0.tar.gz" -C "$TMP/pl/src" simple-2.0
tar -czf "$TMP/pl/packages/simple2-3.0.tar.gz" -C "$TMP/pl/src" simple2-3.0
cp "$TMP/w/demo_pkg-1.0-py3-none-any.whl" "$TMP/pl/packages/"
write_src_lock() { # FILE SDIST_SHA
	cat >"$1" <<TOML
lock-version = "1.0"
created-by = "pip"

[[packages]]
name = "simple"
version = "2.0"
[packages.sdist]
name = "simple-2.0.tar.gz"
path = "../packages/simple-2.0.tar.gz"
[packages.sdist.hashes]
sha256 = "$2"

[[packages]]
name = "simple2"
[packages.archive]
path = "../packages/simple2-3.0.tar.gz"
[packages.archive.hashes]
sha256 = "$(sha "$TMP/pl/packages/simple2-3.0.tar.gz")"

[[packages]]
name = "demo-pkg"
version = "1.0"
[[packages.wheels]]
name = "demo_pkg-1.0-py3-none-any.whl"
path = "../packages/demo_pkg-1.0-py3-none-any.whl"
[packages.wheels.hashes]
sha256 = "$(sha "$TMP/pl/packages/demo_pkg-1.0-py3-none-any.whl")"
TOML
}
write_src_lock "$TMP/pl/locks/pylock.toml" "$(sha "$TMP/pl/packages/simple-2.0.tar.gz")"
expect_exit 0 "pick --lock carries the sdist and the archive as files" wp pick --lock "$TMP/pl/locks/pylock.toml" \
	"${TARGET[@]}" -d "$TMP/pl/wh"
expect_grep "the plan says they are carried, not built" "as its sdist, carried as a file: wheelpick builds nothing" "$TMP/out"
expect_file "the sdist in the wheelhouse" "$TMP/pl/wh/simple-2.0.tar.gz"
expect_file "the archive in the wheelhouse" "$TMP/pl/wh/simple2-3.0.tar.gz"
expect_grep "requirements.txt pins the sdist" "^simple==2.0" "$TMP/pl/wh/requirements.txt"
expect_grep "and the versionless archive by its file" "^\./simple2-3.0.tar.gz" "$TMP/pl/wh/requirements.txt"
expect_grep "the wheelhouse's lock has an sdist table" '^sdist = \{ name = "simple-2.0.tar.gz"' "$TMP/pl/wh/pylock.toml"
expect_grep "and an archive table" '^archive = \{ path = "simple2-3.0.tar.gz"' "$TMP/pl/wh/pylock.toml"
expect_exit 0 "the wheelhouse verifies" wp verify "$TMP/pl/wh"
expect_exit 0 "its lock reads as PEP 751" wp verify "$TMP/pl/wh/pylock.toml"
write_src_lock "$TMP/pl/locks/pylock.bad.toml" "$(printf '0%.0s' $(seq 64))"
expect_exit 4 "an sdist whose bytes are not the locked sha256" wp pick --lock "$TMP/pl/locks/pylock.bad.toml" \
	"${TARGET[@]}" -d "$TMP/pl/wh-bad"
expect_grep "the mismatch names the file" "simple-2.0.tar.gz.*sha256 mismatch" "$TMP/err"
"$PYTHON" -m venv --without-pip "$TMP/pl/venv"
expect_exit 1 "install cannot build them, and says so naming each" wp install "$TMP/pl/locks/pylock.toml" \
	--python "$TMP/pl/venv/bin/python"
expect_grep "both named" "simple 2.0 \(sdist 'simple-2.0.tar.gz'\), simple2 \(archive" "$TMP/err"
# --- our own lock, read back ------------------------------------------------------------------------
mkdir -p "$TMP/own"
cp "$TMP/w/demo_dirs-1.0-py3-none-any.whl" "$TMP/own/"
expect_exit 0 "pick over a folder (records the wheel's hash)" wp pick demo-dirs --index "$TMP/own" "${TARGET[@]}" -d "$TMP/own-wh"
# a folder whose name has a '#', '%' or space is the folder it names, as pip's --find-links DIR: its
# file:// URL percent-encodes them (a '#' was cut off as a fragment, "%zz" refused as an escape)
# (in a folder of their own: "odd/w#1" read as "odd/w" found nothing, not the wrong folder)
for d in "w#1" "w%zz" "w 2"; do
	mkdir -p "$TMP/odd/$d" && cp "$TMP/w/demo_dirs-1.0-py3-none-any.whl" "$TMP/odd/$d/"
	expect_exit 0 "pick over a folder named '$d'" wp pick demo-dirs --index "$TMP/odd/$d" \
		"${TARGET[@]}" -d "$TMP/odd/$d-wh"
	expect_file "the wheel from it" "$TMP/odd/$d-wh/demo_dirs-1.0-py3-none-any.whl"
done
expect_exit 0 "wheelpick lock" wp lock demo-dirs --index "$TMP/own" "${TARGET[@]}" -o "$TMP/own/pylock.toml"
expect_exit 0 "verify reads wheelpick's own lock and checks the file:// wheel it names" wp verify "$TMP/own/pylock.toml"
wp verify "$TMP/own/pylock.toml" >"$TMP/own.out" 2>&1
expect_grep "one wheel checked" "checked 1 files, 1 wheels, 1 pages, 1 links: 0 problems" "$TMP/own.out"
expect_exit 0 "pick --lock on wheelpick's own lock" wp pick --lock "$TMP/own/pylock.toml" "${TARGET[@]}" -d "$TMP/own-again"
expect_file "the same wheel" "$TMP/own-again/demo_dirs-1.0-py3-none-any.whl"
done_testing
