#!/usr/bin/env bash
# Mirrored pipes (issue 14): a read that must wait does so and sees every
# byte and the end; a write to a pipe whose reader went fails with EPIPE
# and does not kill the program, although the kernel performs it.
# usage: mirror_pipes.sh CLOUDABI_RUN MIRRORS_PROGRAM
set -u
RUN=$1 PROG=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
fail=0
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nout: !fd stdout\nin: !fd stdin\ndo: cat\n' >cat.yaml
{ printf 'abcd'; sleep 0.2; printf 'efg'; sleep 0.2; printf 'hij'; } |
  "$RUN" "$PROG" cat.yaml >cat.out 2>cat.err
status=$?
[ $status -eq 0 ] || { echo "cat: status $status: $(cat cat.err)"; fail=1; }
[ "$(cat cat.out)" = "abcdefghij
mirrored yes" ] || { echo "cat: got: $(cat cat.out)"; fail=1; }

printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nout: !fd stdout\nerr: !fd stderr\ndo: epipe\n' >epipe.yaml
"$RUN" "$PROG" epipe.yaml 2>epipe.err | head -c 100 >/dev/null
status=${PIPESTATUS[0]}
[ $status -eq 0 ] || { echo "epipe: status $status: $(cat epipe.err)"; fail=1; }
grep -qx 'epipe: errno 64, mirrored yes' epipe.err || { echo "epipe: $(cat epipe.err)"; fail=1; }
[ $fail -eq 0 ] && echo "mirror_pipes: ok"
exit $fail
