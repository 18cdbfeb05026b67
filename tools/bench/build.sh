#!/usr/bin/env bash
# Build pmix-bench-c (tools/bench/pmix_bench.c) against the installed OpenPMIx.
#   bash tools/bench/build.sh [OUT]        (default OUT: $CARGO_TARGET_DIR or target, /pmix-bench-c)
# Needs pkg-config's `pmix` (Debian: libpmix-dev) and a C compiler; uses the library's
# installed internal headers (<pmix includedir>/pmix/src/...) for the bfrops module.
# Built with -O2 like Debian's libpmix itself. CC and CFLAGS are honoured.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-${CARGO_TARGET_DIR:-$root/target}/pmix-bench-c}"
cc="${CC:-cc}"

if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists pmix; then
  echo "build.sh: pkg-config cannot find pmix (bash tools/setup.sh installs libpmix-dev)" >&2
  exit 1
fi

incdir="$(pkg-config --variable=includedir pmix)"
internal=""
for d in "$incdir/pmix" "$incdir"; do
  if [ -f "$d/src/mca/bfrops/bfrops.h" ]; then
    internal="-I$d"
    break
  fi
done
if [ -z "$internal" ]; then
  echo "build.sh: the OpenPMIx internal headers (src/mca/bfrops/bfrops.h) are not under $incdir" >&2
  exit 1
fi

mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2046
"$cc" -std=gnu11 -O2 -Wall -Wextra ${CFLAGS:-} -o "$out" "$here/pmix_bench.c" \
  $(pkg-config --cflags pmix) "$internal" $(pkg-config --libs pmix)
echo "build.sh: built $out (OpenPMIx $(pkg-config --modversion pmix))"
