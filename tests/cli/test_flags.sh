#!/usr/bin/env bash
# Runs without a YAML file (--dir, --file, --fd, --set, --set-str), alone,
# with a config and in conflict; the hint on a terminal; the port range;
# -V; the one-line reasons for wrong arguments.
#
# usage: test_flags.sh CLOUDABI_RUN GUEST_DIR
set -u
RUN=$1
GUEST=$2
HELLO=$GUEST/hello
FIND=$GUEST/find
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect STATUS STDOUT STDERR -- COMMAND...: status and both outputs exact.
expect() {
  local want_status=$1 want_out=$2 want_err=$3
  shift 4
  "$@" >out.txt 2>err.txt </dev/null
  local status=$?
  [ "$status" -eq "$want_status" ] || fail "$*: exit $status, want $want_status"
  if [ "$(cat out.txt)" != "$want_out" ]; then
    fail "$*: stdout"
    diff <(echo "$want_out") out.txt >&2
  fi
  if [ "$(cat err.txt)" != "$want_err" ]; then
    fail "$*: stderr"
    diff <(echo "$want_err") err.txt >&2
  fi
}

mkdir -p tree/sub
echo text >tree/a.txt
HERE=$(pwd -P)
cat >hello.yaml <<'EOF'
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
terminal: !fd stdout
name: config
EOF

# --- each flag alone: no config, standard input never read ---
expect 0 "Hello, flags!" "" -- "$RUN" --fd terminal=stdout --set-str name=flags "$HELLO"
# A plain --set value is typed: 0x10 is an integer, so hello has no name.
"$RUN" --fd terminal=stdout --set name=0x10 "$HELLO" >out.txt 2>&1 </dev/null
grep -q 'Hello, flags' out.txt && fail "--set typed the value as a string"
# stdin holds a config that would fail: it must not be read.
echo 'terminal: [' | "$RUN" --fd terminal=stdout --set-str name=x "$HELLO" >out.txt 2>err.txt
[ $? -eq 0 ] && [ "$(cat out.txt)" = "Hello, x!" ] && [ ! -s err.txt ] ||
  fail "flags alone read standard input"
# --dir: the program walks the directory.
"$RUN" --dir dir=tree --fd out=stdout "$FIND" >out.txt 2>err.txt </dev/null
[ $? -eq 0 ] && grep -qx './a.txt' out.txt && grep -qx './sub/' out.txt ||
  { fail "--dir"; cat out.txt err.txt >&2; }

# --- --plan shows the flags as their source ---
expect 0 "<command line>: 2 descriptors, 23 bytes of argument data
fd 0: DIRECTORY from !file \"tree\" (mode ro, directory)
  resolves to \"$HERE/tree\"
  at .dir (--dir dir=tree)
  rights (0x000000001049c088): FD_STAT_PUT_FLAGS FILE_ADVISE FILE_OPEN FILE_READDIR FILE_READLINK FILE_STAT_FGET FILE_STAT_GET POLL_FD_READWRITE
  inheriting (0x000000011c49c0ae): FD_READ FD_SEEK FD_STAT_PUT_FLAGS FD_TELL FILE_ADVISE FILE_OPEN FILE_READDIR FILE_READLINK FILE_STAT_FGET FILE_STAT_GET MEM_MAP MEM_MAP_EXEC POLL_FD_READWRITE PROC_EXEC
fd 1: REGULAR_FILE from !file \"tree/a.txt\" (mode rw)
  resolves to \"$HERE/tree/a.txt\"
  at .f (--file f=tree/a.txt:rw)
  rights (0x000000011c3801ff): FD_DATASYNC FD_READ FD_SEEK FD_STAT_PUT_FLAGS FD_SYNC FD_TELL FD_WRITE FILE_ADVISE FILE_ALLOCATE FILE_STAT_FGET FILE_STAT_FPUT_SIZE FILE_STAT_FPUT_TIMES MEM_MAP MEM_MAP_EXEC POLL_FD_READWRITE PROC_EXEC
  inheriting (0x0000000000000000): none" "" -- \
  "$RUN" --plan --dir dir=tree --file f=tree/a.txt:rw "$FIND"

check_json() { # check_json PYTHON-EXPR COMMAND...: the expression on the plan
  local expr=$1
  shift
  "$@" >plan.json 2>err.txt </dev/null || { fail "$*: exit"; return; }
  python3 -c "import json,sys; p=json.load(open('plan.json')); d=p['descriptors']; sys.exit(0 if ($expr) else 1)" ||
    { fail "$*: $expr"; cat plan.json >&2; }
}
# :rw gives a writable tree, plain --dir a read-only one.
check_json "'FILE_CREATE_FILE' in d[0]['rights_base'] and d[0]['references'][0] == {'path': '.w', 'flag': '--dir w=tree:rw'}" \
  "$RUN" --plan=json --dir w=tree:rw "$FIND"
check_json "'FILE_CREATE_FILE' not in d[0]['rights_base'] and 'FD_WRITE' not in d[0]['rights_inheriting']" \
  "$RUN" --plan=json --dir r=tree "$FIND"
# --file modes: ro loses FD_WRITE, wo loses FD_READ.
check_json "'FD_WRITE' not in d[0]['rights_base'] and 'FD_READ' in d[0]['rights_base']" \
  "$RUN" --plan=json --file f=tree/a.txt "$FIND"
check_json "'FD_READ' not in d[0]['rights_base'] and 'FD_WRITE' in d[0]['rights_base']" \
  "$RUN" --plan=json --file f=tree/a.txt:wo "$FIND"
# A path that contains a colon keeps it; only a mode suffix comes off.
echo x >'tree/b:c'
check_json "d[0]['source']['path'] == 'tree/b:c' and d[0]['source']['mode'] == 'ro'" \
  "$RUN" --plan=json --file 'f=tree/b:c' "$FIND"
check_json "d[0]['source'] == {'tag': 'fd', 'host_fd': 2, 'name': 'stderr', 'narrowed': False} and p['config'] == '<command line>'" \
  "$RUN" --plan=json --fd e=stderr "$FIND"

# --- with a config: flags add and replace top-level keys ---
expect 0 "Hello, replaced!" "" -- "$RUN" --set-str name=replaced "$HELLO" hello.yaml
check_json "len(d) == 2 and d[1]['references'][0]['flag'] == '--dir more=tree' and d[0]['references'][0] == {'path': '.terminal', 'line': 3, 'column': 11}" \
  "$RUN" --plan=json --dir more=tree "$HELLO" hello.yaml
# A replaced descriptor is gone: the flag's is the only one.
check_json "len(d) == 1 and d[0]['source']['name'] == 'stderr'" \
  "$RUN" --plan=json --fd terminal=stderr "$HELLO" hello.yaml
# "-" reads standard input even with flags.
"$RUN" --set-str name=stdin "$HELLO" - <hello.yaml >out.txt 2>err.txt
[ "$(cat out.txt)" = "Hello, stdin!" ] || fail "flags with CONFIG -"
printf -- '- 1\n' >seq.yaml
expect 127 "" "seq.yaml: the top level is a sequence, not a mapping: --dir, --file, --fd and --set add keys to a mapping" -- \
  "$RUN" --set a=1 "$HELLO" seq.yaml

# --- conflicts and mistakes: every one reported, nothing run ---
expect 127 "" 'cloudabi-run: --set x=1: key "x" given twice (first by --fd x=stdout)
cloudabi-run: --set y=1e999: float "1e999" out of range
cloudabi-run: --set =3: expected KEY=VALUE
cloudabi-run: --dir d=tree:wo: a directory cannot be write-only (:ro or :rw)
cloudabi-run: --fd n=-1: !fd: descriptor number "-1" out of range (0 to 2147483647)
cloudabi-run: --file p=: the path is empty' -- \
  "$RUN" --fd x=stdout --set x=1 --set y=1e999 --set =3 --dir d=tree:wo --fd n=-1 --file p= "$HELLO"
# Flag paths are opened as config paths: missing, symlinks, /proc.
expect 127 "" 'cloudabi-run: --file f=missing: !file: cannot open "missing": No such file or directory' -- \
  "$RUN" --file f=missing "$HELLO"
ln -s tree link
expect 127 "" 'cloudabi-run: --dir d=link: !file: "link" is a symlink or goes through one; config paths follow symlinks only with follow: true' -- \
  "$RUN" --dir d=link "$HELLO"
"$RUN" --dir p=/proc/sys "$HELLO" >out.txt 2>err.txt </dev/null
[ $? -eq 127 ] && grep -q 'a file system of the running system' err.txt || fail "--dir /proc"
expect 127 "" 'cloudabi-run: --dir d=tree/a.txt: !file: cannot open "tree/a.txt": Not a directory' -- \
  "$RUN" --dir d=tree/a.txt "$HELLO"

# --- the port range, at file:line:col ---
cat >port.yaml <<'EOF'
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
a: !socket {bind: "127.0.0.1:99999"}
b: !socket {connect: "[::1]:65536"}
c: !socket {bind: 127.0.0.1:65535}
EOF
expect 127 "" 'port.yaml:3:19: !socket: port in "127.0.0.1:99999" out of range (0 to 65535)
port.yaml:4:22: !socket: port in "[::1]:65536" out of range (0 to 65535)' -- \
  "$RUN" --plan "$HELLO" port.yaml

# --- -V, and a reason before the usage ---
expect 0 "cloudabi-run 0.1.0" "" -- "$RUN" -V
"$RUN" "$HELLO" hello.yaml --plan >out.txt 2>err.txt
[ $? -eq 127 ] && [ "$(head -n1 err.txt)" = "cloudabi-run: option --plan after PROGRAM: options go before it (a config file named so: ./--plan)" ] &&
  sed -n 2p err.txt | grep -q '^usage:' || fail "option after PROGRAM"
"$RUN" "$HELLO" a.yaml b.yaml >out.txt 2>err.txt
[ $? -eq 127 ] && head -n1 err.txt | grep -q '^cloudabi-run: too many arguments: "b.yaml" after CONFIG' || fail "too many arguments"
"$RUN" >out.txt 2>err.txt
[ $? -eq 127 ] && [ "$(head -n1 err.txt)" = "cloudabi-run: no PROGRAM given" ] || fail "no PROGRAM"
"$RUN" "$HELLO" --dir >out.txt 2>err.txt
[ $? -eq 127 ] && head -n1 err.txt | grep -q 'option --dir after PROGRAM' || fail "--dir after PROGRAM"
"$RUN" --dir >out.txt 2>err.txt
[ $? -eq 127 ] && [ "$(head -n1 err.txt)" = "cloudabi-run: option --dir needs an argument" ] || fail "--dir without argument"

# --- -v says what is given and how it ended ---
"$RUN" -v --fd terminal=stdout "$HELLO" >out.txt 2>err.txt </dev/null
[ "$(cat err.txt)" = "cloudabi-run: running $HELLO with 1 descriptor and 18 bytes of argument data (--plan lists them)
cloudabi-run: $HELLO ended with status 0" ] || { fail "-v"; cat err.txt >&2; }

# --- the hint when the config would come from a terminal ---
# A pty as standard input; the config then arrives through it.
pty_run() { # pty_run ARGS...: runs cloudabi-run on a pty, feeds hello.yaml
  python3 - "$RUN" "$@" <<'EOF'
import os, pty, sys, time, select
pid, master = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
deadline = time.time() + 10
sent = False
while time.time() < deadline:
    r, _, _ = select.select([master], [], [], 0.2)
    if r:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    if not sent and (b"standard input" in out or time.time() > deadline - 8):
        os.write(master, open("hello.yaml", "rb").read() + b"\x04")
        sent = True
# Never hang the test: a run still going after the deadline is killed.
for _ in range(50):
    if os.waitpid(pid, os.WNOHANG)[0] != 0:
        break
    time.sleep(0.1)
else:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    out += b"\n(killed: still running)\n"
sys.stdout.write(out.decode(errors="replace"))
EOF
}
pty_run "$HELLO" >pty.txt 2>&1
grep -q 'cloudabi-run: reading the config from standard input; give a file or flags' pty.txt &&
  grep -q 'Hello, config!' pty.txt || { fail "terminal hint"; cat pty.txt >&2; }
pty_run -q "$HELLO" >pty.txt 2>&1
grep -q 'reading the config' pty.txt && fail "-q still hints"
grep -q 'Hello, config!' pty.txt || { fail "-q on a terminal"; cat pty.txt >&2; }
# No hint when standard input is no terminal.
"$RUN" "$HELLO" <hello.yaml >out.txt 2>err.txt
[ ! -s err.txt ] || fail "hint without a terminal"

if [ $failures -eq 0 ]; then
  echo "test_flags: all passed"
else
  echo "test_flags: $failures failed"
  exit 1
fi
