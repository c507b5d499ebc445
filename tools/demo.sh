#!/usr/bin/env bash
# Installs what is missing, builds, and runs the shipped example program.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tools/lib/setup.sh"

setup_packages
build_tree "$ROOT/build"

echo "== examples/hello under cloudabi-run, config examples/hello/hello.yaml:" >&2
"$ROOT/build/src/cloudabi-run" "$ROOT/build/guest/hello" "$ROOT/examples/hello/hello.yaml"
