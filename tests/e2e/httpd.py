#!/usr/bin/env python3
"""examples/httpd, under cloudabi-run and natively (issue 16).

usage: httpd.py CLOUDABI_RUN HTTPD_PROGRAM HTTPD_NATIVE WWW_DIR

Serves a copy of WWW_DIR (plus symlinks pointing out of it) with both
builds of the example and checks the same answers from each: pages and
content types, HEAD, keep-alive, 404 for missing files and for every way
out of the directory, 400, 405 and 505.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

RUN, PROG, NATIVE, WWW = sys.argv[1:5]
TMP = tempfile.mkdtemp()
ROOT = os.path.join(TMP, "www")
shutil.copytree(WWW, ROOT)
os.symlink("/etc", os.path.join(ROOT, "etc"))
os.symlink("../secret.txt", os.path.join(ROOT, "secret.txt"))
with open(os.path.join(TMP, "secret.txt"), "w") as f:
    f.write("not for clients\n")
failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def exchange(port, raw, proc):
    """Sends raw bytes, returns everything until the server closes."""
    deadline = time.time() + 20
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", port))
            break
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                raise
            time.sleep(0.02)
    s.sendall(raw)
    s.settimeout(10)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return data


def responses(data):
    """Splits a byte stream into (status, headers, body) answers."""
    out = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        n = int(headers.get("content-length", "0"))
        out.append((status, headers, rest[:n]))
        data = rest[n:]
    return out


def get(path, method="GET", version="1.1", close=True):
    return ("%s %s HTTP/%s\r\nHost: x\r\n%s\r\n" %
            (method, path, version, "Connection: close\r\n" if close else "")).encode()


def read(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


def check(name, port, proc):
    def one(raw, status, body=None, ctype=None, what=None):
        got = responses(exchange(port, raw, proc))
        if len(got) != 1:
            fail("%s: %s: %d answers" % (name, what or raw[:40], len(got)))
            return
        st, hd, bd = got[0]
        if st != status or (body is not None and bd != body) or \
                (ctype is not None and hd.get("content-type") != ctype):
            fail("%s: %s: got %d %s %r" % (name, what or raw[:40], st,
                                          hd.get("content-type"), bd[:60]))

    html = "text/html; charset=utf-8"
    one(get("/"), 200, read("index.html"), html)
    one(get("/style.css"), 200, read("style.css"), "text/css")
    one(get("/notes.txt"), 200, read("notes.txt"), "text/plain; charset=utf-8")
    one(get("/docs/"), 200, read("docs/index.html"), html)
    one(get("/docs"), 200, read("docs/index.html"), html)
    one(get("/no%74es.txt?x=1"), 200, read("notes.txt"), what="percent and query")
    one(get("/big.bin"), 200, read("big.bin"), "application/octet-stream")
    one(get("/missing.html"), 404)
    for way_out in ("/../secret.txt", "/%2e%2e/secret.txt", "/docs/../../secret.txt",
                    "/etc/passwd", "/secret.txt", "//etc/passwd", "/%2fetc/passwd"):
        one(get(way_out), 404, what=way_out)
    one(b"garbage\r\n\r\n", 400, what="garbage")
    one(get("/", method="POST"), 405)
    one(get("/", version="2.0"), 505)
    one(b"GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", 400, what="a body")
    # HEAD: the length, no body.
    got = responses(exchange(port, get("/index.html", "HEAD"), proc))
    if len(got) != 1 or got[0][2] != b"":
        fail("%s: HEAD answered %r" % (name, got))
    # Keep-alive: three requests on one connection, pipelined.
    raw = get("/", close=False) + get("/notes.txt", close=False) + get("/style.css")
    got = responses(exchange(port, raw, proc))
    bodies = [b for _, _, b in got]
    if bodies != [read("index.html"), read("notes.txt"), read("style.css")]:
        fail("%s: keep-alive: %d answers" % (name, len(got)))
    # HTTP/1.0 closes unless asked not to.
    got = exchange(port, b"GET /notes.txt HTTP/1.0\r\n\r\n", proc)
    if b"Connection: close" not in got:
        fail("%s: HTTP/1.0 kept the connection" % name)
    print("%s: checked" % name)


with open(os.path.join(ROOT, "big.bin"), "wb") as f:
    f.write(os.urandom(300000))

port = free_port()
config = os.path.join(TMP, "httpd.yaml")
with open(config, "w") as f:
    f.write("%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\n"
            "http: !socket {bind: 127.0.0.1:%d, accept: true}\n"
            "root: !file {path: %s, directory: true}\nworkers: 2\n" % (port, ROOT))
proc = subprocess.Popen([RUN, PROG, config], stderr=subprocess.PIPE)
check("cloudabi-run", port, proc)
proc.terminate()
_, err = proc.communicate(timeout=10)
if err.replace(b"cloudabi-run: program terminated by signal SIGTERM\n", b""):
    fail("cloudabi-run said %r" % err)

port = free_port()
proc = subprocess.Popen([NATIVE, str(port), ROOT, "2"])
check("native", port, proc)
proc.terminate()
proc.wait(timeout=10)

shutil.rmtree(TMP)
if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
print("httpd: all passed")
