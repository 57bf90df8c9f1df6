#!/usr/bin/env python3
# tests/server/faultserver.py: a loopback HTTP(S) file server that misbehaves on cue, for net/ tests.
"""Serve files from --root on 127.0.0.1 (ephemeral port) with faults scripted per path.

The script (--script FILE, JSON, re-read on every request) maps a path to a fault set:
  status       [500, 500, 200]  one per request to the path; the last one repeats; a 2xx serves
  retry_after  seconds          sent with a non-2xx status
  drop_after   N                send N body bytes, then close        (first `times` requests)
  wrong_length N                announce N bytes more than are sent  (first `times` requests)
  times        N                how many requests the two faults above hit (default: all)
  trickle      bytes/second     send the body slowly (fractions allowed)
  ignore_range true             answer 200 with the whole file to a Range request
  bad_range_offset N            answer 206 with a Content-Range starting N bytes off
  range_skip   N                answer 206 with the Content-Range asked for, but its bytes from N
                                later (a Content-Length that counts them, or with no_length none)
  no_length    true             a 206 carries no Content-Length: the end of its body is the close
  redirect     URL              302 to URL (redirect_status to pick another code)
  gzip         true             gzip the body when the client accepts it
  gzip_bomb    MB               that many MB of zeros, gzip-encoded, whatever was accepted
  etag         "value"          send ETag; If-None-Match that matches -> 304
  headers      {name: value}    extra response headers
  body         "text"           serve this instead of a file
  body_n       true             with body: "{n}" in it becomes the request's number (0, 1, ...)
  delay        seconds          wait this long before answering (every request to the path)
  stall_after  N                send N body bytes, then nothing for stall_seconds (default 30),
                                then close                          (first `times` requests)
  range_from   "/other/path"    answer Range requests from that file instead (a server whose
                                partial answers lie about the file its full answers deliver)
  head_status  405              answer HEAD requests with this status (a server that refuses HEAD)
  head_length  N                announce N as the Content-Length of HEAD answers (a lying server)
  head_no_length true           send no Content-Length to HEAD requests
  no_validators true            send no Last-Modified (and no ETag unless `etag` says one)
A Range request with If-Range is answered whole (200) unless If-Range matches the file's ETag
(the `etag` rule; strong comparison) or its Last-Modified date.
Every request is logged as one JSON line to --log, with "t0", the time it arrived; HEAD requests go
to --log with ".head" added and are numbered apart (`status`, `times` and the logs of GETs to a path
count GETs alone, so a client that asks for sizes first changes no scripted sequence). Exits on SIGTERM or after --max-seconds.
"""
import argparse
import email.utils
import gzip
import http.server
import json
import os
import signal
import socket
import ssl
import sys
import threading
import time
import urllib.parse
import zlib

# Authorization too: the unit tests check which credentials each request carried (test-only ones)
LOGGED_HEADERS = ("Range", "If-Range", "If-None-Match", "If-Modified-Since", "Accept", "Accept-Encoding", "User-Agent",
                  "Authorization")
MAX_SECONDS_CAP = 3600
MAX_BOMB_MB = 4096


class State:
    def __init__(self, args):
        self.root = os.path.realpath(args.root)
        self.script = args.script
        self.log = args.log
        self.lock = threading.Lock()
        self.counts = {}
        self.bombs = {}

    def rules(self, path):
        if not self.script:
            return {}
        try:
            with open(self.script, encoding="utf-8") as f:
                return json.load(f).get(path, {})
        except (OSError, ValueError):
            return {}

    def count(self, path):
        with self.lock:
            n = self.counts.get(path, 0)
            self.counts[path] = n + 1
            return n

    def write_log(self, entry):
        if not self.log:
            return
        line = json.dumps(entry, separators=(",", ":"), sort_keys=True) + "\n"
        log = self.log + ".head" if entry.get("method") == "HEAD" else self.log
        with self.lock, open(log, "a", encoding="utf-8") as f:
            f.write(line)

    def bomb(self, mb):
        mb = max(1, min(int(mb), MAX_BOMB_MB))
        with self.lock:
            if mb not in self.bombs:
                z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
                chunk = bytes(1 << 20)
                parts = [z.compress(chunk) for _ in range(mb)]
                parts.append(z.flush())
                self.bombs[mb] = b"".join(parts)
            return self.bombs[mb]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "faultserver/1"
    timeout = 30  # an idle keep-alive connection does not hold a thread for ever

    def setup(self):
        if isinstance(self.request, ssl.SSLSocket):
            self.request.settimeout(10)
            self.request.do_handshake()
        super().setup()

    def log_message(self, fmt, *args):
        pass

    def do_HEAD(self):
        self.serve(head=True)

    def do_GET(self):
        self.serve(head=False)

    def load(self, path, rules):
        if "body" in rules:
            return rules["body"].encode(), time.time()
        rel = urllib.parse.unquote(path).lstrip("/")
        full = os.path.realpath(os.path.join(self.server.state.root, rel))
        if os.path.isdir(full) and os.path.isfile(os.path.join(full, "index.html")):
            full = os.path.join(full, "index.html")  # a PEP 503 tree: DIR/ serves DIR/index.html
        if not full.startswith(self.server.state.root + os.sep) or not os.path.isfile(full):
            return None, 0
        with open(full, "rb") as f:
            return f.read(), os.path.getmtime(full)

    def serve(self, head):
        st = self.server.state
        path = urllib.parse.urlsplit(self.path).path
        rules = st.rules(path)
        n = st.count(("HEAD " if head else "") + path)
        hit = n < int(rules.get("times", 1 << 30))
        entry = {"method": self.command, "path": path, "n": n, "t0": round(time.time(), 4),
                 "headers": {h: self.headers[h] for h in LOGGED_HEADERS if self.headers[h] is not None}}
        if "delay" in rules:
            time.sleep(min(float(rules["delay"]), 30.0))

        extra = dict(rules.get("headers", {}))
        statuses = rules.get("status") or [200]
        status = int(statuses[min(n, len(statuses) - 1)])

        if "redirect" in rules:
            code = int(rules.get("redirect_status", 302))
            extra["Location"] = rules["redirect"]
            return self.plain(entry, code, b"moved\n", extra, head)
        if not 200 <= status < 300:
            if "retry_after" in rules:
                extra["Retry-After"] = str(rules["retry_after"])
            return self.plain(entry, status, ("status %d\n" % status).encode(), extra, head)

        if "gzip_bomb" in rules:
            extra["Content-Encoding"] = "gzip"
            extra["Content-Type"] = "text/html"
            return self.plain(entry, 200, st.bomb(rules["gzip_bomb"]), extra, head)

        data, mtime = self.load(path, rules)
        if data is not None and rules.get("body_n"):
            data = data.replace(b"{n}", str(n).encode())
        if data is None:
            return self.plain(entry, 404, b"not found\n", extra, head)

        if not rules.get("no_validators"):
            extra["Last-Modified"] = email.utils.formatdate(mtime, usegmt=True)
        if head and "head_status" in rules:
            return self.plain(entry, int(rules["head_status"]), b"", extra, head)
        if head and ("head_length" in rules or rules.get("head_no_length")):
            entry["status"] = 200
            st.write_log(entry)
            self.send_response(200)
            for k, v in extra.items():
                self.send_header(k, v)
            if "head_length" in rules:
                self.send_header("Content-Length", str(int(rules["head_length"])))
            else:
                self.close_connection = True  # no length: the end of the answer is the close
            self.end_headers()
            return
        if path.endswith((".html", ".htm", "/")):
            extra.setdefault("Content-Type", "text/html")  # pip refuses index pages of unknown type
        elif path.endswith(".json"):
            extra.setdefault("Content-Type", "application/json")
        etag = rules.get("etag")
        if etag is not None:
            extra["ETag"] = etag
            inm = self.headers["If-None-Match"]
            if inm is not None and (inm.strip() == "*" or etag in [t.strip() for t in inm.split(",")]):
                return self.plain(entry, 304, None, extra, head)

        if rules.get("gzip") and "gzip" in (self.headers["Accept-Encoding"] or ""):
            extra["Content-Encoding"] = "gzip"
            extra["Vary"] = "Accept-Encoding"
            return self.send_body(entry, 200, gzip.compress(data), extra, head, rules, hit)

        extra["Accept-Ranges"] = "bytes"
        rng = self.headers["Range"]
        if_range = self.headers["If-Range"]
        if rng and if_range is not None:
            current = [extra["Last-Modified"]] if "Last-Modified" in extra else []
            if etag is not None and not etag.startswith("W/"):
                current.append(etag)
            if if_range.strip() not in current:
                rng = None  # the file changed since the client's part: the whole file
        if rng and rules.get("range_from"):
            other, _ = self.load(rules["range_from"], {})
            if other is not None:
                data = other
        if rng and not rules.get("ignore_range"):
            span = parse_range(rng, len(data))
            if span is None:
                extra["Content-Range"] = "bytes */%d" % len(data)
                return self.plain(entry, 416, b"", extra, head)
            start, end = span
            off = int(rules.get("bad_range_offset", 0))
            if off:
                start = start - off if start >= off else start + off
                start = min(start, len(data) - 1)
            extra["Content-Range"] = "bytes %d-%d/%d" % (start, end, len(data))
            skip = int(rules.get("range_skip", 0))
            return self.send_body(entry, 206, data[start + skip:end + 1], extra, head, rules, hit)
        return self.send_body(entry, 200, data, extra, head, rules, hit)

    def plain(self, entry, code, body, extra, head):
        entry["status"] = code
        self.server.state.write_log(entry)
        self.send_response(code)
        for k, v in extra.items():
            self.send_header(k, v)
        if body is not None:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and not head:
            self.wfile.write(body)

    def send_body(self, entry, code, body, extra, head, rules, hit):
        entry["status"] = code
        self.server.state.write_log(entry)
        drop = int(rules["drop_after"]) if hit and "drop_after" in rules else None
        more = int(rules["wrong_length"]) if hit and "wrong_length" in rules else 0
        self.send_response(code)
        for k, v in extra.items():
            self.send_header(k, v)
        if rules.get("no_length") and code == 206:
            self.close_connection = True  # the end of the body is the close
        else:
            self.send_header("Content-Length", str(len(body) + more))
        self.end_headers()
        if head:
            return
        if drop is not None:
            body = body[:drop]
        stall = int(rules["stall_after"]) if hit and "stall_after" in rules else None
        rate = float(rules.get("trickle", 0))
        try:
            if stall is not None:
                self.wfile.write(body[:stall])
                self.wfile.flush()
                time.sleep(min(float(rules.get("stall_seconds", 30)), 300.0))
                self.close_connection = True
                return
            if rate > 0:
                self.trickle(body, rate)
            else:
                self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, socket.timeout):
            self.close_connection = True
            return
        if drop is not None or more:
            self.close_connection = True
            self.hangup()

    def trickle(self, body, rate):
        step = max(1, int(rate / 10))
        pause = step / rate
        for i in range(0, len(body), step):
            self.wfile.write(body[i:i + step])
            self.wfile.flush()
            time.sleep(pause)

    def hangup(self):
        # a FIN after the bytes, so the client reads every byte sent before it sees the end
        try:
            self.wfile.flush()
            if not isinstance(self.request, ssl.SSLSocket):
                self.request.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def parse_range(value, size):
    """(start, end) for one 'bytes=a-b' / 'bytes=a-' / 'bytes=-n' range, or None if unsatisfiable."""
    unit, _, spec = value.partition("=")
    if unit.strip().lower() != "bytes" or "," in spec:
        return (0, size - 1) if size else None
    first, _, last = spec.strip().partition("-")
    try:
        if first == "":
            n = int(last)
            return (max(0, size - n), size - 1) if n > 0 and size else None
        start = int(first)
        end = int(last) if last else size - 1
    except ValueError:
        return (0, size - 1) if size else None
    if start >= size or end < start:
        return None
    return start, min(end, size - 1)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # the default listen backlog (5) drops the SYNs of a client that opens more connections at
    # once, and it retransmits a second later: a stall no real server causes
    request_queue_size = 128

    def handle_error(self, request, client_address):
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--script")
    ap.add_argument("--log")
    ap.add_argument("--port-file")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    ap.add_argument("--max-seconds", type=float, default=120)
    # `python3 -m http.server`'s ways: a listen backlog of 5 (whose overflow drops SYNs) and
    # HTTP/1.0, one connection per answer
    ap.add_argument("--backlog", type=int, default=128)
    ap.add_argument("--http10", action="store_true")
    args = ap.parse_args()

    Server.request_queue_size = max(0, args.backlog)
    if args.http10:
        Handler.protocol_version = "HTTP/1.0"
    srv = Server(("127.0.0.1", 0), Handler)
    srv.state = State(args)
    if args.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])
        ctx.set_alpn_protocols(["http/1.1"])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True, do_handshake_on_connect=False)

    def stop(*_):
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    limit = threading.Timer(max(1.0, min(args.max_seconds, MAX_SECONDS_CAP)), stop)
    limit.daemon = True
    limit.start()

    port = srv.server_address[1]
    print(port, flush=True)
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("%d\n" % port)
        os.rename(tmp, args.port_file)
    srv.serve_forever(poll_interval=0.2)


if __name__ == "__main__":
    sys.exit(main())
