# tests/cli/indexes-lib.sh: indexes set up the way companies set theirs up, for t-indexes and
# t-auth (sourced after tests/lib.sh): nginx on 127.0.0.1 serving PEP 503 trees, plain, behind
# HTTP basic auth, over TLS with a CA the test makes, redirecting /simple and /simple/NAME to
# their slash forms; a log line per request with the port, the request, the status and whether
# an Authorization header came (never its value).

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The locations every server has: the redirects to the slash form, and PEP 691 by negotiation.
_idx_locations='
    location = /simple { return 301 /simple/; }
    location ~ ^(/[a-z]+)?/simple/([^/]+)$ { return 301 $1/simple/$2/; }
    location / { try_files $uri/$simple_index $uri/index.html $uri =404; }'

# idx_nginx SERVER...: each argument the inside of one server block (listen, root, auth...);
# the common locations are added to each. Sets NGX_LOG (the access log).
idx_nginx() {
	local prefix="$TMP/ngx" s servers=""
	mkdir -p "$prefix/logs"
	for s in "$@"; do servers="$servers
  server {
$s
$_idx_locations
  }"; done
	cat >"$prefix/nginx.conf" <<NGX
$([ "$(id -u)" = 0 ] && echo "user root;")
worker_processes 1;
error_log $prefix/logs/error.log;
pid $prefix/logs/nginx.pid;
events { worker_connections 64; }
http {
  log_format wp '\$server_port "\$request" \$status auth=\$http_authorization_seen';
  map \$http_authorization \$http_authorization_seen { "" no; default yes; }
  access_log $prefix/logs/access.log wp;
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
$servers
}
NGX
	chmod 755 "$TMP" 2>/dev/null
	/usr/sbin/nginx -p "$prefix" -c "$prefix/nginx.conf" -g "daemon off;" </dev/null >/dev/null 2>"$prefix/stderr" &
	NGINX_PID=$!
	at_exit stop_nginx
	NGX_LOG="$prefix/logs/access.log"
}

# wait_port PORT: until something listens there (5 s at most).
wait_port() {
	local i
	for i in $(seq 1 100); do
		python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $1), 0.2)" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# asked PORT PATH: how many requests for exactly PATH the server on PORT logged.
asked() { grep -c "^$1 \"GET $2 " "$NGX_LOG" 2>/dev/null || true; }

# no_token DESC TOKEN PATH...: no file under PATH (recursively, binary files too) holds TOKEN.
no_token() {
	local desc=$1 tok=$2 hits; shift 2
	hits=$(grep -rlaF -- "$tok" "$@" 2>/dev/null)
	if [ -z "$hits" ]; then pass "$desc"; else fail "$desc: '$tok' is in: $hits"; fi
}
