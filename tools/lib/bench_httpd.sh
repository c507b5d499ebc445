# tools/bench.sh httpd: examples/httpd natively and under cloudabi-run,
# each driven by wrk on loopback for HTTPD_SECONDS (default 5) with
# HTTPD_CONNECTIONS (default 4) connections, fetching index.html; prints
#   httpd: native N req/s, cloudabi-run M req/s, ratio R
# With two CPUs or more, both servers run on the last CPU and wrk on the
# first (HTTPD_PIN=1, the default), so that the load generator does not
# compete with the server it measures; HTTPD_PIN=0 lets the scheduler
# place everything.  Sourced by tools/bench.sh, which sets B and TMP.
bench_httpd() {
  local secs=${HTTPD_SECONDS:-5} conns=${HTTPD_CONNECTIONS:-4}
  local workers=${HTTPD_WORKERS:-4} www=$ROOT/examples/httpd/www
  if ! command -v wrk >/dev/null || ! command -v python3 >/dev/null; then
    PACKAGES="wrk python3" setup_packages ||
      { echo "httpd: wrk or python3 is not installed"; return 1; }
  fi
  local server=() client=() ncpu
  ncpu=$(nproc)
  if [ "${HTTPD_PIN:-1}" = 1 ] && [ "$ncpu" -ge 2 ]; then
    server=(taskset -c $((ncpu - 1)))
    client=(taskset -c 0)
  fi
  free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
  }
  # rps URL: requests per second wrk measured.
  rps() {
    "${client[@]}" wrk -t1 -c"$conns" -d"${secs}s" "$1" |
      awk '/^Requests\/sec:/ {printf "%d\n", $2}'
  }
  wait_port() { # PORT
    local i
    for ((i = 0; i < 200; i++)); do
      (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
      sleep 0.05
    done
    return 1
  }
  local port pid native guest
  port=$(free_port)
  "${server[@]}" "$B/examples/httpd-native" "$port" "$www" "$workers" &
  pid=$!
  wait_port "$port" && native=$(rps "http://127.0.0.1:$port/index.html")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  port=$(free_port)
  printf '%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nhttp: !socket {bind: "127.0.0.1:%s", accept: true}\nroot: !file {path: %s, directory: true}\nworkers: %s\n' \
    "$port" "$www" "$workers" >"$TMP/httpd.yaml"
  "${server[@]}" "$B/src/cloudabi-run" "$B/guest/httpd" "$TMP/httpd.yaml" 2>/dev/null &
  pid=$!
  wait_port "$port" && guest=$(rps "http://127.0.0.1:$port/index.html")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  awk -v n="${native:-0}" -v g="${guest:-0}" -v c="$conns" -v s="$secs" -v p="${server[*]:-unpinned}" 'BEGIN {
    printf "httpd: native %d req/s, cloudabi-run %d req/s, ratio %s (wrk, %d connections, %d s, servers %s)\n",
      n, g, (n > 0 ? sprintf("%.2f", g / n) : "-"), c, s, p }'
}
