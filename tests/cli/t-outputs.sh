#!/usr/bin/env bash
# tests/cli/t-outputs.sh: outputs that install on every target: a wheelhouse for several targets
# (requirements.txt with markers, pylock.toml), per-target files for targets markers cannot tell
# apart, `lock`, and what verify and bundle make of them. The index is the replica of today's
# PyTorch index (tests/fixtures/mkindex.py) served on 127.0.0.1.
. "$(dirname "$0")/../lib.sh"
python3 "$ROOT/tests/fixtures/mkindex.py" "$TMP/idx" >/dev/null || { fail "mkindex.py could not write the index"; done_testing; exit 1; }
start_server "$TMP/idx"
WHL="$BASE/whl/"
CHECK="$ROOT/tests/cli/pylock_check.py"
need_real pylock/pypa-packaging__pylock.spec-example.toml pylock/pypa-pip__pylock.invalid.toml

# the checker knows a valid lock from an invalid one (or it would prove nothing below)
expect_exit 0 "the checker passes PEP 751's own example" "$PYTHON" "$CHECK" "$REAL_DATA/pylock/pypa-packaging__pylock.spec-example.toml"
expect_exit 1 "and fails pip's invalid one" "$PYTHON" "$CHECK" "$REAL_DATA/pylock/pypa-pip__pylock.invalid.toml"

# marker variables pip would see on each target (the order of the targets below)
env_of() { # PY SYS MACHINE
	printf '{"python_version": "%s", "python_full_version": "%s.0", "sys_platform": "%s", "platform_system": "%s", "platform_machine": "%s", "os_name": "%s", "implementation_name": "cpython", "platform_python_implementation": "CPython", "platform_release": "", "platform_version": "", "implementation_version": "%s.0", "extra": ""}' \
		"$1" "$1" "$2" "$([ "$2" = win32 ] && echo Windows || echo Linux)" "$3" "$([ "$2" = win32 ] && echo nt || echo posix)" "$1"
}
E0=$(env_of 3.11 linux x86_64)
E1=$(env_of 3.11 win32 AMD64)
E2=$(env_of 3.12 linux x86_64)
E3=$(env_of 3.12 win32 AMD64)

# --- four targets markers can tell apart: one requirements.txt, one pylock.toml ----------------
expect_exit 0 "a wheelhouse for two Pythons on two platforms" wp torch --cuda 12.4 --python 3.11 --python 3.12 \
	--platform manylinux_2_28_x86_64 --platform win_amd64 --index "$WHL" -d "$TMP/wh"
expect_file "requirements.txt" "$TMP/wh/requirements.txt"
expect_file "pylock.toml" "$TMP/wh/pylock.toml"
expect_no_file "no per-target files" "$TMP/wh/requirements-cu124-py3.11-manylinux_2_28_x86_64.txt"
expect_grep "Linux-only dependencies carry a marker" '^nvidia-cuda-runtime-cu12==12\.8\.90 ; .*sys_platform == "linux"' "$TMP/wh/requirements.txt"
expect_no_grep "and no Windows target's marker" '^nvidia-cuda-runtime-cu12.*win32' "$TMP/wh/requirements.txt"
expect_grep "what Python 3.12 alone needs says so" '^setuptools==.* ; .*python_version == "3\.12"' "$TMP/wh/requirements.txt"
# each target's requirement lines, as packaging evaluates their markers there, are exactly its picks
"$PYTHON" - "$TMP/wh" "$E0" "$E1" "$E2" "$E3" >"$TMP/marker-check" 2>&1 <<'EOF'
import json, re, sys
from pip._vendor.packaging.requirements import Requirement
wh, envs = sys.argv[1], [json.loads(e) for e in sys.argv[2:]]
picks = json.load(open(f"{wh}/wheelpick.json"))["picks"]
text = open(f"{wh}/requirements.txt").read().replace("\\\n", " ")
lines = [l.split(" --hash")[0].strip() for l in text.splitlines() if l.strip() and not l.startswith("#")]
bad = 0
for t, env in enumerate(envs):
    got = sorted(f"{r.name}=={r.specifier}".replace("====", "==") for r in map(Requirement, lines)
                 if not r.marker or r.marker.evaluate(env))
    got = sorted(re.sub(r"==+", "==", g) for g in got)
    want = sorted(f"{p['project']}=={p['version']}" for p in picks if p["target"] == t)
    if got != want:
        bad += 1
        print(f"target {t}: requirements give {sorted(set(got) ^ set(want))} apart from its picks")
print("ok" if not bad else "bad")
EOF
expect_grep "each target's lines are exactly its picks (packaging's markers)" "^ok$" "$TMP/marker-check"
# the lock: valid PEP 751, and each environment narrows to exactly that target's picks
expect_exit 0 "pylock.toml is a valid PEP 751 lock" "$PYTHON" "$CHECK" "$TMP/wh/pylock.toml" --env "$E0" --env "$E1" --env "$E2" --env "$E3"
"$PYTHON" - "$TMP/wh" "$TMP/out" >"$TMP/lock-check" 2>&1 <<'EOF'
import json, sys
wh, out = sys.argv[1], open(sys.argv[2]).read()
picks = json.load(open(f"{wh}/wheelpick.json"))["picks"]
blocks = out.split("env ")[1:]
bad = 0
for b in blocks:
    n, *rest = b.strip().splitlines()
    t = int(n.rstrip(":"))
    got = sorted(l for l in rest if "==" in l and not l.startswith("/"))
    want = sorted(f"{p['project']}=={p['version']}" for p in picks if p["target"] == t)
    if got != want:
        bad += 1
        print(f"target {t}: {sorted(set(got) ^ set(want))}")
print("ok" if blocks and not bad else "bad")
EOF
expect_grep "each environment of the lock narrows to its target's picks" "^ok$" "$TMP/lock-check"
expect_grep "wheels by path, beside the lock" '\{ name = "torch-2\.10\.0\+cu128-cp311-cp311-win_amd64\.whl", path = "torch-2\.10\.0\+cu128-cp311-cp311-win_amd64\.whl", size = [0-9]+, hashes' "$TMP/wh/pylock.toml"
expect_grep "each target's variant under [tool.wheelpick]" '^variant = "cu128"$' "$TMP/wh/pylock.toml"
# real pip installs it for the first target (Python 3.11, manylinux_2_28_x86_64) on any machine, so
# this check never skips: pip evaluates markers for the Python it runs on, so packaging evaluates
# them for the target (as above) and pip gets that target's lines, hashes kept, and its tags
"$PYTHON" - "$TMP/wh/requirements.txt" "$E0" >"$TMP/req-e0.txt" 2>"$TMP/req-e0.err" <<'PY'
import json, sys
from pip._vendor.packaging.requirements import Requirement
text, env = open(sys.argv[1]).read().replace("\\\n", " "), json.loads(sys.argv[2])
for l in text.splitlines():
    if not l.strip() or l.startswith("#"):
        continue
    req, sep, hashes = l.partition(" --hash")
    r = Requirement(req.strip())
    if not r.marker or r.marker.evaluate(env):
        print(f"{r.name}{r.specifier}" + (f" --hash{hashes}" if sep else ""))
PY
# the target's platform ladder, as packaging's _manylinux.platform_tags lists it for glibc 2.28
E0_PLATFORMS=()
for m in $(seq 28 -1 5); do E0_PLATFORMS+=(--platform "manylinux_2_${m}_x86_64"); done
E0_PLATFORMS+=(--platform manylinux2014_x86_64 --platform manylinux2010_x86_64 --platform manylinux1_x86_64 --platform linux_x86_64)
expect_grep "the first target's lines, hashed" '^torch==2\.10\.0\+cu128 .*--hash=sha256:[0-9a-f]{64}' "$TMP/req-e0.txt"
expect_exit 0 "pip installs the wheelhouse offline for that target" "$PYTHON" -m pip install --no-index --find-links "$TMP/wh" \
	--require-hashes -r "$TMP/req-e0.txt" --target "$TMP/site" --no-warn-script-location -q --only-binary=:all: \
	--python-version 3.11 --implementation cp --abi cp311 "${E0_PLATFORMS[@]}"
expect_grep "the cu128 build" "2\.10\.0\+cu128" "$TMP/site/torch/__init__.py"
expect_exit 0 "verify passes it" wp verify "$TMP/wh"
cp "$TMP/wh/pylock.toml" "$TMP/pylock.bak"
sed -i 's/hashes = { sha256 = "\(.\)/hashes = { sha256 = "0/' "$TMP/wh/pylock.toml"
expect_exit 4 "a pylock.toml with a wrong hash fails verify" wp verify "$TMP/wh"
cp "$TMP/pylock.bak" "$TMP/wh/pylock.toml"
sed -i '0,/path = "/s//path = "..\/..\/etc\//' "$TMP/wh/pylock.toml"
expect_exit 4 "and one with a path out of the folder" wp verify "$TMP/wh"
cp "$TMP/pylock.bak" "$TMP/wh/pylock.toml"

# --- targets markers cannot tell apart: a file each ---------------------------------------------
expect_exit 0 "two CUDA drivers on one Python and platform" wp torch --cuda 11.8 --cuda 12.4 --python 3.11 \
	--platform manylinux_2_28_x86_64 --index "$WHL" -d "$TMP/wh2"
expect_no_file "no shared requirements.txt (it could not say which build)" "$TMP/wh2/requirements.txt"
expect_file "requirements for the 11.8 driver" "$TMP/wh2/requirements-cu118-py3.11-manylinux_2_28_x86_64.txt"
expect_file "requirements for the 12.4 driver" "$TMP/wh2/requirements-cu124-py3.11-manylinux_2_28_x86_64.txt"
expect_file "a lock for each" "$TMP/wh2/pylock.cu124-py3.11-manylinux_2_28_x86_64.toml"
expect_grep "the summary says which file goes where" "requirements-cu118-py3.11-manylinux_2_28_x86_64\.txt: for CUDA 11\.8" "$TMP/err"
expect_grep "11.8 gets cu118" '^torch==2\.7\.1\+cu118' "$TMP/wh2/requirements-cu118-py3.11-manylinux_2_28_x86_64.txt"
expect_grep "12.4 gets cu128" '^torch==2\.10\.0\+cu128' "$TMP/wh2/requirements-cu124-py3.11-manylinux_2_28_x86_64.txt"
expect_exit 0 "each lock is valid" "$PYTHON" "$CHECK" "$TMP/wh2/pylock.cu118-py3.11-manylinux_2_28_x86_64.toml" --env "$E0"
expect_grep "with one torch for its target" "^torch==2\.7\.1\+cu118$" "$TMP/out"
expect_exit 0 "verify passes the wheelhouse" wp verify "$TMP/wh2"
# a re-run for one target removes the files that no longer apply
expect_exit 0 "a re-run for one target" wp torch --cuda 12.4 --python 3.11 --platform manylinux_2_28_x86_64 --index "$WHL" -d "$TMP/wh2"
expect_file "the shared file is back" "$TMP/wh2/requirements.txt"
expect_no_file "the stale per-target file is gone" "$TMP/wh2/requirements-cu118-py3.11-manylinux_2_28_x86_64.txt"
expect_no_file "and its lock" "$TMP/wh2/pylock.cu118-py3.11-manylinux_2_28_x86_64.toml"
# a bundle of per-target files: install.sh asks which
expect_exit 0 "a bundle for two drivers" wp bundle "$TMP/two.tar.gz" torch --cuda 11.8 --cuda 12.4 --python 3.11 \
	--platform manylinux_2_28_x86_64 --index "$WHL"
mkdir -p "$TMP/unpack" && tar -C "$TMP/unpack" -xzf "$TMP/two.tar.gz"
expect_exit 2 "install.sh with no file named says which there are" sh "$TMP/unpack/two/install.sh" --dry-run
expect_grep "naming each" "requirements-cu118-py3.11-manylinux_2_28_x86_64\.txt: +CUDA 11\.8" "$TMP/err"
expect_exit 0 "verify passes the bundle" wp verify "$TMP/two.tar.gz"

# --- a mirror laid out like PyTorch's: one root per variant, beside the merged simple/ ----------
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1
expect_exit 0 "a mirror for CUDA 11.8 and 12.4" wp mirror "$TMP/mir" torch --cuda 11.8 --cuda 12.4 --python 3.11 \
	--platform manylinux_2_28_x86_64 --index "$WHL"
expect_file "the merged root" "$TMP/mir/simple/torch/index.html"
expect_file "a cu118 root" "$TMP/mir/cu118/torch/index.html"
expect_file "a cu128 root" "$TMP/mir/cu128/torch/index.json"
expect_grep "the merged page has both builds" "2\.10\.0%2Bcu128" "$TMP/mir/simple/torch/index.html"
expect_no_grep "the cu118 root has no other variant" "cu128|cu126" "$TMP/mir/cu118/torch/index.html"
expect_file "and the pure dependencies" "$TMP/mir/cu118/filelock/index.html"
expect_no_file "but not another variant's nvidia packages" "$TMP/mir/cu118/nvidia-cuda-runtime-cu12/index.html"
expect_grep "PEP 658 files announced (PEP 714)" 'data-core-metadata="sha256=[0-9a-f]{64}"' "$TMP/mir/cu118/torch/index.html"
expect_grep "and in PEP 691 JSON" '"core-metadata"' "$TMP/mir/cu118/torch/index.json"
expect_grep "links are relative" 'href="\.\./\.\./files/torch/' "$TMP/mir/cu118/torch/index.html"
expect_exit 0 "verify checks every root" wp verify "$TMP/mir"
if [ -x /usr/sbin/nginx ]; then
	start_nginx "$TMP/mir"
	# the trap: the merged index hands pip the highest local label, whatever the machine runs
	"$PYTHON" -m pip download --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 --python-version 3.11 \
		--index-url "$NGINX_BASE/simple/" -d "$TMP/dl-merged" torch >"$TMP/pip.out" 2>&1
	expect_grep "the merged root gives pip cu128" "torch-2\.10\.0\+cu128" <(ls "$TMP/dl-merged")
	if "$PYTHON" -m pip download --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 --python-version 3.11 \
		--index-url "$NGINX_BASE/cu118/" -d "$TMP/dl" torch >"$TMP/pip.out" 2>&1 &&
		ls "$TMP/dl" | grep -q '^torch-2\.7\.1+cu118-cp311'; then
		pass "pip, served the cu118 root by nginx, gets the cu118 build"
	else
		fail "pip from the cu118 root"; cat "$TMP/pip.out" >&2
	fi
	stop_nginx
else
	fail "nginx is not installed (make deps installs nginx-light)"
fi
# a re-run with one target drops the other root's pages, and leaves pages it never wrote alone
mkdir -p "$TMP/mir/simple/someone-else" && echo '<html></html>' >"$TMP/mir/simple/someone-else/index.html"
expect_exit 0 "a re-run for 12.4 only, with --prune" wp mirror "$TMP/mir" torch --cuda 12.4 --python 3.11 \
	--platform manylinux_2_28_x86_64 --index "$WHL" --prune
expect_no_file "the cu118 root is gone" "$TMP/mir/cu118/torch/index.html"
expect_file "cu128 stays" "$TMP/mir/cu128/torch/index.html"
expect_file "another tool's page is left alone" "$TMP/mir/simple/someone-else/index.html"

# --- lock: no downloads, URLs --------------------------------------------------------------------
rm -rf "$WHEELPICK_CACHE_DIR/files"
expect_exit 0 "lock" wp lock torch --cuda 12.4 --python 3.11 --python 3.12 --platform manylinux_2_28_x86_64 \
	--index "$WHL" -o "$TMP/lk/pylock.toml"
expect_grep "says what it wrote" "wrote pylock\.toml: for every target" "$TMP/out"
expect_exit 0 "a valid lock" "$PYTHON" "$CHECK" "$TMP/lk/pylock.toml" --env "$E0" --env "$E2"
expect_grep "wheels by URL" 'url = "http://127\.0\.0\.1:[0-9]+/whl/cu128/torch-2\.10\.0%2Bcu128-cp311' "$TMP/lk/pylock.toml"
[ "$(find "$WHEELPICK_CACHE_DIR/files" -type f 2>/dev/null | wc -l)" = 0 ] && pass "and nothing was downloaded" ||
	fail "lock downloaded: $(find "$WHEELPICK_CACHE_DIR/files" -type f | head -3)"
expect_exit 2 "a lock must be named as PEP 751 says" wp lock torch --cuda 12.4 --python 3.11 --platform manylinux_2_28_x86_64 \
	--index "$WHL" -o "$TMP/lk/mylock.toml"
expect_grep "and the message says how" "pylock\.toml or pylock\.NAME\.toml" "$TMP/err"
expect_exit 0 "a named lock" wp lock torch --cuda 12.4 --python 3.11 --platform manylinux_2_28_x86_64 --index "$WHL" -o "$TMP/lk/pylock.gpu.toml"
expect_exit 0 "is valid too" "$PYTHON" "$CHECK" "$TMP/lk/pylock.gpu.toml"
done_testing
