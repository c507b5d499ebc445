#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: once in a plain
# build, once more with AddressSanitizer and UndefinedBehaviorSanitizer,
# then fuzzes the config parser for a bounded time (FUZZ_SECONDS, 60 by
# default; 0 skips it).  WILD_SECONDS (5) is how long the hostile-guest
# fuzzer runs in each build.  Ends with a one-line summary; the exit status is
# non-zero on any failure, crash, leak or hang.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tools/lib/setup.sh"

PACKAGES="$PACKAGES $TEST_PACKAGES" setup_packages ||
  { echo "test.sh: FAILED: could not install packages"; exit 1; }

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
  log "running the tests in $dir ($name; a minute or two; output in $log)"
  if ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" >"$log" 2>&1; then
    results+=("$name: $(grep -Eo '[0-9]+ tests? passed|[0-9]+% tests passed.*' "$log" | tail -n 1)")
  else
    cat "$log" >&2
    results+=("$name: $(grep -Eo '[0-9]+% tests passed.*' "$log" | tail -n 1)")
    failed=1
  fi
}

# libFuzzer with ASan (leaks included) and UBSan on each parser of hostile
# input, from its seed corpus plus whatever earlier runs found (kept in
# the build tree, never in the sources).  FUZZ_SECONDS (60) is shared
# among the targets.
FUZZ_TARGETS=(config argdata trace elf oci_json)
run_fuzz() {
  local dir=$ROOT/build-fuzz seconds=${FUZZ_SECONDS:-60}
  if [ "$seconds" -eq 0 ]; then
    results+=("fuzz: skipped")
    return
  fi
  if ! build_tree "$dir" -DCMAKE_C_COMPILER=clang -DCLOUDABI_FUZZ=ON \
    -DBUILD_TESTING=OFF; then
    results+=("fuzz: build failed")
    failed=1
    return
  fi
  local each=$(((seconds + ${#FUZZ_TARGETS[@]} - 1) / ${#FUZZ_TARGETS[@]}))
  log "fuzzing for ${seconds} s: ${FUZZ_TARGETS[*]}, ${each} s each"
  local t runs=()
  for t in "${FUZZ_TARGETS[@]}"; do
    local corpus=$dir/corpus/$t art=$dir/artifacts/$t log=$dir/fuzz_$t.log
    local dict=()
    [ -f "$ROOT/tests/fuzz/$t.dict" ] && dict=(-dict="$ROOT/tests/fuzz/$t.dict")
    mkdir -p "$corpus" "$art"
    if "$dir/tests/fuzz/fuzz_$t" -max_total_time="$each" -timeout=5 \
      -rss_limit_mb=2048 "${dict[@]}" -artifact_prefix="$art/" \
      "$corpus" "$ROOT/tests/fuzz/corpus_$t" >"$log" 2>&1; then
      runs+=("$t $(grep -Eo 'Done [0-9]+ runs' "$log" | tail -n 1 | grep -Eo '[0-9]+') runs")
    else
      grep -E -A 30 'ERROR|SUMMARY|check failed' "$log" | head -n 60 >&2
      runs+=("$t FAILED, input in $art/")
      failed=1
    fi
  done
  local joined
  joined=$(printf '%s, ' "${runs[@]}")
  results+=("fuzz (${each}s each): ${joined%, }")
}

# The hostile-guest fuzzer's time per run (tests/guest/wild.c).
wild=(-DCLOUDABI_WILD_SECONDS="${WILD_SECONDS:-5}")
run_suite plain "$ROOT/build" "${wild[@]}"
run_suite asan+ubsan "$ROOT/build-san" -DCMAKE_C_COMPILER=clang -DCLOUDABI_SANITIZE=ON "${wild[@]}"
run_fuzz

summary=$(printf '%s; ' "${results[@]}")
if [ $failed -eq 0 ]; then
  echo "test.sh: PASSED: ${summary%; }"
else
  echo "test.sh: FAILED: ${summary%; }"
fi
exit $failed
