#!/usr/bin/env bash
# SIGINT/SIGTERM/SIGHUP sent to cloudabi-run end the program even when it
# stopped itself with proc_raise(SIGSTOP) (a stopped task holds a signal
# until it is continued): cloudabi-run exits within 5 s, reports the signal
# and exits 128+N, and no guest process is left.
#
# usage: signal_stopped.sh CLOUDABI_RUN STOPPER_PROGRAM DO SIGNAL STATUS
#   DO: self, child or both (see tests/guest/stopper.c)
set -u
RUN=$1 PROG=$2 DO=$3 SIG=$4 WANT=$5
TMP=$(mktemp -d)
cleanup() {
  [ -n "${sup:-}" ] && kill -9 "$sup" 2>/dev/null
  exec 7>&- 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
cd "$TMP" || exit 1
mkfifo in.fifo
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nout: !fd stdout\nin: !fd stdin\ndo: %s\n' "$DO" >config.yaml
exec 7<>in.fifo
"$RUN" "$PROG" config.yaml <in.fifo >out.txt 2>err.txt &
sup=$!

# The guest processes: cloudabi-run's children and theirs.
guests() {
  local p c
  for p in $(pgrep -P "$sup"); do
    echo "$p"
    for c in $(pgrep -P "$p"); do echo "$c"; done
  done
}
stopped() { # pid: in a group stop (T) or held there by the tracer (t)
  local st
  st=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null)
  [ "$st" = "t" ] || [ "$st" = "T" ]
}
case $DO in
self) nproc=1 nstop=1 ;;
child) nproc=2 nstop=1 ;;
both) nproc=2 nstop=2 ;;
*) echo "bad DO $DO"; exit 2 ;;
esac
ready=0
for _ in $(seq 200); do
  pids=$(guests)
  n=$(echo "$pids" | grep -c .)
  s=0
  for p in $pids; do stopped "$p" && s=$((s + 1)); done
  if [ "$n" -eq "$nproc" ] && [ "$s" -eq "$nstop" ]; then
    ready=1
    break
  fi
  sleep 0.05
done
[ $ready -eq 1 ] || { echo "guest did not stop ($n processes, $s stopped)"; cat out.txt err.txt; exit 1; }

kill -"$SIG" "$sup"
ended=0
for _ in $(seq 100); do
  kill -0 "$sup" 2>/dev/null || { ended=1; break; }
  sleep 0.05
done
if [ $ended -eq 0 ]; then
  echo "cloudabi-run still running 5 s after SIG$SIG (guest stopped: $DO)"
  exit 1
fi
wait "$sup"
got=$?
sup=
fail=0
want_err="cloudabi-run: program terminated by signal SIG$SIG"
if [ "$got" -ne "$WANT" ] || [ "$(cat err.txt)" != "$want_err" ]; then
  echo "status $got (want $WANT), stderr: $(cat err.txt)"
  fail=1
fi
for p in $pids; do
  for _ in $(seq 100); do
    [ -d "/proc/$p" ] || break
    [ "$(awk '/^State:/ {print $2}' "/proc/$p/status" 2>/dev/null)" = "Z" ] && break
    sleep 0.05
  done
  if [ -d "/proc/$p" ] && [ "$(awk '/^State:/ {print $2}' "/proc/$p/status" 2>/dev/null)" != "Z" ]; then
    echo "guest process $p survived"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "signal_stopped $DO $SIG: ok"
exit $fail
