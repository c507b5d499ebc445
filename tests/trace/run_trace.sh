#!/usr/bin/env bash
# Golden-output test of --trace: runs the trace_demo guest under
# cloudabi-run with the given options and the trace going to a file,
# normalises what changes from run to run (thread ids, addresses, times,
# offsets into the program), and compares the result line by line with
# EXPECTED.  A JSON trace (EXPECTED ending in .json) must also parse, line
# by line (python3's json module, or a structural check without python3).
#
# usage: run_trace.sh CLOUDABI_RUN PROGRAM EXPECTED [--do WHAT] [--status N]
#          [--stdin-late TEXT] [--stderr EXPECTED_STDERR] [-- OPTIONS...]
#   --do WHAT          the guest's `do` (default: calls)
#   --status N         expected exit status (default 3)
#   --stdin-late TEXT  standard input is a pipe that gets TEXT after 0.5 s
#   --stderr FILE      normalised standard error must equal FILE (default:
#                      it must be empty)
#   OPTIONS            cloudabi-run's, before the program
# TRACE_UPDATE=1 in the environment rewrites EXPECTED (and the stderr
# file) from this run instead of comparing: review the diff before you
# commit it.
set -u
RUN=$1 PROG=$2 EXPECTED=$3
shift 3
what=calls status=3 stdin_late= have_late=0 want_stderr=
while [ $# -gt 0 ]; do
  case $1 in
  --do) what=$2; shift 2 ;;
  --status) status=$2; shift 2 ;;
  --stdin-late) stdin_late=$2; have_late=1; shift 2 ;;
  --stderr) want_stderr=$2; shift 2 ;;
  --) shift; break ;;
  *) echo "run_trace.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
printf 0123456789 >data.txt
cat >config.yaml <<EOF
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
out: !fd stdout
file: !file {path: data.txt}
in: !fd stdin
do: $what
EOF
# The readdir guest lists a directory of one file; the key is added only
# for it, so that the other traces' descriptor numbers stay as they are.
# On tmpfs, and only there, the order is fixed (".", "..", newest first);
# ext4 lists in the order of a hash seeded per file system.
if [ "$what" = readdir ]; then
  shm=${CLOUDABI_TMPFS:-/dev/shm}
  if [ "$(stat -f -c %T "$shm" 2>/dev/null)" != tmpfs ]; then
    echo "no tmpfs at $shm (set CLOUDABI_TMPFS): skipped"
    exit 77
  fi
  listing=$(mktemp -d "$shm/cloudabi-trace.XXXXXX") || exit 1
  trap 'rm -rf "$TMP" "$listing"' EXIT
  printf x >"$listing/only.txt"
  echo "dir: !file {path: $listing, directory: true}" >>config.yaml
fi

if [ $have_late -eq 1 ]; then
  { sleep 0.5; printf '%b' "$stdin_late"; } |
    timeout -s KILL 60 "$RUN" --trace-output=trace.out "$@" "$PROG" \
      config.yaml >stdout.txt 2>stderr.txt
  got=${PIPESTATUS[1]}
else
  timeout -s KILL 60 "$RUN" --trace-output=trace.out "$@" "$PROG" \
    config.yaml </dev/null >stdout.txt 2>stderr.txt
  got=$?
fi

# Thread ids, addresses (8 hex digits or more; short ones like 0x10 are
# the test's own), offsets into a mapped file, times, and a directory
# entry's inode and cookie (the file system's).
normalise() {
  sed -E \
    -e 's/\[([0-9?]+):[0-9]+\]/[\1:TID]/g' \
    -e 's/"tid":[0-9]+/"tid":TID/g' \
    -e 's/thread [0-9]+/thread TID/g' \
    -e 's/([A-Za-z0-9_.-]+)\+0x[0-9a-f]+/\1+OFFSET/g' \
    -e 's/0x[0-9a-f]{8,}/ADDR/g' \
    -e 's/<[0-9]+\.[0-9]{6}>/<TIME>/g' \
    -e 's/^(\[[^]]*\]) [0-9]+\.[0-9]{6} /\1 TIME /' \
    -e 's/"(time|duration)":[0-9]+\.[0-9]{6}/"\1":TIME/g' \
    -e 's/\{next=[0-9]+, ino=[0-9]+, /{next=COOKIE, ino=INO, /g' \
    -e 's/\{"next":[0-9]+,"ino":[0-9]+,/{"next":COOKIE,"ino":INO,/g' \
    "$1"
}

ok=1
if [ "$got" -ne "$status" ]; then
  echo "exit status $got, want $status"
  ok=0
fi
if [ ! -f trace.out ]; then
  echo "no trace written"
  exit 1
fi
case $EXPECTED in
*.json)
  if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import json, sys
for n, line in enumerate(open(sys.argv[1]), 1):
    v = json.loads(line)
    assert isinstance(v, dict) and "type" in v, "line %d: %r" % (n, v)
' trace.out || { echo "the JSON trace does not parse"; ok=0; }
  else
    # Without python3: every line one object, quotes balanced.
    awk '!/^\{.*\}$/ { print "line " NR " is not an object"; bad = 1 }
         { q = gsub(/\\"/, ""); n = gsub(/"/, "\""); if (n % 2) { print "line " NR ": unbalanced quotes"; bad = 1 } }
         END { exit bad }' trace.out || ok=0
  fi
  ;;
esac
normalise trace.out >trace.norm
normalise stderr.txt >stderr.norm
if [ "${TRACE_UPDATE:-0}" = 1 ]; then
  cp trace.norm "$EXPECTED"
  if [ -n "$want_stderr" ]; then cp stderr.norm "$want_stderr"; fi
  echo "updated $EXPECTED"
  exit 0
fi
if ! diff -u "$EXPECTED" trace.norm; then
  echo "the trace differs from $EXPECTED (normalised; - expected, + got)"
  ok=0
fi
if [ -n "$want_stderr" ]; then
  if ! diff -u "$want_stderr" stderr.norm; then
    echo "stderr differs from $want_stderr"
    ok=0
  fi
elif [ -s stderr.txt ]; then
  echo "unexpected stderr:"
  cat stderr.txt
  ok=0
fi
if [ $ok -eq 0 ]; then
  echo "--- raw trace"
  cat trace.out
  exit 1
fi
exit 0
