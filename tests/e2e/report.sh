#!/usr/bin/env bash
# --report=FILE: one JSON object per run, parsed, with what each run did:
# its end, processes and threads started, calls by family, and every
# limit it crossed (each --*-limit once, with the limits guest).
#
# usage: report.sh CLOUDABI_RUN LIMITS_PROGRAM HELLO_PROGRAM LIMITS_YAML
set -u
RUN=$1 LIMITS=$2 HELLO=$3 YAML=$4
command -v python3 >/dev/null 2>&1 || { echo "report: no python3, skipped"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
fail=0

# check NAME PYTHON-EXPR...: each expression, over the report d, is true.
check() {
  local name=$1
  shift
  python3 - "$name.json" "$@" <<'PY' || { echo "report $name: $(cat "$name.json" 2>/dev/null)"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
for expr in sys.argv[2:]:
    if not eval(expr, {"d": d}):
        print("report: failed: " + expr)
        sys.exit(1)
PY
}

# limit NAME DO OPTIONS...: the limits guest doing DO under OPTIONS.
limit() {
  local name=$1 do=$2
  shift 2
  sed "s/@DO@/$do/" "$YAML" >"$name.yaml"
  "$RUN" --report="$name.json" "$@" "$LIMITS" "$name.yaml" >"$name.out" 2>"$name.err"
  echo $? >"$name.status"
}

printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nterminal: !fd stdout\n' >hello.yaml
"$RUN" --report=hello.json "$HELLO" hello.yaml >/dev/null
check hello 'd["status"] == "exited" and d["exit_code"] == 0 and d["signal"] is None' \
  'd["exit_status"] == 0 and d["processes"] == 1 and d["threads"] == 1' \
  'd["limits_hit"] == [] and d["calls"].get("fd", 0) >= 1' \
  'd["calls_total"] == sum(d["calls"].values()) and d["wall_ms"] > 0' \
  'd["peak_memory_kib"] > 0 and d["deterministic"] is None' \
  'd["limits"]["processes"] == 128 and d["limits"]["memory"] == 0'

limit procs procs --process-limit=5
check procs 'd["processes"] == 5 and d["threads"] == 5' \
  'd["limits_hit"] == ["processes"] and d["calls"]["proc"] >= 5'
limit threads threads --thread-limit=8
check threads 'd["status"] == "signaled" and d["signal"] == "SIGKILL"' \
  'd["exit_status"] == 137 and d["threads"] == 8 and d["limits_hit"] == ["threads"]'
limit memory memory --memory-limit=96M
check memory 'd["limits_hit"] == ["memory"] and d["peak_memory_kib"] >= 32 * 1024' \
  'd["limits"]["memory"] == 96 << 20'
limit fds fds --fd-limit=10
check fds 'd["limits_hit"] == ["fds"] and d["calls"]["fd"] > 10'
limit fsize fsize --file-size-limit=10K
check fsize 'd["limits_hit"] == ["file-size"] and d["calls"]["file"] >= 1'
limit disk disk --disk-limit=25K
check disk 'd["limits_hit"] == ["disk"]'
limit time time --time-limit=0.3
check time 'd["exit_status"] == 124 and d["limits_hit"] == ["time"]' \
  'd["wall_ms"] >= 300 and d["signal"] == "SIGKILL"'
limit cpu cpu --cpu-limit=1
# cpu_ms is from wait4's rusage, which on these VMs has come to 815 ms
# when the kernel's own clock for RLIMIT_CPU said 1 s: a loose bound.
check cpu 'd["exit_status"] == 152 and d["limits_hit"] == ["cpu"]' \
  'd["signal"] == "SIGXCPU" and d["cpu_ms"] >= 500'

# A report that cannot be written is a failure to start.
"$RUN" --report="$TMP/no/such/dir/r.json" "$HELLO" hello.yaml >/dev/null 2>err.txt
status=$?
[ $status -eq 127 ] || { echo "unwritable report: status $status, want 127"; fail=1; }
grep -q 'cloudabi-run: --report: .*/no/such/dir/r.json: No such file or directory' err.txt ||
  { echo "unwritable report: stderr: $(cat err.txt)"; fail=1; }
[ $fail -eq 0 ] && echo "report: ok"
exit $fail
