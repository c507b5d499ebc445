#!/usr/bin/env bash
# containerd (Debian's, the layer Kubernetes drives) runs CloudABI programs
# through cloudabi-oci: a containerd of our own on a temporary config and
# socket, `ctr run --rootfs DIR --runc-binary cloudabi-oci` as the runc
# shim calls it (create/start/kill/delete with --root, --log, JSON logs).
# A namespace of its own keeps the shim's runtime root
# (/run/containerd/runc/NAMESPACE) apart.  Skips (77) only when containerd
# is missing or cannot start here.
#
# usage: oci_containerd.sh CLOUDABI_OCI GUEST_PROGRAM
set -u
OCI=$(realpath "$1") GUEST=$2
for t in containerd ctr containerd-shim-runc-v2; do
  command -v $t >/dev/null || { echo "SKIP: $t is not installed (apt-get install containerd)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
TMP=$(mktemp -d /tmp/oci_containerd.XXXXXX)
NS=cloudabi-test-$$
STATE=/run/containerd/runc/$NS
C=(ctr --address "$TMP/containerd.sock" -n "$NS")
daemon=
cleanup() {
  for id in $("${C[@]}" c ls -q 2>/dev/null); do
    "${C[@]}" t kill -s SIGKILL "$id" >/dev/null 2>&1
    "${C[@]}" t rm -f "$id" >/dev/null 2>&1
    "${C[@]}" c rm "$id" >/dev/null 2>&1
  done
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
  rm -rf "$TMP"
  rmdir "$STATE" 2>/dev/null
}
trap cleanup EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
expect() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got $(printf %q "$2"), want $(printf %q "$3")"; fi; }

cat >"$TMP/config.toml" <<EOF
version = 2
root = "$TMP/root"
state = "$TMP/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$TMP/containerd.sock"
[ttrpc]
  address = "$TMP/containerd.ttrpc.sock"
EOF
containerd --config "$TMP/config.toml" >"$TMP/containerd.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do
  "${C[@]}" version >/dev/null 2>&1 && break
  sleep 0.1
done
"${C[@]}" version >/dev/null 2>&1 || { echo "SKIP: containerd does not start here: $(tail -1 "$TMP/containerd.log")"; exit 77; }

rootfs=$TMP/rootfs
mkdir -p "$rootfs/bin" "$rootfs/etc" "$TMP/data"
cp "$GUEST" "$rootfs/bin/prog"
head='%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nout: !fd stdout\n'
printf "${head}do: hello\n" >"$rootfs/etc/hello.yaml"
printf "${head}do: exit\ncode: 7\n" >"$rootfs/etc/exit7.yaml"
printf "${head}do: sleep\n" >"$rootfs/etc/sleep.yaml"
printf "${head}do: read\nfile: !file {path: /data/f.txt}\ndir: !file {path: /data}\n" >"$rootfs/etc/read.yaml"
echo "from the host" >"$TMP/data/f.txt"
run=("${C[@]}" run --fifo-dir "$TMP/fifo" --rootfs --runc-binary "$OCI")

out=$("${run[@]}" --rm "$rootfs" hello /bin/prog /etc/hello.yaml 2>&1)
expect "hello prints" "$out" "hello from a CloudABI container"
"${run[@]}" --rm "$rootfs" exit7 /bin/prog /etc/exit7.yaml >/dev/null 2>&1
expect "exit status 7 passes through" "$?" 7
out=$("${run[@]}" --rm --mount "type=bind,src=$TMP/data,dst=/data,options=rbind:ro" \
  "$rootfs" ro /bin/prog /etc/read.yaml 2>&1)
expect "a read-only bind mount is readable" "$(head -1 <<<"$out")" "from the host"
case $(tail -1 <<<"$out") in
  "create new.txt: ENOTCAPABLE"*) ok "and not writable" ;;
  *) bad "and not writable: $out" ;;
esac

# ctr run exits with the task's status; it waits in the background here.
kill_case() { # SIGNAL STATUS
  local id=sleeper-$1 runner pids t0 ms left= pid st
  "${run[@]}" --rm --null-io "$rootfs" "$id" /bin/prog /etc/sleep.yaml >/dev/null 2>&1 &
  runner=$!
  for _ in $(seq 100); do
    [ "$("${C[@]}" t ls 2>/dev/null | awk -v id="$id" '$1 == id {print $3}')" = RUNNING ] && break
    sleep 0.05
  done
  pids=$("${C[@]}" t ps "$id" | awk 'NR > 1 {print $1}')
  [ "$(wc -w <<<"$pids")" -ge 2 ] && ok "$1: task ps lists cloudabi-run and its guest" || bad "$1: task ps: $pids"
  t0=$(date +%s%N)
  "${C[@]}" t kill -s "$1" "$id"
  # Stopped, or already gone (ctr run --rm deletes it at once).
  for _ in $(seq 200); do
    [ "$("${C[@]}" t ls | awk -v id="$id" '$1 == id {print $3}')" != RUNNING ] && break
    sleep 0.01
  done
  ms=$((($(date +%s%N) - t0) / 1000000))
  if [ "$ms" -lt 1000 ]; then ok "$1: task kill stops it in $ms ms"; else bad "$1: task kill took $ms ms"; fi
  wait "$runner"
  expect "$1: its exit status is $2" "$?" "$2"
  for pid in $pids; do
    st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
    [ -n "$st" ] && [ "$st" != Z ] && left="$left $pid"
  done
  expect "$1: no process of it is left" "$left" ""
}
kill_case SIGTERM 143
kill_case SIGKILL 137

expect "no container is left" "$("${C[@]}" c ls -q)" ""
expect "the runtime's state folder is empty" "$(ls -A "$STATE" 2>/dev/null)" ""
if [ "$fails" -eq 0 ]; then echo "oci_containerd: all checks passed"; exit 0; fi
echo "oci_containerd: $fails checks failed"
exit 1
