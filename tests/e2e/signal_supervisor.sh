#!/usr/bin/env bash
# SIGINT/SIGTERM/SIGHUP sent to cloudabi-run reach the program (as Ctrl-C
# does through the terminal): the program dies of the signal, and
# cloudabi-run reports it and exits 128+N, like a shell.
#
# usage: signal_supervisor.sh CLOUDABI_RUN BLOCKER_PROGRAM SIGNAL STATUS
set -u
RUN=$1 PROG=$2 SIG=$3 WANT=$4
TMP=$(mktemp -d)
trap 'exec 7>&- 2>/dev/null; rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
mkfifo in.fifo
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nout: !fd stdout\nin: !fd stdin\n' >config.yaml
exec 7<>in.fifo
"$RUN" "$PROG" config.yaml <in.fifo >out.txt 2>err.txt &
sup=$!
for _ in $(seq 100); do
  [ -s out.txt ] && break
  sleep 0.05
done
kill -"$SIG" "$sup"
wait "$sup"
got=$?
want_err="cloudabi-run: program terminated by signal SIG$SIG"
if [ "$got" -ne "$WANT" ] || [ "$(cat err.txt)" != "$want_err" ]; then
  echo "status $got (want $WANT), stderr: $(cat err.txt)"
  exit 1
fi
echo "signal_supervisor $SIG: ok"
