#!/usr/bin/env bash
# podman runs CloudABI programs through cloudabi-oci, offline: an image
# imported from a local tarball (the program and its YAML configs), the
# runtime registered in a temporary containers.conf (CONTAINERS_CONF),
# podman's storage in a temporary folder.  Skips (77) only when podman is
# missing or cannot run containers here at all.
#
# usage: oci_podman.sh CLOUDABI_OCI GUEST_PROGRAM
set -u
OCI=$(realpath "$1") GUEST=$2
command -v podman >/dev/null || { echo "SKIP: podman is not installed (apt-get install podman)"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (podman's rootless mode needs subuids)"; exit 77; }
TMP=$(mktemp -d /tmp/oci_podman.XXXXXX)
STATE=$TMP/state
P=(podman --root "$TMP/storage" --runroot "$TMP/run" --storage-driver vfs)
cleanup() {
  "${P[@]}" rm -af -t 0 >/dev/null 2>&1
  rm -rf "$TMP"
}
trap cleanup EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
expect() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got $(printf %q "$2"), want $(printf %q "$3")"; fi; }

# The runtime with its state where this test can look (podman names no
# --root of its own for a runtime).
printf '#!/bin/sh\nexec %q --root %q "$@"\n' "$OCI" "$STATE" >"$TMP/runtime"
chmod +x "$TMP/runtime"
cat >"$TMP/containers.conf" <<EOF
[containers]
log_driver = "k8s-file"
[engine]
runtime = "cloudabi"
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime_supports_json = ["cloudabi"]
runtime_supports_nocgroup = ["cloudabi"]
[engine.runtimes]
cloudabi = ["$TMP/runtime"]
EOF
export CONTAINERS_CONF=$TMP/containers.conf

# The image: /bin/prog and one config per case.
img=$TMP/img
mkdir -p "$img/bin" "$img/etc" "$TMP/data"
cp "$GUEST" "$img/bin/prog"
cp /bin/true "$img/bin/native"
head='%%TAG ! tag:nuxi.nl,2015:cloudabi/\n---\nout: !fd stdout\n'
printf "${head}do: hello\n" >"$img/etc/hello.yaml"
printf "${head}do: exit\ncode: 7\n" >"$img/etc/exit7.yaml"
printf "${head}do: cat\nin: !fd stdin\n" >"$img/etc/cat.yaml"
printf "${head}do: sleep\n" >"$img/etc/sleep.yaml"
printf "${head}do: read\nfile: !file {path: f.txt}\ndir: !file {path: /data}\n" >"$img/etc/read.yaml"
printf "${head}do: hello\nd: !file {path: /data, mode: rw}\n" >"$img/etc/write.yaml"
echo "from the host" >"$TMP/data/f.txt"
tar -C "$img" -cf "$TMP/img.tar" .
if ! "${P[@]}" import --change 'CMD ["/bin/prog", "/etc/hello.yaml"]' \
    "$TMP/img.tar" localhost/cloudabi-test:1 >"$TMP/import.log" 2>&1; then
  echo "SKIP: podman cannot import an image here: $(tail -1 "$TMP/import.log")"
  exit 77
fi
run=("${P[@]}" run --network none)
IMAGE=localhost/cloudabi-test:1

out=$("${run[@]}" --rm "$IMAGE" 2>&1)
expect "hello prints" "$out" "hello from a CloudABI container"
"${run[@]}" --rm "$IMAGE" /bin/prog /etc/exit7.yaml >/dev/null 2>&1
expect "exit status 7 passes through" "$?" 7
out=$("${run[@]}" --rm --cgroups=disabled "$IMAGE" 2>&1)
expect "--cgroups=disabled" "$out" "hello from a CloudABI container"
expect "podman info names the runtime" "$("${P[@]}" info --format '{{.Host.OCIRuntime.Name}}' 2>&1)" cloudabi
out=$(printf 'one\ntwo\n' | "${run[@]}" --rm -i "$IMAGE" /bin/prog /etc/cat.yaml 2>&1)
expect "-i feeds stdin" "$out" "$(printf 'one\ntwo')"

"${run[@]}" -d --name sleeper "$IMAGE" /bin/prog /etc/sleep.yaml >/dev/null
for _ in $(seq 100); do
  [ "$("${P[@]}" logs sleeper 2>&1)" = sleeping ] && break
  sleep 0.05
done
expect "-d runs it and logs shows its output" "$("${P[@]}" logs sleeper 2>&1)" sleeping
t0=$(date +%s%N)
"${P[@]}" stop sleeper >/dev/null
ms=$((($(date +%s%N) - t0) / 1000000))
expect "stop ends it with 143" "$("${P[@]}" inspect sleeper --format '{{.State.ExitCode}}')" 143
if [ "$ms" -lt 1000 ]; then ok "stop took $ms ms"; else bad "stop took $ms ms (1 s at most)"; fi
"${P[@]}" rm sleeper >/dev/null

"${run[@]}" -d --name killed "$IMAGE" /bin/prog /etc/sleep.yaml >/dev/null
for _ in $(seq 100); do
  [ "$("${P[@]}" logs killed 2>&1)" = sleeping ] && break
  sleep 0.05
done
# cloudabi-run and its guest, as the runtime lists them.
pids=$("$TMP/runtime" ps --format json "$("${P[@]}" inspect killed --format '{{.Id}}')" | tr -d '[]' | tr , ' ')
[ "$(wc -w <<<"$pids")" -ge 2 ] && ok "ps lists cloudabi-run and its guest" || bad "ps lists cloudabi-run and its guest: $pids"
"${P[@]}" kill -s KILL killed >/dev/null
expect "kill -s KILL ends it with 137" "$("${P[@]}" wait killed)" 137
"${P[@]}" rm killed >/dev/null
left=
for pid in $pids; do
  # Gone, or a zombie that conmon has yet to collect.
  st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
  [ -n "$st" ] && [ "$st" != Z ] && left="$left $pid"
done
# Every cloudabi-run of this test names its storage in --root=.
left="$left$(pgrep -f -- "--root=$TMP/storage" || true)"
expect "no process of a container is left" "$left" ""

out=$("${run[@]}" --rm -v "$TMP/data:/data:ro" -w /data "$IMAGE" /bin/prog /etc/read.yaml 2>&1)
expect "a read-only bind mount is readable through !file" "$(head -1 <<<"$out")" "from the host"
case $(tail -1 <<<"$out") in
  "create new.txt: ENOTCAPABLE"*) ok "and not writable" ;;
  *) bad "and not writable: $out" ;;
esac
expect "nothing was written there" "$(ls "$TMP/data")" f.txt
out=$("${run[@]}" --rm -v "$TMP/data:/data:ro" "$IMAGE" /bin/prog /etc/write.yaml 2>&1)
st=$?
case "$st:$out" in
  126:*'!file: cannot open "/data": Read-only file system'*) ok "mode: rw on it is refused at create, clearly" ;;
  *) bad "mode: rw on it is refused at create, clearly: status $st, $out" ;;
esac
out=$("${run[@]}" --rm "$IMAGE" /bin/native /etc/hello.yaml 2>&1)
st=$?
case "$st:$out" in
  126:*"/bin/native: not a CloudABI executable"*) ok "a native program is refused at create, clearly" ;;
  *) bad "a native program is refused at create, clearly: status $st, $out" ;;
esac
out=$("${run[@]}" --rm -t "$IMAGE" 2>&1)
st=$?
case "$st:$out" in
  126:*"no terminal"*) ok "-t is refused clearly" ;;
  *) bad "-t is refused clearly: status $st, $out" ;;
esac

expect "podman ps -a is empty" "$("${P[@]}" ps -aq)" ""
expect "the runtime's state folder is empty" "$(ls -A "$STATE" 2>/dev/null)" ""
if [ "$fails" -eq 0 ]; then echo "oci_podman: all checks passed"; exit 0; fi
echo "oci_podman: $fails checks failed"
exit 1
