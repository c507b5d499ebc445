#!/usr/bin/env bash
# The layer check itself: it passes on this tree, and it catches each kind
# of fault it promises to (an upward include, an include circle, an
# unknown folder, an overlong file) in small made-up trees.
set -uo pipefail
CHECK=$1
SRC=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! out=$(bash "$CHECK" "$SRC"); then
  echo "FAIL: the tree breaks its layering:"
  echo "$out"
  fail=1
fi

# expect_fault NAME PATTERN: the tree in $tmp/NAME fails with PATTERN.
expect_fault() {
  local name=$1 pattern=$2 out
  if out=$(bash "$CHECK" "$tmp/$name"); then
    echo "FAIL: $name: the check passed"
    fail=1
  elif ! grep -q "$pattern" <<<"$out"; then
    echo "FAIL: $name: expected '$pattern' in:"
    echo "$out"
    fail=1
  fi
}

mkdir -p "$tmp/up/host" "$tmp/up/calls"
echo '#include "calls/b.h"' >"$tmp/up/host/a.c"
touch "$tmp/up/calls/b.h"
expect_fault up "host/ may not use calls/"

mkdir -p "$tmp/circle/calls"
echo '#include "b.h"' >"$tmp/circle/calls/a.h"
echo '#include "a.h"' >"$tmp/circle/calls/b.c"
touch "$tmp/circle/calls/b.h" "$tmp/circle/calls/a.c"
expect_fault circle "include circle"

mkdir -p "$tmp/unknown/misc"
touch "$tmp/unknown/misc/a.c"
expect_fault unknown "not a known layer"

mkdir -p "$tmp/long/host"
seq 601 | sed 's|^|// |' >"$tmp/long/host/a.c"
expect_fault long "has 601 lines"

[ "$fail" -eq 0 ] && echo "check_layers: all cases as expected"
exit "$fail"
