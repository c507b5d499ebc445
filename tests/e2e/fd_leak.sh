#!/usr/bin/env bash
# Host descriptors never leak: while a guest holds descriptors of every
# kind, (1) the guest process itself holds no descriptor but mirrors of
# what it was granted (the one lent for a file mapping is closed again at
# once), and (2) every
# descriptor of the supervisor, but the standard three it was started
# with, is close-on-exec, so nothing it opened for a guest reaches a
# process it starts.  Then again with a guest that refuses to close a
# lent descriptor (holder's `keep`): it may hold one descriptor, the
# inert one the supervisor put at that number (a pipe's read end that
# nobody can write), and nothing else.
# usage: fd_leak.sh CLOUDABI_RUN HOLDER
set -u
RUN=$1 PROG=$2
# Start from three descriptors, so that whatever the supervisor holds
# besides them is its own.
for fd in $(ls /proc/$$/fd); do
  [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
done
TMP=$(mktemp -d)
sup=
cleanup() {
  [ -n "$sup" ] && kill -9 "$sup" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- stdout"; cat out.txt
  echo "--- stderr"; cat err.txt
  exit 1
}

# The pipe inode of a pipe:[N] link, or nothing.
pipe_of() {
  local l
  l=$(readlink "$1") || return
  case $l in pipe:\[*\]) l=${l#pipe:[}; echo "${l%]}" ;; esac
}

# The guest's descriptors but its mirrors (trap.h: numbers 256 to 4095,
# each a descriptor the supervisor holds too, of what the config granted).
not_mirrors() { # GUEST
  local n target
  for n in $(ls /proc/"$1"/fd); do
    if [ "$n" -ge 256 ] && [ "$n" -lt 4096 ]; then
      target=$(readlink /proc/"$1"/fd/"$n")
      for f in /proc/"$sup"/fd/*; do
        [ "$(readlink "$f")" = "$target" ] && continue 2
      done
      fail "guest descriptor $n ($target) mirrors nothing the supervisor holds"
    fi
    echo "$n"
  done
}

# Checks what the guest holds but mirrors: nothing, or (keep) exactly one
# descriptor, read-only, of a pipe that no descriptor of the supervisor or
# the guest can write.
check_guest() { # GUEST KEEP
  local held n f ino flags
  held=$(not_mirrors "$1") || exit 1
  if [ "$2" = false ]; then
    [ -z "$held" ] || fail "the guest holds descriptors: $(ls -l /proc/"$1"/fd)"
    [ "$(ls /proc/"$1"/fd | wc -w)" -ge 1 ] || fail "the guest mirrors nothing it wrote to"
    return
  fi
  n=$(echo "$held" | wc -w)
  [ "$n" -eq 1 ] || fail "the keeping guest holds $n descriptors: $(ls -l /proc/"$1"/fd)"
  f=/proc/$1/fd/$held
  ino=$(pipe_of "$f")
  [ -n "$ino" ] || fail "the kept number is not the inert pipe: $(readlink "$f")"
  grep -q "kept $held\$" out.txt || fail "the guest kept another number than $held"
  for f in /proc/"$1"/fd/* /proc/"$sup"/fd/*; do
    [ "$(pipe_of "$f")" = "$ino" ] || continue
    [ "$f" = "/proc/$1/fd/$held" ] || [ "${f#/proc/$1/}" = "$f" ] ||
      fail "the inert pipe is also at $f"
    flags=$(awk '/^flags:/ {print $2}' "${f/\/fd\//\/fdinfo\/}")
    (( (8#$flags & 3) == 0 )) || fail "$f can write the inert pipe (flags $flags)"
  done
}

run_case() { # KEEP
  mkdir "$TMP/$1" && cd "$TMP/$1" || exit 1
  mkdir d
  mkfifo in
  cat >config.yaml <<YAML
%TAG ! tag:nuxi.nl,2015:cloudabi/
---
out: !fd stdout
dir: !file {path: d, directory: true}
in: !fd stdin
keep: $1
YAML
  "$RUN" "$PROG" config.yaml <in >out.txt 2>err.txt &
  sup=$!
  exec 3>in
  for _ in $(seq 100); do
    grep -q ready out.txt 2>/dev/null && break
    sleep 0.1
  done
  grep -q ready out.txt || fail "the guest never got ready"
  guest=
  for s in /proc/[0-9]*/stat; do
    read -r pid _ _ ppid _ <"$s" 2>/dev/null || continue
    [ "$ppid" = "$sup" ] && guest=$pid
  done
  [ -n "$guest" ] || fail "no guest process under the supervisor $sup"
  check_guest "$guest" "$1"
  count=0
  for f in /proc/"$sup"/fd/*; do
    n=${f##*/}
    case $n in 0 | 1 | 2) continue ;; esac
    flags=$(awk '/^flags:/ {print $2}' /proc/"$sup"/fdinfo/"$n" 2>/dev/null) || continue
    [ -n "$flags" ] || continue
    # O_CLOEXEC is 02000000 in fdinfo's octal flags.
    (( (8#$flags & 8#2000000) != 0 )) ||
      fail "supervisor descriptor $n ($(readlink "$f")) is not close-on-exec"
    count=$((count + 1))
  done
  [ "$count" -ge 6 ] || fail "only $count supervisor descriptors: is the guest holding anything?"
  echo go >&3
  exec 3>&-
  wait "$sup"
  status=$?
  sup=
  [ "$status" -eq 0 ] || fail "exit status $status"
  grep -q done out.txt || fail "the guest did not finish"
}
run_case false
echo "fd_leak: guest holds none; $count supervisor descriptors, all close-on-exec"
run_case true
echo "fd_leak: a guest that keeps a lent descriptor holds only the inert one; $count supervisor descriptors, all close-on-exec"
