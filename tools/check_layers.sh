#!/usr/bin/env bash
# Checks the supervisor's layering (README, "Layout"): every #include in
# src/ goes down the layers below, never up, and no include circle exists
# among src/ files, where a header and the .c file of the same name beside
# it count as one piece (including a header uses its code).
#
#   host < config < loader < supervisor < calls < trace < src/*.c (main)
#   and oci/ (cloudabi-oci) over host, config, loader
#
# Usage: tools/check_layers.sh [SRC_DIR]   (default: src/ of this tree)
# Prints each violation and exits 1 if there is one.
set -uo pipefail
SRC=${1:-$(cd "$(dirname "$0")/.." && pwd)/src}
cd "$SRC" || exit 2

# What each layer may include besides itself.
declare -A may=(
  [host]=""
  [config]="host"
  [loader]="host config"
  [supervisor]="host config loader"
  [calls]="host config loader supervisor"
  [trace]="host config loader supervisor calls"
  [oci]="host config loader"
  [.]="host config loader supervisor calls trace"
)

bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

while IFS= read -r file; do
  dir=$(dirname "$file")
  layer=${dir%%/*}
  if [ -z "${may[$layer]+x}" ]; then
    echo "check_layers: $file: $layer/ is not a known layer (add it to the table)"
    bad=1
    continue
  fi
  while IFS= read -r inc; do
    # "layer/x.h" names a layer; a plain name is beside the includer, or
    # outside src/ (abi/ headers), which every layer may use.
    if [[ $inc == */* ]]; then
      target=$inc
    elif [ -f "$dir/$inc" ]; then
      target=$dir/$inc
    else
      continue
    fi
    target=${target#./}
    if [ ! -f "$target" ]; then
      echo "check_layers: $file includes \"$inc\", which is not in src/"
      bad=1
      continue
    fi
    tlayer=$(dirname "$target")
    tlayer=${tlayer%%/*}
    if [ "$tlayer" != "$layer" ] && [[ " ${may[$layer]} " != *" $tlayer "* ]]; then
      echo "check_layers: $file includes $target: $layer/ may not use $tlayer/"
      bad=1
    fi
    # One node per piece: x.c and x.h are x.
    [ "${file%.[ch]}" != "${target%.[ch]}" ] && echo "${file%.[ch]} ${target%.[ch]}" >>"$edges"
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find . -name '*.[ch]' | sed 's|^\./||' | sort)

# tsort reports every circle it finds on standard error.
if ! cycles=$(tsort "$edges" 2>&1 >/dev/null) || [ -n "$cycles" ]; then
  echo "check_layers: include circle among src/ files:"
  printf '%s\n' "$cycles" | sed 's/^tsort: [^:]*: /  /; s/^[^ ]/    &/'
  bad=1
fi

# No source file over 600 lines.
while IFS= read -r f; do
  n=$(wc -l <"$f")
  if [ "$n" -gt 600 ]; then
    echo "check_layers: $f has $n lines (at most 600: split it along a seam)"
    bad=1
  fi
done < <(find . -name '*.[ch]' | sed 's|^\./||')

if [ $bad -eq 0 ]; then
  echo "check_layers: $(find . -name '*.[ch]' | wc -l) files, layers and includes in order"
fi
exit $bad
