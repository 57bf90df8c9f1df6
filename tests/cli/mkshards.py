#!/usr/bin/env python3
"""tests/cli/mkshards.py SUBDIR_DIR [--hash-decompressed] [--base-url URL] [--drop-repodata]:
CEP 16 sharded repodata for a channel subdir, written the way another server would (python3-msgpack
and the zstd program, not wheelpick): repodata_shards.msgpack.zst naming, per package name,
shards/<sha256>.msgpack.zst with that name's records (sha256 and md5 as bytes).

--hash-decompressed: the index's sha256 is of the msgpack bytes before compression (some servers
do this; the file is still named by it). --base-url: info.base_url (default "./").
--drop-repodata: remove repodata.json and its .zst afterwards, so only the shards can serve it.
Prints one line per shard: NAME HEX.
"""
import hashlib, json, os, subprocess, sys

import msgpack


def zstd(data):
    return subprocess.run(["zstd", "-q", "-c", "-"], input=data, check=True, stdout=subprocess.PIPE).stdout


def binhash(rec):
    rec = dict(rec)
    for k in ("sha256", "md5"):
        if isinstance(rec.get(k), str):
            rec[k] = bytes.fromhex(rec[k])
    return rec


def main(argv):
    d = argv[0]
    decompressed = "--hash-decompressed" in argv
    base_url = argv[argv.index("--base-url") + 1] if "--base-url" in argv else "./"
    repodata = json.load(open(os.path.join(d, "repodata.json")))
    shards = {}
    for sec in ("packages", "packages.conda"):
        for fn, rec in repodata.get(sec, {}).items():
            shards.setdefault(rec["name"], {"packages": {}, "packages.conda": {}, "removed": []})[sec][fn] = binhash(rec)
    os.makedirs(os.path.join(d, "shards"), exist_ok=True)
    index = {"version": 1, "info": {"subdir": repodata.get("info", {}).get("subdir", os.path.basename(d)),
                                    "base_url": base_url, "shards_base_url": "./shards/"}, "shards": {}}
    for name, shard in sorted(shards.items()):
        raw = msgpack.packb(shard, use_bin_type=True)
        z = zstd(raw)
        digest = hashlib.sha256(raw if decompressed else z).digest()
        open(os.path.join(d, "shards", digest.hex() + ".msgpack.zst"), "wb").write(z)
        index["shards"][name] = digest
        print(name, digest.hex())
    open(os.path.join(d, "repodata_shards.msgpack.zst"), "wb").write(zstd(msgpack.packb(index, use_bin_type=True)))
    if "--drop-repodata" in argv:
        for f in ("repodata.json", "repodata.json.zst", "repodata.json.bz2"):
            if os.path.exists(os.path.join(d, f)):
                os.unlink(os.path.join(d, f))


if __name__ == "__main__":
    main(sys.argv[1:])
