#!/usr/bin/env bash
# The SDK as a user outside this tree sees it: cmake --install into a
# prefix, a program of its own built through find_package(CloudABIRun),
# run under the installed cloudabi-run.  Also the bash completion, and
# the runtime's report of a missing config key.
#
# usage: test_sdk.sh BUILD_DIR
set -u
BUILD=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

cmake --install "$BUILD" --prefix "$TMP/prefix" >"$TMP/install.log" 2>&1 ||
  { cat "$TMP/install.log" >&2; echo "test_sdk: cmake --install failed"; exit 1; }
[ -f "$TMP/prefix/share/bash-completion/completions/cloudabi-run" ] || fail "bash completion not installed"
[ -f "$TMP/prefix/lib/cmake/CloudABIRun/CloudABIRunConfig.cmake" ] || fail "package not installed"

mkdir -p "$TMP/greet"
cat >"$TMP/greet/CMakeLists.txt" <<'EOF2'
cmake_minimum_required(VERSION 3.20)
project(greet C)
find_package(CloudABIRun REQUIRED)
add_cloudabi_program(greet SOURCES greet.c)
EOF2
cat >"$TMP/greet/greet.c" <<'EOF2'
#include "rt.h"

void program_main(const argdata_t *ad) {
  cloudabi_fd_t out = rt_map_fd(ad, "out");
  const char *who = rt_map_str(ad, "who", "world");
  int64_t times = rt_map_int(ad, "times", 1);
  for (int64_t i = 0; i < times; i++)
    rt_printf(out, "greetings, %s\n", who);
  rt_printf(out, "%s\n", rt_strerror(CLOUDABI_ENOENT));
}
EOF2
(cd "$TMP/greet" && cmake -S . -B build -DCMAKE_PREFIX_PATH="$TMP/prefix" >"$TMP/cfg.log" 2>&1 &&
  cmake --build build >"$TMP/build.log" 2>&1) ||
  { cat "$TMP/cfg.log" "$TMP/build.log" >&2; echo "test_sdk: out-of-tree build failed"; exit 1; }
RUN=$TMP/prefix/bin/cloudabi-run
PROG=$TMP/greet/build/guest/greet
[ -x "$PROG" ] && [ -x "$PROG.sep" ] || fail "both layouts built"
out=$("$RUN" --fd out=stdout --set-str who=sdk --set times=2 "$PROG" </dev/null 2>&1)
[ "$out" = "greetings, sdk
greetings, sdk
ENOENT (no such file or directory)" ] || fail "out-of-tree program: $out"

# A missing key: said on the program's fd 2 when it is granted...
"$RUN" --fd in=stdin --fd o=stdout --fd err=stderr "$PROG" </dev/null >"$TMP/out.txt" 2>&1
[ $? -eq 1 ] && grep -q 'config: key "out" is missing or not a descriptor' "$TMP/out.txt" ||
  { fail "missing key with fd 2"; cat "$TMP/out.txt" >&2; }
# ...and still visible when it is not: a note cloudabi-run prints.
"$RUN" --set times=1 "$PROG" </dev/null >"$TMP/out.txt" 2>&1
status=$?
[ $status -eq 1 ] && grep -q '^cloudabi-run: program: config: key "out" is missing or not a descriptor' "$TMP/out.txt" ||
  { fail "missing key without fd 2 (status $status)"; cat "$TMP/out.txt" >&2; }

# bash completion offers the flags.
out=$(bash -c 'source "$1"; COMP_WORDS=(cloudabi-run --se); COMP_CWORD=1; _cloudabi_run; echo "${COMPREPLY[*]}"' _ \
  "$TMP/prefix/share/bash-completion/completions/cloudabi-run")
[ "$out" = "--set --set-str" ] || fail "completion: $out"

if [ $failures -eq 0 ]; then
  echo "test_sdk: all passed"
else
  echo "test_sdk: $failures failed"
  exit 1
fi
