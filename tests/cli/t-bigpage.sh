#!/usr/bin/env bash
# tests/cli/t-bigpage.sh: index pages past the old 64 MiB ceiling are crawled with memory bounded
# (PEP 691 JSON and HTML read from a temporary file, or a local file:// page from where it lies, in
# pieces: peak RSS well below the page, on the fast scanner and on libxml2's); a page past
# --max-page-size is refused with exit 3 and one line naming the URL and the option. The other
# readers of pages alike: verify of a mirror whose pages are past 64 MiB, did-you-mean over a root.
. "$(dirname "$0")/../lib.sh"
S="$TMP/served"
mkdir -p "$S/json/bigproj" "$S/html"
# 20,000 wheels, each entry padded to ~4 KB by a key (an attribute) readers ignore: ~84 MB a page
"$PYTHON" - "$S" <<'PY'
import json, os, sys
root = sys.argv[1]
pad = "p" * 4000
with open(os.path.join(root, "json", "bigproj", "index.html"), "w") as f:
    f.write('{"meta": {"api-version": "1.1"}, "name": "bigproj", "files": [\n')
    for i in range(20000):
        fn = f"bigproj-1.{i}-py3-none-any.whl"
        e = {"filename": fn, "url": f"../../files/{fn}", "hashes": {"sha256": "%064x" % i}, "x-pad": pad}
        f.write(("," if i else "") + json.dumps(e) + "\n")
    f.write("]}\n")
# a root past 8 MiB (where a page leaves memory): 400,000 projects, bigproj among them
with open(os.path.join(root, "json", "index.html"), "w") as f:
    names = [f"proj{i:06d}" for i in range(400000)] + ["bigproj"]
    json.dump({"meta": {"api-version": "1.1"}, "projects": [{"name": n} for n in names]}, f)
with open(os.path.join(root, "html", "links.html"), "w") as f:
    f.write("<!DOCTYPE html><html><body>\n")
    for i in range(20000):
        fn = f"bigproj-1.{i}-py3-none-any.whl"
        f.write(f'<a href="files/{fn}#sha256={"%064x" % i}" data-pad="{pad}">{fn}</a><br/>\n')
    f.write("</body></html>\n")
# the same links with an entity in each: libxml2's to read, not the fast scanner's
with open(os.path.join(root, "html", "links.html")) as f, open(os.path.join(root, "html", "entities.html"), "w") as g:
    for line in f:
        g.write(line.replace('data-pad="', 'data-requires-python="&gt;=3.8" data-pad="'))
PY
PAGE_BYTES=$(stat -c %s "$S/json/bigproj/index.html")
[ "$PAGE_BYTES" -gt $((64 << 20)) ] && pass "the page is past the old 64 MiB ceiling ($PAGE_BYTES bytes)" ||
	fail "the page is only $PAGE_BYTES bytes"
J='{"headers": {"Content-Type": "application/vnd.pypi.simple.v1+json"}}'
printf '{"/json/": %s, "/json/bigproj/": %s, "/jroot/": %s}' "$J" "$J" "$J" >"$TMP/script.json"
start_server "$S" "$TMP/script.json"

# peak RSS (KB) of a command, from getrusage of the children (the wrapper's own is far below)
rss() {
	"$PYTHON" -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:], stdout=open(sys.argv[1] + ".out", "w"), stderr=open(sys.argv[1] + ".err", "w"))
open(sys.argv[1], "w").write("%d %d\n" % (rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))' "$TMP/rss" "$@"
	read -r RC KB <"$TMP/rss"
}
count() { wp list bigproj --json | "$PYTHON" -c 'import json, sys; print(len(json.load(sys.stdin)))'; }

# --- PEP 691 JSON past 64 MiB: crawled, memory well below the page --------------------------------
rss "$WHEELPICK" update --index "$BASE/json/bigproj/"
[ "$RC" = 0 ] && pass "an 84 MB PEP 691 page is crawled" || { fail "update exited $RC"; sed 's/^/      | /' "$TMP/rss.err" >&2; }
# a sanitizer's shadow and quarantine are hundreds of MB of their own: the ceiling is for real builds
case "$(ldd "$WHEELPICK" 2>/dev/null)" in
*libasan* | *libtsan*) echo "    (a sanitizer build: peak RSS ${KB} KB not held to the ceiling)" ;;
*) [ "$KB" -lt 49152 ] && pass "with peak RSS ${KB} KB, under 48 MiB" || fail "peak RSS ${KB} KB for an 84 MB page" ;;
esac
[ "$(count)" = 20000 ] && pass "every file of it in the catalog" || fail "$(count) files of 20000"
ls "${TMPDIR:-/tmp}" | grep -q '^wheelpick-repodata\..*\.page' && fail "the page's temporary file is left" ||
	pass "no temporary file left"

# a root past 8 MiB: told apart from a project page by the streamed scan, its project followed
rm -f "$WHEELPICK_CATALOG"*
rss "$WHEELPICK" update --index "$BASE/json/" --project bigproj
[ "$RC" = 0 ] && pass "a 10 MB PEP 691 root, then its project" || { fail "update exited $RC"; sed 's/^/      | /' "$TMP/rss.err" >&2; }
[ "$(count)" = 20000 ] && pass "the project followed from the root" || fail "$(count) files of 20000"

# --- HTML past 64 MiB: fetched (read from its temporary file) and local (read where it lies), in
# pieces: peak RSS well below the page (it was 109 MB fetched and 105 MB local when the fetched
# page was mapped and the local one read whole) ---------------------------------------------------
HTML_BYTES=$(stat -c %s "$S/html/links.html")
[ "$HTML_BYTES" -gt 80000000 ] && pass "the HTML page is past 80 MB ($HTML_BYTES bytes)" ||
	fail "the HTML page is only $HTML_BYTES bytes"
rss_ok() { # what
	case "$(ldd "$WHEELPICK" 2>/dev/null)" in
	*libasan* | *libtsan*) echo "    (a sanitizer build: peak RSS ${KB} KB not held to the ceiling)" ;;
	*) [ "$KB" -lt 49152 ] && pass "$1 with peak RSS ${KB} KB, under 48 MiB" || fail "$1: peak RSS ${KB} KB" ;;
	esac
}
for page in links entities; do
	for how in fetched local; do
		rm -f "$WHEELPICK_CATALOG"*
		[ $how = fetched ] && U="$BASE/html/$page.html" || U="file://$S/html/$page.html"
		rss "$WHEELPICK" update --index "$U"
		[ "$RC" = 0 ] && pass "an 84 MB HTML page ($page, $how) is crawled" ||
			{ fail "update exited $RC ($page, $how)"; sed 's/^/      | /' "$TMP/rss.err" >&2; }
		rss_ok "$page, $how"
		[ "$(count)" = 20000 ] && pass "every link of it in the catalog" || fail "$(count) links of 20000"
	done
done
wp list bigproj --json | "$PYTHON" -c 'import json, sys
r = [f for f in json.load(sys.stdin) if f.get("filename") == "bigproj-1.19999-py3-none-any.whl"]
assert r and r[0].get("sha256") == "%064x" % 19999, r
assert r[0].get("requires_python") == ">=3.8", r' && pass "the last link whole, its hash and requires-python read" ||
	fail "the last link of the local page is not as written"
ls "${TMPDIR:-/tmp}" | grep -q '^wheelpick-repodata\..*\.page' && fail "the page's temporary file is left" ||
	pass "no temporary file left"

# --- past the limit: exit 3, one line with the URL and the option -------------------------------
expect_exit 3 "a page past --max-page-size" wp --max-page-size 16M update --index "$BASE/json/bigproj/"
expect_grep "names the URL and the option" \
	"^wheelpick: '$BASE/json/bigproj/' is larger than the page size limit \(16777216 bytes\); raise it with --max-page-size SIZE$" "$TMP/err"
[ "$(wc -l <"$TMP/err")" = 1 ] && pass "in one line" || fail "$(wc -l <"$TMP/err") lines"
expect_exit 3 "a local page past it" wp update --max-page-size=32M --index "file://$S/html/links.html"
expect_grep "the local one alike" "^wheelpick: 'file://$S/html/links.html' is larger than the page size limit \(33554432 bytes\); raise it with --max-page-size SIZE$" "$TMP/err"
expect_exit 2 "a size that is none" wp --max-page-size 12X update --index "$BASE/json/bigproj/"
expect_grep "says what it takes" "^wheelpick: option '--max-page-size' takes a size in bytes, or with K, M or G \(64M, 2G\), not '12X'$" "$TMP/err"
# the same page under a limit above it
expect_exit 0 "the page under a limit above it" wp --max-page-size 200M update --index "$BASE/json/bigproj/"

# --- the other readers of pages: verify of a mirror, and did-you-mean over a root -----------------
# (they read a page whole before: memory past the page's size, and a root past 64 MiB gave no names)
M="$TMP/bigmirror"
"$PYTHON" - "$M" "$S" <<'PY'
import json, os, sys
m, served = sys.argv[1], sys.argv[2]
pad = "p" * 40000
empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
os.makedirs(os.path.join(m, "simple", "bigproj"))
os.makedirs(os.path.join(m, "files", "bigproj"))
names = [f"bigproj-1.{i}.tar.gz" for i in range(2000)]
for n in names:
    open(os.path.join(m, "files", "bigproj", n), "w").close()
# 2,000 files, each entry padded to ~40 KB: ~80 MB a page, HTML and JSON alike
with open(os.path.join(m, "simple", "bigproj", "index.html"), "w") as f:
    f.write("<!DOCTYPE html><html><body>\n")
    for n in names:
        f.write(f'<a href="../../files/bigproj/{n}#sha256={empty}" data-pad="{pad}">{n}</a><br/>\n')
    f.write("</body></html>\n")
with open(os.path.join(m, "simple", "bigproj", "index.json"), "w") as f:
    f.write('{"meta": {"api-version": "1.1"}, "name": "bigproj", "files": [\n')
    for i, n in enumerate(names):
        e = {"filename": n, "url": f"../../files/bigproj/{n}", "hashes": {"sha256": empty}, "x-pad": pad}
        f.write(("," if i else "") + json.dumps(e) + "\n")
    f.write("]}\n")
# roots past 64 MiB, each naming bigproj 2,000 times, padded
with open(os.path.join(m, "simple", "index.html"), "w") as f:
    f.write("<!DOCTYPE html><html><body>\n")
    for i in range(2000):
        f.write(f'<a href="bigproj/" data-pad="{pad}">bigproj</a>\n')
    f.write("</body></html>\n")
with open(os.path.join(m, "simple", "index.json"), "w") as f:
    json.dump({"meta": {"api-version": "1.1"}, "projects": [{"name": "bigproj", "x-pad": pad}] * 2000}, f)
# roots for did-you-mean: 20,000 projects padded to ~4 KB each, bigproj last; HTML to be read as a
# local file, JSON served
os.makedirs(os.path.join(served, "hroot"))
os.makedirs(os.path.join(served, "jroot"))
small = "p" * 4000
projs = [f"proj{i:05d}" for i in range(20000)] + ["bigproj"]
with open(os.path.join(served, "hroot", "index.html"), "w") as f:
    f.write("<!DOCTYPE html><html><body>\n")
    for n in projs:
        f.write(f'<a href="{n}/" data-pad="{small}">{n}</a>\n')
    f.write("</body></html>\n")
with open(os.path.join(served, "jroot", "index.html"), "w") as f:
    json.dump({"meta": {"api-version": "1.1"}, "projects": [{"name": n, "x-pad": small} for n in projs]}, f)
PY
for f in simple/index.html simple/index.json simple/bigproj/index.html simple/bigproj/index.json; do
	[ "$(stat -c %s "$M/$f")" -gt $((64 << 20)) ] || fail "$f is only $(stat -c %s "$M/$f") bytes"
done
rss "$WHEELPICK" verify "$M"
[ "$RC" = 0 ] && pass "verify of a mirror whose four pages are past 64 MiB" ||
	{ fail "verify exited $RC"; head -5 "$TMP/rss.out" "$TMP/rss.err" | sed 's/^/      | /' >&2; }
rss_ok "verify of the mirror"
expect_grep "all four pages read, every link checked" "checked 2000 files, 0 wheels, 4 pages, 6000 links: 0 problems" \
	"$TMP/rss.out"
# the same mirror with one hash wrong in the last entry of the big JSON page: found, exit 4
"$PYTHON" - "$M/simple/bigproj/index.json" <<'PY'
import sys
p = sys.argv[1]
b = open(p).read()
i = b.rindex("e3b0c442")
open(p, "w").write(b[:i] + "0" * 64 + b[i + 64:])
PY
rss "$WHEELPICK" verify "$M"
[ "$RC" = 4 ] && pass "a wrong hash at the end of an 80 MB page fails verify (exit 4)" || fail "verify exited $RC"
grep -q "bigproj-1.1999.tar.gz" "$TMP/rss.out" "$TMP/rss.err" && pass "naming the file" ||
	fail "the file is not named"

for how in local fetched; do
	rm -rf "$WHEELPICK_CATALOG"* "$WHEELPICK_CACHE_DIR"
	# the fetched root twice: the second run reads the copy kept in the cache (a second run over
	# a local root reads the catalog's state, as with a small one)
	[ $how = local ] && U="file://$S/hroot/" R="1" || U="$BASE/jroot/" R="1 2"
	for run in $R; do
		rss "$WHEELPICK" bigprok --index "$U"
		[ "$RC" = 1 ] && pass "a project no index has ($how root, run $run): exit 1" ||
			{ fail "exited $RC ($how, run $run)"; sed 's/^/      | /' "$TMP/rss.err" >&2; }
		expect_grep "did you mean, from an 84 MB root ($how, run $run)" "did you mean 'bigproj'" "$TMP/rss.err"
		rss_ok "did-you-mean ($how root, run $run)"
	done
done
# the fetched root, kept in the cache for the next run (the second run above read it from there)
K=$(ls "$WHEELPICK_CACHE_DIR/roots")
[ "$(echo "$K" | wc -l)" = 1 ] && [ "$(stat -c %s "$WHEELPICK_CACHE_DIR/roots/$K")" = "$(stat -c %s "$S/jroot/index.html")" ] &&
	pass "the root kept whole in the cache, nothing beside it" || fail "the cache holds: $K"

done_testing
