# Shared set-up for tools/demo.sh and tools/test.sh: installs the Debian
# packages the build needs (only those missing), then configures and builds.
# Source it; it defines setup_packages and build_tree.

PACKAGES="build-essential cmake pkg-config clang lld libclang-rt-14-dev \
libyaml-dev libelf-dev libseccomp-dev libcmocka-dev"

log() { printf '%s\n' "$*" >&2; }

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
  log "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q >&2 || return 1
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

# build_tree DIR [cmake options...]: configure (once) and build into DIR.
build_tree() {
  local dir=$1
  shift
  cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >&2 &&
    cmake --build "$dir" -j "$(nproc)" >&2
}
