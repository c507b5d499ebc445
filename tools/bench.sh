#!/usr/bin/env bash
# Benchmarks (not tests): each operation as ns/op natively and under
# cloudabi-run, plus the bare seccomp user-notify round trip, as medians of
# RUNS runs (default 5) in this one invocation, with the ratios.
#   tools/bench.sh [NAME,NAME...]      only the named benchmarks
# The row httpd is examples/httpd under load (tools/lib/bench_httpd.sh).
# The row config_anchors is --plan of a config with ANCHORS (100,000)
# anchors and as many aliases, in ms (no native column).
# Tracing's cost: the rows NAME_traced run NAME again under
# --trace=/dev/null, and NAME_traced_local under --trace=/dev/null,local
# (the tracing vDSO); their native column is NAME's.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tools/lib/setup.sh"
RUNS=${RUNS:-5}
ONLY=${1:-}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
setup_packages
build_tree "$ROOT/build" >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log"; exit 1; }
B=$ROOT/build
mkdir "$TMP/dir"
mkfifo "$TMP/ping" "$TMP/pong"
subst() { # ONLY
  sed -e "s|@DIR@|$TMP/dir|" -e "s|@ONLY@|$1|" -e "s|@PING@|$TMP/ping|" \
    -e "s|@PONG@|$TMP/pong|" "$ROOT/bench/bench.yaml"
}
subst "$ONLY" >"$TMP/bench.yaml"
# BENCHMARK:ROW:OPTION, traced runs of one benchmark each.
TRACED="write1:write1_traced:--trace=/dev/null clock:clock_traced_local:--trace=/dev/null,local"
traced=()
for t in $TRACED; do
  IFS=: read -r name row opt <<<"$t"
  case ",${ONLY:-$name}," in *",$name,"*) ;; *) continue ;; esac
  subst "$name" >"$TMP/bench-$row.yaml"
  traced+=("$name:$row:$opt")
done

# Only rows of their own (below) asked for: no per-call table.
case ",$ONLY," in ,,) calls=1 ;; *) calls=0
  for n in ${ONLY//,/ }; do
    case $n in config_anchors|startup|httpd) ;; *) calls=1 ;; esac
  done ;;
esac
: >"$TMP/native" ; : >"$TMP/guest" ; : >"$TMP/notify"
[ $calls = 1 ] && for _ in $(seq "$RUNS"); do
  "$B/bench/bench-native" "$TMP/dir" "$ONLY" >>"$TMP/native"
  "$B/src/cloudabi-run" "$B/guest/bench" "$TMP/bench.yaml" >>"$TMP/guest"
  "$B/bench/notify_rtt" >>"$TMP/notify"
  for t in "${traced[@]}"; do
    IFS=: read -r name row opt <<<"$t"
    "$B/src/cloudabi-run" "$opt" "$B/guest/bench" "$TMP/bench-$row.yaml" |
      sed "s/^$name /$row /" >>"$TMP/guest"
  done
done

median() { # NAME FILE
  awk -v n="$1" '$1 == n {print $2}' "$2" | sort -g |
    awk '{v[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

rtt=$(median notify_rtt "$TMP/notify")
[ $calls = 1 ] && printf '%-22s %12s %12s %8s %10s\n' benchmark native_ns cloudabi_ns ratio vs_notify
[ $calls = 1 ] && printf '%-22s %12s %12s %8s %10s\n' notify_rtt - "$rtt" - 1.00
for name in $(awk '{print $1}' "$TMP/guest" | awk '!seen[$0]++'); do
  n=$(median "${name%%_traced*}" "$TMP/native")
  g=$(median "$name" "$TMP/guest")
  awk -v name="$name" -v n="$n" -v g="$g" -v r="$rtt" 'BEGIN {
    printf "%-22s %12s %12s %8s %10.2f\n", name, n, g,
      (n == "-" || n == 0) ? "-" : sprintf("%.2fx", g / n), g / r }'
done
[ $calls = 1 ] && echo "(medians of $RUNS runs; vs_notify: cloudabi_ns / notify_rtt)"

# The config parser on many anchors and aliases: linear look-ups keep this
# well under a second for 100,000 (it was 32 s with linear scans).
case ",${ONLY:-config_anchors}," in *,config_anchors,*)
  ANCHORS=${ANCHORS:-100000}
  awk -v n="$ANCHORS" 'BEGIN { print "defs:"; for (i = 0; i < n; i++) printf "  - &a%d %d\n", i, i
    print "uses:"; for (i = 0; i < n; i++) printf "  - *a%d\n", i }' >"$TMP/anchors.yaml"
  : >"$TMP/anchors"
  for _ in $(seq "$RUNS"); do
    s=$(date +%s%N)
    "$B/src/cloudabi-run" --plan "$B/guest/true" "$TMP/anchors.yaml" >/dev/null
    echo "config_anchors $(( ($(date +%s%N) - s) / 1000000 ))" >>"$TMP/anchors"
  done
  printf '%-22s %12s %12s ms (%s anchors and aliases, --plan)\n' config_anchors - \
    "$(median config_anchors "$TMP/anchors")" "$ANCHORS"
  ;;
esac

# Start-up: STARTS (default 200) runs of a program that returns at once,
# under cloudabi-run (config parse, ELF check, filter, confinement, spawn,
# seize, vDSO, exit) and /bin/true, in us per run, one loop after the other
# in this invocation.
case ",${ONLY:-startup}," in *,startup,*)
  STARTS=${STARTS:-200}
  printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nname: bench\n' >"$TMP/true.yaml"
  per_run() { # COMMAND...: us per run
    local s i
    s=$(date +%s%N)
    for ((i = 0; i < STARTS; i++)); do "$@" >/dev/null; done
    echo $(( ($(date +%s%N) - s) / 1000 / STARTS ))
  }
  : >"$TMP/starts"
  for _ in $(seq "$RUNS"); do
    echo "native $(per_run /bin/true)" >>"$TMP/starts"
    echo "guest $(per_run "$B/src/cloudabi-run" "$B/guest/true" "$TMP/true.yaml")" >>"$TMP/starts"
  done
  n=$(median native "$TMP/starts") g=$(median guest "$TMP/starts")
  awk -v n="$n" -v g="$g" -v k="$STARTS" 'BEGIN {
    printf "%-22s %12s %12s %8s us per run (%d runs; native: /bin/true)\n",
      "startup", n, g, sprintf("%.2fx", g / n), k }'
  ;;
esac

# A web server under load: examples/httpd natively and under cloudabi-run.
case ",${ONLY:-httpd}," in *,httpd,*)
  . "$ROOT/tools/lib/bench_httpd.sh"
  bench_httpd
  ;;
esac
