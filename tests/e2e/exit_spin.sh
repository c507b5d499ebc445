#!/usr/bin/env bash
# The supervisor waits for a slow exit without spinning: runs slow_exit
# (whose teardown takes tens of milliseconds) with strace on the
# supervisor alone, and counts the RECVs that came back with nothing.
# Once the last guest task is past its seccomp release, RECV returns
# ENOENT at once; a loop that kept asking made hundreds of them (221 in
# one run under strace, 2,098 in a perf-recorded run without it).
# usage: exit_spin.sh CLOUDABI_RUN SLOW_EXIT_PROGRAM
set -u
RUN=$1 PROG=$2
command -v strace >/dev/null || { echo "SKIP: no strace"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nname: slow\n' >"$TMP/c.yaml"
# Not -f: the guest is the supervisor's own tracee.  LeakSanitizer cannot
# work under ptrace, so a sanitizer build's leak check is off here.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
  strace -qq -e trace=ioctl -o "$TMP/log" "$RUN" "$PROG" "$TMP/c.yaml"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: exit status $rc"; cat "$TMP/log"; exit 1; }
empty=$(grep -c 'NOTIF_RECV.*ENOENT' "$TMP/log")
# One from the fast path, one more through epoll that finds the hang-up.
if [ "$empty" -gt 4 ]; then
  echo "FAIL: $empty RECVs came back empty while the guest exited"
  exit 1
fi
echo "ok: $empty empty RECVs"
