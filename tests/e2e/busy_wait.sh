#!/usr/bin/env bash
# A guest that waits costs the supervisor (almost) no CPU: runs the
# busy_wait program, which waits ~1.5 s in a way that once made the
# supervisor spin, and checks its output and the CPU time of the whole
# run (supervisor and guest, user and system) against a limit far below
# the 1.5 s a spinning supervisor burns.
# usage: busy_wait.sh CLOUDABI_RUN PROGRAM DO WANT_STDOUT [MAX_CPU_SECONDS]
set -u
RUN=$1 PROG=$2 DO=$3 WANT=$4 MAX=${5:-0.5}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat >"$TMP/config.yaml" <<YAML
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
out: !fd stdout
do: $DO
YAML
TIMEFORMAT='%U %S'
{ time "$RUN" "$PROG" "$TMP/config.yaml" >"$TMP/out" 2>"$TMP/err"; } 2>"$TMP/time"
status=$?
got=$(cat "$TMP/out")
read -r user sys <"$TMP/time"
echo "cpu: user ${user}s sys ${sys}s (limit ${MAX}s)"
if [ "$status" -ne 0 ] || [ "$got" != "$WANT" ]; then
  echo "FAIL: status $status, stdout '$got' (want '$WANT')"
  cat "$TMP/err"
  exit 1
fi
if ! awk -v u="$user" -v s="$sys" -v m="$MAX" 'BEGIN { exit !(u + s <= m) }'; then
  echo "FAIL: the run used $user s user + $sys s system CPU while the guest waited"
  exit 1
fi
echo "ok"
