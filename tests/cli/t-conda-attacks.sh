#!/usr/bin/env bash
# tests/cli/t-conda-attacks.sh: the attack matrix, part 3: conda archives that climb out, link out,
# write through a link, carry devices or lie in info/index.json (each with the true sha256 in its
# repodata, so only the archive check stands between it and the channel written); and repodata
# whose file names climb out of the channel.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attacks-lib.sh"
CH="$TMP/chan"
names=$("$PYTHON" "$FIX" conda-channel "$CH") || fail "cannot make the channel"
C="--conda -c file://$CH --cuda cpu --python 3.8 --platform linux-64"
BOX="$TMP/box"
mkdir -p "$BOX"
rm -f /tmp/wp-evil
expect_exit 0 "the channel is read" wp update --conda -c "file://$CH"

attack "sound packages beside them, with links inside and a hard link, are taken (.tar.bz2 and .conda)"
expect_exit 0 "good" wp good $C -d "$BOX/good"
expect_file "written" "$BOX/good/linux-64/good-1.0-0.tar.bz2"
expect_exit 0 "a .conda (its format read from its name, not the store's)" wp good-conda $C -d "$BOX/good"
expect_file "written" "$BOX/good/linux-64/good-conda-1.0-0.conda"

refused() { # NAME WHAT: exit 4, the message names the member or the field, nothing written
	local pkg=$1 what=$2
	expect_exit 4 "$pkg is an integrity failure" wp "$pkg" $C -d "$BOX/$pkg"
	expect_grep "saying what is wrong" "$what" "$TMP/err"
	expect_eq "not in the channel written" "$(find "$BOX/$pkg" -name "$pkg-*" 2>/dev/null | wc -l)" 0
	expect_no_file "nothing outside it" /tmp/wp-evil
}
attack ".tar.bz2 with ../ members";                  refused evil-traversal "'\.\./\.\./\.\./\.\./tmp/wp-evil'.*'\.\.'"
attack ".tar.bz2 with an absolute member";           refused evil-absolute "'/tmp/wp-evil'.*absolute"
attack ".tar.bz2 with a link out, then a file written through it"; refused evil-symlink-out-then-write "(lib/out).*(link|outside)"
attack ".tar.bz2 with a symlink to /etc";            refused evil-symlink-absolute "lib/etc.*(link|outside|absolute)"
attack ".tar.bz2 with a link inside, then a file written through it"; refused evil-symlink-inside-then-write "lib/in/index.json.*written through the link 'lib/in'"
attack ".tar.bz2 with a hard link to ../../../../etc/shadow"; refused evil-hardlink-shadow "lib/shadow.*link"
attack ".tar.bz2 with a hard link to /etc/shadow";   refused evil-hardlink-absolute "lib/shadow.*link"
attack ".tar.bz2 with a hard link to a member that is not there"; refused evil-hardlink-missing "lib/x.*link"
attack ".tar.bz2 with a device";                     refused evil-device "lib/mem.*(device|not a regular)"
attack ".tar.bz2 with a FIFO";                       refused evil-fifo "lib/pipe.*(FIFO|not a regular)"
attack ".tar.bz2 with one member twice";             refused evil-duplicate "lib/a.txt.*twice"
attack "info/index.json naming another package";     refused evil-index-name "index.json says name 'other'"
attack "info/index.json naming another version";     refused evil-index-version "index.json says version '6.6'"
attack "info/index.json naming another build";       refused evil-index-build "index.json says build '9'"
if command -v zstd >/dev/null; then
	attack ".conda with ../ members";                 refused evil-conda-traversal "'\.\./\.\./evil'"
	attack ".conda with a link to /, then a file through it"; refused evil-conda-symlink-write "site.*(link|outside)"
	attack ".conda with a hard link to ../../../../etc/shadow"; refused evil-conda-hardlink "'x'.*link"
	attack ".conda whose info/index.json is in the pkg tarball"; refused evil-conda-index-in-pkg "index.json"
else
	fail "zstd is missing: the .conda cases cannot run"
fi

attack "repodata file names that climb out of the channel are never used"
CL="$TMP/climb"
"$PYTHON" "$FIX" climbing-repodata "$CL"
export WHEELPICK_CATALOG="$TMP/climb.sqlite3"
expect_exit 0 "the repodata is read" wp update --conda -c "file://$CL"
expect_grep "its bad records are skipped, and said" "skipped [0-9]+ malformed" "$TMP/err"
expect_exit 1 "nothing named so can be picked" wp climb --conda -c "file://$CL" --cuda cpu --python 3.8 --platform linux-64 -d "$BOX/in/climb"
expect_eq "nothing written outside the destination" "$(find "$BOX" "$TMP/climb" /tmp -maxdepth 3 -name 'climb-1.0-0.tar.bz2*' -not -path "$CL/*" 2>/dev/null | wc -l)" 0

done_matrix
