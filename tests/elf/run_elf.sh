#!/usr/bin/env bash
# The loader stub on hand-made program files (elf_images.h): the review's
# descending PT_LOADs are refused with a reason before anything runs, and
# the smallest program FreeBSD runs (`jmp .`) is loaded and keeps running
# until cloudabi-run is told to stop.
set -u
RUN=$1 MKELF=$2 CONFIG=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$MKELF" descending "$tmp/descending" || exit 1
err=$("$RUN" "$tmp/descending" "$CONFIG" 2>&1 >/dev/null)
status=$?
if [ "$status" -ne 127 ] ||
  ! grep -q "not a CloudABI executable: PT_LOAD segments unsorted or overlapping" <<<"$err"; then
  echo "FAIL: descending: status $status, stderr: $err"
  fail=1
fi

"$MKELF" minimal "$tmp/minimal" || exit 1
[ "$(stat -c %s "$tmp/minimal")" -eq 300 ] || { echo "FAIL: not 300 bytes"; fail=1; }
timeout -s TERM 2 "$RUN" "$tmp/minimal" "$CONFIG" >/dev/null 2>"$tmp/err"
status=$?
# 124: still running when timeout stopped it, as a `jmp .` should be.
if [ "$status" -ne 124 ]; then
  echo "FAIL: minimal: status $status (want 124: still running), stderr: $(cat "$tmp/err")"
  fail=1
fi
# The same program through proc_exec, as upstream's test runs it.
if [ -n "${EXEC_MINIMAL:-}" ]; then
  cat >"$tmp/exec.yaml" <<YAML
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
out: !fd stdout
prog: !file {path: $tmp/minimal}
YAML
  got=$(timeout 20 "$RUN" "$EXEC_MINIMAL" "$tmp/exec.yaml" 2>"$tmp/err")
  if [ "$got" != "minimal: keeps running" ]; then
    echo "FAIL: proc_exec of minimal: '$got', stderr: $(cat "$tmp/err")"
    fail=1
  fi
fi
[ "$fail" -eq 0 ] && echo "elf files: as expected"
exit "$fail"
