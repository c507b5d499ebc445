#!/usr/bin/env bash
# Runs one CloudABI program under cloudabi-run and checks what it did.
#
# usage: run_e2e.sh CLOUDABI_RUN PROGRAM CONFIG [options]
#   --status N        expected exit status (default 0)
#   --stdout-re RE    the whole stdout must match this extended regex, in
#                     which \n stands for a newline
#   --stdout-is TEXT  stdout must be exactly TEXT
#   --stderr-re RE    stderr must match (default: stderr must be empty)
#   --stdin FILE      standard input (default /dev/null)
#   --stdin-text TEXT standard input is a pipe carrying TEXT
#   --define K=V      replace @K@ in CONFIG by V
#   --run-arg ARG     an option for cloudabi-run, before PROGRAM
#   --unprivileged    run as nobody without capabilities when started as
#                     root (CI runs as root; users do not: ptrace and
#                     /proc rules differ); exit 77 (skip) if nobody cannot
#                     reach the binaries
# CONFIG may use @TMP@ for a fresh directory, which is also the working
# directory, and @SRC@ for the source tree's tests/ directory.  A file
# CONFIG.setup next to CONFIG, if present, is run in @TMP@ first; a file
# CONFIG.check, if present, runs there afterwards and must succeed.
set -u
RUN=$1 PROG=$2 CONFIG=$3
shift 3
status=0 stdout_re= stdout_is= stderr_re= stdin=/dev/null have_is=0
stdin_text= have_text=0 seds=() run_args=() unpriv=0 wrap=()
while [ $# -gt 0 ]; do
  case $1 in
  --status) status=$2; shift 2 ;;
  --stdout-re) stdout_re=$2; shift 2 ;;
  --stdout-is) stdout_is=$2; have_is=1; shift 2 ;;
  --stderr-re) stderr_re=$2; shift 2 ;;
  --stdin) stdin=$2; shift 2 ;;
  --stdin-text) stdin_text=$2; have_text=1; shift 2 ;;
  --define) seds+=(-e "s|@${2%%=*}@|${2#*=}|g"); shift 2 ;;
  --run-arg) run_args+=("$2"); shift 2 ;;
  --unprivileged) unpriv=1; shift ;;
  *) echo "run_e2e.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
SRC=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
sed -e "s|@TMP@|$TMP|g" -e "s|@SRC@|$SRC|g" "${seds[@]}" "$CONFIG" >"$TMP/config.yaml"
if [ -f "$CONFIG.setup" ]; then
  (cd "$TMP" && bash "$CONFIG.setup") || { echo "setup failed"; exit 1; }
fi
cd "$TMP" || exit 1
if [ $unpriv -eq 1 ] && [ "$(id -u)" -eq 0 ]; then
  wrap=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all
    --bounding-set=-all)
  chmod -R a+rwX "$TMP"
  "${wrap[@]}" test -x "$RUN" -a -r "$PROG" || {
    echo "nobody cannot reach $RUN or $PROG: skipped"
    exit 77
  }
fi
if [ $have_text -eq 1 ]; then
  printf '%b' "$stdin_text" |
    timeout -s KILL 60 "${wrap[@]}" "$RUN" "${run_args[@]}" "$PROG" config.yaml >stdout.txt 2>stderr.txt
  got=${PIPESTATUS[1]}
else
  timeout -s KILL 60 "${wrap[@]}" "$RUN" "${run_args[@]}" "$PROG" config.yaml <"$stdin" >stdout.txt 2>stderr.txt
  got=$?
fi
ok=1
if [ "$got" -ne "$status" ]; then
  echo "exit status $got, want $status"
  ok=0
fi
if [ $have_is -eq 1 ] && [ "$(cat stdout.txt)" != "$stdout_is" ]; then
  echo "stdout differs from the expected text"
  ok=0
fi
# Bash's =~ is an ERE over the whole text, newlines included.
matches() {
  local re text
  re=$(printf '%b' "$1")
  text=$(cat "$2"; echo x)
  text=${text%x}
  [[ $text =~ $re ]]
}
if [ -n "$stdout_re" ] && ! matches "$stdout_re" stdout.txt; then
  echo "stdout does not match /$stdout_re/"
  ok=0
fi
if [ -n "$stderr_re" ]; then
  matches "$stderr_re" stderr.txt || { echo "stderr does not match /$stderr_re/"; ok=0; }
elif [ -s stderr.txt ]; then
  echo "unexpected stderr"
  ok=0
fi
if [ -f "$CONFIG.check" ] && ! bash "$CONFIG.check"; then
  echo "$CONFIG.check failed"
  ok=0
fi
if [ $ok -eq 0 ]; then
  echo "--- stdout"; cat stdout.txt
  echo "--- stderr"; cat stderr.txt
  exit 1
fi
exit 0
