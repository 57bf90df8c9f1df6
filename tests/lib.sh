# tests/lib.sh: helpers for the shell tests in tests/cli/ (sourced, not run).
# Each test file is a bash script; `check NAME CMD...` and the expect_* helpers count
# passes and failures, and a test file fails when any of its checks failed.

# Hermetic: a test file runs again from its first line with an empty environment but for what
# tests/clean-env.sh keeps (PATH, TMPDIR, WHEELPICK, WP_*, the sanitizers' options), so nothing in
# the caller's shell (WHEELPICK_CUDA, PIP_INDEX_URL, AWS_*, a proxy, PYTHONPATH) changes a result.
if [ "${WP_CLEAN_ENV:-}" != 1 ]; then
	exec "$(dirname "${BASH_SOURCE[0]}")/clean-env.sh" bash "$0" "$@"
fi
unset WP_CLEAN_ENV # a test file this one starts cleans its own environment again
unset MAKEFLAGS MAKELEVEL MFLAGS # make's own, when make test runs the files (clean-env.sh passed them to make)
: "${WHEELPICK:?set WHEELPICK to the binary under test}"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=$(command -v python3)   # fixed now: a test may put a fake python3 first on PATH later
# The real files tests read, vendored in tests/fixtures/real/ (its PROVENANCE.md says where each
# came from); nothing outside the repository is read. $WP_TEST_REAL_DATA names another tree of the
# same layout to read instead.
REAL_DATA=${WP_TEST_REAL_DATA:-$ROOT/tests/fixtures/real}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/wp-test.XXXXXX")
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"
export WHEELPICK_CACHE_DIR="$TMP/cache"
export HOME="$TMP/home"
mkdir -p "$HOME"
_fails=0
_passes=0
_cleanup_fns=()
at_exit() { _cleanup_fns+=("$1"); }
_finish() {
	local f
	for f in "${_cleanup_fns[@]}"; do $f || true; done
	rm -rf "$TMP"
}
trap _finish EXIT

pass() { _passes=$((_passes + 1)); [ -n "${WP_TEST_VERBOSE:-}" ] && echo "    ok: $1"; return 0; }
fail() { _fails=$((_fails + 1)); echo "    FAIL: $1" >&2; return 0; }

wp() { "$WHEELPICK" "$@"; }

# expect_exit CODE DESC CMD... : runs CMD, output to $TMP/out and $TMP/err
expect_exit() {
	local want=$1 desc=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	local got=$?
	if [ "$got" = "$want" ]; then pass "$desc"; else
		fail "$desc: exit $got, wanted $want"; sed 's/^/      out: /' "$TMP/out" | head -20 >&2
		sed 's/^/      err: /' "$TMP/err" | head -20 >&2; fi
}

# expect_grep DESC PATTERN FILE
expect_grep() {
	if grep -Eq -- "$2" "$3"; then pass "$1"; else fail "$1: /$2/ not in $3"; sed 's/^/      | /' "$3" | head -20 >&2; fi
}
expect_no_grep() {
	if grep -Eq -- "$2" "$3"; then fail "$1: /$2/ found in $3"; grep -E -- "$2" "$3" | head -5 >&2; else pass "$1"; fi
}

# expect_json FILE PYEXPR WANT : evaluates a Python expression on the parsed JSON `j`
expect_json() {
	local got
	got=$("$PYTHON" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1)
	if [ "$got" = "$3" ]; then pass "$2 == $3"; else fail "$2: got '$got', wanted '$3'"; fi
}

expect_file() { if [ -e "$2" ]; then pass "$1"; else fail "$1: '$2' missing"; fi; }
expect_no_file() { if [ -e "$2" ]; then fail "$1: '$2' exists"; else pass "$1"; fi; }

# The sample index (sample/mksample.py), made once per test file.
make_sample() {
	[ -d "$TMP/sample" ] || python3 "$ROOT/sample/mksample.py" "$TMP/sample"
	SAMPLE="$TMP/sample"
	FINDLINKS="file://$SAMPLE/whl/torch_stable.html"
}

# need_real REL...: the real files this test reads. A missing one is a failed check that names
# it, and the test file stops there: it never skips, and never passes with nothing checked.
need_real() {
	local rel ok=1
	for rel in "$@"; do
		[ -r "$REAL_DATA/$rel" ] || { fail "missing test input '$REAL_DATA/$rel'"; ok=; }
	done
	[ -n "$ok" ] || { done_testing; exit 1; }
}

done_testing() {
	echo "checks: $_passes passed, $_fails failed"
	[ "$_fails" = 0 ] && [ "$_passes" -gt 0 ]
}

# start_server ROOT [SCRIPT]: the fault server on 127.0.0.1; sets PORT and BASE (http://127.0.0.1:PORT)
start_server() {
	local root=$1 script=${2:-}
	rm -f "$TMP/port"
	python3 "$ROOT/tests/server/faultserver.py" --root "$root" --port-file "$TMP/port" --log "$TMP/server.log" \
		--max-seconds 240 ${script:+--script "$script"} >/dev/null 2>"$TMP/server.err" &
	SERVER_PID=$!
	at_exit stop_server
	local i
	for i in $(seq 1 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
	PORT=$(cat "$TMP/port")
	BASE="http://127.0.0.1:$PORT"
}
stop_server() { [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=; }

# start_nginx ROOT: Debian's nginx serving ROOT on 127.0.0.1 (a PEP 503/691 tree: DIR/ answers
# DIR/index.json to a client that asks for JSON, else DIR/index.html); sets NGINX_BASE.
start_nginx() {
	local root=$1 prefix="$TMP/nginx" port
	mkdir -p "$prefix/logs"
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat >"$prefix/nginx.conf" <<NGX
$([ "$(id -u)" = 0 ] && echo "user root;")
worker_processes 1;
error_log $prefix/logs/error.log;
pid $prefix/logs/nginx.pid;
events { worker_connections 64; }
http {
  access_log $prefix/logs/access.log;
  client_body_temp_path $prefix/logs/body;
  proxy_temp_path $prefix/logs/proxy;
  fastcgi_temp_path $prefix/logs/fastcgi;
  uwsgi_temp_path $prefix/logs/uwsgi;
  scgi_temp_path $prefix/logs/scgi;
  types { text/html html; application/vnd.pypi.simple.v1+json json; }
  default_type application/octet-stream;
  map \$http_accept \$simple_index {
    ~application/vnd\\.pypi\\.simple\\.v1\\+json index.json;
    default index.html;
  }
  server {
    listen 127.0.0.1:$port;
    root $root;
    location / { try_files \$uri/\$simple_index \$uri =404; }
  }
}
NGX
	chmod 755 "$TMP" "$root" 2>/dev/null
	/usr/sbin/nginx -p "$prefix" -c "$prefix/nginx.conf" -g "daemon off;" </dev/null >/dev/null 2>&1 &
	NGINX_PID=$!
	at_exit stop_nginx
	local i
	for i in $(seq 1 100); do
		python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
		sleep 0.05
	done
	NGINX_BASE="http://127.0.0.1:$port"
}
stop_nginx() { [ -n "${NGINX_PID:-}" ] && kill "$NGINX_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; NGINX_PID=; }
