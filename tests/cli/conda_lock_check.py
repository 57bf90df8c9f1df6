#!/usr/bin/env python3
"""tests/cli/conda_lock_check.py: checks the conda locks wheelpick writes.

  explicit FILE CHANNEL_DIR NAME...   a CEP 23 @EXPLICIT file: every package line parses by CEP 23's
        regex, carries #sha256: that matches the file in CHANNEL_DIR/<subdir>/<fn>, names exactly NAME...,
        and lists each package after the packages it depends on (a cycle may be cut once).
  environment FILE CHANNEL... PIN...  an environment.yml: name, the channels in this order then
        nodefaults, and dependencies exactly the PINs (name=version=build).
Exit 0 when it holds; otherwise 1 with the reason on stderr.
"""
import hashlib, json, os, re, sys

# CEP 23's regex for an explicit line (conda/ceps, cep-0023.md; cited here, no file is read)
EXPLICIT = re.compile(r"(?:(?P<url_p>.+)(?:[/\\]))?(?P<fn>[^/\\#]+(?:\.tar\.bz2|\.conda))"
                      r"(?:#((?P<md5>[0-9a-f]{32})|((sha256:)?(?P<sha256>[0-9a-f]{64}))))?$")


def fail(msg):
    print("conda_lock_check: " + msg, file=sys.stderr)
    sys.exit(1)


def explicit(path, chan, names):
    lines = [l.strip() for l in open(path, encoding="utf-8")]
    if "@EXPLICIT" not in lines:
        fail("no @EXPLICIT line")
    platform = [l for l in lines if l.startswith("# platform: ")]
    if len(platform) != 1:
        fail("no single '# platform:' comment")
    body = [l for l in lines[lines.index("@EXPLICIT") + 1:] if l and not l.startswith("#")]
    order, deps = [], {}
    for l in body:
        m = EXPLICIT.match(l)
        if not m or not m.group("sha256") or "#sha256:" not in l:
            fail("not a CEP 23 line with #sha256: %r" % l)
        subdir = m.group("url_p").rsplit("/", 1)[-1]
        local = os.path.join(chan, subdir, m.group("fn"))
        data = open(local, "rb").read()
        if hashlib.sha256(data).hexdigest() != m.group("sha256"):
            fail("sha256 of %s differs from the line" % local)
        rd = json.load(open(os.path.join(chan, subdir, "repodata.json")))
        rec = rd.get("packages", {}).get(m.group("fn")) or rd.get("packages.conda", {}).get(m.group("fn"))
        if not rec:
            fail("%s is not in the channel's repodata" % m.group("fn"))
        order.append(rec["name"])
        deps[rec["name"]] = [d.split()[0] for d in rec.get("depends", []) if not d.startswith("__")]
    if sorted(order) != sorted(names):
        fail("names %s, wanted %s" % (sorted(order), sorted(names)))
    pos = {n: i for i, n in enumerate(order)}
    late = [(n, d) for n in order for d in deps[n] if d in pos and pos[d] > pos[n]]
    # a cycle is cut once: a late edge is allowed only where the other direction is on time
    for n, d in late:
        if n not in deps.get(d, []):
            fail("%s comes before %s, which it depends on" % (n, d))


def environment(path, args):
    chans = [a for a in args if "=" not in a]
    pins = [a for a in args if "=" in a]
    name, got_ch, got_dep, section = None, [], [], None
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("name: "):
            name = line[6:].strip()
        elif line in ("channels:", "dependencies:"):
            section = line[:-1]
        elif line.startswith("  - ") and section:
            v = line[4:].strip()
            if v.startswith("'") and v.endswith("'"):
                v = v[1:-1]
            (got_ch if section == "channels" else got_dep).append(v)
        else:
            fail("a line this checker does not expect: %r" % line)
    if not name:
        fail("no name")
    if got_ch != chans + ["nodefaults"]:
        fail("channels %s, wanted %s" % (got_ch, chans + ["nodefaults"]))
    if sorted(got_dep) != sorted(pins):
        fail("dependencies %s, wanted %s" % (sorted(got_dep), sorted(pins)))


if __name__ == "__main__":
    if len(sys.argv) < 4:
        fail("usage: conda_lock_check.py explicit FILE CHANNEL_DIR NAME... | environment FILE CHANNEL... PIN...")
    if sys.argv[1] == "explicit":
        explicit(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif sys.argv[1] == "environment":
        environment(sys.argv[2], sys.argv[3:])
    else:
        fail("unknown check %r" % sys.argv[1])
