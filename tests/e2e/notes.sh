#!/usr/bin/env bash
# A program's notes to the user (TRAP_NR_NOTE): control bytes escaped, a
# bad pointer answered EFAULT, at most 256 bytes of a note whatever length
# it claims, at most 16 notes a run; and the runtime's report of a missing
# config key reaches the user although the program holds no descriptor.
#
# usage: notes.sh CLOUDABI_RUN NOTES_PROGRAM HELLO_PROGRAM
set -u
RUN=$1 NOTES=$2 HELLO=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
fail=0
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nout: !fd stdout\n' >notes.yaml
"$RUN" "$NOTES" notes.yaml >out.txt 2>err.txt
status=$?
[ $status -eq 0 ] || { echo "notes: status $status"; fail=1; }
want_out="ctrl=0 bad=21 long=0 again: 13 printed, 7 refused"
[ "$(cat out.txt)" = "$want_out" ] || { echo "notes: stdout '$(cat out.txt)', want '$want_out'"; fail=1; }
{
  printf '%s\n' 'cloudabi-run: program: red \x1b[31mtext\x5c and a bell\x07'
  printf 'cloudabi-run: program: '
  for _ in 1 2 3 4 5 6 7 8 9; do printf abcdefghijklmnopqrstuvwxyz; done
  printf 'abcdefghijklmnopqrstuv...\n'
  for _ in $(seq 13); do echo 'cloudabi-run: program: again'; done
  echo 'cloudabi-run: program: (further notes dropped)'
} >want.txt
diff want.txt err.txt >diff.txt || { echo "notes: stderr differs (- want, + got):"; cat diff.txt; fail=1; }

# No terminal granted: the runtime's message still reaches the user.
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nname: x\n' >nokey.yaml
"$RUN" "$HELLO" nokey.yaml >out.txt 2>err.txt
status=$?
want='cloudabi-run: program: config: key "terminal" is missing or not a descriptor (give it in the config or with --fd/--dir/--set terminal=...)'
[ $status -eq 1 ] || { echo "missing key: status $status, want 1"; fail=1; }
[ "$(cat err.txt)" = "$want" ] || { echo "missing key: stderr:"; cat err.txt; fail=1; }
[ $fail -eq 0 ] && echo "notes: ok"
exit $fail
