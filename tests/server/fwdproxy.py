#!/usr/bin/env python3
"""tests/server/fwdproxy.py: a small forward proxy on 127.0.0.1 for the tests (t-auth).

It takes plain-http requests in absolute form (GET http://host:port/path HTTP/1.1) and CONNECT
tunnels (for https), and writes one line per request to --log ("CONNECT host:port" or
"GET http://..."), so a test can prove that wheelpick went through it. Nothing else: no caching,
no authentication; it exits after --max-seconds.
"""
import argparse
import socket
import threading
import time
from urllib.parse import urlsplit


def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        d = conn.recv(65536)
        if not d:
            return None, b""
        data += d
        if len(data) > 1 << 20:
            return None, b""
    head, rest = data.split(b"\r\n\r\n", 1)
    return head.decode("latin-1"), rest


def handle(conn, log, lock):
    try:
        head, rest = read_head(conn)
        if head is None:
            conn.close()
            return
        lines = head.split("\r\n")
        method, target, version = lines[0].split(" ", 2)
        with lock:
            with open(log, "a") as f:
                f.write(f"{method} {target}\n")
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            up = socket.create_connection((host, int(port)), 10)
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            if rest:
                up.sendall(rest)
        else:
            u = urlsplit(target)
            up = socket.create_connection((u.hostname, u.port or 80), 10)
            path = u.path or "/"
            if u.query:
                path += "?" + u.query
            hdrs = [h for h in lines[1:] if not h.lower().startswith(("proxy-", "connection:"))]
            req = f"{method} {path} {version}\r\n" + "\r\n".join(hdrs) + "\r\nConnection: close\r\n\r\n"
            up.sendall(req.encode("latin-1") + rest)
        t = threading.Thread(target=pipe, args=(up, conn), daemon=True)
        t.start()
        pipe(conn, up)
        t.join(30)
    except (OSError, ValueError):
        pass
    finally:
        conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--max-seconds", type=float, default=120)
    a = ap.parse_args()
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    srv.settimeout(0.5)
    open(a.log, "a").close()
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.getsockname()[1]))
    import os
    os.rename(a.port_file + ".tmp", a.port_file)
    lock = threading.Lock()
    end = time.time() + a.max_seconds
    while time.time() < end:
        try:
            c, _ = srv.accept()
        except socket.timeout:
            continue
        threading.Thread(target=handle, args=(c, a.log, lock), daemon=True).start()


if __name__ == "__main__":
    main()
