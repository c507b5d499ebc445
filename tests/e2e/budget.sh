#!/usr/bin/env bash
# What a guest makes the supervisor hold stays within budget: runs the
# budget program in one of its modes, and when it says "ready" looks at
# the supervisor: its peak RSS (VmHWM) and the descriptors it holds.
# usage: budget.sh CLOUDABI_RUN PROGRAM DO MAX_RSS_KIB MAX_FDS WANT_STDOUT
set -u
RUN=$1 PROG=$2 DO=$3 MAX_RSS=$4 MAX_FDS=$5 WANT=$6
TMP=$(mktemp -d)
sup=
cleanup() {
  [ -n "$sup" ] && kill -9 "$sup" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
cd "$TMP" || exit 1
mkfifo in
cat >config.yaml <<YAML
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
out: !fd stdout
in: !fd stdin
do: $DO
YAML
"$RUN" "$PROG" config.yaml <in >out.txt 2>err.txt &
sup=$!
exec 3>in
fail() {
  echo "FAIL: $*"
  echo "--- stdout"; cat out.txt
  echo "--- stderr"; cat err.txt
  exit 1
}
for _ in $(seq 600); do
  grep -q ready out.txt 2>/dev/null && break
  kill -0 "$sup" 2>/dev/null || break
  sleep 0.1
done
grep -q ready out.txt || fail "the guest never got ready"
rss=$(awk '/^VmHWM:/ {print $2}' /proc/"$sup"/status)
fds=$(ls /proc/"$sup"/fd | wc -l)
echo "$DO: supervisor peak RSS ${rss} KiB (limit $MAX_RSS), $fds descriptors (limit $MAX_FDS)"
exec 3>&-
wait "$sup"
status=$?
sup=
[ "$status" -eq 0 ] || fail "exit status $status"
[ "$rss" -le "$MAX_RSS" ] || fail "peak RSS ${rss} KiB over ${MAX_RSS} KiB"
[ "$fds" -le "$MAX_FDS" ] || fail "$fds descriptors over $MAX_FDS"
got=$(grep -v '^ready$' out.txt)
[ "$got" = "$WANT" ] || fail "stdout is not: $WANT"
echo ok
