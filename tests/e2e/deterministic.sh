#!/usr/bin/env bash
# --deterministic[=SEED]: two runs with one seed print the same bytes (in
# both segment layouts, and with the tracing vDSO), virtual time starts
# where trap.h says and sleeps and timeouts move it by their length at
# once; another seed changes the random bytes and nothing else; without
# the option clocks and random bytes are real.  A forked child draws its
# own stream.  The report names the seed.
#
# usage: deterministic.sh CLOUDABI_RUN DETERMINISM_PROGRAM
set -u
RUN=$1 PROG=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
fail=0
no() { echo "deterministic: $*"; fail=1; }
printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nout: !fd stdout\n' >d.yaml

"$RUN" --deterministic=7 --report=r.json "$PROG" d.yaml >a.txt 2>a.err || no "seed 7: status $?: $(cat a.err)"
"$RUN" --deterministic=7 "$PROG.sep" d.yaml >b.txt 2>&1 || no "seed 7, .sep: status $?"
"$RUN" --deterministic=7 --trace=local,"$TMP/trace.txt" "$PROG" d.yaml >t.txt 2>&1 || no "traced: status $?"
"$RUN" --deterministic=0x8 "$PROG" d.yaml >c.txt 2>&1 || no "seed 8: status $?"
cmp -s a.txt b.txt || { no "seed 7 twice differs:"; diff a.txt b.txt; }
cmp -s a.txt t.txt || { no "seed 7 traced differs:"; diff a.txt t.txt; }

want() { grep -qxF "$1" a.txt || no "missing line: $1"; }
want "clock 1 res 1000 reads 1000000000 1000001000"
want "clock 3 res 1000 reads 946684800000002000 946684800000003000"
want "slept an hour: monotonic +3600000001000"
want "lock wait timed out: monotonic +5000001000"
want "socket poll timed out: monotonic +50001000"
want "done"
grep -q '^process id [0-9a-f]\{12\}4[0-9a-f]\{3\}[89ab][0-9a-f]\{15\} canary ' a.txt || no "process id: $(grep 'process id' a.txt)"
grep -q '^slept until realtime \([0-9]*\): now \1$' a.txt || no "absolute sleep: $(grep 'slept until' a.txt)"
[ "$(grep -c '^parent random' a.txt)" -eq 3 ] || no "want 3 parent random lines"
[ "$(grep '^parent random\|^child random' a.txt | cut -d' ' -f3 | sort -u | wc -l)" -eq 4 ] ||
  no "random lines repeat: $(grep random a.txt)"
# Another seed: other random bytes, the same time.
[ "$(grep -c random c.txt)" -eq 4 ] || no "seed 8: $(cat c.txt)"
[ -z "$(grep random a.txt | cut -d' ' -f3 | grep -xFf - c.txt)" ] || no "seeds 7 and 8 share bytes"
diff <(grep -v 'random\|process id' a.txt) <(grep -v 'random\|process id' c.txt) >/dev/null ||
  no "seed 8 changed more than random bytes"
[ "$(grep 'process id' a.txt)" != "$(grep 'process id' c.txt)" ] || no "seeds 7 and 8 share a process id"
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["deterministic"]=={"seed":7}, d' r.json ||
    no "report: $(cat r.json)"
fi

# Without it: real clocks, fresh random bytes each run.
printf 'sleeps: 0\n' >>d.yaml
"$RUN" "$PROG" d.yaml >r1.txt 2>&1 || no "real: status $?"
"$RUN" "$PROG" d.yaml >r2.txt 2>&1 || no "real: status $?"
grep -q '^clock 1 res [0-9]* reads [0-9]* [0-9]*$' r1.txt || no "real clock: $(head -1 r1.txt)"
grep -qxF "clock 1 res 1000 reads 1000000000 1000001000" r1.txt && no "real run read virtual time"
[ "$(grep random r1.txt | cut -d' ' -f3 | grep -xFf - r2.txt)" = "" ] || no "two real runs share random bytes"
[ "$(grep 'process id' r1.txt)" != "$(grep 'process id' r2.txt)" ] || no "two real runs share a process id"
"$RUN" --deterministic=x "$PROG" d.yaml >/dev/null 2>err.txt
[ $? -eq 127 ] && grep -q 'deterministic: "x" is not a number' err.txt || no "bad seed: $(cat err.txt)"
[ $fail -eq 0 ] && echo "deterministic: ok"
exit $fail
