#!/usr/bin/env python3
"""Built-in acceptors, !socket {bind: ..., accept: true} (issue 16).

usage: acceptor.py CLOUDABI_RUN ACCEPTOR_PROGRAM

Runs tests/guest/acceptor.c under cloudabi-run and plays its clients:
1,000 connections handed over in a row with clients that leave early
mixed in, a Unix socket with narrowed rights, a program that stops
receiving (the kernel's backlog keeps the connections), two forked workers
sharing the acceptor, sends on the acceptor's end, and config errors.
"""
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

RUN, PROG = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp()
HEADER = "%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nout: !fd stdout\n"
FD_READ, FD_SEEK, FD_WRITE = 0x2, 0x4, 0x40
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


def start(name, body, options=()):
    path = os.path.join(TMP, name + ".yaml")
    with open(path, "w") as f:
        f.write(HEADER + body)
    return subprocess.Popen([RUN, *options, PROG, path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)


def connect(family, addr, proc):
    """Connects once the run listens (its config is opened first)."""
    deadline = time.time() + 20
    while True:
        s = socket.socket(family, socket.SOCK_STREAM)
        try:
            s.connect(addr)
            return s
        except OSError:
            s.close()
            if proc.poll() is not None or time.time() > deadline:
                raise
            time.sleep(0.02)


def recv_all(s):
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            return data
        data += chunk


def finish(proc, timeout=30):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        fail("run did not end in %d s" % timeout)
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def check_rights_line(line, want_base=None):
    m = re.match(r"type (\d+), base ([0-9a-f]+), inheriting ([0-9a-f]+)$", line)
    if m is None:
        fail("rights line %r" % line)
        return
    t, base = int(m.group(1)), int(m.group(2), 16)
    if t != 0x82:
        fail("connection type %d, want SOCKET_STREAM (130)" % t)
    if want_base is not None and base != want_base:
        fail("connection rights %x, want %x" % (base, want_base))
    if base & FD_SEEK or not base & FD_READ or not base & FD_WRITE:
        fail("connection rights %x: want read and write, no seek" % base)


def many_in_a_row():
    """1,000 served; every 40th client leaves first (FIN or RST)."""
    port = free_port()
    proc = start("many", "sock: !socket {bind: 127.0.0.1:%d, accept: true}\n"
                 "do: serve\ncount: 1000\n" % port)
    wrong = good = i = 0
    while good < 1000:
        i += 1
        s = connect(socket.AF_INET, ("127.0.0.1", port), proc)
        if i % 40 == 7:
            if i % 80 == 7:  # reset, not a clean close
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                             b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()
            continue
        good += 1
        s.sendall(b"hello %d\n" % i)
        try:
            got = recv_all(s)
        except OSError as e:
            got = str(e).encode()
        want = b"127.0.0.1:%d hello %d\n" % (s.getsockname()[1], i)
        s.close()
        if got != want:
            wrong += 1
            if wrong < 4:
                fail("connection %d: got %r, want %r" % (i, got, want))
    status, out, err = finish(proc)
    lines = out.splitlines()
    if status != 0 or len(lines) != 2 or lines[1] != "served 1000" or err:
        fail("1,000 in a row: status %d, stdout %r, stderr %r" % (status, out, err))
    elif lines:
        check_rights_line(lines[0])
    print("1,000 connections: %d wrong answers" % wrong)


def tcp_mirrored():
    """A TCP connection carries no descriptors: its reads and writes are
    mirrored (the kernel does them), so few calls reach the supervisor."""
    port = free_port()
    report = os.path.join(TMP, "report.json")
    proc = start("mirrored", "sock: !socket {bind: 127.0.0.1:%d, accept: true}\n"
                 "do: serve\ncount: 100\n" % port, ["--report=" + report])
    for i in range(100):
        s = connect(socket.AF_INET, ("127.0.0.1", port), proc)
        s.sendall(b"a line of some length %d\n" % i)
        recv_all(s)
        s.close()
    status, out, err = finish(proc)
    import json
    with open(report) as f:
        fd_calls = json.load(f)["calls"].get("fd", 0)
    # Each connection reads ~25 bytes one at a time: without mirrors
    # that alone would be 2,500 trapped calls.  A connection comes with
    # its mirror, so only its close traps.
    if status != 0 or fd_calls > 150:
        fail("tcp mirrored: status %d, %d fd calls trapped" % (status, fd_calls))
    print("tcp, mirrored: %d fd calls trapped for 100 connections" % fd_calls)


def nonblock_mirrored():
    """A mirrored TCP connection set NONBLOCK: a read with nothing to
    read fails with EAGAIN (the blocking mirror would wait), and once
    NONBLOCK is cleared a read waits for the next line again."""
    port = free_port()
    proc = start("nonblock", "sock: !socket {bind: 127.0.0.1:%d, accept: true}\n"
                 "do: nonblock\n" % port)
    s = connect(socket.AF_INET, ("127.0.0.1", port), proc)
    s.settimeout(10)
    got = b""
    try:
        s.sendall(b"a first line\n")
        while not got.endswith(b"\n"):
            chunk = s.recv(100)
            if not chunk:
                break
            got += chunk
        time.sleep(0.2)  # the guest now waits in a blocking read
        s.sendall(b"late\n")
        got += recv_all(s)
    except OSError as e:
        got += b" (" + str(e).encode() + b")"
    s.close()
    status, out, err = finish(proc)
    if got != b"eagain 6\ngot late\n" or status != 0:
        fail("nonblock: got %r, status %d, stderr %r" % (got, status, err))
    print("nonblock on a mirrored connection: %r" % got)


def received_mirror():
    """A connection comes with its mirror, in the range of its rights:
    read and write by default, read only when the config says so."""
    for rights, want in (("", "0x300"), (", inheriting: [fd_read]", "0x100")):
        port = free_port()
        proc = start("mirror", "sock: !socket {bind: 127.0.0.1:%d, accept: true%s}\n"
                     "do: mirror\n" % (port, rights))
        s = connect(socket.AF_INET, ("127.0.0.1", port), proc)
        s.sendall(b"x\n")  # a silent client that left would be dropped
        s.close()
        status, out, err = finish(proc)
        if status != 0 or out.strip() != "mirror " + want:
            fail("received mirror%s: status %d, stdout %r, stderr %r, want %s"
                 % (rights, status, out, err, want))
    print("received connections: mirrored with their rights")


def unix_narrowed():
    """A Unix listener; the config's inheriting rights are the connection's."""
    path = os.path.join(TMP, "s.sock")
    proc = start("unix", "sock: !socket {bind: %s, accept: true, "
                 "inheriting: [fd_read, fd_write]}\ndo: serve\ncount: 1\n" % path)
    s = connect(socket.AF_UNIX, path, proc)
    s.sendall(b"x\n")
    got = recv_all(s)
    s.close()
    status, out, err = finish(proc)
    # An unnamed client: the listening path stands for it.
    if got != (path + " x\n").encode():
        fail("unix: got %r" % got)
    lines = out.splitlines()
    if status != 0 or len(lines) != 2 or err:
        fail("unix: status %d, stdout %r, stderr %r" % (status, out, err))
    else:
        check_rights_line(lines[0], FD_READ | FD_WRITE)
    print("unix, narrowed: done")


def listen_queue(port):
    """The accept queue of our listener on port, from /proc/net/tcp."""
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            local, state, queues = fields[1], fields[3], fields[4]
            if state == "0A" and int(local.split(":")[1], 16) == port:
                return int(queues.split(":")[1], 16)
    return -1


def threads_reading(sup_pid):
    """How many threads of the supervisor's guest are in a read(2), which
    for the threads example is the read of a taken connection (a mirror:
    the guest's own kernel call)."""
    n = 0
    try:
        with open("/proc/%d/task/%d/children" % (sup_pid, sup_pid)) as f:
            guests = f.read().split()
        for g in guests:
            for t in os.listdir("/proc/%s/task" % g):
                with open("/proc/%s/task/%s/syscall" % (g, t)) as f:
                    if f.read().split()[0] == "0":
                        n += 1
    except OSError:
        pass
    return n


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def stops_receiving():
    """Connections stay in the backlog; the supervisor holds nothing."""
    port = free_port()
    proc = start("stop", "sock: !socket {bind: 127.0.0.1:%d, accept: true}\n"
                 "do: stop\n" % port)
    s = connect(socket.AF_INET, ("127.0.0.1", port), proc)
    s.sendall(b"first\n")
    if recv_all(s) != b"stopped first\n":
        fail("stop: the first connection was not served")
    s.close()
    before = fd_count(proc.pid)
    clients = []
    for i in range(300):
        c = connect(socket.AF_INET, ("127.0.0.1", port), proc)
        c.sendall(b"waiting\n")
        clients.append(c)
    time.sleep(0.5)
    queued, after = listen_queue(port), fd_count(proc.pid)
    # At most one waits in the pair; the rest stay with the kernel.
    if queued < 299:
        fail("stop: %d connections in the listen queue, want at least 299" % queued)
    if after > before + 2:
        fail("stop: the supervisor's descriptors grew from %d to %d" % (before, after))
    print("stopped receiving: %d of 300 left in the backlog" % queued)
    for c in clients:
        c.close()
    proc.kill()
    finish(proc)


def parked_threads():
    """Twelve threads parked on one acceptor, bursts of twelve
    connections at once: each connection wakes a thread (none is lost
    when one wake-up serves the first waiter and stops at the next that
    finds nothing), and the bursts spread over several threads."""
    port = free_port()
    proc = start("threads", "sock: !socket {bind: 127.0.0.1:%d, accept: true}\n"
                 "do: threads\ncount: 12\n" % port)
    served, wrong = set(), 0
    for burst in range(25):
        clients = []
        for i in range(12):
            c = connect(socket.AF_INET, ("127.0.0.1", port), proc)
            c.settimeout(10)
            clients.append(c)
        for i, c in enumerate(clients):
            c.sendall(b"b%d c%d\n" % (burst, i))
        for i, c in enumerate(clients):
            try:
                got = recv_all(c)
            except OSError as e:
                got = str(e).encode()
            c.close()
            m = re.match(rb"thread (\d+) b%d c%d\n$" % (burst, i), got)
            if m is None:
                wrong += 1
                if wrong < 4:
                    fail("parked threads: burst %d client %d got %r" % (burst, i, got))
            else:
                served.add(int(m.group(1)))
    # Every thread still waits: twelve silent clients are taken by twelve
    # different threads, each of which then blocks reading its client, so
    # the replies to lines sent only once all are taken name twelve
    # threads.  A lost thread would leave a connection in the pair or the
    # backlog until one of the others came back for it.  (A thirteenth
    # client could not tell: with nobody asking, the acceptor leaves it in
    # the backlog rather than the pair, by design.)
    silent = [connect(socket.AF_INET, ("127.0.0.1", port), proc) for i in range(12)]
    deadline = time.time() + 20
    while threads_reading(proc.pid) < 12 and time.time() < deadline:
        time.sleep(0.05)
    reading = threads_reading(proc.pid)
    if reading != 12:
        fail("parked threads: %d of 12 threads took a waiting client: threads were lost"
             % reading)
    waiting = set()
    for i, c in enumerate(silent):
        c.settimeout(10)
        c.sendall(b"last c%d\n" % i)
    for i, c in enumerate(silent):
        try:
            got = recv_all(c)
        except OSError as e:
            got = str(e).encode()
        c.close()
        m = re.match(rb"thread (\d+) last c%d\n$" % i, got)
        if m is None:
            fail("parked threads: silent client %d got %r" % (i, got))
        else:
            waiting.add(int(m.group(1)))
    if len(waiting) != 12:
        fail("parked threads: 12 waiting clients served by threads %s: threads were lost"
             % sorted(waiting))
    proc.kill()
    finish(proc)
    if len(served) < 2:
        fail("parked threads: only threads %s served" % sorted(served))
    print("parked threads: 300 connections, %d wrong, served by %d threads"
          % (wrong, len(served)))


def forked_workers():
    """Two processes share the acceptor's end and take connections in turn."""
    path = os.path.join(TMP, "w.sock")
    proc = start("fork", "sock: !socket {bind: %s, accept: true}\ndo: fork\n" % path)
    first = connect(socket.AF_UNIX, path, proc)
    time.sleep(0.2)  # one worker now waits for first's line
    second = connect(socket.AF_UNIX, path, proc)
    second.sendall(b"b\n")
    got_b = recv_all(second)
    first.sendall(b"a\n")
    got_a = recv_all(first)
    names = sorted([got_a.split(b" a")[0], got_b.split(b" b")[0]])
    if names != [b"worker 0", b"worker 1"]:
        fail("forked workers answered %r and %r" % (got_a, got_b))
    # And many more, alternating or not, all answered.
    for i in range(50):
        c = connect(socket.AF_UNIX, path, proc)
        c.sendall(b"%d\n" % i)
        if not re.match(rb"worker [01] %d\n$" % i, recv_all(c)):
            fail("forked workers: connection %d unanswered" % i)
        c.close()
    proc.kill()
    finish(proc)
    print("forked workers: both served")


def sends_refused():
    proc = start("send", "sock: !socket {bind: %s, accept: true}\ndo: send\n"
                 % os.path.join(TMP, "x.sock"))
    status, out, err = finish(proc)
    if status != 0 or out != "send: errno 64\n":
        fail("send on the acceptor: status %d, stdout %r, stderr %r" % (status, out, err))
    print("send on the acceptor's end: EPIPE")


def config_errors():
    cases = [
        ("connect", "sock: !socket {connect: 127.0.0.1:1, accept: true}\n",
         r":4:\d+: !socket: accept: true needs bind, not connect"),
        ("dgram", "sock: !socket {type: dgram, bind: 127.0.0.1:0, accept: true}\n",
         r":4:\d+: !socket: accept: true needs a stream socket"),
        ("notbool", "sock: !socket {bind: 127.0.0.1:0, accept: 3}\n",
         r":4:\d+: !socket: accept: expected true or false"),
    ]
    for name, body, want in cases:
        status, out, err = finish(start(name, body))
        if status == 0 or not re.search(want, err):
            fail("config %s: status %d, stderr %r" % (name, status, err))
    print("config errors: %d checked" % len(cases))


for test in (many_in_a_row, tcp_mirrored, nonblock_mirrored, received_mirror, parked_threads, unix_narrowed, stops_receiving, forked_workers,
             sends_refused, config_errors):
    test()
subprocess.run(["rm", "-rf", TMP])
if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
print("acceptor: all passed")
