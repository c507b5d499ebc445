#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: once in a plain
# build, once more with AddressSanitizer and UndefinedBehaviorSanitizer.
# Ends with a one-line summary; the exit status is non-zero on any failure.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tools/lib/setup.sh"

setup_packages || { echo "test.sh: FAILED: could not install packages"; exit 1; }

results=()
failed=0
run_suite() {
  local name=$1 dir=$2
  shift 2
  if ! build_tree "$dir" "$@"; then
    results+=("$name: build failed")
    failed=1
    return
  fi
  local log="$dir/ctest.log"
  if ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" >"$log" 2>&1; then
    results+=("$name: $(grep -Eo '[0-9]+ tests? passed|[0-9]+% tests passed.*' "$log" | tail -n 1)")
  else
    cat "$log" >&2
    results+=("$name: $(grep -Eo '[0-9]+% tests passed.*' "$log" | tail -n 1)")
    failed=1
  fi
}

run_suite plain "$ROOT/build"
run_suite asan+ubsan "$ROOT/build-san" -DCMAKE_C_COMPILER=clang -DCLOUDABI_SANITIZE=ON

summary=$(printf '%s; ' "${results[@]}")
if [ $failed -eq 0 ]; then
  echo "test.sh: PASSED: ${summary%; }"
else
  echo "test.sh: FAILED: ${summary%; }"
fi
exit $failed
