#!/usr/bin/env bash
# tests/cli/t-conda-shards.sh: conda channels with CEP 16 sharded repodata: only the shards a closure
# needs are read, the picks equal those from repodata.json, a shard that fails its hash is exit 4.
. "$(dirname "$0")/../lib.sh"
PYMSG=""
for py in python3 /usr/bin/python3; do "$py" -c "import msgpack" 2>/dev/null && { PYMSG=$py; break; }; done
[ -n "$PYMSG" ] && pass "a Python with msgpack: $PYMSG" || { fail "no Python with msgpack (python3-msgpack; make deps)"; done_testing; }
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$TMP/chan" "$TMP/forge"
# the same channels, sharded as another server would write them, and without repodata.json: what
# is picked from them can only have come from the shards. The forge's index hashes each shard
# before compression (servers differ; both are accepted).
cp -r "$TMP/chan" "$TMP/schan"
cp -r "$TMP/forge" "$TMP/sforge"
for sd in linux-64 noarch; do
	"$PYMSG" "$ROOT/tests/cli/mkshards.py" "$TMP/schan/$sd" --drop-repodata >"$TMP/schan-$sd.names"
	"$PYMSG" "$ROOT/tests/cli/mkshards.py" "$TMP/sforge/$sd" --drop-repodata --hash-decompressed >"$TMP/sforge-$sd.names"
done
CH="file://$TMP/chan" FORGE="file://$TMP/forge"
SCH="file://$TMP/schan" SFORGE="file://$TMP/sforge"

# picks from the shards equal picks from repodata.json, target by target
picks() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sorted((p['name'], p['version'], p['build'], p.get('sha256'), p.get('md5')) for p in j['picks']))" "$1"; }
for t in "--cuda 11.2" "--cuda 11.0" "--cuda cpu"; do
	# shellcheck disable=SC2086
	WHEELPICK_CATALOG="$TMP/plain.db" expect_exit 0 "repodata.json: pytorch $t" wp pick 'pytorch==1.8.0' --conda -c "$CH" -c "$FORGE" $t \
		--python 3.8 --platform linux-64 --dry-run --json
	picks "$TMP/out" >"$TMP/want"
	# shellcheck disable=SC2086
	WHEELPICK_CATALOG="$TMP/shards.db" expect_exit 0 "shards: pytorch $t" wp pick 'pytorch==1.8.0' --conda -c "$SCH" -c "$SFORGE" $t \
		--python 3.8 --platform linux-64 --dry-run --json
	picks "$TMP/out" >"$TMP/got"
	if [ -s "$TMP/want" ] && cmp -s "$TMP/want" "$TMP/got"; then pass "the same picks for $t"; else fail "picks differ for $t: $(cat "$TMP/want") vs $(cat "$TMP/got")"; fi
done
WHEELPICK_CATALOG="$TMP/shards.db" expect_exit 0 "shards: a conflict resolved again" wp pick pytorch torchvision==0.8.2 --conda -c "$SCH" -c "$SFORGE" \
	--cuda 11.0 --python 3.8 --platform linux-64 --dry-run --json
expect_json "$TMP/out" "sorted((p['name'], p['version']) for p in j['picks'] if p['name'] in ('pytorch', 'torchvision'))" "[('pytorch', '1.7.1'), ('torchvision', '0.8.2')]"
# the closure, fetched and proven from the shards' URLs, as a channel; and verified
WHEELPICK_CATALOG="$TMP/shards.db" expect_exit 0 "shards: a local channel" wp pick 'pytorch==1.8.0' --conda -c "$SCH" -c "$SFORGE" --cuda 11.2 \
	--python 3.8 --platform linux-64 -d "$TMP/local"
expect_file "with its package" "$TMP/local/linux-64/pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0.tar.bz2"
expect_exit 0 "and it verifies" wp verify "$TMP/local"

# over HTTP: the index and only the shards of the closure, never repodata.json
start_server "$TMP"
export WHEELPICK_CATALOG="$TMP/http.db"
expect_exit 0 "http: pick from sharded channels" wp pick 'pytorch==1.8.0' --conda -c "$BASE/schan" -c "$BASE/sforge" --cuda 11.2 \
	--python 3.8 --platform linux-64 --dry-run --json
expect_json "$TMP/out" "[p['build'] for p in j['picks'] if p['name']=='pytorch']" "['py3.8_cuda11.1_cudnn8.0.5_0']"
shard_of() { awk -v n="$2" '$1 == n { print $2 }' "$TMP/$1.names"; }
for n in pytorch cudatoolkit pytorch-mutex cpuonly; do
	expect_grep "fetched the $n shard" "/schan/linux-64/shards/$(shard_of schan-linux-64 "$n").msgpack.zst" "$TMP/server.log"
done
expect_grep "and python's from the forge" "/sforge/linux-64/shards/$(shard_of sforge-linux-64 python).msgpack.zst" "$TMP/server.log"
expect_grep "and pip's, from its noarch" "/sforge/noarch/shards/$(shard_of sforge-noarch pip).msgpack.zst" "$TMP/server.log"
expect_no_grep "not torchvision's: nothing needs it" "$(shard_of schan-linux-64 torchvision)" "$TMP/server.log"
expect_no_grep "no repodata.json" "repodata.json" "$TMP/server.log"
n1=$(grep -c '/shards/' "$TMP/server.log")
[ "$n1" = 6 ] && pass "six shards in all" || fail "expected 6 shard requests, saw $n1"
# a second pick within the hour reads nothing at all; update --conda --project reads the index and
# finds every shard as it was (its hash is its name)
expect_exit 0 "http: a second pick" wp pick 'pytorch==1.8.0' --conda -c "$BASE/schan" -c "$BASE/sforge" --cuda 11.2 --python 3.8 \
	--platform linux-64 --dry-run
n2=$(grep -c '/shards/' "$TMP/server.log")
[ "$n2" = "$n1" ] && pass "no shard fetched again" || fail "shards fetched again: $n1 then $n2"
expect_exit 0 "update --conda --project: the sharded closure" wp -v update --conda -c "$BASE/schan" -c "$BASE/sforge" --project pytorch
n3=$(grep -c '/shards/' "$TMP/server.log")
[ "$n3" = "$n1" ] && pass "unchanged shards are not fetched" || fail "unchanged shards fetched: $n1 then $n3"
expect_grep "the index was read again" "\"n\":1,\"path\":\"/schan/linux-64/repodata_shards.msgpack.zst\",\"status\":200" "$TMP/server.log"
expect_no_grep "still no repodata.json" "repodata.json\"" "$TMP/server.log"
# an index gone since it was read (its read within the hour spares a fetch): a package nobody read
# yet comes from repodata.json instead
mv "$TMP/schan/linux-64/repodata_shards.msgpack.zst" "$TMP/schan-index.bak"
cp "$TMP/chan/linux-64/repodata.json" "$TMP/schan/linux-64/"
expect_exit 0 "http: the index went away" wp pick 'torchvision==0.8.2' --conda -c "$BASE/schan" -c "$BASE/sforge" --cuda 11.0 \
	--python 3.8 --platform linux-64 --dry-run --json
expect_json "$TMP/out" "[p['version'] for p in j['picks'] if p['name']=='torchvision']" "['0.8.2']"
expect_grep "said" "has no shard index any more; reading its repodata.json" "$TMP/err"
expect_grep "and repodata.json read" '"path":"/schan/linux-64/repodata.json"' "$TMP/server.log"
mv "$TMP/schan-index.bak" "$TMP/schan/linux-64/repodata_shards.msgpack.zst"
rm "$TMP/schan/linux-64/repodata.json"

# a shard whose bytes are not what the index names: exit 4, naming it
export WHEELPICK_CATALOG="$TMP/bad.db"
cp -r "$TMP/schan" "$TMP/bad"
f="$TMP/bad/linux-64/shards/$(shard_of schan-linux-64 cudatoolkit).msgpack.zst"
printf 'x' >>"$f"
expect_exit 4 "a tampered shard is an integrity failure" wp pick 'pytorch==1.8.0' --conda -c "file://$TMP/bad" -c "$SFORGE" --cuda 11.2 \
	--python 3.8 --platform linux-64 --dry-run
expect_grep "named, with both hashes" "shard '.*$(shard_of schan-linux-64 cudatoolkit).msgpack.zst' of 'cudatoolkit' is not the one the index .* names: its sha256 is [0-9a-f]{64}.*the index says $(shard_of schan-linux-64 cudatoolkit)" "$TMP/err"
expect_exit 4 "update says so too" wp update --conda -c "file://$TMP/bad" --project pytorch
# a missing shard: a source failure naming it
rm -f "$f"
expect_exit 3 "a missing shard is a source failure" wp update --conda -c "file://$TMP/bad" --project cudatoolkit
expect_grep "naming it" "$(shard_of schan-linux-64 cudatoolkit).msgpack.zst" "$TMP/err"

# a broken index: said, and repodata.json is read instead (here there is one)
export WHEELPICK_CATALOG="$TMP/broken.db"
cp -r "$TMP/chan" "$TMP/broken"
printf 'not zstd' >"$TMP/broken/linux-64/repodata_shards.msgpack.zst"
expect_exit 0 "a broken index falls back to repodata.json" wp pick 'pytorch==1.8.0' --conda -c "file://$TMP/broken" -c "$FORGE" \
	--cuda 11.2 --python 3.8 --platform linux-64 --dry-run
expect_grep "and says so" "warning: .*repodata_shards.msgpack.zst.*reading its repodata.json instead" "$TMP/err"
# an index on the network may not send us to local files
mkdir -p "$TMP/evil/linux-64" "$TMP/evil/noarch"
"$PYMSG" - "$TMP/evil/linux-64" <<'PY'
import msgpack, subprocess, sys
ix = {"version": 1, "info": {"base_url": "file:///etc/", "shards_base_url": "./shards/"}, "shards": {}}
z = subprocess.run(["zstd", "-q", "-c", "-"], input=msgpack.packb(ix, use_bin_type=True), check=True, stdout=subprocess.PIPE).stdout
open(sys.argv[1] + "/repodata_shards.msgpack.zst", "wb").write(z)
PY
expect_exit 3 "http: an index that points at local files" wp update --conda -c "$BASE/evil" --project pytorch
expect_grep "is refused" "its base_url 'file:///etc/'.*refused" "$TMP/err"
# verify checks a channel's shards: the index decodes, each shard it names is there with its hash,
# and their records are repodata.json's (names, hashes)
unset WHEELPICK_CATALOG
expect_exit 0 "verify: the channel wheelpick wrote, shards and all" wp verify "$TMP/local"
vshard() { ls "$1"/linux-64/shards/*.msgpack.zst | head -1; }
cp -r "$TMP/local" "$TMP/v1" && f=$(vshard "$TMP/v1") && printf 'x' >>"$f"
expect_exit 4 "verify: a tampered shard" wp verify "$TMP/v1"
expect_grep "names it" "$(basename "$f").*is not the one the index .* names" "$TMP/err"
cp -r "$TMP/local" "$TMP/v2" && f=$(vshard "$TMP/v2") && rm "$f"
expect_exit 4 "verify: a missing shard" wp verify "$TMP/v2"
expect_grep "names it" "$(basename "$f")' is missing or unreadable; the index names it for" "$TMP/err"
cp -r "$TMP/local" "$TMP/v3"
# an index that leaves a package out, and a shard (named by its true hash) whose record lies
"$PYMSG" - "$TMP/v3/linux-64" <<'PY'
import hashlib, msgpack, os, subprocess, sys
d = sys.argv[1]
unz = lambda p: subprocess.run(["zstd", "-qdc", p], check=True, stdout=subprocess.PIPE).stdout
z = lambda b: subprocess.run(["zstd", "-q", "-c", "-"], input=b, check=True, stdout=subprocess.PIPE).stdout
ix = msgpack.unpackb(unz(d + "/repodata_shards.msgpack.zst"), raw=False)
del ix["shards"]["pytorch-mutex"]
shard = msgpack.unpackb(unz(d + "/shards/%s.msgpack.zst" % ix["shards"]["cudatoolkit"].hex()), raw=False)
for rec in shard["packages"].values():
    rec["sha256"] = bytes(32)
data = z(msgpack.packb(shard, use_bin_type=True))
h = hashlib.sha256(data).digest()
open(d + "/shards/%s.msgpack.zst" % h.hex(), "wb").write(data)
ix["shards"]["cudatoolkit"] = h
open(d + "/repodata_shards.msgpack.zst", "wb").write(z(msgpack.packb(ix, use_bin_type=True)))
PY
expect_exit 4 "verify: shards that differ from repodata.json" wp verify "$TMP/v3"
expect_grep "a package with no shard" "names no shard for 'pytorch-mutex', which repodata.json lists" "$TMP/err"
expect_grep "a record whose hash differs" "gives 'cudatoolkit-11.1.1-h6406543_8.tar.bz2' sha256 0{64}, repodata.json [0-9a-f]{64}" "$TMP/err"
printf 'garbage' >"$TMP/v3/linux-64/repodata_shards.msgpack.zst"
expect_exit 4 "verify: an index that does not decode" wp verify "$TMP/v3"
expect_grep "names it" "repodata_shards.msgpack.zst.*not zstd|repodata_shards.msgpack.zst.*not MessagePack" "$TMP/err"
# update's help names today's default channel and what --project does with shards
expect_grep "update --help: the default channel is conda-forge" "default: conda-forge" <(wp update --help 2>&1)
expect_grep "and --project reads a sharded closure" "sharded channel" <(wp update --help 2>&1)
# links a page on the network may not make are said in words, apart from broken ones
export WHEELPICK_CATALOG="$TMP/links.db"
printf '<a href="file:///etc/passwd">a</a>\n<a href="file:///etc/shadow">b</a>\n<a href="x-1.0-py3-none-any.whl">c</a>\n' >"$TMP/links.html"
expect_exit 0 "a page with local links" wp update --index "$BASE/links.html"
expect_grep "says how many and why" "refused 2 links that point where a page from the network may not send wheelpick \(files on this machine \(file:\)\); never followed" "$TMP/err"
expect_no_grep "not counted as broken too" "malformed" "$TMP/err"
done_testing
