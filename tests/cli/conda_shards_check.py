#!/usr/bin/env python3
"""tests/cli/conda_shards_check.py SUBDIR_DIR: CEP 16 sharded repodata against repodata.json.

Decodes SUBDIR_DIR/repodata_shards.msgpack.zst (zstd, then msgpack), checks each shard the index
names is at info.shards_base_url/<sha256>.msgpack.zst with that sha256, decodes them, turns the
byte hashes back into hex, and requires the records, all shards together, to be exactly those of
SUBDIR_DIR/repodata.json ("packages" and "packages.conda"), each name in its own shard.
Exit 0 when it holds; otherwise 1 with the reason on stderr. Needs python3-msgpack and zstd.
"""
import hashlib, json, os, subprocess, sys

import msgpack


def fail(msg):
    print("conda_shards_check: " + msg, file=sys.stderr)
    sys.exit(1)


def unzstd(path):
    return subprocess.run(["zstd", "-qdc", path], check=True, stdout=subprocess.PIPE).stdout


def hexed(rec):
    rec = dict(rec)
    for k in ("sha256", "md5"):
        if isinstance(rec.get(k), bytes):
            rec[k] = rec[k].hex()
    return rec


def main(d):
    index = msgpack.unpackb(unzstd(os.path.join(d, "repodata_shards.msgpack.zst")), raw=False)
    if index.get("version") != 1:
        fail("index version %r" % index.get("version"))
    base = index["info"]["shards_base_url"]
    repodata = json.load(open(os.path.join(d, "repodata.json")))
    want = {sec: repodata.get(sec, {}) for sec in ("packages", "packages.conda")}
    got = {"packages": {}, "packages.conda": {}}
    names = {r["name"] for sec in want.values() for r in sec.values()}
    if set(index["shards"]) != names:
        fail("index names %s, repodata has %s" % (sorted(index["shards"]), sorted(names)))
    for name, digest in index["shards"].items():
        if not isinstance(digest, bytes) or len(digest) != 32:
            fail("%s: the hash is not 32 bytes" % name)
        path = os.path.join(d, base, digest.hex() + ".msgpack.zst")
        data = open(path, "rb").read()
        if hashlib.sha256(data).digest() != digest:
            fail("%s: %s does not hash to its name" % (name, path))
        shard = msgpack.unpackb(unzstd(path), raw=False)
        for sec in ("packages", "packages.conda"):
            for fn, rec in shard.get(sec, {}).items():
                if rec.get("name") != name:
                    fail("%s's shard holds %s" % (name, fn))
                got[sec][fn] = hexed(rec)
        if shard.get("removed") != []:
            fail("%s: removed is %r" % (name, shard.get("removed")))
    if got != want:
        fail("the shards' records differ from repodata.json's")


if __name__ == "__main__":
    main(sys.argv[1])
