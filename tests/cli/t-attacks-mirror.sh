#!/usr/bin/env bash
# tests/cli/t-attacks-mirror.sh: the attack matrix, part 7: mirrors killed at every kind of step,
# tampered PEP 691 pages that verify must catch, -r fan-outs that end, and hostile shards and labels.
#   WHEELPICK=build/wheelpick bash tests/cli/t-attacks-mirror.sh
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/attacks-lib.sh"
make_sample
export WHEELPICK_RETRY_BASE_MS=20
fresh base
expect_exit 0 "a catalog" wp update --index "$FINDLINKS"

# --- a killed mirror leaves a tree that verifies ---------------------------------------------
# tests/cli/killat.c kills the process (SIGKILL, as kill -9) just before its Nth change under the
# tree (rename, unlink, rmdir, mkdir): a count run says how many changes a job makes, then runs
# killed at points spread over them reach the states between, deterministically.
KILLAT="$TMP/killat.so"
${CC:-cc} -shared -fPIC -O1 -o "$KILLAT" "$ROOT/tests/cli/killat.c" -ldl || fail "cannot build killat.so"
# (an ASan build loads its runtime first only when it is told that a preload is fine)
KILL_ENV=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "LD_PRELOAD=$KILLAT")
KILLS=${WP_MIRROR_KILLS:-8}
# the tree verifies, or holds nothing yet (a first run killed before its first page)
tree_ok() {
	"$WHEELPICK" verify "$1" >"$TMP/v.out" 2>&1 && return 0
	[ -z "$(find "$1" -type f ! -name '*.tmp.*' ! -name '.wheelpick-*' 2>/dev/null)" ]
}
# kill_steps NAME BASE-TREE ARGS...: the mirror job ARGS on a copy of BASE-TREE, killed at KILLS
# points spread over its steps (and the last); each left tree must verify. Sets STEPS.
kill_steps() {
	local name=$1 base=$2 m="$TMP/ks-$1" i n bad=0
	shift 2
	rm -rf "$m" && cp -a "$base" "$m"
	WP_KILL_UNDER="$m" WP_KILL_COUNT="$TMP/count" "${KILL_ENV[@]}" "$WHEELPICK" mirror "$m" "$@" >/dev/null 2>&1
	n=$(cat "$TMP/count" 2>/dev/null || echo 0)
	STEPS=$n
	[ "$n" -gt 0 ] || { fail "$name: the count run made no change"; return; }
	for i in $(seq 1 $(((n + KILLS - 1) / KILLS)) "$n") "$n"; do
		rm -rf "$m" && cp -a "$base" "$m"
		(WP_KILL_UNDER="$m" WP_KILL_AT=$i exec "${KILL_ENV[@]}" "$WHEELPICK" mirror "$m" "$@" >/dev/null 2>&1) 2>/dev/null
		if ! tree_ok "$m"; then
			bad=$((bad + 1))
			echo "    $name: killed at step $i of $n: $(grep -v 'note:' "$TMP/v.out" | head -1)" >&2
		fi
	done
	expect_eq "$name: killed at $KILLS points of $n steps, the tree verifies each time" "$bad" 0
}
MT="--cuda 11.2 --cuda cpu --python 3.8 --platform linux_x86_64 --platform win_amd64"
T="--cuda 11.2 --python 3.8 --platform linux_x86_64"
mkdir -p "$TMP/empty"

attack "kill -9 during a first mirror (two targets, two platforms): a root page never links a page that is missing"
kill_steps first "$TMP/empty" torch torchvision $MT --index "$FINDLINKS"

attack "kill -9 during a re-run that adds targets: every state between verifies"
wp mirror "$TMP/base-rerun" torch==1.7.1 $T --index "$FINDLINKS" >/dev/null 2>&1
kill_steps rerun "$TMP/base-rerun" torch torchvision --cuda 11.0 --cuda cpu --python 3.8 --platform linux_x86_64 --index "$FINDLINKS"

attack "kill -9 during mirror --prune that drops roots: a root goes before the pages it links"
wp mirror "$TMP/base-prune" torch torchvision --cuda 11.2 --cuda cpu --python 3.8 --platform linux_x86_64 --index "$FINDLINKS" >/dev/null 2>&1
kill_steps prune "$TMP/base-prune" torch==1.7.1 --cuda 10.2 --python 3.8 --platform linux_x86_64 --prune --index "$FINDLINKS"

attack "a run killed mid-way, then a --prune run for other targets: the killed run's roots and pages go, root first"
A="torch torchvision --cuda 11.2 --cuda cpu --python 3.8 --platform linux_x86_64"
m="$TMP/kp"
rm -rf "$m"
WP_KILL_UNDER="$m" WP_KILL_COUNT="$TMP/count" "${KILL_ENV[@]}" "$WHEELPICK" mirror "$m" $A --index "$FINDLINKS" >/dev/null 2>&1
n=$(cat "$TMP/count")
bad=0
for i in $(seq $((n / 2)) $(((n + KILLS - 1) / KILLS)) "$n"); do
	rm -rf "$m"
	(WP_KILL_UNDER="$m" WP_KILL_AT=$i exec "${KILL_ENV[@]}" "$WHEELPICK" mirror "$m" $A --index "$FINDLINKS" >/dev/null 2>&1) 2>/dev/null
	"$WHEELPICK" mirror "$m" torch==1.7.1 --cuda 10.2 --python 3.8 --platform linux_x86_64 --prune --index "$FINDLINKS" >/dev/null 2>&1 ||
		fail "the run after a kill at $i failed"
	tree_ok "$m" || { bad=$((bad + 1)); echo "    killed at $i of $n: $(grep -v 'note:' "$TMP/v.out" | head -1)" >&2; }
	[ -d "$m/cpu" ] && fail "killed at $i: the killed run's root cpu/ is left"
done
expect_eq "each kill, then --prune: the tree verifies" "$bad" 0

attack "kill -9 while a mirror replaces a file with other bytes (trusted anew): its interim page, pending list first"
fresh cf
mkdir -p "$TMP/cf/a" "$TMP/cf/b"
mkwheel "$TMP/cf/a" demo-pkg 1.0 && A_FN=$W_FN A_SHA=$W_SHA
mkwheel "$TMP/cf/b" demo-pkg 1.0 --payload 'other = 1' && B_SHA=$W_SHA
mkwheel "$TMP/cf/a" other-pkg 1.0 && O_FN=$W_FN O_SHA=$W_SHA
CT="--cuda cpu --python 3.8 --platform linux_x86_64 --index file://$TMP/cf/page.html"
printf '<a href="a/%s#sha256=%s">x</a>\n<a href="a/%s#sha256=%s">x</a>\n' "$A_FN" "$A_SHA" "$O_FN" "$O_SHA" >"$TMP/cf/page.html"
expect_exit 0 "a mirror of the first bytes" wp mirror "$TMP/cf/base" demo-pkg other-pkg $CT
printf '<a href="b/%s#sha256=%s">x</a>\n<a href="a/%s#sha256=%s">x</a>\n' "$A_FN" "$B_SHA" "$O_FN" "$O_SHA" >"$TMP/cf/page.html"
wp update --index "file://$TMP/cf/page.html" >/dev/null 2>&1
expect_exit 0 "the index's new bytes trusted" wp trust
kill_steps conflict "$TMP/cf/base" demo-pkg other-pkg $CT
expect_exit 0 "a run to the end" wp mirror "$TMP/ks-conflict" demo-pkg other-pkg $CT
expect_grep "gives the new bytes" "$B_SHA" "$TMP/ks-conflict/simple/demo-pkg/index.json"

attack "kill -9 at random times during mirror ($KILLS times): each left tree verifies"
bad=0
for i in $(seq 1 "$KILLS"); do
	rm -rf "$TMP/rk"
	"$WHEELPICK" mirror "$TMP/rk" torch torchvision $MT --index "$FINDLINKS" >/dev/null 2>&1 &
	pid=$!
	sleep "0.$((RANDOM % 3))$((RANDOM % 10))$((RANDOM % 10 + 1))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	tree_ok "$TMP/rk" || { bad=$((bad + 1)); grep -v 'note:' "$TMP/v.out" | head -1 >&2; }
done
expect_eq "every killed tree verifies" "$bad" 0

# --- verify accounts for every entry of every page ------------------------------------------
attack "verify fails a mirror whose PEP 691 index.json or index.html was tampered (exit 4)"
TM="$TMP/tm"
expect_exit 0 "a mirror" wp mirror "$TM" torch==1.8.0 $T --index "$FINDLINKS"
expect_exit 0 "that verifies" wp verify "$TM"
# tamper KIND: a copy of the mirror with its torch index.json edited
tamper() {
	rm -rf "$TMP/tt" && cp -a "$TM" "$TMP/tt"
	"$PYTHON" - "$TMP/tt/simple/torch/index.json" "$1" <<'PY'
import json, sys
p, kind = sys.argv[1], sys.argv[2]
j = json.load(open(p)); f = j["files"]
if kind == "evil-host": f.append(dict(f[0], filename="torch-9.9.9-cp38-cp38-linux_x86_64.whl", url="http://evil.example/x.whl"))
if kind == "evil-host-named": f.append(dict(f[0], filename="x-9.9.9-py3-none-any.whl", url="http://evil.example/x-9.9.9-py3-none-any.whl"))
if kind == "passwd": f[0]["url"] = "../../../../etc/passwd"
if kind == "renamed": f[0]["filename"] = "torch-1.8.0+cu102-cp38-cp38-linux_x86_64.whl"
if kind == "not-an-object": f.append(5)
if kind == "files-emptied": j["files"] = []
json.dump(j, open(p, "w"))
PY
}
for k in evil-host evil-host-named passwd renamed not-an-object files-emptied; do
	tamper "$k"
	expect_exit 4 "index.json $k" wp verify "$TMP/tt"
done
rm -rf "$TMP/tt" && cp -a "$TM" "$TMP/tt"
sed -i 's|href="[^"]*"|href="../../../../etc/passwd"|' "$TMP/tt/simple/torch/index.html"
expect_exit 4 "index.html linking ../../../../etc/passwd" wp verify "$TMP/tt"
rm -rf "$TMP/tt" && cp -a "$TM" "$TMP/tt"
sed -i 's|href="\.\./\.\./files/|href="../../../../../../../tmp/files/|' "$TMP/tt/simple/torch/index.html"
expect_exit 4 "index.html whose link climbs out of the tree with .. segments" wp verify "$TMP/tt"
rm -rf "$TMP/tt" && cp -a "$TM" "$TMP/tt"
sed -i 's|</body>|<a href="../../../etc/">etc</a></body>|' "$TMP/tt/simple/index.html"
expect_exit 4 "a root page with a link that is no project" wp verify "$TMP/tt"

# --- -r fan-outs end ------------------------------------------------------------------------------
attack "a -r fan-out (30 -r lines per file, 10 levels) ends: a file named twice is read once, files and bytes are capped"
mkdir -p "$TMP/fan"
"$PYTHON" - "$TMP/fan" <<'PY'
import sys
d = sys.argv[1]
def lattice(prefix, width, levels):  # every file of a level names every file of the next
    for k in range(levels):
        for i in range(width if k else 1):
            with open(f"{d}/{prefix}{k}-{i}.txt", "w") as f:
                f.write("".join(f"-r {prefix}{k + 1}-{j}.txt\n" for j in range(width)) if k < levels - 1 else "torch==1.8.0\n")
lattice("a", 30, 10)   # 30^9 paths through 271 files
lattice("b", 130, 9)   # 1,041 files
PY
expect_fast "30 -r per file, 10 levels: each of the 271 files is read once" 10 \
	"$WHEELPICK" pick -r "$TMP/fan/a0-0.txt" $T --index "$FINDLINKS" --dry-run --no-deps
expect_eq "and the pick is made" "$RC" 0
expect_fast "130 -r per file over 1,041 files: refused by the caps" 10 \
	"$WHEELPICK" pick -r "$TMP/fan/b0-0.txt" $T --index "$FINDLINKS" --dry-run --no-deps
expect_eq "exit 2" "$RC" 2
one_line "in one line" "$TMP/err"
expect_grep "naming the cap" "more than [0-9]+ (files|-r and -c lines)" "$TMP/err"

# --- the low items ------------------------------------------------------------------------------
attack "an index's requires-python that is no PEP 440 specifier set stays out of pylock.toml, with a warning"
fresh rp
mkdir -p "$TMP/rp"
mkwheel "$TMP/rp" demo-pkg 1.0
printf '<a href="%s#sha256=%s" data-requires-python="&gt;=3.6&#10;[tool]&#127;x">%s</a>\n' "$W_FN" "$W_SHA" "$W_FN" >"$TMP/rp/page.html"
expect_exit 0 "lock" wp lock demo-pkg --cuda cpu --python 3.8 --platform linux_x86_64 --index "file://$TMP/rp/page.html" -o "$TMP/rp/pylock.toml"
expect_grep "a warning names the file" "warning: .*demo_pkg-1\.0-py3-none-any\.whl.*requires-python" "$TMP/err"
"$PYTHON" -c 'import sys, tomllib; d = tomllib.load(open(sys.argv[1], "rb")); assert all("requires-python" not in p for p in d["packages"]), d' \
	"$TMP/rp/pylock.toml" && pass "the lock is TOML and the package has no requires-python" || fail "requires-python copied into the lock"

attack "hostile conda shards: exit 3 naming the shard, and a shard's records of another name are never stored"
PYMSG=""
for py in python3 /usr/bin/python3; do "$py" -c "import msgpack" 2>/dev/null && { PYMSG=$py; break; }; done
[ -n "$PYMSG" ] && pass "a Python with msgpack" || fail "no Python with msgpack (python3-msgpack; make deps)"
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$TMP/schan" "$TMP/sforge" >/dev/null
for sd in linux-64 noarch; do
	"$PYMSG" "$ROOT/tests/cli/mkshards.py" "$TMP/schan/$sd" --drop-repodata >/dev/null
	"$PYMSG" "$ROOT/tests/cli/mkshards.py" "$TMP/sforge/$sd" --drop-repodata >/dev/null
done
cat >"$TMP/hostile.py" <<'PY'
# hostile.py SUBDIR NAME KIND: NAME's shard in SUBDIR replaced by a hostile one; the index names it
import hashlib, msgpack, os, subprocess, sys
d, name, kind = sys.argv[1:4]
zst = lambda b: subprocess.run(["zstd", "-q", "-c", "-"], input=b, check=True, stdout=subprocess.PIPE).stdout
unz = lambda b: subprocess.run(["zstd", "-q", "-d", "-c", "-"], input=b, check=True, stdout=subprocess.PIPE).stdout
ip = os.path.join(d, "repodata_shards.msgpack.zst")
ix = msgpack.unpackb(unz(open(ip, "rb").read()))
sp = os.path.join(d, "shards", ix["shards"][name].hex() + ".msgpack.zst")
shard = msgpack.unpackb(unz(open(sp, "rb").read()))
if kind == "other-name":  # the real records, and each again under another name
    for sec in ("packages", "packages.conda"):
        for fn, rec in list(shard.get(sec, {}).items()):
            shard[sec]["evil-" + fn.split("-", 1)[1]] = dict(rec, name="evil")
    body = zst(msgpack.packb(shard))
elif kind == "garbage": body = zst(b"\xc1" * 64)
elif kind == "not-zstd": body = b"hello, not zstd"
elif kind == "list": body = zst(msgpack.packb([1, 2, 3]))
elif kind == "bad-types":
    for sec in ("packages", "packages.conda"):
        for rec in shard.get(sec, {}).values():
            rec["version"] = 7
    body = zst(msgpack.packb(shard))
h = hashlib.sha256(body).digest()
os.unlink(sp)
open(os.path.join(d, "shards", h.hex() + ".msgpack.zst"), "wb").write(body)
ix["shards"][name] = h
open(ip, "wb").write(zst(msgpack.packb(ix)))
PY
for k in other-name garbage not-zstd list bad-types; do
	rm -rf "$TMP/hch" && cp -a "$TMP/schan" "$TMP/hch"
	"$PYMSG" "$TMP/hostile.py" "$TMP/hch/linux-64" pytorch "$k"
	fresh "sh-$k"
	expect_exit 3 "a $k shard: exit 3" wp pick 'pytorch==1.8.0' --conda -c "file://$TMP/hch" -c "file://$TMP/sforge" \
		--cuda 11.2 --python 3.8 --platform linux-64 --dry-run
	expect_grep "naming the shard" "wheelpick: .*file://$TMP/hch/linux-64/shards/" "$TMP/err"
	[ "$k" = other-name ] && expect_eq "no record of 'evil' stored" "$(sql "SELECT (SELECT count(*) FROM files WHERE project = 'evil') + (SELECT count(*) FROM conda_chunks WHERE project = 'evil')")" 0
done

attack "a plain bundle OUT removes an earlier run's OUT.001... volumes (and a --split run a plain OUT)"
fresh bv
mkdir -p "$TMP/bv"
expect_exit 0 "a bundle in 1K volumes" wp bundle "$TMP/bv/b.tar.zst" torch==1.8.0 $T --index "$FINDLINKS" --split 1K
expect_file "volume 1" "$TMP/bv/b.tar.zst.001"
expect_exit 0 "then a plain bundle of another version under the same name" wp bundle "$TMP/bv/b.tar.zst" torch==1.7.1 $T --index "$FINDLINKS"
expect_eq "no volume of the earlier set is left" "$(find "$TMP/bv" -name 'b.tar.zst.0*' | wc -l)" 0
expect_exit 0 "the bundle verifies" wp verify "$TMP/bv/b.tar.zst"
expect_exit 0 "a --split run again" wp bundle "$TMP/bv/b.tar.zst" torch==1.8.0 $T --index "$FINDLINKS" --split 1K
expect_no_file "the plain bundle is gone" "$TMP/bv/b.tar.zst"
expect_exit 0 "the set verifies" wp verify "$TMP/bv/b.tar.zst.001"

attack "a bundle whose install.sh (or another member) is setuid, setgid, sticky or world-writable fails verify (exit 4)"
expect_exit 0 "a bundle" wp bundle "$TMP/bm.tar.zst" torch==1.8.0 $T --index "$FINDLINKS"
for mode in 4777 2755 1755 0777 0757; do
	rm -rf "$TMP/bmx" && mkdir -p "$TMP/bmx" && tar -C "$TMP/bmx" --zstd -xf "$TMP/bm.tar.zst"
	chmod "$mode" "$TMP/bmx"/*/install.sh
	tar -C "$TMP/bmx" --zstd -cf "$TMP/bm-$mode.tar.zst" "$(ls "$TMP/bmx")"
	expect_exit 4 "install.sh $mode in the archive" wp verify "$TMP/bm-$mode.tar.zst"
	expect_exit 4 "install.sh $mode unpacked" wp verify "$TMP/bmx/$(ls "$TMP/bmx")"
done
rm -rf "$TMP/bmx" && mkdir -p "$TMP/bmx" && tar -C "$TMP/bmx" --zstd -xf "$TMP/bm.tar.zst"
chmod 4755 "$TMP/bmx"/*/*.whl
tar -C "$TMP/bmx" --zstd -cf "$TMP/bm-whl.tar.zst" "$(ls "$TMP/bmx")"
expect_exit 4 "a setuid wheel in the archive" wp verify "$TMP/bm-whl.tar.zst"

attack "update on a catalog whose tables have another shape, or that carries triggers or views: refused by name (exit 3)"
fresh shape
expect_exit 0 "a catalog" wp update --index "$FINDLINKS"
cp "$WHEELPICK_CATALOG" "$TMP/good.sqlite3"
for how in "ALTER TABLE files RENAME TO files_old; CREATE TABLE files(id INTEGER PRIMARY KEY, junk TEXT)" \
	"ALTER TABLE sources DROP COLUMN etag" \
	"CREATE TRIGGER keep_nothing AFTER INSERT ON files BEGIN DELETE FROM files WHERE id = new.id; END" \
	"CREATE VIEW picks AS SELECT * FROM files"; do
	cp "$TMP/good.sqlite3" "$WHEELPICK_CATALOG"
	rm -f "$WHEELPICK_CATALOG-wal" "$WHEELPICK_CATALOG-shm"
	sqlite3 "$WHEELPICK_CATALOG" "$how" || fail "cannot make the case: $how"
	expect_exit 3 "${how%% *} ... : update refuses" wp update --index "$FINDLINKS" --force
	expect_grep "naming the file" "catalog '$WHEELPICK_CATALOG'" "$TMP/err"
	one_line "in one line" "$TMP/err"
done

attack "a wheel whose Requires-Dist cannot be read is refused (exit 4), as pip refuses its metadata"
fresh rd
mkdir -p "$TMP/rd"
mkwheel "$TMP/rd" demo-pkg 1.0 --requires 'foo ((('
printf '<a href="%s#sha256=%s">%s</a>\n' "$W_FN" "$W_SHA" "$W_FN" >"$TMP/rd/page.html"
expect_exit 4 "pick -d" wp pick demo-pkg --cuda cpu --python 3.8 --platform linux_x86_64 --index "file://$TMP/rd/page.html" -d "$TMP/rd/wh"
expect_grep "naming the wheel and the line" "demo_pkg-1\.0-py3-none-any\.whl.*Requires-Dist.*foo \(\(\(" "$TMP/err"
expect_no_file "no wheelhouse" "$TMP/rd/wh/requirements.txt"
expect_exit 4 "lock" wp lock demo-pkg --cuda cpu --python 3.8 --platform linux_x86_64 --index "file://$TMP/rd/page.html" -o "$TMP/rd/pylock.toml"

attack "a wheelhouse written over keeps no wheel of the earlier set that no requirement names (a wheel of the user's stays)"
fresh wo
expect_exit 0 "a wheelhouse" wp torch==1.8.0 torchvision $T --index "$FINDLINKS" -d "$TMP/wo"
cp "$TMP/wo/numpy-1.24.0-py3-none-any.whl" "$TMP/wo/mine-1.0-py3-none-any.whl"
expect_exit 0 "written over with another set" wp torch==1.7.1 --no-deps $T --index "$FINDLINKS" -d "$TMP/wo"
expect_eq "the earlier set's wheels are gone" "$(cd "$TMP/wo" && ls torch-1.8.0* torchvision-* numpy-* 2>/dev/null | wc -l)" 0
expect_file "the new one is there" "$TMP/wo/torch-1.7.1+cu110-cp38-cp38-linux_x86_64.whl"
expect_file "a wheel no record of ours names stays" "$TMP/wo/mine-1.0-py3-none-any.whl"
rm -f "$TMP/wo/mine-1.0-py3-none-any.whl"
expect_exit 0 "and the wheelhouse verifies" wp verify "$TMP/wo"

attack "a variant wheel whose own variant.json names another label is refused (exit 4) before a wheelhouse is written"
need_real variants/variant-repack__torch-2.10__torch-2.10.0-variants.json
"$PYTHON" "$ROOT/tests/fixtures/mkvariants.py" "$TMP/vl" "$REAL_DATA/variants/variant-repack__torch-2.10__torch-2.10.0-variants.json" >/dev/null
# the cuda12.8 wheel's variant.json made to name 'cpu' (RECORD and the index's hashes follow, so
# only the label disagrees)
"$PYTHON" - "$TMP/vl" <<'PY'
import base64, glob, hashlib, io, json, os, sys, zipfile
d = sys.argv[1]
path = glob.glob(os.path.join(d, "files", "torch-2.10.0-*-cuda12.8.whl"))[0]
old = hashlib.sha256(open(path, "rb").read()).hexdigest()
zin = zipfile.ZipFile(path)
members = {n: zin.read(n) for n in zin.namelist()}
zin.close()
vj = [n for n in members if n.endswith(".dist-info/variant.json")][0]
j = json.loads(members[vj]); j["variants"] = {"cpu": list(j["variants"].values())[0]}
members[vj] = json.dumps(j).encode()
rec = [n for n in members if n.endswith(".dist-info/RECORD")][0]
h = lambda b: "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
members[rec] = "".join("%s,%s,%d\n" % (n, h(b), len(b)) if n != rec else "%s,,\n" % n for n, b in members.items()).encode()
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    for n, b in members.items():
        z.writestr(n, b)
open(path, "wb").write(buf.getvalue())
new = hashlib.sha256(buf.getvalue()).hexdigest()
for page in glob.glob(os.path.join(d, "simple", "torch", "index.*")):
    t = open(page).read().replace(old, new); open(page, "w").write(t)
PY
fresh vl
start_server "$TMP/vl"
expect_exit 4 "pick -d" wp pick torch --cuda 12.8 --gpu sm_86 --python 3.12 --platform manylinux_2_28_x86_64 \
	--index "$BASE/simple/" -d "$TMP/vlw"
expect_grep "naming the wheel and both labels" "cuda12\.8\.whl.*variant\.json names 'cpu'.*label is 'cuda12\.8'" "$TMP/err"
expect_no_file "no wheelhouse written" "$TMP/vlw/requirements.txt"

attack "variants.json with U+007F in a string: pylock.toml stays TOML; with a key twice: refused (exit 3)"
V10="$REAL_DATA/variants/variant-repack__torch-2.10__torch-2.10.0-variants.json"
"$PYTHON" - "$V10" "$TMP" <<'PY'
import sys
t = open(sys.argv[1]).read()
open(sys.argv[2] + "/v-del.json", "w").write(t.replace('v0.0.3.json"', 'v0.0.3.json\\u007f"', 1))
open(sys.argv[2] + "/v-dup.json", "w").write(t.replace("{", '{"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json", ', 1))
PY
for k in del dup; do "$PYTHON" "$ROOT/tests/fixtures/mkvariants.py" "$TMP/vl/$k" "$TMP/v-$k.json" >/dev/null; done
VT="--cuda 12.8 --gpu sm_86 --python 3.12 --platform manylinux_2_28_x86_64"
fresh vdel
expect_exit 0 "lock from a variants.json whose \$schema holds U+007F" wp lock torch $VT --index "$BASE/del/simple/" -o "$TMP/vdel/pylock.toml"
"$PYTHON" -c 'import sys, tomllib; tomllib.load(open(sys.argv[1], "rb"))' "$TMP/vdel/pylock.toml" 2>"$TMP/toml.err" &&
	pass "the lock is TOML" || { fail "the lock is not TOML"; cat "$TMP/toml.err" >&2; }
fresh vdup
expect_exit 3 "lock from a variants.json with a key twice" wp lock torch $VT --index "$BASE/dup/simple/" -o "$TMP/vdup/pylock.toml"
expect_grep "naming the file and the key" "torch-2\.10\.0-variants\.json.*'\\\$schema' appears twice" "$TMP/err"

done_matrix
