#!/usr/bin/env bash
# The supervisor is confined once the guest starts: code running inside it
# (cloudabi-run-attack's hook, tests/confine/attack.c) cannot read or write
# files the config did not grant, exec, open a socket, ptrace or signal an
# unrelated process.  Controls show the same hook can use the grants, so
# a refusal is the confinement's, not a broken hook.
#
# usage: confine.sh CLOUDABI_RUN_ATTACK HELLO_PROGRAM [SANITIZED]
# SANITIZED=1: the sanitizers' runtime needs ptrace and signal handlers,
# so the filter allows them (src/supervisor/confine_filter.c) and only
# Landlock stands between the hook and an unrelated process.
set -u
RUN=$1 PROG=$2 SANITIZED=${3:-0}
TMP=$(mktemp -d)
other=
cleanup() {
  [ -n "$other" ] && kill -9 "$other" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP/granted" "$TMP/outside"
echo secret >"$TMP/outside/secret"
echo visible >"$TMP/granted/visible"
cat >"$TMP/config.yaml" <<YAML
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
terminal: !fd stdout
name: confined
work: !file
  path: $TMP/granted
YAML
# An unrelated process of the same user, as a target.
sleep 60 &
other=$!

fail=0
# attack NAME ARG EXPECT: EXPECT is "refused", "allowed" or "sigsys".
attack() {
  local name=$1 arg=$2 expect=$3 out status
  out=$(CLOUDABI_ATTACK=$name CLOUDABI_ATTACK_ARG=$arg \
    "$RUN" "$PROG" "$TMP/config.yaml" 2>&1 >/dev/null)
  status=$?
  case $expect in
  refused)
    [[ $out == *"attack $name: refused"* && $status -eq 0 ]] && return ;;
  allowed)
    [[ $out == *"attack $name: ALLOWED"* && $status -eq 0 ]] && return ;;
  sigsys)
    [[ $out == *"seccomp filter refused system call"* && $status -eq 70 &&
      $out != *"attack $name:"* ]] && return ;;
  esac
  echo "FAIL: attack $name $arg: expected $expect, got status $status:"
  echo "$out"
  fail=1
}

attack read /etc/passwd refused
attack read "$TMP/outside/secret" refused
attack read "$TMP/granted/visible" allowed
attack write "$TMP/outside/new" refused
attack write "$HOME/cloudabi-attack-$$" refused
attack write "$TMP/granted/new" allowed
attack execve /bin/sh sigsys
attack execveat /bin/true refused
attack connect 22 sigsys
if [ "$SANITIZED" = 1 ]; then
  attack ptrace_attach "$other" refused
else
  attack ptrace_attach "$other" sigsys
  attack sigsys_handler "" sigsys
fi
attack ptrace_seize "$other" refused
# Another process's memory (ptrace access: Landlock keeps it to the
# guests).  Files that need only read access, such as environ, stay
# readable to root (CAP_SYS_PTRACE) in our runs: SECURITY.md.
attack read "/proc/$other/mem" refused
# Signals are scoped to the guests on Landlock ABI 6 and later.
if [ "$(python3 -c 'import ctypes,sys
libc = ctypes.CDLL(None, use_errno=True)
print(libc.syscall(444, None, 0, 1))' 2>/dev/null)" -ge 6 ] 2>/dev/null; then
  attack signal "$other" refused
  kill -0 "$other" || { echo "FAIL: the unrelated process was killed"; fail=1; }
fi
# Older kernels, as the test binary's cap on the Landlock ABI makes them
# look: the missing layer is said once with -v, --plan=json shows it,
# and the layers that remain still hold.
# layers MAX EXPECTED_NOTE: -v names what is missing once (or nothing).
layers() {
  local max=$1 note=$2 out n
  out=$(CLOUDABI_ATTACK_LANDLOCK_MAX=$max "$RUN" -v "$PROG" "$TMP/config.yaml" 2>&1 >/dev/null)
  n=$(grep -c "running with fewer confinement layers" <<<"$out")
  if [ -z "$note" ]; then
    [ "$n" -eq 0 ] && return
  elif [ "$n" -eq 1 ] && [[ $out == *"fewer confinement layers: $note"* ]]; then
    return
  fi
  echo "FAIL: Landlock ABI capped at '$max': expected note '$note', got:"
  echo "$out"
  fail=1
}
plan_field() { # MAX FIELD: the supervisor's FIELD in --plan=json
  CLOUDABI_ATTACK_LANDLOCK_MAX=$1 "$RUN" --plan=json "$PROG" "$TMP/config.yaml" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["supervisor"][sys.argv[1]])' "$2"
}
layers "" ""
layers 0 "no Landlock in this kernel"
layers 1 "Landlock ABI 1 cannot allow renames"
layers 3 "Landlock ABI < 4: TCP is refused only by the seccomp filter"
[ "$(plan_field 0 landlock)" = False ] || { echo "FAIL: --plan=json says Landlock is on without it"; fail=1; }
[ "$(plan_field 3 landlock)" = True ] && [ "$(plan_field 3 landlock_net)" = False ] ||
  { echo "FAIL: --plan=json with Landlock ABI 3"; fail=1; }
[ "$(plan_field "" seccomp)" = True ] || { echo "FAIL: --plan=json: no seccomp"; fail=1; }
# Without Landlock the files are open to the hook (the filter alone does
# not confine paths), and the filter still ends an exec.
CLOUDABI_ATTACK_LANDLOCK_MAX=0 attack read "$TMP/outside/secret" allowed
CLOUDABI_ATTACK_LANDLOCK_MAX=0 attack execve /bin/sh sigsys
CLOUDABI_ATTACK_LANDLOCK_MAX=3 attack read "$TMP/outside/secret" refused

[ -e "$TMP/outside/new" ] && { echo "FAIL: a file was created outside the grants"; fail=1; }
[ -e "$HOME/cloudabi-attack-$$" ] && { echo "FAIL: a file was created in \$HOME"; rm -f "$HOME/cloudabi-attack-$$"; fail=1; }
[ $fail -eq 0 ] && echo "confine: ok"
exit $fail
