#!/usr/bin/env bash
# The command line of cloudabi-run: options, exit statuses, the exact
# error lines for bad configs (from a file and from standard input), and
# --plan in both formats (the JSON is parsed, not just looked at).
#
# usage: test_cli.sh CLOUDABI_RUN GUEST_PROGRAM
set -u
RUN=$1
PROG=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect STATUS STDOUT STDERR -- COMMAND...: runs COMMAND with its output
# in files and compares status and both outputs exactly.
expect() {
  local want_status=$1 want_out=$2 want_err=$3
  shift 4
  "$@" >out.txt 2>err.txt
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

mkdir data
HERE=$(pwd -P)
cat >good.yaml <<'EOF'
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
data: !file
  path: data
  rights: [FILE_OPEN, FILE_READDIR]
self: !executable
listen: !socket {bind: 127.0.0.1:0}
again: !file {path: data, directory: true}
EOF

# --- options ---
"$RUN" --help >out.txt 2>&1 && grep -q '^usage: cloudabi-run \[OPTIONS\] PROGRAM \[CONFIG\]' out.txt ||
  fail "--help"
expect 0 "cloudabi-run 0.1.0" "" -- "$RUN" --version
"$RUN" >out.txt 2>err.txt
[ $? -eq 127 ] && [ ! -s out.txt ] && grep -q '^usage:' err.txt || fail "no arguments"
"$RUN" --plan=xml "$PROG" good.yaml >out.txt 2>err.txt
[ $? -eq 127 ] && grep -q 'unknown format "xml"' err.txt || fail "--plan=xml"
"$RUN" --frobnicate "$PROG" >out.txt 2>err.txt
[ $? -eq 127 ] && grep -q 'unknown option --frobnicate' err.txt || fail "unknown option"
"$RUN" "$PROG" a.yaml b.yaml >out.txt 2>err.txt
[ $? -eq 127 ] && grep -q '^usage:' err.txt || fail "too many arguments"

# --- the program and the config file ---
expect 127 "" "cloudabi-run: missing-program: No such file or directory" -- \
  "$RUN" missing-program good.yaml
expect 127 "" "good.yaml: not a CloudABI executable: not an ELF file" -- \
  "$RUN" good.yaml good.yaml
expect 127 "" "cloudabi-run: missing.yaml: No such file or directory" -- \
  "$RUN" "$PROG" missing.yaml

# --- bad configs: one line per error, exit 127, nothing on stdout ---
cat >bad.yaml <<'EOF'
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
tmp: !file {path: tmp}
n: 0x1g
n: !fd 99999999999
EOF
expect 127 "" 'bad.yaml:5:1: duplicate key "n" (first at 4:1)
bad.yaml:5:4: !fd: descriptor number "99999999999" out of range (0 to 2147483647)' -- \
  "$RUN" "$PROG" bad.yaml
head -n 4 bad.yaml | sed 's/^n: 0x1g$/n: 1/' >open.yaml
expect 127 "" 'open.yaml:3:19: !file: cannot open "tmp": No such file or directory' -- \
  "$RUN" "$PROG" open.yaml
# The same from standard input, plain and as "-".
printf 'a: [1\n' >syntax.yaml
expect 127 "" "<stdin>:2:1: syntax error: did not find expected ',' or ']' (while parsing a flow sequence at 1:4)" -- \
  "$RUN" "$PROG" <syntax.yaml
expect 127 "" "<stdin>:2:1: syntax error: did not find expected ',' or ']' (while parsing a flow sequence at 1:4)" -- \
  "$RUN" "$PROG" - <syntax.yaml

# --- a good config runs the program (which does nothing) ---
"$RUN" "$PROG" good.yaml >out.txt 2>err.txt
[ $? -eq 0 ] && [ ! -s err.txt ] && [ ! -s out.txt ] || fail "a good config"

# --- --plan, text ---
expect 0 "good.yaml: 4 descriptors, 56 bytes of argument data
fd 0: DIRECTORY from !file \"data\" (mode ro by default), rights narrowed by the config
  resolves to \"$HERE/data\"
  at .data (good.yaml:3:7)
  rights (0x000000000000c000): FILE_OPEN FILE_READDIR
  inheriting (0x000000011ffff7ff): FD_DATASYNC FD_READ FD_SEEK FD_STAT_PUT_FLAGS FD_SYNC FD_TELL FD_WRITE FILE_ADVISE FILE_ALLOCATE FILE_CREATE_DIRECTORY FILE_CREATE_FILE FILE_LINK_SOURCE FILE_LINK_TARGET FILE_OPEN FILE_READDIR FILE_READLINK FILE_RENAME_SOURCE FILE_RENAME_TARGET FILE_STAT_FGET FILE_STAT_FPUT_SIZE FILE_STAT_FPUT_TIMES FILE_STAT_GET FILE_STAT_PUT_TIMES FILE_SYMLINK FILE_UNLINK MEM_MAP MEM_MAP_EXEC POLL_FD_READWRITE PROC_EXEC
fd 1: REGULAR_FILE from !executable (the program itself)
  at .self (good.yaml:6:7)
  rights (0x000000011c3801bf): FD_DATASYNC FD_READ FD_SEEK FD_STAT_PUT_FLAGS FD_SYNC FD_TELL FILE_ADVISE FILE_ALLOCATE FILE_STAT_FGET FILE_STAT_FPUT_SIZE FILE_STAT_FPUT_TIMES MEM_MAP MEM_MAP_EXEC POLL_FD_READWRITE PROC_EXEC
  inheriting (0x0000000000000000): none
fd 2: SOCKET_STREAM from !socket stream, bind to \"127.0.0.1:0\"
  at .listen (good.yaml:7:9)
  rights (0x000000801008004a): FD_READ FD_STAT_PUT_FLAGS FD_WRITE FILE_STAT_FGET POLL_FD_READWRITE SOCK_SHUTDOWN
  inheriting (0x000000815ffff7ff): FD_DATASYNC FD_READ FD_SEEK FD_STAT_PUT_FLAGS FD_SYNC FD_TELL FD_WRITE FILE_ADVISE FILE_ALLOCATE FILE_CREATE_DIRECTORY FILE_CREATE_FILE FILE_LINK_SOURCE FILE_LINK_TARGET FILE_OPEN FILE_READDIR FILE_READLINK FILE_RENAME_SOURCE FILE_RENAME_TARGET FILE_STAT_FGET FILE_STAT_FPUT_SIZE FILE_STAT_FPUT_TIMES FILE_STAT_GET FILE_STAT_PUT_TIMES FILE_SYMLINK FILE_UNLINK MEM_MAP MEM_MAP_EXEC POLL_FD_READWRITE POLL_PROC_TERMINATE PROC_EXEC SOCK_SHUTDOWN
fd 3: DIRECTORY from !file \"data\" (mode ro by default, directory)
  resolves to \"$HERE/data\"
  at .again (good.yaml:8:8)
  rights (0x0000000013eff698): FD_STAT_PUT_FLAGS FD_SYNC FILE_ADVISE FILE_CREATE_DIRECTORY FILE_CREATE_FILE FILE_LINK_SOURCE FILE_LINK_TARGET FILE_OPEN FILE_READDIR FILE_READLINK FILE_RENAME_SOURCE FILE_RENAME_TARGET FILE_STAT_FGET FILE_STAT_FPUT_TIMES FILE_STAT_GET FILE_STAT_PUT_TIMES FILE_SYMLINK FILE_UNLINK POLL_FD_READWRITE
  inheriting (0x000000011ffff7ff): FD_DATASYNC FD_READ FD_SEEK FD_STAT_PUT_FLAGS FD_SYNC FD_TELL FD_WRITE FILE_ADVISE FILE_ALLOCATE FILE_CREATE_DIRECTORY FILE_CREATE_FILE FILE_LINK_SOURCE FILE_LINK_TARGET FILE_OPEN FILE_READDIR FILE_READLINK FILE_RENAME_SOURCE FILE_RENAME_TARGET FILE_STAT_FGET FILE_STAT_FPUT_SIZE FILE_STAT_FPUT_TIMES FILE_STAT_GET FILE_STAT_PUT_TIMES FILE_SYMLINK FILE_UNLINK MEM_MAP MEM_MAP_EXEC POLL_FD_READWRITE PROC_EXEC" "" -- \
  "$RUN" --plan "$PROG" good.yaml

# --- --plan=json: it must parse, and say the same ---
"$RUN" --plan=json "$PROG" good.yaml >plan.json 2>err.txt
[ $? -eq 0 ] && [ ! -s err.txt ] || fail "--plan=json: status or stderr"
if command -v python3 >/dev/null 2>&1; then
  python3 - plan.json <<'EOF' || fail "--plan=json: content"
import json, os, sys
plan = json.load(open(sys.argv[1]))
assert plan["config"] == "good.yaml", plan["config"]
assert plan["argdata_length"] == 56
d = plan["descriptors"]
assert [x["fd"] for x in d] == [0, 1, 2, 3]
assert [x["type"] for x in d] == ["DIRECTORY", "REGULAR_FILE", "SOCKET_STREAM", "DIRECTORY"]
assert d[0]["source"] == {"tag": "file", "path": "data", "mode": "ro",
                          "mode_set": False, "create": False, "directory": False,
                          "follow": False, "resolved": os.getcwd() + "/data",
                          "narrowed": True}
assert d[0]["rights_base"] == ["FILE_OPEN", "FILE_READDIR"]
assert d[0]["rights_base_mask"] == "0x000000000000c000"
assert d[0]["references"] == [{"path": ".data", "line": 3, "column": 7}]
assert d[1]["source"] == {"tag": "executable", "narrowed": False}
assert "FD_WRITE" not in d[1]["rights_base"]
assert d[2]["source"] == {"tag": "socket", "type": "stream", "bind": "127.0.0.1:0", "accept": False, "narrowed": False}
assert d[3]["rights_inheriting_mask"] == "0x000000011ffff7ff"
# The supervisor's own confinement (issue 19): these two layers exist on
# every kernel that runs cloudabi-run; Landlock depends on the kernel.
sup = plan["supervisor"]
assert sup["no_new_privs"] is True and sup["seccomp"] is True, sup
assert sup["landlock"] == (sup["landlock_abi"] >= 2), sup
EOF
"$RUN" -v --plan "$PROG" good.yaml 2>/dev/null | grep -q '^supervisor: confined by no_new_privs, not dumpable, its own seccomp filter' ||
  fail "--plan -v: the supervisor line"
  # Names that are not UTF-8 or need escapes still give valid JSON.
  cp good.yaml $'we"ird\x01\xff.yaml'
  "$RUN" --plan=json "$PROG" $'we"ird\x01\xff.yaml' | python3 -m json.tool >/dev/null ||
    fail "--plan=json with an odd file name"
else
  # Without python: the structure, roughly.
  grep -q '"descriptors": \[' plan.json && grep -c '"fd": ' plan.json | grep -qx 4 ||
    fail "--plan=json: structure"
fi
printf -- '- 1\n- two\n' | "$RUN" --plan=json "$PROG" >empty.json &&
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["descriptors"]==[] and p["config"]=="<stdin>"' empty.json
  else
    grep -q '"descriptors": \[\]' empty.json
  fi || fail "--plan=json without descriptors"

# --plan never creates anything: no file, no socket.
cat >create.yaml <<'EOF'
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
- !file {path: new.txt, mode: rw, create: true}
- !socket {bind: /PLACEHOLDER/s.sock}
EOF
sed -i "s|/PLACEHOLDER|$TMP|" create.yaml
"$RUN" --plan "$PROG" create.yaml >out.txt 2>&1 || fail "--plan with create"
[ ! -e new.txt ] && [ ! -e s.sock ] || fail "--plan created something"
"$RUN" "$PROG" create.yaml >out.txt 2>&1 || fail "a run with create"
[ -f new.txt ] && [ -S s.sock ] || fail "a run did not create"

# --- --trace: to standard error by default, to a file, bad options ---
expect 0 "" "[1] +++ exited with 0 +++" -- "$RUN" --trace "$PROG" good.yaml
# Any --trace-* option turns tracing on.
expect 0 "" '{"type":"exit","proc":1,"status":0}' -- \
  "$RUN" --trace-format=json "$PROG" good.yaml
expect 0 "" "" -- "$RUN" --trace=proc,./trace.txt "$PROG" good.yaml
[ "$(cat trace.txt)" = "[1] +++ exited with 0 +++" ] || fail "--trace=./trace.txt"
expect 0 "" "" -- "$RUN" --trace-output=trace2.txt -T "$PROG" good.yaml
[ "$(cat trace2.txt)" = "[1] +++ exited with 0 +++" ] || fail "--trace-output"
grep -q -- '--trace\[=LIST\]' <("$RUN" --help) || fail "--help mentions --trace"
expect 127 "" 'cloudabi-run: --trace: unknown system call or family "flie" (a file name needs a "/", as in ./flie)' -- \
  "$RUN" --trace=fd,flie "$PROG" good.yaml
expect 127 "" 'cloudabi-run: --trace=: nothing named (write --trace for every call)' -- \
  "$RUN" --trace= "$PROG" good.yaml
expect 127 "" 'cloudabi-run: --trace=fd,: empty item in the list' -- \
  "$RUN" --trace=fd, "$PROG" good.yaml
expect 127 "" 'cloudabi-run: --trace: more than one output file' -- \
  "$RUN" --trace=./a,./b "$PROG" good.yaml
expect 127 "" 'cloudabi-run: --trace-format: unknown format "xml" (expected text or json)' -- \
  "$RUN" --trace-format=xml "$PROG" good.yaml
for n in -1 abc 1048577 ""; do
  expect 127 "" "cloudabi-run: --trace-strsize: \"$n\" is not a number from 0 to 1048576" -- \
    "$RUN" --trace-strsize="$n" "$PROG" good.yaml
done
expect 127 "" "cloudabi-run: cannot open the trace file $TMP/no/such/dir: No such file or directory" -- \
  "$RUN" --trace-output="$TMP/no/such/dir" "$PROG" good.yaml

# --- symlinks in config paths (a program may have planted them) ---
mkdir -p outside box
echo secret >outside/secret.txt
ln -s ../outside/secret.txt box/log.txt
ln -s ../outside box/dirlink
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nlog: !file {path: box/log.txt, mode: rw}\n' >link.yaml
expect 127 "" 'link.yaml:3:19: !file: "box/log.txt" is a symlink or goes through one; config paths follow symlinks only with follow: true' -- \
  "$RUN" "$PROG" link.yaml
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nd: !file {path: box/dirlink, directory: true}\n' >link.yaml
expect 127 "" 'link.yaml:3:17: !file: "box/dirlink" is a symlink or goes through one; config paths follow symlinks only with follow: true' -- \
  "$RUN" "$PROG" link.yaml
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nd: !file {path: box/dirlink/secret.txt}\n' >link.yaml
expect 127 "" 'link.yaml:3:17: !file: "box/dirlink/secret.txt" is a symlink or goes through one; config paths follow symlinks only with follow: true' -- \
  "$RUN" "$PROG" link.yaml
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nlog: !file {path: box/log.txt, mode: rw, follow: true}\n' >link.yaml
"$RUN" "$PROG" link.yaml >out.txt 2>err.txt
[ $? -eq 0 ] && [ ! -s err.txt ] || fail "follow: true: accepted"
"$RUN" --plan "$PROG" link.yaml >out.txt 2>err.txt
grep -qx "fd 0: REGULAR_FILE from !file \"box/log.txt\" (mode rw, follow)" out.txt &&
  grep -qx "  resolves to \"$HERE/outside/secret.txt\"" out.txt || { fail "--plan shows where a path resolves"; cat out.txt >&2; }

# --- no grant of a file system of the running system ---
for g in "/proc:proc" "/proc/1:proc" "/sys:sysfs" "/sys/kernel:sysfs"; do
  printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nd: !file {path: %s, directory: true}\n' "${g%%:*}" >pseudo.yaml
  expect 127 "" "pseudo.yaml:3:17: !file: \"${g%%:*}\" is on ${g#*:}, a file system of the running system; no grant may reach it" -- \
    "$RUN" "$PROG" pseudo.yaml
done
expect 127 "" 'pseudo.yaml:3:4: !fd: descriptor 5 is on proc, a file system of the running system; no grant may reach it' -- \
  bash -c 'printf "%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nd: !fd 5\n" >pseudo.yaml; exec "$0" "$1" pseudo.yaml 5</proc' "$RUN" "$PROG"
# A terminal may be handed on as !fd, but not devpts itself.
if [ -d /dev/pts ]; then
  expect 127 "" 'pseudo.yaml:3:4: !fd: descriptor 5 is on devpts, a file system of the running system; no grant may reach it' -- \
    bash -c 'printf "%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nd: !fd 5\n" >pseudo.yaml; exec "$0" "$1" pseudo.yaml 5</dev/pts' "$RUN" "$PROG"
fi

# --- --root, --cwd, --mount: every path inside the view ---
mkdir -p view/bin view/etc view/srv
cp "$PROG" view/bin/prog
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nd: !file {path: ../etc}\np: !file {path: /p, directory: true}\n' >view/etc/v.yaml
expect 127 "" "cloudabi-run: --cwd and --mount need --root" -- "$RUN" --cwd /srv "$PROG"
expect 127 "" "cloudabi-run: --mount data: expected DEST=SRC[:ro] with an absolute DEST" -- \
  "$RUN" --root view --mount data "$PROG"
expect 127 "" "cloudabi-run: --root: nosuch: No such file or directory" -- "$RUN" --root nosuch /bin/prog
expect 127 "" "cloudabi-run: --mount /m=nosuch: nosuch: No such file or directory" -- \
  "$RUN" --root view --mount /m=nosuch /bin/prog
expect 127 "" "cloudabi-run: $PROG: No such file or directory" -- "$RUN" --root view "$PROG"
# A bundle that mounts /proc still cannot hand it out.
expect 127 "" '/etc/v.yaml:4:17: !file: "/p" is on proc, a file system of the running system; no grant may reach it' -- \
  "$RUN" --root view --cwd /srv --mount /p=/proc /bin/prog /etc/v.yaml
"$RUN" --root view:ro --cwd /srv --mount /p=data --plan /bin/prog /etc/v.yaml >out.txt 2>err.txt
{ [ $? -eq 0 ] && grep -qx "  resolves to \"$HERE/view/etc\"" out.txt &&
  grep -qx "  resolves to \"$HERE/data\"" out.txt; } || { fail "--root --plan shows paths inside the view"; cat out.txt err.txt >&2; }
grep -A5 '^fd 0' out.txt | grep -q 'FILE_CREATE_FILE' && fail "--root DIR:ro gives a read-only tree"

if [ $failures -eq 0 ]; then
  echo "test_cli: all passed"
else
  echo "test_cli: $failures failed"
  exit 1
fi
