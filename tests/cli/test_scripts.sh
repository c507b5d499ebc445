#!/usr/bin/env bash
# tools/lib/setup.sh waits for a held package-manager lock, bounded, and
# goes on once it is released; tested on a lock file of our own
# (CLOUDABI_PKG_LOCKS), held with flock(1) as apt would hold its own.
#
# usage: test_scripts.sh SOURCE_DIR
set -u
ROOT=$1
TMP=$(mktemp -d)
holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$TMP"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
command -v flock >/dev/null || { echo "test_scripts: no flock(1); skipped"; exit 0; }
lock=$TMP/lock-frontend
touch "$lock"
export CLOUDABI_PKG_LOCKS="$TMP/missing $lock"

# Free: returns at once.
CLOUDABI_PKG_LOCK_WAIT=2 bash -c '. "$1/tools/lib/setup.sh"; wait_for_package_lock' _ "$ROOT" 2>"$TMP/err" ||
  fail "a free lock"
[ ! -s "$TMP/err" ] || fail "a free lock said: $(cat "$TMP/err")"

# Held for good: gives up after the bound, naming the holder.
# The subshell becomes the sleep that holds the lock: killing it frees it.
(exec 9>"$lock"; flock 9; exec sleep 60) &
holder=$!
sleep 0.5
start=$SECONDS
CLOUDABI_PKG_LOCK_WAIT=2 bash -c '. "$1/tools/lib/setup.sh"; wait_for_package_lock' _ "$ROOT" 2>"$TMP/err" &&
  fail "a held lock did not fail"
took=$((SECONDS - start))
[ $took -ge 2 ] && [ $took -le 6 ] || fail "gave up after ${took} s, want about 2"
grep -q "waiting up to 2 s for the package manager ($lock held by pid" "$TMP/err" &&
  grep -q "still busy after 2 s" "$TMP/err" || { fail "messages"; cat "$TMP/err" >&2; }

# Released while waiting: goes on.
CLOUDABI_PKG_LOCK_WAIT=30 bash -c '. "$1/tools/lib/setup.sh"; wait_for_package_lock' _ "$ROOT" 2>"$TMP/err" &
waiter=$!
sleep 2
kill -0 $waiter 2>/dev/null || fail "did not wait for the held lock"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=
wait $waiter || fail "did not go on after the release"

if [ $failures -eq 0 ]; then
  echo "test_scripts: all passed"
else
  echo "test_scripts: $failures failed"
  exit 1
fi
