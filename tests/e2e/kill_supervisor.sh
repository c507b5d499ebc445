#!/usr/bin/env bash
# The guest is confined and dies with its supervisor: while it is blocked
# in a read, it holds no host descriptor and runs under seccomp; after
# cloudabi-run is killed with SIGKILL, no guest process remains.  While
# blocked it holds no host descriptor but mirrors of its grants.  The
# supervisor runs with no_new_privs and its own filter, the guest under both,
# and keeps no descriptor it inherited but the granted ones' duplicates.
#
# usage: kill_supervisor.sh CLOUDABI_RUN BLOCKER_PROGRAM
set -u
RUN=$1 PROG=$2
TMP=$(mktemp -d)
cleanup() {
  [ -n "${sup:-}" ] && kill -9 "$sup" 2>/dev/null
  exec 7>&- 8<&- 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
cd "$TMP" || exit 1
mkfifo in.fifo
cat >config.yaml <<'YAML'
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
out: !fd stdout
in: !fd stdin
YAML
# Hold the fifo's write end open so that the guest's read blocks.
exec 7<>in.fifo
# Inherited but granted to nobody.
echo private >private.txt
exec 8<private.txt
"$RUN" "$PROG" config.yaml <in.fifo >out.txt 2>err.txt &
sup=$!
for _ in $(seq 100); do
  [ -s out.txt ] && break
  sleep 0.05
done
guest=$(head -n 1 out.txt)
[ -n "$guest" ] && [ -d "/proc/$guest" ] || { echo "no guest pid"; cat err.txt; exit 1; }

fail=0
# No host descriptors in the guest but mirrors (trap.h: 256 to 4095) of
# what the supervisor holds.
for n in $(ls "/proc/$guest/fd"); do
  target=$(readlink "/proc/$guest/fd/$n")
  if [ "$n" -lt 256 ] || [ "$n" -ge 4096 ] || ! ls -l "/proc/$sup/fd" | grep -qF -- "-> $target"; then
    echo "guest holds descriptor $n ($target):"; ls -l "/proc/$guest/fd"; fail=1
  fi
done
grep -q '^Seccomp:[[:space:]]*2' "/proc/$guest/status" || { echo "guest not in seccomp filter mode"; fail=1; }
grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$guest/status" || { echo "no_new_privs not set"; fail=1; }
# The supervisor confined itself too (issue 19).
grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$sup/status" || { echo "supervisor without no_new_privs"; fail=1; }
grep -q '^Seccomp:[[:space:]]*2' "/proc/$sup/status" || { echo "supervisor without a seccomp filter"; fail=1; }
grep -q '^Seccomp_filters:[[:space:]]*2' "/proc/$guest/status" || { echo "guest not under both filters"; fail=1; }
held=$(ls -l "/proc/$sup/fd" | grep -c 'private\.txt')
[ "$held" -eq 0 ] || { echo "supervisor kept an inherited descriptor:"; ls -l "/proc/$sup/fd"; fail=1; }
# Started pinned to the supervisor's CPU (loader/spawn.c), both are let
# go once the program boots.
mine=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
for who in "$sup" "$guest"; do
  got=$(awk '/^Cpus_allowed_list:/ {print $2}' "/proc/$who/status")
  [ "$got" = "$mine" ] || { echo "$who still pinned to CPUs $got (we have $mine)"; fail=1; }
done
# The supervisor runs SCHED_BATCH (3: its wake-ups do not preempt), the
# program the policy it was started with, SCHED_OTHER (0) here.
policy() { awk '$1 == "policy" {print $3}' "/proc/$1/sched"; }
[ "$(policy "$sup")" = 3 ] || { echo "supervisor policy $(policy "$sup"), not SCHED_BATCH"; fail=1; }
[ "$(policy "$guest")" = 0 ] || { echo "guest policy $(policy "$guest"), not SCHED_OTHER"; fail=1; }
tracer=$(awk '/^TracerPid:/ {print $2}' "/proc/$guest/status")
[ "$tracer" = "$sup" ] || { echo "guest traced by $tracer, not $sup"; fail=1; }

kill -9 "$sup"
wait "$sup" 2>/dev/null
sup=
for _ in $(seq 100); do
  [ -d "/proc/$guest" ] || break
  # A zombie waiting for a reaper is gone too.
  state=$(awk '/^State:/ {print $2}' "/proc/$guest/status" 2>/dev/null)
  [ "$state" = "Z" ] && break
  sleep 0.05
done
if [ -d "/proc/$guest" ] && [ "$(awk '/^State:/ {print $2}' "/proc/$guest/status" 2>/dev/null)" != "Z" ]; then
  echo "guest $guest survived its supervisor"
  fail=1
fi
[ $fail -eq 0 ] && echo "kill_supervisor: ok"
exit $fail
