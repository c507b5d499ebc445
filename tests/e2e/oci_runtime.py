#!/usr/bin/env python3
"""cloudabi-oci on hand-built bundles, as podman's conmon and containerd's
shim drive it: this process is a subreaper (PR_SET_CHILD_SUBREAPER), so the
container process that create leaves behind becomes our child and its exit
status is ours to collect, as theirs is.

usage: oci_runtime.py CLOUDABI_OCI GUEST_PROGRAM
Prints one line per check and exits 1 if any failed.
"""
import atexit
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

OCI, GUEST = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="oci_runtime.")
STATE = os.path.join(TMP, "state")
LOG = os.path.join(TMP, "log.json")
failed = 0

# Removed however the checks end (an exception included).
atexit.register(shutil.rmtree, TMP, True)

PR_SET_CHILD_SUBREAPER = 36
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("cannot become a subreaper")


def check(what, ok, detail=""):
    global failed
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + detail))
    if not ok:
        failed += 1


def oci(*args, **kw):
    """Runs a verb with podman's global flags; (status, stdout)."""
    cmd = [OCI, "--root", STATE, "--log", LOG, "--log-format", "json"]
    p = subprocess.run(cmd + list(args), capture_output=True, text=True,
                       timeout=30, **kw)
    return p.returncode, p.stdout


def last_log():
    """The last line of the JSON log, parsed (what podman shows)."""
    with open(LOG) as f:
        lines = f.read().splitlines()
    entry = json.loads(lines[-1])
    assert set(entry) == {"level", "msg", "time"}, entry
    return entry


def expect_error(what, status, words):
    e = last_log()
    check(what, status == 1 and e["level"] == "error" and words in e["msg"],
          "status %d, last log line %r" % (status, e))


YAML = "%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nout: !fd stdout\n"


def bundle(name, config, args=None, extra=None, program=GUEST):
    """A bundle: rootfs/bin/prog, rootfs/etc/prog.yaml, config.json."""
    b = os.path.join(TMP, name)
    os.makedirs(os.path.join(b, "rootfs", "bin"))
    os.makedirs(os.path.join(b, "rootfs", "etc"))
    shutil.copy(program, os.path.join(b, "rootfs", "bin", "prog"))
    with open(os.path.join(b, "rootfs", "etc", "prog.yaml"), "w") as f:
        f.write(YAML + config)
    spec = {"ociVersion": "1.0.2",
            "process": {"terminal": False, "cwd": "/",
                        "args": args or ["/bin/prog", "/etc/prog.yaml"],
                        "env": ["PATH=/bin"]},
            "root": {"path": "rootfs"},
            "annotations": {"test": name}}
    for k, v in (extra or {}).items():
        spec[k] = v
    with open(os.path.join(b, "config.json"), "w") as f:
        json.dump(spec, f)
    return b


def create(cid, b, stdin=None):
    """create with a file as the container's stdin and captured output;
    returns (status, pid or None, output file name)."""
    out = os.path.join(TMP, cid + ".out")
    pidf = os.path.join(TMP, cid + ".pid")
    with open(out, "w") as o, open(stdin or os.devnull) as i:
        cmd = [OCI, "--root", STATE, "--log", LOG, "--log-format", "json",
               "create", "--bundle", b, "--pid-file", pidf, cid]
        st = subprocess.run(cmd, stdin=i, stdout=o, stderr=o,
                            timeout=30).returncode
    pid = int(open(pidf).read()) if st == 0 else None
    return st, pid, out


def reap(pid, timeout=10):
    """The exit status of our (adopted) child pid, as a shell shows it."""
    end = time.time() + timeout
    while time.time() < end:
        got, status = os.waitpid(pid, os.WNOHANG)
        if got == pid:
            return os.waitstatus_to_exitcode(status) if os.WIFEXITED(
                status) else 128 + os.WTERMSIG(status)
        time.sleep(0.01)
    return None


def reap_orphans():
    """Collects whatever else was handed to us (killed guests)."""
    while True:
        try:
            got, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if got == 0:
            return


def state(cid):
    st, out = oci("state", cid)
    return json.loads(out) if st == 0 else None


def wait_output(path, text, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        if text in open(path).read():
            return True
        time.sleep(0.01)
    return False


def alive(pid):
    """Alive and not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except FileNotFoundError:
        return False


def run_to_end(cid, b, stdin=None):
    st, pid, out = create(cid, b, stdin)
    if st != 0:
        return None, open(out).read()
    oci("start", cid)
    status = reap(pid)
    text = open(out).read()
    oci("delete", cid)
    return status, text


# -- create, state, start, exit, delete in order --------------------------
b = bundle("hello", "do: hello\n")
st, pid, out = create("hello", b)
s = state("hello")
check("create leaves a created container with the pid in --pid-file",
      st == 0 and s is not None and s["status"] == "created" and
      s["pid"] == pid and s["bundle"] == b and s["ociVersion"] and
      s["annotations"] == {"test": "hello"} and alive(pid), repr(s))
check("nothing runs before start", open(out).read() == "", open(out).read())
st, _ = oci("start", "hello")
status = reap(pid)
check("start runs the program: hello printed, status 0",
      st == 0 and status == 0 and
      open(out).read() == "hello from a CloudABI container\n",
      "start %d status %r output %r" % (st, status, open(out).read()))
s = state("hello")
check("state after exit: stopped, pid 0",
      s is not None and s["status"] == "stopped" and s["pid"] == 0, repr(s))
st, _ = oci("start", "hello")
expect_error("a second start fails", st, "stopped")
st, _ = oci("kill", "hello", "9")
expect_error("kill of a stopped container fails", st, "container not running")
st, _ = oci("delete", "hello")
check("delete of a stopped container", st == 0 and state("hello") is None)
expect_error("state of a deleted container fails", oci("state", "hello")[0],
             "does not exist")

os.makedirs(os.path.join(STATE, "half"))
s = state("half")
check("a container being created is creating", s is not None and
      s["status"] == "creating" and s["pid"] == 0, repr(s))
check("delete removes it", oci("delete", "half")[0] == 0 and
      not os.path.exists(os.path.join(STATE, "half")))

# -- exit statuses -------------------------------------------------------
status, text = run_to_end("exit7", bundle("exit7", "do: exit\ncode: 7\n"))
check("exit status 7 passes through", status == 7, "%r %r" % (status, text))

b = bundle("sleep", "do: sleep\n", extra={"process": {
    "terminal": False, "cwd": "/", "args": ["/bin/prog", "/etc/prog.yaml"],
    "rlimits": [{"type": "RLIMIT_AS", "hard": 1 << 30, "soft": 1 << 30},
                {"type": "RLIMIT_NOFILE", "hard": 1048576, "soft": 1048576},
                {"type": "RLIMIT_CPU", "hard": 100, "soft": 50}]},
    "linux": {"resources": {"pids": {"limit": 16},
                            "memory": {"limit": 1 << 29}}}})
for sig, name, want in (("15", "TERM", 143), ("KILL", "KILL", 137),
                        ("SIGINT", "INT", 130)):
    cid = "sleep" + name
    st, pid, out = create(cid, b)
    oci("start", cid)
    ok = wait_output(out, "sleeping\n")
    _, ps = oci("ps", "--format", "json", cid)
    pids = json.loads(ps)
    check("ps --format json lists cloudabi-run and its guest (%s)" % name,
          ok and pids[0] == pid and len(pids) >= 2, "%r %r" % (ok, pids))
    if name == "TERM":
        cmdline = open("/proc/%d/cmdline" % pid).read().split("\0")
        check("limits from the bundle reach cloudabi-run",
              "--memory-limit=536870912" in cmdline and
              "--cpu-limit=50" in cmdline and "--process-limit=16" in
              cmdline and not any(a.startswith("--fd-limit") for a in
                                  cmdline), repr(cmdline))
        s = state(cid)
        check("state of a running container", s["status"] == "running" and
              s["pid"] == pid, repr(s))
        st, _ = oci("start", cid)
        expect_error("start of a running container fails", st, "running")
    t0 = time.time()
    st, _ = oci("kill", cid, sig)
    status = reap(pid)
    took = time.time() - t0
    time.sleep(0.05)
    reap_orphans()
    survivors = [p for p in pids if alive(p)]
    check("kill %s: status %d within a second, no survivor" % (sig, want),
          st == 0 and status == want and took < 1 and not survivors,
          "kill %d status %r took %.2fs survivors %r" % (st, status, took,
                                                         survivors))
    oci("delete", cid)

# -- stdin ---------------------------------------------------------------
inp = os.path.join(TMP, "input.txt")
with open(inp, "w") as f:
    f.write("line one\nline two\n" * 1000)
status, text = run_to_end("cat", bundle("cat", "do: cat\nin: !fd stdin\n"),
                          stdin=inp)
check("stdin passed through", status == 0 and
      text == "line one\nline two\n" * 1000, "%r %r" % (status, text[:80]))

# -- out of order --------------------------------------------------------
b = bundle("order", "do: sleep\n")
st, pid, out = create("order", b)
st2, _, _ = create("order", b)
expect_error("a duplicate create fails", st2, "already exists")
check("the first container is untouched", state("order")["status"] ==
      "created" and alive(pid))
st, _ = oci("kill", "order", "TERM")
status = reap(pid)
check("kill of a created container ends it", st == 0 and status == 143,
      "kill %d status %r" % (st, status))
oci("delete", "order")
st, pid, out = create("order", b)
oci("start", "order")
wait_output(out, "sleeping\n")
st, _ = oci("delete", "order")
expect_error("delete of a running container fails", st, "not stopped")
check("it still runs", alive(pid) and state("order")["status"] == "running")
st, _ = oci("delete", "--force", "order")
status = reap(pid)
check("delete --force of a running container kills it", st == 0 and
      status == 137 and state("order") is None, "%d %r" % (st, status))
reap_orphans()
st, pid, out = create("order", b)
st, _ = oci("delete", "order")
status = reap(pid)
check("delete of a created container ends it", st == 0 and status == 137,
      "%d %r" % (st, status))
st, _ = oci("delete", "--force", "nosuch")
check("delete --force of an unknown id succeeds", st == 0)
expect_error("delete of an unknown id fails", oci("delete", "nosuch")[0],
             "does not exist")
expect_error("start of an unknown id fails", oci("start", "nosuch")[0],
             "does not exist")
expect_error("kill of an unknown id fails", oci("kill", "nosuch")[0],
             "does not exist")
expect_error("an invalid signal fails", oci("kill", "x", "SIGNOPE")[0],
             "invalid signal")
expect_error("an invalid id fails", oci("state", "../x")[0], "invalid")
expect_error("exec is refused clearly", oci("exec", "x")[0], "not supported")

# -- refusals at create --------------------------------------------------
b = bundle("native", "do: hello\n", program="/bin/true")
expect_error("a program that is not CloudABI fails create",
             create("native", b)[0], "not a CloudABI executable")
b = bundle("tty", "do: hello\n", extra={"process": {
    "terminal": True, "cwd": "/", "args": ["/bin/prog", "/etc/prog.yaml"]}})
expect_error("process.terminal is refused", create("tty", b)[0], "terminal")
b = bundle("noprog", "do: hello\n", args=["/bin/nosuch", "/etc/prog.yaml"])
expect_error("a missing program fails create", create("noprog", b)[0],
             "/bin/nosuch")
b = bundle("noconf", "do: hello\n", args=["/bin/prog"])
expect_error("a missing config fails create", create("noconf", b)[0],
             "org.cloudabi.config")
b = bundle("annot", "do: hello\n", args=["/bin/prog"],
           extra={"annotations": {"org.cloudabi.config": "/etc/prog.yaml"}})
status, text = run_to_end("annot", b)
check("the config named by annotation", status == 0 and "hello" in text,
      "%r %r" % (status, text))
b = bundle("badyaml", "do: [hello\n")
expect_error("a config with a syntax error fails create, with its position",
             create("badyaml", b)[0], "/etc/prog.yaml:5:1: syntax error")
check("failed creates leave no state", sorted(os.listdir(STATE)) == [],
      repr(os.listdir(STATE)))

# -- the file system: rootfs and bind mounts only ------------------------
outside = os.path.join(TMP, "outside.txt")
with open(outside, "w") as f:
    f.write("secret\n")
data = os.path.join(TMP, "data")
os.makedirs(data)
with open(os.path.join(data, "f.txt"), "w") as f:
    f.write("from the mount\n")
mounts = [{"destination": "/data", "type": "bind", "source": data,
           "options": ["rbind", "ro"]},
          {"destination": "/proc", "type": "proc", "source": "proc"}]


def fs_case(name, config, cwd="/", link=None):
    b = bundle(name, config, extra={"mounts": mounts, "process": {
        "terminal": False, "cwd": cwd,
        "args": ["/bin/prog", "/etc/prog.yaml"]}})
    os.makedirs(os.path.join(b, "rootfs", "srv", "x"))
    if link:
        os.symlink(link, os.path.join(b, "rootfs", "srv", "link"))
    return run_to_end(name, b)


status, text = fs_case(
    "ro", "do: read\nfile: !file {path: f.txt}\ndir: !file {path: .}\n",
    cwd="/data")
check("a read-only bind mount is readable from process.cwd and not writable",
      status == 0 and text.startswith("from the mount\ncreate new.txt: "
                                      "ENOTCAPABLE") and
      not os.path.exists(os.path.join(data, "new.txt")), repr(text))
# A config that cannot open fails create (cloudabi-run --plan), in the log.
status, text = fs_case("rw", "do: hello\nd: !file {path: /data, mode: rw}\n")
check("mode: rw on a read-only mount is refused at create", status is None and
      "!file: cannot open \"/data\": Read-only file system" in
      last_log()["msg"], repr(text))
rel = os.path.relpath(outside, os.path.join(TMP, "x", "rootfs", "srv", "x"))
for name, path, link in (("dotdot", "../../../../../../.." + outside, None),
                         ("relative", rel, None),
                         ("absolute", outside, None),
                         ("symlink", "/srv/link", outside),
                         ("symlink_up", "/srv/link", "../../../../.." +
                          outside)):
    status, text = fs_case(name, "do: hello\nf: !file {path: %s, follow: "
                           "true}\n" % json.dumps(path), cwd="/srv/x",
                           link=link)
    check("%s path cannot leave the rootfs" % name, status is None and
          "No such file or directory" in last_log()["msg"] and
          "secret" not in text, "%r %r" % (status, text))
status, text = fs_case("inside", "do: read\nfile: !file {path: /srv/link, "
                       "follow: true}\ndir: !file {path: /srv}\n",
                       link="/etc/../etc/prog.yaml")
check("an absolute symlink is followed inside the rootfs, which is writable",
      status == 0 and text == YAML + "do: read\nfile: !file {path: /srv/link, "
      "follow: true}\ndir: !file {path: /srv}\ncreate new.txt: ok\n",
      "%r %r" % (status, text))
status, text = fs_case("unix", "do: hello\ns: !socket {connect: /tmp/x.sock}\n")
check("Unix socket paths are refused inside a rootfs", status is None and
      "Unix socket paths" in last_log()["msg"], repr(text))

# -- the rest ------------------------------------------------------------
st, out = oci("features")
check("features is JSON", st == 0 and json.loads(out)["ociVersionMax"])
st, out = oci("--version")
check("--version", st == 0 and out.startswith("cloudabi-oci version "))
reap_orphans()
check("the state folder is empty at the end", os.listdir(STATE) == [],
      repr(os.listdir(STATE)))

print("oci_runtime: %d checks failed" % failed if failed else
      "oci_runtime: all checks passed")
sys.exit(1 if failed else 0)
