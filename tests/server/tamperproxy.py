#!/usr/bin/env python3
"""tests/server/tamperproxy.py: a reverse proxy that logs, and with --flip changes, request bodies.

For t-s3: wheelpick publishes to this proxy as its S3 endpoint; the proxy forwards each request to
--upstream (the Ceph RADOS Gateway) with its headers as they came (Host included, so the SigV4
signature still holds), and with --flip one byte of a non-empty body changed: a store that checks the
payload against the signed x-amz-content-sha256 (or a Content-MD5) refuses it. Each request is
logged to --log as one JSON line: method, path, the x-amz-content-sha256 it carried, whether its
body was changed, and the upstream's status. With --refuse-delete REGEX a DELETE whose path matches
is answered 403 AccessDenied without reaching the gateway: a run that fails at its removals,
deterministically. Prints its port (and writes --port-file); exits after
--max-seconds.
"""
import argparse
import http.client
import http.server
import json
import os
import re
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def relay(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        if self.command == "DELETE" and self.server.refuse_delete and \
                re.search(self.server.refuse_delete, self.path.split("?")[0]):
            data = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code>'
                    b'<Message>refused by tamperproxy</Message></Error>')
            with self.server.lock, open(self.server.log, "a", encoding="utf-8") as f:
                f.write(json.dumps({"method": "DELETE", "path": self.path.split("?")[0], "query": "",
                                    "sha256": "", "md5": "", "changed": False, "status": 403},
                                   sort_keys=True) + "\n")
            self.send_response(403)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        changed = False
        if body and self.server.flip:
            b = bytearray(body)
            b[len(b) // 2] ^= 0x01
            body, changed = bytes(b), True
        up = http.client.HTTPConnection(self.server.upstream[0], self.server.upstream[1], timeout=60)
        up.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
        for k, v in self.headers.items():
            if k.lower() not in ("expect", "connection", "transfer-encoding"):
                up.putheader(k, v)
        up.endheaders(body if body else None)
        res = up.getresponse()
        data = res.read()
        with self.server.lock, open(self.server.log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"method": self.command, "path": self.path.split("?")[0],
                                "query": self.path.partition("?")[2],
                                "sha256": self.headers.get("x-amz-content-sha256", ""),
                                "md5": self.headers.get("Content-MD5", ""), "changed": changed,
                                "status": res.status}, sort_keys=True) + "\n")
        self.send_response(res.status)
        for k, v in res.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        up.close()

    do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = relay


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--upstream", required=True, help="host:port")
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file")
    ap.add_argument("--max-seconds", type=float, default=300)
    ap.add_argument("--flip", action="store_true", help="change a byte of every body")
    ap.add_argument("--refuse-delete", metavar="REGEX", help="answer a DELETE of a matching path 403")
    a = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    host, _, port = a.upstream.rpartition(":")
    srv.upstream = (host, int(port))
    srv.log = a.log
    srv.flip = a.flip
    srv.refuse_delete = a.refuse_delete
    srv.lock = threading.Lock()
    t = threading.Timer(max(1.0, min(a.max_seconds, 3600)), lambda: os._exit(0))
    t.daemon = True
    t.start()
    port = srv.server_address[1]
    print(port, flush=True)
    if a.port_file:
        with open(a.port_file + ".tmp", "w", encoding="utf-8") as f:
            f.write("%d\n" % port)
        os.rename(a.port_file + ".tmp", a.port_file)
    srv.serve_forever(poll_interval=0.2)


if __name__ == "__main__":
    main()
