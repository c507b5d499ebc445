# Shared set-up for tools/demo.sh and tools/test.sh: installs the Debian
# packages the build needs (only those missing), then configures and builds.
# Source it; it defines setup_packages and build_tree.

PACKAGES="build-essential cmake pkg-config clang lld libclang-rt-14-dev \
libyaml-dev libelf-dev libseccomp-dev libcmocka-dev"
# What only the tests use (tools/test.sh adds them): python3 and curl for
# the end-to-end tests, podman, conmon and containerd for cloudabi-oci's.
TEST_PACKAGES="python3 curl strace podman conmon containerd"

log() { printf '%s\n' "$*" >&2; }

# The package manager's locks, and how long to wait for them (seconds):
# another apt or an unattended upgrade on a fresh machine holds them for a
# while, which is no reason to fail.  Both can be overridden (the tests do).
PKG_LOCKS=${CLOUDABI_PKG_LOCKS:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock}
PKG_LOCK_WAIT=${CLOUDABI_PKG_LOCK_WAIT:-300}

# lock_holder FILE: prints the pid holding a lock on FILE (flock or
# fcntl: /proc/locks lists both), or fails when none does.
lock_holder() {
  [ -e "$1" ] || return 1
  local ino
  ino=$(stat -L -c %i "$1" 2>/dev/null) || return 1
  awk -v ino="$ino" '$2 != "->" { n = split($6, a, ":"); if (n == 3 && a[3] == ino) { print $5; found = 1; exit } }
    END { exit !found }' /proc/locks
}

# wait_for_package_lock: returns once no package lock is held, or fails
# after PKG_LOCK_WAIT seconds, saying who holds it.
wait_for_package_lock() {
  local start=$SECONDS said=0 f pid busy
  while :; do
    busy=
    for f in $PKG_LOCKS; do
      if pid=$(lock_holder "$f"); then busy=$f; break; fi
    done
    [ -z "$busy" ] && return 0
    if [ $((SECONDS - start)) -ge "$PKG_LOCK_WAIT" ]; then
      log "the package manager is still busy after ${PKG_LOCK_WAIT} s ($busy held by pid $pid); try again later"
      return 1
    fi
    if [ $said -eq 0 ]; then
      log "waiting up to ${PKG_LOCK_WAIT} s for the package manager ($busy held by pid $pid: $(ps -o comm= -p "$pid" 2>/dev/null || echo '?'))"
      said=1
    fi
    sleep 1
  done
}

setup_packages() {
  local missing=() p
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { log "need root or sudo to install: ${missing[*]}"; return 1; }
    sudo=(sudo)
  fi
  log "installing with apt-get (a minute or more): ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  wait_for_package_lock || return 1
  # apt waits for the dpkg lock itself too, should it be taken meanwhile.
  local wait=(-o "DPkg::Lock::Timeout=$PKG_LOCK_WAIT")
  "${sudo[@]}" apt-get "${wait[@]}" update -q >&2 || return 1
  wait_for_package_lock || return 1
  "${sudo[@]}" apt-get "${wait[@]}" install -y -q --no-install-recommends "${missing[@]}" >&2
}

# build_tree DIR [cmake options...]: configure (once) and build into DIR;
# cmake's output goes to DIR/build.log, shown only when it fails.
build_tree() {
  local dir=$1
  shift
  mkdir -p "$dir"
  local blog=$dir/build.log
  log "building in $dir (a few minutes the first time; output in $blog)"
  if cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$blog" 2>&1 &&
    cmake --build "$dir" -j "$(nproc)" >>"$blog" 2>&1; then
    return 0
  fi
  cat "$blog" >&2
  log "build in $dir failed (output above, also in $blog)"
  return 1
}
