#!/usr/bin/env python3
"""bench/server.py: a streaming loopback file server for the benchmarks.

Serves --root on 127.0.0.1 (ephemeral port, written to --port-file) without reading files into
memory: bodies go out with os.sendfile in chunks. Every request is logged to --log as one line:
"METHOD PATH STATUS BYTES_SENT". Optional per-connection emulation of a remote server:
--latency-ms (added before each response) and --rate-mbps (bytes/second cap per response, in
MB/s), so that parallel downloads can be measured against a link that is not a 2-core loopback.
Exits on SIGTERM or after --max-seconds.

usage: server.py --root DIR --port-file F [--log F] [--latency-ms N] [--rate-mbps X] [--max-seconds N]
"""
import argparse
import http.server
import os
import signal
import sys
import threading
import time
import urllib.parse

CHUNK = 1 << 20


def make_handler(args, log_lock):
    root = os.path.realpath(args.root)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            pass

        def _log(self, status, sent):
            if not args.log:
                return
            with log_lock, open(args.log, "a") as f:
                f.write(f"{self.command} {self.path} {status} {sent}\n")

        def _resolve(self):
            path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
            full = os.path.realpath(os.path.join(root, path.lstrip("/")))
            if not (full == root or full.startswith(root + os.sep)):
                return None
            if os.path.isdir(full):
                full = os.path.join(full, "index.html")
            return full if os.path.isfile(full) else None

        def _send(self, head_only):
            if args.latency_ms:
                time.sleep(args.latency_ms / 1000.0)
            full = self._resolve()
            if full is None:
                body = b"not found\n"
                self.send_response(404)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head_only:
                    self.wfile.write(body)
                self._log(404, 0 if head_only else len(body))
                return
            size = os.path.getsize(full)
            start, end = 0, size - 1
            status = 200
            rng = self.headers.get("Range")
            if rng and rng.startswith("bytes=") and "," not in rng:
                a, _, b = rng[6:].partition("-")
                try:
                    if a:
                        start = int(a)
                        end = int(b) if b else size - 1
                    else:
                        start = max(0, size - int(b))
                    end = min(end, size - 1)
                    status = 206 if start <= end else 416
                except ValueError:
                    start, end, status = 0, size - 1, 200
            if status == 416:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                self._log(416, 0)
                return
            length = end - start + 1
            self.send_response(status)
            ctype = "text/html" if full.endswith(".html") else (
                "application/json" if full.endswith(".json") else "application/octet-stream")
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(length))
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Last-Modified", self.date_time_string(int(os.path.getmtime(full))))
            if status == 206:
                self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            self.end_headers()
            sent = 0
            if not head_only:
                self.wfile.flush()
                rate = args.rate_mbps * 1e6 if args.rate_mbps else 0
                t0 = time.monotonic()
                with open(full, "rb") as f:
                    off = start
                    while sent < length:
                        n = min(CHUNK if not rate else max(1, int(rate / 50)), length - sent)
                        try:
                            k = os.sendfile(self.connection.fileno(), f.fileno(), off, n)
                        except (BrokenPipeError, ConnectionResetError):
                            break
                        if k <= 0:
                            break
                        off += k
                        sent += k
                        if rate:
                            ahead = sent / rate - (time.monotonic() - t0)
                            if ahead > 0:
                                time.sleep(ahead)
            self._log(status, sent)

        def do_GET(self):
            self._send(False)

        def do_HEAD(self):
            self._send(True)

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--latency-ms", type=float, default=0)
    ap.add_argument("--rate-mbps", type=float, default=0)
    ap.add_argument("--max-seconds", type=float, default=900)
    args = ap.parse_args()
    class Server(http.server.ThreadingHTTPServer):
        # socketserver's default listen backlog is 5: a client opening more connections at once
        # than that loses SYNs and waits a second to retransmit, which no real server makes it do
        request_queue_size = 128
        daemon_threads = True

    srv = Server(("127.0.0.1", 0), make_handler(args, threading.Lock()))
    srv.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=srv.shutdown, daemon=True).start())
    threading.Timer(args.max_seconds, srv.shutdown).start()
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, args.port_file)
    try:
        srv.serve_forever(poll_interval=0.2)
    finally:
        srv.server_close()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
