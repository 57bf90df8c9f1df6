#!/usr/bin/env bash
# tests/cli/t-auth.sh: an index behind HTTP basic auth, as Artifactory, Nexus, GitLab and devpi
# serve one (issue 25). A token in the URL, ~/.netrc, $NETRC and uv's per-index variables are
# used, sent only to the host and port they were given for (kept across the /simple ->
# /simple/ redirect, never sent to another server the pages link to), and never written: every
# output file, JSON document and message of these runs, and the catalog, is searched for the
# token. Without credentials, or with a wrong password, the run ends with exit 3 and says what to
# do, never printing the password. Then TLS with a CA the test makes (--cert, PIP_CERT,
# --trusted-host) and a forward proxy (HTTPS_PROXY, NO_PROXY).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/indexes-lib.sh"
make_sample
T=(--cuda 11.2 --python 3.8 --platform linux_x86_64)
TOKEN="tok3n-S3CRET-4f2a9c"
WRONG="wr0ng-PASSW0RD-77e1"

# the protected tree: the sample, with torchvision's files on another server (another port)
A=$(free_port) P=$(free_port) S=$(free_port) R=$(free_port)
PRIV="$TMP/priv"
mkdir -p "$PRIV/simple"
ln -s "$SAMPLE/whl" "$PRIV/whl"
for d in "$SAMPLE"/simple/*/; do
	n=$(basename "$d")
	mkdir -p "$PRIV/simple/$n"
	cp "$d/index.html" "$PRIV/simple/$n/index.html"
done
cp "$SAMPLE/simple/index.html" "$PRIV/simple/index.html"
sed -i "s|\.\./\.\./whl/|http://127.0.0.1:$P/whl/|g" "$PRIV/simple/torchvision/index.html"
printf 'alice:%s\n' "$(openssl passwd -apr1 "$TOKEN")" >"$TMP/htpasswd"
# over TLS, the sample as it is (an https page may not send wheelpick to plain http)
mkdir -p "$TMP/tlsroot"
ln -s "$SAMPLE/simple" "$TMP/tlsroot/simple"
ln -s "$SAMPLE/whl" "$TMP/tlsroot/whl"

# a CA and a certificate for 127.0.0.1 signed by it
C="$TMP/ca"
mkdir -p "$C"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$C/ca.key" -out "$C/ca.pem" \
	-days 2 -subj /CN=wheelpick-test-ca >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$C/srv.key" -out "$C/srv.csr" \
	-subj /CN=127.0.0.1 >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1\n' >"$C/ext"
openssl x509 -req -in "$C/srv.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial -out "$C/srv.pem" -days 2 \
	-extfile "$C/ext" >/dev/null 2>&1
[ -s "$C/srv.pem" ] && pass "a test CA and a server certificate" || fail "openssl made no certificate"
# and a client certificate signed by it, its key in the same PEM (pip's --client-cert)
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$C/cli.key" -out "$C/cli.csr" \
	-subj /CN=builder >/dev/null 2>&1
openssl x509 -req -in "$C/cli.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial -out "$C/cli.crt" -days 2 \
	>/dev/null 2>&1
cat "$C/cli.crt" "$C/cli.key" >"$C/client.pem"
M=$(free_port)

idx_nginx "    listen 127.0.0.1:$A;
    location = /moved/torchvision/ { return 302 http://127.0.0.1:$P/simple/torchvision/; }
    root $PRIV;
    auth_basic \"company index\";
    auth_basic_user_file $TMP/htpasswd;" \
	"    listen 127.0.0.1:$P;
    root $SAMPLE;" \
	"    listen 127.0.0.1:$S ssl;
    ssl_certificate $C/srv.pem;
    ssl_certificate_key $C/srv.key;
    location = /away/torchvision/ { return 302 https://127.0.0.1:$R/simple/torchvision/; }
    root $TMP/tlsroot;
    auth_basic \"company index\";
    auth_basic_user_file $TMP/htpasswd;" \
	"    listen 127.0.0.1:$R ssl;
    ssl_certificate $C/srv.pem;
    ssl_certificate_key $C/srv.key;
    root $TMP/tlsroot;" \
	"    listen 127.0.0.1:$M ssl;
    ssl_certificate $C/srv.pem;
    ssl_certificate_key $C/srv.key;
    ssl_client_certificate $C/ca.pem;
    ssl_verify_client on;
    root $TMP/tlsroot;"
for port in "$A" "$P" "$S" "$R" "$M"; do wait_port "$port" || fail "nginx is not on $port: $(cat "$TMP/ngx/stderr" 2>/dev/null)"; done
expect_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', wanted '$3'"; fi; }
OUT="$TMP/outputs"   # every file and document the runs write, searched for the token at the end
mkdir -p "$OUT"
keep() { cp "$TMP/out" "$OUT/$1.out"; cp "$TMP/err" "$OUT/$1.err"; }

# --- a token in the URL, written as pip users write it (no slash) ---
U="http://alice:$TOKEN@127.0.0.1:$A/simple"
expect_exit 0 "pick with user:TOKEN@ in the index URL" wp -v torchvision==0.9.0 "${T[@]}" --index "$U" -d "$OUT/wh"
keep pick
expect_file "the wheelhouse" "$OUT/wh/requirements.txt"
expect_grep "the header masks nothing it need not: no credentials in it" "^index: http://127.0.0.1:$A/simple/ " "$TMP/out"
expect_grep "torchvision's wheel came from the other server" "^$P \"GET /whl/cu111/torchvision" "$NGX_LOG"
expect_eq "which never got the credentials" "$(grep "^$P " "$NGX_LOG" | grep -c "auth=yes")" 0
expect_eq "the index got them on every request" "$(grep "^$A " "$NGX_LOG" | grep -vc "auth=yes")" 0
expect_exit 0 "--json" wp torchvision==0.9.0 "${T[@]}" --index "$U" --dry-run --json
keep pick-json
expect_json "$TMP/out" "j['index']['urls']" "['http://127.0.0.1:$A/simple/']"
expect_exit 0 "--dry-run" wp torchvision==0.9.0 "${T[@]}" --index "$U" --dry-run
keep dry
expect_grep "next: masks the credentials" "^next: wheelpick 'torchvision==0.9.0' .* --index 'http://\*\*\*@127.0.0.1:$A/simple'\$" "$TMP/out"
expect_exit 0 "lock" wp lock torchvision==0.9.0 "${T[@]}" --index "$U" -o "$OUT/pylock.toml"
keep lock
expect_file "pylock.toml" "$OUT/pylock.toml"
expect_exit 0 "mirror" wp mirror "$OUT/mirror" torchvision==0.9.0 "${T[@]}" --index "$U"
keep mirror
expect_exit 0 "bundle" wp bundle "$OUT/b.tar.zst" torchvision==0.9.0 "${T[@]}" --index "$U"
keep bundle
mkdir -p "$OUT/b" && tar --zstd -xf "$OUT/b.tar.zst" -C "$OUT/b" 2>/dev/null
expect_file "the bundle, unpacked for the search" "$OUT/b"
mkdir -p "$TMP/in"   # the user's own file holds the token; what wheelpick writes must not
printf -- '--index-url %s\ntorchvision==0.9.0\n' "$U/" >"$TMP/in/req.txt"
export WHEELPICK_CATALOG="$TMP/reqfile.sqlite3"
expect_exit 0 "a requirements file with the token in its --index-url line" \
	wp pick -r "$TMP/in/req.txt" "${T[@]}" -d "$OUT/wh-req"
keep reqfile
export WHEELPICK_CATALOG="$TMP/catalog.sqlite3"

# --- a redirect to the slash form keeps the credentials on the same host ---
export WHEELPICK_CATALOG="$TMP/redirect.sqlite3"
expect_exit 0 "-f http://alice:TOKEN@HOST/simple/torchvision (301 to .../torchvision/)" \
	wp torchvision==0.9.0 "${T[@]}" --no-deps --dry-run -f "http://alice:$TOKEN@127.0.0.1:$A/simple/torchvision"
keep redirect
expect_eq "the redirect was followed with the credentials" \
	"$(grep -c "^$A \"GET /simple/torchvision/ HTTP/1.1\" 200 auth=yes" "$NGX_LOG")" \
	"$(grep -c "^$A \"GET /simple/torchvision/ HTTP/1.1\" 200" "$NGX_LOG")"
expect_grep "and asked" "^$A \"GET /simple/torchvision HTTP/1.1\" 301 auth=yes" "$NGX_LOG"

expect_exit 0 "a redirect to another server (port)" wp torchvision==0.9.0 "${T[@]}" --no-deps --dry-run --refresh \
	-f "http://alice:$TOKEN@127.0.0.1:$A/moved/torchvision/"
keep moved
expect_grep "asked there" "^$P \"GET /simple/torchvision/ HTTP/1.1\" 200" "$NGX_LOG"
expect_eq "without the credentials" "$(grep "^$P " "$NGX_LOG" | grep -c "auth=yes")" 0

# --- no credentials, a wrong password ---
export WHEELPICK_CATALOG="$TMP/none.sqlite3"
expect_exit 3 "no credentials: exit 3" wp torchvision==0.9.0 "${T[@]}" --dry-run --index "http://127.0.0.1:$A/simple/"
keep none
expect_grep "says what is needed" "HTTP 401 from 127\.0\.0\.1:$A: credentials needed \(add them to the index URL or ~/\.netrc\)" "$TMP/err"
expect_exit 3 "a wrong password: exit 3" wp torchvision==0.9.0 "${T[@]}" --dry-run --index "http://alice:$WRONG@127.0.0.1:$A/simple/"
keep wrong
expect_grep "says they were refused" "HTTP 401 from 127\.0\.0\.1:$A: the credentials given for it were refused" "$TMP/err"
no_token "the wrong password is never printed" "$WRONG" "$TMP/out" "$TMP/err"
expect_exit 3 "--json: the error, without the password" wp torchvision==0.9.0 "${T[@]}" --dry-run --json \
	--index "http://alice:$WRONG@127.0.0.1:$A/simple/"
keep wrong-json
expect_json "$TMP/out" "j['error']['exit']" 3
no_token "nor in --json" "$WRONG" "$TMP/out" "$TMP/err"

# messages that quote what the user typed mask it too
expect_exit 2 "a requirement by URL with a token (--json)" wp "torch @ https://alice:$TOKEN@host/torch-1.0-py3-none-any.whl" \
	"${T[@]}" --dry-run --json --offline
keep url-req
expect_grep "quoted, masked" "https://\*\*\*@host/torch-1.0" "$TMP/out"
expect_exit 2 "a bad --index-for with a token" wp torch "${T[@]}" --dry-run --offline --index-for "http://alice:$TOKEN@host/"
keep index-for
expect_grep "quoted, masked" "'http://\*\*\*@host/' is not PROJECT=URL" "$TMP/err"

# --- ~/.netrc, $NETRC, uv's per-index variables ---
export WHEELPICK_CATALOG="$TMP/netrc.sqlite3"
printf 'machine 127.0.0.1 login alice password %s\n' "$TOKEN" >"$HOME/.netrc"
chmod 600 "$HOME/.netrc"
expect_exit 0 "~/.netrc" wp torchvision==0.9.0 "${T[@]}" --dry-run --index "http://127.0.0.1:$A/simple"
keep netrc
mv "$HOME/.netrc" "$TMP/other-netrc"
expect_exit 0 "\$NETRC" env NETRC="$TMP/other-netrc" "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run --refresh \
	--index "http://127.0.0.1:$A/simple"
keep netrc-env
rm -f "$TMP/other-netrc"
expect_exit 0 "uv: UV_INDEX=NAME=URL with UV_INDEX_<NAME>_USERNAME/_PASSWORD" env UV_INDEX="internal-proxy=http://127.0.0.1:$A/simple" \
	UV_DEFAULT_INDEX="http://127.0.0.1:$P/simple" \
	UV_INDEX_INTERNAL_PROXY_USERNAME=alice UV_INDEX_INTERNAL_PROXY_PASSWORD="$TOKEN" \
	"$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run --refresh
keep uv
expect_grep "from UV_INDEX" "^index: .*http://127.0.0.1:$A/simple/.* \(from UV_INDEX\)" "$TMP/out"
expect_exit 0 "PIP_INDEX_URL with the token" env PIP_INDEX_URL="$U" "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run --refresh
keep pip-env
printf '[global]\nindex-url = %s\n' "$U" >"$TMP/pip.conf"
expect_exit 0 "pip.conf with the token" env PIP_CONFIG_FILE="$TMP/pip.conf" "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run --refresh
keep pip-conf
rm -f "$TMP/pip.conf"

# a later run that finds everything in the catalog reads no page, but downloads: the
# credentials come from its own configuration (here WHEELPICK_INDEX), or it says what is missing
export WHEELPICK_CATALOG="$TMP/later.sqlite3" WHEELPICK_CACHE_DIR="$TMP/cache-later"
expect_exit 0 "a dry run fills the catalog" wp torchvision==0.9.0 "${T[@]}" --dry-run --index "$U"
keep later-dry
expect_exit 3 "a later download without credentials: exit 3" wp torchvision==0.9.0 "${T[@]}" -d "$OUT/wh-later" \
	--index "http://127.0.0.1:$A/simple"
keep later-none
expect_grep "credentials needed" "HTTP 401 from 127\.0\.0\.1:$A: credentials needed" "$TMP/err"
expect_exit 0 "with WHEELPICK_INDEX holding them" env WHEELPICK_INDEX="$U/" "$WHEELPICK" torchvision==0.9.0 "${T[@]}" \
	-d "$OUT/wh-later"
keep later-env
expect_grep "its header masks them" "^index: http://\*\*\*@127.0.0.1:$A/simple/ \(from WHEELPICK_INDEX\)" "$TMP/out"
no_token "the later run's cache holds no token" "$TOKEN" "$WHEELPICK_CACHE_DIR"
export WHEELPICK_CACHE_DIR="$TMP/cache"

# --- TLS with a local CA ---
export WHEELPICK_CATALOG="$TMP/tls.sqlite3"
SU="https://alice:$TOKEN@127.0.0.1:$S/simple"
expect_exit 3 "https with an unknown CA: exit 3" env -u PIP_CERT "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run --isolated --index "$SU"
keep tls-unknown
expect_grep "says how to give the CA" "give its PEM file with --cert" "$TMP/err"
expect_exit 0 "--cert CA.pem" wp torchvision==0.9.0 "${T[@]}" --dry-run --index "$SU" --cert "$C/ca.pem"
keep tls-cert
expect_exit 0 "PIP_CERT" env PIP_CERT="$C/ca.pem" "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run --refresh --index "$SU"
keep tls-pipcert
# a CA bundle that cannot be read is named with where it came from
expect_exit 2 "PIP_CERT that is no file: exit 2 (a setting to mend)" env PIP_CERT="$TMP/nosuch.pem" "$WHEELPICK" torchvision==0.9.0 "${T[@]}" \
	--dry-run --refresh --index "$SU"
expect_grep "names PIP_CERT as where the bundle came from" "nosuch.pem' \\(PIP_CERT\\) is not a readable file" "$TMP/err"
expect_exit 2 "--cert that is no file: exit 2" env -u PIP_CERT "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run --refresh \
	--index "$SU" --cert "$TMP/nosuch.pem"
expect_grep "names --cert as where the bundle came from" "nosuch.pem' \\(--cert\\) is not a readable file" "$TMP/err"
# a CA bundle that did not sign the server's certificate is named, not asked for again
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$C/other.key" -out "$C/other.pem" \
	-days 2 -subj /CN=another-ca >/dev/null 2>&1
expect_exit 3 "--cert naming another CA: exit 3" env -u PIP_CERT "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run --refresh \
	--index "$SU" --cert "$C/other.pem"
keep tls-othercert
expect_grep "names the CA bundle that does not vouch for it" "other\.pem' \\(--cert\\) does not vouch for its certificate" "$TMP/err"
expect_no_grep "rather than asking for one again" "give its PEM file" "$TMP/err"
expect_exit 0 "WHEELPICK_CA_BUNDLE before PIP_CERT" env WHEELPICK_CA_BUNDLE="$C/ca.pem" PIP_CERT=/dev/null \
	"$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run --refresh --index "$SU"
keep tls-wpca
printf '[global]\ncert = %s\n' "$C/ca.pem" >"$TMP/tls.conf"
expect_exit 0 "pip.conf's cert" env PIP_CONFIG_FILE="$TMP/tls.conf" "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run \
	--refresh --index "$SU"
keep tls-conf
expect_exit 0 "--trusted-host 127.0.0.1:PORT" env -u PIP_CERT "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run --refresh \
	--isolated --index "$SU" --trusted-host "127.0.0.1:$S"
keep tls-trusted
expect_grep "warned about on every run" "TLS certificate of '127.0.0.1:$S' is not checked" "$TMP/err"
# trusted is that origin alone: where it redirects (another port, its certificate no better) is
# checked (issue 36: the redirect target was used unchecked, rc 0); pip's host without a port
# trusts every port of it
expect_exit 3 "a trusted host's redirect to another origin is held to its certificate" env -u PIP_CERT "$WHEELPICK" \
	torchvision==0.9.0 "${T[@]}" --no-deps --dry-run --refresh --isolated --index "https://alice:$TOKEN@127.0.0.1:$S/away" \
	--trusted-host "127.0.0.1:$S"
expect_grep "and says which certificate failed" "away/torchvision/'.*certificate" "$TMP/err"
expect_eq "no request reached the other origin" "$(grep -c "^$R " "$NGX_LOG")" 0
expect_exit 0 "--trusted-host 127.0.0.1 (every port) follows it" env -u PIP_CERT "$WHEELPICK" torchvision==0.9.0 "${T[@]}" \
	--no-deps --dry-run --refresh --isolated --index "https://alice:$TOKEN@127.0.0.1:$S/away" --trusted-host 127.0.0.1
expect_grep "the page came from the other origin" "^$R \"GET /simple/torchvision/" "$NGX_LOG"
# conda channels over the same TLS: --cert and --trusted-host hold for them too
python3 "$ROOT/tests/fixtures/conda/mkchannel.py" "$TMP/tlsroot/chan" "$TMP/tlsroot/forge"
CT=(pytorch==1.8.0 --conda -c "https://alice:$TOKEN@127.0.0.1:$S/chan" -c "https://alice:$TOKEN@127.0.0.1:$S/forge" --cuda 11.2 --python 3.8
	--platform linux-64 --dry-run)
expect_exit 3 "conda over https with an unknown CA: exit 3" env -u PIP_CERT -u SSL_CERT_FILE "$WHEELPICK" pick "${CT[@]}"
expect_exit 0 "conda with --cert CA.pem" env -u PIP_CERT "$WHEELPICK" pick "${CT[@]}" --cert "$C/ca.pem"
keep conda-tls-cert
expect_exit 0 "conda with --trusted-host" env -u PIP_CERT "$WHEELPICK" pick "${CT[@]}" --refresh --trusted-host "127.0.0.1:$S"
expect_grep "warned about there too" "TLS certificate of '127.0.0.1:$S' is not checked" "$TMP/err"
keep conda-tls-trusted

export WHEELPICK_CATALOG="$TMP/mtls.sqlite3"
expect_exit 3 "a server that wants a client certificate, none given: exit 3" \
	wp torchvision==0.9.0 "${T[@]}" --dry-run --index "https://127.0.0.1:$M/simple" --cert "$C/ca.pem"
keep mtls-none
expect_exit 0 "--client-cert PEM" wp torchvision==0.9.0 "${T[@]}" --dry-run --index "https://127.0.0.1:$M/simple" \
	--cert "$C/ca.pem" --client-cert "$C/client.pem"
keep mtls

# --- through a forward proxy ---
rm -f "$TMP/proxy.port"
python3 "$ROOT/tests/server/fwdproxy.py" --port-file "$TMP/proxy.port" --log "$TMP/proxy.log" --max-seconds 60 &
PROXY_PID=$!
stop_proxy() { kill "$PROXY_PID" 2>/dev/null; wait "$PROXY_PID" 2>/dev/null; }
at_exit stop_proxy
for i in $(seq 1 100); do [ -s "$TMP/proxy.port" ] && break; sleep 0.05; done
X="http://127.0.0.1:$(cat "$TMP/proxy.port")"
export WHEELPICK_CATALOG="$TMP/proxy.sqlite3"
expect_exit 0 "HTTPS_PROXY" env HTTPS_PROXY="$X" NO_PROXY= no_proxy= "$WHEELPICK" torchvision==0.9.0 "${T[@]}" --dry-run \
	--index "$SU" --cert "$C/ca.pem"
keep proxy
expect_grep "the https requests went through the proxy (CONNECT)" "^CONNECT 127\.0\.0\.1:$S" "$TMP/proxy.log"
expect_exit 0 "http_proxy for plain http" env http_proxy="$X" NO_PROXY= no_proxy= "$WHEELPICK" torchvision==0.9.0 "${T[@]}" \
	--dry-run --refresh --index "$U"
keep proxy-http
expect_grep "the http requests too" "^GET http://127\.0\.0\.1:$A/simple/torchvision/" "$TMP/proxy.log"
: >"$TMP/proxy.log"
expect_exit 0 "NO_PROXY=127.0.0.1 bypasses it" env HTTPS_PROXY="$X" NO_PROXY=127.0.0.1 "$WHEELPICK" torchvision==0.9.0 "${T[@]}" \
	--dry-run --refresh --index "$SU" --cert "$C/ca.pem"
keep noproxy
expect_eq "nothing through the proxy" "$(wc -l <"$TMP/proxy.log")" 0

# --- the token is nowhere: outputs, messages, JSON, the catalogs, the cache ---
no_token "no output file, document or message holds the token" "$TOKEN" "$OUT"
no_token "no catalog holds it" "$TOKEN" "$TMP"/*.sqlite3*
no_token "nor the cache" "$TOKEN" "$WHEELPICK_CACHE_DIR"
no_token "nor a proxy's log" "$TOKEN" "$TMP/proxy.log"
done_testing
